/* SPDX-License-Identifier: MIT */
/*
 * The user-space backend: the spawn-template semantics built from clone3,
 * close_range and execveat, for kernels without spawnkit's system calls.
 *
 * What it cannot give: deny-write on the executable while the template
 * lives (the kernel's ETXTBSY for writers).  The identity key, checked before
 * every spawn, turns an in-place write into -ESTALE instead.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <linux/sched.h>

#include "common/sys.h"
#include "common/ucopy.h"
#include "spawn/actions.h"
#include "spawn/child.h"
#include "spawn/sched_hold.h"
#include "spawn/start.h"
#include "spawn/template.h"

/* statfs f_flags: valid bit and noexec (linux/statfs.h, not in glibc's) */
#define SK_ST_VALID 0x0020
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* The child's stack lives in the spawning thread's frame (the thread is
 * suspended until the child execs or exits, as musl's posix_spawn does). */
#define SK_CHILD_STACK (32 * 1024)
/* Actions copied in on the stack up to this many; malloc'd above. */
#define SK_STACK_ACTIONS 8

long sk_clone3(struct clone_args *args, size_t size, int (*fn)(void *), void *arg);

/* EACCES unless fd is a regular, executable, mappable file on an exec mount. */
static int check_executable(int fd)
{
	struct statfs sfs;
	struct stat st;
	long ret, fl;
	void *map;

	ret = sk_syscall2(SYS_fstat, fd, &st);
	if (ret)
		return (int)ret;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	ret = sk_syscall2(SYS_fstatfs, fd, &sfs);
	if (ret)
		return (int)ret;
	if ((sfs.f_flags & SK_ST_VALID) && (sfs.f_flags & ST_NOEXEC))
		return -EACCES;
	ret = sk_syscall5(SYS_faccessat2, fd, "", X_OK, AT_EMPTY_PATH | AT_EACCESS, 0);
	/* before 5.8, or a seccomp filter that refuses it: at least one x bit */
	if (ret == -ENOSYS || ret == -EPERM)
		ret = (st.st_mode & 0111) ? 0 : -EACCES;
	if (ret)
		return -EACCES;
	fl = sk_syscall2(SYS_fcntl, fd, F_GETFL);
	if (fl >= 0 && !(fl & O_PATH)) {
		/* exec maps the file: a file system that cannot is no use */
		map = (void *)sk_syscall6(SYS_mmap, 0, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if ((unsigned long)map >= -4095UL)	/* short of memory is no verdict on the file */
			return (long)map == -ENOMEM ? -ENOMEM : -EACCES;
		sk_syscall2(SYS_munmap, map, 4096);
	}
	return 0;
}

/* Keep the pinned fd out of 0..2, where the caller's stdio belongs. */
static int move_above_stdio(int fd)
{
	long nfd;

	if (fd >= 3)
		return fd;
	nfd = sk_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
	sk_syscall1(SYS_close, fd);
	return (int)nfd;
}

/* Open the file behind fd again, through /proc/self/fd/N: the same inode,
 * no second path lookup.  A new fd or -errno. */
static long reopen_via_proc(int fd, int flags)
{
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return sk_syscall4(SYS_openat, AT_FDCWD, proc, flags, 0);
}

/*
 * The first bytes, to tell a #! script or a native ELF file.  An O_PATH fd
 * cannot be read; /proc/self/fd/N opens the same file readable if the
 * caller may read it (a script the caller cannot read cannot be
 * interpreted anyway).
 */
static long read_magic(int fd, unsigned char *magic, size_t n)
{
	long ret, rfd;

	ret = sk_syscall4(SYS_pread64, fd, magic, n, 0);
	if (ret != -EBADF)
		return ret;
	rfd = reopen_via_proc(fd, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (rfd < 0)
		return rfd;
	ret = sk_syscall4(SYS_pread64, rfd, magic, n, 0);
	sk_syscall1(SYS_close, rfd);
	return ret;
}

#if defined(__x86_64__)
#define SK_ELF_MACHINE 62	/* EM_X86_64 */
#elif defined(__aarch64__)
#define SK_ELF_MACHINE 183	/* EM_AARCH64 */
#else
#define SK_ELF_MACHINE -1
#endif

/* ELF, 64-bit, little-endian, this machine (e_machine at offset 18). */
static int native_elf(const unsigned char *m, long n)
{
	return n >= 20 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F' &&
	       m[4] == 2 && m[5] == 1 && (m[18] | m[19] << 8) == SK_ELF_MACHINE;
}

/*
 * A regular file opened O_PATH, reopened for reading through /proc (the
 * same inode, no second path lookup) so it can be mapped and read.  An
 * execute-only file, or no /proc, keeps the O_PATH fd: exec needs no more.
 * Anything but a regular file is EACCES, decided before any real open.
 */
static long reopen_readable(int pfd)
{
	struct stat st;
	long ret, fd;

	ret = sk_syscall2(SYS_fstat, pfd, &st);
	if (ret || !S_ISREG(st.st_mode)) {
		sk_syscall1(SYS_close, pfd);
		return ret ? ret : -EACCES;
	}
	fd = reopen_via_proc(pfd, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return pfd;
	sk_syscall1(SYS_close, pfd);
	return fd;
}

static int user_create(struct spawnkit_template *t,
		       const struct spawn_template_create_args *args)
{
	unsigned char magic[20];
	long fd;
	int ret;

	if (t->path) {
		/* O_PATH first: opening a FIFO, socket or device for reading
		 * would block, fail oddly or run its driver's open before we
		 * know it is no regular file */
		fd = sk_syscall4(SYS_openat, AT_FDCWD, t->path, O_PATH | O_CLOEXEC, 0);
		if (fd >= 0)
			fd = reopen_readable((int)fd);
		if (fd >= 0)
			fd = move_above_stdio((int)fd);
	} else {
		/* Our own reference, not the caller's fd: they may close it. */
		fd = sk_syscall3(SYS_fcntl, args->execfd, F_DUPFD_CLOEXEC, 3);
	}
	if (fd < 0)
		return (int)fd;
	t->fd = (int)fd;

	ret = check_executable(t->fd);
	if (!ret)
		ret = sk_identity_of_fd(t->fd, &t->id);
	if (!ret)
		ret = sk_creds_snapshot(&t->creds);
	if (ret)
		return ret;
	/* A file we cannot read may still be a script the kernel would hand
	 * to its interpreter: run such a path template by its path. */
	ret = (int)read_magic(t->fd, magic, sizeof(magic));
	t->is_script = ret >= 2 ? magic[0] == '#' && magic[1] == '!' : ret < 0 && t->path;
	t->is_native = native_elf(magic, ret);
	return 0;
}

static void user_destroy(struct spawnkit_template *t)
{
	if (t->fd >= 0)
		sk_syscall1(SYS_close, t->fd);
	sk_creds_release(&t->creds);
}

/* Still the file we pinned, reachable the way it was made?  0 or -ESTALE. */
static int check_identity(const struct spawnkit_template *t)
{
	struct sk_identity now;
	int ret;

	/* The pinned fd is what we exec: it must still be that file (the
	 * caller may have closed it and reused the number: their bug, but
	 * never a reason to run another program). */
	ret = sk_identity_of_fd(t->fd, &now);
	if (ret == -EBADF)
		return ret;
	if (ret || !sk_identity_equal(&now, &t->id))
		return -ESTALE;
	/* and for a path template, the path must still name it */
	if (t->path && (sk_identity_of_path(t->path, &now) ||
			!sk_identity_equal(&now, &t->id)))
		return -ESTALE;
	return 0;
}

/*
 * Start the child.  clone3 with CLONE_CLEAR_SIGHAND (5.5+) resets the
 * parent's handlers in the child for free (the child then skips its loop of
 * 64 rt_sigaction calls); CLONE_FILES when the child will close everything
 * above 2 anyway, so that it copies only the fds it needs (child.c);
 * CLONE_PIDFD only when someone wants the pidfd.
 */
static long start_child(struct sk_child_ctx *ctx, int *pidfd, char *stack, size_t stack_size,
			int want_pidfd, int cgroup_fd)
{
	unsigned long pf = want_pidfd ? CLONE_PIDFD : 0;
	unsigned long ff = ctx->files_shared ? CLONE_FILES : 0;
	/* a start with a report pipe does not wait for the exec */
	unsigned long vf = ctx->report_fd >= 0 ? 0 : CLONE_VFORK;
	long pid;
	int saved;

#if defined(__x86_64__)
	struct clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | vf | CLONE_CLEAR_SIGHAND | pf | ff;
	ca.pidfd = (uint64_t)(uintptr_t)pidfd;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uint64_t)(uintptr_t)stack;
	ca.stack_size = stack_size;
	ctx->handlers_cleared = 1;
	if (cgroup_fd >= 0) {
		/* CLONE_INTO_CGROUP (5.7+): no fallback can place a child
		 * in a cgroup before it runs, so an old kernel (or a filter
		 * that hides clone3) is EOPNOTSUPP, never a child elsewhere.
		 * The fd was checked to be a writable cgroup2 directory. */
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)cgroup_fd;
		pid = sk_clone3(&ca, sizeof(ca), sk_child_main, ctx);
		if (pid == -ENOSYS || pid == -E2BIG || pid == -EINVAL)
			return -EOPNOTSUPP;
		return pid;
	}
	pid = sk_clone3(&ca, sizeof(ca), sk_child_main, ctx);
	/* clone3 is 5.3+ (CLEAR_SIGHAND 5.5), and seccomp filters hide it
	 * (ENOSYS) or refuse it (EPERM: nothing in these flags needs a
	 * privilege, so only a policy says that): then plain clone */
	if (pid != -ENOSYS && pid != -EINVAL && pid != -EPERM)
		return pid;
	ctx->handlers_cleared = 0;
#else
	if (cgroup_fd >= 0)
		return -EOPNOTSUPP;
#endif
	saved = errno;
	pid = clone(sk_child_main, stack + stack_size,
		    CLONE_VM | vf | pf | ff | SIGCHLD, ctx, pidfd);
	if (pid < 0)
		pid = -errno;
	errno = saved;
	/* Before 5.2 the flag is ignored: the child is ours and unreaped,
	 * so pidfd_open names it without a race (5.3+). */
	if (pid > 0 && want_pidfd && *pidfd < 0) {
		*pidfd = (int)sk_syscall2(SYS_pidfd_open, pid, 0);
		if (*pidfd < 0) {
			/* before 5.3: no pidfd at all.  pid and pidfd come
			 * together or not at all: undo the start. */
			long err = *pidfd;

			sk_syscall2(SYS_kill, pid, SIGKILL);
			sk_syscall4(SYS_wait4, pid, 0, 0, 0);
			return err;
		}
	}
	return pid;
}

/* A child that could not start: reap it (it has exited already). */
static void reap(long pid, int pidfd)
{
	siginfo_t si;

	if (pidfd < 0 || sk_syscall5(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, 0) == -EINVAL)
		sk_syscall4(SYS_wait4, pid, 0, 0, 0);	/* no pidfd, or before 5.4 */
	if (pidfd >= 0)
		sk_syscall1(SYS_close, pidfd);
}

/*
 * Both starts: s == NULL is the vfork-style spawn (the parent waits, the
 * child runs on this frame's stack, its errno comes back in ctx.err); else
 * spawnkit_spawn_start's, whose child reads only s->blk and reports a
 * failed step's errno through a close-on-exec pipe.
 */
static pid_t spawn_common(struct spawnkit_template *t,
			  const struct spawn_template_spawn_args *args,
			  struct spawnkit_start *s)
{
	struct sk_action stack_actions[SK_STACK_ACTIONS], *actions = stack_actions;
	char stack[SK_CHILD_STACK] __attribute__((aligned(16)));
	struct sk_child_ctx local, *ctx = &local;
	uint64_t all = ~0ULL, old;
	int pidfd = -1, probe = -1, cgroup_fd, report[2] = { -1, -1 };
	struct sk_sched_hold hold = { 0, 0 };
	char *child_stack = stack;
	size_t stack_size = sizeof(stack);
	int own = !!(args->flags & SK_SPAWN_OWN);
	long pid;
	int ret;

	if (args->actions_len > SK_STACK_ACTIONS) {
		actions = malloc(args->actions_len * sizeof(*actions));
		if (!actions)
			return -ENOMEM;
	}
	ret = sk_actions_copy_in_own(args->actions, args->actions_len, own,
				     SK_SPAWN_OWN_ARGS(args->flags), actions);
	if (!ret)
		ret = sk_actions_check_dirs(actions, (unsigned int)args->actions_len);
	cgroup_fd = ret ? -1 : sk_actions_cgroup_fd(actions, (unsigned int)args->actions_len);
	if (cgroup_fd >= 0)
		ret = sk_actions_check_cgroup(cgroup_fd);
	/* The pidfd must be storable before a child exists (our own slot is). */
	if (!ret && !(args->flags & SK_SPAWN_NO_PIDFD) && !own)
		ret = sk_copy_out(args->pidfd, &probe, sizeof(probe));
	if (!ret)
		ret = sk_creds_check(&t->creds);
	if (!ret)
		ret = check_identity(t);
	if (ret)
		goto out;

	memset(ctx, 0, sizeof(*ctx));
	ctx->report_fd = -1;
	ctx->argv = (char *const *)(uintptr_t)args->argv;
	ctx->envp = (char *const *)(uintptr_t)args->envp;
	ctx->actions = actions;
	ctx->script_path = t->is_script ? t->path : NULL;
	if (s) {
		ret = sk_start_block_make(&s->blk, ctx->argv, ctx->envp, actions,
					  (unsigned int)args->actions_len, ctx->script_path);
		if (ret)
			goto out;
		ctx = s->blk.ctx;	/* argv, envp, actions, script path: the block's */
		child_stack = s->blk.stack;
		stack_size = s->blk.stack_size;
		ret = (int)sk_syscall2(SYS_pipe2, report, O_CLOEXEC | O_NONBLOCK);
		if (ret)
			goto out;
		ctx->report_fd = report[1];
	}
	ctx->execfd = t->fd;
	ctx->script_fd = t->is_script && !t->path;
	ctx->nr_actions = (unsigned int)args->actions_len;
	ctx->inherit_fds = !!(args->flags & SPAWN_TEMPLATE_SPAWN_INHERIT_FDS);
	ctx->new_session = !!(args->flags & SK_SPAWN_SETSID);
	ctx->reloc_base = sk_actions_max_fd(actions, ctx->nr_actions) + 1;
	if (ctx->reloc_base < 3)
		ctx->reloc_base = 3;
	/* Not for a start that runs on while its child works: the report
	 * pipe's write end must be the child's alone. */
	ctx->files_shared = !ctx->inherit_fds && !s;
	ctx->keep_below = ctx->reloc_base > t->fd ? ctx->reloc_base : t->fd + 1;

	/* No signal may reach the child before it has reset the handlers. */
	sk_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
	ctx->mask = old;
	if (!(args->flags & SK_SPAWN_NO_PIDFD) && ctx->files_shared)
		ctx->pidfd_slot = &pidfd;
	/* A start that runs on keeps its CPU: the child must not preempt it. */
	if (s)
		sk_sched_hold_begin(&hold);
	/*
	 * The child's first step gives it SCHED_OTHER back, unless an action
	 * sets its policy anyway: then it stays SCHED_BATCH until that action
	 * (a SCHED_IDLE tool never competes with its caller as a normal task,
	 * and makes one system call less).  NICE and SCHED_SLICE work the same
	 * under SCHED_BATCH.
	 */
	ctx->sched_restore = hold.held &&
		sk_actions_find(actions, ctx->nr_actions, SPAWN_TEMPLATE_ACTION_SCHED_POLICY) < 0;
	pid = start_child(ctx, &pidfd, child_stack, stack_size,
			  !(args->flags & SK_SPAWN_NO_PIDFD), cgroup_fd);
	sk_sched_hold_end(&hold);
	sk_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, 8);
	if (pid < 0) {
		ret = (int)pid;
		goto out;
	}
	if (s) {
		s->fd = report[0];
		report[0] = -1;
	} else if (ctx->err && (args->flags & SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO)) {
		reap(pid, pidfd);
		ret = -ctx->err;
		goto out;
	}
	*(int *)(uintptr_t)args->pidfd = pidfd;	/* probed above */
	ret = (int)pid;
out:
	for (int i = 0; i < 2; i++)
		if (report[i] >= 0)
			sk_syscall1(SYS_close, report[i]);
	if (ret < 0 && s)
		sk_start_block_free(&s->blk);
	if (actions != stack_actions)
		free(actions);
	return ret;
}

static pid_t user_spawn(struct spawnkit_template *t,
			const struct spawn_template_spawn_args *args)
{
	return spawn_common(t, args, NULL);
}

pid_t sk_user_spawn_start(struct spawnkit_template *t,
			  const struct spawn_template_spawn_args *args,
			  struct spawnkit_start *s)
{
	return spawn_common(t, args, s);
}

const struct sk_backend_ops sk_user_backend = {
	.create = user_create,
	.spawn = user_spawn,
	.destroy = user_destroy,
};

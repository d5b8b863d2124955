/* SPDX-License-Identifier: MIT */
/*
 * The child side of a user-backend spawn.  Sacred ground: see child.h.
 * Everything here is a raw system call on memory the parent prepared.
 */
#include <fcntl.h>
#include <signal.h>
#include <linux/close_range.h>
#include <linux/openat2.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include "common/sched_attr.h"
#include "common/sys.h"
#include "spawn/child.h"
#include "spawn/sched_hold.h"

#define SK_NSIG 64

/* The kernel's struct sigaction on x86_64 (not glibc's). */
struct sk_ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static char *const sk_empty_env[] = { 0 };

int sk_child_exit_status(int err)
{
	switch (err) {
	case ENOENT:
		return SPAWN_TEMPLATE_EXIT_ENOENT;
	case EACCES:
	case ENOEXEC:
		return SPAWN_TEMPLATE_EXIT_EACCES;
	default:
		return SPAWN_TEMPLATE_EXIT_OTHER;
	}
}

static void set_default(int sig)
{
	struct sk_ksigaction dfl = { .handler = SIG_DFL };

	sk_syscall4(SYS_rt_sigaction, sig, &dfl, 0, 8);
}

/*
 * A handler of the parent's must never run in the child: the child shares
 * the parent's memory until exec, and the exec-time mask may unblock a
 * pending signal just before execve.  Ignored signals stay ignored (they are
 * inherited across exec by design).
 */
static void reset_handlers(void)
{
	struct sk_ksigaction old;
	int sig;

	for (sig = 1; sig <= SK_NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sk_syscall4(SYS_rt_sigaction, sig, 0, &old, 8))
			continue;
		if (old.handler != SIG_DFL && old.handler != SIG_IGN)
			set_default(sig);
	}
}

/* close_range(lo, hi), with a loop for kernels before 5.9. */
static long close_span(unsigned int lo, unsigned int hi, unsigned int flags)
{
	struct rlimit rl;
	unsigned int fd;
	long ret;

	if (lo > hi)
		return 0;
	ret = sk_syscall3(SYS_close_range, lo, hi, flags);
	if (ret != -ENOSYS)
		return ret;
	if (sk_syscall4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl) == 0 &&
	    rl.rlim_cur < hi)
		hi = rl.rlim_cur ? (unsigned int)rl.rlim_cur - 1 : 0;
	for (fd = lo; fd <= hi && fd >= lo; fd++) {
		if (flags & CLOSE_RANGE_CLOEXEC)
			sk_syscall3(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC);
		else
			sk_syscall1(SYS_close, fd);
	}
	return 0;
}

/*
 * Where the pinned executable is in the child's table.  Its number was never
 * the caller's to act on, so actions naming it see what the kernel backend
 * (which keeps the file outside the table) would show: a CLOSE or a new fd
 * at that number moves the executable away first; after a CLOSE_RANGE over
 * it the number counts as closed ("hidden") though the file stays for exec.
 */
struct xfd_state {
	int fd;
	int hidden;
	int reloc_base;		/* first fd number no action names */
	int report;		/* the start's report pipe, or -1: never closed
				   (it is close-on-exec; closing it early would
				   tell the parent our memory is free) */
};

static int in_span(int fd, unsigned int lo, unsigned int hi)
{
	return fd >= 0 && (unsigned int)fd >= lo && (unsigned int)fd <= hi;
}

/* Close [lo, hi] except fd a and fd b (either may be -1). */
static long close_span_except(unsigned int lo, unsigned int hi, unsigned int flags,
			      int a, int b)
{
	long ret;

	if (!in_span(a, lo, hi))
		a = -1;
	if (!in_span(b, lo, hi))
		b = -1;
	if (a < 0) {
		a = b;
		b = -1;
	}
	if (a < 0)
		return close_span(lo, hi, flags);
	if (b >= 0 && b < a) {
		int t = a;

		a = b;
		b = t;
	}
	ret = (unsigned int)a > lo ? close_span(lo, a - 1, flags) : 0;
	if (!ret && (unsigned int)a < hi)
		ret = close_span_except(a + 1, hi, flags, b, -1);
	return ret;
}

/* Close [lo, hi] except the exec fd, which is ours, not the caller's, and
 * the report pipe. */
static long close_span_keep(unsigned int lo, unsigned int hi, unsigned int flags,
			    struct xfd_state *x)
{
	if ((flags & CLOSE_RANGE_CLOEXEC) || x->fd < 0 ||
	    (unsigned int)x->fd < lo || (unsigned int)x->fd > hi)
		return close_span_except(lo, hi, flags, x->report, -1);
	/* The caller closed this number: the pinned fd stays for exec but
	 * must not reach the new program (a template made without CLOEXEC). */
	sk_syscall3(SYS_fcntl, x->fd, F_SETFD, FD_CLOEXEC);
	x->hidden = 1;
	return close_span_except(lo, hi, flags, x->fd, x->report);
}

/* An action is about to replace or close the executable's number: move
 * the executable first, to a number no action names. */
static long relocate(struct xfd_state *x)
{
	long nfd = sk_syscall3(SYS_fcntl, x->fd, F_DUPFD_CLOEXEC, x->reloc_base);

	if (nfd < 0)
		return nfd;
	sk_syscall1(SYS_close, x->fd);
	x->fd = (int)nfd;
	x->hidden = 0;
	return 0;
}

/* Does the action read fd as an open file the caller gave? */
static int reads_hidden(const struct xfd_state *x, int fd)
{
	return x->hidden && fd == x->fd;
}

/* dirfd: the action's, or -1 where that number is hidden (closed to the
 * caller): an absolute path ignores it, a relative one gets EBADF, as the
 * kernel would answer for a closed dirfd.  The path is the caller's
 * pointer, so the child never reads it itself. */
static long do_open(const struct sk_action *a, int dirfd)
{
	long fd, ret;

	fd = sk_syscall4(SYS_openat2, dirfd, a->path, &a->how, sizeof(a->how));
	if (fd == -ENOSYS && !a->how.resolve)	/* before 5.6 */
		fd = sk_syscall4(SYS_openat, dirfd, a->path, a->how.flags, a->how.mode);
	if (fd < 0 || fd == a->newfd)
		return fd < 0 ? fd : 0;
	ret = sk_syscall3(SYS_dup3, fd, a->newfd, a->how.flags & O_CLOEXEC);
	sk_syscall1(SYS_close, fd);
	return ret < 0 ? ret : 0;
}

/* nice(inc) as nice(1) -n does: the raw getpriority() is 20 - nice, and the
 * result is clamped to the range of nice values.  Lowering the value
 * without CAP_SYS_NICE (or RLIMIT_NICE) is setpriority's EACCES. */
static long add_nice(int inc)
{
	long cur = sk_syscall2(SYS_getpriority, PRIO_PROCESS, 0);
	long val;

	if (cur < 0)
		return cur;
	val = 20 - cur + inc;
	if (val < -20)
		val = -20;
	if (val > 19)
		val = 19;
	return sk_syscall3(SYS_setpriority, PRIO_PROCESS, 0, val);
}

/*
 * The policy alone: sched_setscheduler() keeps the nice value and, since
 * the custom slices of 6.12, the slice (a custom one is carried over).  So
 * the child keeps the slice it inherited: the parent's if the parent set one
 * without reset-on-fork (what a plain fork gives), the default otherwise
 * (spawnkit_thread_set_slice() sets reset-on-fork).  Changing the slice is
 * not this action's business, and an idle task's slice rarely matters: any
 * normal task's wake-up preempts it.  With this action the sched hold's
 * SCHED_OTHER step is skipped (user_backend.c): the child stays SCHED_BATCH
 * until here, and this is the policy the program gets.  With NICE the
 * order does not matter (the nice value is kept across the change,
 * SCHED_IDLE only ignores it).
 */
static long set_policy(int policy)
{
	static const struct sched_param zero;

	return sk_syscall3(SYS_sched_setscheduler, 0, policy, &zero);
}

/* spawnkit's extension actions: process attributes, no fd work.  CGROUP
 * was done by clone3 before the child ran. */
static long run_ext_action(const struct sk_action *a)
{
	long ret;

	switch (a->type) {
	case SPAWN_TEMPLATE_ACTION_SETSID:
		ret = sk_syscall0(SYS_setsid);
		return ret < 0 ? ret : 0;
	case SPAWN_TEMPLATE_ACTION_SETPGID:
		return sk_syscall2(SYS_setpgid, 0, a->fd);
	case SPAWN_TEMPLATE_ACTION_UMASK:
		sk_syscall1(SYS_umask, a->fd);
		return 0;
	case SPAWN_TEMPLATE_ACTION_SETRLIMIT:
		return sk_syscall4(SYS_prlimit64, 0, a->fd, a->rlim, 0);
	case SPAWN_TEMPLATE_ACTION_CGROUP:
		return 0;
	case SPAWN_TEMPLATE_ACTION_SETCTTY:
		return sk_syscall3(SYS_ioctl, a->fd, TIOCSCTTY, 0);
	case SPAWN_TEMPLATE_ACTION_NICE:
		return add_nice(a->fd);
	case SPAWN_TEMPLATE_ACTION_SCHED_POLICY:
		return set_policy(a->fd);
	case SPAWN_TEMPLATE_ACTION_SCHED_SLICE:
		/* under the policy the child has now: EINVAL once SCHED_IDLE,
		 * so it belongs before SCHED_POLICY's SCHED_IDLE (which keeps
		 * the slice); the child's own reset-on-fork flag stays 0 */
		return sk_sched_set_slice((uint32_t)a->fd, 0);
	}
	return -EINVAL;	/* the parent checked the type: not reached */
}

static long run_action(const struct sk_action *a, struct xfd_state *x, uint64_t *mask)
{
	long ret = 0;
	int sig;

	switch (a->type) {
	case SPAWN_TEMPLATE_ACTION_CLOSE:
		if (reads_hidden(x, a->fd))
			return -EBADF;
		if (a->fd == x->fd)	/* moving it away closes that number */
			return relocate(x);
		return sk_syscall1(SYS_close, a->fd);
	case SPAWN_TEMPLATE_ACTION_DUP2:
		if (reads_hidden(x, a->fd))
			return -EBADF;
		if (a->fd == a->newfd) {	/* only: is it open? */
			ret = sk_syscall2(SYS_fcntl, a->fd, F_GETFD);
			return ret < 0 ? ret : 0;
		}
		if (a->newfd == x->fd && (ret = relocate(x)))
			return ret;
		ret = sk_syscall3(SYS_dup3, a->fd, a->newfd, a->flags);
		return ret < 0 ? ret : 0;
	case SPAWN_TEMPLATE_ACTION_FCHDIR:
		if (reads_hidden(x, a->fd))
			return -EBADF;
		return sk_syscall1(SYS_fchdir, a->fd);
	case SPAWN_TEMPLATE_ACTION_OPEN:
		if (a->newfd == x->fd && (ret = relocate(x)))
			return ret;
		return do_open(a, reads_hidden(x, a->fd) ? -1 : a->fd);
	case SPAWN_TEMPLATE_ACTION_CLOSE_RANGE:
		return close_span_keep(a->fd, a->newfd == SPAWN_TEMPLATE_FD_MAX ?
				       ~0U : (unsigned int)a->newfd, a->flags, x);
	case SPAWN_TEMPLATE_ACTION_SIGMASK:
		*mask = a->sigset;
		return 0;
	case SPAWN_TEMPLATE_ACTION_SIGDEFAULT:
		for (sig = 1; sig <= SK_NSIG; sig++)
			if ((a->sigset >> (sig - 1)) & 1 && sig != SIGKILL && sig != SIGSTOP)
				set_default(sig);
		return 0;
	case SPAWN_TEMPLATE_ACTION_SETCTTY:
		if (reads_hidden(x, a->fd))
			return -EBADF;
		return run_ext_action(a);
	default:
		return run_ext_action(a);
	}	/* the parent checked the type: not reached */
}

int sk_child_main(void *arg)
{
	struct sk_child_ctx *c = arg;
	struct xfd_state x = { .fd = c->execfd, .reloc_base = c->reloc_base, .report = -1 };
	uint64_t mask = c->mask;
	unsigned int i;
	long ret = 0;
	int xfd, err;

	if (!c->handlers_cleared)
		reset_handlers();
	if (c->report_fd >= 0) {
		/* Out of the actions' way: no action names a number from
		 * reloc_base up, so none can replace or close it. */
		ret = sk_syscall3(SYS_fcntl, c->report_fd, F_DUPFD_CLOEXEC, c->reloc_base);
		if (ret < 0) {
			x.report = c->report_fd;
			goto fail;
		}
		sk_syscall1(SYS_close, c->report_fd);
		x.report = (int)ret;
		ret = 0;
	}
	if (c->sched_restore) {
		ret = sk_sched_hold_child();
		if (ret < 0)
			goto fail;
	}
	if (c->new_session) {
		/* As libuv's and posix_spawn's children do, first. */
		ret = sk_syscall0(SYS_setsid);
		if (ret < 0)
			goto fail;
	}
	if (c->files_shared) {
		/*
		 * The child shares the parent's fd table (CLONE_FILES): take a
		 * private copy of only the fds below keep_below (those an action
		 * names, and the executable) before touching any.  Everything
		 * above is closed at the end anyway, so a 100k-fd parent costs
		 * no 100k-entry copy.  unshare() first where close_range cannot.
		 */
		ret = sk_syscall3(SYS_close_range, c->keep_below, ~0U, CLOSE_RANGE_UNSHARE);
		if (ret < 0)
			ret = sk_syscall1(SYS_unshare, CLONE_FILES);
		if (ret < 0)
			goto fail;
		/* The shared table held our own pidfd (installed, and its
		 * number stored, before this child ran): not the caller's. */
		if (c->pidfd_slot && *c->pidfd_slot >= 0 && *c->pidfd_slot < c->keep_below)
			sk_syscall1(SYS_close, *c->pidfd_slot);
	}
	for (i = 0; i < c->nr_actions; i++) {
		ret = run_action(&c->actions[i], &x, &mask);
		if (ret < 0)
			goto fail;
	}
	xfd = x.fd;
	if (!c->inherit_fds) {
		ret = close_span_keep(3, ~0U, 0, &x);
		if (ret < 0)
			goto fail;
		/* and ours goes at exec, even from a template made without
		 * CLOEXEC: "every fd above 2" (a hidden one is marked already:
		 * close_span_keep marks the executable's fd when it spans it) */
		if (!x.hidden)
			sk_syscall3(SYS_fcntl, xfd, F_SETFD, FD_CLOEXEC);
	}
	/* SIGKILL and SIGSTOP can never be blocked; say so explicitly. */
	mask &= ~((1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1)));
	sk_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &mask, 0, 8);

	if (c->script_path) {
		ret = sk_syscall3(SYS_execve, c->script_path, c->argv,
				  c->envp ? c->envp : sk_empty_env);
	} else {
		/* A #! script run through its fd needs the fd across exec:
		 * the interpreter opens /dev/fd/N (as fexecve does). */
		if (c->script_fd)
			sk_syscall3(SYS_fcntl, xfd, F_SETFD, 0);
		ret = sk_syscall5(SYS_execveat, xfd, "", c->argv,
				  c->envp ? c->envp : sk_empty_env, AT_EMPTY_PATH);
	}
fail:
	err = (int)-ret;
	if (x.report >= 0)	/* the parent reads it, then waits for EOF */
		sk_syscall3(SYS_write, x.report, &err, sizeof(err));
	else
		c->err = err;
	sk_syscall1(SYS_exit_group, sk_child_exit_status(err));
	return 0;
}

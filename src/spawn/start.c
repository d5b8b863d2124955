/* SPDX-License-Identifier: MIT */
/*
 * start.c - spawnkit_spawn_start(): a spawn that does not wait for the exec.
 *
 * spawnkit_spawn() returns once the child has exec'd (or failed): its
 * child borrows the caller's memory and stack (CLONE_VM|CLONE_VFORK), so
 * the caller must stand still until then.  That wait is short on a quiet
 * machine but is whatever the scheduler makes it on a busy one, and an
 * event loop that starts children waits with it.  Here the child gets a
 * mapping of its own (start_block.c) and no CLONE_VFORK, and reports a
 * failed step's errno through a close-on-exec pipe whose end of file says
 * "exec'd or gone": the caller polls the pipe's fd and learns the outcome
 * when it is there.
 *
 * Where the outcome could differ from spawnkit_spawn()'s only by arriving
 * late in a way callers cannot take back, the start is made the ordinary
 * way and is decided on return: the kernel backend (its call returns after
 * the exec), a file that is neither a #! script nor a native ELF file (its
 * exec may say ENOEXEC, which callers answer by running it another way),
 * and argument lists near the kernel's limit (E2BIG).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "common/sys.h"
#include "spawn/start.h"

#define SK_MAX_ARG_STRLEN	(32 * 4096)	/* the kernel's, per string */
#define SK_ARG_MAX		(32 * 4096)	/* its floor for the whole */
#define SK_STK_LIM		(8UL << 20)

/*
 * 1 if argv and envp stay well inside what execve accepts: every string
 * under half of MAX_ARG_STRLEN and the whole under half of the kernel's
 * limit (bprm_stack_limits: a quarter of RLIMIT_STACK, at most 6 MiB, at
 * least ARG_MAX, less a pointer per string).
 */
static int args_well_inside(char *const *argv, char *const *envp)
{
	unsigned long limit = SK_STK_LIM / 4 * 3, bytes = 64;	/* the exec's file name */
	char *const *vecs[2] = { argv, envp };
	struct rlimit rl;

	if (sk_syscall4(SYS_prlimit64, 0, RLIMIT_STACK, 0, &rl) == 0 &&
	    rl.rlim_cur / 4 < limit)
		limit = rl.rlim_cur / 4;
	if (limit < SK_ARG_MAX)
		limit = SK_ARG_MAX;
	for (int v = 0; v < 2; v++) {
		for (size_t i = 0; vecs[v] && vecs[v][i]; i++) {
			size_t len = strlen(vecs[v][i]) + 1;

			if (len > SK_MAX_ARG_STRLEN / 2)
				return 0;
			bytes += len + sizeof(char *);
			if (bytes > limit / 2)
				return 0;
		}
	}
	return 1;
}

static int wants_async(const struct spawnkit_template *t, char *const *argv,
		       char *const *envp)
{
	if (t->backend != SPAWNKIT_BACKEND_USER)
		return 0;
	if (!t->is_native && !t->is_script)
		return 0;
	return args_well_inside(argv, envp);
}

static pid_t start_args(struct spawnkit_template *t, char *const argv[], char *const envp[],
			const struct spawn_template_action *actions, unsigned int nr_actions,
			unsigned int flags, int *pidfd, struct spawnkit_start *s)
{
	struct spawn_template_spawn_args a;

	if (!wants_async(t, argv, envp)) {
		/* decided on return: s keeps fd -1 */
		return spawnkit_spawn(t, argv, envp, actions, nr_actions, flags, pidfd);
	}
	memset(&a, 0, sizeof(a));
	a.flags = SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO;
	if (flags & SPAWNKIT_SPAWN_INHERIT_FDS)
		a.flags |= SPAWN_TEMPLATE_SPAWN_INHERIT_FDS;
	if (flags & SPAWNKIT_SPAWN_SETSID)
		a.flags |= SK_SPAWN_SETSID;
	a.pidfd = (uint64_t)(uintptr_t)pidfd;
	a.argv = (uint64_t)(uintptr_t)argv;
	a.envp = (uint64_t)(uintptr_t)envp;
	a.actions = (uint64_t)(uintptr_t)actions;
	a.actions_len = nr_actions;
	return sk_user_spawn_start(t, &a, s);
}

SK_EXPORT pid_t spawnkit_spawn_start(struct spawnkit_template *t, char *const argv[],
				     char *const envp[],
				     const struct spawn_template_action *actions,
				     unsigned int nr_actions, unsigned int flags, int *pidfd,
				     struct spawnkit_start **startp)
{
	struct spawnkit_start *s;
	int saved = errno;
	pid_t pid;

	if (!t || !pidfd || !startp ||
	    (flags & ~(unsigned int)(SPAWNKIT_SPAWN_INHERIT_FDS | SPAWNKIT_SPAWN_SETSID)))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = saved;
		return -ENOMEM;
	}
	s->fd = -1;
	pid = start_args(t, argv, envp, actions, nr_actions, flags, pidfd, s);
	errno = saved;
	if (pid < 0) {
		free(s);
		return pid;
	}
	*startp = s;
	return pid;
}

SK_EXPORT int spawnkit_start_fd(const struct spawnkit_start *s)
{
	return s ? s->fd : -EINVAL;
}

/* End of file seen: the child no longer reads the block. */
static int decided(struct spawnkit_start *s)
{
	sk_syscall1(SYS_close, s->fd);
	s->fd = -1;
	sk_start_block_free(&s->blk);
	return -s->err;
}

SK_EXPORT int spawnkit_start_wait(struct spawnkit_start *s, int options)
{
	struct pollfd p;
	long n;
	int err;

	if (!s || (options & ~WNOHANG))
		return -EINVAL;
	if (s->fd < 0)
		return -s->err;
	for (;;) {
		n = sk_syscall3(SYS_read, s->fd, &err, sizeof(err));
		if (n == (long)sizeof(err)) {
			/* the failing step; end of file follows at its exit */
			s->err = err > 0 ? err : EIO;
			continue;
		}
		if (n == 0)
			return decided(s);
		if (n == -EINTR)
			continue;
		if (n > 0) {		/* not from our child: a pipe write */
			s->err = EIO;	/* of 4 bytes is never split */
			continue;
		}
		if (n != -EAGAIN) {
			/* Cannot tell when the child is done with the block:
			 * leave it mapped rather than risk its memory. */
			sk_syscall1(SYS_close, s->fd);
			s->fd = -1;
			s->blk.base = NULL;
			s->err = (int)-n;
			return (int)n;
		}
		if (options & WNOHANG)
			return -EAGAIN;
		p.fd = s->fd;
		p.events = POLLIN;
		p.revents = 0;
		sk_syscall3(SYS_poll, &p, 1, -1);
	}
}

SK_EXPORT void spawnkit_start_free(struct spawnkit_start *s)
{
	if (!s)
		return;
	while (s->fd >= 0 && spawnkit_start_wait(s, 0) == -EAGAIN)
		;
	free(s);
}

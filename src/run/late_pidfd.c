/* SPDX-License-Identifier: MIT */
/*
 * late_pidfd.c - the run's pidfd, opened once the child has exec'd.
 *
 * CLONE_PIDFD makes the pidfd inside clone, while the caller of a
 * vfork-style spawn waits for the child's exec: since Linux 6.9 that is a
 * pidfs inode, dentry and file, 7-9 us of the caller's CPU per run, all of
 * it on the run's critical path.  pidfd_open() right after the spawn
 * returns costs as much, but runs while the child is in its exec (the
 * caller is woken at the exec, on the other CPU when one is free): in an
 * interleaved C loop on a loaded 2-CPU host, spawn + waitpid took 21 us
 * more wall time per call with CLONE_PIDFD than without a pidfd, and 3 us
 * more with the pidfd opened late (median of 150 paired reps).
 *
 * Late is as good as CLONE_PIDFD only if nobody else reaps the child in
 * between: an unreaped child's pid names it and nothing else.  In this
 * process nothing reaps a child it did not start unless SIGCHLD is
 * ignored or has SA_NOCLDWAIT (the kernel reaps at exit) or a handler (it
 * may call waitpid(-1)); so the late open is used only when SIGCHLD is
 * SIG_DFL without SA_NOCLDWAIT, else CLONE_PIDFD as before.  What is left
 * is another thread's wait() for any child landing in the microseconds
 * between the spawn's return and the open: the open then fails with ESRCH
 * and the run reports the status lost, as it does when such a wait()
 * comes at any time on a kernel before 6.15.
 */
#include <signal.h>
#include <stdint.h>

#include "common/sys.h"
#include "run/late_pidfd.h"

/* The kernel's struct sigaction on x86_64 (not glibc's). */
struct sk_ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

/* pidfd_open() works here (5.3+, not refused by a filter): 1, 0, or -1
 * not yet known.  Asked once; two threads asking at once agree. */
static int opens = -1;

static int can_open(void)
{
	int v = __atomic_load_n(&opens, __ATOMIC_RELAXED);

	if (v >= 0)
		return v;
	v = sk_pidfd_open_probe() == 0;
	__atomic_store_n(&opens, v, __ATOMIC_RELAXED);
	return v;
}

int sk_late_pidfd_ok(void)
{
	struct sk_ksigaction sa;

	if (sk_syscall4(SYS_rt_sigaction, SIGCHLD, 0, &sa, 8))
		return 0;
	if (sa.handler != SIG_DFL || (sa.flags & SA_NOCLDWAIT))
		return 0;
	return can_open();
}

int sk_late_pidfd_open(pid_t pid, int *pidfd)
{
	long fd = sk_syscall2(SYS_pidfd_open, pid, 0);

	if (fd >= 0) {
		*pidfd = (int)fd;
		return 0;
	}
	*pidfd = -1;
	if (fd == -ESRCH)	/* reaped by another waiter: its status is lost */
		return 0;
	/* No pidfd for a child that runs (EMFILE, ENOMEM): pid and pidfd come
	 * together or not at all, so the start is undone, as the user
	 * backend does when pidfd_open fails there. */
	sk_syscall2(SYS_kill, pid, SIGKILL);
	sk_syscall4(SYS_wait4, pid, 0, 0, 0);
	return (int)fd;
}

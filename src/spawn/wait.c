/* SPDX-License-Identifier: MIT */
/*
 * wait.c - reap a spawned child through its pidfd, and never invent a status.
 *
 * waitid(P_PIDFD) reaps exactly our child, but any other waiter in the
 * process can reap it first: a SIGCHLD handler calling waitpid(-1), or
 * SIGCHLD set to SIG_IGN (the kernel reaps at exit).  waitid then says
 * ECHILD.  Since Linux 6.15 the kernel keeps the exit status on the pidfd
 * itself (ioctl PIDFD_GET_INFO, PIDFD_INFO_EXIT) once the child is reaped,
 * by whoever: that is asked next.  Only when both fail is the status lost,
 * and then the caller hears -ECHILD, never a made-up 0.
 */
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <sys/wait.h>

#include "common/sys.h"
#include "spawnkit/spawnkit.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* <linux/pidfd.h> of Linux 6.15, which the build host may lack. */
#define SK_PIDFD_INFO_EXIT (1ULL << 3)
struct sk_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;	/* a wait status, as waitpid(2) stores it */
};
_Static_assert(sizeof(struct sk_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");
#define SK_PIDFD_GET_INFO _IOWR(0xFF, 11, struct sk_pidfd_info)

/*
 * When the kernel reaps the child itself (SIGCHLD ignored, SA_NOCLDWAIT),
 * it wakes the pidfd a moment before it stores the status there: a waiter
 * in between sees ECHILD and no status yet.  So a pidfd that answers
 * GET_INFO but has no exit status is asked again for a short while; a
 * kernel without GET_INFO (before 6.13) is not.  Only the path where the
 * status may be lost ever waits here.
 */
#define SK_EXIT_INFO_TRIES	40
#define SK_EXIT_INFO_PAUSE_NS	50000	/* 40 x 50 us: 2 ms at most */

/* The status the kernel kept on the pidfd, or -ECHILD. */
static int status_from_pidfd(int pidfd, int *wstatus)
{
	const struct timespec pause = { 0, SK_EXIT_INFO_PAUSE_NS };
	struct sk_pidfd_info info;
	int try;
	long ret;

	for (try = 0; try < SK_EXIT_INFO_TRIES; try++) {
		memset(&info, 0, sizeof(info));
		info.mask = SK_PIDFD_INFO_EXIT;
		ret = sk_syscall3(SYS_ioctl, pidfd, SK_PIDFD_GET_INFO, (long)&info);
		if (ret == 0 && (info.mask & SK_PIDFD_INFO_EXIT)) {
			*wstatus = info.exit_code;
			return 1;
		}
		if (ret < 0 && ret != -ESRCH)
			break;		/* no GET_INFO here: the status is lost */
		sk_syscall2(SYS_nanosleep, &pause, NULL);
	}
	return -ECHILD;
}

SK_EXPORT int spawnkit_pidfd_wait(int pidfd, int options, int *wstatus)
{
	siginfo_t si;
	long ret;

	if (!wstatus || (options & ~WNOHANG))
		return -EINVAL;
	memset(&si, 0, sizeof(si));
	ret = sk_syscall5(SYS_waitid, P_PIDFD, pidfd, (long)&si, WEXITED | options, 0);
	if (ret == -ECHILD)
		return status_from_pidfd(pidfd, wstatus);
	if (ret < 0)
		return (int)ret;
	if (si.si_pid == 0)
		return 0;	/* WNOHANG: still running */
	switch (si.si_code) {
	case CLD_EXITED:
		*wstatus = (si.si_status & 0xff) << 8;
		break;
	case CLD_DUMPED:
		*wstatus = (si.si_status & 0x7f) | 0x80;
		break;
	default:		/* CLD_KILLED */
		*wstatus = si.si_status & 0x7f;
		break;
	}
	return 1;
}

/* SPDX-License-Identifier: MIT */
/*
 * late_pidfd.h - spawnkit_run's pidfd opened after the spawn returns
 * rather than by CLONE_PIDFD (late_pidfd.c says when and why).
 */
#ifndef SPAWNKIT_RUN_LATE_PIDFD_H
#define SPAWNKIT_RUN_LATE_PIDFD_H

#include <sys/types.h>

/* 1 if the pidfd may be opened late: SIGCHLD is SIG_DFL without
 * SA_NOCLDWAIT (nobody else reaps our child) and pidfd_open() works. */
int sk_late_pidfd_ok(void);

/*
 * The pidfd of pid, a child of ours that nothing else reaps: 0 with
 * *pidfd set, or -1 in *pidfd and 0 if the child is gone (another waiter
 * took it: the status is lost); any other failure kills and reaps the
 * child and is -errno.
 */
int sk_late_pidfd_open(pid_t pid, int *pidfd);

#endif

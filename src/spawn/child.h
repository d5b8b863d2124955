/* SPDX-License-Identifier: MIT */
/*
 * child.h - the vfork-style child of the user-space backend.
 *
 * The child shares the parent's memory until it execs (CLONE_VM) and runs
 * on a stack the parent gave it: inside the parent's suspended frame
 * (CLONE_VFORK, spawnkit_spawn), or in a mapping of its own while the parent
 * runs on (spawnkit_spawn_start, start.c).  No malloc, no locks, no stdio,
 * no errno, only raw async-signal-safe system calls (common/sys.h).  Every
 * input it reads was copied and checked by the parent beforehand.
 */
#ifndef SPAWNKIT_CHILD_H
#define SPAWNKIT_CHILD_H

#include <stdint.h>
#include "spawn/actions.h"

struct sk_child_ctx {
	/* in */
	int execfd;			/* the pinned executable */
	const char *script_path;	/* non-NULL: exec this path (a #! script
					   made from a path: scripts need a
					   name that survives exec) */
	int script_fd;			/* 1: a #! script made from an fd */
	char *const *argv;
	char *const *envp;
	const struct sk_action *actions;
	unsigned int nr_actions;
	int inherit_fds;
	int new_session;		/* setsid() before the actions */
	int sched_restore;		/* cloned as SCHED_BATCH for the parent's
					   sake (sched_hold.c): SCHED_OTHER
					   first */
	int reloc_base;			/* first fd no action names */
	uint64_t mask;			/* signal mask to exec with */
	int handlers_cleared;		/* clone3's CLONE_CLEAR_SIGHAND did it */
	int files_shared;		/* CLONE_FILES: unshare before any fd work */
	int keep_below;			/* with files_shared: copy fds < this only */
	const volatile int *pidfd_slot;	/* where clone stores the pidfd, or NULL */
	int report_fd;			/* spawnkit_spawn_start: the write end of
					   the close-on-exec pipe the failing
					   step's errno goes to (its closing at
					   exec or exit is the parent's signal
					   that our memory is free); -1 for a
					   vfork-style start */
	/* out */
	int err;			/* errno of the failed step, 0 if exec ran */
};

/* The child's entry point (never returns on success). */
int sk_child_main(void *ctx);

/* Exit status of a child that failed with errno err (127/126/1). */
int sk_child_exit_status(int err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * actions.h - copy in and check a spawn's actions before anything runs.
 *
 * The result is a self-contained array the vfork-style child reads: every
 * pointer the child would otherwise chase (open_how, signal sets) is copied,
 * so a bad pointer is -EFAULT in the parent, never a fault in the child.
 * Only an OPEN's path string stays a caller pointer: the child's openat2
 * reads it and reports EFAULT itself.
 */
#ifndef SPAWNKIT_ACTIONS_H
#define SPAWNKIT_ACTIONS_H

#include <stdint.h>
#include <spawnkit/spawnkit.h>

#include "common/sched_attr.h"

/* NICE's increment is within +-SK_NICE_SPAN: the whole range of nice
 * values (-20..19) is that wide, so any larger one is a clamp or a bug. */
#define SK_NICE_SPAN	39

/* SCHED_SLICE's slice in ns, when not 0: the kernel's range of custom
 * slices, as spawnkit_thread_set_slice() takes it (an int action field). */
#define SK_SLICE_MIN	((int32_t)SPAWNKIT_THREAD_SLICE_MIN)
#define SK_SLICE_MAX	((int32_t)SPAWNKIT_THREAD_SLICE_MAX)

/* SCHED_POLICY's policy: SCHED_OTHER, SCHED_BATCH or SCHED_IDLE, the
 * ones that need no privilege and no other parameter (the kernel's
 * numbers: 0, 3, 5). */
static inline int sk_sched_policy_ok(int policy)
{
	return policy == SCHED_OTHER || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

struct sk_action {
	uint32_t type;		/* SPAWN_TEMPLATE_ACTION_* */
	uint32_t flags;
	int32_t fd;
	int32_t newfd;
	uint64_t path;		/* OPEN: caller's path pointer */
	struct open_how how;	/* OPEN */
	uint64_t sigset;	/* SIGMASK / SIGDEFAULT: the set itself */
	uint64_t rlim[2];	/* SETRLIMIT: cur, max (copied in) */
};

/*
 * Copy n actions from the caller's array at uactions into out[] (room for
 * SPAWN_TEMPLATE_ACTIONS_MAX) and check every field.
 * Returns 0, -E2BIG (n > max), -EINVAL (a bad field, a count with a null
 * array), -EFAULT (unreadable array, open or sigset struct).
 */
int sk_actions_copy_in(uint64_t uactions, uint64_t n, struct sk_action *out);

/*
 * The same for sk_spawn_own(): own_array, the array is the library's own
 * memory; the arguments of its first own_args actions too.  Those are read
 * directly, the rest copied checked.
 */
int sk_actions_copy_in_own(uint64_t uactions, uint64_t n, int own_array,
			   unsigned int own_args, struct sk_action *out);

/*
 * The checks of FCHDIR that the spec makes before anything runs: the fd is
 * open (EBADF), a directory (ENOTDIR) the caller may search (EACCES).  Made
 * in the parent for every FCHDIR whose fd no earlier action of the same
 * spawn replaces or closes (those are checked by the child's fchdir).
 */
int sk_actions_check_dirs(const struct sk_action *a, unsigned int n);

/* The index of the first action of the given type, or -1 if none. */
int sk_actions_find(const struct sk_action *a, unsigned int n, int type);

/*
 * The fd of the spawn's CGROUP action, or -1 if none (copy_in has made sure
 * there is at most one).
 */
int sk_actions_cgroup_fd(const struct sk_action *a, unsigned int n);

/* 1 if any action is a spawnkit extension (SETSID..CGROUP), else 0. */
int sk_actions_have_ext(const struct sk_action *a, unsigned int n);

/*
 * Check a CGROUP action's fd before anything starts: EBADF (not open),
 * EINVAL (not a directory of a cgroup2 file system), EACCES (its
 * cgroup.procs is not writable by the caller).
 */
int sk_actions_check_cgroup(int fd);

/* Largest fd number any action names (not counting FD_MAX ranges), or -1. */
int sk_actions_max_fd(const struct sk_action *a, unsigned int n);

#endif

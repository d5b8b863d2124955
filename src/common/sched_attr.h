/* SPDX-License-Identifier: MIT */
/*
 * sched_attr.h - the scheduling attributes the library reads and sets with
 * raw system calls: the UAPI's struct sched_attr (linux/sched/types.h), its
 * first version (a libc may declare its own under the same name), the
 * policy numbers an older <sched.h> may lack, and the slice setter that both
 * the spawn child (SCHED_SLICE action) and spawnkit_thread_set_slice() use.
 * Raw system calls only: the child side of a spawn includes this.
 */
#ifndef SPAWNKIT_SCHED_ATTR_H
#define SPAWNKIT_SCHED_ATTR_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>

#include "common/sys.h"

#ifndef SYS_sched_setattr
#define SYS_sched_setattr	314
#endif
#ifndef SYS_sched_getattr
#define SYS_sched_getattr	315
#endif
#ifndef SCHED_BATCH
#define SCHED_BATCH		3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE		5
#endif
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK	0x40000000	/* or'ed into a policy */
#endif
#define SK_SCHED_FLAG_RESET_ON_FORK	0x01	/* sched_attr's sched_flags */

struct sk_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;		/* a fair task's slice (6.12 and later) */
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/* The calling thread's attributes: 0 or -errno. */
static inline long sk_sched_getattr_self(struct sk_sched_attr *a)
{
	*a = (struct sk_sched_attr){ .size = sizeof(*a) };
	return sk_syscall4(SYS_sched_getattr, 0, a, sizeof(*a), 0);
}

/*
 * The calling thread's slice becomes ns (0: the kernel's default), under
 * the policy and nice value it has (sched_setattr takes both, so both are
 * read first), with sched_flags flags.  0 or -errno:
 *   EINVAL      the thread is not SCHED_OTHER or SCHED_BATCH: the kernel
 *               leaves a SCHED_IDLE task's slice as it is, silently, and a
 *               real-time or deadline task has none;
 *   EOPNOTSUPP  no custom slices (before 6.12): such a kernel would take
 *               the value silently too; it reports a fair task's
 *               sched_runtime as 0, where 6.12 and later report the slice
 *               in use.  Nothing changed.
 */
static inline long sk_sched_set_slice(uint64_t ns, uint64_t flags)
{
	struct sk_sched_attr attr;
	long ret = sk_sched_getattr_self(&attr);

	if (ret < 0)
		return ret;
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
		return -EINVAL;
	if (!attr.sched_runtime)
		return -EOPNOTSUPP;
	attr.size = sizeof(attr);
	attr.sched_flags = flags;
	attr.sched_priority = 0;
	attr.sched_runtime = ns;
	attr.sched_deadline = attr.sched_period = 0;
	return sk_syscall3(SYS_sched_setattr, 0, &attr, 0);
}

#endif

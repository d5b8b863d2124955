/* SPDX-License-Identifier: MIT */
/*
 * sched_attr.h - the UAPI's struct sched_attr (linux/sched/types.h), its
 * first version, for sched_setattr/sched_getattr through sk_syscall*: a
 * libc may declare its own under the same name.
 */
#ifndef SPAWNKIT_SCHED_ATTR_H
#define SPAWNKIT_SCHED_ATTR_H

#include <stdint.h>

#ifndef SYS_sched_setattr
#define SYS_sched_setattr	314
#endif
#ifndef SYS_sched_getattr
#define SYS_sched_getattr	315
#endif
#define SK_SCHED_FLAG_RESET_ON_FORK	0x01
#define SK_SCHED_BATCH			3
#define SK_SCHED_IDLE			5

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

#endif

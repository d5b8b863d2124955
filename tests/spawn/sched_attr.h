/* SPDX-License-Identifier: MIT */
/*
 * sched_attr.h - the calling thread's scheduling attributes as
 * sched_getattr(2) reports them, for the tests of the SCHED_POLICY action
 * and of spawnkit_thread_set_slice (no libc wrapper in older glibc).
 */
#ifndef SPAWNKIT_TEST_SCHED_ATTR_H
#define SPAWNKIT_TEST_SCHED_ATTR_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif

/* The UAPI's struct sched_attr, first version (48 bytes). */
struct t_sched_attr {
	uint32_t size;
	uint32_t policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime;	/* the EEVDF slice for a fair policy (6.12+) */
	uint64_t deadline;
	uint64_t period;
};

/* The calling thread's (tid 0) or thread tid's attributes; 0 or -1. */
static inline int t_sched_getattr(pid_t tid, struct t_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0);
}

/* Set the calling thread's attributes as given (a->size filled in). */
static inline int t_sched_setattr(struct t_sched_attr *a)
{
	a->size = sizeof(*a);
	return (int)syscall(SYS_sched_setattr, 0, a, 0);
}

/* 1 if this kernel has custom slices (6.12+: a fair task's sched_runtime
 * is its slice, never 0), else 0. */
static inline int t_has_custom_slices(void)
{
	struct t_sched_attr a;

	return t_sched_getattr(0, &a) == 0 && a.runtime != 0;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * sched_hold.h - the caller of spawnkit_spawn_start() is not preempted by
 * its new child for long (sched_hold.c).
 */
#ifndef SPAWNKIT_SCHED_HOLD_H
#define SPAWNKIT_SCHED_HOLD_H

struct sk_sched_hold {
	int policy;	/* the caller's, as sched_getscheduler() said */
	int held;	/* 1: the caller is SCHED_BATCH until _end, and the
			   child must call sk_sched_hold_child() */
};

/* Parent, right before the clone: SCHED_BATCH if it is SCHED_OTHER. */
void sk_sched_hold_begin(struct sk_sched_hold *h);
/* Parent, right after the clone (whatever its outcome): as before. */
void sk_sched_hold_end(const struct sk_sched_hold *h);
/* Child, first step when held: back to SCHED_OTHER.  0 or -errno. */
long sk_sched_hold_child(void);

#endif

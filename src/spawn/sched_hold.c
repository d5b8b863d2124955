/* SPDX-License-Identifier: MIT */
/*
 * sched_hold.c - a started child does not hold its parent off the CPU.
 *
 * spawnkit_spawn_start() returns while its child runs on to exec.  On a
 * busy CPU the fair scheduler (EEVDF) gives a new task an early deadline
 * and lets its wake-up preempt the running one: the caller, an event loop
 * that meant to go on, was switched out at the clone in 36-47 % of the
 * starts of node/bench/start-switch.js (docs/node-register.md) and waited
 * a whole turn of the run queue, the child's slice and more.  A
 * SCHED_BATCH task's wake-up preempts no one, and a child inherits its
 * parent's policy.  So, where the caller is SCHED_OTHER, it is SCHED_BATCH
 * for the clone only, and the child sets SCHED_OTHER back as its first
 * step (the program runs with the caller's policy, nice value and slice,
 * as after a plain fork), unless a SCHED_POLICY action sets the policy
 * anyway: that child stays SCHED_BATCH until the action.  A SCHED_IDLE tool
 * then never competes with its caller as a normal task (register-idle's
 * loop p99 at 2 GiB: 2.3-3.7 ms against 3.9-4.6 ms with the step, 4
 * interleaved pairs of node_agent.py --modes register-idle, load 2.7-7.2).
 * Policy changes between SCHED_OTHER and SCHED_BATCH need no privilege and
 * keep the nice value, the custom slice (sched_setattr's sched_runtime)
 * and, passed along, reset-on-fork.
 *
 * What it buys is the length of the caller's wait, not always the switch:
 * on a 6.18 kernel the caller's own return to SCHED_OTHER requeues it and
 * the new child often runs right then, but only up to its first step,
 * whose policy change requeues it in turn and lets the caller back (about
 * 0.25 ms per start measured, against 0.55 ms and a long tail without).
 *
 * The vfork-style spawn does not do this: its caller waits for the exec
 * anyway, and the child running first is what ends that wait soonest.
 */
#include "common/sched_attr.h"
#include "common/sys.h"
#include "spawn/sched_hold.h"

void sk_sched_hold_begin(struct sk_sched_hold *h)
{
	static const struct sched_param zero;
	long pol = sk_syscall1(SYS_sched_getscheduler, 0);

	h->policy = (int)pol;
	h->held = 0;
	if (pol < 0 || (pol & ~(long)SCHED_RESET_ON_FORK) != SCHED_OTHER)
		return;		/* already BATCH, IDLE, real-time: as it is */
	/* Refused (a seccomp filter, an LSM): the start goes on unchanged. */
	h->held = sk_syscall3(SYS_sched_setscheduler, 0,
			      SCHED_BATCH | (pol & SCHED_RESET_ON_FORK), &zero) == 0;
}

void sk_sched_hold_end(const struct sk_sched_hold *h)
{
	static const struct sched_param zero;

	if (h->held)
		sk_syscall3(SYS_sched_setscheduler, 0, h->policy, &zero);
}

long sk_sched_hold_child(void)
{
	static const struct sched_param zero;

	/* reset-on-fork does not survive a fork: plain SCHED_OTHER */
	return sk_syscall3(SYS_sched_setscheduler, 0, SCHED_OTHER, &zero);
}

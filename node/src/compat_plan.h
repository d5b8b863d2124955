/* SPDX-License-Identifier: MIT */
/*
 * compat_plan.h - child_process-style stdio for the register drop-in.
 *
 * What libuv's uv_spawn gives a child, built from spawn-template actions:
 * any number of stdio slots; a 'pipe' slot is a socketpair (libuv's
 * UV_CREATE_PIPE is one, so the child sees a socket as with stock Node);
 * 'ignore' is /dev/null for fds 0..2 (read-only for 0, read-write above, as
 * libuv opens it) and nothing above; an fd slot is a dup2 of a parent fd.
 * Signal dispositions 1..31 back to default and an empty mask, as libuv's
 * child does; O_NONBLOCK cleared on what becomes fds 0..2 (libuv clears
 * it in the child, on the same open file description).  The spawn is made with SPAWNKIT_SPAWN_INHERIT_FDS: like
 * uv_spawn, fds that are not close-on-exec stay open in the child; with
 * SPAWNKIT_SPAWN_SETSID for Node's detached.
 * No napi here: plain C.
 */
#ifndef SPAWNKIT_NODE_COMPAT_PLAN_H
#define SPAWNKIT_NODE_COMPAT_PLAN_H

#include <signal.h>
#include <spawnkit/spawnkit.h>
#include "stdio_plan.h"	/* struct signal_reset */

#define COMPAT_PIPE	(-1)	/* a socketpair; the parent keeps one end */
#define COMPAT_IGNORE	(-2)	/* /dev/null for 0..2, nothing above */

/* Two actions per slot (staging dup, final dup), two signal actions, cwd,
 * nice, slice, policy. */
#define COMPAT_MAX_SLOTS	100
#define COMPAT_MAX_ACTIONS	(2 * COMPAT_MAX_SLOTS + 6)

/* The scheduling attributes of an async start (register's childNice,
 * childSliceMs and childPolicy): nice, a NICE action's increment (0: none);
 * slice, a SCHED_SLICE action's ns (0: none); policy, a SCHED_POLICY
 * action's SCHED_* (-1: none).  In that order: the slice before the policy
 * (an idle task's slice cannot be set).  The library checks all three. */
struct compat_sched {
	int nice;
	int slice;
	int policy;
};

struct compat_plan {
	struct spawn_template_action actions[COMPAT_MAX_ACTIONS];
	struct spawnkit_open opens[3];
	struct signal_reset sig;
	unsigned int nr_actions;
	int nr_slots;
	int parent_fd[COMPAT_MAX_SLOTS];	/* our socket end, else -1 */
	int child_fd[COMPAT_MAX_SLOTS];		/* its end until spawn returned */
	int cwd_fd;
};

/* spec[i]: COMPAT_PIPE, COMPAT_IGNORE or a parent fd (>= 0).  Makes the
 * socketpairs and opens cwd; sched: the NICE, SCHED_SLICE and SCHED_POLICY
 * actions to add last (NULL: none).  0 or -errno (then nothing is left open). */
int compat_plan_build(struct compat_plan *p, const int *spec, int n,
		      const char *cwd, const struct compat_sched *sched);

/* After spawn: close the child's ends and cwd; if !started, ours too. */
void compat_plan_finish(struct compat_plan *p, int started);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * handoff.h - a kernel-backend spawn with extension actions runs on a
 * user-backend shadow template (handoff.c says why and how).
 */
#ifndef SPAWNKIT_HANDOFF_H
#define SPAWNKIT_HANDOFF_H

#include "spawn/template.h"

/* The last action type the kernel series implements. */
#define SK_KERNEL_ACTION_LAST SPAWN_TEMPLATE_ACTION_CGROUP
/* The last one the user backend implements. */
#define SK_USER_ACTION_LAST SPAWN_TEMPLATE_ACTION_SCHED_SLICE

/* 1 if the kernel-backend template t cannot run the spawn itself: an
 * extension action (or SK_SPAWN_SETSID) on a kernel that predates them
 * (probed once per process), or a type past SK_KERNEL_ACTION_LAST. */
int sk_handoff_wanted(const struct spawnkit_template *t,
		      const struct spawn_template_spawn_args *a);

/* Run the spawn on t's shadow (made on first use): a pid or -errno
 * (EOPNOTSUPP for a template made from an fd). */
pid_t sk_handoff_spawn(struct spawnkit_template *t,
		       const struct spawn_template_spawn_args *a);

#endif

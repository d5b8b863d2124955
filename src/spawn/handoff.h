/* SPDX-License-Identifier: MIT */
/*
 * handoff.h - a kernel-backend spawn with extension actions runs on a
 * user-backend shadow template (handoff.c says why and how).
 */
#ifndef SPAWNKIT_HANDOFF_H
#define SPAWNKIT_HANDOFF_H

#include "spawn/template.h"

/* 1 if the spawn uses an action only the user backend implements. */
int sk_handoff_wanted(const struct spawn_template_spawn_args *a);

/* Run the spawn on t's shadow (made on first use): a pid or -errno
 * (EOPNOTSUPP for a template made from an fd). */
pid_t sk_handoff_spawn(struct spawnkit_template *t,
		       const struct spawn_template_spawn_args *a);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * handoff.c - spawns the kernel backend cannot run go to the user backend.
 *
 * spawnkit's extension actions (SETSID, SETPGID, UMASK, SETRLIMIT, CGROUP,
 * SETCTTY) are not in the kernel series yet.  A spawn through a kernel-backend
 * template that uses any of them runs on a user-backend "shadow" template
 * made from the same path on first need and kept with the template.  A
 * template made from an fd has no path to make one from: -EOPNOTSUPP.
 * The shadow pins the file the path names when it is made; from then on
 * the user backend's own checks (ESTALE, EACCES) apply to it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/sys.h"
#include "common/ucopy.h"
#include "spawn/handoff.h"

int sk_handoff_wanted(const struct spawn_template_spawn_args *a)
{
	struct spawn_template_action act;
	uint64_t i;

	for (i = 0; i < a->actions_len; i++) {
		/* an unreadable array: the kernel says EFAULT itself */
		if (sk_copy_in(&act, a->actions + i * sizeof(act), sizeof(act)))
			return 0;
		if (act.type >= SPAWN_TEMPLATE_ACTION_EXT_FIRST &&
		    act.type <= SPAWN_TEMPLATE_ACTION_SETCTTY)
			return 1;
	}
	return 0;
}

static struct spawnkit_template *make_shadow(const struct spawnkit_template *t)
{
	struct spawn_template_create_args ca;
	struct spawnkit_template *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = -1;
	s->backend = SPAWNKIT_BACKEND_USER;
	s->ops = &sk_user_backend;
	s->path = strdup(t->path);
	memset(&ca, 0, sizeof(ca));
	ca.flags = SPAWN_TEMPLATE_CREATE_CLOEXEC;
	ca.execfd = -1;
	ca.filename = (uint64_t)(uintptr_t)s->path;
	if (!s->path || s->ops->create(s, &ca)) {
		spawnkit_template_destroy(s);
		return NULL;
	}
	return s;
}

pid_t sk_handoff_spawn(struct spawnkit_template *t,
		       const struct spawn_template_spawn_args *a)
{
	struct spawnkit_template *s, *none = NULL;

	if (!t->path)
		return -EOPNOTSUPP;
	s = __atomic_load_n(&t->shadow, __ATOMIC_ACQUIRE);
	if (!s) {
		s = make_shadow(t);
		if (!s)
			return -ENOMEM;
		/* two threads may race to make one: the first one wins */
		if (!__atomic_compare_exchange_n(&t->shadow, &none, s, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			spawnkit_template_destroy(s);
			s = none;
		}
	}
	return s->ops->spawn(s, a);
}

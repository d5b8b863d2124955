/* SPDX-License-Identifier: MIT */
/*
 * handoff.c - spawns the kernel backend cannot run go to the user backend.
 *
 * spawnkit's extension actions SETSID, SETPGID, UMASK, SETRLIMIT and CGROUP
 * are in the kernel series since its process-attribute patch (SETCTTY, NICE,
 * SCHED_POLICY and SCHED_SLICE are not); a patched kernel from before that patch
 * refuses them with EINVAL, as it refuses any type it does not know.  Which kernel this is, is probed
 * once per process, on the first spawn that needs it, with no child started
 * (kernel_has_ext()).  On an older kernel, a spawn through a kernel-backend
 * template that uses any of them (or SPAWNKIT_SPAWN_SETSID) runs on a
 * user-backend "shadow" template made from the same path on first need and
 * kept with the template; types past the kernel's last
 * (SK_KERNEL_ACTION_LAST), i.e. SETCTTY, NICE, SCHED_POLICY and SCHED_SLICE,
 * always go there.  A template made from an fd has no path to make a shadow from:
 * -EOPNOTSUPP.  The shadow
 * pins the file the path names when it is made; from then on the user
 * backend's own checks (ESTALE, EACCES) apply to it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/sys.h"
#include "common/ucopy.h"
#include "spawn/handoff.h"

/* 0: not probed yet; 1: the kernel runs the extension actions; -1: not */
static int kernel_ext;

/*
 * A known type followed by an OPEN whose argument faults: a kernel that
 * knows the type copies the OPEN's argument and fails with EFAULT; one that
 * does not stops at the type with EINVAL.  Either way before any child
 * exists.  Anything else (a template whose credentials are not ours: EACCES)
 * says nothing: not remembered, and this spawn is handed off.
 */
static int kernel_has_ext(int tfd)
{
	struct spawn_template_action probe[2];
	struct spawn_template_spawn_args a;
	int state = __atomic_load_n(&kernel_ext, __ATOMIC_RELAXED);
	int pidfd = -1;
	pid_t ret;

	if (state)
		return state > 0;
	memset(probe, 0, sizeof(probe));
	probe[0].type = SPAWN_TEMPLATE_ACTION_SETSID;
	probe[1].type = SPAWN_TEMPLATE_ACTION_OPEN;
	probe[1].arg = 8;	/* never mapped (mmap_min_addr) */
	memset(&a, 0, sizeof(a));
	a.flags = SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO;
	a.pidfd = (uint64_t)(uintptr_t)&pidfd;
	a.actions = (uint64_t)(uintptr_t)probe;
	a.actions_len = 2;
	ret = spawnkit_sys_spawn_template_spawn(tfd, &a, sizeof(a));
	if (ret > 0) {		/* cannot happen; never leave a child */
		sk_syscall4(SYS_wait4, ret, NULL, __WALL, NULL);
		sk_syscall1(SYS_close, pidfd);
		return 0;
	}
	if (ret == -EFAULT)
		state = 1;
	else if (ret == -EINVAL)
		state = -1;
	else
		return 0;
	__atomic_store_n(&kernel_ext, state, __ATOMIC_RELAXED);
	return state > 0;
}

int sk_handoff_wanted(const struct spawnkit_template *t,
		      const struct spawn_template_spawn_args *a)
{
	struct spawn_template_action act;
	uint64_t i;
	int ext = 0;

	for (i = 0; i < a->actions_len; i++) {
		/* an unreadable array: the kernel says EFAULT itself */
		if (sk_copy_in(&act, a->actions + i * sizeof(act), sizeof(act)))
			return 0;
		if (act.type > SK_USER_ACTION_LAST)
			continue;	/* unknown: the kernel says EINVAL */
		if (act.type > SK_KERNEL_ACTION_LAST)
			return 1;	/* the user backend's alone */
		if (act.type >= SPAWN_TEMPLATE_ACTION_EXT_FIRST)
			ext = 1;
	}
	/* SETSID becomes a first SETSID action in the kernel: room for it? */
	if (a->flags & SK_SPAWN_SETSID) {
		if (a->actions_len >= SPAWN_TEMPLATE_ACTIONS_MAX)
			return 1;
		ext = 1;
	}
	return ext && !kernel_has_ext(t->fd);
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

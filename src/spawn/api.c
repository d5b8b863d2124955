/* SPDX-License-Identifier: MIT */
/*
 * The public spawn-template API: argument checks common to both backends,
 * backend choice, and the convenience forms over the raw ABI structs.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/kernel_adv.h"
#include "common/sys.h"
#include "common/ucopy.h"
#include "spawn/handoff.h"
#include "spawn/template.h"

SK_EXPORT int spawnkit_kernel_has_spawn_template(void)
{
	return sk_kernel_adv()->spawn_template;
}

/*
 * The user backend hands out a pidfd with every pid, so it needs pidfds:
 * pidfd_open (5.3, which also implies clone3 and CLONE_PIDFD).  Before 5.3,
 * or where a seccomp policy refuses pidfd_open (ENOSYS or EPERM), there is
 * no backend here and the bindings use their portable fallback.  Asked at
 * each call (one syscall pair), so a filter installed later is noticed.
 */
static int user_backend_usable(void)
{
	long ret = sk_pidfd_open_probe();

	return ret != -ENOSYS && ret != -EPERM;
}

SK_EXPORT int spawnkit_backend(void)
{
	const char *e = getenv("SPAWNKIT_BACKEND");
	int have_kernel = sk_kernel_adv()->spawn_template;

	if (!e || !*e || !strcmp(e, "auto")) {
		if (have_kernel)
			return SPAWNKIT_BACKEND_KERNEL;
		return user_backend_usable() ? SPAWNKIT_BACKEND_USER : -ENOSYS;
	}
	if (!strcmp(e, "user"))
		return user_backend_usable() ? SPAWNKIT_BACKEND_USER : -ENOSYS;
	if (!strcmp(e, "kernel"))
		return have_kernel ? SPAWNKIT_BACKEND_KERNEL : -ENOSYS;
	/* the bindings' portable fallback: no template of ours is made */
	if (!strcmp(e, "fallback"))
		return -ENOSYS;
	return -EINVAL;
}

SK_EXPORT const char *spawnkit_backend_name(int backend)
{
	switch (backend) {
	case SPAWNKIT_BACKEND_USER:
		return "user";
	case SPAWNKIT_BACKEND_KERNEL:
		return "kernel";
	default:
		return "unknown";
	}
}

static int check_create_args(const struct spawn_template_create_args *a)
{
	if (a->flags & ~SPAWN_TEMPLATE_CREATE_FLAGS)
		return -EINVAL;
	/* exactly one names the file; "no fd" is -1, not any negative value */
	if (a->filename ? a->execfd != -1 : (a->execfd < 0 || a->execfd > INT_MAX))
		return -EINVAL;
	return 0;
}

static int create_args(const struct spawn_template_create_args *uargs,
		       size_t size, struct spawnkit_template **tp)
{
	struct spawn_template_create_args a;
	struct spawnkit_template *t;
	char path[PATH_MAX];
	int backend, ret;
	long len;

	if (!tp)
		return -EINVAL;
	ret = sk_copy_struct_in(&a, sizeof(a), SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0,
				(uintptr_t)uargs, size);
	if (!ret)
		ret = check_create_args(&a);
	if (ret)
		return ret;
	if (a.filename) {
		len = sk_strncpy_in(path, a.filename, sizeof(path));
		if (len < 0)
			return (int)len;
		/* relative paths name other files after a chdir */
		if (path[0] != '/')
			return -EINVAL;
	}
	backend = spawnkit_backend();
	if (backend < 0)
		return backend;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->fd = -1;
	t->backend = backend;
	t->ops = backend == SPAWNKIT_BACKEND_KERNEL ? &sk_kernel_backend : &sk_user_backend;
	if (a.filename && !(t->path = strdup(path))) {
		free(t);
		return -ENOMEM;
	}
	ret = t->ops->create(t, &a);
	if (ret) {
		spawnkit_template_destroy(t);
		return ret;
	}
	*tp = t;
	return 0;
}

/* malloc may set errno on failure: the caller's errno is not ours to touch */
SK_EXPORT int spawnkit_template_create_args(const struct spawn_template_create_args *uargs,
					    size_t size, struct spawnkit_template **tp)
{
	int saved = errno, ret = create_args(uargs, size, tp);

	errno = saved;
	return ret;
}

SK_EXPORT int spawnkit_template_create(const char *path, uint64_t flags,
				       struct spawnkit_template **tp)
{
	struct spawn_template_create_args a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.execfd = -1;
	a.filename = (uint64_t)(uintptr_t)path;
	return spawnkit_template_create_args(&a, sizeof(a), tp);
}

SK_EXPORT int spawnkit_template_create_fd(int execfd, uint64_t flags,
					  struct spawnkit_template **tp)
{
	struct spawn_template_create_args a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.execfd = execfd;
	return spawnkit_template_create_args(&a, sizeof(a), tp);
}

SK_EXPORT void spawnkit_template_destroy(struct spawnkit_template *t)
{
	if (!t)
		return;
	t->ops->destroy(t);
	spawnkit_template_destroy(t->shadow);
	free(t->path);
	free(t);
}

SK_EXPORT int spawnkit_template_backend(const struct spawnkit_template *t)
{
	return t ? t->backend : -EINVAL;
}

SK_EXPORT const char *spawnkit_template_path(const struct spawnkit_template *t)
{
	return t ? t->path : NULL;
}

SK_EXPORT int spawnkit_template_fd(const struct spawnkit_template *t)
{
	return t ? t->fd : -EINVAL;
}

static int check_spawn_args(const struct spawn_template_spawn_args *a)
{
	if (a->flags & ~SPAWN_TEMPLATE_SPAWN_FLAGS || !a->pidfd)
		return -EINVAL;
	if (a->actions_len > SPAWN_TEMPLATE_ACTIONS_MAX)
		return -E2BIG;
	if (a->actions_len && !a->actions)
		return -EINVAL;
	return 0;
}

static pid_t spawn_keep_errno(struct spawnkit_template *t,
			      const struct spawn_template_spawn_args *a)
{
	int saved = errno;
	pid_t pid;

	if (t->backend == SPAWNKIT_BACKEND_KERNEL && sk_handoff_wanted(t, a))
		pid = sk_handoff_spawn(t, a);
	else
		pid = t->ops->spawn(t, a);

	errno = saved;
	return pid;
}

SK_EXPORT pid_t spawnkit_spawn_args(struct spawnkit_template *t,
				    struct spawn_template_spawn_args *uargs, size_t size)
{
	struct spawn_template_spawn_args a;
	int ret;

	if (!t)
		return -EINVAL;
	ret = sk_copy_struct_in(&a, sizeof(a), SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0,
				(uintptr_t)uargs, size);
	if (!ret)
		ret = check_spawn_args(&a);
	if (ret)
		return ret;
	return spawn_keep_errno(t, &a);
}

static pid_t spawn_internal(struct spawnkit_template *t, char *const argv[],
			    char *const envp[], const struct spawn_template_action *actions,
			    unsigned int nr_actions, unsigned int flags, int *pidfd,
			    uint64_t internal)
{
	struct spawn_template_spawn_args a;
	int own_pidfd = -1;
	pid_t pid;
	int ret;

	if (!t || (flags & ~SPAWNKIT_SPAWN_FLAGS))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.flags = (flags & SPAWNKIT_SPAWN_INHERIT_FDS) ? SPAWN_TEMPLATE_SPAWN_INHERIT_FDS : 0;
	if (!(flags & SPAWNKIT_SPAWN_EXIT_STATUS))
		a.flags |= SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO;
	a.pidfd = (uint64_t)(uintptr_t)(pidfd ? pidfd : &own_pidfd);
	a.argv = (uint64_t)(uintptr_t)argv;
	a.envp = (uint64_t)(uintptr_t)envp;
	a.actions = (uint64_t)(uintptr_t)actions;
	a.actions_len = nr_actions;
	ret = check_spawn_args(&a);
	if (ret)
		return ret;
	if (!pidfd)
		a.flags |= SK_SPAWN_NO_PIDFD;	/* nobody wants one: do not make it */
	if (flags & SPAWNKIT_SPAWN_SETSID)
		a.flags |= SK_SPAWN_SETSID;
	a.flags |= internal;
	pid = spawn_keep_errno(t, &a);
	if (pid > 0 && !pidfd && own_pidfd >= 0)
		sk_syscall1(SYS_close, own_pidfd);
	return pid;
}

SK_EXPORT pid_t spawnkit_spawn(struct spawnkit_template *t, char *const argv[],
			       char *const envp[],
			       const struct spawn_template_action *actions,
			       unsigned int nr_actions, unsigned int flags, int *pidfd)
{
	return spawn_internal(t, argv, envp, actions, nr_actions, flags, pidfd, 0);
}

pid_t sk_spawn_own(struct spawnkit_template *t, char *const argv[], char *const envp[],
		   const struct spawn_template_action *actions, unsigned int nr_actions,
		   unsigned int own, unsigned int flags, int *pidfd)
{
	if (own > SK_SPAWN_OWN_MASK >> SK_SPAWN_OWN_SHIFT || own > nr_actions)
		return -EINVAL;
	return spawn_internal(t, argv, envp, actions, nr_actions, flags, pidfd,
			      SK_SPAWN_OWN | ((uint64_t)own << SK_SPAWN_OWN_SHIFT));
}

/* SPDX-License-Identifier: MIT */
/*
 * The kernel backend: spawnkit's spawn_template_create/spawn system calls.
 * The numbers are issued only once the probe (common/kernel_adv.c) found
 * the calls; otherwise these functions return -ENOSYS and issue nothing.
 */
#include <fcntl.h>
#include <string.h>
#include <spawnkit/spawnkit.h>

#include "common/kernel_adv.h"
#include "common/sys.h"
#include "common/ucopy.h"
#include "spawn/template.h"

SK_EXPORT int spawnkit_sys_spawn_template_create(struct spawn_template_create_args *args,
						 size_t size)
{
	const struct sk_kernel_adv *adv = sk_kernel_adv();

	if (!adv->spawn_template)
		return -ENOSYS;
	return (int)sk_syscall2(adv->nr_spawn_template_create, args, size);
}

SK_EXPORT pid_t spawnkit_sys_spawn_template_spawn(int template_fd,
						  struct spawn_template_spawn_args *args,
						  size_t size)
{
	const struct sk_kernel_adv *adv = sk_kernel_adv();

	if (!adv->spawn_template)
		return -ENOSYS;
	return (pid_t)sk_syscall3(adv->nr_spawn_template_spawn, template_fd, args, size);
}

static int kernel_create(struct spawnkit_template *t,
			 const struct spawn_template_create_args *args)
{
	struct spawn_template_create_args a = *args;
	int fd;

	if (t->path)
		a.filename = (uint64_t)(uintptr_t)t->path;
	fd = spawnkit_sys_spawn_template_create(&a, sizeof(a));
	if (fd < 0)
		return fd;
	/* The kernel returns the lowest free fd, 0 if stdin is closed: keep
	 * the template out of 0..2, where the caller's stdio belongs (the
	 * user backend does the same with its pinned fd). */
	if (fd < 3) {
		long nfd = sk_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);

		sk_syscall1(SYS_close, fd);
		if (nfd < 0)
			return (int)nfd;
		fd = (int)nfd;
	}
	t->fd = fd;
	return 0;
}

/*
 * SPAWNKIT_SPAWN_SETSID: a SETSID action first, as the user backend's child
 * calls setsid() before the actions.  api.c handed the spawn off instead
 * when the kernel has no SETSID or the list has no room for one.
 */
static pid_t spawn_setsid_first(struct spawnkit_template *t,
				struct spawn_template_spawn_args *a)
{
	struct spawn_template_action list[SPAWN_TEMPLATE_ACTIONS_MAX];
	int ret;

	if (a->actions_len >= SPAWN_TEMPLATE_ACTIONS_MAX)
		return -E2BIG;	/* not reached: handed off */
	memset(&list[0], 0, sizeof(list[0]));
	list[0].type = SPAWN_TEMPLATE_ACTION_SETSID;
	if (a->actions_len) {
		ret = sk_copy_in(&list[1], a->actions, a->actions_len * sizeof(list[0]));
		if (ret)
			return ret;
	}
	a->actions = (uint64_t)(uintptr_t)list;
	a->actions_len++;
	return spawnkit_sys_spawn_template_spawn(t->fd, a, sizeof(*a));
}

static pid_t kernel_spawn(struct spawnkit_template *t,
			  const struct spawn_template_spawn_args *args)
{
	struct spawn_template_spawn_args a = *args;

	/* internal flags: the kernel always makes the pidfd, and has a
	 * SETSID action for the session */
	a.flags &= ~(SK_SPAWN_NO_PIDFD | SK_SPAWN_SETSID | SK_SPAWN_OWN | SK_SPAWN_OWN_MASK);
	if (args->flags & SK_SPAWN_SETSID)
		return spawn_setsid_first(t, &a);
	return spawnkit_sys_spawn_template_spawn(t->fd, &a, sizeof(a));
}

static void kernel_destroy(struct spawnkit_template *t)
{
	if (t->fd >= 0)
		sk_syscall1(SYS_close, t->fd);
}

const struct sk_backend_ops sk_kernel_backend = {
	.create = kernel_create,
	.spawn = kernel_spawn,
	.destroy = kernel_destroy,
};

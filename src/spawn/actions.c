/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/resource.h>
#include <linux/close_range.h>

#include "common/sys.h"
#include "common/ucopy.h"
#include "spawn/actions.h"

/* The kernel's sigset_t on Linux: 64 signals, 8 bytes. */
#define SK_SIGSETSIZE 8
#define SK_OPEN_HOW_SIZE_VER0 24	/* flags, mode, resolve: openat2(2)'s first */

/* An action's argument: the caller's, copied checked (EFAULT), or the
 * library's own (sk_spawn_own), read directly. */
static int copy_arg(void *dst, uint64_t src, size_t n, int own)
{
	if (!own)
		return sk_copy_in(dst, src, n);
	if (!src)
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

static int copy_sigset(uint64_t uarg, uint64_t *set, int own)
{
	struct spawn_template_sigset s;
	int ret;

	if (!uarg)
		return -EINVAL;
	ret = copy_arg(&s, uarg, sizeof(s), own);
	if (ret)
		return ret;
	if (s.sigsetsize != SK_SIGSETSIZE)
		return -EINVAL;
	return copy_arg(set, s.sigset, SK_SIGSETSIZE, own);
}

static int copy_rlimit(const struct spawn_template_action *a, struct sk_action *k, int own)
{
	struct spawn_template_rlimit rl;
	int ret;

	if (a->fd < 0 || a->fd >= RLIMIT_NLIMITS || a->newfd || a->flags || !a->arg)
		return -EINVAL;
	ret = copy_arg(&rl, a->arg, sizeof(rl), own);
	if (ret)
		return ret;
	if (rl.rlim_cur > rl.rlim_max)	/* as setrlimit(2) says */
		return -EINVAL;
	k->rlim[0] = rl.rlim_cur;
	k->rlim[1] = rl.rlim_max;
	return 0;
}

static int check_one(const struct spawn_template_action *a, struct sk_action *k, int own)
{
	struct spawn_template_open o;
	int ret;

	k->type = a->type;
	k->flags = a->flags;
	k->fd = a->fd;
	k->newfd = a->newfd;
	k->path = 0;
	k->sigset = 0;
	k->how.flags = k->how.mode = k->how.resolve = 0;
	k->rlim[0] = k->rlim[1] = 0;

	/* A field the type does not use must be zero: room to grow. */
	switch (a->type) {
	case SPAWN_TEMPLATE_ACTION_CLOSE:
	case SPAWN_TEMPLATE_ACTION_FCHDIR:
		if (a->fd < 0 || a->newfd || a->flags || a->arg)
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_DUP2:
		if (a->fd < 0 || a->newfd < 0 || (a->flags & ~(uint32_t)O_CLOEXEC) || a->arg)
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_OPEN:
		if (a->fd < AT_FDCWD || a->newfd < 0 || a->flags || !a->arg)
			return -EINVAL;
		ret = copy_arg(&o, a->arg, sizeof(o), own);
		if (ret)
			return ret;
		/* open_how by pointer and size, read as openat2() reads it
		 * (the library's own, spawnkit_action_open()'s exact size,
		 * directly: no checked copy of memory we filled) */
		if (!o.how)
			return -EINVAL;
		if (own && o.how_size == sizeof(k->how))
			ret = copy_arg(&k->how, o.how, sizeof(k->how), own);
		else
			ret = sk_copy_struct_in(&k->how, sizeof(k->how), SK_OPEN_HOW_SIZE_VER0,
						o.how, o.how_size);
		if (ret)
			return ret;
		k->path = o.path;
		return 0;
	case SPAWN_TEMPLATE_ACTION_CLOSE_RANGE:
		if (a->fd < 0 || a->newfd < a->fd || a->arg ||
		    (a->flags & ~(uint32_t)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)))
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_SIGMASK:
	case SPAWN_TEMPLATE_ACTION_SIGDEFAULT:
		if (a->fd || a->newfd || a->flags)
			return -EINVAL;
		return copy_sigset(a->arg, &k->sigset, own);
	case SPAWN_TEMPLATE_ACTION_SETSID:
		if (a->fd || a->newfd || a->flags || a->arg)
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_SETPGID:
	case SPAWN_TEMPLATE_ACTION_CGROUP:
	case SPAWN_TEMPLATE_ACTION_SETCTTY:
		if (a->fd < 0 || a->newfd || a->flags || a->arg)
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_UMASK:
		if ((a->fd & ~0777) || a->newfd || a->flags || a->arg)
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_SETRLIMIT:
		return copy_rlimit(a, k, own);
	case SPAWN_TEMPLATE_ACTION_NICE:
		if (a->fd < -SK_NICE_SPAN || a->fd > SK_NICE_SPAN || a->newfd ||
		    a->flags || a->arg)
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_SCHED_SLICE:
		/* the range spawnkit_thread_set_slice() takes, or 0 */
		if ((a->fd && (a->fd < SK_SLICE_MIN || a->fd > SK_SLICE_MAX)) ||
		    a->newfd || a->flags || a->arg)
			return -EINVAL;
		return 0;
	case SPAWN_TEMPLATE_ACTION_SCHED_POLICY:
		/* the policies anyone may set; a real-time one or
		 * SCHED_DEADLINE needs other fields and privilege */
		if (!sk_sched_policy_ok(a->fd) || a->newfd || a->flags || a->arg)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

int sk_actions_copy_in(uint64_t uactions, uint64_t n, struct sk_action *out)
{
	return sk_actions_copy_in_own(uactions, n, 0, 0, out);
}

int sk_actions_copy_in_own(uint64_t uactions, uint64_t n, int own_array,
			   unsigned int own_args, struct sk_action *out)
{
	struct spawn_template_action chunk[32];
	uint64_t i, j;
	int ret, cgroups = 0;

	if (n > SPAWN_TEMPLATE_ACTIONS_MAX)
		return -E2BIG;
	if (n && !uactions)
		return -EINVAL;
	for (i = 0; i < n; i += j) {
		uint64_t m = n - i < 32 ? n - i : 32;

		ret = copy_arg(chunk, uactions + i * sizeof(chunk[0]), m * sizeof(chunk[0]),
			       own_array);
		if (ret)
			return ret;
		for (j = 0; j < m; j++) {
			ret = check_one(&chunk[j], &out[i + j], i + j < own_args);
			if (ret)
				return ret;
			/* one child, one cgroup */
			if (chunk[j].type == SPAWN_TEMPLATE_ACTION_CGROUP && cgroups++)
				return -EINVAL;
		}
	}
	return 0;
}

int sk_actions_find(const struct sk_action *a, unsigned int n, int type)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((int)a[i].type == type)
			return (int)i;
	return -1;
}

int sk_actions_cgroup_fd(const struct sk_action *a, unsigned int n)
{
	int i = sk_actions_find(a, n, SPAWN_TEMPLATE_ACTION_CGROUP);

	return i < 0 ? -1 : a[i].fd;
}

int sk_actions_have_ext(const struct sk_action *a, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (a[i].type >= SPAWN_TEMPLATE_ACTION_EXT_FIRST)
			return 1;
	return 0;
}

/* statfs(2)'s f_type of cgroup2 (linux/magic.h) */
#define SK_CGROUP2_MAGIC 0x63677270

int sk_actions_check_cgroup(int fd)
{
	struct statfs sfs;
	struct stat st;
	long ret;

	ret = sk_syscall2(SYS_fstat, fd, &st);
	if (ret)
		return (int)ret;
	ret = sk_syscall2(SYS_fstatfs, fd, &sfs);
	if (ret)
		return (int)ret;
	if (!S_ISDIR(st.st_mode) || sfs.f_type != SK_CGROUP2_MAGIC)
		return -EINVAL;
	ret = sk_syscall5(SYS_faccessat2, fd, "cgroup.procs", W_OK, AT_EACCESS, 0);
	if (ret == -ENOSYS)	/* before 5.8 */
		ret = sk_syscall4(SYS_faccessat, fd, "cgroup.procs", W_OK, 0);
	return ret ? -EACCES : 0;
}

int sk_actions_max_fd(const struct sk_action *a, unsigned int n)
{
	int max = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* the extensions' fd field is a group, mask or resource; the
		 * cgroup fd is used by clone3 in the parent, not in the child;
		 * SETCTTY's is an fd the child uses */
		if (a[i].type >= SPAWN_TEMPLATE_ACTION_EXT_FIRST &&
		    a[i].type != SPAWN_TEMPLATE_ACTION_SETCTTY)
			continue;
		if (a[i].fd > max)
			max = a[i].fd;
		if (a[i].newfd > max && a[i].newfd != SPAWN_TEMPLATE_FD_MAX)
			max = a[i].newfd;
	}
	return max;
}

/* Does action a replace or close fd number fd? */
static int touches(const struct sk_action *a, int fd)
{
	switch (a->type) {
	case SPAWN_TEMPLATE_ACTION_CLOSE:
		return a->fd == fd;
	case SPAWN_TEMPLATE_ACTION_DUP2:
	case SPAWN_TEMPLATE_ACTION_OPEN:
		return a->newfd == fd;
	case SPAWN_TEMPLATE_ACTION_CLOSE_RANGE:
		return !(a->flags & CLOSE_RANGE_CLOEXEC) && fd >= a->fd && fd <= a->newfd;
	default:
		return 0;
	}
}

int sk_actions_check_dirs(const struct sk_action *a, unsigned int n)
{
	unsigned int i, j;
	struct stat st;
	long ret;

	for (i = 0; i < n; i++) {
		if (a[i].type != SPAWN_TEMPLATE_ACTION_FCHDIR)
			continue;
		for (j = 0; j < i && !touches(&a[j], a[i].fd); j++)
			;
		if (j < i)
			continue;	/* the child's fchdir will tell */
		ret = sk_syscall2(SYS_fstat, a[i].fd, &st);
		if (ret)
			return (int)ret;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		ret = sk_syscall5(SYS_faccessat2, a[i].fd, "", X_OK,
				  AT_EMPTY_PATH | AT_EACCESS, 0);
		/* ENOSYS (before 5.8) or EPERM (a seccomp filter): no check */
		if (ret && ret != -ENOSYS && ret != -EPERM)
			return -EACCES;
	}
	return 0;
}

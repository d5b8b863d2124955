/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the spawn argument and action validator.
 *
 * The input is an array of raw actions; pointer fields (OPEN's arg,
 * SIGMASK's arg and the sigset inside) are remapped into three targets:
 * valid memory from the input, an unmapped page, or a random address.
 * The validator must return 0, -EINVAL, -E2BIG or -EFAULT, never crash,
 * and an accepted action must satisfy the field rules of the ABI, the
 * spawnkit extensions (SETSID..SCHED_SLICE) included.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/close_range.h>

#include "spawn/actions.h"
#include "common/ucopy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *unmapped;

static uint64_t remap(uint64_t v, const uint8_t *data, size_t size)
{
	switch (v & 3) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)unmapped + (v >> 2) % 4096;
	case 2:
		return size ? (uintptr_t)(data + (v >> 2) % size) : 0;
	default:
		return v;	/* anything at all */
	}
}

static int accepted_ok(const struct sk_action *k)
{
	switch (k->type) {
	case SPAWN_TEMPLATE_ACTION_CLOSE:
	case SPAWN_TEMPLATE_ACTION_FCHDIR:
		return k->fd >= 0 && !k->newfd && !k->flags;
	case SPAWN_TEMPLATE_ACTION_DUP2:
		return k->fd >= 0 && k->newfd >= 0 && !(k->flags & ~(uint32_t)O_CLOEXEC);
	case SPAWN_TEMPLATE_ACTION_OPEN:
		return k->fd >= AT_FDCWD && k->newfd >= 0 && !k->flags;
	case SPAWN_TEMPLATE_ACTION_CLOSE_RANGE:
		return k->fd >= 0 && k->newfd >= k->fd &&
		       !(k->flags & ~(uint32_t)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC));
	case SPAWN_TEMPLATE_ACTION_SIGMASK:
	case SPAWN_TEMPLATE_ACTION_SIGDEFAULT:
		return !k->fd && !k->newfd && !k->flags;
	case SPAWN_TEMPLATE_ACTION_SETSID:
		return !k->fd && !k->newfd && !k->flags;
	case SPAWN_TEMPLATE_ACTION_SETPGID:
	case SPAWN_TEMPLATE_ACTION_CGROUP:
	case SPAWN_TEMPLATE_ACTION_SETCTTY:
		return k->fd >= 0 && !k->newfd && !k->flags;
	case SPAWN_TEMPLATE_ACTION_UMASK:
		return !(k->fd & ~0777) && !k->newfd && !k->flags;
	case SPAWN_TEMPLATE_ACTION_SETRLIMIT:
		return k->fd >= 0 && k->fd < RLIMIT_NLIMITS && !k->newfd && !k->flags &&
		       k->rlim[0] <= k->rlim[1];
	case SPAWN_TEMPLATE_ACTION_NICE:
		return k->fd >= -SK_NICE_SPAN && k->fd <= SK_NICE_SPAN && !k->newfd && !k->flags;
	case SPAWN_TEMPLATE_ACTION_SCHED_POLICY:
		return (k->fd == SCHED_OTHER || k->fd == SCHED_BATCH || k->fd == SCHED_IDLE) &&
		       !k->newfd && !k->flags;
	case SPAWN_TEMPLATE_ACTION_SCHED_SLICE:
		return (!k->fd || (k->fd >= SK_SLICE_MIN && k->fd <= SK_SLICE_MAX)) &&
		       !k->newfd && !k->flags;
	default:
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size / sizeof(struct spawn_template_action), i;
	struct spawn_template_action *acts;
	struct spawn_template_sigset sets[4];
	struct sk_action out[SPAWN_TEMPLATE_ACTIONS_MAX];
	int ret;

	if (!unmapped)
		unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n > SPAWN_TEMPLATE_ACTIONS_MAX + 4)
		n = SPAWN_TEMPLATE_ACTIONS_MAX + 4;
	acts = malloc((n ? n : 1) * sizeof(*acts));
	if (!acts)
		return 0;
	memcpy(acts, data, n * sizeof(*acts));
	for (i = 0; i < 4; i++) {
		sets[i].sigset = remap(i < n ? acts[i].arg >> 8 : 0, data, size);
		sets[i].sigsetsize = i == 3 ? 16 : 8;
	}
	for (i = 0; i < n; i++) {
		acts[i].type %= 17;	/* mostly known types, some unknown */
		if (acts[i].type == SPAWN_TEMPLATE_ACTION_SIGMASK ||
		    acts[i].type == SPAWN_TEMPLATE_ACTION_SIGDEFAULT)
			acts[i].arg = (acts[i].arg & 4) ? (uintptr_t)&sets[acts[i].arg % 4]
							 : remap(acts[i].arg, data, size);
		else if (acts[i].type == SPAWN_TEMPLATE_ACTION_OPEN ||
			 acts[i].type == SPAWN_TEMPLATE_ACTION_SETRLIMIT)
			acts[i].arg = remap(acts[i].arg, data, size);
	}
	ret = sk_actions_copy_in((uintptr_t)acts, n, out);
	if (ret != 0 && ret != -EINVAL && ret != -E2BIG && ret != -EFAULT)
		abort();
	if (n > SPAWN_TEMPLATE_ACTIONS_MAX && ret != -E2BIG)
		abort();
	if (ret == 0) {
		size_t cgroups = 0;

		for (i = 0; i < n; i++) {
			if (!accepted_ok(&out[i]))
				abort();
			cgroups += out[i].type == SPAWN_TEMPLATE_ACTION_CGROUP;
		}
		if (cgroups > 1)	/* one child, one cgroup */
			abort();
	}
	/* the same validator through a bad array pointer */
	if (n && sk_actions_copy_in((uintptr_t)unmapped, n, out) == 0)
		abort();
	free(acts);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * start_block.c - the memory a child of spawnkit_spawn_start() reads.
 *
 * That child shares our address space (CLONE_VM) but, unlike the vfork
 * child, runs while we go on: it must read nothing the caller may free or
 * change once the start has returned, and its stack must be nobody's
 * frame.  So everything goes into one private mapping: a guard page, the
 * stack, the context, the actions and copies of every string they name.
 * It is given up only when the child has exec'd or exited (start.c), and
 * then kept for another start (block_cache.c).
 */
#include <limits.h>
#include <string.h>

#include "common/sys.h"
#include "common/ucopy.h"
#include "spawn/block_cache.h"
#include "spawn/start.h"

#define SK_START_STACK	(32 * 1024)
#define SK_PAGE		4096

static size_t vec_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static size_t vec_bytes(char *const *v, size_t n)
{
	size_t bytes = (n + 1) * sizeof(char *);

	for (size_t i = 0; i < n; i++)
		bytes += strlen(v[i]) + 1;
	return bytes;
}

static void *take(struct sk_start_block *blk, size_t n)
{
	char *p = blk->next;

	blk->next += (n + 15) & ~(size_t)15;
	return p;
}

static char *const *copy_vec(struct sk_start_block *blk, char *const *v, size_t n)
{
	char **out;

	if (!v)
		return NULL;
	out = take(blk, (n + 1) * sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;

		out[i] = take(blk, len);
		memcpy(out[i], v[i], len);
	}
	out[n] = NULL;
	return out;
}

int sk_start_block_make(struct sk_start_block *blk, char *const *argv, char *const *envp,
			const struct sk_action *actions, unsigned int nr_actions,
			const char *script_path)
{
	size_t argc = vec_len(argv), envc = vec_len(envp), data, len;
	char path[PATH_MAX];
	struct sk_action *acts;
	long n;
	void *m;

	/* 16 bytes of alignment slack per piece taken */
	data = sizeof(struct sk_child_ctx) + nr_actions * sizeof(struct sk_action) +
	       vec_bytes(argv, argc) + vec_bytes(envp, envc) + 16 * (argc + envc + 8) +
	       (script_path ? strlen(script_path) + 1 : 0);
	for (unsigned int i = 0; i < nr_actions; i++) {
		if (actions[i].type != SPAWN_TEMPLATE_ACTION_OPEN)
			continue;
		n = sk_strncpy_in(path, actions[i].path, sizeof(path));
		if (n < 0)
			return (int)n;
		data += (size_t)n + 1 + 16;
	}
	m = sk_block_get(SK_PAGE + SK_START_STACK + data, &len);
	if ((unsigned long)m >= -4095UL)
		return (int)(long)m;
	blk->base = m;
	blk->len = len;
	blk->stack = blk->base + SK_PAGE;
	blk->stack_size = SK_START_STACK;
	blk->next = blk->stack + SK_START_STACK;
	blk->end = blk->base + len;

	blk->ctx = take(blk, sizeof(*blk->ctx));
	memset(blk->ctx, 0, sizeof(*blk->ctx));	/* a kept block holds the last one */
	acts = take(blk, nr_actions * sizeof(*acts));
	memcpy(acts, actions, nr_actions * sizeof(*acts));
	for (unsigned int i = 0; i < nr_actions; i++) {
		char *p;

		if (acts[i].type != SPAWN_TEMPLATE_ACTION_OPEN)
			continue;
		/* measured above; copied again through the checked path */
		n = sk_strncpy_in(path, acts[i].path, sizeof(path));
		if (n < 0) {
			sk_start_block_free(blk);
			return (int)n;
		}
		p = take(blk, (size_t)n + 1);
		memcpy(p, path, (size_t)n + 1);
		acts[i].path = (uint64_t)(uintptr_t)p;
	}
	blk->actions = acts;
	blk->ctx->actions = acts;
	blk->ctx->argv = copy_vec(blk, argv, argc);
	blk->ctx->envp = copy_vec(blk, envp, envc);
	if (script_path) {
		char *p = take(blk, strlen(script_path) + 1);

		strcpy(p, script_path);
		blk->ctx->script_path = p;
	}
	return 0;
}

void sk_start_block_free(struct sk_start_block *blk)
{
	if (blk->base)
		sk_block_put(blk->base, blk->len);
	blk->base = NULL;
}

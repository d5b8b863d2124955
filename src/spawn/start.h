/* SPDX-License-Identifier: MIT */
/*
 * start.h - what spawnkit_spawn_start() (start.c) shares with the user
 * backend: the block of memory a started child reads while its parent runs
 * on, and the backend's start that does not wait for the exec.
 */
#ifndef SPAWNKIT_START_H
#define SPAWNKIT_START_H

#include <stddef.h>
#include "spawn/actions.h"
#include "spawn/child.h"
#include "spawn/template.h"

/*
 * One mapping per start: a guard page, the child's stack, then its context,
 * actions, argv, envp and every string they point to, copied from the
 * caller (who may free or change its own copies as soon as the start
 * returns).  Unmapped only once the child has exec'd or exited.
 */
struct sk_start_block {
	char *base;
	size_t len;
	char *stack;		/* lowest byte of the stack */
	size_t stack_size;
	struct sk_child_ctx *ctx;
	struct sk_action *actions;
	char *next;		/* first free byte of the data area */
	char *end;
};

struct spawnkit_start {
	int fd;			/* the report pipe's read end; -1 once decided */
	int err;		/* errno the child reported, 0 if none */
	struct sk_start_block blk;
};

/*
 * Map a block with copies of argv, envp, the nr_actions checked actions
 * (their OPEN paths copied too, and repointed) and script_path (may be
 * NULL); blk->ctx's argv, envp, actions and script_path point into it, the
 * rest of the context is zero.  0, -ENOMEM, -EFAULT or -ENAMETOOLONG.
 */
int sk_start_block_make(struct sk_start_block *blk, char *const *argv, char *const *envp,
			const struct sk_action *actions, unsigned int nr_actions,
			const char *script_path);
void sk_start_block_free(struct sk_start_block *blk);

/*
 * The user backend's start for spawnkit_spawn_start(): the same checks and
 * child as its spawn, but cloned without CLONE_VFORK onto the stack of a
 * block of its own, with s->fd the read end of the report pipe.  The pid
 * (its pidfd stored as args->pidfd says), or -errno: nothing started.
 */
pid_t sk_user_spawn_start(struct spawnkit_template *t,
			  const struct spawn_template_spawn_args *args,
			  struct spawnkit_start *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * template.h - what a spawnkit_template is inside, and the backend seam.
 *
 * api.c checks the ABI-level arguments (extensible structs, flags, reserved
 * fields) once for both backends, then calls the chosen backend's ops.  The
 * kernel backend passes the structs on to the system calls (the kernel checks
 * them again: it trusts nobody); the user backend implements the semantics.
 */
#ifndef SPAWNKIT_TEMPLATE_INTERNAL_H
#define SPAWNKIT_TEMPLATE_INTERNAL_H

#include <spawnkit/spawnkit.h>
#include "spawn/creds.h"
#include "spawn/identity.h"

struct spawnkit_template {
	const struct sk_backend_ops *ops;
	int backend;		/* SPAWNKIT_BACKEND_* */
	int fd;			/* kernel: template fd; user: pinned exec fd */
	char *path;		/* absolute path, or NULL (made from an fd) */
	/* user backend only */
	int is_script;		/* file starts with "#!" */
	int is_native;		/* an ELF file of this machine's class and
				   architecture (read at create; 0 if the
				   file could not be read) */
	struct sk_identity id;
	struct sk_creds creds;
	/* kernel backend only: the user-backend template that runs spawns
	 * the kernel cannot (handoff.c), made on first need */
	struct spawnkit_template *shadow;
};

struct sk_backend_ops {
	/* args checked by api.c; t->path already copied in when given */
	int (*create)(struct spawnkit_template *t, const struct spawn_template_create_args *args);
	/* args checked by api.c; returns pid or -errno */
	pid_t (*spawn)(struct spawnkit_template *t, const struct spawn_template_spawn_args *args);
	void (*destroy)(struct spawnkit_template *t);
};

extern const struct sk_backend_ops sk_user_backend;
extern const struct sk_backend_ops sk_kernel_backend;

/*
 * Internal spawn flag, never accepted from callers (check_spawn_args
 * rejects unknown bits before it is set): the caller of spawnkit_spawn()
 * passed no pidfd pointer, so the user backend need not make one.  The
 * kernel backend strips it.
 */
#define SK_SPAWN_NO_PIDFD (1ULL << 63)

/*
 * Internal spawn flag, set only by spawnkit_spawn() for
 * SPAWNKIT_SPAWN_SETSID (the ABI has no session flag): the user backend's
 * child calls setsid() first; the kernel backend puts a SETSID action first
 * in the list, or hands the spawn off on a kernel without one (handoff.c).
 */
#define SK_SPAWN_SETSID (1ULL << 62)

/*
 * Internal spawn flag, set only by sk_spawn_own() (spawnkit_run builds its
 * action list itself): the action array and the pidfd slot are the
 * library's own memory, and so are the arguments of the first
 * SK_SPAWN_OWN_ARGS(flags) actions (the stdio, session, cwd and cgroup
 * actions spawnkit_run made).  The user backend reads those directly
 * instead of copying them through process_vm_readv; the arguments of the
 * caller's actions after them are copied and checked as always (a bad
 * pointer there is still EFAULT).  The kernel backend strips it.
 */
#define SK_SPAWN_OWN (1ULL << 61)
#define SK_SPAWN_OWN_SHIFT 48
#define SK_SPAWN_OWN_MASK (0xffULL << SK_SPAWN_OWN_SHIFT)
#define SK_SPAWN_OWN_ARGS(flags) ((unsigned int)(((flags) & SK_SPAWN_OWN_MASK) >> SK_SPAWN_OWN_SHIFT))

/*
 * spawnkit_spawn() for spawnkit_run: actions is the library's own array,
 * of which the first `own` (at most 255) carry arguments the library made.
 */
pid_t sk_spawn_own(struct spawnkit_template *t, char *const argv[], char *const envp[],
		   const struct spawn_template_action *actions, unsigned int nr_actions,
		   unsigned int own, unsigned int flags, int *pidfd);

#endif

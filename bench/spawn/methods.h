/* SPDX-License-Identifier: MIT */
/*
 * methods.h - the ways of starting one child that bench_spawn compares.
 *
 * Each method starts the target once and returns the child's pid (the
 * caller waits for it and checks its exit status) or -errno.  All methods get
 * the same argv and envp; the raw ones exec by path (fork, vfork,
 * posix_spawn) or through a pinned fd (clone+execveat), the template ones go
 * through libspawnkit.
 */
#ifndef BENCH_SPAWN_METHODS_H
#define BENCH_SPAWN_METHODS_H

#include <sys/types.h>

struct spawnkit_template;

/* What a method needs to start one particular target. */
struct target_ctx {
	const char *path;		/* absolute path of the target */
	int pinned_fd;			/* O_PATH fd of the target (clone+execveat) */
	struct spawnkit_template *tmpl_user;	/* user backend template */
	struct spawnkit_template *tmpl_kernel;	/* kernel backend, or NULL */
	char **argv;
	char **envp;
};

struct method {
	const char *name;
	const char *how;	/* one line: what it does */
	int raw;		/* 1: a plain libc/syscall way (the baseline) */
	int closes_fds;		/* 1: the child has no fds above 2 at exec */
	int needs_kernel;	/* 1: spawn-template kernel backend only */
	pid_t (*start)(const struct target_ctx *c);
};

extern const struct method bench_methods[];
extern const int bench_nr_methods;

/* Make the per-target state (pinned fd, templates); 0 or -errno with a
 * message printed.  want_user / want_kernel: make a template with that
 * backend. */
int target_ctx_init(struct target_ctx *c, const char *path, int want_user,
		    int want_kernel);
void target_ctx_fini(struct target_ctx *c);

#endif

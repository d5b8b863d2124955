/* SPDX-License-Identifier: MIT */
/*
 * stdio_plan.h - turn Node-style stdio/cwd options into spawn-template actions.
 *
 * The child's fds 0..2 are set up only through the ABI's actions (DUP2 of a
 * pipe end, OPEN of /dev/null, FCHDIR for cwd), plus SIGDEFAULT/SIGMASK so
 * the child starts with default dispositions and an empty mask the way
 * libuv's children do (Node ignores SIGPIPE; an ignored signal would
 * otherwise survive exec).  No napi here: plain C, easy to test.
 */
#ifndef SPAWNKIT_NODE_STDIO_PLAN_H
#define SPAWNKIT_NODE_STDIO_PLAN_H

#include <signal.h>
#include <spawnkit/spawnkit.h>

/* One stdio slot's wish; values >= 0 name a parent fd to give the child. */
#define STDIO_PIPE	(-1)
#define STDIO_IGNORE	(-2)	/* /dev/null */
#define STDIO_INHERIT	(-3)	/* the parent's own fd of that number */

#define STDIO_PLAN_MAX_ACTIONS 16	/* 2 signal + 3 staging + 3 slots + cwd */

/* What two SIGDEFAULT/SIGMASK actions point to (kept while they are used). */
struct signal_reset {
	struct spawn_template_sigset sigdefault, sigmask;
	sigset_t signals, no_signals;
};

/* Fill a[0], a[1]: the dispositions of signals 1..below-1 to default and
 * an empty mask, as libuv's children start (NSIG: every signal; the
 * register drop-in passes 32, as libuv resets only those).  Returns 2 (the
 * actions used).  run() and the drop-in use it too. */
unsigned int signal_reset_actions(struct spawn_template_action *a, struct signal_reset *s,
				  int below);

struct stdio_plan {
	struct spawn_template_action actions[STDIO_PLAN_MAX_ACTIONS];
	struct spawnkit_open opens[3];
	struct signal_reset sig;
	unsigned int nr_actions;
	int parent_fd[3];	/* our end of each pipe, else -1 */
	int child_fd[3];	/* the child's end, closed once spawn returned */
	int cwd_fd;		/* directory for FCHDIR, else -1 */
};

/* Fill the plan: make pipes, open cwd.  0 or -errno (nothing left open). */
int stdio_plan_build(struct stdio_plan *p, const int spec[3], const char *cwd);

/* After spawn: close the child's ends and cwd_fd; if !started, our pipe
 * ends too. */
void stdio_plan_finish(struct stdio_plan *p, int started);

#endif

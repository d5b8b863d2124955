/* SPDX-License-Identifier: MIT */
/*
 * run_spec.h - run()'s spec object as spawnkit_run options (run_spec.c);
 * the object's fields are listed in run_async.h.
 */
#ifndef SPAWNKIT_NODE_RUN_SPEC_H
#define SPAWNKIT_NODE_RUN_SPEC_H

#include <sys/resource.h>
#include <node_api.h>
#include <spawnkit/run.h>

#include "stdio_plan.h"

struct run_spec {
	struct spawnkit_run_opts o;
	char **argv, **envp;
	char *input, *preload;
	struct spawn_template_action act[2 + RLIM_NLIMITS + 3];	/* signals, rlimits, umask, nice, policy */
	struct signal_reset sig;
	struct spawn_template_rlimit rl[RLIM_NLIMITS];
	napi_ref tmpl;			/* keeps the template's External alive */
	struct template_box *box;	/* held (box_hold) while it runs */
	unsigned int join_flags;	/* SPAWNKIT_JOIN_* for the result */
};

/* Fill s (zeroed by the caller) from spec: 0, -errno (nothing started: a
 * cwd or cgroup that cannot be opened, a closed template), or 1 with an
 * exception pending.  Free it with run_spec_free either way. */
int run_spec_read(napi_env env, napi_value spec, struct run_spec *s);
/* The cwd and cgroup fds (once the run no longer needs them). */
void run_spec_close_fds(struct run_spec *s);
/* On the loop: everything, the template given back. */
void run_spec_free(napi_env env, struct run_spec *s);

#endif

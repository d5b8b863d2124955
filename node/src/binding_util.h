/* SPDX-License-Identifier: MIT */
/*
 * binding_util.h - value conversions binding.c shares with compat_binding.c.
 */
#ifndef SPAWNKIT_NODE_BINDING_UTIL_H
#define SPAWNKIT_NODE_BINDING_UTIL_H

#include <node_api.h>
#include <spawnkit/spawnkit.h>

/* Templates live in an External whose data is cleared on explicit destroy,
 * so the finalizer and destroy never both free one template.  A template a
 * run still uses on its thread (busy) is destroyed when the last such run
 * ends; closed, get_box no longer gives it out. */
struct template_box {
	struct spawnkit_template *t;
	unsigned int busy;	/* runs using it (run_async.c), on the loop */
	int closed;		/* templateDestroy came while busy */
};

/* On the loop: a run takes the template, and gives it back when done. */
void box_hold(struct template_box *b);
void box_release(struct template_box *b);

napi_value num(napi_env env, double v);
/* malloc'd copies; NULL on error (exception pending). */
char *dup_string(napi_env env, napi_value v);
char **dup_string_array(napi_env env, napi_value arr);
struct template_box *get_box(napi_env env, napi_value v);
/* Finalizer of the External that holds a struct child_watch. */
void child_finalize(napi_env env, void *data, void *hint);

/* binding_util.c: the arguments both spawn calls start with,
 * (template, argv[], envp[] | null, cwd | null).  envp is NULL for
 * null/undefined, cwd NULL unless a string. */
struct spawn_call {
	struct template_box *box;
	char **argv, **envp, *cwd;
};

/* 0; -1 with an exception pending; -EBADF for a destroyed template.
 * spawn_call_free() in every case. */
int spawn_call_parse(napi_env env, napi_value *argv, struct spawn_call *c);
void spawn_call_free(struct spawn_call *c);

/* After a start: watch the child (child_watch_start, which takes start
 * over: NULL, or one still undecided), or, if that fails, kill and reap it
 * and close our fds[0..n) (those >= 0) and free start.  0 or -errno. */
struct child_watch;
struct spawnkit_start;
int watch_or_reap(napi_env env, pid_t pid, int pidfd, napi_value on_exit,
		  struct spawnkit_start *start, napi_value on_spawn,
		  const int *fds, int n, struct child_watch **w);

/* compat_binding.c: compatSpawn and compatSpawnSync. */
napi_status compat_binding_init(napi_env env, napi_value exports);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * run_async.c - run(): spawnkit_run() on a thread of its own, output
 * chunks and then the end through an napi_threadsafe_function, stop
 * through an eventfd (run_async.h).  Only conversions here: the policy is
 * spawnkit_run's.
 *
 * Why not an napi_async_work: a run lasts as long as its child, and
 * libuv's pool has 4 threads (UV_THREADPOOL_SIZE) shared with fs and dns:
 * four `sleep 60` runs would stall every fs call of the process.  And a
 * Worker's teardown waits for its pending async work before any cleanup
 * hook could stop it, so terminate() would hang until the child ends.
 * A thread per run has neither problem; the threadsafe function keeps
 * the loop alive while it runs, as a child_process child does.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <spawnkit/run.h>

#include "binding_util.h"
#include "run_async.h"
#include "run_spec.h"

/* Chunks waiting for the loop; a full queue blocks the pump (and so the
 * child): bounded memory whatever the output's size. */
#define QUEUE_MAX 16

struct chunk {
	int fd;			/* 1, 2; 0: the end of the run */
	size_t len;
	char data[];
};

struct job {
	struct run_spec spec;	/* o, and what it points to */
	struct spawnkit_run_result r;
	int ret;
	napi_ref on_done;
	napi_threadsafe_function tsfn;	/* chunks, then the end */
	pthread_t thread;
	int joined;		/* the thread was joined (or never started) */
	atomic_int stop;
	int stop_fd;		/* eventfd: spec.o.stop_fd */
	napi_async_context async;	/* callbacks as from any libuv event */
	napi_ref resource;
};

/* Once the thread is joined (or never ran): its fds, closed before the
 * result goes to JavaScript (the caller may count its fds then). */
static void job_close_fds(struct job *j)
{
	run_spec_close_fds(&j->spec);
	if (j->stop_fd >= 0) {
		close(j->stop_fd);
		j->stop_fd = -1;
	}
}

/* On the loop, once the thread is joined (or never ran). */
static void job_free(napi_env env, struct job *j)
{
	run_spec_free(env, &j->spec);
	if (j->on_done)
		napi_delete_reference(env, j->on_done);
	if (j->async)
		napi_async_destroy(env, j->async);
	if (j->resource)
		napi_delete_reference(env, j->resource);
	spawnkit_run_result_free(&j->r);
	job_close_fds(j);
	free(j);
}

static void request_stop(struct job *j)
{
	uint64_t one = 1;

	atomic_store(&j->stop, 1);
	if (write(j->stop_fd, &one, sizeof(one)) < 0) {
		/* an eventfd only refuses at its maximum: already stopping */
	}
}

/* On the pump's thread. */
static int on_output(void *ctx, int fd, const void *data, size_t len)
{
	struct job *j = ctx;
	struct chunk *c;

	if (atomic_load(&j->stop))
		return 1;
	c = malloc(sizeof(*c) + len);
	if (!c)
		return 0;	/* the chunk is still captured */
	c->fd = fd;
	c->len = len;
	memcpy(c->data, data, len);
	if (napi_call_threadsafe_function(j->tsfn, c, napi_tsfn_blocking) != napi_ok) {
		free(c);
		return 1;	/* the environment is closing */
	}
	return atomic_load(&j->stop);
}

static void *run_thread(void *data)
{
	static struct chunk end = { 0, 0 };
	struct job *j = data;

	j->ret = spawnkit_run(&j->spec.o, &j->r);
	/* the end after the last chunk, through the same queue; nothing of j
	 * is touched after the release (the loop may free it then) */
	napi_call_threadsafe_function(j->tsfn, &end, napi_tsfn_blocking);
	napi_release_threadsafe_function(j->tsfn, napi_tsfn_release);
	return NULL;
}

static napi_value buffer_of(napi_env env, const void *p, size_t n)
{
	napi_value b;
	void *dst;

	if (napi_create_buffer_copy(env, n, n ? p : "", &dst, &b) != napi_ok)
		return NULL;
	return b;
}

static void set(napi_env env, napi_value obj, const char *name, napi_value v)
{
	napi_set_named_property(env, obj, name, v);
}

/* head and tail as one Buffer, joined by the library (the marker line) */
static napi_value joined_of(napi_env env, const struct spawnkit_run_output *out,
			    unsigned int flags)
{
	size_t cap = out->head_len + out->tail_len + SPAWNKIT_RUN_MARKER_MAX;
	char *tmp = malloc(cap);
	ssize_t n;
	napi_value b;

	if (!tmp)
		return NULL;
	n = spawnkit_run_output_join(out, flags, tmp, cap);
	b = n < 0 ? NULL : buffer_of(env, tmp, (size_t)n);
	free(tmp);
	return b;
}

/* [head, tail, dropped, total, joined] */
static napi_value output_of(napi_env env, const struct spawnkit_run_output *out,
			    unsigned int join_flags)
{
	napi_value a;

	napi_create_array_with_length(env, 5, &a);
	napi_set_element(env, a, 0, buffer_of(env, out->head, out->head_len));
	napi_set_element(env, a, 1, buffer_of(env, out->tail, out->tail_len));
	napi_set_element(env, a, 2, num(env, (double)out->dropped));
	napi_set_element(env, a, 3, num(env, (double)out->total));
	napi_set_element(env, a, 4, joined_of(env, out, join_flags));
	return a;
}

static napi_value result_of(napi_env env, struct job *j)
{
	const struct spawnkit_run_result *r = &j->r;
	napi_value res;
	int code = -1, sig = 0;

	napi_create_object(env, &res);
	set(env, res, "errno", num(env, j->ret));
	if (j->ret < 0)
		return res;
	if (r->status == -1)
		code = -ECHILD;		/* another waiter took the status */
	else if (WIFEXITED(r->status))
		code = WEXITSTATUS(r->status);
	else
		sig = WTERMSIG(r->status);
	set(env, res, "pid", num(env, r->pid));
	set(env, res, "code", num(env, code));
	set(env, res, "signal", num(env, sig));
	set(env, res, "why", num(env, r->why));
	set(env, res, "killed", num(env, r->killed));
	set(env, res, "elapsedMs", num(env, (double)r->elapsed_ns / 1e6));
	set(env, res, "stdout", output_of(env, &r->out[1], j->spec.join_flags));
	set(env, res, "stderr", output_of(env, &r->out[2], j->spec.join_flags));
	return res;
}

/* make_callback: async hooks see it, and the nextTick and microtask
 * queues are drained after it (a promise settled in it goes on). */
static void call(napi_env env, struct job *j, napi_value cb, size_t argc, napi_value *argv)
{
	napi_value recv, ret;

	napi_get_global(env, &recv);
	if (napi_make_callback(env, j->async, recv, cb, argc, argv, &ret) ==
	    napi_pending_exception) {
		napi_value err;

		napi_get_and_clear_last_exception(env, &err);
		napi_fatal_exception(env, err);
	}
}

static void call_done(napi_env env, struct job *j)
{
	napi_handle_scope scope;
	napi_value cb, arg;

	if (!j->on_done)
		return;
	napi_open_handle_scope(env, &scope);
	napi_get_reference_value(env, j->on_done, &cb);
	napi_delete_reference(env, j->on_done);
	j->on_done = NULL;
	arg = result_of(env, j);
	call(env, j, cb, 1, &arg);
	napi_close_handle_scope(env, scope);
}

/* On the loop: a chunk for onOutput(fd, buffer), or the end. */
static void call_js(napi_env env, napi_value cb, void *context, void *data)
{
	struct chunk *c = data;
	struct job *j = context;
	napi_value argv[2];

	if (!c->fd) {			/* the end (static: not freed) */
		pthread_join(j->thread, NULL);	/* it is releasing the tsfn */
		j->joined = 1;
		job_close_fds(j);
		if (env)
			call_done(env, j);
		return;
	}
	if (env && cb) {
		argv[0] = num(env, c->fd);
		argv[1] = buffer_of(env, c->data, c->len);
		call(env, j, cb, 2, argv);
	}
	free(c);
}

/* The queue is closed: after the end in a normal run; at once when the
 * environment goes away (a Worker terminated, the process exiting), then
 * the run is stopped here and waited for (the kill is immediate; pipes an
 * escaped process holds are read for at most 2 s more), so the template
 * it uses outlives it. */
static void tsfn_finalize(napi_env env, void *data, void *hint)
{
	struct job *j = data;

	if (!j->joined) {
		request_stop(j);
		pthread_join(j->thread, NULL);
		j->joined = 1;
	}
	job_free(env, j);
}

napi_value js_run_start(napi_env env, napi_callback_info info)
{
	size_t argc = 3;
	napi_value argv[3], name, ext, resource, cb = NULL;
	napi_valuetype t;
	pthread_attr_t attr;
	struct job *j;
	int r;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok)
		return NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return num(env, -ENOMEM);
	j->joined = 1;			/* until the thread starts */
	j->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (j->stop_fd < 0) {
		r = -errno;
		free(j);
		return num(env, r);
	}
	r = run_spec_read(env, argv[0], &j->spec);
	if (r || argc < 3) {
		job_free(env, j);
		return r < 0 ? num(env, r) : NULL;
	}
	j->spec.o.stop_fd = j->stop_fd;
	if (napi_typeof(env, argv[1], &t) != napi_ok)
		goto fail;
	if (t == napi_function) {
		cb = argv[1];
		j->spec.o.on_output = on_output;
		j->spec.o.ctx = j;
	}
	napi_create_string_utf8(env, "spawnkit:run", NAPI_AUTO_LENGTH, &name);
	if (napi_create_object(env, &resource) != napi_ok ||
	    napi_async_init(env, resource, name, &j->async) != napi_ok ||
	    napi_create_reference(env, resource, 1, &j->resource) != napi_ok ||
	    napi_create_reference(env, argv[2], 1, &j->on_done) != napi_ok ||
	    napi_create_external(env, j, NULL, NULL, &ext) != napi_ok)
		goto fail;
	/* From here tsfn_finalize frees j. */
	if (napi_create_threadsafe_function(env, cb, NULL, name, QUEUE_MAX, 1, j,
					    tsfn_finalize, j, call_js, &j->tsfn) != napi_ok)
		goto fail;
	/* a small stack: the pump's buffers are on the heap */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	r = pthread_create(&j->thread, &attr, run_thread, j);
	pthread_attr_destroy(&attr);
	if (r) {
		napi_release_threadsafe_function(j->tsfn, napi_tsfn_abort);
		return num(env, -r);
	}
	j->joined = 0;
	return ext;
fail:
	job_free(env, j);
	return NULL;
}

napi_value js_run_stop(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1];
	void *p = NULL;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
	    napi_get_value_external(env, argv[0], &p) != napi_ok || !p)
		return NULL;
	request_stop(p);
	return NULL;
}

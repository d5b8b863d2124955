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
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <spawnkit/run.h>

#include "binding_util.h"
#include "run_async.h"
#include "stdio_plan.h"

/* Chunks waiting for the loop; a full queue blocks the pump (and so the
 * child): bounded memory whatever the output's size. */
#define QUEUE_MAX 16

struct chunk {
	int fd;			/* 1, 2; 0: the end of the run */
	size_t len;
	char data[];
};

struct job {
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int ret;
	char **argv, **envp;
	char *input, *preload;
	struct spawn_template_action act[2 + RLIM_NLIMITS + 1];
	struct signal_reset sig;
	struct spawn_template_rlimit rl[RLIM_NLIMITS];
	napi_ref tmpl;		/* keeps the template alive while it runs */
	struct template_box *box;	/* held (box_hold) while it runs */
	napi_ref on_done;
	unsigned int join_flags;	/* SPAWNKIT_JOIN_* for the result */
	napi_threadsafe_function tsfn;	/* chunks, then the end */
	pthread_t thread;
	int joined;		/* the thread was joined (or never started) */
	atomic_int stop;
	int stop_fd;		/* eventfd: o.stop_fd */
	napi_async_context async;	/* callbacks as from any libuv event */
	napi_ref resource;
};

/* Once the thread is joined (or never ran): its fds, closed before the
 * result goes to JavaScript (the caller may count its fds then). */
static void job_close_fds(struct job *j)
{
	int *fds[] = { &j->o.cwd_fd, &j->o.cgroup_fd, &j->stop_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

/* On the loop, once the thread is joined (or never ran). */
static void job_free(napi_env env, struct job *j)
{
	if (j->box)
		box_release(j->box);
	if (j->tmpl)
		napi_delete_reference(env, j->tmpl);
	if (j->on_done)
		napi_delete_reference(env, j->on_done);
	if (j->async)
		napi_async_destroy(env, j->async);
	if (j->resource)
		napi_delete_reference(env, j->resource);
	spawnkit_run_result_free(&j->r);
	job_close_fds(j);
	free(j->argv);
	free(j->envp);
	free(j->input);
	free(j->preload);
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

	j->ret = spawnkit_run(&j->o, &j->r);
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
	set(env, res, "stdout", output_of(env, &r->out[1], j->join_flags));
	set(env, res, "stderr", output_of(env, &r->out[2], j->join_flags));
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

/* Property helpers: 0, or -1 with an exception pending. */
static int prop(napi_env env, napi_value obj, const char *name, napi_value *v, napi_valuetype *t)
{
	if (napi_get_named_property(env, obj, name, v) != napi_ok ||
	    napi_typeof(env, *v, t) != napi_ok)
		return -1;
	return 0;
}

static int bool_prop(napi_env env, napi_value obj, const char *name, bool *out)
{
	napi_value v;
	napi_valuetype t;

	*out = false;
	if (prop(env, obj, name, &v, &t))
		return -1;
	return t == napi_boolean && napi_get_value_bool(env, v, out) != napi_ok ? -1 : 0;
}

static int64_t ms_prop(napi_env env, napi_value obj, const char *name)
{
	napi_value v;
	napi_valuetype t;
	double d;

	if (prop(env, obj, name, &v, &t) || t != napi_number ||
	    napi_get_value_double(env, v, &d) != napi_ok || d < 0)
		return SPAWNKIT_RUN_NONE;
	return (int64_t)ceil(d);
}

static size_t cap_of(double d)
{
	if (!isfinite(d))
		return SPAWNKIT_RUN_UNLIMITED;
	return d <= 0 ? 0 : (size_t)d;
}

static uint64_t rlim_of(double d)
{
	return d < 0 || !isfinite(d) ? (uint64_t)RLIM_INFINITY : (uint64_t)d;
}

/* O_CLOEXEC directory fd, or -errno */
static int open_dir(napi_env env, napi_value v, int flags)
{
	char *path = dup_string(env, v);
	int fd;

	if (!path)
		return -ENOMEM;
	fd = open(path, flags | O_DIRECTORY | O_CLOEXEC);
	free(path);
	return fd < 0 ? -errno : fd;
}

/* Fill j from spec: 0, -errno, or 1 with an exception pending. */
static int read_spec(napi_env env, napi_value spec, struct job *j)
{
	struct spawnkit_run_opts *o = &j->o;
	napi_value v, item;
	napi_valuetype t;
	uint32_t n;
	bool yes;
	double caps[4], d[3];
	int32_t mask;
	struct template_box *b;

	if (prop(env, spec, "tmpl", &v, &t))
		return 1;
	b = get_box(env, v);
	if (!b || !b->t)
		return -EBADF;
	o->tmpl = b->t;
	if (napi_create_reference(env, v, 1, &j->tmpl) != napi_ok)
		return 1;
	j->box = b;
	box_hold(b);
	if (prop(env, spec, "argv", &v, &t) || !(j->argv = dup_string_array(env, v)))
		return 1;
	o->argv = j->argv;
	if (prop(env, spec, "envp", &v, &t) || !(j->envp = dup_string_array(env, v)))
		return 1;
	o->envp = j->envp;
	/* booleans to the library's flags (JavaScript knows no bit values) */
	if (bool_prop(env, spec, "newSession", &yes))
		return 1;
	o->flags = yes ? 0 : SPAWNKIT_RUN_NO_NEW_SESSION;
	if (bool_prop(env, spec, "warm", &yes))
		return 1;
	o->flags |= yes ? SPAWNKIT_RUN_WARM : 0;
	if (bool_prop(env, spec, "marker", &yes))
		return 1;
	j->join_flags = yes ? SPAWNKIT_JOIN_MARKER : 0;
	if (bool_prop(env, spec, "text", &yes))
		return 1;
	if (yes && j->join_flags)
		j->join_flags |= SPAWNKIT_JOIN_LINES;	/* the marker a line of its own */
	if (prop(env, spec, "preload", &v, &t))
		return 1;
	if (t == napi_string && !(j->preload = dup_string(env, v)))
		return 1;
	o->warm_preload = j->preload;
	/* stdin: the input bytes, /dev/null, or ours */
	if (prop(env, spec, "input", &v, &t))
		return 1;
	if (t == napi_object) {
		void *p;
		size_t len;

		if (napi_get_buffer_info(env, v, &p, &len) != napi_ok)
			return 1;
		j->input = malloc(len ? len : 1);
		if (!j->input)
			return -ENOMEM;
		memcpy(j->input, p, len);
		o->input = j->input;
		o->input_len = len;
		o->std_mode[0] = SPAWNKIT_RUN_PIPE;
	} else {
		if (bool_prop(env, spec, "stdinInherit", &yes))
			return 1;
		o->std_mode[0] = yes ? SPAWNKIT_RUN_INHERIT : SPAWNKIT_RUN_DEVNULL;
	}
	if (prop(env, spec, "caps", &v, &t))
		return 1;
	for (uint32_t i = 0; i < 4; i++)
		if (napi_get_element(env, v, i, &item) != napi_ok ||
		    napi_get_value_double(env, item, &caps[i]) != napi_ok)
			return 1;
	o->head[1] = cap_of(caps[0]);
	o->tail[1] = cap_of(caps[1]);
	o->head[2] = cap_of(caps[2]);
	o->tail[2] = cap_of(caps[3]);
	o->timeout_ms = ms_prop(env, spec, "timeoutMs");
	o->no_output_timeout_ms = ms_prop(env, spec, "noOutputTimeoutMs");
	o->wait_delay_ms = ms_prop(env, spec, "waitDelayMs");
	/* extra actions: signals as libuv's children have them (Node ignores
	 * SIGPIPE; an ignored signal would survive exec), rlimits, umask */
	o->nr_actions = signal_reset_actions(j->act, &j->sig);
	if (prop(env, spec, "rlimits", &v, &t) || napi_get_array_length(env, v, &n) != napi_ok)
		return 1;
	if (n > RLIM_NLIMITS)
		return -E2BIG;
	for (uint32_t i = 0; i < n; i++) {
		if (napi_get_element(env, v, i, &item) != napi_ok)
			return 1;
		for (uint32_t k = 0; k < 3; k++) {
			napi_value x;

			if (napi_get_element(env, item, k, &x) != napi_ok ||
			    napi_get_value_double(env, x, &d[k]) != napi_ok)
				return 1;
		}
		j->rl[i].rlim_cur = rlim_of(d[1]);
		j->rl[i].rlim_max = rlim_of(d[2]);
		spawnkit_action_setrlimit(&j->act[o->nr_actions++], (int)d[0], &j->rl[i]);
	}
	if (prop(env, spec, "umask", &v, &t) || napi_get_value_int32(env, v, &mask) != napi_ok)
		return 1;
	if (mask >= 0)
		spawnkit_action_umask(&j->act[o->nr_actions++], (unsigned int)mask);
	o->actions = j->act;
	/* directories: opened here, on the loop (a missing one fails the
	 * call before anything starts, as a bad cwd does for child_process) */
	if (prop(env, spec, "cwd", &v, &t))
		return 1;
	if (t == napi_string && (o->cwd_fd = open_dir(env, v, O_PATH)) < 0)
		return o->cwd_fd;
	if (prop(env, spec, "cgroup", &v, &t))
		return 1;
	if (t == napi_string && (o->cgroup_fd = open_dir(env, v, O_RDONLY)) < 0) {
		napi_value at;

		/* tell JavaScript which directory it was */
		napi_create_string_utf8(env, "cgroup", NAPI_AUTO_LENGTH, &at);
		napi_set_named_property(env, spec, "failedAt", at);
		return o->cgroup_fd;
	}
	return 0;
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
	spawnkit_run_opts_init(&j->o);
	j->joined = 1;			/* until the thread starts */
	j->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (j->stop_fd < 0) {
		r = -errno;
		job_free(env, j);
		return num(env, r);
	}
	j->o.stop_fd = j->stop_fd;
	r = read_spec(env, argv[0], j);
	if (r || argc < 3) {
		job_free(env, j);
		return r < 0 ? num(env, r) : NULL;
	}
	if (napi_typeof(env, argv[1], &t) != napi_ok)
		goto fail;
	if (t == napi_function) {
		cb = argv[1];
		j->o.on_output = on_output;
		j->o.ctx = j;
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

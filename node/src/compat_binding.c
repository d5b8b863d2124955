/* SPDX-License-Identifier: MIT */
/*
 * compat_binding.c - the addon functions behind lib/register (the
 * child_process drop-in).  Thin, as binding.c: JavaScript decides what is
 * routed and builds Node's objects; these start the child with
 * compat_plan's stdio and, for spawnSync, run sync_wait.
 *
 *   compatSpawn(tmpl, argv[], envp[], cwd|null, spec[], detached, onExit,
 *               onSpawn, nice, policy, slice) -> [pid, child, fds[], pending] | -errno
 *       returns before the child's exec (spawnkit_spawn_start(3)); if
 *       pending, onSpawn(0 | -errno) says later how the exec went, always
 *       before onExit (which a failed exec does not get); nice: the
 *       increment of the child's nice value (a NICE action), 0 for none;
 *       policy: the child's SCHED_* (a SCHED_POLICY action), -1 for none;
 *       slice: the child's slice in ns (a SCHED_SLICE action), 0 for none
 *   compatSpawnSync(tmpl, argv[], envp[], cwd|null, spec[], detached,
 *                   readable[], inputs[], timeoutMs, maxBuffer, killSignal)
 *       -> [pid, exited, status, termsig, error, outputs[]] | -errno
 *   compatPipes(spec[]) -> fds[] | -errno   (see js_compat_pipes)
 *   compatSettle(child) -> 1 | 0 | -errno   (see js_compat_settle)
 *   threadSetSlice(ns) -> 0 | -errno   the calling thread's EEVDF slice
 *       (spawnkit_thread_set_slice(3)): register's loopSliceMs
 *   customSlices() -> bool   spawnkit_kernel_has_custom_slices(3)
 *
 * spec[i] is COMPAT_PIPE (-1), COMPAT_IGNORE (-2) or a parent fd; detached
 * (a new session) is SPAWNKIT_SPAWN_SETSID, -EOPNOTSUPP where the backend
 * cannot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "binding_util.h"
#include "child_watch.h"
#include "compat_plan.h"
#include "pidfd.h"
#include "sync_wait.h"

#define CHECK(call) do { if ((call) != napi_ok) goto napi_fail; } while (0)

struct start {
	struct spawn_call c;
	int spec[COMPAT_MAX_SLOTS];
	int n;
	bool detached;
	struct compat_sched sched;	/* compatSpawn's; spawnSync's: none */
};

/* argv[0..5] of either call.  0, or -1 with an exception pending, or
 * -errno to return as a number.  spawn_call_free(&s->c) in every case. */
static int start_parse(napi_env env, napi_value *argv, struct start *s)
{
	napi_value item;
	uint32_t n;
	int r;

	memset(s, 0, sizeof(*s));
	s->sched.policy = -1;	/* none unless compatSpawn passes one */
	r = spawn_call_parse(env, argv, &s->c);
	if (r < 0)
		return r;
	if (napi_get_array_length(env, argv[4], &n) != napi_ok)
		return -1;
	if (n > COMPAT_MAX_SLOTS)
		return -E2BIG;
	s->n = (int)n;
	for (uint32_t i = 0; i < n; i++)
		if (napi_get_element(env, argv[4], i, &item) != napi_ok ||
		    napi_get_value_int32(env, item, &s->spec[i]) != napi_ok)
			return -1;
	if (napi_get_value_bool(env, argv[5], &s->detached) != napi_ok)
		return -1;
	return 0;
}

static unsigned int start_flags(const struct start *s)
{
	return SPAWNKIT_SPAWN_INHERIT_FDS | (s->detached ? SPAWNKIT_SPAWN_SETSID : 0);
}

/* spawnSync's start: the call blocks until the child is done anyway, so
 * the vfork-style spawn.  Fills plan (our ends) and pidfd; pid or -errno. */
static pid_t start_child(struct start *s, struct compat_plan *plan, int *pidfd)
{
	pid_t pid;
	int r;

	r = compat_plan_build(plan, s->spec, s->n, s->c.cwd, &s->sched);
	if (r < 0)
		return r;
	pid = spawnkit_spawn(s->c.box->t, s->c.argv, s->c.envp, plan->actions,
			     plan->nr_actions, start_flags(s), pidfd);
	compat_plan_finish(plan, pid >= 0);
	return pid;
}

/* spawn's start: returns before the exec (spawnkit_spawn_start(3)), so the
 * event loop never waits for the child to be scheduled. */
static pid_t start_child_async(struct start *s, struct compat_plan *plan, int *pidfd,
			       struct spawnkit_start **st)
{
	pid_t pid;
	int r;

	r = compat_plan_build(plan, s->spec, s->n, s->c.cwd, &s->sched);
	if (r < 0)
		return r;
	pid = spawnkit_spawn_start(s->c.box->t, s->c.argv, s->c.envp, plan->actions,
				   plan->nr_actions, start_flags(s), pidfd, st);
	compat_plan_finish(plan, pid >= 0);
	return pid;
}

static napi_value js_compat_spawn(napi_env env, napi_callback_info info)
{
	size_t argc = 11;
	napi_value argv[11], result = NULL, ext, fds, pending;
	struct compat_plan *plan = malloc(sizeof(*plan));
	struct spawnkit_start *st = NULL;
	struct child_watch *w;
	struct start s = { 0 };
	bool is_pending;
	int pidfd = -1, r;
	pid_t pid;

	if (!plan)
		return num(env, -ENOMEM);
	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	r = start_parse(env, argv, &s);
	if (r < 0) {
		if (r != -1)
			result = num(env, r);
		goto out;
	}
	CHECK(napi_get_value_int32(env, argv[8], &s.sched.nice));
	CHECK(napi_get_value_int32(env, argv[9], &s.sched.policy));
	CHECK(napi_get_value_int32(env, argv[10], &s.sched.slice));
	pid = start_child_async(&s, plan, &pidfd, &st);
	if (pid < 0) {
		result = num(env, pid);
		goto out;
	}
	if (spawnkit_start_fd(st) < 0) {
		/* decided on return (exec'd: a failure came back as -errno) */
		spawnkit_start_free(st);
		st = NULL;
	}
	is_pending = st != NULL;
	r = watch_or_reap(env, pid, pidfd, argv[6], st, argv[7], plan->parent_fd, s.n, &w);
	st = NULL;	/* the watch's, or freed */
	if (r < 0) {
		result = num(env, r);
		goto out;
	}
	CHECK(napi_create_external(env, w, child_finalize, NULL, &ext));
	CHECK(napi_create_array_with_length(env, (size_t)s.n, &fds));
	for (int i = 0; i < s.n; i++)
		CHECK(napi_set_element(env, fds, (uint32_t)i, num(env, plan->parent_fd[i])));
	CHECK(napi_get_boolean(env, is_pending, &pending));
	CHECK(napi_create_array_with_length(env, 4, &result));
	CHECK(napi_set_element(env, result, 0, num(env, pid)));
	CHECK(napi_set_element(env, result, 1, ext));
	CHECK(napi_set_element(env, result, 2, fds));
	CHECK(napi_set_element(env, result, 3, pending));
out:
	spawnkit_start_free(st);
	spawn_call_free(&s.c);
	free(plan);
	return result;
napi_fail:
	result = NULL;
	goto out;
}

static napi_value js_compat_spawn_sync(napi_env env, napi_callback_info info)
{
	size_t argc = 11;
	napi_value argv[11], result = NULL, outs, item;
	struct compat_plan *plan = malloc(sizeof(*plan));
	struct sync_slot *slots = NULL;
	struct sync_result res;
	struct start s = { 0 };
	double timeout, max_buffer;
	int pidfd = -1, kill_sig, r;
	pid_t pid;

	if (!plan)
		return num(env, -ENOMEM);
	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	r = start_parse(env, argv, &s);
	if (r < 0) {
		if (r != -1)
			result = num(env, r);
		goto out;
	}
	CHECK(napi_get_value_double(env, argv[8], &timeout));
	CHECK(napi_get_value_double(env, argv[9], &max_buffer));
	CHECK(napi_get_value_int32(env, argv[10], &kill_sig));
	slots = calloc((size_t)s.n + 1, sizeof(*slots));
	if (!slots) {
		result = num(env, -ENOMEM);
		goto out;
	}
	/* Inputs are read from JavaScript memory while we block: nothing can
	 * move or free them before we return. */
	for (int i = 0; i < s.n; i++) {
		bool readable = false, is_buf = false;
		napi_valuetype type;

		CHECK(napi_get_element(env, argv[6], (uint32_t)i, &item));
		CHECK(napi_get_value_bool(env, item, &readable));
		slots[i].is_input = readable;
		CHECK(napi_get_element(env, argv[7], (uint32_t)i, &item));
		CHECK(napi_typeof(env, item, &type));
		if (type == napi_object)
			CHECK(napi_is_typedarray(env, item, &is_buf));
		if (is_buf) {
			napi_typedarray_type tt;
			size_t len, off;
			napi_value ab;
			void *data;

			CHECK(napi_get_typedarray_info(env, item, &tt, &len, &data, &ab, &off));
			slots[i].input = data;
			slots[i].input_len = len;	/* a Uint8Array: bytes */
		}
	}
	pid = start_child(&s, plan, &pidfd);
	if (pid < 0) {
		result = num(env, pid);
		goto out;
	}
	for (int i = 0; i < s.n; i++)
		slots[i].fd = plan->parent_fd[i];
	sync_wait(pidfd, slots, s.n, timeout, max_buffer, kill_sig, &res);
	close(pidfd);

	CHECK(napi_create_array_with_length(env, (size_t)s.n, &outs));
	for (int i = 0; i < s.n; i++) {
		if (s.spec[i] == COMPAT_PIPE && !slots[i].is_input) {
			void *copy;

			CHECK(napi_create_buffer_copy(env, slots[i].out_len,
				slots[i].out_len ? slots[i].out : "", &copy, &item));
		} else {
			CHECK(napi_get_null(env, &item));
		}
		CHECK(napi_set_element(env, outs, (uint32_t)i, item));
	}
	CHECK(napi_create_array_with_length(env, 6, &result));
	CHECK(napi_set_element(env, result, 0, num(env, pid)));
	CHECK(napi_set_element(env, result, 1, num(env, res.exited)));
	CHECK(napi_set_element(env, result, 2, num(env, res.status)));
	CHECK(napi_set_element(env, result, 3, num(env, res.termsig)));
	CHECK(napi_set_element(env, result, 4, num(env, res.error)));
	CHECK(napi_set_element(env, result, 5, outs));
out:
	if (slots)
		for (int i = 0; i < s.n; i++)
			free(slots[i].out);
	free(slots);
	spawn_call_free(&s.c);
	free(plan);
	return result;
napi_fail:
	result = NULL;
	goto out;
}

/* compatSettle(child) -> 1 (nothing pending) | 0 | -errno: the start's
 * outcome now (child_watch_settle), for an event before 'spawn'. */
static napi_value js_compat_settle(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1];
	void *w = NULL;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	CHECK(napi_get_value_external(env, argv[0], &w));
	return num(env, child_watch_settle(w));
napi_fail:
	return NULL;
}

/* Our ends of fresh socketpairs for the COMPAT_PIPE slots, the other ends
 * closed: what uv_spawn leaves in the Pipe handles when the exec failed
 * (ENOENT, EACCES), so the streams Node makes then read EOF and close. */
static napi_value js_compat_pipes(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1], fds = NULL;
	struct compat_plan *plan = malloc(sizeof(*plan));
	int spec[COMPAT_MAX_SLOTS], r;
	uint32_t n;

	if (!plan)
		return num(env, -ENOMEM);
	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	CHECK(napi_get_array_length(env, argv[0], &n));
	if (n > COMPAT_MAX_SLOTS) {
		fds = num(env, -E2BIG);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		napi_value item;

		CHECK(napi_get_element(env, argv[0], i, &item));
		CHECK(napi_get_value_int32(env, item, &spec[i]));
		if (spec[i] != COMPAT_PIPE)
			spec[i] = COMPAT_IGNORE;
	}
	r = compat_plan_build(plan, spec, (int)n, NULL, NULL);
	if (r < 0) {
		fds = num(env, r);
		goto out;
	}
	compat_plan_finish(plan, 1);
	CHECK(napi_create_array_with_length(env, n, &fds));
	for (uint32_t i = 0; i < n; i++)
		CHECK(napi_set_element(env, fds, i, num(env, plan->parent_fd[i])));
out:
	free(plan);
	return fds;
napi_fail:
	fds = NULL;
	goto out;
}

/* threadSetSlice(ns): spawnkit_thread_set_slice on the calling thread (the
 * one whose event loop runs this); lib/register/options.js checks ns. */
static napi_value js_thread_set_slice(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1];
	double ns;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
	    napi_get_value_double(env, argv[0], &ns) != napi_ok)
		return NULL;
	if (!(ns >= 0 && ns <= (double)SPAWNKIT_THREAD_SLICE_MAX))
		return num(env, -EINVAL);
	return num(env, spawnkit_thread_set_slice((uint64_t)ns));
}

static napi_value js_custom_slices(napi_env env, napi_callback_info info)
{
	napi_value b;

	if (napi_get_boolean(env, spawnkit_kernel_has_custom_slices() == 1, &b) != napi_ok)
		return NULL;
	return b;
}

napi_status compat_binding_init(napi_env env, napi_value exports)
{
	const napi_property_descriptor props[] = {
		{ "compatSpawn", NULL, js_compat_spawn, NULL, NULL, NULL, napi_default, NULL },
		{ "compatSpawnSync", NULL, js_compat_spawn_sync, NULL, NULL, NULL, napi_default, NULL },
		{ "compatPipes", NULL, js_compat_pipes, NULL, NULL, NULL, napi_default, NULL },
		{ "compatSettle", NULL, js_compat_settle, NULL, NULL, NULL, napi_default, NULL },
		{ "threadSetSlice", NULL, js_thread_set_slice, NULL, NULL, NULL, napi_default, NULL },
		{ "customSlices", NULL, js_custom_slices, NULL, NULL, NULL, napi_default, NULL },
	};

	return napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
}

/* SPDX-License-Identifier: MIT */
/*
 * binding.c - the N-API surface of the spawnkit addon (plain N-API, C).
 *
 * Deliberately thin: JavaScript (lib/) does option parsing, PATH lookup,
 * streams and errors; this file converts values, calls libspawnkit and hands
 * back numbers.  System errors come back as negative errno numbers (never
 * thrown) so lib/errors.js builds the same error objects Node builds.
 *
 *   templateCreate(path)                      -> External | -errno
 *   templateDestroy(tmpl)
 *   templateInfo(tmpl)                        -> [backendName, fd]
 *   spawn(tmpl, argv[], envp[]|null, cwd|null, [s0,s1,s2], flags, onExit)
 *                                             -> [pid, fd0, fd1, fd2, child] | -errno
 *   kill(child, sig)                          -> 0 | -errno
 *   killTree(child, sig)                      -> count | -errno
 *   ref(child, bool)
 *   pathsearch(name, PATH, cwd|null)          -> string | -errno
 *   templateCacheMax()                        -> number (the cache policy's bound)
 *   STALE_RETRIES, templateCacheIdleSec       the policy's constants
 *   backend()                                 -> SPAWNKIT_BACKEND_* | -errno
 *                                                (-ENOSYS: use lib/fallback.js)
 *   runStart(spec, onOutput, onDone), runStop(handle)   run() (run_async.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <node_api.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/warm.h>

#include "binding_util.h"
#include "child_watch.h"
#include "run_async.h"
#include "stdio_plan.h"
#include <spawnkit/batch.h>
#include "pidfd.h"

/* js spawn flag: try a warm start first (not a library flag) */
#define JS_SPAWN_WARM (1U << 8)

#define CHECK(call) do { if ((call) != napi_ok) goto napi_fail; } while (0)

napi_value num(napi_env env, double v)
{
	napi_value r;

	napi_create_double(env, v, &r);
	return r;
}

static napi_value undef(napi_env env)
{
	napi_value r;

	napi_get_undefined(env, &r);
	return r;
}

/* A JS string as a malloc'd C string; NULL on error (exception pending). */
char *dup_string(napi_env env, napi_value v)
{
	size_t len;
	char *s;

	if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok)
		return NULL;
	s = malloc(len + 1);
	if (!s) {
		napi_throw_error(env, "ENOMEM", "out of memory");
		return NULL;
	}
	napi_get_value_string_utf8(env, v, s, len + 1, &len);
	return s;
}

/* A JS array of strings as a NULL-terminated vector in one allocation. */
char **dup_string_array(napi_env env, napi_value arr)
{
	uint32_t n, i;
	size_t total = 0, len, off;
	napi_value item;
	char **vec;
	char *pool;

	if (napi_get_array_length(env, arr, &n) != napi_ok)
		return NULL;
	for (i = 0; i < n; i++) {
		if (napi_get_element(env, arr, i, &item) != napi_ok ||
		    napi_get_value_string_utf8(env, item, NULL, 0, &len) != napi_ok)
			return NULL;
		total += len + 1;
	}
	vec = malloc((n + 1) * sizeof(char *) + total);
	if (!vec) {
		napi_throw_error(env, "ENOMEM", "out of memory");
		return NULL;
	}
	pool = (char *)(vec + n + 1);
	for (i = 0, off = 0; i < n; i++) {
		napi_get_element(env, arr, i, &item);
		napi_get_value_string_utf8(env, item, pool + off, total - off, &len);
		vec[i] = pool + off;
		off += len + 1;
	}
	vec[n] = NULL;
	return vec;
}

static void template_finalize(napi_env env, void *data, void *hint)
{
	spawnkit_template_destroy(data);
}

static void box_finalize(napi_env env, void *data, void *hint)
{
	struct template_box *b = data;

	template_finalize(env, b->t, hint);
	free(b);
}

struct template_box *get_box(napi_env env, napi_value v)
{
	struct template_box *b = NULL;

	if (napi_get_value_external(env, v, (void **)&b) != napi_ok || (b && b->closed))
		return NULL;
	return b;
}

void box_hold(struct template_box *b)
{
	b->busy++;
}

void box_release(struct template_box *b)
{
	if (--b->busy == 0 && b->closed) {
		spawnkit_template_destroy(b->t);
		b->t = NULL;
	}
}

static napi_value js_template_create(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1], ext;
	struct template_box *b;
	char *path;
	int r;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	path = dup_string(env, argv[0]);
	if (!path)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		free(path);
		return num(env, -ENOMEM);
	}
	r = spawnkit_template_create(path, 0, &b->t);
	free(path);
	if (r < 0) {
		free(b);
		return num(env, r);
	}
	if (napi_create_external(env, b, box_finalize, NULL, &ext) != napi_ok) {
		spawnkit_template_destroy(b->t);
		free(b);
		return NULL;
	}
	return ext;
napi_fail:
	return NULL;
}

static napi_value js_template_destroy(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1];
	struct template_box *b;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	b = get_box(env, argv[0]);
	if (b && b->busy) {
		b->closed = 1;		/* box_release destroys it */
	} else if (b) {
		spawnkit_template_destroy(b->t);
		b->t = NULL;
	}
	return undef(env);
napi_fail:
	return NULL;
}

static napi_value js_template_info(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1], arr, name;
	struct template_box *b;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	b = get_box(env, argv[0]);
	if (!b || !b->t)
		return num(env, -EBADF);
	CHECK(napi_create_array_with_length(env, 2, &arr));
	CHECK(napi_create_string_utf8(env,
		spawnkit_backend_name(spawnkit_template_backend(b->t)),
		NAPI_AUTO_LENGTH, &name));
	CHECK(napi_set_element(env, arr, 0, name));
	CHECK(napi_set_element(env, arr, 1, num(env, spawnkit_template_fd(b->t))));
	return arr;
napi_fail:
	return NULL;
}

void child_finalize(napi_env env, void *data, void *hint)
{
	child_watch_release(data);
}

static napi_value js_spawn(napi_env env, napi_callback_info info)
{
	size_t argc = 8;
	napi_value argv[8], result = NULL, ext, item;
	napi_valuetype type;
	struct template_box *b;
	struct stdio_plan plan;
	struct child_watch *w;
	struct spawn_call c;
	char **args, **envp, *cwd, *preload = NULL;
	int spec[3], pidfd = -1, r;
	uint32_t flags;
	pid_t pid;

	memset(&c, 0, sizeof(c));
	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	r = spawn_call_parse(env, argv, &c);
	if (r < 0) {
		if (r != -1)
			result = num(env, r);
		goto out;
	}
	b = c.box;
	args = c.argv;
	envp = c.envp;
	cwd = c.cwd;
	for (int i = 0; i < 3; i++) {
		CHECK(napi_get_element(env, argv[4], i, &item));
		CHECK(napi_get_value_int32(env, item, &spec[i]));
	}
	CHECK(napi_get_value_uint32(env, argv[5], &flags));
	if (argc > 7) {
		CHECK(napi_typeof(env, argv[7], &type));
		if (type == napi_string) {
			preload = dup_string(env, argv[7]);	/* "json,re" */
			if (!preload)
				goto out;
		}
	}

	r = stdio_plan_build(&plan, spec, cwd);
	if (r < 0) {
		result = num(env, r);
		goto out;
	}
	pid = -1;
	/* { warm: true }: a Python call forked from the library's warm
	 * interpreter when it fits; otherwise (a reason, counted) cold. */
	if (!(flags & JS_SPAWN_WARM) ||
	    spawnkit_warm_spawn(spawnkit_template_path(b->t), args,
				envp ? envp : (char *const[]){ NULL }, plan.actions,
				plan.nr_actions, flags & SPAWNKIT_SPAWN_INHERIT_FDS,
				preload, &pid, &pidfd))
		pid = spawnkit_spawn(b->t, args, envp ? envp : (char *const[]){ NULL },
				     plan.actions, plan.nr_actions,
				     flags & SPAWNKIT_SPAWN_INHERIT_FDS, &pidfd);
	stdio_plan_finish(&plan, pid >= 0);
	if (pid < 0) {
		result = num(env, pid);
		goto out;
	}
	r = watch_or_reap(env, pid, pidfd, argv[6], NULL, NULL, plan.parent_fd, 3, &w);
	if (r < 0) {
		result = num(env, r);
		goto out;
	}
	CHECK(napi_create_external(env, w, child_finalize, NULL, &ext));
	CHECK(napi_create_array_with_length(env, 5, &result));
	CHECK(napi_set_element(env, result, 0, num(env, pid)));
	for (int i = 0; i < 3; i++)
		CHECK(napi_set_element(env, result, 1 + i, num(env, plan.parent_fd[i])));
	CHECK(napi_set_element(env, result, 4, ext));
out:
	spawn_call_free(&c);
	free(preload);
	return result;
napi_fail:
	result = NULL;
	goto out;
}

/* warmStats() -> [warm, cold, started, restarted, shutDown, {reason: n}] */
static napi_value js_warm_stats(napi_env env, napi_callback_info info)
{
	struct spawnkit_warm_stats st;
	napi_value arr, reasons;
	uint64_t v[5];

	spawnkit_warm_stats(&st);
	v[0] = st.warm_spawns;
	v[1] = st.cold_fallbacks;
	v[2] = st.started;
	v[3] = st.restarted;
	v[4] = st.shut_down;
	CHECK(napi_create_array_with_length(env, 6, &arr));
	for (int i = 0; i < 5; i++)
		CHECK(napi_set_element(env, arr, (uint32_t)i, num(env, (double)v[i])));
	CHECK(napi_create_object(env, &reasons));
	for (int i = 1; i < SPAWNKIT_WARM_NR_REASONS; i++)
		if (st.reasons[i])
			CHECK(napi_set_named_property(env, reasons, spawnkit_warm_reason_name(i),
						      num(env, (double)st.reasons[i])));
	CHECK(napi_set_element(env, arr, 5, reasons));
	return arr;
napi_fail:
	return NULL;
}

static napi_value js_warm_shutdown(napi_env env, napi_callback_info info)
{
	spawnkit_warm_shutdown();
	return NULL;
}

static struct child_watch *get_child(napi_env env, napi_value v)
{
	void *p = NULL;

	if (napi_get_value_external(env, v, &p) != napi_ok)
		return NULL;
	return p;
}

static napi_value js_kill(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2];
	struct child_watch *w;
	int sig;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	w = get_child(env, argv[0]);
	CHECK(napi_get_value_int32(env, argv[1], &sig));
	return num(env, w ? child_watch_kill(w, sig) : -EINVAL);
napi_fail:
	return NULL;
}

static napi_value js_kill_tree(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2];
	struct child_watch *w;
	int sig;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	w = get_child(env, argv[0]);
	if (!w)
		return num(env, -EINVAL);
	CHECK(napi_get_value_int32(env, argv[1], &sig));
	return num(env, child_watch_kill_tree(w, sig));
napi_fail:
	return NULL;
}

static napi_value js_ref(napi_env env, napi_callback_info info)
{
	size_t argc = 2;
	napi_value argv[2];
	struct child_watch *w;
	bool ref;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	w = get_child(env, argv[0]);
	CHECK(napi_get_value_bool(env, argv[1], &ref));
	if (w)
		child_watch_ref(w, ref);
	return undef(env);
napi_fail:
	return NULL;
}

static napi_value js_pathsearch(napi_env env, napi_callback_info info)
{
	size_t argc = 3;
	napi_value argv[3], out = NULL;
	napi_valuetype cwd_type = napi_undefined;
	char *name = NULL, *path = NULL, *cwd = NULL, buf[4096];
	int r, ok;

	CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
	if (argc >= 3)
		CHECK(napi_typeof(env, argv[2], &cwd_type));
	name = dup_string(env, argv[0]);
	path = name ? dup_string(env, argv[1]) : NULL;
	ok = path != NULL;
	if (ok && cwd_type == napi_string)
		ok = (cwd = dup_string(env, argv[2])) != NULL;
	if (ok) {
		r = spawnkit_pathsearch_cwd(name, path, cwd, buf, sizeof(buf));
		if (r < 0)
			out = num(env, r);
		else
			napi_create_string_utf8(env, buf, NAPI_AUTO_LENGTH, &out);
	}
	free(name);
	free(path);
	free(cwd);
	return out;
napi_fail:
	return NULL;
}

static napi_value js_template_cache_max(napi_env env, napi_callback_info info)
{
	(void)info;
	return num(env, spawnkit_template_cache_max());
}

/* spawnkit_backend(): which backend a template made now would use; -ENOSYS
 * where the library has none (no pidfds, or SPAWNKIT_BACKEND=fallback). */
static napi_value js_backend(napi_env env, napi_callback_info info)
{
	return num(env, spawnkit_backend());
}

static napi_value init(napi_env env, napi_value exports)
{
	const napi_property_descriptor props[] = {
		{ "templateCreate", NULL, js_template_create, NULL, NULL, NULL, napi_default, NULL },
		{ "templateDestroy", NULL, js_template_destroy, NULL, NULL, NULL, napi_default, NULL },
		{ "templateInfo", NULL, js_template_info, NULL, NULL, NULL, napi_default, NULL },
		{ "spawn", NULL, js_spawn, NULL, NULL, NULL, napi_default, NULL },
		{ "warmStats", NULL, js_warm_stats, NULL, NULL, NULL, napi_default, NULL },
		{ "warmShutdown", NULL, js_warm_shutdown, NULL, NULL, NULL, napi_default, NULL },
		{ "kill", NULL, js_kill, NULL, NULL, NULL, napi_default, NULL },
		{ "killTree", NULL, js_kill_tree, NULL, NULL, NULL, napi_default, NULL },
		{ "ref", NULL, js_ref, NULL, NULL, NULL, napi_default, NULL },
		{ "pathsearch", NULL, js_pathsearch, NULL, NULL, NULL, napi_default, NULL },
		{ "templateCacheMax", NULL, js_template_cache_max, NULL, NULL, NULL, napi_default, NULL },
		{ "backend", NULL, js_backend, NULL, NULL, NULL, napi_default, NULL },
		{ "runStart", NULL, js_run_start, NULL, NULL, NULL, napi_default, NULL },
		{ "runStop", NULL, js_run_stop, NULL, NULL, NULL, napi_default, NULL },
	};

	if (napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props) != napi_ok)
		return NULL;
	if (compat_binding_init(env, exports) != napi_ok)
		return NULL;
	/* lib/run.js's ESTALE/EACCES policy, the library's own (spawnkit.h) */
	napi_set_named_property(env, exports, "STALE_RETRIES",
				num(env, SPAWNKIT_STALE_RETRIES));
	napi_set_named_property(env, exports, "templateCacheIdleSec",
				num(env, SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC));
	return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)

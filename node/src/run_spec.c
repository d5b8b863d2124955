/* SPDX-License-Identifier: MIT */
/*
 * run_spec.c - run()'s spec object (lib/run.js toSpec) as a struct
 * spawnkit_run_opts: conversions only, the values were checked in
 * JavaScript (lib/run_options.js).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding_util.h"
#include "run_spec.h"

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

int run_spec_read(napi_env env, napi_value spec, struct run_spec *j)
{
	struct spawnkit_run_opts *o = &j->o;
	napi_value v, item;
	napi_valuetype t;
	uint32_t n;
	bool yes;
	double caps[4], d[3];
	int32_t mask, inc, policy;
	struct template_box *b;

	spawnkit_run_opts_init(o);
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
	if (bool_prop(env, spec, "pty", &yes))
		return 1;
	if (yes) {
		/* stdin, stdout, stderr: the terminal (std_mode PIPE, the
		 * default, which the library takes as the pty's) */
		o->flags |= SPAWNKIT_RUN_PTY;
		o->pty_rows = (unsigned short)ms_prop(env, spec, "ptyRows");
		o->pty_cols = (unsigned short)ms_prop(env, spec, "ptyCols");
	}
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
	} else if (!(o->flags & SPAWNKIT_RUN_PTY)) {
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
	 * SIGPIPE; an ignored signal would survive exec), rlimits, umask, nice,
	 * policy (the library checks each) */
	o->nr_actions = signal_reset_actions(j->act, &j->sig, NSIG);
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
	if (prop(env, spec, "nice", &v, &t) || napi_get_value_int32(env, v, &inc) != napi_ok)
		return 1;
	if (inc)
		spawnkit_action_nice(&j->act[o->nr_actions++], inc);
	if (prop(env, spec, "schedPolicy", &v, &t) || napi_get_value_int32(env, v, &policy) != napi_ok)
		return 1;
	if (policy >= 0)
		spawnkit_action_sched_policy(&j->act[o->nr_actions++], policy);
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

void run_spec_close_fds(struct run_spec *j)
{
	if (j->o.cwd_fd >= 0)
		close(j->o.cwd_fd);
	if (j->o.cgroup_fd >= 0)
		close(j->o.cgroup_fd);
	j->o.cwd_fd = j->o.cgroup_fd = -1;
}

void run_spec_free(napi_env env, struct run_spec *j)
{
	if (j->box)
		box_release(j->box);
	if (j->tmpl)
		napi_delete_reference(env, j->tmpl);
	run_spec_close_fds(j);
	free(j->argv);
	free(j->envp);
	free(j->input);
	free(j->preload);
}

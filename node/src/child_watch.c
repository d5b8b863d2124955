/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <uv.h>

#include <spawnkit/spawnkit.h>

#include "child_watch.h"
#include <spawnkit/run.h>
#include "pidfd.h"

struct child_watch {
	uv_poll_t poll;		/* first: the poll's data points back here */
	napi_env env;
	napi_ref on_exit;
	napi_async_context async;
	napi_ref resource;	/* the async resource, held until the exit:
				   napi_async_init keeps it only weakly, and
				   AsyncLocalStorage's store lives on it */
	napi_async_cleanup_hook_handle cleanup;	/* until the child is reaped */
	pid_t pid;
	int pidfd;		/* -1 once reaped */
	int closed;		/* poll handle closed */
	int released;		/* JavaScript dropped its handle */
	/* a start whose exec is not decided yet (child_watch_set_start) */
	uv_poll_t start_poll;
	struct spawnkit_start *start;	/* NULL once decided */
	napi_ref on_spawn;
	int start_open;		/* start_poll initialised, not closed yet */
	int start_failed;	/* on_spawn got an errno: no on_exit */
	int exit_seen;		/* the pidfd was readable while undecided */
};

static void maybe_free(struct child_watch *w)
{
	if (w->closed && w->released && !w->start_open)
		free(w);
}

static void on_start_poll_closed(uv_handle_t *h)
{
	struct child_watch *w = h->data;

	w->start_open = 0;
	maybe_free(w);
}

static void on_poll_closed(uv_handle_t *h)
{
	struct child_watch *w = h->data;

	w->closed = 1;
	maybe_free(w);
}

/* The references call_on_exit lets go of, without calling. */
static void drop_on_exit(struct child_watch *w)
{
	napi_delete_reference(w->env, w->on_exit);
	w->on_exit = NULL;
	napi_async_destroy(w->env, w->async);
	w->async = NULL;
	napi_delete_reference(w->env, w->resource);
	w->resource = NULL;
}

static void call_on_exit(struct child_watch *w, int code, int sig)
{
	napi_env env = w->env;
	napi_handle_scope scope;
	napi_value cb, recv, argv[2], result;

	napi_open_handle_scope(env, &scope);
	napi_get_reference_value(env, w->on_exit, &cb);
	napi_get_global(env, &recv);	/* make_callback wants an object */
	napi_create_int32(env, code, &argv[0]);
	napi_create_int32(env, sig, &argv[1]);
	/* make_callback: async context for hooks, and nextTick/microtask
	 * queues drained afterwards as for any libuv-driven callback. */
	if (napi_make_callback(env, w->async, recv, cb, 2, argv, &result) ==
	    napi_pending_exception) {
		napi_value err;

		napi_get_and_clear_last_exception(env, &err);
		napi_fatal_exception(env, err);
	}
	napi_close_handle_scope(env, scope);
	drop_on_exit(w);
}

static void call_on_spawn(struct child_watch *w, int err)
{
	napi_env env = w->env;
	napi_handle_scope scope;
	napi_value cb, recv, arg, result;

	napi_open_handle_scope(env, &scope);
	napi_get_reference_value(env, w->on_spawn, &cb);
	napi_get_global(env, &recv);
	napi_create_int32(env, err, &arg);
	if (napi_make_callback(env, w->async, recv, cb, 1, &arg, &result) ==
	    napi_pending_exception) {
		napi_value e;

		napi_get_and_clear_last_exception(env, &e);
		napi_fatal_exception(env, e);
	}
	napi_close_handle_scope(env, scope);
	napi_delete_reference(env, w->on_spawn);
	w->on_spawn = NULL;
}

static void on_pidfd_readable(uv_poll_t *p, int status, int events);
static void on_start_readable(uv_poll_t *p, int status, int events);

/*
 * The start's fd was readable, or the child ended while undecided.  The
 * poll is stopped before the start is asked: a decided start closes its
 * fd, and libuv must not watch a closed (and reusable) number.  Nothing
 * makes an fd between that close and uv_close().
 */
static void try_start(struct child_watch *w)
{
	int r;

	uv_poll_stop(&w->start_poll);
	r = spawnkit_start_wait(w->start, WNOHANG);
	if (r == -EAGAIN) {
		uv_poll_start(&w->start_poll, UV_READABLE, on_start_readable);
		return;
	}
	uv_close((uv_handle_t *)&w->start_poll, on_start_poll_closed);
	spawnkit_start_free(w->start);	/* decided: no wait */
	w->start = NULL;
	w->start_failed = r < 0;
	call_on_spawn(w, r);
	if (w->exit_seen && w->pidfd >= 0)
		on_pidfd_readable(&w->poll, 0, UV_READABLE);
}

static void on_start_readable(uv_poll_t *p, int status, int events)
{
	try_start(p->data);
}

int child_watch_settle(struct child_watch *w)
{
	int r;

	if (!w->start)
		return 1;
	uv_poll_stop(&w->start_poll);
	r = spawnkit_start_wait(w->start, 0);
	uv_close((uv_handle_t *)&w->start_poll, on_start_poll_closed);
	spawnkit_start_free(w->start);
	w->start = NULL;
	w->start_failed = r < 0;
	napi_delete_reference(w->env, w->on_spawn);
	w->on_spawn = NULL;
	if (w->exit_seen && w->pidfd >= 0)	/* held for the start: go on */
		uv_poll_start(&w->poll, UV_READABLE, on_pidfd_readable);
	return r;
}

static void on_pidfd_readable(uv_poll_t *p, int status, int events)
{
	struct child_watch *w = p->data;
	int r, ws = 0;

	if (w->start) {
		/* 'spawn' (or the start's error) comes first: hold the exit
		 * until the start is decided, which its end of file says
		 * (at the latest when the child's files are released). */
		w->exit_seen = 1;
		uv_poll_stop(p);
		try_start(w);
		return;
	}

	/* The library's wait: a child another waiter reaped (a waitpid(-1)
	 * in native code elsewhere in the process) still gives its status
	 * where the kernel keeps it on the pidfd; else -ECHILD, which goes
	 * to JavaScript as code -ECHILD, signal 0 (lost, never a made-up 0). */
	r = spawnkit_pidfd_wait(w->pidfd, WNOHANG, &ws);
	if (r == -EINTR || r == -EAGAIN || r == 0) {
		/* woken early: keep polling (again, if try_start stopped it) */
		uv_poll_start(p, UV_READABLE, on_pidfd_readable);
		return;
	}

	uv_poll_stop(p);
	close(w->pidfd);
	w->pidfd = -1;
	uv_close((uv_handle_t *)p, on_poll_closed);
	napi_remove_async_cleanup_hook(w->cleanup);
	w->cleanup = NULL;
	if (w->start_failed)
		drop_on_exit(w);	/* JavaScript had the errno already */
	else if (r < 0)
		call_on_exit(w, r, 0);
	else if (WIFEXITED(ws))
		call_on_exit(w, WEXITSTATUS(ws), 0);
	else
		call_on_exit(w, -1, WTERMSIG(ws));
}

static void on_poll_closed_at_teardown(uv_handle_t *h)
{
	struct child_watch *w = h->data;
	napi_async_cleanup_hook_handle hook = w->cleanup;

	w->cleanup = NULL;
	w->closed = 1;
	maybe_free(w);
	napi_remove_async_cleanup_hook(hook);	/* lets the teardown go on */
}

/*
 * The environment goes away (a Worker ends) while the child runs: the loop
 * must not be closed with our poll open.  The child is left running, as
 * child_process leaves its children; we can no longer reap it.
 */
static void on_env_teardown(napi_async_cleanup_hook_handle hook, void *arg)
{
	struct child_watch *w = arg;

	if (w->start) {
		/* Its memory is the child's until the exec: wait for that
		 * (the child is already on its way), then let go. */
		uv_poll_stop(&w->start_poll);
		spawnkit_start_free(w->start);
		w->start = NULL;
		uv_close((uv_handle_t *)&w->start_poll, on_start_poll_closed);
	}
	uv_poll_stop(&w->poll);
	close(w->pidfd);
	w->pidfd = -1;
	uv_close((uv_handle_t *)&w->poll, on_poll_closed_at_teardown);
}

/* The start's poll, first of all (nothing to undo but the handle). */
static int watch_start(struct child_watch *w, struct uv_loop_s *loop,
		       struct spawnkit_start *s)
{
	int r = uv_poll_init(loop, &w->start_poll, spawnkit_start_fd(s));

	if (r < 0)
		return r;
	w->start_poll.data = w;
	w->start_open = 1;
	r = uv_poll_start(&w->start_poll, UV_READABLE, on_start_readable);
	if (r < 0) {
		uv_close((uv_handle_t *)&w->start_poll, on_start_poll_closed);
		return r;
	}
	w->start = s;
	return 0;
}

int child_watch_start(napi_env env, pid_t pid, int pidfd, napi_value on_exit,
		      struct spawnkit_start *start, napi_value on_spawn,
		      struct child_watch **out)
{
	struct uv_loop_s *loop;
	struct child_watch *w;
	napi_value name, resource;
	int r;

	if (napi_get_uv_event_loop(env, &loop) != napi_ok)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->env = env;
	w->pid = pid;
	w->pidfd = pidfd;
	w->released = 1;	/* until it is returned: a failure frees it */
	w->closed = 1;
	if (start) {
		r = watch_start(w, loop, start);
		if (r < 0) {
			maybe_free(w);
			return r;
		}
	}
	r = uv_poll_init(loop, &w->poll, pidfd);
	if (r < 0) {
		w->start = NULL;	/* the caller's again */
		if (w->start_open)
			uv_close((uv_handle_t *)&w->start_poll, on_start_poll_closed);
		else
			maybe_free(w);
		return r;	/* libuv errors are -errno on Linux */
	}
	w->closed = 0;
	w->poll.data = w;
	r = uv_poll_start(&w->poll, UV_READABLE, on_pidfd_readable);
	if (r < 0) {
		/* The pidfd and start are the caller's again; the handles
		 * must still be closed before their memory goes. */
		w->pidfd = -1;
		w->start = NULL;
		if (w->start_open)
			uv_close((uv_handle_t *)&w->start_poll, on_start_poll_closed);
		uv_close((uv_handle_t *)&w->poll, on_poll_closed);
		return r;
	}
	w->released = 0;
	napi_create_reference(env, on_exit, 1, &w->on_exit);
	if (w->start)
		napi_create_reference(env, on_spawn, 1, &w->on_spawn);
	napi_create_object(env, &resource);
	napi_create_string_utf8(env, "spawnkit:child", NAPI_AUTO_LENGTH, &name);
	napi_async_init(env, resource, name, &w->async);
	napi_create_reference(env, resource, 1, &w->resource);
	napi_add_async_cleanup_hook(env, on_env_teardown, w, &w->cleanup);
	*out = w;
	return 0;
}

int child_watch_kill(struct child_watch *w, int sig)
{
	if (w->pidfd < 0)
		return -ESRCH;
	if (sk_pidfd_signal(w->pidfd, sig) < 0)
		return -errno;
	return 0;
}

int child_watch_kill_tree(struct child_watch *w, int sig)
{
	/* Not reaped yet (reaping happens on this thread): the pid is still
	 * the child's.  Reaped: the library signals nothing by that pid. */
	return spawnkit_kill_tree(w->pid, -1, sig, w->pidfd < 0 ? SPAWNKIT_KILL_REAPED : 0);
}

void child_watch_ref(struct child_watch *w, int ref)
{
	if (w->start_open && w->start) {
		if (ref)
			uv_ref((uv_handle_t *)&w->start_poll);
		else
			uv_unref((uv_handle_t *)&w->start_poll);
	}
	if (w->closed)
		return;
	if (ref)
		uv_ref((uv_handle_t *)&w->poll);
	else
		uv_unref((uv_handle_t *)&w->poll);
}


void child_watch_release(struct child_watch *w)
{
	w->released = 1;
	maybe_free(w);
}

/* SPDX-License-Identifier: MIT */
/*
 * child_watch.h - observe a child's exit through its pidfd in libuv's loop.
 *
 * A pidfd becomes readable when the child exits; a uv_poll_t on it wakes the
 * loop, waitid(P_PIDFD, WNOHANG) reaps the child without ever blocking, and
 * the JavaScript callback gets (exitCode, signalNumber).  Signals go through
 * pidfd_send_signal, so a reused pid is never hit.
 */
#ifndef SPAWNKIT_NODE_CHILD_WATCH_H
#define SPAWNKIT_NODE_CHILD_WATCH_H

#include <node_api.h>
#include <sys/types.h>

struct child_watch;

/*
 * Takes over pidfd (closed once the child is reaped).  start: NULL, or a
 * start of spawnkit_spawn_start(3) whose exec is not decided yet
 * (spawnkit_start_fd() >= 0): the watch takes it over too, and calls
 * on_spawn(0) once the child exec'd or on_spawn(-errno) if it failed.
 * on_spawn always comes before on_exit; after a failure on_exit is not
 * called (the child, which exits 127/126/1, is reaped quietly).  On
 * failure the caller still owns pidfd and start.  0 or -errno.
 */
struct spawnkit_start;
int child_watch_start(napi_env env, pid_t pid, int pidfd, napi_value on_exit,
		      struct spawnkit_start *start, napi_value on_spawn,
		      struct child_watch **out);

/* Decide a pending start now, waiting for the exec if need be (for an
 * event JavaScript emits before 'spawn' was confirmed): 0 or -errno as
 * on_spawn would have had (which then is not called), 1 if nothing was
 * pending. */
int child_watch_settle(struct child_watch *w);

/* pidfd_send_signal; -ESRCH once the child was reaped. */
int child_watch_kill(struct child_watch *w, int sig);

/* spawnkit_kill_tree(3) rooted at this child: it and its descendants
 * (by parent pid, through /proc).  A count or -errno. */
int child_watch_kill_tree(struct child_watch *w, int sig);

/* Whether the pending exit keeps the event loop alive (like ChildProcess
 * ref/unref). */
void child_watch_ref(struct child_watch *w, int ref);

/* JavaScript no longer holds the handle: free once the poll is closed. */
void child_watch_release(struct child_watch *w);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * run_async.h - run(): one spawnkit_run() call off the event loop.
 *
 * runStart(spec, onOutput|null, onDone) -> External | -errno
 *   spec: { tmpl, argv[], envp[], cwd|null, input Buffer|null (else stdin
 *   is /dev/null, or ours with stdinInherit), caps [outHead, outTail,
 *   errHead, errTail] (Infinity: unlimited), timeoutMs, noOutputTimeoutMs,
 *   waitDelayMs (-1: none), newSession, warm, preload|null, marker and
 *   text (how result.stdout[4] is joined: the marker, at a line boundary
 *   in text), rlimits [[res, soft,
 *   hard], ...] (-1: RLIM_INFINITY), umask (-1: none), cgroup|null }.
 *   result: { errno, pid, code, signal, why, killed, elapsedMs, stdout and
 *   stderr: [head, tail, dropped, total, joined] }.
 *   The run goes to a thread of its own (run_async.c says why not the
 *   libuv pool); each chunk of output comes to onOutput(fd, Buffer) on the
 *   loop through a threadsafe function whose queue is bounded (a slow
 *   callback slows the child, memory stays bounded); then onDone(result)
 *   once, after the last chunk.  A Worker that ends mid-run stops it.  A -errno return: nothing started (a cwd or cgroup that cannot
 *   be opened); errors of the start itself come in result.errno.
 * runStop(handle): stop the run (its tree is killed: SPAWNKIT_RUN_STOPPED),
 *   through spawnkit_run's stop_fd, so a run that writes nothing stops too.
 */
#ifndef SPAWNKIT_NODE_RUN_ASYNC_H
#define SPAWNKIT_NODE_RUN_ASYNC_H

#include <node_api.h>

napi_value js_run_start(napi_env env, napi_callback_info info);
napi_value js_run_stop(napi_env env, napi_callback_info info);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the wire protocol between libspawnkit and its warm interpreter
 * (src/warm/bootstrap.py), over a SOCK_SEQPACKET socketpair: one message per
 * request, reply or hello; fds with SCM_RIGHTS.  Integers little-endian.
 *
 * hello (interpreter -> caller, once):
 *   "SKWH" "ok" \0 version \0 watched path \0 ...     usable
 *   "SKWH" "no" \0 reason                              cannot be warmed
 * request (caller -> interpreter):
 *   "SKWR" u32 nfd, i32 target[nfd]   SCM_RIGHTS fd i goes to target[i];
 *                                     target -1 is the tool's cwd, -2 the
 *                                     call's go channel (below)
 *          u32 umask, u64 sigmask, u64 ignored       bit n-1: signal n
 *          u32 nrl, {u64 cur, u64 max}[nrl]          RLIMIT_* in order
 *          u32 mode (0 script, 1 -c, 2 -m), u32 rest (argv index of
 *          sys.argv[1]), u32 nargv, u32 nenv
 *          argv[nargv] \0 ..., env[nenv] \0 ..., comm \0, payload \0
 * reply (interpreter -> caller):
 *   "SKWA" u32 errno, u32 pid          pidfd in SCM_RIGHTS when errno is 0
 * go channel (a SOCK_SEQPACKET socketpair per call, the caller's and the tool's):
 *   tool -> caller  u32 pid            first thing after the clone
 *   caller -> tool  "g"                after the reply: run the call
 *                                      (EOF instead: exit 127, unseen)
 */
#ifndef SPAWNKIT_WARM_PROTO_H
#define SPAWNKIT_WARM_PROTO_H

#define WARM_MAGIC_HELLO	"SKWH"
#define WARM_MAGIC_REQUEST	"SKWR"
#define WARM_MAGIC_REPLY	"SKWA"
#define WARM_MAX_MSG		(1 << 20)	/* the interpreter's recv size */
#define WARM_SOCK_FD		3		/* the socket's fd in the interpreter */

#endif

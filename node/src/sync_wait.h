/* SPDX-License-Identifier: MIT */
/*
 * sync_wait.h - the blocking half of spawnSync for the register drop-in.
 *
 * Given a started child (its pidfd) and our ends of its stdio sockets, do
 * what Node's SyncProcessRunner does on its private loop: write each input
 * then shut the socket down, read every output to EOF in 64 KiB blocks,
 * and stop on the child's exit once every pipe is closed.  A timeout sets
 * ETIMEDOUT, output beyond max_buffer (all pipes together) sets ENOBUFS;
 * either sends kill_sig (SIGKILL if that cannot be sent), closes the pipes
 * and waits for the exit.  The first error wins.  No napi here.
 */
#ifndef SPAWNKIT_NODE_SYNC_WAIT_H
#define SPAWNKIT_NODE_SYNC_WAIT_H

#include <stddef.h>

struct sync_slot {
	int fd;			/* our end, or -1 */
	int is_input;		/* the child reads it: we write, then shut down */
	const char *input;
	size_t input_len, input_off;
	char *out;		/* what we read (malloc'd; the caller frees) */
	size_t out_len, out_cap;
};

struct sync_result {
	int exited;		/* the child was reaped */
	int status;		/* exit status, if it exited */
	int termsig;		/* the signal that ended it, else 0 */
	int error;		/* -errno (ETIMEDOUT, ENOBUFS, ...) or 0 */
};

/* Takes over the slots' fds (all closed on return) but not pidfd.
 * timeout_ms <= 0: none; max_buffer <= 0: unlimited. */
void sync_wait(int pidfd, struct sync_slot *slots, int n, double timeout_ms,
	       double max_buffer, int kill_sig, struct sync_result *r);

#endif

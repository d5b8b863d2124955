/* SPDX-License-Identifier: MIT */
/*
 * pump.h - from a started child to its end: feed stdin, read stdout and
 * stderr into their captures, watch the timeouts, reap through the pidfd,
 * and kill the tree when the run says so.
 */
#ifndef SPAWNKIT_RUN_PUMP_H
#define SPAWNKIT_RUN_PUMP_H

#include <spawnkit/run.h>
#include "run/capture.h"

/* After a kill, how long to read on for the pipes' end of file before
 * closing them anyway (a holder that escaped every kill). */
#define SK_RUN_DRAIN_MS 2000

struct sk_pump {
	const struct spawnkit_run_opts *o;
	pid_t pid;
	int pidfd;
	int fd[3];		/* our ends: [0] stdin (write), [1] [2] read; -1 */
	int hold[3];		/* [1] [2]: the child's write ends of the output
				   pipes, kept open until it is reaped, or -1 */
	int group;		/* the child leads its own session and group */
	int pty;		/* fd[0] and fd[1] are a pty master: the input
				   ends with the terminal's EOF, not a close */
	struct sk_capture cap[3];
	/* out */
	int status;
	uint32_t why;
	uint32_t killed;
	/* the pty's EOF bytes, once the input is written (-1: not yet) */
	char eof[2];
	int eof_len, eof_off;
};

/* Runs to the end; closes every fd in p (pidfd and hold too).  0 or -ENOMEM. */
int sk_pump_run(struct sk_pump *p);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Timeouts and the end of a run: the timeout and the no-output timeout kill
 * the tree and say so; output keeps the no-output timeout away; the wait
 * delay returns the child's real status while a background job holds the
 * pipe, and that job is dead afterwards; so is one that left the pipes.
 * Only ordering and outcomes are asserted; time bounds are generous upper
 * bounds (the suite also runs under QEMU/TCG).
 */
#include "run_util.h"

static pid_t first_number(const struct spawnkit_run_output *o)
{
	return (pid_t)atoi(joined(o));
}

/* (merged from main as one program; one case until split by behaviour) */
TEST(run_timeouts)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int bound = 120 * slow();
	pid_t bg;

	/* timeout: the child is killed, the status is SIGKILL's */
	spawnkit_run_opts_init(&o);
	o.timeout_ms = 300;
	CHECK_EQ(run_sh(&o, "echo started; exec sleep 1000", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_TIMED_OUT);
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	CHECK(!strcmp(joined(&r.out[1]), "started\n"));	/* output kept */
	CHECK(secs(r.elapsed_ns) >= 0.3 && secs(r.elapsed_ns) < bound);
	spawnkit_run_result_free(&r);

	/* the timeout also covers a grandchild holding the pipe open; long
	 * enough for the shell to have exited by then even under QEMU/TCG on
	 * a loaded host (the guest failed at 300 ms: killed before its exit) */
	o.timeout_ms = 2000LL * slow();
	CHECK_EQ(run_sh(&o, "sleep 1000 & exit 0", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_TIMED_OUT);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);	/* the real one */
	CHECK(secs(r.elapsed_ns) < bound);
	spawnkit_run_result_free(&r);

	/* no-output timeout */
	spawnkit_run_opts_init(&o);
	o.no_output_timeout_ms = 300;
	CHECK_EQ(run_sh(&o, "echo a; exec sleep 1000", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_NO_OUTPUT);
	CHECK(!(r.why & SPAWNKIT_RUN_TIMED_OUT));
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	spawnkit_run_result_free(&r);
	/* output more often than the limit keeps it away */
	o.no_output_timeout_ms = 20000 * slow();
	CHECK_EQ(run_sh(&o, "for i in 1 2 3; do echo $i; sleep 0.2; done", &r), 0);
	CHECK_EQ(r.why, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	CHECK(!strcmp(joined(&r.out[1]), "1\n2\n3\n"));
	spawnkit_run_result_free(&r);

	/* wait delay: the child exits at once, its background job holds
	 * stdout; after the delay the job is killed and the child's own
	 * status comes back */
	spawnkit_run_opts_init(&o);
	o.wait_delay_ms = 200;
	CHECK_EQ(run_sh(&o, "sleep 1000 & echo $!; exit 7", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_WAIT_DELAY);
	CHECK(!(r.why & SPAWNKIT_RUN_TIMED_OUT));
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7);
	bg = first_number(&r.out[1]);
	CHECK(bg > 1);
	CHECK(r.killed > 0);
	CHECK(bg > 1 && gone_within(bg, bound));
	CHECK(secs(r.elapsed_ns) < bound);
	spawnkit_run_result_free(&r);

	/* a background job that left the pipes: the run ends with the child,
	 * no reason given, and the job is dead afterwards (its session) */
	spawnkit_run_opts_init(&o);
	CHECK_EQ(run_sh(&o, "sleep 1000 >/dev/null 2>&1 & echo $!", &r), 0);
	CHECK_EQ(r.why, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	bg = first_number(&r.out[1]);
	CHECK(bg > 1 && gone_within(bg, bound));
	spawnkit_run_result_free(&r);
	/* ...and, with SPAWNKIT_RUN_SWEEP, one that moved to a process group
	 * of its own, as job control makes, after its parent exited: found by
	 * its session (without the flag an empty group means no scan) */
	{
		char script[2 * PATH_MAX];

		snprintf(script, sizeof(script), "%s --fork-pgrp | grep child", helper("attrs"));
		o.flags = SPAWNKIT_RUN_SWEEP;
		CHECK_EQ(run_sh(&o, script, &r), 0);
		CHECK_EQ(sscanf(joined(&r.out[1]), "child %d", &bg), 1);
		CHECK(bg > 1 && gone_within(bg, bound));
		spawnkit_run_result_free(&r);
	}

	/* opting out of the new session: nothing is killed after the exit
	 * (the job is ours to clean up here) */
	o.flags = SPAWNKIT_RUN_NO_NEW_SESSION;
	CHECK_EQ(run_sh(&o, "sleep 1000 >/dev/null 2>&1 & echo $!", &r), 0);
	bg = first_number(&r.out[1]);
	CHECK(bg > 1 && !gone_within(bg, 1));
	if (bg > 1)
		kill(bg, SIGKILL);
	CHECK_EQ(r.killed, 0);
	spawnkit_run_result_free(&r);
}

TEST_HARNESS_MAIN

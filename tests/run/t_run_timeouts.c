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

/* The generous bound every duration and "gone" check gets. */
static int bound(void)
{
	return 120 * slow();
}

/* timeout: the child is killed, the status is SIGKILL's, output is kept */
TEST(timeout_kills_the_child_and_keeps_its_output)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.timeout_ms = 300;
	ASSERT_EQ(run_sh(&o, "echo started; exec sleep 1000", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_TIMED_OUT);
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	CHECK(!strcmp(joined(&r.out[1]), "started\n"));
	CHECK(secs(r.elapsed_ns) >= 0.3 && secs(r.elapsed_ns) < bound());
	spawnkit_run_result_free(&r);
}

/* the timeout also covers a grandchild holding the pipe open; the status
 * is the child's real one */
TEST(timeout_covers_a_grandchild_holding_the_pipe)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	/* long enough for the shell to have exited by then even under
	 * QEMU/TCG on a loaded host (the guest failed at 300 ms: killed
	 * before its exit) */
	o.timeout_ms = 2000LL * slow();
	ASSERT_EQ(run_sh(&o, "sleep 1000 & exit 0", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_TIMED_OUT);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	CHECK(secs(r.elapsed_ns) < bound());
	spawnkit_run_result_free(&r);
}

TEST(no_output_timeout_kills_a_silent_child)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.no_output_timeout_ms = 300;
	ASSERT_EQ(run_sh(&o, "echo a; exec sleep 1000", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_NO_OUTPUT);
	CHECK(!(r.why & SPAWNKIT_RUN_TIMED_OUT));
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	spawnkit_run_result_free(&r);
}

/* output more often than the limit keeps it away */
TEST(output_keeps_the_no_output_timeout_away)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.no_output_timeout_ms = 20000 * slow();
	ASSERT_EQ(run_sh(&o, "for i in 1 2 3; do echo $i; sleep 0.2; done", &r), 0);
	CHECK_EQ(r.why, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	CHECK(!strcmp(joined(&r.out[1]), "1\n2\n3\n"));
	spawnkit_run_result_free(&r);
}

/* wait delay: the child exits at once, its background job holds stdout;
 * after the delay the job is killed and the child's own status comes back */
TEST(wait_delay_kills_the_job_and_returns_the_real_status)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	pid_t bg;

	spawnkit_run_opts_init(&o);
	o.wait_delay_ms = 200;
	ASSERT_EQ(run_sh(&o, "sleep 1000 & echo $!; exit 7", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_WAIT_DELAY);
	CHECK(!(r.why & SPAWNKIT_RUN_TIMED_OUT));
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7);
	bg = first_number(&r.out[1]);
	CHECK(bg > 1);
	CHECK(r.killed > 0);
	CHECK(bg > 1 && gone_within(bg, bound()));
	CHECK(secs(r.elapsed_ns) < bound());
	spawnkit_run_result_free(&r);
}

/* a background job that left the pipes: the run ends with the child, no
 * reason given, and the job is dead afterwards (its session) */
TEST(job_that_left_the_pipes_dies_with_the_session)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	pid_t bg;

	spawnkit_run_opts_init(&o);
	ASSERT_EQ(run_sh(&o, "sleep 1000 >/dev/null 2>&1 & echo $!", &r), 0);
	CHECK_EQ(r.why, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	bg = first_number(&r.out[1]);
	CHECK(bg > 1 && gone_within(bg, bound()));
	spawnkit_run_result_free(&r);
}

/* with SPAWNKIT_RUN_SWEEP, a job that moved to a process group of its own,
 * as job control makes, after its parent exited: found by its session
 * (without the flag an empty group means no scan) */
TEST(sweep_finds_a_job_in_a_group_of_its_own)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char script[2 * PATH_MAX];
	pid_t bg;

	spawnkit_run_opts_init(&o);
	snprintf(script, sizeof(script), "%s --fork-pgrp | grep child", helper("attrs"));
	o.flags = SPAWNKIT_RUN_SWEEP;
	ASSERT_EQ(run_sh(&o, script, &r), 0);
	CHECK_EQ(sscanf(joined(&r.out[1]), "child %d", &bg), 1);
	CHECK(bg > 1 && gone_within(bg, bound()));
	spawnkit_run_result_free(&r);
}

/* opting out of the new session: nothing is killed after the exit (the
 * job is ours to clean up here) */
TEST(no_new_session_kills_nothing_after_the_exit)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	pid_t bg;

	spawnkit_run_opts_init(&o);
	o.flags = SPAWNKIT_RUN_NO_NEW_SESSION;
	ASSERT_EQ(run_sh(&o, "sleep 1000 >/dev/null 2>&1 & echo $!", &r), 0);
	bg = first_number(&r.out[1]);
	CHECK(bg > 1 && !gone_within(bg, 1));
	if (bg > 1)
		kill(bg, SIGKILL);
	CHECK_EQ(r.killed, 0);
	spawnkit_run_result_free(&r);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * tests/harness.h itself: run tests/helpers/harness_demo (cases with known
 * outcomes) with a name filter, and check the verdicts, the summary line,
 * the failing names and the exit status the harness gave.
 */
#include "spawn/util.h"

struct demo {
	int status;
	char out[8192];
};

/* Run harness_demo FILTER [FILTER2] with stdout and stderr captured. */
static void run_demo2(const char *filter, const char *filter2, const char *timeout,
		      struct demo *d)
{
	int p[2];
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	memset(d, 0, sizeof(*d));
	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		if (timeout)
			setenv("SPAWNKIT_TEST_TIMEOUT", timeout, 1);
		execl(helper_path("harness_demo"), "harness_demo", filter, filter2, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof(d->out) - 1 &&
	       (got = read(p[0], d->out + len, sizeof(d->out) - 1 - len)) > 0)
		len += got;
	close(p[0]);
	ASSERT_EQ(waitpid(pid, &d->status, 0), pid);
	ASSERT_TRUE(WIFEXITED(d->status));
}

static void run_demo(const char *filter, const char *timeout, struct demo *d)
{
	run_demo2(filter, NULL, timeout, d);
}

static int has(const struct demo *d, const char *line)
{
	struct run_result *r = malloc(sizeof(*r));
	int yes;

	snprintf(r->out, sizeof(r->out), "%s", d->out);
	yes = has_line(r, "%s", line);
	free(r);
	return yes;
}

TEST(passing_case_passes)
{
	struct demo d;

	run_demo("passes", NULL, &d);
	EXPECT_TRUE(has(&d, "ok passes"));
	EXPECT_TRUE(has(&d, "harness_demo: 1 passed, 0 failed, 0 skipped"));
	EXPECT_EQ(WEXITSTATUS(d.status), 0);
}

TEST(failed_expect_fails_and_goes_on)
{
	struct demo d;

	run_demo("expect_goes_on", NULL, &d);
	EXPECT_TRUE(has(&d, "after expect"));
	EXPECT_TRUE(has(&d, "FAIL expect_goes_on (exit 1)"));
	EXPECT_TRUE(has(&d, "failed: expect_goes_on"));
	EXPECT_TRUE(strstr(d.out, "1 == 2 (1 vs 2)") != NULL);
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST(case_without_checks_fails)
{
	struct demo d;

	run_demo("checks_nothing", NULL, &d);
	EXPECT_TRUE(has(&d, "FAIL checks_nothing (exit 1)"));
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST(all_skipped_is_a_skip)
{
	struct demo d;

	run_demo("skips", NULL, &d);
	EXPECT_TRUE(has(&d, "SKIP: not here"));
	EXPECT_TRUE(has(&d, "harness_demo: 0 passed, 0 failed, 1 skipped"));
	EXPECT_EQ(WEXITSTATUS(d.status), 77);
}

TEST(skip_after_failure_fails)
{
	struct demo d;

	run_demo("skip_after_failure", NULL, &d);
	EXPECT_TRUE(has(&d, "FAIL skip_after_failure (exit 1)"));
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST(crash_fails_only_its_case)
{
	struct demo d;

	run_demo("crash", NULL, &d);
	EXPECT_TRUE(has(&d, "FAIL crashes (killed by signal 11)"));
	EXPECT_TRUE(has(&d, "ok after_crash"));
	EXPECT_TRUE(has(&d, "harness_demo: 1 passed, 1 failed, 0 skipped"));
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST(exit_status_fails)
{
	struct demo d;

	run_demo("exits_nonzero", NULL, &d);
	EXPECT_TRUE(has(&d, "FAIL exits_nonzero (exit 3)"));
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST(hang_times_out)
{
	struct demo d;

	run_demo("hangs", "1", &d);
	EXPECT_TRUE(has(&d, "FAIL hangs (timed out)"));
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST(cases_do_not_share_state)
{
	struct demo d;

	run_demo("isolated", NULL, &d);
	EXPECT_TRUE(has(&d, "harness_demo: 2 passed, 0 failed, 0 skipped"));
	EXPECT_EQ(WEXITSTATUS(d.status), 0);
}

TEST(variants_run_each_with_teardown)
{
	struct demo d;

	run_demo("fx.", NULL, &d);
	EXPECT_TRUE(has(&d, "ok fx.one.assert_stops"));
	EXPECT_TRUE(has(&d, "teardown n=9 want=1"));
	EXPECT_TRUE(has(&d, "FAIL fx.two.assert_stops (exit 1)"));
	EXPECT_TRUE(has(&d, "teardown n=5 want=2"));	/* the ASSERT stopped it */
	EXPECT_TRUE(has(&d, "failed: fx.two.assert_stops"));
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST(no_case_run_fails)
{
	struct demo d;

	run_demo("no-such-case", NULL, &d);
	EXPECT_TRUE(has(&d, "harness_demo: no case ran"));
	EXPECT_EQ(WEXITSTATUS(d.status), 1);
}

TEST_HARNESS_MAIN

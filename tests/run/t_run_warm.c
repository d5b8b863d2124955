/* SPDX-License-Identifier: MIT */
/*
 * SPAWNKIT_RUN_WARM: a Python call in the caller's session starts from a
 * warm interpreter and gives what a cold run gives; in a new session, or
 * when it is not Python, it runs cold with the reason counted.  Skips
 * where no python3 is installed.
 */
#include <spawnkit/warm.h>
#include "run_util.h"

static const char *python(void)
{
	return access("/usr/bin/python3", X_OK) ? NULL : "/usr/bin/python3";
}

static void run_py(struct spawnkit_run_opts *o, const char *code, struct spawnkit_run_result *r,
		   int *ret)
{
	*ret = run_dash_c(o, python(), "python3", code, r);
}

TEST(warm_in_callers_session_equals_cold)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result cold, warm;
	struct spawnkit_warm_stats before, after;
	const char *code = "import sys; print(sys.argv[1:], len(sys.stdin.read())); sys.exit(4)";
	int ret;

	if (!python())
		SKIP("no /usr/bin/python3");
	spawnkit_run_opts_init(&o);
	o.flags = SPAWNKIT_RUN_NO_NEW_SESSION;
	o.input = "abcdef";
	o.input_len = 6;
	run_py(&o, code, &cold, &ret);
	ASSERT_EQ(ret, 0);
	spawnkit_warm_stats(&before);
	o.flags |= SPAWNKIT_RUN_WARM;
	run_py(&o, code, &warm, &ret);
	ASSERT_EQ(ret, 0);
	spawnkit_warm_stats(&after);
	CHECK_EQ(after.warm_spawns, before.warm_spawns + 1);
	CHECK_EQ(warm.status, cold.status);
	CHECK(WIFEXITED(warm.status) && WEXITSTATUS(warm.status) == 4);
	EXPECT_STREQ(joined(&warm.out[1]), "[] 6\n");
	spawnkit_run_result_free(&cold);
	spawnkit_run_result_free(&warm);
	spawnkit_warm_shutdown();
}

TEST(warm_with_a_new_session_runs_cold)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct spawnkit_warm_stats before, after;
	int ret;

	if (!python())
		SKIP("no /usr/bin/python3");
	spawnkit_run_opts_init(&o);
	o.flags = SPAWNKIT_RUN_WARM;		/* a new session: does not fit */
	spawnkit_warm_stats(&before);
	run_py(&o, "import os; print(os.getsid(0) == os.getpid())", &r, &ret);
	ASSERT_EQ(ret, 0);
	spawnkit_warm_stats(&after);
	CHECK_EQ(after.warm_spawns, before.warm_spawns);
	CHECK_EQ(after.cold_fallbacks, before.cold_fallbacks + 1);
	EXPECT_STREQ(joined(&r.out[1]), "True\n");
	spawnkit_run_result_free(&r);
	spawnkit_warm_shutdown();
}

TEST_HARNESS_MAIN

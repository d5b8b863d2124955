/* SPDX-License-Identifier: MIT */
/*
 * Under a real controlling terminal (a pty made ours), a child that opens
 * /dev/tty fails at once in spawnkit_run's default new session (ENXIO),
 * where ssh, git and sudo prompts would otherwise block; with
 * SPAWNKIT_RUN_NO_NEW_SESSION it reaches the terminal (the control).
 * Skips (77) where no pty can be made.
 */
#include "run_util.h"
#include "pty_probe.h"

/* In a process of its own: 0 if both cases behave, else a bit per failure. */
static int under_tty(int bound)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	const char *script = "echo hi > /dev/tty";
	char name[64];
	int bad = 0, step = take_terminal(name, sizeof(name));

	if (step)
		return step == 1 ? 64 : 77;
	/* the terminal is ours now: /dev/tty opens for us */
	if (open("/dev/tty", O_RDWR) < 0)
		return 65;

	spawnkit_run_opts_init(&o);
	o.timeout_ms = bound * 1000LL;
	if (run_sh(&o, script, &r))
		return 66;
	if ((r.why & SPAWNKIT_RUN_TIMED_OUT) || !WIFEXITED(r.status) || !WEXITSTATUS(r.status))
		bad |= 1;	/* it must fail, and on its own */
	if (!strstr(joined(&r.out[2]), "/dev/tty"))
		bad |= 2;	/* the shell names what it could not open */
	spawnkit_run_result_free(&r);

	o.flags = SPAWNKIT_RUN_NO_NEW_SESSION;
	if (run_sh(&o, script, &r))
		return 67;
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status))
		bad |= 4;	/* the control: the terminal is reachable */
	spawnkit_run_result_free(&r);
	return bad;
}

/* (merged from main as one program; one case until split by behaviour) */
TEST(run_tty)
{
	int bound = 60 * slow(), status = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(under_tty(bound));
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		TEST_SKIP("no pty to be a controlling terminal");
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status) & 1, 0);	/* failed, and not by the timeout */
	CHECK_EQ(WEXITSTATUS(status) & 2, 0);
	CHECK_EQ(WEXITSTATUS(status) & 4, 0);
	CHECK(WEXITSTATUS(status) < 64);	/* no setup step failed */
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * SPAWNKIT_RUN_PTY: the child on a new pty, its controlling terminal.
 * Seen from inside (isatty, tty, the foreground group, the window size,
 * /dev/tty) and from the caller (echoed input, the end of input, stderr
 * merged into stdout, every byte read before the end, no fd left behind,
 * the timeout's kill, the wait delay), plus the option checks and the older
 * options size.  Cases that need a pty skip, saying why, only where
 * /dev/ptmx is absent or no devpts is mounted (tests/pty_probe.h; a QEMU
 * guest without one).  Time bounds are upper bounds, scaled by
 * SPAWNKIT_TEST_SLOW.
 */
#include <dirent.h>
#include "run_util.h"
#include "pty_probe.h"

#define need_ptmx() do {						\
	const char *why_ = no_pty_reason();				\
									\
	if (why_)							\
		TEST_SKIP(why_);					\
} while (0)

/* o with PTY mode, a bound on the run; then sh -c script. */
static int run_pty(struct spawnkit_run_opts *o, const char *script,
		   struct spawnkit_run_result *r)
{
	o->flags |= SPAWNKIT_RUN_PTY;
	if (o->timeout_ms < 0)
		o->timeout_ms = 60000LL * slow();
	return run_sh(o, script, r);
}

static int exited_ok(const struct spawnkit_run_result *r)
{
	return !(r->why & SPAWNKIT_RUN_TIMED_OUT) && WIFEXITED(r->status) &&
	       WEXITSTATUS(r->status) == 0;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own */
}

TEST(all_three_fds_are_the_terminal)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	ASSERT_EQ(run_pty(&o, "test -t 0 && test -t 1 && test -t 2 && echo ttys; tty", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	/* the terminal turns "\n" into "\r\n" (ONLCR) */
	EXPECT_TRUE(!strncmp(joined(&r.out[1]), "ttys\r\n/dev/pts/", 15));
	EXPECT_EQ(r.out[2].total, 0);
	spawnkit_run_result_free(&r);
}

TEST(controlling_terminal_and_foreground_group)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char want[128];
	long tty_nr = -1, tpgid = -2, pgrp = -3, sid = -4;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	/* the shell's own pgrp, session, tty_nr and tpgid (stat fields 5-8) */
	ASSERT_EQ(run_pty(&o, "cut -d' ' -f5-8 /proc/$$/stat", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(sscanf(joined(&r.out[1]), "%ld %ld %ld %ld", &pgrp, &sid, &tty_nr, &tpgid), 4);
	EXPECT_EQ(pgrp, r.pid);
	EXPECT_EQ(sid, r.pid);
	EXPECT_NE(tty_nr, 0);		/* it has a controlling terminal */
	EXPECT_EQ(tpgid, r.pid);	/* and its group is in the foreground */
	snprintf(want, sizeof(want), "%d", (int)r.pid);
	spawnkit_run_result_free(&r);

	/* tcgetpgrp(0) == getpgrp(), asked through ps-free means: the same
	 * fields for a child of the shell, which shares its group */
	ASSERT_EQ(run_pty(&o, "sh -c 'cut -d\" \" -f5,8 /proc/$$/stat'", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(sscanf(joined(&r.out[1]), "%ld %ld", &pgrp, &tpgid), 2);
	EXPECT_EQ(pgrp, r.pid);
	EXPECT_EQ(tpgid, r.pid);
	spawnkit_run_result_free(&r);
}

TEST(dev_tty_is_reachable)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	ASSERT_EQ(run_pty(&o, "echo via-dev-tty >/dev/tty", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "via-dev-tty\r\n");
	spawnkit_run_result_free(&r);
}

TEST(window_size)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	ASSERT_EQ(run_pty(&o, "stty size", &r), 0);	/* 0 x 0: 24 x 80 */
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "24 80\r\n");
	spawnkit_run_result_free(&r);
	o.pty_rows = 50;
	o.pty_cols = 132;
	ASSERT_EQ(run_pty(&o, "stty size", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "50 132\r\n");
	spawnkit_run_result_free(&r);
}

TEST(input_is_echoed_then_eof)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	/* one line: echoed by the terminal, read, and cat sees the end */
	o.input = "hello\n";
	o.input_len = 6;
	ASSERT_EQ(run_pty(&o, "read l; echo got:$l; cat; echo cat-done", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "hello\r\ngot:hello\r\ncat-done\r\n");
	spawnkit_run_result_free(&r);

	/* an unfinished last line: handed over, then the end of input */
	o.input = "a\nbc";
	o.input_len = 4;
	ASSERT_EQ(run_pty(&o, "cat >/dev/null; echo cat-done", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "a\r\nbccat-done\r\n");
	spawnkit_run_result_free(&r);

	/* no input at all: end of input at once, no wait for the timeout */
	o.input = NULL;
	o.input_len = 0;
	ASSERT_EQ(run_pty(&o, "cat; echo cat-done", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "cat-done\r\n");
	spawnkit_run_result_free(&r);
}

TEST(stderr_merged_into_stdout)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	ASSERT_EQ(run_pty(&o, "echo out; echo err >&2; echo out2", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "out\r\nerr\r\nout2\r\n");
	EXPECT_EQ(r.out[2].total, 0);
	spawnkit_run_result_free(&r);
}

/* on_output sees the master's bytes as fd 1 */
static int count_cb(void *ctx, int fd, const void *data, size_t len)
{
	uint64_t *n = ctx;

	n[fd == 1 ? 0 : 1] += len;
	return 0;
}

TEST(every_byte_read_before_the_end)
{
	/* EIO on the master once the child side is closed ends the output,
	 * after every byte written before it: 20000 lines, each "\r\n" */
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	uint64_t want = 0, seen[2] = { 0, 0 };
	int i;

	need_ptmx();
	for (i = 1; i <= 20000; i++)
		want += (uint64_t)snprintf(NULL, 0, "%d", i) + 2;
	spawnkit_run_opts_init(&o);
	o.head[1] = 16;
	o.tail[1] = 16;
	o.on_output = count_cb;
	o.ctx = seen;
	ASSERT_EQ(run_pty(&o, "seq 1 20000", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(r.out[1].total, want);
	EXPECT_EQ(seen[0], want);
	EXPECT_EQ(seen[1], 0);
	EXPECT_EQ(memcmp(r.out[1].tail + 16 - 7, "20000\r\n", 7), 0);
	spawnkit_run_result_free(&r);
}

TEST(no_fd_left_behind)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int before = count_fds();

	need_ptmx();
	spawnkit_run_opts_init(&o);
	/* the child has 0, 1, 2 and nothing else: no master, no copy */
	ASSERT_EQ(run_pty(&o, "ls -1 /proc/$$/fd", &r), 0);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STREQ(joined(&r.out[1]), "0\r\n1\r\n2\r\n");
	spawnkit_run_result_free(&r);
	/* and the caller has what it had, after a run, a timeout, an error */
	o.timeout_ms = 100;
	ASSERT_EQ(run_pty(&o, "sleep 100", &r), 0);
	spawnkit_run_result_free(&r);
	o.timeout_ms = SPAWNKIT_RUN_NONE;
	o.file = "/nonexistent/sh";
	EXPECT_ERR(spawnkit_run(&o, &r), ENOENT);
	EXPECT_EQ(count_fds(), before);
}

TEST(timeout_kills_the_session)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int bg = 0;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	o.timeout_ms = 1500LL * slow();	/* long enough for the "bg" line */
	ASSERT_EQ(run_pty(&o, "sleep 1000 & echo bg $!; sleep 1000", &r), 0);
	EXPECT_TRUE(r.why & SPAWNKIT_RUN_TIMED_OUT);
	EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	EXPECT_LT(secs(r.elapsed_ns), 30.0 * slow());
	EXPECT_EQ(sscanf(joined(&r.out[1]), "bg %d", &bg), 1);
	EXPECT_TRUE(bg > 1 && gone_within(bg, 10 * slow()));
	spawnkit_run_result_free(&r);
}

TEST(wait_delay_for_a_holder_of_the_terminal)
{
	/* the shell exits; a job that ignores the hangup keeps the terminal
	 * open, so no EIO: the wait delay ends the run, the status is the
	 * shell's own, and the job is killed with the session */
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int bg = 0;

	need_ptmx();
	spawnkit_run_opts_init(&o);
	o.wait_delay_ms = 300LL * slow();
	ASSERT_EQ(run_pty(&o, "trap '' HUP; sleep 1000 & echo bg $!; exit 3", &r), 0);
	EXPECT_TRUE(r.why & SPAWNKIT_RUN_WAIT_DELAY);
	EXPECT_FALSE(r.why & SPAWNKIT_RUN_TIMED_OUT);
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
	EXPECT_EQ(sscanf(joined(&r.out[1]), "bg %d", &bg), 1);
	EXPECT_TRUE(bg > 1 && gone_within(bg, 10 * slow()));
	spawnkit_run_result_free(&r);
}

/* Under a controlling terminal of the caller's own: the child gets its
 * own, not the caller's.  In a process of its own; 0 if all holds. */
static int under_callers_tty(void)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char mine[64], theirs[64] = "";
	int bad = 0;

	if (take_terminal(mine, sizeof(mine)))
		return 64;
	spawnkit_run_opts_init(&o);
	if (run_pty(&o, "tty; echo x >/dev/tty", &r))
		return 65;
	if (!exited_ok(&r))
		bad |= 1;
	if (sscanf(joined(&r.out[1]), "%63s", theirs) != 1 || !strcmp(mine, theirs) ||
	    strncmp(theirs, "/dev/pts/", 9))
		bad |= 2;
	if (!strstr(joined(&r.out[1]), "\r\nx\r\n"))
		bad |= 4;	/* its /dev/tty is its pty, not ours */
	spawnkit_run_result_free(&r);
	return bad;
}

TEST(own_terminal_under_the_callers)
{
	int status = -1;
	pid_t pid;

	need_ptmx();
	pid = fork();
	if (pid == 0)
		_exit(under_callers_tty());
	ASSERT_TRUE(pid > 0 && waitpid(pid, &status, 0) == pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(bad_options)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char *argv[] = { "true", NULL };
	int i;

	/* a pty is the child's terminal: its own session, all three fds */
	spawnkit_run_opts_init(&o);
	o.argv = argv;
	o.flags = SPAWNKIT_RUN_PTY | SPAWNKIT_RUN_NO_NEW_SESSION;
	EXPECT_ERR(spawnkit_run(&o, &r), EINVAL);
	for (i = 0; i < 3; i++) {
		spawnkit_run_opts_init(&o);
		o.argv = argv;
		o.flags = SPAWNKIT_RUN_PTY;
		o.std_mode[i] = i == 2 ? SPAWNKIT_RUN_STDOUT : SPAWNKIT_RUN_DEVNULL;
		EXPECT_ERR(spawnkit_run(&o, &r), EINVAL);
		o.std_mode[i] = SPAWNKIT_RUN_INHERIT;
		EXPECT_ERR(spawnkit_run(&o, &r), EINVAL);
	}
}

TEST(older_options_size)
{
	/* a caller built against the first release: its size still runs, the
	 * newer fields taken as 0; any other size is refused */
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.size = SPAWNKIT_RUN_OPTS_SIZE_V1;
	o.pty_rows = 7;		/* past the old size: never read */
	ASSERT_EQ(run_sh(&o, "echo old", &r), 0);
	EXPECT_STREQ(joined(&r.out[1]), "old\n");
	spawnkit_run_result_free(&r);
	o.size = SPAWNKIT_RUN_OPTS_SIZE_V1 + 1;
	EXPECT_ERR(run_sh(&o, "echo old", &r), EINVAL);
	o.size = sizeof(o) + 8;
	EXPECT_ERR(run_sh(&o, "echo old", &r), EINVAL);
	if (no_pty_reason())
		return;
	o.size = SPAWNKIT_RUN_OPTS_SIZE_V1;
	ASSERT_EQ(run_pty(&o, "stty size", &r), 0);
	EXPECT_STREQ(joined(&r.out[1]), "24 80\r\n");	/* not 7 rows */
	spawnkit_run_result_free(&r);
}

TEST_HARNESS_MAIN

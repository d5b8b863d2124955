/* SPDX-License-Identifier: MIT */
/*
 * A child that cannot start: by default spawn returns the errno and has
 * reaped the child ("not found" is never "exited 127"); with
 * SPAWNKIT_SPAWN_EXIT_STATUS the proposal's 127 / 126 / 1 exit statuses.
 */
#include "util.h"

static char *argv_q[] = { "x", NULL };

/* spawn with flags; return -errno, or the wait status if a pid came back */
static int outcome(struct spawnkit_template *t, const struct spawn_template_action *a,
		   unsigned int n, unsigned int flags)
{
	int pidfd = -1;
	pid_t pid = spawnkit_spawn(t, argv_q, environ, a, n, flags, &pidfd);

	if (pid < 0)
		return pid;
	return wait_pidfd(pidfd);
}

/* The probe's template and a scratch directory; no child left after. */
FIXTURE(errs) {
	struct spawnkit_template *t;
	char *dir;
};

FIXTURE_SETUP(errs)
{
	self->dir = make_tmpdir();
	self->t = probe_template();
}

FIXTURE_TEARDOWN(errs)
{
	spawnkit_template_destroy(self->t);
	rm_tmpdir(self->dir);
	CHECK(no_children());
}

/* ENOEXEC: executable bits on something that is no program */
TEST_F(errs, enoexec_is_errno_or_126)
{
	const char *dir = self->dir;
	struct spawnkit_template *t;	/* not the probe here */
	char garbage[256];
	int before;

	snprintf(garbage, sizeof(garbage), "%s/garbage", dir);
	write_file(garbage, "this is not an ELF file and has no #! line\n", 0755);
	CHECK_EQ(spawnkit_template_create(garbage, 0, &t), 0);
	before = count_open_fds();
	CHECK_ERR(outcome(t, NULL, 0, 0), ENOEXEC);
	CHECK(no_children());				/* reaped */
	CHECK_EQ(count_open_fds(), before);		/* pidfd closed */
	CHECK_EQ(outcome(t, NULL, 0, SPAWNKIT_SPAWN_EXIT_STATUS), 126 << 8);
	spawnkit_template_destroy(t);
}

/* an action's ENOENT: 127 in the proposal's terms */
TEST_F(errs, action_enoent_is_errno_or_127)
{
	struct spawnkit_template *t = self->t;
	struct spawn_template_action a;
	struct spawnkit_open o;

	spawnkit_action_open(&a, &o, AT_FDCWD, "/nonexistent", O_RDONLY, 0, 0);
	CHECK_ERR(outcome(t, &a, 1, 0), ENOENT);
	CHECK_EQ(outcome(t, &a, 1, SPAWNKIT_SPAWN_EXIT_STATUS), 127 << 8);
}

/* EACCES: 126 (root too cannot exec a file without x bits: here a
 * script's interpreter) */
TEST_F(errs, eacces_is_errno_or_126)
{
	const char *dir = self->dir;

	{
		char interp[300], script[300], text[400];
		struct spawnkit_template *ts;

		snprintf(interp, sizeof(interp), "%s/interp", dir);
		snprintf(script, sizeof(script), "%s/script", dir);
		copy_file(probe_path(), interp, 0644);
		snprintf(text, sizeof(text), "#!%s\n", interp);
		write_file(script, text, 0755);
		CHECK_EQ(spawnkit_template_create(script, 0, &ts), 0);
		CHECK_ERR(outcome(ts, NULL, 0, 0), EACCES);
		CHECK_EQ(outcome(ts, NULL, 0, SPAWNKIT_SPAWN_EXIT_STATUS), 126 << 8);
		spawnkit_template_destroy(ts);
		unlink(interp);
		unlink(script);
	}
}

/* ENOTDIR: 1 */
TEST_F(errs, enotdir_is_errno_or_1)
{
	const char *dir = self->dir;
	struct spawnkit_template *t = self->t;
	struct spawn_template_action a;
	struct spawnkit_open o;

	{
		char notdir[300];

		snprintf(notdir, sizeof(notdir), "%s/notdir", dir);
		write_file(notdir, "x", 0644);
		spawnkit_action_open(&a, &o, AT_FDCWD, notdir, O_RDONLY | O_DIRECTORY, 0, 0);
		CHECK_ERR(outcome(t, &a, 1, 0), ENOTDIR);
		CHECK_EQ(outcome(t, &a, 1, SPAWNKIT_SPAWN_EXIT_STATUS), 1 << 8);
		unlink(notdir);
	}
}

/* any other errno: 1 */
TEST_F(errs, other_errno_is_errno_or_1)
{
	struct spawnkit_template *t = self->t;
	struct spawn_template_action a;

	spawnkit_action_dup2(&a, 900, 3, 0);
	CHECK_ERR(outcome(t, &a, 1, 0), EBADF);
	CHECK_EQ(outcome(t, &a, 1, SPAWNKIT_SPAWN_EXIT_STATUS), 1 << 8);
}

/* a program that exits 127 by itself is not an error */
TEST_F(errs, program_exiting_127_is_no_error)
{
	struct spawnkit_template *t = self->t;

	{
		char *argv_127[] = { "probe", "--quiet", "--exit", "127", NULL };
		int pidfd;
		pid_t pid = spawnkit_spawn(t, argv_127, environ, NULL, 0, 0, &pidfd);

		CHECK(pid > 0);
		if (pid > 0)
			CHECK_EQ(wait_pidfd(pidfd), 127 << 8);
	}
}

/* no pidfd wanted: the failed child is still reaped */
TEST_F(errs, failed_child_reaped_without_pidfd)
{
	struct spawnkit_template *t = self->t;
	struct spawn_template_action a;

	spawnkit_action_dup2(&a, 900, 3, 0);
	CHECK_ERR(spawnkit_spawn(t, argv_q, environ, &a, 1, 0, NULL), EBADF);
	CHECK(no_children());
}

/* the library never touches errno, on success or failure */
TEST_F(errs, errno_untouched)
{
	struct spawnkit_template *t = self->t;
	struct spawn_template_action a;

	spawnkit_action_dup2(&a, 900, 3, 0);
	{
		struct spawnkit_template *t2;
		int pidfd;
		pid_t pid;

		errno = 12345;
		CHECK_ERR(spawnkit_template_create("/nonexistent", 0, &t2), ENOENT);
		CHECK_ERR(spawnkit_template_create("relative", 0, &t2), EINVAL);
		CHECK_ERR(outcome(t, &a, 1, 0), EBADF);
		CHECK_EQ(errno, 12345);
		pid = spawnkit_spawn(t, argv_q, environ, NULL, 0, 0, &pidfd);
		CHECK_EQ(errno, 12345);
		if (pid > 0)
			wait_pidfd(pidfd);
	}
}

/* ignoring SIGCHLD (children auto-reaped) does not break reporting */
TEST_F(errs, sigchld_ignored_still_reports)
{
	struct spawnkit_template *t = self->t;
	struct spawn_template_action a;

	signal(SIGCHLD, SIG_IGN);
	spawnkit_action_dup2(&a, 900, 3, 0);
	CHECK_ERR(outcome(t, &a, 1, 0), EBADF);
	signal(SIGCHLD, SIG_DFL);
}

TEST_HARNESS_MAIN

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

int main(void)
{
	char *dir = make_tmpdir(), garbage[256];
	struct spawnkit_template *t;
	struct spawn_template_action a;
	struct spawn_template_open o;
	int before;

	/* ENOEXEC: executable bits on something that is no program */
	snprintf(garbage, sizeof(garbage), "%s/garbage", dir);
	write_file(garbage, "this is not an ELF file and has no #! line\n", 0755);
	CHECK_EQ(spawnkit_template_create(garbage, SPAWN_TEMPLATE_CREATE_CLOEXEC, &t), 0);
	before = count_open_fds();
	CHECK_ERR(outcome(t, NULL, 0, 0), ENOEXEC);
	CHECK(no_children());				/* reaped */
	CHECK_EQ(count_open_fds(), before);		/* pidfd closed */
	CHECK_EQ(outcome(t, NULL, 0, SPAWNKIT_SPAWN_EXIT_STATUS), 126 << 8);
	spawnkit_template_destroy(t);

	t = probe_template();
	/* an action's ENOENT: 127 in the proposal's terms */
	spawnkit_action_open(&a, &o, AT_FDCWD, "/nonexistent", O_RDONLY, 0, 0);
	CHECK_ERR(outcome(t, &a, 1, 0), ENOENT);
	CHECK_EQ(outcome(t, &a, 1, SPAWNKIT_SPAWN_EXIT_STATUS), 127 << 8);
	/* EACCES: 126 (root too cannot exec a file without x bits: here a
	 * script's interpreter) */
	{
		char interp[300], script[300], text[400];
		struct spawnkit_template *ts;

		snprintf(interp, sizeof(interp), "%s/interp", dir);
		snprintf(script, sizeof(script), "%s/script", dir);
		copy_file(probe_path(), interp, 0644);
		snprintf(text, sizeof(text), "#!%s\n", interp);
		write_file(script, text, 0755);
		CHECK_EQ(spawnkit_template_create(script, SPAWN_TEMPLATE_CREATE_CLOEXEC, &ts), 0);
		CHECK_ERR(outcome(ts, NULL, 0, 0), EACCES);
		CHECK_EQ(outcome(ts, NULL, 0, SPAWNKIT_SPAWN_EXIT_STATUS), 126 << 8);
		spawnkit_template_destroy(ts);
		unlink(interp);
		unlink(script);
	}
	/* ENOTDIR: 1 */
	{
		char notdir[300];

		snprintf(notdir, sizeof(notdir), "%s/notdir", dir);
		write_file(notdir, "x", 0644);
		spawnkit_action_open(&a, &o, AT_FDCWD, notdir, O_RDONLY | O_DIRECTORY, 0, 0);
		CHECK_ERR(outcome(t, &a, 1, 0), ENOTDIR);
		CHECK_EQ(outcome(t, &a, 1, SPAWNKIT_SPAWN_EXIT_STATUS), 1 << 8);
		unlink(notdir);
	}
	/* any other errno: 1 */
	spawnkit_action_dup2(&a, 900, 3, 0);
	CHECK_ERR(outcome(t, &a, 1, 0), EBADF);
	CHECK_EQ(outcome(t, &a, 1, SPAWNKIT_SPAWN_EXIT_STATUS), 1 << 8);
	/* a program that exits 127 by itself is not an error */
	{
		char *argv_127[] = { "probe", "--quiet", "--exit", "127", NULL };
		int pidfd;
		pid_t pid = spawnkit_spawn(t, argv_127, environ, NULL, 0, 0, &pidfd);

		CHECK(pid > 0);
		if (pid > 0)
			CHECK_EQ(wait_pidfd(pidfd), 127 << 8);
	}
	/* no pidfd wanted: the failed child is still reaped */
	spawnkit_action_dup2(&a, 900, 3, 0);
	CHECK_ERR(spawnkit_spawn(t, argv_q, environ, &a, 1, 0, NULL), EBADF);
	CHECK(no_children());
	/* the library never touches errno, on success or failure */
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
	/* ignoring SIGCHLD (children auto-reaped) does not break reporting */
	signal(SIGCHLD, SIG_IGN);
	spawnkit_action_dup2(&a, 900, 3, 0);
	CHECK_ERR(outcome(t, &a, 1, 0), EBADF);
	signal(SIGCHLD, SIG_DFL);
	spawnkit_template_destroy(t);

	unlink(garbage);
	rm_tmpdir(dir);
	CHECK(no_children());
	TEST_DONE();
}

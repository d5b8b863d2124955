/* SPDX-License-Identifier: MIT */
/*
 * CLOSE of a descriptor that is not open: the deliberate difference from
 * posix_spawn (issue 12, #7; spawnkit_action_dup2(3), NOTES).
 *
 * glibc's posix_spawn ignores a close action on a descriptor that is not
 * open; spawnkit, like the kernel ABI it mirrors, fails the spawn with
 * EBADF (a wrong fd number in an action is a caller's bug we report).  The
 * documented way to close a descriptor that may or may not be open is
 * CLOSE_RANGE with fd == last, which succeeds either way.  All three are
 * checked here, on the same unused descriptor number.
 */
#include <spawn.h>
#include "util.h"

static char *argv_q[] = { "probe", "--quiet", "--exit", "0", NULL };
#define UNOPENED 987

/* posix_spawn: the close of an fd that is not open is ignored */
TEST(posix_spawn_ignores_close_of_unopened_fd)
{
	posix_spawn_file_actions_t fa;
	int st = -1;
	pid_t pid;

	CHECK(fcntl(UNOPENED, F_GETFD) < 0 && errno == EBADF);	/* not open */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, UNOPENED);
	CHECK_EQ(posix_spawn(&pid, probe_path(), &fa, NULL, argv_q, environ), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	posix_spawn_file_actions_destroy(&fa);
}

/* spawnkit CLOSE: EBADF, the child already reaped (deliberate) */
TEST(close_of_unopened_fd_is_ebadf)
{
	struct spawnkit_template *t = probe_template();
	struct spawn_template_action a;
	int pidfd = -1;

	CHECK(fcntl(UNOPENED, F_GETFD) < 0 && errno == EBADF);	/* not open */
	spawnkit_action_close(&a, UNOPENED);
	CHECK_ERR(spawnkit_spawn(t, argv_q, environ, &a, 1, 0, &pidfd), EBADF);
	CHECK_EQ(pidfd, -1);
	spawnkit_template_destroy(t);
}

/* spawnkit CLOSE_RANGE(fd, fd): closes it if open, else nothing */
TEST(close_range_of_unopened_fd_is_nothing)
{
	struct spawnkit_template *t = probe_template();
	struct spawn_template_action a;
	int st = -1, pidfd = -1;
	pid_t pid;

	spawnkit_action_close_range(&a, UNOPENED, UNOPENED, 0);
	pid = spawnkit_spawn(t, argv_q, environ, &a, 1, 0, &pidfd);
	CHECK(pid > 0);
	if (pid > 0) {
		CHECK_EQ(spawnkit_pidfd_wait(pidfd, 0, &st), 1);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		close(pidfd);
	}
	spawnkit_template_destroy(t);
}

TEST_HARNESS_MAIN

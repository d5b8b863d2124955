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

int main(void)
{
	struct spawnkit_template *t = probe_template();
	char *argv[] = { "probe", "--quiet", "--exit", "0", NULL };
	struct spawn_template_action a;
	posix_spawn_file_actions_t fa;
	int fd = 987, st = -1, pidfd = -1;
	pid_t pid;

	CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);	/* not open */

	/* posix_spawn: the close is ignored, the child runs */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, fd);
	CHECK_EQ(posix_spawn(&pid, probe_path(), &fa, NULL, argv, environ), 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	posix_spawn_file_actions_destroy(&fa);

	/* spawnkit CLOSE: EBADF, the child already reaped */
	spawnkit_action_close(&a, fd);
	CHECK_ERR(spawnkit_spawn(t, argv, environ, &a, 1, 0, &pidfd), EBADF);
	CHECK_EQ(pidfd, -1);

	/* spawnkit CLOSE_RANGE(fd, fd): closes it if open, else nothing */
	spawnkit_action_close_range(&a, fd, fd, 0);
	pid = spawnkit_spawn(t, argv, environ, &a, 1, 0, &pidfd);
	CHECK(pid > 0);
	if (pid > 0) {
		CHECK_EQ(spawnkit_pidfd_wait(pidfd, 0, &st), 1);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		close(pidfd);
	}
	spawnkit_template_destroy(t);
	TEST_DONE();
}

/* SPDX-License-Identifier: MIT */
/* pid and pidfd come back together; the pidfd waits, polls and signals. */
#include <poll.h>
#include "util.h"

/* The probe's template and /dev/null; no child left after a case. */
FIXTURE(pidfd) {
	struct spawnkit_template *t;
	int null;
};

FIXTURE_SETUP(pidfd)
{
	self->t = probe_template();
	self->null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ASSERT_GE(self->null, 0);
}

FIXTURE_TEARDOWN(pidfd)
{
	close(self->null);
	spawnkit_template_destroy(self->t);
	CHECK(no_children());
}

/* waitid(P_PIDFD) sees the child's exit status */
TEST_F(pidfd, waitid_sees_exit_status)
{
	struct spawnkit_template *t = self->t;
	char *argv_exit[] = { "probe", "--quiet", "--exit", "42", NULL };
	int pidfd = -1;
	struct pollfd pfd;
	siginfo_t si;
	pid_t pid;

	pid = spawnkit_spawn(t, argv_exit, environ, NULL, 0, 0, &pidfd);
	CHECK(pid > 0 && pidfd > 2);
	CHECK_EQ(fcntl(pidfd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	CHECK_EQ(poll(&pfd, 1, 10000), 1);	/* readable once it exited */
	memset(&si, 0, sizeof(si));
	CHECK_EQ(syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL), 0);
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(si.si_code, CLD_EXITED);
	CHECK_EQ(si.si_status, 42);
	close(pidfd);
}

/* the pidfd is the child: pidfd_send_signal kills it */
TEST_F(pidfd, pidfd_send_signal_kills_child)
{
	struct spawnkit_template *t = self->t;
	char *argv_sleep[] = { "probe", "--sleep", "30", NULL };
	int pidfd = -1;
	int null = self->null;
	struct spawn_template_action a;
	struct pollfd pfd;
	siginfo_t si;
	pid_t pid;

	pfd.events = POLLIN;
	spawnkit_action_dup2(&a, null, 1, 0);
	pid = spawnkit_spawn(t, argv_sleep, environ, &a, 1, 0, &pidfd);
	CHECK(pid > 0);
	pfd.fd = pidfd;
	CHECK_EQ(poll(&pfd, 1, 0), 0);		/* still running */
	CHECK_EQ(syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0), 0);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL), 0);
	CHECK_EQ(si.si_code, CLD_KILLED);
	CHECK_EQ(si.si_status, SIGKILL);
	close(pidfd);
}

/* pid matches the pidfd's (Pid: line of its fdinfo) */
TEST_F(pidfd, pid_matches_pidfd)
{
	struct spawnkit_template *t = self->t;
	char *argv_sleep[] = { "probe", "--sleep", "30", NULL };
	int pidfd = -1;
	int null = self->null;
	struct spawn_template_action a;
	pid_t pid;

	spawnkit_action_dup2(&a, null, 1, 0);
	pid = spawnkit_spawn(t, argv_sleep, environ, &a, 1, 0, &pidfd);
	{
		char path[64], buf[512];
		int fd, n;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		snprintf(path, sizeof(path), "Pid:\t%d\n", pid);
		CHECK(strstr(buf, path) != NULL);
	}
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	CHECK_EQ(wait_pidfd(pidfd), SIGKILL);
}

/* the child's own pidfd takes the parent's lowest free number; to
 * the child's actions that number is as closed as it was before */
TEST_F(pidfd, pidfd_number_closed_to_actions)
{
	struct spawnkit_template *t = self->t;
	char *argv_exit[] = { "probe", "--quiet", "--exit", "42", NULL };
	int pidfd = -1;
	struct spawn_template_action a;

	{
		int lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);

		close(lowest);
		spawnkit_action_dup2(&a, lowest, 1, 0);
		CHECK_ERR(spawnkit_spawn(t, argv_exit, environ, &a, 1, 0, &pidfd), EBADF);
		spawnkit_action_close(&a, lowest);
		CHECK_ERR(spawnkit_spawn(t, argv_exit, environ, &a, 1, 0, &pidfd), EBADF);
	}
}

/* pidfd == NULL: the library closes it, the caller reaps by pid */
TEST_F(pidfd, null_pidfd_reaped_by_pid)
{
	struct spawnkit_template *t = self->t;
	char *argv_exit[] = { "probe", "--quiet", "--exit", "42", NULL };
	pid_t pid;

	{
		int before = count_open_fds(), status;

		pid = spawnkit_spawn(t, argv_exit, environ, NULL, 0, 0, NULL);
		CHECK(pid > 0);
		CHECK_EQ(waitpid(pid, &status, 0), pid);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42);
		CHECK_EQ(count_open_fds(), before);
	}
}

TEST_HARNESS_MAIN

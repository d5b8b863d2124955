/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_pidfd_wait: the child's real status, or -ECHILD, never an
 * invented one.  Its status is taken by another waiter first in three ways:
 * a SIGCHLD handler reaping with waitpid(-1), SIGCHLD set to SIG_IGN (the
 * kernel reaps at exit), and a plain waitpid(pid) from another part of the
 * program.  Where the kernel keeps exit statuses on pidfds (PIDFD_INFO_EXIT,
 * Linux 6.15) the status still comes back; elsewhere -ECHILD.
 */
#include <poll.h>
#include <sys/ioctl.h>
#include "util.h"
#include "pidfd_exit.h"

static volatile sig_atomic_t reaped;

static void reap_all(int sig)
{
	int saved = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		reaped++;
	errno = saved;
}

/* Does this kernel keep the exit status of a reaped child on its pidfd? */
static pid_t start(struct spawnkit_template *t, const char *code, int *pidfd)
{
	char *argv[] = { "probe", "--quiet", "--exit", (char *)code, NULL };

	return spawnkit_spawn(t, argv, environ, NULL, 0, 0, pidfd);
}

/* Wait for the child to be gone (reaped by someone else) or a zombie. */
static void let_it_end(int pidfd)
{
	struct pollfd p = { pidfd, POLLIN, 0 };

	CHECK_EQ(poll(&p, 1, 60000), 1);
}

static void stolen(struct spawnkit_template *t, int keeps, const char *how)
{
	int pidfd = -1, st = -1, ret;
	pid_t pid = start(t, "5", &pidfd);

	CHECK(pid > 0);
	let_it_end(pidfd);
	if (!strcmp(how, "waitpid"))
		CHECK_EQ(waitpid(pid, NULL, 0), pid);
	else
		for (int i = 0; i < 60000 && kill(pid, 0) == 0; i++)
			usleep(1000);	/* the handler or the kernel reaps it */
	ret = spawnkit_pidfd_wait(pidfd, 0, &st);
	if (keeps) {
		CHECK_EQ(ret, 1);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
	} else {
		CHECK_ERR(ret, ECHILD);
	}
	CHECK(!(ret == 1 && st == 0));		/* never a made-up success */
	close(pidfd);
}

/* An exit code; asked again, the same status where the kernel kept it. */
TEST(exit_status_and_asked_again)
{
	struct spawnkit_template *t = probe_template();
	int keeps = kernel_keeps_status(), pidfd = -1, st = -1;
	pid_t pid;

	pid = start(t, "5", &pidfd);
	CHECK(pid > 0);
	CHECK_EQ(spawnkit_pidfd_wait(pidfd, 0, &st), 1);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
	st = -1;
	if (keeps) {
		CHECK_EQ(spawnkit_pidfd_wait(pidfd, 0, &st), 1);
		CHECK_EQ(st, 5 << 8);
	} else {
		CHECK_ERR(spawnkit_pidfd_wait(pidfd, 0, &st), ECHILD);
	}
	close(pidfd);
	printf("kernel keeps exit status on pidfds: %s\n", keeps ? "yes" : "no");
}

/* Still running (WNOHANG), bad arguments, then a signal. */
TEST(running_bad_arguments_then_signal)
{
	struct spawnkit_template *t = probe_template();
	char *argv_sleep[] = { "probe", "--sleep", "30", NULL };
	int pidfd = -1, st = -1;
	pid_t pid;

	pid = spawnkit_spawn(t, argv_sleep, environ, NULL, 0, 0, &pidfd);
	CHECK(pid > 0);
	CHECK_EQ(spawnkit_pidfd_wait(pidfd, WNOHANG, &st), 0);
	CHECK_ERR(spawnkit_pidfd_wait(pidfd, WUNTRACED, &st), EINVAL);
	CHECK_ERR(spawnkit_pidfd_wait(pidfd, 0, NULL), EINVAL);
	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(spawnkit_pidfd_wait(pidfd, 0, &st), 1);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	close(pidfd);
	CHECK_ERR(spawnkit_pidfd_wait(1000, 0, &st), EBADF);	/* not open */
}

/* taken by a plain waitpid elsewhere in the program */
TEST(status_taken_by_waitpid)
{
	stolen(probe_template(), kernel_keeps_status(), "waitpid");
}

/* taken by a SIGCHLD handler that reaps everything */
TEST(status_taken_by_sigchld_handler)
{
	struct spawnkit_template *t = probe_template();
	int keeps = kernel_keeps_status();	/* before the handler reaps */
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = reap_all;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, &old);
	stolen(t, keeps, "handler");
	CHECK(reaped > 0);
	sigaction(SIGCHLD, &old, NULL);
}

/* SIGCHLD ignored: the kernel reaps at exit */
TEST(status_gone_with_sigchld_ignored)
{
	struct spawnkit_template *t = probe_template();
	int keeps = kernel_keeps_status();	/* before SIGCHLD is ignored */

	signal(SIGCHLD, SIG_IGN);
	stolen(t, keeps, "ignored");
	signal(SIGCHLD, SIG_DFL);
}

TEST_HARNESS_MAIN

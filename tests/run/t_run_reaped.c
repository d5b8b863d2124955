/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_run() when something else in the process may reap its child:
 * the status is the child's real one, or -1 (lost) where the kernel keeps
 * none on the pidfd (before Linux 6.15), never a made-up one, and the run
 * never hangs.  The run opens its pidfd after the spawn only while SIGCHLD
 * is at its default (src/run/late_pidfd.c); ignored, with SA_NOCLDWAIT or
 * with a handler it takes CLONE_PIDFD, so a child the kernel reaps at its
 * exit keeps its status there.  A thread that reaps every child all the
 * time is the one thief the late open cannot rule out: then the status is
 * real or lost, and the run still ends.
 */
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include "run_util.h"

#define ROUNDS 20

/* Does the kernel keep a reaped child's status on its pidfd (6.15+)? */
static int kernel_keeps_status(void)
{
	struct { uint64_t mask, cg; uint32_t ids[11]; int32_t code; } info;
	pid_t pid = fork();
	int fd, keeps;

	if (pid == 0)
		_exit(3);
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	waitpid(pid, NULL, 0);
	memset(&info, 0, sizeof(info));
	info.mask = 1ULL << 3;
	keeps = fd >= 0 && ioctl(fd, _IOWR(0xFF, 11, info), &info) == 0 &&
		(info.mask & (1ULL << 3)) && info.code == 3 << 8;
	if (fd >= 0)
		close(fd);
	return keeps;
}

/* `exit 5` ROUNDS times: 5 each time where the kernel keeps statuses
 * (lost allowed when may_lose), else 5 or lost; never anything else. */
static void runs_exit_5(int keeps, int may_lose)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int i, fds = count_open_fds();

	for (i = 0; i < ROUNDS; i++) {
		spawnkit_run_opts_init(&o);
		ASSERT_EQ(run_sh(&o, "exit 5", &r), 0);
		if (keeps && !may_lose)
			CHECK_EQ(r.status, 5 << 8);
		else
			CHECK(r.status == 5 << 8 || r.status == -1);
		spawnkit_run_result_free(&r);
	}
	CHECK_EQ(count_open_fds(), fds);
}

TEST(status_kept_with_sigchld_ignored)
{
	int keeps = kernel_keeps_status();	/* before SIGCHLD is ignored */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	sigaction(SIGCHLD, &ign, &old);
	runs_exit_5(keeps, 0);
	sigaction(SIGCHLD, &old, NULL);
}

TEST(status_kept_with_sa_nocldwait)
{
	int keeps = kernel_keeps_status();
	struct sigaction sa = { .sa_handler = SIG_DFL, .sa_flags = SA_NOCLDWAIT }, old;

	sigaction(SIGCHLD, &sa, &old);
	runs_exit_5(keeps, 0);
	sigaction(SIGCHLD, &old, NULL);
}

static void reap_all(int sig)
{
	int saved = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

TEST(status_kept_with_a_reaping_handler)
{
	int keeps = kernel_keeps_status();
	struct sigaction sa = { .sa_handler = reap_all, .sa_flags = SA_RESTART }, old;

	sigaction(SIGCHLD, &sa, &old);
	runs_exit_5(keeps, 0);
	sigaction(SIGCHLD, &old, NULL);
}

static volatile int stop_thief;

static void *thief(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 };

	(void)arg;
	while (!stop_thief)
		if (waitpid(-1, NULL, 0) < 0)
			nanosleep(&ts, NULL);
	return NULL;
}

/* SIGCHLD at its default (the late open) and a thread reaping whatever
 * child it can, blocking in waitpid(-1) meanwhile */
TEST(a_reaping_thread_gives_real_or_lost_status)
{
	int keeps = kernel_keeps_status();	/* before the thief reaps */
	pthread_t th;

	stop_thief = 0;
	ASSERT_EQ(pthread_create(&th, NULL, thief, NULL), 0);
	runs_exit_5(keeps, 1);
	stop_thief = 1;
	pthread_join(th, NULL);
}

/* The default: the status, every time, and no fd left behind */
TEST(default_sigchld_keeps_status_and_fds)
{
	runs_exit_5(1, 0);
}

TEST_HARNESS_MAIN

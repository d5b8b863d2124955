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
#include "pidfd_exit.h"
#include "run_util.h"

#define ROUNDS 20

/* `exit 5` ROUNDS times: each status 5 or lost (-1), never anything
 * else, and 5 at least `kept` times; no fd left behind. */
static void runs_exit_5(int kept)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int i, n = 0, fds = count_open_fds();

	for (i = 0; i < ROUNDS; i++) {
		spawnkit_run_opts_init(&o);
		ASSERT_EQ(run_sh(&o, "exit 5", &r), 0);
		CHECK(r.status == 5 << 8 || r.status == -1);
		n += r.status == 5 << 8;
		spawnkit_run_result_free(&r);
	}
	CHECK(n >= kept);
	CHECK_EQ(count_open_fds(), fds);
}

/*
 * `exit 5` runs with SIGCHLD set to sa, then as it was.  Where the kernel
 * keeps statuses, every run gets its status: after a handler's waitpid(),
 * and after the kernel's own reaping at exit (SIG_IGN, SA_NOCLDWAIT),
 * which wakes the pidfd a moment before it stores the status there (the
 * library asks again for a short while; without that, 1 run in ~400 here
 * lost its status).
 */
static void runs_with_sigchld(const struct sigaction *sa)
{
	int keeps = kernel_keeps_status();	/* before anything reaps */
	struct sigaction old;

	sigaction(SIGCHLD, sa, &old);
	runs_exit_5(keeps ? ROUNDS : 0);
	sigaction(SIGCHLD, &old, NULL);
}

TEST(status_kept_with_sigchld_ignored)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	runs_with_sigchld(&sa);
}

TEST(status_kept_with_sa_nocldwait)
{
	struct sigaction sa = { .sa_handler = SIG_DFL, .sa_flags = SA_NOCLDWAIT };

	runs_with_sigchld(&sa);
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
	struct sigaction sa = { .sa_handler = reap_all, .sa_flags = SA_RESTART };

	runs_with_sigchld(&sa);
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
	pthread_t th;

	stop_thief = 0;
	ASSERT_EQ(pthread_create(&th, NULL, thief, NULL), 0);
	runs_exit_5(0);
	stop_thief = 1;
	pthread_join(th, NULL);
}

/* The default: the status, every time, and no fd left behind */
TEST(default_sigchld_keeps_status_and_fds)
{
	runs_exit_5(ROUNDS);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * Many threads spawning from one template at once: every spawn succeeds,
 * every child exits 0, and afterwards no fd leaked and no zombie is left.
 * SPAWNKIT_TEST_SPAWNS (default 500) spawns per thread, 16 threads.
 */
#include <pthread.h>
#include "util.h"

#define THREADS 16

static struct spawnkit_template *t;
static int per_thread;

static void *worker(void *arg)
{
	char *argv_q[] = { "probe", "--quiet", "--exit", "7", NULL };
	struct spawn_template_action a[2];
	long bad = 0;
	int i, null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	/* per-spawn actions with per-thread fds: nothing is shared */
	spawnkit_action_dup2(&a[0], null, 1, 0);
	spawnkit_action_dup2(&a[1], null, 2, 0);
	for (i = 0; i < per_thread; i++) {
		int pidfd = -1;
		pid_t pid = spawnkit_spawn(t, argv_q, environ, a, 2, 0, &pidfd);

		if (pid <= 0 || wait_pidfd(pidfd) != 7 << 8)
			bad++;
	}
	close(null);
	return (void *)bad;
}

/* Every spawn succeeds, every child exits 7; no fd leaked, no zombie. */
TEST(many_threads_spawn_from_one_template)
{
	pthread_t th[THREADS];
	const char *env = getenv("SPAWNKIT_TEST_SPAWNS");
	long bad = 0;
	int i, before;

	per_thread = env ? atoi(env) : 500;
	t = probe_template();
	before = count_open_fds();
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, worker, NULL), 0);
	for (i = 0; i < THREADS; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		bad += (long)ret;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(count_open_fds(), before);
	CHECK(no_children());
	spawnkit_template_destroy(t);
	printf("%d threads x %d spawns\n", THREADS, per_thread);
}

TEST_HARNESS_MAIN

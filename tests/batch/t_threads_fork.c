/* SPDX-License-Identifier: MIT */
/* Batches from several threads at once (the uring backend keeps one ring
 * per thread), threads that exit (their rings go with them), and a forked
 * child that batches after its parent did (it must not share the ring). */
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include "bt.h"

#define THREADS 4
#define ROUNDS 300

static int bad[THREADS];

static void *worker(void *arg)
{
	long id = (long)arg;
	struct batch_entry e[16];
	int64_t res[16];
	char buf[16][8];

	for (int r = 0; r < ROUNDS; r++) {
		unsigned int n = 1 + (unsigned int)(r + id) % 16;

		for (unsigned int i = 0; i < n; i++) {
			e[i] = BATCH_CALL3(SYS_read, bt_zero_fd, buf[i], 1 + i % 8);
			spawnkit_batch_end_on_error(&e[i]);
		}
		if (spawnkit_batch(e, res, n, 0) != (long)n - 1)
			bad[id]++;
		for (unsigned int i = 0; i < n; i++)
			if (res[i] != 1 + i % 8)
				bad[id]++;
	}
	return NULL;
}

TEST(threads_batch_at_once)
{
	pthread_t t[THREADS];

	bt_init();
	for (int round = 0; round < 3; round++) {
		for (long i = 0; i < THREADS; i++)
			CHECK_EQ(pthread_create(&t[i], NULL, worker, (void *)i), 0);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
	}
	for (int i = 0; i < THREADS; i++)
		CHECK_EQ(bad[i], 0);
}

/* Parent batches, child batches, parent batches again. */
TEST(parent_and_child_batch_after_fork)
{
	pthread_t t[THREADS];
	struct batch_entry e[2];
	int64_t res[2];
	int st = 0;
	pid_t pid;

	bt_init();
	/* threads have made and dropped their rings first */
	for (long i = 0; i < THREADS; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	e[0] = bt_positive();
	e[1] = bt_zero();
	CHECK_EQ(spawnkit_batch(e, res, 2, 0), 1);
	pid = fork();
	if (pid == 0) {
		int ok = 1;

		for (int r = 0; r < 50; r++)
			ok &= spawnkit_batch(e, res, 2, 0) == 1 && res[0] == 8 && res[1] == 0;
		_exit(ok ? 0 : 1);
	}
	for (int r = 0; r < 50; r++) {
		CHECK_EQ(spawnkit_batch(e, res, 2, 0), 1);
		CHECK_EQ(res[0], 8);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(spawnkit_batch(e, res, 2, 0), 1);
	CHECK_EQ(res[1], 0);
}

TEST_HARNESS_MAIN

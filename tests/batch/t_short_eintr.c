/* SPDX-License-Identifier: MIT */
/*
 * Where io_uring and the batch loop differ underneath, results must not:
 * a short read (a positive or zero result below the length asked) goes on
 * to the next entry (io_uring breaks a link there), and a sub-call
 * interrupted by a signal without SA_RESTART stores -EINTR and the batch
 * goes on along ON_ERROR (io_uring ops are not interrupted by signals).
 */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include "bt.h"
#include "scratch.h"

#define CANCELED (-(int64_t)ECANCELED)

static void on_alarm(int sig)
{
	(void)sig;
}

static void arm(void)
{
	struct itimerval it = { .it_value = { .tv_usec = 150000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/* Short reads from a pipe in a chain: 3 of 8 bytes, then EOF. */
TEST(short_pipe_reads_go_on)
{
	char buf[4][16];
	struct batch_entry e[8];
	int64_t res[8];
	int p[2];
	long ret;

	bt_init();
	CHECK_EQ(pipe(p), 0);
	CHECK_EQ(write(p[1], "abc", 3), 3);
	close(p[1]);
	e[0] = BATCH_CALL3(SYS_read, p[0], buf[0], 8);
	e[1] = bt_zero();
	e[2] = BATCH_CALL3(SYS_read, p[0], buf[1], 8);
	e[3] = bt_positive();
	for (int i = 0; i < 4; i++)
		spawnkit_batch_end_on_error(&e[i]);
	ret = bt_run(e, res, 4, 1);
	CHECK_EQ(ret, 3);
	CHECK_EQ(res[0], 3);
	CHECK_EQ(res[1], 0);
	CHECK_EQ(res[2], 0);	/* EOF */
	CHECK_EQ(res[3], 8);
	CHECK(memcmp(buf[0], "abc", 3) == 0);
	close(p[0]);
}

/* Short preads of a 5-byte file, several in a row, soft and hard
 * links mixed. */
TEST(short_preads_go_on)
{
	char buf[4][16];
	struct batch_entry e[8];
	int64_t res[8];
	int fd;
	long ret;

	bt_init();
	tree_create("spawnkit-short");
	put_text("five", "12345");
	fd = open(at("five"), O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0);
	e[0] = BATCH_CALL4(SYS_pread64, fd, buf[0], 8, 0);
	e[1] = BATCH_CALL4(SYS_pread64, fd, buf[1], 8, 2);
	e[2] = BATCH_CALL4(SYS_pread64, fd, buf[2], 8, 10);
	e[3] = BATCH_CALL4(SYS_pread64, fd, buf[3], 5, 0);	/* not short */
	e[4] = BATCH_CALL4(SYS_pwrite64, fd, "xy", 2, 5);
	e[5] = BATCH_CALL4(SYS_pread64, fd, buf[0], 16, 0);
	e[6] = bt_positive();
	spawnkit_batch_end_on_error(&e[0]);
	spawnkit_batch_end_on_error(&e[2]);
	spawnkit_batch_end_on_error(&e[5]);
	ret = bt_run(e, res, 7, 1);
	CHECK_EQ(ret, 6);
	CHECK_EQ(res[0], 5);
	CHECK_EQ(res[1], 3);
	CHECK_EQ(res[2], 0);
	CHECK_EQ(res[3], 5);
	CHECK_EQ(res[4], 2);
	CHECK_EQ(res[5], 7);
	CHECK_EQ(res[6], 8);
	CHECK(memcmp(buf[0], "12345xy", 7) == 0);
	close(fd);
	tree_remove();
}

/* A read blocked on an empty pipe, interrupted by SIGALRM (no
 * SA_RESTART): -EINTR; a chain ends there, "next" goes on. */
TEST(eintr_ends_chain_or_goes_on_and_takes_nothing)
{
	char buf[4][16];
	struct sigaction sa;
	struct batch_entry e[8];
	int64_t res[8];
	int p[2];
	long ret;

	bt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	CHECK_EQ(pipe(p), 0);
	e[0] = BATCH_CALL3(SYS_read, p[0], buf[0], 8);
	e[1] = bt_zero();
	e[2] = bt_positive();
	spawnkit_batch_end_on_error(&e[0]);
	arm();
	ret = bt_run(e, res, 3, 1);
	CHECK_EQ(ret, 0);
	CHECK_EQ(res[0], -EINTR);
	CHECK_EQ(res[1], CANCELED);
	CHECK_EQ(res[2], CANCELED);

	e[0] = BATCH_CALL3(SYS_read, p[0], buf[0], 8);	/* error: next */
	e[1] = bt_zero();
	e[2] = bt_positive();
	arm();
	ret = bt_run(e, res, 3, 1);
	CHECK_EQ(ret, 2);
	CHECK_EQ(res[0], -EINTR);
	CHECK_EQ(res[1], 0);
	CHECK_EQ(res[2], 8);

	/* The pipe is still usable, and the interrupted read took nothing. */
	CHECK_EQ(write(p[1], "z", 1), 1);
	e[0] = BATCH_CALL3(SYS_read, p[0], buf[0], 8);
	ret = bt_run(e, res, 1, 1);
	CHECK_EQ(ret, 0);
	CHECK_EQ(res[0], 1);
	close(p[0]);
	close(p[1]);
}

TEST_HARNESS_MAIN

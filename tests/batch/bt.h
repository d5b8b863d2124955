/* SPDX-License-Identifier: MIT */
/*
 * bt.h - what the batch tests share: the backend under test and programs
 * built from calls every backend (io_uring included) can run.
 *
 * The backend is the one SPAWNKIT_BATCH_BACKEND forces (run-tests.sh runs
 * each test once per backend); one not available here is a skip.  A
 * program io_uring cannot express is run with expect_uring = 0: on the
 * uring backend it must give -EOPNOTSUPP (checked) and leave the results
 * untouched, on the others it runs.
 */
#ifndef SPAWNKIT_TEST_BT_H
#define SPAWNKIT_TEST_BT_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <spawnkit/batch.h>
#include "harness.h"

static int bt_backend;
static int bt_zero_fd, bt_null_fd;
static char bt_buf[64];

static inline void bt_init(void)
{
	bt_backend = spawnkit_batch_backend();
	if (bt_backend == -ENOSYS)
		TEST_SKIP("the forced batch backend is not available here");
	if (bt_backend < 0) {
		printf("bad SPAWNKIT_BATCH_BACKEND: %d\n", bt_backend);
		exit(1);
	}
	bt_zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	bt_null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (bt_zero_fd < 0 || bt_null_fd < 0) {
		printf("cannot open /dev/zero or /dev/null\n");
		exit(1);
	}
}

static inline int bt_uring(void)
{
	return bt_backend == SPAWNKIT_BATCH_URING;
}

/* Calls with a known result kind that io_uring can run too. */
static inline struct batch_entry bt_positive(void)	/* returns 8 */
{
	return BATCH_CALL3(SYS_read, bt_zero_fd, bt_buf, 8);
}
static inline struct batch_entry bt_zero(void)		/* returns 0 */
{
	return BATCH_CALL3(SYS_write, bt_null_fd, bt_buf, 0);
}
static inline struct batch_entry bt_error(void)		/* returns -EBADF */
{
	return BATCH_CALL1(SYS_close, -1);
}

/* Fill results with a marker so untouched slots are visible. */
#define BT_MARK 0x5a5a5a5a5a5a5a5aLL
static inline void bt_mark(int64_t *res, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		res[i] = BT_MARK;
}

/*
 * Run a program on the backend under test.  Returns the batch's return,
 * or -EOPNOTSUPP after checking it when the backend is uring and the
 * program is not one io_uring can express (expect_uring == 0).
 */
static inline long bt_run(const struct batch_entry *e, int64_t *res, unsigned int n,
		   int expect_uring)
{
	long ret;

	bt_mark(res, n);
	ret = spawnkit_batch(e, res, n, 0);
	if (bt_uring() && !expect_uring) {
		CHECK_ERR(ret, EOPNOTSUPP);
		for (unsigned int i = 0; i < n; i++)
			CHECK_EQ(res[i], BT_MARK);
		return -EOPNOTSUPP;
	}
	return ret;
}

#endif

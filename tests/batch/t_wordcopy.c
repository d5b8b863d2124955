/* SPDX-License-Identifier: MIT */
/* Word copy: the fd-of-openat chain (openat -> statx/fstat -> read ->
 * close), copies naming the working copies of entries and results, jumps
 * taken after a copy by its result's kind, and its errors: straddling an
 * array (EINVAL), bad addresses (EFAULT), args[2..5] != 0 (EINVAL). */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "bt.h"
#include "scratch.h"

#define CANCELED (-(int64_t)ECANCELED)

static const char content[] = "word copy passes the fd along\n";

static void chain(const char *path, int use_fstat)
{
	struct batch_entry e[8], copy[8];
	int64_t res[8];
	struct statx stx;
	struct stat st;
	char buf[128];
	long ret;

	memset(buf, 0, sizeof(buf));
	memset(&stx, 0, sizeof(stx));
	e[0] = BATCH_CALL4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	spawnkit_batch_end_on_error(&e[0]);
	for (int k = 0; k < 3; k++)
		spawnkit_batch_end_on_error(spawnkit_batch_pass_result(&e[1 + k], res, 0,
								      e, 4 + k, 0));
	if (use_fstat)
		e[4] = BATCH_CALL2(SYS_fstat, -1, &st);
	else
		e[4] = BATCH_CALL5(SYS_statx, -1, "", AT_EMPTY_PATH, STATX_SIZE, &stx);
	spawnkit_batch_end_on_error(&e[4]);
	e[5] = BATCH_CALL3(SYS_read, -1, buf, sizeof(buf));
	e[6] = BATCH_CALL1(SYS_close, -1);
	memcpy(copy, e, sizeof(e));
	ret = bt_run(e, res, 7, !use_fstat);
	CHECK(memcmp(copy, e, sizeof(e)) == 0);	/* the caller's array as it was */
	if (ret == -EOPNOTSUPP)
		return;
	CHECK_EQ(ret, 6);
	CHECK(res[0] >= 3);
	CHECK_EQ(res[1], 0);
	CHECK_EQ(res[2], 0);
	CHECK_EQ(res[3], 0);
	CHECK_EQ(res[4], 0);
	CHECK_EQ(use_fstat ? (long long)st.st_size : (long long)stx.stx_size,
		 sizeof(content) - 1);
	CHECK_EQ(res[5], sizeof(content) - 1);
	CHECK(strcmp(buf, content) == 0);
	CHECK_EQ(res[6], 0);
	CHECK(fcntl((int)res[0], F_GETFD) == -1 && errno == EBADF);	/* closed */

	/* A missing file: the chain ends at openat; nothing else ran. */
	e[0].args[1] = BATCH_ARG("/nonexistent/spawnkit");
	ret = bt_run(e, res, 7, !use_fstat);
	if (ret == -EOPNOTSUPP)
		return;
	CHECK_EQ(ret, 0);
	CHECK_EQ(res[0], -ENOENT);
	for (int k = 1; k < 7; k++)
		CHECK_EQ(res[k], CANCELED);
}

/* A file holding content, in a scratch directory. */
FIXTURE(wc) {
	char path[sizeof(top) + 8];
};

FIXTURE_SETUP(wc)
{
	bt_init();
	tree_create("spawnkit-wc");
	put_text("f", content);
	snprintf(self->path, sizeof(self->path), "%s/f", top);
}

FIXTURE_TEARDOWN(wc)
{
	tree_remove();
}

/* openat, its fd passed on by word copies, statx, read, close */
TEST_F(wc, fd_chain_with_statx)
{
	const char *path = self->path;

	chain(path, 0);
}

TEST_F(wc, fd_chain_with_fstat)
{
	const char *path = self->path;

	chain(path, 1);
}

/* A copy out of the arrays, and one into a later entry's nr: entry 3
 * starts as an unknown number and becomes getppid. */
TEST_F(wc, copy_out_of_results_and_into_later_nr)
{
	struct batch_entry e[6];
	int64_t res[6];
	int64_t word;
	int64_t dst;
	long ret;

	word = SYS_getppid;
	dst = 0;
	e[0] = BATCH_CALL0(SYS_getpid);
	e[1] = BATCH_WORDCOPY(&res[0], &dst);
	e[2] = BATCH_WORDCOPY(&word, &e[3].nr);
	e[3] = BATCH_CALL0(999);
	e[4] = BATCH_WORDCOPY(&e[3].nr, &res[5]);	/* reads the working copy */
	e[5] = BATCH_CALL0(SYS_getpid);
	ret = bt_run(e, res, 6, 0);
	if (ret != -EOPNOTSUPP) {
		CHECK_EQ(ret, 5);
		CHECK_EQ(res[0], getpid());
		CHECK_EQ(dst, getpid());
		CHECK_EQ(res[3], getppid());
		CHECK_EQ(res[4], 0);
		CHECK_EQ(res[5], getpid());	/* the copy was overwritten by 5's run */
		CHECK_EQ(e[3].nr, 999);		/* caller's entries untouched */
	}
}

/* A copy into a later entry's result slot that then runs: its own
 * result wins; into an output word: visible after the call. */
TEST_F(wc, copy_into_later_result_slot)
{
	struct batch_entry e[6];
	int64_t res[6];
	long ret;

	e[0] = bt_positive();
	e[1] = BATCH_WORDCOPY(&res[0], &res[2]);
	e[2] = bt_zero();
	ret = bt_run(e, res, 3, 1);
	CHECK_EQ(ret, 2);
	CHECK_EQ(res[2], 0);
}

/* Jumps after a copy follow its result: 0 takes ON_ZERO... */
TEST_F(wc, jumps_after_copy_follow_its_result)
{
	struct batch_entry e[6];
	int64_t res[6];
	int64_t word;
	int64_t dst;
	long ret;

	e[0] = BATCH_WORDCOPY(&word, &dst);
	spawnkit_batch_jump(&e[0], BATCH_ON_ZERO, 1);
	spawnkit_batch_jump(&e[0], BATCH_ON_ERROR, BATCH_JUMP_END);
	e[1] = bt_positive();
	e[2] = bt_zero();
	ret = bt_run(e, res, 3, 0);
	if (ret != -EOPNOTSUPP) {
		CHECK_EQ(ret, 2);
		CHECK_EQ(res[0], 0);
		CHECK_EQ(res[1], CANCELED);
		CHECK_EQ(res[2], 0);
	}
	/* ...and an error takes ON_ERROR. */
	e[0] = BATCH_WORDCOPY(NULL, &dst);
	spawnkit_batch_jump(&e[0], BATCH_ON_ERROR, 1);
	spawnkit_batch_jump(&e[0], BATCH_ON_ZERO, BATCH_JUMP_END);
	ret = bt_run(e, res, 3, 0);
	if (ret != -EOPNOTSUPP) {
		CHECK_EQ(ret, 2);
		CHECK_EQ(res[0], -EFAULT);
		CHECK_EQ(res[1], CANCELED);
		CHECK_EQ(res[2], 0);
	}
}

/* Errors.  Each program: the copy, then a positive call (the copy's
 * error jump is "next", so the batch goes on). */
TEST_F(wc, copy_errors)
{
	long page = sysconf(_SC_PAGESIZE);
	struct batch_entry e[6];
	int64_t res[6];
	int64_t word;
	int64_t dst;
	char *map;
	long ret;

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	CHECK_EQ(mprotect(map + page, page, PROT_NONE), 0);
#define COPY_ERR(src, dst_, a2, want) do {				\
		e[0] = BATCH_WORDCOPY((src), (dst_));			\
		e[0].args[2] = (a2);					\
		e[1] = bt_positive();					\
		ret = bt_run(e, res, 2, 1);				\
		CHECK_EQ(ret, 1);					\
		CHECK_EQ(res[0], -(want));				\
		CHECK_EQ(res[1], 8);					\
	} while (0)
	dst = 5;
	word = 6;
	COPY_ERR(&word, &dst, 1, EINVAL);		/* args[2] != 0 */
	e[0].args[2] = 0;
	e[0].args[5] = 1;
	ret = bt_run(e, res, 2, 1);
	CHECK_EQ(res[0], -EINVAL);
	COPY_ERR((uintptr_t)e - 4, &dst, 0, EINVAL);	/* straddles entries' start */
	COPY_ERR(&word, (char *)&e[2] - 4, 0, EINVAL);	/* straddles entries' end */
	COPY_ERR(&word, (char *)&res[2] - 1, 0, EINVAL);	/* straddles results' end */
	COPY_ERR((uintptr_t)res - 7, &dst, 0, EINVAL);	/* straddles results' start */
	COPY_ERR(NULL, &dst, 0, EFAULT);
	COPY_ERR(map + page, &dst, 0, EFAULT);		/* PROT_NONE source */
	COPY_ERR(map + page - 4, &dst, 0, EFAULT);	/* half on PROT_NONE */
	COPY_ERR(&word, map + page, 0, EFAULT);
	COPY_ERR(&word, (void *)(uintptr_t)0xfffffffffffffff9ULL, 0, EFAULT); /* wraps */
	CHECK_EQ(dst, 5);
	CHECK_EQ(mprotect(map, page, PROT_READ), 0);
	COPY_ERR(&word, map, 0, EFAULT);		/* read-only destination */
	CHECK_EQ(*(int64_t *)map, 0);
}

/* Copies inside one array at odd offsets are fine. */
TEST_F(wc, copies_inside_one_array_at_odd_offsets)
{
	struct batch_entry e[6];
	int64_t res[6];
	int64_t word;
	int64_t dst;
	long ret;

	word = 0x1122334455667788LL;
	e[0] = BATCH_WORDCOPY(&word, (char *)&e[1].args[2] + 3);
	e[1] = BATCH_WORDCOPY((char *)&e[1].args[2] + 3, &dst);
	/* e[1].args[2..5] would not be 0 after the first copy: -EINVAL */
	ret = bt_run(e, res, 2, 0);
	if (ret != -EOPNOTSUPP) {
		CHECK_EQ(res[0], 0);
		CHECK_EQ(res[1], -EINVAL);
		CHECK_EQ(e[1].args[2], 0);	/* only the working copy changed */
	}
}

TEST_HARNESS_MAIN

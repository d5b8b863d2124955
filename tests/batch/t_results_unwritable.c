/* SPDX-License-Identifier: MIT */
/*
 * A batch whose own mprotect or munmap makes its results array unwritable
 * returns -EFAULT, as the kernel does (it copies the results back once, at
 * the end): it never crashes the caller.  A batch that takes the write
 * permission away and gives it back ends normally with every result.
 *
 * io_uring cannot express mprotect/munmap: on that backend these programs
 * give -EOPNOTSUPP with the results untouched (bt_run checks it).
 */
#include <sys/mman.h>
#include "bt.h"

#define CANCELED (-(int64_t)ECANCELED)
#define PAGE 4096UL

static int64_t *page_results(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("mmap failed\n");
		exit(1);
	}
	return p;
}

/* The results array is the last entry's target: made read-only mid-batch. */
static void mprotect_readonly(void)
{
	int64_t *res = page_results();
	struct batch_entry e[3] = {
		BATCH_CALL0(SYS_getpid),
		BATCH_CALL3(SYS_mprotect, res, PAGE, PROT_READ),
		BATCH_CALL0(SYS_getppid),
	};
	long ret = bt_run(e, res, 3, 0);

	if (ret != -EOPNOTSUPP)
		CHECK_ERR(ret, EFAULT);
	munmap(res, PAGE);
}

/* The results array unmapped by the batch, as its only entry. */
static void munmap_results(void)
{
	int64_t *res = page_results();
	struct batch_entry e[1] = { BATCH_CALL2(SYS_munmap, res, PAGE) };
	long ret;

	if (bt_uring()) {
		CHECK_EQ(bt_run(e, res, 1, 0), -EOPNOTSUPP);
		munmap(res, PAGE);
		return;
	}
	/* not bt_run: its check of untouched slots would read the hole */
	ret = spawnkit_batch(e, res, 1, 0);
	CHECK_ERR(ret, EFAULT);
}

/* Moved away by mremap, or turned into a guard page by madvise (Linux
 * 6.13's MADV_GUARD_INSTALL; older kernels say EINVAL and change nothing,
 * one without CONFIG_ADVISE_SYSCALLS, as the test guest's, ENOSYS). */
static void mremap_and_guard(void)
{
	int64_t *res = page_results();
	void *dst = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct batch_entry e[2] = {
		BATCH_CALL5(SYS_mremap, res, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, dst),
		BATCH_CALL0(SYS_getpid),
	};
	long ret;

	if (bt_uring()) {
		CHECK_EQ(bt_run(e, res, 2, 0), -EOPNOTSUPP);
	} else {
		CHECK_ERR(spawnkit_batch(e, res, 2, 0), EFAULT);
		res = dst;	/* the page lives here now */
	}
	munmap(res, PAGE);

	res = page_results();
	e[0] = BATCH_CALL3(SYS_madvise, res, PAGE, 102 /* MADV_GUARD_INSTALL */);
	ret = bt_run(e, res, 2, 0);
	if (ret != -EOPNOTSUPP) {
		if (ret < 0)
			CHECK_ERR(ret, EFAULT);		/* the guard was installed */
		else				/* a kernel without guards */
			CHECK(res[0] == -EINVAL || res[0] == -ENOSYS);
	}
	munmap(res, PAGE);
}

/* A results array of many pages, one page of it made PROT_NONE. */
static void one_page_of_many(void)
{
	unsigned int n = 1024, i;
	size_t len = n * sizeof(int64_t);	/* two pages */
	int64_t *res = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct batch_entry *e = calloc(n, sizeof(*e));
	long ret;

	if (res == MAP_FAILED || !e) {
		printf("no memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		e[i] = BATCH_CALL0(SYS_getpid);
	e[7] = BATCH_CALL3(SYS_mprotect, (char *)res + PAGE, PAGE, PROT_NONE);
	ret = bt_run(e, res, n, 0);
	if (ret != -EOPNOTSUPP)
		CHECK_ERR(ret, EFAULT);
	munmap(res, len);
	free(e);
}

/* Read-only, then writable again: the batch ends with every result. */
static void readonly_then_back(void)
{
	int64_t *res = page_results();
	struct batch_entry e[3] = {
		BATCH_CALL3(SYS_mprotect, res, PAGE, PROT_READ),
		BATCH_CALL0(SYS_getpid),
		BATCH_CALL3(SYS_mprotect, res, PAGE, PROT_READ | PROT_WRITE),
	};
	long ret = bt_run(e, res, 3, 0);

	if (ret != -EOPNOTSUPP) {
		CHECK_EQ(ret, 2);
		CHECK_EQ(res[0], 0);
		CHECK_EQ(res[1], getpid());
		CHECK_EQ(res[2], 0);
	}
	munmap(res, PAGE);
}

/* A word copy into the slot of an entry that then never runs: the slot
 * reads -ECANCELED afterwards, as on the kernel (which resets every slot
 * not run before its one copy back). */
static void copy_into_skipped_slot(void)
{
	int64_t res[3];
	struct batch_entry e[3] = {
		bt_positive(),
		BATCH_WORDCOPY(&res[0], &res[2]),
		bt_zero(),
	};
	long ret;

	spawnkit_batch_jump(&e[1], BATCH_ON_ZERO, BATCH_JUMP_END);
	ret = bt_run(e, res, 3, 0);
	if (ret != -EOPNOTSUPP) {
		CHECK_EQ(ret, 1);
		CHECK_EQ(res[0], 8);
		CHECK_EQ(res[1], 0);
		CHECK_EQ(res[2], CANCELED);
	}
}

/* Read-only from the start: EFAULT before anything runs.  On io_uring too,
 * for a program it cannot express: the call as a whole is checked first
 * (EFAULT), what the backend can run after (EOPNOTSUPP). */
static void readonly_before(void)
{
	int64_t *res = page_results();
	struct batch_entry e[1] = { BATCH_CALL0(SYS_getpid) };

	mprotect(res, PAGE, PROT_READ);
	CHECK_ERR(spawnkit_batch(e, res, 1, 0), EFAULT);
	CHECK_ERR(spawnkit_batch(e, NULL, 1, 0), EFAULT);
	munmap(res, PAGE);
}

int main(void)
{
	bt_init();
	mprotect_readonly();
	munmap_results();
	mremap_and_guard();
	one_page_of_many();
	readonly_then_back();
	readonly_before();
	copy_into_skipped_slot();
	TEST_DONE();
}

/* SPDX-License-Identifier: MIT */
/* Errors of the call as a whole: flags, empty batch, maximum length and one
 * over it, bad entries/results pointers (EFAULT, never a crash), results
 * not touched when the call fails before running anything. */
#include <string.h>
#include <sys/mman.h>
#include "bt.h"

/* Two good entries (8, then 0) and marked results. */
FIXTURE(two) {
	struct batch_entry e[2];
	int64_t res[4];
};

FIXTURE_SETUP(two)
{
	bt_init();
	self->e[0] = bt_positive();
	self->e[1] = bt_zero();
	bt_mark(self->res, 4);
}

FIXTURE_TEARDOWN(two)
{
}

/* flags != 0: EINVAL, results untouched. */
TEST_F(two, flags_are_einval_results_untouched)
{
	CHECK_ERR(spawnkit_batch(self->e, self->res, 2, 1), EINVAL);
	CHECK_ERR(spawnkit_batch(self->e, self->res, 2, 0x80000000u), EINVAL);
	CHECK_EQ(self->res[0], BT_MARK);
}

/* Empty batch: EINVAL (flags are checked first: EINVAL either way). */
TEST_F(two, empty_batch_is_einval)
{
	CHECK_ERR(spawnkit_batch(self->e, self->res, 0, 0), EINVAL);
	CHECK_ERR(spawnkit_batch(NULL, NULL, 0, 0), EINVAL);
	CHECK_EQ(self->res[0], BT_MARK);
}

/* One entry more than the maximum (8 each) and marked results, one more
 * than that. */
static struct batch_entry big[BATCH_MAX_ENTRIES + 1];
static int64_t big_res[BATCH_MAX_ENTRIES + 2];

FIXTURE(full) {
	int unused;
};

FIXTURE_SETUP(full)
{
	bt_init();
	for (unsigned int i = 0; i < BATCH_MAX_ENTRIES + 1; i++)
		big[i] = bt_positive();
	bt_mark(big_res, BATCH_MAX_ENTRIES + 2);
}

FIXTURE_TEARDOWN(full)
{
}

/* Maximum length: every entry runs. */
TEST_F(full, maximum_length_runs_every_entry)
{
	unsigned int i;

	CHECK_EQ(spawnkit_batch(big, big_res, BATCH_MAX_ENTRIES, 0), BATCH_MAX_ENTRIES - 1);
	for (i = 0; i < BATCH_MAX_ENTRIES; i++)
		if (big_res[i] != 8)
			break;
	CHECK_EQ(i, BATCH_MAX_ENTRIES);
	CHECK_EQ(big_res[BATCH_MAX_ENTRIES], BT_MARK);
}

/* One over: E2BIG, nothing run or written. */
TEST_F(full, one_over_maximum_is_e2big)
{
	CHECK_ERR(spawnkit_batch(big, big_res, BATCH_MAX_ENTRIES + 1, 0), E2BIG);
	CHECK_ERR(spawnkit_batch(big, big_res, 0xffffffffu, 0), E2BIG);
	CHECK_EQ(big_res[0], BT_MARK);
}

/* Bad entries: NULL, a PROT_NONE page, an array whose tail runs onto
 * a PROT_NONE page.  Results untouched. */
TEST(bad_entries_are_efault)
{
	static int64_t res[BATCH_MAX_ENTRIES + 2];
	long page = sysconf(_SC_PAGESIZE);
	char *map;

	bt_init();
	map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	CHECK_EQ(mprotect(map + page, page, PROT_NONE), 0);
	bt_mark(res, 4);
	CHECK_ERR(spawnkit_batch(NULL, res, 1, 0), EFAULT);
	CHECK_ERR(spawnkit_batch((struct batch_entry *)(map + page), res, 1, 0), EFAULT);
	{
		struct batch_entry *tail = (struct batch_entry *)(map + page) - 1;

		*tail = bt_positive();
		CHECK_ERR(spawnkit_batch(tail, res, 2, 0), EFAULT);
		/* The same array with one entry is fine. */
		CHECK_EQ(spawnkit_batch(tail, res, 1, 0), 0);
		CHECK_EQ(res[0], 8);
	}
	bt_mark(res, 4);
	CHECK_ERR(spawnkit_batch((struct batch_entry *)(uintptr_t)0xffffffffffff0000ULL, res, 1, 0),
		  EFAULT);
	CHECK_EQ(res[0], BT_MARK);
}

/* Bad results: NULL, a PROT_NONE page, a read-only page, an array
 * running onto a PROT_NONE page.  No crash. */
TEST(bad_results_are_efault)
{
	struct batch_entry e[2];
	long page = sysconf(_SC_PAGESIZE);
	char *map;

	bt_init();
	e[0] = bt_positive();
	e[1] = bt_zero();
	map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(mprotect(map + page, page, PROT_NONE), 0);
	CHECK_ERR(spawnkit_batch(e, NULL, 2, 0), EFAULT);
	CHECK_ERR(spawnkit_batch(e, (int64_t *)(map + page), 2, 0), EFAULT);
	CHECK_ERR(spawnkit_batch(e, (int64_t *)(map + page) - 1, 2, 0), EFAULT);
	CHECK_EQ(mprotect(map, page, PROT_READ), 0);
	CHECK_ERR(spawnkit_batch(e, (int64_t *)map, 2, 0), EFAULT);
	CHECK_EQ(*(int64_t *)map, 0);	/* a read-only page stays as it was */
	/* Results on the last bytes of a writable page are fine. */
	CHECK_EQ(mprotect(map + 2 * page, page, PROT_READ | PROT_WRITE), 0);
	CHECK_EQ(spawnkit_batch(e, (int64_t *)(map + 3 * page) - 2, 2, 0), 1);
	CHECK_EQ(((int64_t *)(map + 3 * page))[-2], 8);
	munmap(map, 3 * page);
}

/* The library's other answers. */
TEST_F(two, backend_names_and_availability)
{
	struct batch_entry *e = self->e;
	int64_t *res = self->res;

	CHECK(strcmp(spawnkit_batch_backend_name(SPAWNKIT_BATCH_EMULATOR), "emulator") == 0);
	CHECK(strcmp(spawnkit_batch_backend_name(SPAWNKIT_BATCH_URING), "uring") == 0);
	CHECK(strcmp(spawnkit_batch_backend_name(SPAWNKIT_BATCH_KERNEL), "kernel") == 0);
	CHECK(strcmp(spawnkit_batch_backend_name(42), "unknown") == 0);
	CHECK_EQ(spawnkit_batch_backend_available(SPAWNKIT_BATCH_EMULATOR), 1);
	CHECK_EQ(spawnkit_batch_backend_available(42), 0);
	CHECK_EQ(spawnkit_batch_backend_available(SPAWNKIT_BATCH_KERNEL),
		 spawnkit_kernel_has_batch());
	CHECK_ERR(spawnkit_batch_run(42, e, res, 2, 0), EINVAL);
	/* A backend that is not here: ENOSYS, never a silent fallback. */
	if (!spawnkit_kernel_has_batch())
		CHECK_ERR(spawnkit_batch_run(SPAWNKIT_BATCH_KERNEL, e, res, 2, 0), ENOSYS);
	CHECK_EQ(spawnkit_batch_run(SPAWNKIT_BATCH_EMULATOR, e, res, 2, 0), 1);
}

TEST_HARNESS_MAIN

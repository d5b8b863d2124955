/* SPDX-License-Identifier: MIT */
/* Every jump case: next, skip k, end, past the end, by result kind; the
 * index returned, -ECANCELED in every slot not run, nothing written past
 * the results array, the caller's entries untouched. */
#include <string.h>
#include "bt.h"

#define CANCELED (-(int64_t)ECANCELED)

static int64_t res[16];

/* Run e[0..n) and check the return and results (want[] of n values). */
static void expect(const struct batch_entry *e, unsigned int n, int uring_ok,
		   long want_ret, const int64_t *want, int line)
{
	struct batch_entry copy[16];
	long ret;
	unsigned int i;

	memcpy(copy, e, n * sizeof(*e));
	res[n] = BT_MARK;	/* the slot just past the array */
	ret = bt_run(e, res, n, uring_ok);
	CHECK(memcmp(copy, e, n * sizeof(*e)) == 0);
	CHECK_EQ(res[n], BT_MARK);
	if (ret == -EOPNOTSUPP && bt_uring() && !uring_ok)
		return;
	if (ret != want_ret)
		fprintf(stderr, "  (program at line %d)\n", line);
	CHECK_EQ(ret, want_ret);
	for (i = 0; i < n; i++) {
		if (res[i] != want[i])
			fprintf(stderr, "  (program at line %d, slot %u)\n", line, i);
		CHECK_EQ(res[i], want[i]);
	}
}

#define EXPECT(e, uring_ok, ret, ...) do {				\
	const int64_t w_[] = { __VA_ARGS__ };				\
	expect((e), sizeof(w_) / sizeof(w_[0]), (uring_ok), (ret), w_, __LINE__); \
} while (0)

/* A plain run: every entry, the last index returned. */
TEST(plain_run_returns_last_index)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_positive(); e[1] = bt_zero(); e[2] = bt_positive(); e[3] = bt_zero();
	EXPECT(e, 1, 3, 8, 0, 8, 0);
}

/* A chain that ends on error: the usual shape. */
TEST(chain_ends_on_error)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_positive(); e[1] = bt_error(); e[2] = bt_positive(); e[3] = bt_zero();
	for (int i = 0; i < 4; i++)
		spawnkit_batch_end_on_error(&e[i]);
	EXPECT(e, 1, 1, 8, -EBADF, CANCELED, CANCELED);
}

/* An error with "next": the batch goes on. */
TEST(error_with_next_goes_on)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_error(); e[1] = bt_positive(); e[2] = bt_error(); e[3] = bt_zero();
	EXPECT(e, 1, 3, -EBADF, 8, -EBADF, 0);
}

/* ON_ERROR skip 2. */
TEST(on_error_skip)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_error(); e[1] = bt_positive(); e[2] = bt_positive(); e[3] = bt_zero();
	spawnkit_batch_jump(&e[0], BATCH_ON_ERROR, 2);
	EXPECT(e, 0, 3, -EBADF, CANCELED, CANCELED, 0);
}

/* ON_ZERO end, and ON_ZERO skip 1. */
TEST(on_zero_end_and_skip)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_zero(); e[1] = bt_positive();
	spawnkit_batch_jump(&e[0], BATCH_ON_ZERO, BATCH_JUMP_END);
	EXPECT(e, 0, 0, 0, CANCELED);
	e[0] = bt_zero(); e[1] = bt_positive(); e[2] = bt_positive();
	spawnkit_batch_jump(&e[0], BATCH_ON_ZERO, 1);
	EXPECT(e, 0, 2, 0, CANCELED, 8);
}

/* ON_POSITIVE end, and ON_POSITIVE skip 1. */
TEST(on_positive_end_and_skip)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_positive(); e[1] = bt_zero();
	spawnkit_batch_end_on_success(&e[0]);
	EXPECT(e, 0, 0, 8, CANCELED);
	e[0] = bt_positive(); e[1] = bt_error(); e[2] = bt_zero();
	spawnkit_batch_jump(&e[0], BATCH_ON_POSITIVE, 1);
	EXPECT(e, 0, 2, 8, CANCELED, 0);
}

/* Only the jump of the result's kind counts: the others are set to
 * end but a positive result goes on. */
TEST(only_the_jump_of_the_result_kind_counts)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_positive(); e[1] = bt_zero();
	spawnkit_batch_jump(&e[0], BATCH_ON_ERROR, BATCH_JUMP_END);
	spawnkit_batch_jump(&e[0], BATCH_ON_ZERO, BATCH_JUMP_END);
	EXPECT(e, 0, 1, 8, 0);
}

/* Jumps past the end end the batch cleanly: never an index past the
 * array, nothing written past it (expect() checks the slot after). */
TEST(jumps_past_the_end_end_cleanly)
{
	struct batch_entry e[8];

	bt_init();
	e[0] = bt_positive(); e[1] = bt_zero();
	spawnkit_batch_jump(&e[0], BATCH_ON_POSITIVE, 100);
	EXPECT(e, 0, 0, 8, CANCELED);
	e[0] = bt_positive(); e[1] = bt_zero(); e[2] = bt_zero();
	spawnkit_batch_jump(&e[0], BATCH_ON_POSITIVE, 1);	/* exactly to the last */
	EXPECT(e, 0, 2, 8, CANCELED, 0);
	e[0] = bt_positive(); e[1] = bt_zero(); e[2] = bt_zero();
	spawnkit_batch_jump(&e[0], BATCH_ON_POSITIVE, 2);	/* exactly to count */
	EXPECT(e, 0, 0, 8, CANCELED, CANCELED);
	e[0] = bt_positive();
	spawnkit_batch_jump(&e[0], BATCH_ON_POSITIVE, 0xfffe);	/* largest skip */
	EXPECT(e, 1, 0, 8);
	/* The last entry may jump anywhere: every target ends (io_uring too). */
	e[0] = bt_positive(); e[1] = bt_error();
	spawnkit_batch_jump(&e[1], BATCH_ON_ERROR, 7);
	spawnkit_batch_jump(&e[1], BATCH_ON_ZERO, 3);
	EXPECT(e, 1, 1, 8, -EBADF);
	/* An error jump past the end from the middle is an "end on error". */
	e[0] = bt_error(); e[1] = bt_zero(); e[2] = bt_zero();
	spawnkit_batch_jump(&e[0], BATCH_ON_ERROR, 2);
	EXPECT(e, 1, 0, -EBADF, CANCELED, CANCELED);
}

/* A chain of skips: 0 -> 2 -> 5, the rest never run. */
TEST(chain_of_skips)
{
	struct batch_entry e[8];

	bt_init();
	for (int i = 0; i < 7; i++)
		e[i] = bt_positive();
	spawnkit_batch_jump(&e[0], BATCH_ON_POSITIVE, 1);
	spawnkit_batch_jump(&e[2], BATCH_ON_POSITIVE, 2);
	spawnkit_batch_end_on_success(&e[5]);
	EXPECT(e, 0, 5, 8, CANCELED, 8, CANCELED, CANCELED, 8, CANCELED);
}

/* The helpers. */
TEST(goto_and_call_helpers)
{
	struct batch_entry e[8];

	bt_init();
	CHECK_ERR(spawnkit_batch_goto(e, 3, BATCH_ON_ZERO, 3), EINVAL);
	CHECK_ERR(spawnkit_batch_goto(e, 3, BATCH_ON_ZERO, 1), EINVAL);
	CHECK_ERR(spawnkit_batch_goto(e, 0, 3, 2), EINVAL);
	CHECK_ERR(spawnkit_batch_goto(e, 0, BATCH_ON_ZERO, 0x10000), EINVAL);
	CHECK_EQ(spawnkit_batch_goto(e, 1, BATCH_ON_ZERO, 4), 0);
	CHECK_EQ(e[1].jump[BATCH_ON_ZERO], 2);
	e[0] = BATCH_CALL6(1, 2, 3, 4, 5, 6, 7);
	CHECK_EQ(e[0].nr, 1);
	CHECK_EQ(e[0].args[5], 7);
	CHECK_EQ(e[0].jump[0] | e[0].jump[1] | e[0].jump[2] | e[0].flags, 0);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * harness_demo.c - cases with known outcomes for tests/harness/t_harness.c,
 * which runs this program with a name filter and checks what the harness
 * reported: one case a behaviour of tests/harness.h.
 */
#include "../harness.h"

TEST(passes)
{
	EXPECT_EQ(1 + 1, 2);
	CHECK(1);
}

/* An EXPECT failure goes on: the line after it still runs. */
TEST(expect_goes_on)
{
	EXPECT_EQ(1, 2);
	printf("after expect\n");
	EXPECT_TRUE(1);
}

TEST(checks_nothing)
{
}

TEST(skips)
{
	SKIP("not here");
}

TEST(skip_after_failure)
{
	EXPECT_TRUE(0);
	SKIP("too late");
}

TEST(crashes)
{
	CHECK(1);
	raise(SIGSEGV);
}

TEST(after_crash)
{
	CHECK(1);
}

TEST(exits_nonzero)
{
	CHECK(1);
	exit(3);
}

TEST(hangs)
{
	CHECK(1);
	pause();
}

/* Each case is a child: this global is 0 in every case. */
static int shared_counter;
TEST(isolated_1)
{
	EXPECT_EQ(shared_counter++, 0);
}
TEST(isolated_2)
{
	EXPECT_EQ(shared_counter++, 0);
}

FIXTURE(fx) {
	int n;
};
FIXTURE_VARIANT(fx) {
	int want;
};
FIXTURE_VARIANT_ADD(fx, one) {
	.want = 1,
};
FIXTURE_VARIANT_ADD(fx, two) {
	.want = 2,
};
FIXTURE_SETUP(fx)
{
	self->n = 1;
}
FIXTURE_TEARDOWN(fx)
{
	printf("teardown n=%d want=%d\n", self->n, variant->want);
}
/* ASSERT ends the case at once; the teardown still runs. */
TEST_F(fx, assert_stops)
{
	self->n = 5;
	ASSERT_EQ(variant->want, 1);
	self->n = 9;
}

TEST_HARNESS_MAIN

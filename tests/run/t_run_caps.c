/* SPDX-License-Identifier: MIT */
/*
 * Head+tail captures: the capture itself against a reference model on
 * random chunkings, then end to end (a known head and tail around a long
 * middle, dropped counts exact), and a 64 MiB stream through a 1 MiB cap
 * without the memory growing past a few caps.
 */
#include <sys/resource.h>
#include "run_util.h"
#include "run/capture.h"

#define DATA_LEN 20000

/* Check one capture of data[0..n) fed in random chunks. */
static void model(const char *data, size_t n, size_t hc, size_t tc, unsigned int seed)
{
	struct sk_capture c;
	struct spawnkit_run_output out;
	size_t off = 0, h = n < hc ? n : hc, t = n - h < tc ? n - h : tc;

	sk_capture_init(&c, hc, tc);
	while (off < n) {
		size_t k = (size_t)(rand_r(&seed) % 700) + 1;

		if (k > n - off)
			k = n - off;
		CHECK_EQ(sk_capture_add(&c, data + off, k), 0);
		off += k;
	}
	CHECK_EQ(sk_capture_finish(&c, &out), 0);
	CHECK_EQ(out.total, n);
	CHECK_EQ(out.head_len, h);
	CHECK_EQ(out.tail_len, t);
	CHECK_EQ(out.dropped, n - h - t);
	CHECK(!h || !memcmp(out.head, data, h));
	CHECK(!t || !memcmp(out.tail, data + n - t, t));
	free(out.head);
	free(out.tail);
}

/*
 * The capture against the model: n bytes with head cap hc and tail cap
 * tc, fed in chunks drawn from seed.
 */
FIXTURE(model) {
	char data[DATA_LEN];
};

FIXTURE_VARIANT(model) {
	size_t n, hc, tc;
	unsigned int seed;
};

FIXTURE_SETUP(model)
{
	for (size_t i = 0; i < sizeof(self->data); i++)
		self->data[i] = (char)(i * 7 + i / 251);
}

FIXTURE_TEARDOWN(model)
{
}

FIXTURE_VARIANT_ADD(model, empty) { .n = 0, .hc = 10, .tc = 10, .seed = 1 };
FIXTURE_VARIANT_ADD(model, all_in_the_head) { .n = 5, .hc = 10, .tc = 10, .seed = 2 };
FIXTURE_VARIANT_ADD(model, head_full_tail_partly) { .n = 15, .hc = 10, .tc = 10, .seed = 3 };
FIXTURE_VARIANT_ADD(model, much_dropped) { .n = DATA_LEN, .hc = 10, .tc = 10, .seed = 4 };
FIXTURE_VARIANT_ADD(model, tail_only) { .n = DATA_LEN, .hc = 0, .tc = 1000, .seed = 5 };
FIXTURE_VARIANT_ADD(model, head_only) { .n = DATA_LEN, .hc = 1000, .tc = 0, .seed = 6 };
FIXTURE_VARIANT_ADD(model, count_only) { .n = DATA_LEN, .hc = 0, .tc = 0, .seed = 7 };
FIXTURE_VARIANT_ADD(model, small_head_page_tail) { .n = DATA_LEN, .hc = 1, .tc = 4096, .seed = 8 };
FIXTURE_VARIANT_ADD(model, unlimited) { .n = DATA_LEN, .hc = SIZE_MAX, .tc = 0, .seed = 9 };

TEST_F(model, capture_matches_the_model)
{
	model(self->data, variant->n, variant->hc, variant->tc, variant->seed);
}

/* end to end: "HEAD" + 100000 zero bytes + "TAIL" */
TEST(stdout_head_and_tail_around_a_long_middle)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.head[1] = 4;
	o.tail[1] = 4;
	ASSERT_EQ(run_sh(&o, "printf HEAD; head -c 100000 /dev/zero; printf TAIL", &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	CHECK(r.out[1].head_len == 4 && !memcmp(r.out[1].head, "HEAD", 4));
	CHECK(r.out[1].tail_len == 4 && !memcmp(r.out[1].tail, "TAIL", 4));
	CHECK_EQ(r.out[1].dropped, 100000);
	CHECK_EQ(r.out[1].total, 100008);
	spawnkit_run_result_free(&r);
}

TEST(stderr_has_caps_of_its_own)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.head[2] = 2;
	o.tail[2] = 0;
	ASSERT_EQ(run_sh(&o, "printf abcdef >&2", &r), 0);
	CHECK(r.out[2].head_len == 2 && !memcmp(r.out[2].head, "ab", 2));
	CHECK_EQ(r.out[2].tail_len, 0);
	CHECK_EQ(r.out[2].dropped, 4);
	spawnkit_run_result_free(&r);
}

/* 64 MiB through the default 1 MiB cap: memory stays bounded */
TEST(sixty_four_mib_through_the_default_cap_in_bounded_memory)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct rusage ru0, ru1;
	char *argv_big[] = { "attrs", "--out", "67108864", NULL };

	spawnkit_run_opts_init(&o);
	o.argv = argv_big;
	o.file = helper("attrs");
	getrusage(RUSAGE_SELF, &ru0);
	ASSERT_EQ(spawnkit_run(&o, &r), 0);
	getrusage(RUSAGE_SELF, &ru1);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	CHECK_EQ(r.out[1].head_len, SPAWNKIT_RUN_DEFAULT_CAP / 2);
	CHECK_EQ(r.out[1].tail_len, SPAWNKIT_RUN_DEFAULT_CAP / 2);
	CHECK(r.out[1].total > 64 << 20);	/* attrs' report lines, then the x's */
	CHECK_EQ(r.out[1].dropped, r.out[1].total - SPAWNKIT_RUN_DEFAULT_CAP);
	CHECK(r.out[1].tail[0] == 'x' && r.out[1].tail[r.out[1].tail_len - 1] == 'x');
	/* max RSS grew by less than 16 MiB for a 64 MiB stream */
	CHECK(ru1.ru_maxrss - ru0.ru_maxrss < 16 * 1024);
	spawnkit_run_result_free(&r);
}

TEST_HARNESS_MAIN

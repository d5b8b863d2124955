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

int main(void)
{
	static char data[20000];
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct rusage ru0, ru1;
	char *argv_big[] = { "attrs", "--out", "67108864", NULL };
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + i / 251);
	model(data, 0, 10, 10, 1);
	model(data, 5, 10, 10, 2);		/* all in the head */
	model(data, 15, 10, 10, 3);		/* head full, tail partly */
	model(data, sizeof(data), 10, 10, 4);	/* much dropped */
	model(data, sizeof(data), 0, 1000, 5);	/* tail only */
	model(data, sizeof(data), 1000, 0, 6);	/* head only */
	model(data, sizeof(data), 0, 0, 7);	/* count only */
	model(data, sizeof(data), 1, 4096, 8);
	model(data, sizeof(data), SIZE_MAX, 0, 9);	/* unlimited */

	/* end to end: "HEAD" + 100000 zero bytes + "TAIL" */
	spawnkit_run_opts_init(&o);
	o.head[1] = 4;
	o.tail[1] = 4;
	CHECK_EQ(run_sh(&o, "printf HEAD; head -c 100000 /dev/zero; printf TAIL", &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	CHECK(r.out[1].head_len == 4 && !memcmp(r.out[1].head, "HEAD", 4));
	CHECK(r.out[1].tail_len == 4 && !memcmp(r.out[1].tail, "TAIL", 4));
	CHECK_EQ(r.out[1].dropped, 100000);
	CHECK_EQ(r.out[1].total, 100008);
	spawnkit_run_result_free(&r);
	/* stderr has caps of its own */
	o.head[2] = 2;
	o.tail[2] = 0;
	CHECK_EQ(run_sh(&o, "printf abcdef >&2", &r), 0);
	CHECK(r.out[2].head_len == 2 && !memcmp(r.out[2].head, "ab", 2));
	CHECK_EQ(r.out[2].tail_len, 0);
	CHECK_EQ(r.out[2].dropped, 4);
	spawnkit_run_result_free(&r);

	/* 64 MiB through the default 1 MiB cap: memory stays bounded */
	spawnkit_run_opts_init(&o);
	o.argv = argv_big;
	o.file = helper("attrs");
	getrusage(RUSAGE_SELF, &ru0);
	CHECK_EQ(spawnkit_run(&o, &r), 0);
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
	TEST_DONE();
}

/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_run_output_join(): the truncation marker as library policy.
 * Each case builds a capture by hand (head, tail, dropped) and compares
 * the whole joined text, so N in "[... N bytes omitted ...]" is checked
 * to the byte; one case runs seq end to end.
 */
#include "run_util.h"

#define M SPAWNKIT_JOIN_MARKER
#define ML (SPAWNKIT_JOIN_MARKER | SPAWNKIT_JOIN_LINES)

static char jbuf[4096];

/* Join head/tail (lengths given, bytes may hold NULs) with dropped bytes
 * between them; the result is in jbuf, NUL-terminated. */
static const char *join(const char *h, size_t hl, const char *t, size_t tl,
			uint64_t dropped, unsigned int flags)
{
	struct spawnkit_run_output o = {
		.head = (char *)h, .head_len = hl, .tail = (char *)t, .tail_len = tl,
		.dropped = dropped, .total = hl + tl + dropped,
	};
	ssize_t need = spawnkit_run_output_join(&o, flags, NULL, 0), got;

	if (need < 0 || (size_t)need > hl + tl + SPAWNKIT_RUN_MARKER_MAX)
		return "(bad length)";
	got = spawnkit_run_output_join(&o, flags, jbuf, sizeof(jbuf));
	if (got != need)
		return "(length changed)";
	return jbuf;
}

#define J(h, t, d, f) join(h, sizeof(h) - 1, t, sizeof(t) - 1, d, f)

TEST(no_drop_is_plain_concatenation)
{
	/* nothing dropped: head and tail are contiguous, whatever the flags */
	EXPECT_STREQ(J("ab\ncd", "ef", 0, 0), "ab\ncdef");
	EXPECT_STREQ(J("ab\ncd", "ef", 0, M), "ab\ncdef");
	EXPECT_STREQ(J("ab\ncd", "ef", 0, ML), "ab\ncdef");
	EXPECT_STREQ(J("", "", 0, ML), "");
}

TEST(no_flags_is_the_old_join)
{
	EXPECT_STREQ(J("HEAD", "TAIL", 100000, 0), "HEADTAIL");
}

TEST(bytes_mode_exact_count)
{
	EXPECT_STREQ(J("HEAD", "TAIL", 100000, M),
		     "HEAD[... 100000 bytes omitted ...]TAIL");
	EXPECT_STREQ(J("HE", "", 1, M), "HE[... 1 bytes omitted ...]");
	EXPECT_STREQ(J("", "TAIL", 7, M), "[... 7 bytes omitted ...]TAIL");
	/* bytes mode never moves the cut, even through a character or line */
	EXPECT_STREQ(J("a\nb\xe2\x82", "\xac\nc", 3, M),
		     "a\nb\xe2\x82[... 3 bytes omitted ...]\xac\nc");
}

TEST(text_mode_cuts_at_lines)
{
	/* "4" ends the head unfinished, "9\n" starts the tail unfinished */
	EXPECT_STREQ(J("1\n2\n3\n4", "9\n99\n100\n", 10, ML),
		     "1\n2\n3\n[... 13 bytes omitted ...]\n99\n100\n");
	/* a head ending at a newline keeps all of it */
	EXPECT_STREQ(J("1\n2\n", "x\ny\n", 5, ML),
		     "1\n2\n[... 7 bytes omitted ...]\ny\n");
}

TEST(text_mode_side_without_newline_is_kept)
{
	/* no line to cut at: the whole head and tail stay, the marker still a
	 * line of its own */
	EXPECT_STREQ(J("abcdef", "ghi", 5, ML),
		     "abcdef\n[... 5 bytes omitted ...]\nghi");
	/* a tail that is one line (its newline last) is not dropped either */
	EXPECT_STREQ(J("abc", "ghi\n", 5, ML),
		     "abc\n[... 5 bytes omitted ...]\nghi\n");
	/* empty sides */
	EXPECT_STREQ(J("", "a\nb\n", 4, ML), "[... 6 bytes omitted ...]\nb\n");
	EXPECT_STREQ(J("a\nb", "", 4, ML), "a\n[... 5 bytes omitted ...]\n");
	EXPECT_STREQ(J("", "", 4, ML), "[... 4 bytes omitted ...]\n");
}

/* A character split by the cut, at the end of the head and the start of
 * the tail: its bytes go and are counted. */
static void split_char(const char *c, size_t len)
{
	char h[16], t[16], want[128];
	size_t k;

	for (k = 1; k < len; k++) {
		h[0] = 'x';
		memcpy(h + 1, c, k);		/* the first k bytes */
		memcpy(t, c + k, len - k);	/* the rest, of another copy */
		t[len - k] = 'y';
		snprintf(want, sizeof(want), "x\n[... %zu bytes omitted ...]\ny",
			 (size_t)9 + len);
		EXPECT_STREQ(join(h, 1 + k, t, len - k + 1, 9, ML), want);
	}
	/* whole characters on both sides stay */
	memcpy(h, "x", 1);
	memcpy(h + 1, c, len);
	memcpy(t, c, len);
	t[len] = 'y';
	snprintf(want, sizeof(want), "x%.*s\n[... 9 bytes omitted ...]\n%.*sy",
		 (int)len, c, (int)len, c);
	EXPECT_STREQ(join(h, 1 + len, t, len + 1, 9, ML), want);
}

TEST(text_mode_utf8_2_byte)
{
	split_char("\xc3\xa9", 2);		/* é */
}

TEST(text_mode_utf8_3_byte)
{
	split_char("\xe2\x82\xac", 3);		/* € */
}

TEST(text_mode_utf8_4_byte)
{
	split_char("\xf0\x9f\x98\x80", 4);	/* 😀 */
}

TEST(text_mode_not_utf8_is_left_alone)
{
	/* bytes no UTF-8 sequence starts or continues with are not cut */
	EXPECT_STREQ(J("x\xff", "\xfey", 2, ML),
		     "x\xff\n[... 2 bytes omitted ...]\n\xfey");
}

TEST(text_mode_crlf)
{
	EXPECT_STREQ(J("a\r\nb\r\nc", "d\r\ne\r\n", 4, ML),
		     "a\r\nb\r\n[... 8 bytes omitted ...]\ne\r\n");
	/* the cut between CR and LF leaves no lone CR or LF behind */
	EXPECT_STREQ(J("a\r\nb\r", "\nc\r\n", 4, ML),
		     "a\r\n[... 7 bytes omitted ...]\nc\r\n");
}

TEST(cap_too_small_writes_nothing)
{
	struct spawnkit_run_output o = {
		.head = "HEAD", .head_len = 4, .tail = "TAIL", .tail_len = 4,
		.dropped = 12, .total = 20,
	};
	const char *want = "HEAD[... 12 bytes omitted ...]TAIL";
	size_t len = strlen(want);
	char buf[128];

	EXPECT_EQ(spawnkit_run_output_join(&o, M, NULL, 0), (ssize_t)len);
	EXPECT_EQ(spawnkit_run_output_join(&o, M, NULL, 1000), (ssize_t)len);
	memset(buf, 'Z', sizeof(buf));
	EXPECT_EQ(spawnkit_run_output_join(&o, M, buf, len - 1), (ssize_t)len);
	EXPECT_EQ(buf[0], 'Z');
	EXPECT_EQ(memchr(buf, 'H', sizeof(buf)), NULL);
	/* exactly the length: the bytes, no NUL */
	EXPECT_EQ(spawnkit_run_output_join(&o, M, buf, len), (ssize_t)len);
	EXPECT_EQ(memcmp(buf, want, len), 0);
	EXPECT_EQ(buf[len], 'Z');
	/* room for more: a NUL follows */
	EXPECT_EQ(spawnkit_run_output_join(&o, M, buf, len + 1), (ssize_t)len);
	EXPECT_EQ(buf[len], '\0');
}

TEST(marker_max_bounds_the_largest_count)
{
	/* the widest count, with a newline on both sides of the marker */
	const char *s = J("ab", "cd", UINT64_MAX, ML);
	size_t len = strlen(s);

	EXPECT_STREQ(s, "ab\n[... 18446744073709551615 bytes omitted ...]\ncd");
	EXPECT_LE(len, 4 + SPAWNKIT_RUN_MARKER_MAX);
	/* a hand-made capture whose count would wrap: it saturates */
	EXPECT_STREQ(J("a\nb", "cd", UINT64_MAX, ML),
		     "a\n[... 18446744073709551615 bytes omitted ...]\ncd");
}

TEST(bad_arguments)
{
	struct spawnkit_run_output o = { .head = "a", .head_len = 1 };
	char buf[64];

	EXPECT_ERR(spawnkit_run_output_join(NULL, 0, buf, sizeof(buf)), EINVAL);
	EXPECT_ERR(spawnkit_run_output_join(&o, 1U << 2, buf, sizeof(buf)), EINVAL);
	EXPECT_ERR(spawnkit_run_output_join(&o, 1U << 31, NULL, 0), EINVAL);
	/* LINES places the marker; alone it means nothing */
	EXPECT_ERR(spawnkit_run_output_join(&o, SPAWNKIT_JOIN_LINES, buf, sizeof(buf)),
		   EINVAL);
	o.head = NULL;		/* a length without bytes */
	EXPECT_ERR(spawnkit_run_output_join(&o, 0, buf, sizeof(buf)), EINVAL);
}

TEST(seq_end_to_end)
{
	/* issue 11's case: seq 1 100000 through a 20-byte cap read
	 * "1 2 3 4 5 99 100000"; now the cut shows, at a line boundary */
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char want[128];

	spawnkit_run_opts_init(&o);
	o.head[1] = 10;
	o.tail[1] = 10;
	ASSERT_EQ(run_sh(&o, "seq 1 100000", &r), 0);
	EXPECT_EQ(r.out[1].total, 588895);	/* wc -c of that output */
	snprintf(want, sizeof(want),
		 "1\n2\n3\n4\n5\n[... %llu bytes omitted ...]\n100000\n",
		 (unsigned long long)(r.out[1].total - 10 - 7));
	EXPECT_STREQ(join(r.out[1].head, r.out[1].head_len, r.out[1].tail,
			  r.out[1].tail_len, r.out[1].dropped, ML), want);
	spawnkit_run_result_free(&r);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * join.c - a capture's head and tail as one text, with the marker
 * "[... N bytes omitted ...]" where bytes were dropped, so a reader (often
 * a model) cannot take a truncated output for the whole of it.  Text mode
 * moves the cut to line boundaries, or to UTF-8 character boundaries when
 * a side has no line to cut at, and counts every byte it gives up in N.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <spawnkit/run.h>
#include "common/sys.h"

/* The bytes a UTF-8 sequence led by c takes; 0 for a continuation byte or
 * a byte no sequence starts with. */
static size_t utf8_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 0;
}

static int utf8_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* How much of the head to keep: n less a character the cut split. */
static size_t head_chars(const unsigned char *p, size_t n)
{
	size_t i = n, need;

	while (i > 0 && n - i < 3 && utf8_cont(p[i - 1]))
		i--;
	if (i == 0)
		return n;	/* no lead byte: not UTF-8, cut nothing */
	need = utf8_len(p[i - 1]);
	return need > 1 && need > n - (i - 1) ? i - 1 : n;
}

/* How many bytes of the tail to skip: the rest of a split character. */
static size_t tail_chars(const unsigned char *p, size_t n)
{
	size_t k = 0;

	while (k < n && k < 3 && utf8_cont(p[k]))
		k++;
	return k;
}

/* Head bytes kept in text mode: through the last newline; without one,
 * all but a split character. */
static size_t head_keep(const char *p, size_t n)
{
	const char *nl;

	if (!n || p[n - 1] == '\n')
		return n;
	nl = memrchr(p, '\n', n);
	return nl ? (size_t)(nl - p) + 1 : head_chars((const unsigned char *)p, n);
}

/* Tail bytes skipped in text mode: its first line, the end of one the cut
 * split; a tail that is one line keeps it, less a split character. */
static size_t tail_skip(const char *p, size_t n)
{
	const char *nl = n ? memchr(p, '\n', n) : NULL;

	if (nl && (size_t)(nl - p) + 1 < n)
		return (size_t)(nl - p) + 1;
	return tail_chars((const unsigned char *)p, n);
}

/* "[... N bytes omitted ...]" into m, its length returned */
static size_t marker(char *m, uint64_t n)
{
	static const char pre[] = "[... ", post[] = " bytes omitted ...]";
	char digits[24];
	size_t d = 0, len = 0;

	do {
		digits[d++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	memcpy(m, pre, sizeof(pre) - 1);
	len = sizeof(pre) - 1;
	while (d)
		m[len++] = digits[--d];
	memcpy(m + len, post, sizeof(post) - 1);
	return len + sizeof(post) - 1;
}

SK_EXPORT ssize_t spawnkit_run_output_join(const struct spawnkit_run_output *out,
					   unsigned int flags, char *buf, size_t cap)
{
	char mark[SPAWNKIT_RUN_MARKER_MAX];
	size_t hk, ts, ml = 0, len;
	uint64_t n;

	if (!out || (flags & ~SPAWNKIT_JOIN_FLAGS) ||
	    ((flags & SPAWNKIT_JOIN_LINES) && !(flags & SPAWNKIT_JOIN_MARKER)) ||
	    (out->head_len && !out->head) || (out->tail_len && !out->tail))
		return -EINVAL;
	hk = out->head_len;
	ts = 0;
	if (out->dropped && (flags & SPAWNKIT_JOIN_MARKER)) {
		if (flags & SPAWNKIT_JOIN_LINES) {
			hk = head_keep(out->head, out->head_len);
			ts = tail_skip(out->tail, out->tail_len);
			if (hk && out->head[hk - 1] != '\n')
				mark[ml++] = '\n';
		}
		n = out->dropped + (out->head_len - hk) + ts;
		if (n < out->dropped)	/* only a capture made up by hand */
			n = UINT64_MAX;
		ml += marker(mark + ml, n);
		if (flags & SPAWNKIT_JOIN_LINES)
			mark[ml++] = '\n';
	}
	if (hk > SSIZE_MAX - ml || out->tail_len - ts > SSIZE_MAX - ml - hk)
		return -EOVERFLOW;
	len = hk + ml + (out->tail_len - ts);
	if (!buf || cap < len)
		return (ssize_t)len;
	if (hk)
		memcpy(buf, out->head, hk);
	memcpy(buf + hk, mark, ml);
	if (out->tail_len - ts)
		memcpy(buf + hk + ml, out->tail + ts, out->tail_len - ts);
	if (cap > len)
		buf[len] = '\0';
	return (ssize_t)len;
}

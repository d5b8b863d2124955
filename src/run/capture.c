/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/capture.h"

void sk_capture_init(struct sk_capture *c, size_t head_cap, size_t tail_cap)
{
	memset(c, 0, sizeof(*c));
	c->head_cap = head_cap;
	c->tail_cap = tail_cap;
}

/* Grow the head to hold want bytes (never past head_cap). */
static int grow_head(struct sk_capture *c, size_t want)
{
	size_t n = c->head_alloc ? c->head_alloc : 4096;
	char *p;

	while (n < want)
		n = n > SIZE_MAX / 2 ? SIZE_MAX : n * 2;
	if (n > c->head_cap)
		n = c->head_cap;
	p = realloc(c->head, n);
	if (!p)
		return -ENOMEM;
	c->head = p;
	c->head_alloc = n;
	return 0;
}

static void ring_put(struct sk_capture *c, const char *d, size_t n)
{
	size_t k;

	if (n >= c->tail_cap) {		/* only the last tail_cap bytes stay */
		memcpy(c->ring, d + n - c->tail_cap, c->tail_cap);
		c->ring_pos = 0;
		c->ring_len = c->tail_cap;
		return;
	}
	k = c->tail_cap - c->ring_pos < n ? c->tail_cap - c->ring_pos : n;
	memcpy(c->ring + c->ring_pos, d, k);
	memcpy(c->ring, d + k, n - k);
	c->ring_pos = (c->ring_pos + n) % c->tail_cap;
	c->ring_len = c->ring_len + n > c->tail_cap ? c->tail_cap : c->ring_len + n;
}

int sk_capture_add(struct sk_capture *c, const void *data, size_t n)
{
	const char *d = data;
	size_t room;

	c->total += n;
	room = c->head_cap - c->head_len;
	if (room) {
		size_t k = n < room ? n : room;

		if (c->head_len + k > c->head_alloc && grow_head(c, c->head_len + k))
			return -ENOMEM;
		memcpy(c->head + c->head_len, d, k);
		c->head_len += k;
		d += k;
		n -= k;
	}
	if (!n || !c->tail_cap)
		return 0;
	if (!c->ring && !(c->ring = malloc(c->tail_cap)))
		return -ENOMEM;
	ring_put(c, d, n);
	return 0;
}

int sk_capture_finish(struct sk_capture *c, struct spawnkit_run_output *out)
{
	size_t first;

	memset(out, 0, sizeof(*out));
	out->total = c->total;
	out->head = c->head;
	out->head_len = c->head_len;
	out->dropped = c->total - c->head_len - c->ring_len;
	c->head = NULL;
	if (c->ring_len) {
		out->tail = malloc(c->ring_len);
		if (!out->tail)
			return -ENOMEM;
		/* oldest byte: at ring_pos once the ring has wrapped */
		first = c->ring_len == c->tail_cap ? c->ring_pos : 0;
		memcpy(out->tail, c->ring + first, c->ring_len - first);
		memcpy(out->tail + c->ring_len - first, c->ring, first);
		out->tail_len = c->ring_len;
	}
	sk_capture_free(c);
	return 0;
}

void sk_capture_free(struct sk_capture *c)
{
	free(c->head);
	free(c->ring);
	c->head = c->ring = NULL;
}

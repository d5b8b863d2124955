/* SPDX-License-Identifier: MIT */
/*
 * capture.h - keep the first head_cap and the last tail_cap bytes of a
 * stream and count the ones in between, in memory bounded by the caps
 * whatever the stream's length.
 */
#ifndef SPAWNKIT_RUN_CAPTURE_H
#define SPAWNKIT_RUN_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <spawnkit/run.h>

struct sk_capture {
	size_t head_cap, tail_cap;
	char *head;
	size_t head_len, head_alloc;
	char *ring;		/* tail_cap bytes once the head is full */
	size_t ring_len;	/* bytes held (<= tail_cap) */
	size_t ring_pos;	/* where the next byte goes */
	uint64_t total;
};

void sk_capture_init(struct sk_capture *c, size_t head_cap, size_t tail_cap);
/* 0 or -ENOMEM (the bytes that did not fit are counted as dropped) */
int sk_capture_add(struct sk_capture *c, const void *data, size_t n);
/* Move the result into out (the tail made contiguous); c is empty after. */
int sk_capture_finish(struct sk_capture *c, struct spawnkit_run_output *out);
void sk_capture_free(struct sk_capture *c);

#endif

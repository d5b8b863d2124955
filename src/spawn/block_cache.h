/* SPDX-License-Identifier: MIT */
/*
 * block_cache.h - the mappings of spawnkit_spawn_start()'s blocks, kept
 * for the next start instead of unmapped (block_cache.c).
 */
#ifndef SPAWNKIT_BLOCK_CACHE_H
#define SPAWNKIT_BLOCK_CACHE_H

#include <stddef.h>

/*
 * A private read-write mapping of at least len bytes whose first page is
 * PROT_NONE (the stack's guard): a kept one or a new one, its length in
 * *lenp.  Its contents are whatever the last start left there.  The
 * mapping, or an -errno cast to a pointer (mmap's).
 */
void *sk_block_get(size_t len, size_t *lenp);
/* A mapping from sk_block_get() nobody reads any more: kept or unmapped. */
void sk_block_put(void *base, size_t len);

#endif

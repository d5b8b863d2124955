/* SPDX-License-Identifier: MIT */
/*
 * block_cache.c - start blocks are kept for the next start.
 *
 * Every spawnkit_spawn_start() needs a block (start_block.c): a guard page,
 * the child's stack, its copies of the arguments.  Mapping one per start
 * and unmapping it once the child has exec'd cost the caller, an event
 * loop, an mmap, an mprotect that splits the new mapping in two, and a
 * munmap that frees the pages the child touched, flushes the TLB of every
 * CPU the address space runs on and frees page tables through RCU; and
 * the child took its stack's page faults in the caller's address space.
 * In the Node agent benchmark (docs/node-register.md) that munmap was
 * where the loop thread was switched out in 67 of 85 of its involuntary
 * switches of a run.  A block nobody reads any more (its child exec'd or
 * exited) is therefore kept, up to SK_BLOCK_SLOTS of them of at most
 * SK_BLOCK_KEEP bytes each (1 MiB together at the usual 64 KiB), and
 * handed to the next start that fits in it; its pages stay mapped, its
 * guard page stays PROT_NONE.
 *
 * The slots are taken with a try-lock: a caller that finds them busy
 * (another thread in here, or a fork taken while one was) maps or unmaps
 * as before, so nothing ever waits here.
 */
#include <sys/mman.h>

#include "common/sys.h"
#include "spawn/block_cache.h"

#define SK_BLOCK_UNIT	(64 * 1024)	/* lengths are rounded up to this */
#define SK_BLOCK_KEEP	(256 * 1024)	/* larger blocks are unmapped */
#define SK_BLOCK_SLOTS	16
#define SK_PAGE		4096

static struct {
	char *base;
	size_t len;
} slots[SK_BLOCK_SLOTS];
static int nr_slots;
static char busy;

static int grab(void)
{
	return !__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE);
}

static void release(void)
{
	__atomic_clear(&busy, __ATOMIC_RELEASE);
}

/* The smallest kept block of at least len bytes, taken out; NULL if none. */
static void *take_kept(size_t len, size_t *lenp)
{
	void *base = NULL;
	int best = -1;

	if (!grab())
		return NULL;
	for (int i = 0; i < nr_slots; i++)
		if (slots[i].len >= len && (best < 0 || slots[i].len < slots[best].len))
			best = i;
	if (best >= 0) {
		base = slots[best].base;
		*lenp = slots[best].len;
		slots[best] = slots[--nr_slots];
	}
	release();
	return base;
}

void *sk_block_get(size_t len, size_t *lenp)
{
	void *m;

	len = (len + SK_BLOCK_UNIT - 1) & ~(size_t)(SK_BLOCK_UNIT - 1);
	m = take_kept(len, lenp);
	if (m)
		return m;
	m = (void *)sk_syscall6(SYS_mmap, 0, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)m >= -4095UL)
		return m;
	/* below the stack: a fault, not someone else's memory */
	sk_syscall3(SYS_mprotect, m, SK_PAGE, PROT_NONE);
	*lenp = len;
	return m;
}

void sk_block_put(void *base, size_t len)
{
	if (len <= SK_BLOCK_KEEP && grab()) {
		int kept = nr_slots < SK_BLOCK_SLOTS;

		if (kept) {
			slots[nr_slots].base = base;
			slots[nr_slots].len = len;
			nr_slots++;
		}
		release();
		if (kept)
			return;
	}
	sk_syscall2(SYS_munmap, base, len);
}

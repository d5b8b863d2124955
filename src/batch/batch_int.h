/* SPDX-License-Identifier: MIT */
/*
 * batch_int.h - what the batch backends share.
 *
 * Every user-space backend starts the same way (the checks of the call as a
 * whole, private working copies of the entries and the results, the results
 * filled with -ECANCELED), runs word copies and jumps with the same code and
 * ends the same way (the results copied back once, as the kernel does), so
 * their results can only differ where the kernel primitive underneath does.
 *
 * The results are private until the end because a batch may itself take
 * the caller's array away (mprotect, munmap): the copy back then fails with
 * -EFAULT for the call as a whole, never a crash.
 */
#ifndef SPAWNKIT_BATCH_INT_H
#define SPAWNKIT_BATCH_INT_H

#include <stdint.h>
#include <spawnkit/batch.h>

/* Entries held on the stack before the working copy goes to the heap. */
#define SK_BATCH_STACK_ENTRIES 32

struct sk_batch_run {
	uintptr_t ue, ue_end;		/* the caller's entries array */
	uintptr_t ur, ur_end;		/* the caller's results array */
	struct batch_entry *work;	/* private working copy of the entries */
	int64_t *results;		/* private working copy of the results */
	unsigned int count;
	uint64_t ran[BATCH_MAX_ENTRIES / 64];	/* entries that ran */
	int remapped;			/* a call that ran may have changed the mappings */
	struct batch_entry stack[SK_BATCH_STACK_ENTRIES];
	int64_t stack_results[SK_BATCH_STACK_ENTRIES];
};

/*
 * Checks of the call as a whole, in this order: flags (EINVAL), count == 0
 * (EINVAL), count > BATCH_MAX_ENTRIES (E2BIG), entries readable (EFAULT);
 * then copies the entries.  Results are not touched yet.
 */
long sk_batch_begin(struct sk_batch_run *r, const struct batch_entry *entries,
		    int64_t *results, unsigned int count, unsigned int flags);
/* The caller's results writable now (EFAULT) and every private slot set to
 * -ECANCELED.  keep: leave the caller's bytes as they were (a backend that
 * may still refuse the program); else the probe may clobber them (one
 * system call per page instead of two: the copy back rewrites them). */
long sk_batch_results_init(struct sk_batch_run *r, int keep);

/* 1 if system call nr (one of the allow-list) may change what memory is
 * mapped or writable (the copy back then probes the caller's array again). */
int sk_batch_may_remap(uint64_t nr);

/* Entry i ran and returned res. */
static inline void sk_batch_set(struct sk_batch_run *r, unsigned int i, int64_t res)
{
	r->results[i] = res;
	r->ran[i / 64] |= 1ULL << (i % 64);
}

/*
 * The end of a batch that ran (last: the index of the last entry that ran):
 * slots of entries that never ran back to -ECANCELED (a word copy may have
 * written one), the results copied to the caller's array, the working
 * copies freed.  Returns last, or -EFAULT if the array is not writable now.
 */
long sk_batch_finish(struct sk_batch_run *r, unsigned int last);
void sk_batch_end(struct sk_batch_run *r);

/* Result of the word copy e (flags already checked). */
int64_t sk_batch_wordcopy(struct sk_batch_run *r, const struct batch_entry *e);

/* Run entries from i on, one raw syscall each; returns the last that ran
 * (last if none did).  Results are stored as entries run. */
long sk_batch_loop(struct sk_batch_run *r, unsigned int i, long last);

/* Finish a batch the kernel returned unfinished: kret is BATCH_STOPPED | i
 * or -EINTR (see resume.c). */
long sk_batch_resume(const struct batch_entry *entries, int64_t *results,
		     unsigned int count, long kret);

/* 1 if system call nr is on the allow-list of calls a batch runs (the
 * kernel's, see common.c). */
int sk_batch_allowed(uint64_t nr);
/* What the slot of system call nr gets instead of running it: -ENOSYS past
 * the system call table (no such call), -EOPNOTSUPP for a call off the
 * allow-list; 0 if it runs. */
int64_t sk_batch_refused(uint64_t nr);

/* Index of the entry after entries[i] returned res, or count to end. */
static inline unsigned int sk_batch_next(const struct batch_entry *e, int64_t res,
					 unsigned int i, unsigned int count)
{
	unsigned int k, j;

	if (res >= -4095 && res <= -1)
		k = BATCH_ON_ERROR;
	else if (res == 0)
		k = BATCH_ON_ZERO;
	else
		k = BATCH_ON_POSITIVE;
	j = e->jump[k];
	if (j == BATCH_JUMP_END || i + 1 + j >= count)
		return count;
	return i + 1 + j;
}

#include "common/probe.h"	/* sk_probe_read, sk_probe_write */

/* Backends: the same contract as spawnkit_batch_run(). */
long sk_batch_emulator(const struct batch_entry *entries, int64_t *results,
		       unsigned int count, unsigned int flags);
long sk_batch_uring(const struct batch_entry *entries, int64_t *results,
		    unsigned int count, unsigned int flags);
long sk_batch_kernel(const struct batch_entry *entries, int64_t *results,
		     unsigned int count, unsigned int flags);
int sk_batch_uring_available(void);

#endif

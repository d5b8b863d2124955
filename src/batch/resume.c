/* SPDX-License-Identifier: MIT */
/*
 * resume.c - finish a batch that the kernel's loop handed back unfinished.
 *
 * batch(2) stops before a system call when the task has a signal pending or
 * syscall entry/exit work (a seccomp filter, a ptrace syscall tracer, audit,
 * tracepoints): it returns BATCH_STOPPED | i, and entry i did not run.  A
 * signal handler interrupting a sub-call makes it fail with EINTR, and the
 * interrupted entry is the first one at -ECANCELED along the jumps.  Either
 * way the results of the entries that ran are in the caller's array, and
 * what the kernel kept to itself is its working copy of the entries: the
 * word copies into the entries array are redone here, in order, on ours.
 * The rest runs one raw system call per entry (the emulator's loop), so
 * the work the kernel would have bypassed sees every call.
 */
#include <errno.h>
#include <string.h>

#include "batch/batch_int.h"

/* Did entry e, which returned res, copy a word into the entries array? */
static int copied_into_entries(const struct sk_batch_run *r, const struct batch_entry *e,
			       int64_t res)
{
	return e->flags == 0 && e->nr == BATCH_NR_WORDCOPY && res == 0 &&
	       e->args[1] >= r->ue && e->args[1] + 8 <= r->ue_end;
}

long sk_batch_resume(const struct batch_entry *entries, int64_t *results,
		     unsigned int count, long kret)
{
	struct sk_batch_run r;
	unsigned int i = 0, stop = count;
	long last = -1, ret;

	if (kret >= 0)
		stop = (unsigned int)kret & ~BATCH_STOPPED;
	ret = sk_batch_begin(&r, entries, results, count, 0);
	if (ret) {
		sk_batch_end(&r);
		return ret;
	}
	/* The working results start as the kernel left the caller's (it
	 * wrote every slot), and its sub-calls may have remapped memory. */
	if (sk_probe_read(r.ur, r.ur_end - r.ur)) {
		sk_batch_end(&r);
		return -EFAULT;
	}
	memcpy(r.results, results, (size_t)count * sizeof(*results));
	r.remapped = 1;
	/* Follow the jumps through what ran: up to the entry the kernel
	 * named, or (EINTR) to the first that holds no result. */
	while (i < count && i < stop && (kret >= 0 || r.results[i] != -ECANCELED)) {
		struct batch_entry e = r.work[i];
		int64_t res = r.results[i];

		if (copied_into_entries(&r, &e, res))
			sk_batch_wordcopy(&r, &e);
		sk_batch_set(&r, i, res);
		last = i;
		i = sk_batch_next(&e, res, i, count);
	}
	if (kret < 0 && i < count) {
		/* what a plain call interrupted by the handler returns */
		struct batch_entry e = r.work[i];

		sk_batch_set(&r, i, -EINTR);
		last = i;
		i = sk_batch_next(&e, -EINTR, i, count);
	}
	if (i < count)
		last = sk_batch_loop(&r, i, last);
	return sk_batch_finish(&r, last < 0 ? 0 : (unsigned int)last);
}

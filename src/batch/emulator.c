/* SPDX-License-Identifier: MIT */
/*
 * emulator.c - the batch loop in user space: one raw syscall per entry.
 *
 * Always available, and the yardstick for what the kernel loop saves.  It
 * differs from the kernel only where a user-space loop must: a sub-call
 * interrupted by a signal whose handler has SA_RESTART is restarted by the
 * kernel before we see it (the kernel loop stores -EINTR whenever a handler
 * ran).  The kernel backend finishes an interrupted batch with this loop
 * (resume.c).
 */
#include "batch/batch_int.h"
#include "common/sys.h"

long sk_batch_loop(struct sk_batch_run *r, unsigned int i, long last)
{
	while (i < r->count) {
		/* The entry as it is when it starts to run: a word copy that
		 * rewrites its own jumps takes effect on a later pass only
		 * (there is none: jumps go forward). */
		struct batch_entry e = r->work[i];
		int64_t res;

		if (e.flags != 0)
			res = -EINVAL;
		else if (e.nr == BATCH_NR_WORDCOPY)
			res = sk_batch_wordcopy(r, &e);
		else {
			res = sk_batch_refused(e.nr);
			if (res == 0) {
				r->remapped |= sk_batch_may_remap(e.nr);
				res = sk_syscall6((long)e.nr, (long)e.args[0],
						  (long)e.args[1], (long)e.args[2],
						  (long)e.args[3], (long)e.args[4],
						  (long)e.args[5]);
			}
		}
		sk_batch_set(r, i, res);
		last = i;
		i = sk_batch_next(&e, res, i, r->count);
	}
	return last;
}

long sk_batch_emulator(const struct batch_entry *entries, int64_t *results,
		       unsigned int count, unsigned int flags)
{
	struct sk_batch_run r;
	long ret;

	ret = sk_batch_begin(&r, entries, results, count, flags);
	if (ret == 0)
		ret = sk_batch_results_init(&r, 0);
	if (ret) {
		sk_batch_end(&r);
		return ret;
	}
	return sk_batch_finish(&r, (unsigned int)sk_batch_loop(&r, 0, 0));
}

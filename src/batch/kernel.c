/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - batch(2) of spawnkit's kernel series.
 *
 * The number is issued only once the probe (common/kernel_adv.c) found the
 * call there.
 */
#include "batch/batch_int.h"
#include "common/kernel_adv.h"
#include "common/sys.h"

long sk_batch_kernel(const struct batch_entry *entries, int64_t *results,
		     unsigned int count, unsigned int flags)
{
	const struct sk_kernel_adv *adv = sk_kernel_adv();
	long ret;

	if (!adv->batch)
		return -ENOSYS;
	ret = sk_syscall5(adv->nr_batch, entries, results, count, flags,
			  sizeof(struct batch_entry));
	/* Stopped for a signal or for a tracer, auditor or seccomp filter
	 * that must see each call: the rest runs here, call by call. */
	if ((ret >= 0 && (ret & BATCH_STOPPED)) || ret == -EINTR)
		return sk_batch_resume(entries, results, count, ret);
	return ret;
}

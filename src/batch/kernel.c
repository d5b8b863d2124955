/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - batch(2) of spawnkit's kernel series.
 *
 * The number is whatever the running kernel advertised in
 * BATCH_SYSFS_PATH; without that file we never issue a number, since a slot
 * free in one kernel is another call in the next.
 */
#include "batch/batch_int.h"
#include "common/kernel_adv.h"
#include "common/sys.h"

long sk_batch_kernel(const struct batch_entry *entries, int64_t *results,
		     unsigned int count, unsigned int flags)
{
	const struct sk_kernel_adv *adv = sk_kernel_adv();

	if (!adv->batch)
		return -ENOSYS;
	return sk_syscall4(adv->nr_batch, entries, results, count, flags);
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "common/kernel_adv.h"
#include "common/sys.h"
#include "spawnkit/batch_abi.h"

/*
 * Where the kernel series wires the calls up.  Only x86_64 so far; a kernel
 * without the series has nothing there and says ENOSYS.
 */
#if defined(__x86_64__) && !defined(__ILP32__)
#define NR_SPAWN_TEMPLATE_CREATE	472
#define NR_SPAWN_TEMPLATE_SPAWN		473
#define NR_BATCH			474
#endif

static struct sk_kernel_adv adv;
static pthread_once_t adv_once = PTHREAD_ONCE_INIT;

/*
 * Each probe passes arguments the call refuses before it looks at anything
 * else, with the errno only this ABI gives: E2BIG for a non-zero tail past
 * create's 24 bytes and for an entry_size above the batch maximum (v1 of
 * the series said EINVAL to both), EINVAL for a spawn size below VER0.
 * ENOSYS says the call is not there; anything else is not the call we
 * know: left unused.
 */
static void adv_probe(void)
{
#ifdef NR_BATCH
	int saved = errno;

	/* v1 of the series took 72 bytes with reserved words, this ABI 24:
	 * a non-zero word past them is an unknown tail (E2BIG), where v1
	 * said EINVAL for a reserved word set (its layout is not ours). */
	uint64_t v1_args[9] = { [5] = 1 };

	if (sk_syscall2(NR_SPAWN_TEMPLATE_CREATE, v1_args, sizeof(v1_args)) == -E2BIG &&
	    sk_syscall3(NR_SPAWN_TEMPLATE_SPAWN, -1, 0, 0) == -EINVAL) {
		adv.spawn_template = 1;
		adv.nr_spawn_template_create = NR_SPAWN_TEMPLATE_CREATE;
		adv.nr_spawn_template_spawn = NR_SPAWN_TEMPLATE_SPAWN;
	}
	/* v1 of batch had no entry_size: an oversized one is E2BIG here, where
	 * v1 said EINVAL for the overlapping arrays (one entry at 0). */
	if (sk_syscall5(NR_BATCH, 0, 0, 1, 0, BATCH_ENTRY_SIZE_MAX + 8) == -E2BIG) {
		adv.batch = 1;
		adv.nr_batch = NR_BATCH;
	}
	errno = saved;
#endif
}

const struct sk_kernel_adv *sk_kernel_adv(void)
{
	pthread_once(&adv_once, adv_probe);
	return &adv;
}

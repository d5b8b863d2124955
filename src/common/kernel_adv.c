/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>

#include "common/kernel_adv.h"
#include "common/sys.h"

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
 * (a size below VER0, a count of 0): EINVAL says the call is there, ENOSYS
 * that it is not.  Anything else is not the call we know: left unused.
 */
static void adv_probe(void)
{
#ifdef NR_BATCH
	int saved = errno;

	if (sk_syscall2(NR_SPAWN_TEMPLATE_CREATE, 0, 0) == -EINVAL &&
	    sk_syscall3(NR_SPAWN_TEMPLATE_SPAWN, -1, 0, 0) == -EINVAL) {
		adv.spawn_template = 1;
		adv.nr_spawn_template_create = NR_SPAWN_TEMPLATE_CREATE;
		adv.nr_spawn_template_spawn = NR_SPAWN_TEMPLATE_SPAWN;
	}
	if (sk_syscall4(NR_BATCH, 0, 0, 0, 0) == -EINVAL) {
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

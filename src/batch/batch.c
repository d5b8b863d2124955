/* SPDX-License-Identifier: MIT */
/*
 * batch.c - the public batch API: backend choice and dispatch.
 *
 * Automatic choice: the kernel loop where the kernel has it, else the
 * emulator.  io_uring is only used when asked for: every program shape we
 * measured ran slower through it than through the emulator (docs/batch.md),
 * so choosing it automatically would make programs slower, not faster.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch_int.h"
#include "common/kernel_adv.h"
#include "common/sys.h"

static int forced;		/* SPAWNKIT_BATCH_* or -errno, from the env */
static pthread_once_t forced_once = PTHREAD_ONCE_INIT;

static void forced_read(void)
{
	const char *s = getenv("SPAWNKIT_BATCH_BACKEND");

	if (!s || !*s || !strcmp(s, "auto"))
		forced = SPAWNKIT_BATCH_AUTO;
	else if (!strcmp(s, "emulator"))
		forced = SPAWNKIT_BATCH_EMULATOR;
	else if (!strcmp(s, "uring"))
		forced = SPAWNKIT_BATCH_URING;
	else if (!strcmp(s, "kernel"))
		forced = SPAWNKIT_BATCH_KERNEL;
	else
		forced = -EINVAL;
}

SK_EXPORT int spawnkit_kernel_has_batch(void)
{
	return sk_kernel_adv()->batch;
}

SK_EXPORT int spawnkit_batch_backend_available(int backend)
{
	switch (backend) {
	case SPAWNKIT_BATCH_EMULATOR:
		return 1;
	case SPAWNKIT_BATCH_URING:
		return sk_batch_uring_available();
	case SPAWNKIT_BATCH_KERNEL:
		return sk_kernel_adv()->batch;
	default:
		return 0;
	}
}

SK_EXPORT int spawnkit_batch_backend(void)
{
	pthread_once(&forced_once, forced_read);
	if (forced < 0)
		return forced;
	if (forced != SPAWNKIT_BATCH_AUTO)
		return spawnkit_batch_backend_available(forced) ? forced : -ENOSYS;
	return sk_kernel_adv()->batch ? SPAWNKIT_BATCH_KERNEL : SPAWNKIT_BATCH_EMULATOR;
}

SK_EXPORT const char *spawnkit_batch_backend_name(int backend)
{
	switch (backend) {
	case SPAWNKIT_BATCH_AUTO:
		return "auto";
	case SPAWNKIT_BATCH_EMULATOR:
		return "emulator";
	case SPAWNKIT_BATCH_URING:
		return "uring";
	case SPAWNKIT_BATCH_KERNEL:
		return "kernel";
	default:
		return "unknown";
	}
}

SK_EXPORT long spawnkit_batch_run(int backend, const struct batch_entry *entries,
				  int64_t *results, unsigned int count,
				  unsigned int flags)
{
	if (backend == SPAWNKIT_BATCH_AUTO) {
		backend = spawnkit_batch_backend();
		if (backend < 0)
			return backend;
	}
	switch (backend) {
	case SPAWNKIT_BATCH_EMULATOR:
		return sk_batch_emulator(entries, results, count, flags);
	case SPAWNKIT_BATCH_URING:
		return sk_batch_uring(entries, results, count, flags);
	case SPAWNKIT_BATCH_KERNEL:
		return sk_batch_kernel(entries, results, count, flags);
	default:
		return -EINVAL;
	}
}

SK_EXPORT long spawnkit_batch(const struct batch_entry *entries, int64_t *results,
			      unsigned int count, unsigned int flags)
{
	return spawnkit_batch_run(SPAWNKIT_BATCH_AUTO, entries, results, count, flags);
}

/* SPDX-License-Identifier: MIT */
/*
 * cache_policy.c - how big a binding's cache of templates may grow.
 *
 * Each cached template holds one fd for as long as it is cached.  A cache
 * keyed by program path that never lets go took a process from 6 fds to 307
 * after 300 distinct programs, and under `ulimit -n 256` the 246th distinct
 * program failed with EMFILE (issue 12).  The bound is a share of the fd
 * limit, read again at each call since setrlimit may change it.
 */
#include <sys/resource.h>

#include "common/sys.h"
#include "spawnkit/spawnkit.h"

#define CACHE_MIN 4
#define CACHE_MAX 256
#define CACHE_SHARE 8	/* at most 1/8 of RLIMIT_NOFILE */

SK_EXPORT int spawnkit_template_cache_max(void)
{
	struct rlimit rl;
	rlim_t n;

	if (sk_syscall2(SYS_getrlimit, RLIMIT_NOFILE, (long)&rl) < 0 ||
	    rl.rlim_cur == RLIM_INFINITY)
		return CACHE_MAX;
	n = rl.rlim_cur / CACHE_SHARE;
	if (n < CACHE_MIN)
		return CACHE_MIN;
	return n > CACHE_MAX ? CACHE_MAX : (int)n;
}

/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_template_cache_max follows RLIMIT_NOFILE: an eighth of the soft
 * limit, between 4 and 256, read again at every call.  A cache that keeps
 * that many templates open leaves most fds to the program: checked by
 * making that many templates under a small limit and still opening files.
 */
#include <sys/resource.h>
#include "util.h"

static int max_at(rlim_t soft)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = soft;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	return spawnkit_template_cache_max();
}

/* An eighth of the fd limit, at least 4, at most 256; the constants. */
TEST(bound_follows_fd_limit)
{
	struct rlimit saved;

	getrlimit(RLIMIT_NOFILE, &saved);
	CHECK_EQ(max_at(16), 4);
	CHECK_EQ(max_at(40), 5);
	CHECK_EQ(max_at(256), 32);
	CHECK_EQ(max_at(1024), 128);
	if (saved.rlim_max >= 4096)
		CHECK_EQ(max_at(4096), 256);
	CHECK(SPAWNKIT_STALE_RETRIES >= 1);
	CHECK(SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC > 0);
	setrlimit(RLIMIT_NOFILE, &saved);
}

/* Under ulimit -n 256: a full cache, and fds are still there. */
TEST(full_cache_leaves_fds)
{
	struct rlimit saved;
	struct spawnkit_template *t[64];
	int n, i, fd;

	getrlimit(RLIMIT_NOFILE, &saved);
	n = max_at(256);
	CHECK(n > 0 && n <= 64);
	for (i = 0; i < n && i < 64; i++)
		CHECK_EQ(spawnkit_template_create(probe_path(), 0,
						  &t[i]), 0);
	for (int k = 0; k < 150; k++) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		CHECK(fd >= 0);
		if (fd < 0)
			break;
	}
	for (i = 0; i < n && i < 64; i++)
		spawnkit_template_destroy(t[i]);
	setrlimit(RLIMIT_NOFILE, &saved);
}

TEST_HARNESS_MAIN

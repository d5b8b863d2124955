/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "parent_state.h"

static void *ballast;
static size_t ballast_len;

int ballast_set(size_t bytes)
{
	size_t off;
	long page = sysconf(_SC_PAGESIZE);

	if (ballast)
		munmap(ballast, ballast_len);
	ballast = NULL;
	ballast_len = 0;
	if (!bytes)
		return 0;
	ballast = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ballast == MAP_FAILED) {
		ballast = NULL;
		return -errno;
	}
	ballast_len = bytes;
	/*
	 * Small pages, as a malloc heap of that size mostly is: fork's cost is
	 * per page table entry, and transparent huge pages would hide it.
	 */
	madvise(ballast, bytes, MADV_NOHUGEPAGE);
	/* A distinct non-zero byte per page: real private pages, no zero page. */
	for (off = 0; off < bytes; off += (size_t)page)
		((volatile unsigned char *)ballast)[off] = (unsigned char)(off / page) | 1;
	return 0;
}

long vmrss_kib(void)
{
	char line[256];
	long kib = -ENOENT;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* Walk /proc/self/fd: the count, and the highest fd (excluding the walk's own). */
static int fds_scan(int *highest)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0, hi = -1;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d))
			continue;
		n++;
		if (fd > hi)
			hi = fd;
	}
	closedir(d);
	if (highest)
		*highest = hi;
	return n;
}

int fds_count(void)
{
	return fds_scan(NULL);
}

int fds_highest(void)
{
	int hi, ret = fds_scan(&hi);

	return ret < 0 ? ret : hi;
}

/* The dups we made, newest last, so that shrinking closes the top ones. */
static int *extra;
static int nr_extra, cap_extra;

int fds_set(int total)
{
	int have = fds_count(), devnull;

	if (have < 0)
		return have;
	while (have > total && nr_extra > 0) {
		close(extra[--nr_extra]);
		have--;
	}
	if (have >= total)
		return 0;
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl))
			return -errno;
		if (rl.rlim_cur < (rlim_t)total + 64) {
			rl.rlim_cur = (rlim_t)total + 64;
			if (rl.rlim_max < rl.rlim_cur)
				rl.rlim_max = rl.rlim_cur;
			if (setrlimit(RLIMIT_NOFILE, &rl))
				return -errno;
		}
	}
	if (cap_extra < nr_extra + (total - have)) {
		int cap = nr_extra + (total - have);
		int *p = realloc(extra, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		extra = p;
		cap_extra = cap;
	}
	devnull = open("/dev/null", O_RDWR);
	if (devnull < 0)
		return -errno;
	extra[nr_extra++] = devnull;
	have++;
	while (have < total) {
		/* Plain dup: not close-on-exec, like the fds a real parent leaks. */
		int fd = dup(devnull);

		if (fd < 0)
			return -errno;
		extra[nr_extra++] = fd;
		have++;
	}
	return 0;
}

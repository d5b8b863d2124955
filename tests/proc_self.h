/* SPDX-License-Identifier: MIT */
/*
 * proc_self.h - what every test program (tests/<area>/t_*.c, the stress
 * programs) learns about itself from /proc/self: where the programs it
 * starts were built (the helpers, the tools), how many fds it has open,
 * and its memory (address space and resident size).
 */
#ifndef SPAWNKIT_TEST_PROC_SELF_H
#define SPAWNKIT_TEST_PROC_SELF_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* build/tests/AREA/prog -> build/REL, into buf (the build directory is
 * the one this program was built in: build/, or the guest's). */
static inline void build_path_to(char *buf, size_t len, const char *rel)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0) {
		perror("readlink /proc/self/exe");
		exit(2);
	}
	exe[n] = '\0';
	for (int up = 0; up < 3; up++) {	/* prog, AREA, tests */
		char *slash = strrchr(exe, '/');

		if (!slash) {
			fprintf(stderr, "%s: not under build/tests/AREA/\n", exe);
			exit(2);
		}
		*slash = '\0';
	}
	if ((size_t)snprintf(buf, len, "%s/%s", exe, rel) >= len) {
		fprintf(stderr, "%s/%s: path too long\n", exe, rel);
		exit(2);
	}
}

/* build/tests/helpers/NAME, into buf. */
static inline void helper_path_to(char *buf, size_t len, const char *name)
{
	char rel[256];

	if ((size_t)snprintf(rel, sizeof(rel), "tests/helpers/%s", name) >= sizeof(rel)) {
		fprintf(stderr, "helper name too long: %s\n", name);
		exit(2);
	}
	build_path_to(buf, len, rel);
}

/* The same in a static buffer: valid until the next call. */
static inline const char *helper_path(const char *name)
{
	static char path[PATH_MAX + 64];

	helper_path_to(path, sizeof(path), name);
	return path;
}

/* The fds this process has open (not the one reading /proc/self/fd). */
static inline int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n - 1;
}

/* Field `field` of /proc/self/statm (0 the address space, 1 resident) in
 * KiB; 0 if it cannot be read. */
static inline long statm_kb(int field)
{
	long v[2] = { 0, 0 };
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &v[0], &v[1]) != 2)
			v[0] = v[1] = 0;
		fclose(f);
	}
	return v[field] * (sysconf(_SC_PAGESIZE) / 1024);
}

static inline long vm_size_kb(void)
{
	return statm_kb(0);
}

static inline long rss_kb(void)
{
	return statm_kb(1);
}

#endif

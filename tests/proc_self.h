/* SPDX-License-Identifier: MIT */
/*
 * proc_self.h - what every test program (tests/<area>/t_*.c, the stress
 * programs) learns about itself from /proc/self: where the helper programs
 * it starts were built, and how many fds it has open.
 */
#ifndef SPAWNKIT_TEST_PROC_SELF_H
#define SPAWNKIT_TEST_PROC_SELF_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* build/tests/AREA/prog -> build/tests/helpers/NAME, into buf. */
static inline void helper_path_to(char *buf, size_t len, const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n < 0) {
		perror("readlink /proc/self/exe");
		exit(2);
	}
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';		/* the program's directory */
	slash = strrchr(exe, '/');		/* ...and its area's */
	if (slash)
		*slash = '\0';
	snprintf(buf, len, "%s/helpers/%s", exe, name);
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

#endif

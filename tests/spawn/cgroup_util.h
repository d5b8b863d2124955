/* SPDX-License-Identifier: MIT */
/*
 * cgroup_util.h - find a cgroup2 directory the tests may make children in:
 * the cgroup2 mount (from /proc/self/mountinfo) joined with this process's
 * own cgroup (the "0::" line of /proc/self/cgroup).
 */
#ifndef SPAWNKIT_TEST_CGROUP_UTIL_H
#define SPAWNKIT_TEST_CGROUP_UTIL_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Make a fresh cgroup "<ours>/<name>" into out; 0, or -errno why not. */
static inline int make_test_cgroup(const char *name, char *out, size_t outlen)
{
	char line[4096], mnt[1024] = "", own[2048] = "";
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - cgroup2 ");
		char m[1024];

		if (sep && sscanf(line, "%*s %*s %*s %*s %1023s", m) == 1) {
			snprintf(mnt, sizeof(mnt), "%s", m);
			break;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(own, sizeof(own), "%.2000s", line + 3);
		}
	if (f)
		fclose(f);
	if (!mnt[0] || !own[0])
		return -ENOENT;
	snprintf(out, outlen, "%s%s/%s", mnt, strcmp(own, "/") ? own : "", name);
	if (mkdir(out, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

#endif

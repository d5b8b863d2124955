/* SPDX-License-Identifier: MIT */
/*
 * probe_path.h - where the stress programs find build/tests/helpers/probe
 * (the static-friendly child that exits with the status it is asked for):
 * build/tests/stress/c_x -> build/tests/helpers/probe.
 */
#ifndef SPAWNKIT_STRESS_PROBE_PATH_H
#define SPAWNKIT_STRESS_PROBE_PATH_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline const char *probe_path(void)
{
	static char path[PATH_MAX + 32];
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		abort();
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/helpers/probe", exe);
	return path;
}

#endif

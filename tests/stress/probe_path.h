/* SPDX-License-Identifier: MIT */
/*
 * probe_path.h - where the stress programs find build/tests/helpers/probe
 * (the static-friendly child that exits with the status it is asked for):
 * build/tests/stress/c_x -> build/tests/helpers/probe.
 */
#ifndef SPAWNKIT_STRESS_PROBE_PATH_H
#define SPAWNKIT_STRESS_PROBE_PATH_H

#include <limits.h>
#include "../proc_self.h"

/* Worked out on the first call and kept. */
static inline const char *probe_path(void)
{
	static char path[PATH_MAX + 64];

	if (!path[0])
		helper_path_to(path, sizeof(path), "probe");
	return path;
}

#endif

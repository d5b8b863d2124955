/* SPDX-License-Identifier: MIT */
/*
 * path_tree.h - the scratch tree of the PATH search tests (t_pathsearch*):
 * top, a fresh directory under /tmp, and mk() to make directories and
 * small scripts in it.  Each script exits 7, so a test that runs one can
 * tell it ran.
 */
#ifndef SPAWNKIT_TEST_PATH_TREE_H
#define SPAWNKIT_TEST_PATH_TREE_H

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

static char top[64];	/* /tmp/PREFIX-XXXXXX */

/* A fresh top, /tmp/PREFIX-XXXXXX; the case fails without one. */
static inline void tree_create(const char *prefix)
{
	snprintf(top, sizeof(top), "/tmp/%s-XXXXXX", prefix);
	ASSERT_TRUE(mkdtemp(top) != NULL);
}

/* top/rel: a directory (mode 0) or a script with that mode. */
static inline void mk(const char *rel, int mode)
{
	static const char script[] = "#!/bin/sh\nexit 7\n";
	char p[2 * PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (!mode) {
		CHECK_EQ(mkdir(p, 0755), 0);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, mode);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, script, sizeof(script) - 1), sizeof(script) - 1);
	close(fd);
	CHECK_EQ(chmod(p, mode), 0);
}

static inline void tree_remove(void)
{
	char cmd[sizeof(top) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CHECK_EQ(system(cmd), 0);
}

#endif

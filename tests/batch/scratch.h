/* SPDX-License-Identifier: MIT */
/*
 * scratch.h - the scratch tree of the batch tests that need files (t_mdu,
 * t_total, t_pathsearch*, t_wordcopy, t_resume, t_short_eintr): top, a
 * fresh directory under /tmp made by tree_create() in the case's own
 * process and removed by tree_remove(), and what they make in it:
 * directories, files of a size or a text, small scripts.
 */
#ifndef SPAWNKIT_TEST_SCRATCH_H
#define SPAWNKIT_TEST_SCRATCH_H

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static inline void tree_remove(void)
{
	char cmd[sizeof(top) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CHECK_EQ(system(cmd), 0);
}

/* top/rel, in one of four buffers that take turns (so a call may name
 * up to four paths at once). */
static inline char *at(const char *rel)
{
	static char bufs[4][sizeof(top) + PATH_MAX];
	static int i;
	char *p = bufs[i++ % 4];

	snprintf(p, sizeof(bufs[0]), "%s/%s", top, rel);
	return p;
}

static inline void dir(const char *rel)
{
	CHECK_EQ(mkdir(at(rel), 0755), 0);
}

/* top/rel: size bytes of 'x'. */
static inline void put(const char *rel, size_t size)
{
	char buf[8192];
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	CHECK(fd >= 0);
	memset(buf, 'x', sizeof(buf));
	while (size) {
		size_t n = size < sizeof(buf) ? size : sizeof(buf);

		CHECK_EQ(write(fd, buf, n), n);
		size -= n;
	}
	close(fd);
}

/* top/rel holding text. */
static inline void put_text(const char *rel, const char *text)
{
	size_t n = strlen(text);
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, text, n), n);
	close(fd);
}

/* top/rel: a directory (mode 0) or a script with that mode; the script
 * exits 7, so a test that runs one can tell it ran. */
static inline void mk(const char *rel, int mode)
{
	static const char script[] = "#!/bin/sh\nexit 7\n";
	char *p;
	int fd;

	if (!mode) {
		dir(rel);
		return;
	}
	p = at(rel);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, mode);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, script, sizeof(script) - 1), sizeof(script) - 1);
	close(fd);
	CHECK_EQ(chmod(p, mode), 0);
}

#endif

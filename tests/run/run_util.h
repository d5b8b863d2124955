/* SPDX-License-Identifier: MIT */
/*
 * run_util.h - helpers of the tests/run programs: options with defaults,
 * captures as strings, helper paths, "is this pid gone" with a generous
 * bound (the suite also runs in a QEMU/TCG guest, 10-50x slower).
 */
#ifndef SPAWNKIT_TEST_RUN_UTIL_H
#define SPAWNKIT_TEST_RUN_UTIL_H

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <spawnkit/run.h>
#include "harness.h"
#include "proc_self.h"

extern char **environ;

/* build/tests/run/t_x -> build/tests/helpers/NAME */
static inline const char *helper(const char *name)
{
	return helper_path(name);
}

/* head + tail of a capture as one NUL-terminated string (static buffer) */
static inline const char *joined(const struct spawnkit_run_output *o)
{
	static char buf[1 << 16];
	size_t h = o->head_len < sizeof(buf) - 1 ? o->head_len : sizeof(buf) - 1;
	size_t t = o->tail_len < sizeof(buf) - 1 - h ? o->tail_len : sizeof(buf) - 1 - h;

	if (h)
		memcpy(buf, o->head, h);
	if (t)
		memcpy(buf + h, o->tail, t);
	buf[h + t] = '\0';
	return buf;
}

/* Run `file -c code` (argv[0] name) with o's other settings; returns
 * spawnkit_run's value. */
static inline int run_dash_c(struct spawnkit_run_opts *o, const char *file,
			     const char *name, const char *code,
			     struct spawnkit_run_result *r)
{
	static char *argv[4];

	argv[0] = (char *)name;
	argv[1] = "-c";
	argv[2] = (char *)code;
	argv[3] = NULL;
	o->argv = argv;
	o->file = file;
	return spawnkit_run(o, r);
}

/* Run sh -c script with o's other settings; returns spawnkit_run's value. */
static inline int run_sh(struct spawnkit_run_opts *o, const char *script,
			 struct spawnkit_run_result *r)
{
	return run_dash_c(o, "/bin/sh", "sh", script, r);
}

/* A scale for the few waits a test needs: SPAWNKIT_TEST_SLOW (default 1). */
static inline int slow(void)
{
	const char *e = getenv("SPAWNKIT_TEST_SLOW");
	int f = e ? atoi(e) : 1;

	return f > 0 ? f : 1;
}

static inline double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* 1 once pid is gone or a zombie, checked for up to bound_s seconds. */
static inline int gone_within(pid_t pid, int bound_s)
{
	char path[64], buf[512], *rp;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < bound_s * 50; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			return 1;
		buf[0] = '\0';
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		rp = strrchr(buf, ')');
		if (!rp || rp[2] == 'Z' || rp[2] == 'X')
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

#endif

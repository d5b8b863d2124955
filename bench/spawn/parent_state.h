/* SPDX-License-Identifier: MIT */
/*
 * parent_state.h - make the benchmark process look like a big parent:
 * resident anonymous memory (every page touched, checked in VmRSS) and many
 * open fds (dups of /dev/null, inherited by children that do not close them).
 */
#ifndef BENCH_SPAWN_PARENT_STATE_H
#define BENCH_SPAWN_PARENT_STATE_H

#include <stddef.h>

/* Map and touch `bytes` of anonymous memory in 4 KiB pages (replacing any
 * earlier ballast); 0 or -errno.  Check with vmrss_kib(). */
int ballast_set(size_t bytes);

/* VmRSS of this process in KiB, or -errno. */
long vmrss_kib(void);

/* Open or close dups of /dev/null until this process has `total` open fds,
 * raising RLIMIT_NOFILE as needed; 0 or -errno. */
int fds_set(int total);

/* Number of open fds of this process (counted in /proc/self/fd), or -errno. */
int fds_count(void);

/* The highest open fd, or -errno. */
int fds_highest(void);

#endif

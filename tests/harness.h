/* SPDX-License-Identifier: MIT */
/*
 * harness.h - the tiny test harness every tests/<area>/t_*.c uses.
 *
 * A test program checks one feature with many CHECK()s, prints one line per
 * failed check, and ends with TEST_DONE(), which prints "<name>: N checks,
 * N failed" and exits 0 (all passed) or 1.  A program that cannot run here
 * (a missing kernel feature) calls TEST_SKIP(why): exit 77, which the runner
 * counts as skipped, never as passed.
 */
#ifndef SPAWNKIT_TEST_HARNESS_H
#define SPAWNKIT_TEST_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int th_checks, th_failed;

#define CHECK(cond) do {						\
	th_checks++;							\
	if (!(cond)) {							\
		th_failed++;						\
		fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

/* Compare two integer expressions and print both on mismatch. */
#define CHECK_EQ(a, b) do {						\
	long long th_a = (long long)(a), th_b = (long long)(b);		\
	th_checks++;							\
	if (th_a != th_b) {						\
		th_failed++;						\
		fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n",	\
			__FILE__, __LINE__, #a, #b, th_a, th_b);		\
	}								\
} while (0)

/* A call that must fail with -E (the library's convention). */
#define CHECK_ERR(expr, E) CHECK_EQ((expr), -(E))

#define TEST_SKIP(why) do {						\
	printf("SKIP %s: %s\n", __FILE__, why);				\
	exit(77);							\
} while (0)

#define TEST_DONE() do {						\
	printf("%s: %d checks, %d failed\n", __FILE__, th_checks, th_failed); \
	exit(th_failed || !th_checks ? 1 : 0);				\
} while (0)

#endif

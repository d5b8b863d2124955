/* SPDX-License-Identifier: MIT */
/*
 * per_entry - cost of one batch entry vs batch length, per backend.
 *
 *   per_entry [REPS] > per_entry.csv
 *
 * Each entry is write(/dev/null, buf, 8): cheap, the same on every backend
 * (io_uring runs it inline, no worker thread).  "loop" is the same calls as
 * plain syscalls in a C loop (what a program does without batches).  For
 * each repetition, every length and every method are timed in turn
 * (interleaved), each for enough iterations to last ~5 ms; every call's
 * result is checked (a failed call must not look fast).  Prints CSV:
 *   method,length,rep,ns_per_entry
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <spawnkit/batch.h>
#include "common/sys.h"

static const unsigned int lengths[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 };
#define NLEN (sizeof(lengths) / sizeof(lengths[0]))

static struct batch_entry ents[BATCH_MAX_ENTRIES];
static int64_t res[BATCH_MAX_ENTRIES];
static char buf[8];
static int null_fd;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void fail(const char *what, unsigned int len, long v)
{
	fprintf(stderr, "per_entry: %s at length %u: %ld\n", what, len, v);
	exit(1);
}

/* Run `iters` rounds of len entries with method m; ns per entry. */
static double run(int m, unsigned int len, unsigned long iters)
{
	double t0 = now_ns();

	for (unsigned long it = 0; it < iters; it++) {
		if (m == 0) {	/* plain syscalls */
			for (unsigned int i = 0; i < len; i++) {
				long r = sk_syscall3(SYS_write, null_fd, buf, 8);

				if (r != 8)
					fail("write", len, r);
			}
			continue;
		}
		long ret = spawnkit_batch_run(m, ents, res, len, 0);

		if (ret != (long)len - 1)
			fail("batch", len, ret);
		for (unsigned int i = 0; i < len; i++)
			if (res[i] != 8)
				fail("result", len, (long)res[i]);
	}
	return (now_ns() - t0) / ((double)iters * len);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 7;
	const char *names[4] = { "loop", "emulator", "uring", "kernel" };
	int methods[4], nm = 0;
	unsigned long iters[4][NLEN];

	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (unsigned int i = 0; i < BATCH_MAX_ENTRIES; i++) {
		ents[i] = BATCH_CALL3(SYS_write, null_fd, buf, 8);
		spawnkit_batch_end_on_error(&ents[i]);
	}
	methods[nm++] = 0;
	for (int b = SPAWNKIT_BATCH_EMULATOR; b <= SPAWNKIT_BATCH_KERNEL; b++)
		if (spawnkit_batch_backend_available(b))
			methods[nm++] = b;
	/* Calibrate: iterations for ~5 ms per (method, length). */
	for (int k = 0; k < nm; k++)
		for (unsigned int l = 0; l < NLEN; l++) {
			double ns = run(methods[k], lengths[l], 20);
			double n = 5e6 / (ns * lengths[l]);

			iters[k][l] = n < 5 ? 5 : (unsigned long)n;
		}
	printf("method,length,rep,ns_per_entry\n");
	for (int rep = 0; rep < reps; rep++)
		for (unsigned int l = 0; l < NLEN; l++)
			for (int k = 0; k < nm; k++) {
				/* rotate the order so no method always goes first */
				int kk = (k + rep + l) % nm;
				double ns = run(methods[kk], lengths[l], iters[kk][l]);

				printf("%s,%u,%d,%.2f\n", names[methods[kk]], lengths[l], rep, ns);
			}
	return 0;
}

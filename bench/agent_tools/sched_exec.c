/* SPDX-License-Identifier: MIT */
/*
 * sched_exec SLICE_NS NICE PROGRAM [ARG...] - a diagnostic for
 * sched_variants.py: set this process's EEVDF slice (sched_setattr's
 * sched_runtime on SCHED_OTHER; 0 is the kernel's default) and add NICE to
 * its nice value, then exec PROGRAM.  Both are inherited across exec and
 * fork, which is how the variants reach the tools (or the Node harness).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

struct attr {			/* struct sched_attr, SCHED_ATTR_SIZE_VER1 */
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

int main(int argc, char **argv)
{
	struct attr a = { 0 };
	int inc;

	if (argc < 4) {
		fprintf(stderr, "usage: sched_exec SLICE_NS NICE PROGRAM [ARG...]\n");
		return 2;
	}
	inc = atoi(argv[2]);
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0)) {
		perror("sched_exec: sched_getattr");
		return 126;
	}
	a.size = sizeof(a);
	a.flags &= 1;			/* keep only SCHED_FLAG_RESET_ON_FORK */
	a.runtime = strtoull(argv[1], NULL, 10);
	a.nice += inc;			/* the kernel clamps it to -20..19 */
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		perror("sched_exec: sched_setattr");
		return 126;
	}
	execvp(argv[3], argv + 3);
	perror("sched_exec: exec");
	return 127;
}

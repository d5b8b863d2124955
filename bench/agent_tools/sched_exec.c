/* SPDX-License-Identifier: MIT */
/*
 * sched_exec [POLICY:]SLICE_NS NICE PROGRAM [ARG...] - a diagnostic for
 * sched_variants.py: set this process's policy (other, batch or idle; by
 * default the one it has), its EEVDF slice (sched_setattr's sched_runtime;
 * 0 is the kernel's default, except that "idle:0" keeps the slice it has)
 * and add NICE to its nice value, then exec PROGRAM.  All are
 * inherited across exec and fork, which is how the variants reach the
 * tools (or the Node harness).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* "other:", "batch:" or "idle:" before the slice: that policy (the
 * kernel's numbers); -1 for none, with *rest past what was read. */
static int policy_prefix(const char *s, const char **rest)
{
	static const struct { const char *name; int policy; } p[] = {
		{ "other:", 0 }, { "batch:", 3 }, { "idle:", 5 },
	};

	for (unsigned int i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (!strncmp(s, p[i].name, strlen(p[i].name))) {
			*rest = s + strlen(p[i].name);
			return p[i].policy;
		}
	*rest = s;
	return -1;
}

int main(int argc, char **argv)
{
	struct attr a = { 0 };
	const char *slice;
	int inc, policy;

	if (argc < 4) {
		fprintf(stderr, "usage: sched_exec [other:|batch:|idle:]SLICE_NS NICE PROGRAM [ARG...]\n");
		return 2;
	}
	policy = policy_prefix(argv[1], &slice);
	inc = atoi(argv[2]);
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0)) {
		perror("sched_exec: sched_getattr");
		return 126;
	}
	a.size = sizeof(a);
	a.flags &= 1;			/* keep only SCHED_FLAG_RESET_ON_FORK */
	a.runtime = strtoull(slice, NULL, 10);
	a.nice += inc;			/* the kernel clamps it to -20..19 */
	/* The kernel leaves a SCHED_IDLE task's slice alone, also when it
	 * becomes one: "idle:N" (N > 0) sets the slice first, under the policy
	 * the task has; "idle:0" keeps the one it inherited. */
	if (policy == 5 && a.runtime && a.policy != 5 &&
	    syscall(SYS_sched_setattr, 0, &a, 0)) {
		perror("sched_exec: sched_setattr (slice)");
		return 126;
	}
	if (policy >= 0)
		a.policy = (uint32_t)policy;
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		perror("sched_exec: sched_setattr");
		return 126;
	}
	execvp(argv[3], argv + 3);
	perror("sched_exec: exec");
	return 127;
}

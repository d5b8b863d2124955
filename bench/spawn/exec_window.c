/* SPDX-License-Identifier: MIT */
/*
 * exec_window.c - can a spawning parent's work overlap its child's exec
 * on this host?
 *
 *   exec_window [--calls N] [--reps N] [--spin US] [PROGRAM]   (/bin/true)
 *
 * A vfork-style spawn returns when the child execs; the child then loads
 * and runs the program while the parent only waits for its exit.  Work the
 * parent does there (making the next run's pipes, freeing the last run's)
 * is off the run's critical path only if the two run on different CPUs at
 * once.  This times vfork + execve + waitpid with and without --spin us of
 * busy work in the parent right after vfork returns, interleaved (the
 * order flipping every repetition), and prints the paired median of the
 * added wall time per call: about --spin means no overlap (moving work
 * there gains nothing), about 0 full overlap.  It also counts the starts
 * whose child ran on another CPU than its parent's before the clone
 * (sched_getcpu in the child before its exec), and those where the parent
 * came back on another CPU, with the idle share of all CPUs meanwhile
 * (/proc/stat), which says whether a CPU was free to take either.
 *
 * Measured 2026-11-27 on the 2-vCPU CI host (Firecracker guest kernel
 * 6.18, booted with sched_vcpu_pack=15): 10 us of spin added 7-14 us,
 * 0 of 6000 children elsewhere, with the other CPU ~98 % idle.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

extern char **environ;

#define MAX_REPS 4096

static char *prog_argv[2];
static int child_elsewhere, parent_moved;

static double mono_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static void one(double spin_us)
{
	volatile int child_cpu = -1;
	int cpu = sched_getcpu(), st;
	double t;
	pid_t p = vfork();

	if (p == 0) {
		child_cpu = sched_getcpu();	/* shared memory until the exec */
		execve(prog_argv[0], prog_argv, environ);
		_exit(127);
	}
	if (p < 0) {
		perror("exec_window: vfork");
		exit(1);
	}
	child_elsewhere += child_cpu != cpu;
	parent_moved += sched_getcpu() != cpu;
	t = mono_us();
	while (mono_us() - t < spin_us)
		;
	if (waitpid(p, &st, 0) != p || st != 0) {
		fprintf(stderr, "exec_window: %s failed\n", prog_argv[0]);
		exit(1);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n), v sorted in place. */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Idle and total jiffies of all CPUs so far. */
static void cpu_jiffies(double *idle, double *total)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	*idle = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 4) {
		for (i = 0; i < 8; i++)		/* guest times are in user/nice */
			*total += (double)v[i];
		*idle = (double)v[3];
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	static double wall[2][MAX_REPS], d[MAX_REPS];
	int calls = 10, reps = 200, i, r, k;
	double spin = 10, i0, t0, i1, t1, added;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--spin") && i + 1 < argc)
			spin = atof(argv[++i]);
		else if (argv[i][0] != '-')
			prog_argv[0] = argv[i];
		else {
			fprintf(stderr, "usage: exec_window [--calls N] [--reps N] [--spin US] [PROGRAM]\n");
			return 2;
		}
	}
	if (calls < 1 || reps < 1 || reps > MAX_REPS || spin <= 0) {
		fprintf(stderr, "exec_window: --calls >= 1, 1 <= --reps <= %d, --spin > 0\n", MAX_REPS);
		return 2;
	}
	if (!prog_argv[0])
		prog_argv[0] = "/bin/true";
	for (i = 0; i < calls; i++)		/* warm-up */
		one(0);
	child_elsewhere = parent_moved = 0;
	cpu_jiffies(&i0, &t0);
	for (r = 0; r < reps; r++)
		for (k = 0; k < 2; k++) {
			int m = r & 1 ? 1 - k : k;
			double t = mono_us();

			for (i = 0; i < calls; i++)
				one(m ? spin : 0);
			wall[m][r] = (mono_us() - t) / calls;
		}
	cpu_jiffies(&i1, &t1);
	for (r = 0; r < reps; r++)
		d[r] = wall[1][r] - wall[0][r];
	added = median(d, reps);
	printf("%s, %d calls x %d reps, interleaved\n", prog_argv[0], calls, reps);
	printf("no spin %.1f us, %.0f us spin %.1f us per call (medians)\n",
	       median(wall[0], reps), spin, median(wall[1], reps));
	printf("added by the spin: %.1f us (paired median): %.0f %% of it on the critical path\n",
	       added, 100 * added / spin);
	printf("child on another CPU than its parent: %d of %d; parent back elsewhere: %d\n",
	       child_elsewhere, 2 * reps * calls, parent_moved);
	if (t1 > t0)
		printf("idle share of all CPUs meanwhile: %.0f %%\n", 100 * (i1 - i0) / (t1 - t0));
	return 0;
}

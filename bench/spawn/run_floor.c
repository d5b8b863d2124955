/* SPDX-License-Identifier: MIT */
/*
 * run_floor.c - what a default spawnkit_run() of a program costs over the
 * floor of starting it at all, per call, interleaved in one process.
 *
 *   run_floor [--calls N] [--reps N] [PROGRAM]     (default /bin/true)
 *
 * Methods: vfork + execve + wait4 (what subprocess does), posix_spawn +
 * waitpid, spawnkit_spawn() without a pidfd + waitpid (the template's own
 * cost), spawnkit_run() as Python's run(argv) calls it (stdin /dev/null,
 * both outputs captured, a new session, SIGPIPE and SIGXFSZ restored) and
 * the same without the session or the capture.  Each repetition runs
 * `calls` calls of every method, the order reversed every other time, so
 * load and drift hit them alike; a small `calls` and many `reps`
 * interleave finely enough for a loaded host.  Every call's status (and
 * the run's empty output) is checked.  Prints per method the median and
 * 25th percentile of the per-call wall time, the median per-call CPU time
 * of this process (the parent: the child's is not in it) and voluntary
 * context switches per call, and the median paired difference to vfork.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <spawnkit/run.h>
#include <spawnkit/spawnkit.h>

extern char **environ;

#define MAX_REPS 4096

static char *prog_argv[2];
static struct spawnkit_template *tmpl;

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "run_floor: %s failed\n", what);
		exit(1);
	}
}

static void m_vfork(void)
{
	int st;
	pid_t p = vfork();

	if (p == 0) {
		execve(prog_argv[0], prog_argv, environ);
		_exit(127);
	}
	check(p > 0 && waitpid(p, &st, 0) == p && st == 0, "vfork");
}

static void m_posix_spawn(void)
{
	int st;
	pid_t p;

	check(!posix_spawn(&p, prog_argv[0], NULL, NULL, prog_argv, environ) &&
	      waitpid(p, &st, 0) == p && st == 0, "posix_spawn");
}

static void m_spawn(void)
{
	int st;
	pid_t p = spawnkit_spawn(tmpl, prog_argv, environ, NULL, 0, 0, NULL);

	check(p > 0 && waitpid(p, &st, 0) == p && st == 0, "spawnkit_spawn");
}

static void run_with(unsigned int flags, int capture)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int i;

	spawnkit_run_opts_init(&o);
	o.std_mode[0] = SPAWNKIT_RUN_DEVNULL;
	o.flags = SPAWNKIT_RUN_RESTORE_SIGNALS | flags;
	for (i = 1; !capture && i < 3; i++) {
		o.std_mode[i] = SPAWNKIT_RUN_INHERIT;
		o.head[i] = o.tail[i] = 0;
	}
	o.argv = prog_argv;
	o.tmpl = tmpl;
	check(spawnkit_run(&o, &r) == 0 && r.status == 0 &&
	      !r.out[1].total && !r.out[2].total, "spawnkit_run");
	spawnkit_run_result_free(&r);
}

static void m_run(void) { run_with(0, 1); }
static void m_run_no_session(void) { run_with(SPAWNKIT_RUN_NO_NEW_SESSION, 1); }
static void m_run_no_capture(void) { run_with(0, 0); }

static const struct method {
	const char *name;
	void (*fn)(void);
} methods[] = {
	{ "vfork+execve+wait4", m_vfork },
	{ "posix_spawn+waitpid", m_posix_spawn },
	{ "spawnkit_spawn", m_spawn },
	{ "spawnkit_run", m_run },
	{ "run, no session", m_run_no_session },
	{ "run, no capture", m_run_no_capture },
};
#define NM (sizeof(methods) / sizeof(methods[0]))

static double wall_t[NM][MAX_REPS], cpu_t[NM][MAX_REPS], csw[NM][MAX_REPS];

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *v, int n, int q)
{
	static double s[MAX_REPS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp);
	return s[n * q / 100];
}

int main(int argc, char **argv)
{
	int calls = 20, reps = 150, i, r, k;
	double load[3], d[MAX_REPS];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (argv[i][0] != '-')
			prog_argv[0] = argv[i];
		else {
			fprintf(stderr, "usage: run_floor [--calls N] [--reps N] [PROGRAM]\n");
			return 2;
		}
	}
	if (calls < 1 || reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "run_floor: --calls >= 1, 1 <= --reps <= %d\n", MAX_REPS);
		return 2;
	}
	if (!prog_argv[0])
		prog_argv[0] = "/bin/true";
	check(spawnkit_template_create(prog_argv[0], 0, &tmpl) == 0, "spawnkit_template_create");
	for (r = -1; r < reps; r++) {		/* r == -1: warm-up */
		for (k = 0; k < (int)NM; k++) {
			int m = r & 1 ? (int)NM - 1 - k : k, n = r < 0 ? 1 + calls / 5 : calls;
			struct rusage u0, u1;
			double t0, c0;

			getrusage(RUSAGE_SELF, &u0);
			t0 = mono();
			c0 = cpu();
			for (i = 0; i < n; i++)
				methods[m].fn();
			if (r < 0)
				continue;
			wall_t[m][r] = (mono() - t0) / calls * 1e6;
			cpu_t[m][r] = (cpu() - c0) / calls * 1e6;
			getrusage(RUSAGE_SELF, &u1);
			csw[m][r] = (double)(u1.ru_nvcsw - u0.ru_nvcsw) / calls;
		}
	}
	getloadavg(load, 3);
	printf("%s, %d calls x %d reps per method, interleaved; load average %.2f %.2f %.2f\n",
	       prog_argv[0], calls, reps, load[0], load[1], load[2]);
	printf("%-22s %9s %9s %10s %8s %12s\n", "method", "wall med", "wall p25",
	       "parent cpu", "vcsw", "- vfork med");
	for (k = 0; k < (int)NM; k++) {
		for (r = 0; r < reps; r++)
			d[r] = wall_t[k][r] - wall_t[0][r];
		printf("%-22s %7.1f us %6.1f us %7.1f us %8.2f %+9.1f us\n", methods[k].name,
		       quantile(wall_t[k], reps, 50), quantile(wall_t[k], reps, 25),
		       quantile(cpu_t[k], reps, 50), quantile(csw[k], reps, 50),
		       quantile(d, reps, 50));
	}
	spawnkit_template_destroy(tmpl);
	return 0;
}

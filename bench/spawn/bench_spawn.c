/* SPDX-License-Identifier: MIT */
/*
 * bench_spawn.c - latency of one process start, per method, as the parent
 * grows.
 *
 * One "start" is: start the target (a tiny program exiting with the status
 * it is given), wait for it, check that it exited with exactly that status.
 * A start that fails aborts the run with a message: a failure never counts as
 * a fast start.  Methods are interleaved (each iteration runs every method
 * once, the order rotated), the iterations are split into rounds, and each
 * method's min / median / max, mean +- sd and the spread of its per-round
 * medians are reported, with the ratio of its median to the fastest raw
 * (non-spawnkit) method's in the same parent state.
 *
 * Parent states: resident anonymous memory (every page touched, VmRSS
 * checked) x open fds (dups of /dev/null, not close-on-exec), for a static
 * and a dynamic target.  The default grid walks the memory axis with 10 fds
 * and the fd axis with no ballast; --full runs the whole cross product.
 *
 * Usage: bench_spawn [options]   (see usage() or docs/spawn-bench.md)
 */
#include <errno.h>
#include <getopt.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <spawnkit/spawnkit.h>
#include "methods.h"
#include "parent_state.h"
#include "stats.h"

#define MAX_METHODS	9
#define MAX_STATES	64
#define EXIT_MAGIC	42	/* the status every target start must exit with */

struct state {
	long mem_mib;
	int fds;		/* open fds measured at */
	int fds_asked;		/* open fds asked for (more than the limit allows?) */
};

struct target {
	const char *name;	/* "static" / "dynamic" */
	const char *path;
	struct target_ctx ctx;
};

struct result {
	struct state st;
	long vmrss_kib;
	int fds_open, fds_highest;
	const struct target *tgt;
	int iterations, rounds;
	double seconds;
	int best_raw;			/* index into active[] */
	struct stats s[MAX_METHODS];
	double paired[MAX_METHODS];	/* paired median ratio to best_raw */
};

static struct opts {
	int full;
	const char *json;
	const char *static_path, *dynamic_path;
	int max_samples, min_samples, rounds;
	double budget;
	char *methods;			/* comma list, or NULL for all */
	char *targets;			/* comma list */
	long mem_list[8];
	int nr_mem;
	int fd_list[8];
	int nr_fd;
} o = {
	.max_samples = 400, .min_samples = 20, .rounds = 5, .budget = 10.0,
};

static const struct method *active[MAX_METHODS];
static int nr_active;
static struct target targets[2];
static int nr_targets;
static struct result results[MAX_STATES * 2];
static char start_load[128] = "unknown";
static int nr_results;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "bench_spawn: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One checked start: returns its latency in microseconds, or dies. */
static double start_once(const struct method *m, const struct target *t)
{
	double t0 = now_us(), t1;
	pid_t pid = m->start(&t->ctx), w;
	int status;

	if (pid < 0)
		die("%s (%s target): start failed: %s", m->name, t->name, strerror(-pid));
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	t1 = now_us();
	if (w != pid)
		die("%s (%s target): waitpid(%d): %s", m->name, t->name, (int)pid,
		    w < 0 ? strerror(errno) : "wrong pid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != EXIT_MAGIC) {
		if (WIFSIGNALED(status))
			die("%s (%s target): child killed by signal %d", m->name,
			    t->name, WTERMSIG(status));
		die("%s (%s target): child exited %d, expected %d (exec failed, or not the bench target?)",
		    m->name, t->name, WEXITSTATUS(status), EXIT_MAGIC);
	}
	return t1 - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Run every active method on one target in the current parent state. */
static void run_target(const struct state *st, const struct target *t, struct result *r)
{
	struct samples smp[MAX_METHODS] = {{0}};
	int want[MAX_METHODS], iters = 0, i, j, k;
	int fds_before = fds_count();
	double est[MAX_METHODS], t_start = now_us();

	/* Warm-up (page cache, the loader, the allocator) and a cost estimate:
	 * the median of 3 interleaved starts per method. */
	for (k = 0; k < 2; k++)
		for (j = 0; j < nr_active; j++)
			start_once(active[j], t);
	for (j = 0; j < nr_active; j++) {
		double w[3];

		for (k = 0; k < 3; k++)
			w[k] = start_once(active[j], t);
		qsort(w, 3, sizeof(w[0]), cmp_double);
		est[j] = w[1];
	}

	/*
	 * Samples per method: an equal share of the time budget, between
	 * min_samples and max_samples.  A slow method (fork+exec from a 2 GiB
	 * parent) then runs in fewer iterations than the fast ones, spread evenly
	 * over the run so that it still meets the same noise.
	 */
	for (j = 0; j < nr_active; j++) {
		double n = o.budget * 1e6 / nr_active / est[j];

		want[j] = n > o.max_samples ? o.max_samples : (int)n;
		if (want[j] < o.min_samples)
			want[j] = o.min_samples;
		if (want[j] > iters)
			iters = want[j];
	}

	for (i = 0; i < iters; i++) {
		int round = (int)((long)i * o.rounds / iters);

		for (k = 0; k < nr_active; k++) {
			j = (i + k) % nr_active;	/* rotated order */
			/* run method j on iteration i iff its evenly spaced
			 * sample counter steps here */
			if ((long)(i + 1) * want[j] / iters == (long)i * want[j] / iters)
				continue;
			if (samples_add(&smp[j], start_once(active[j], t), round, i))
				die("out of memory");
		}
	}

	/* Nothing may leak: no fd (a template's pidfd), no unreaped child. */
	if (fds_count() != fds_before)
		die("%s target: open fds went from %d to %d during the run",
		    t->name, fds_before, fds_count());
	if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
		die("%s target: a child was left unreaped", t->name);

	r->st = *st;
	r->tgt = t;
	r->iterations = iters;
	r->rounds = o.rounds;
	r->seconds = (now_us() - t_start) / 1e6;
	r->best_raw = -1;
	for (j = 0; j < nr_active; j++) {
		stats_compute(&smp[j], o.rounds, &r->s[j]);
		if (active[j]->raw &&
		    (r->best_raw < 0 || r->s[j].median < r->s[r->best_raw].median))
			r->best_raw = j;
	}
	for (j = 0; j < nr_active; j++) {
		int pairs;

		r->paired[j] = r->best_raw < 0 ? NAN :
			stats_paired_ratio(&smp[j], &smp[r->best_raw], &pairs);
	}
	for (j = 0; j < nr_active; j++)
		samples_free(&smp[j]);
}

static double ratio_best(const struct result *r, int j)
{
	return r->best_raw < 0 ? NAN : r->s[j].median / r->s[r->best_raw].median;
}

static void print_result(const struct result *r)
{
	int j;

	printf("\n-- parent %ld MiB resident (VmRSS %ld MiB), %d open fds (highest %d); "
	       "%s target; %d iterations x %d rounds, %.1f s\n",
	       r->st.mem_mib, r->vmrss_kib / 1024, r->fds_open, r->fds_highest,
	       r->tgt->name, r->iterations, r->rounds, r->seconds);
	printf("%-18s %-6s %5s %9s %9s %9s %18s %21s %7s %7s\n", "method", "fds>2", "n",
	       "min us", "median", "max", "mean +- sd", "round medians", "x best", "paired");
	for (j = 0; j < nr_active; j++) {
		const struct stats *s = &r->s[j];
		char ms[32], rm[32];

		snprintf(ms, sizeof(ms), "%.1f +- %.1f", s->mean, s->sd);
		snprintf(rm, sizeof(rm), "%.1f..%.1f", s->round_lo, s->round_hi);
		printf("%-18s %-6s %5d %9.1f %9.1f %9.1f %18s %21s %7.3f %7.3f%s\n",
		       active[j]->name, active[j]->closes_fds ? "closed" : "kept",
		       s->n, s->min, s->median, s->max, ms, rm, ratio_best(r, j),
		       r->paired[j], j == r->best_raw ? " (best raw)" : "");
	}
	fflush(stdout);
}

static int find_method(const char *name)
{
	int j;

	for (j = 0; j < nr_active; j++)
		if (!strcmp(active[j]->name, name))
			return j;
	return -1;
}

/*
 * The goals.  "Within 5 %" is judged on the paired ratio (median
 * over iterations of template / best raw method, both timed in the same
 * iteration), which the load of a shared machine skews least; the ratio of
 * the two medians is printed next to it.
 */
static int print_summary(FILE *json)
{
	int ri, j, tm = find_method("template"), ti = find_method("template-inherit");
	int fk = find_method("fork+execve"), all_ok = 1;

	printf("\n== summary: median us per start; x = median / fastest raw method's median, "
	       "paired = median of per-iteration ratios\n");
	printf("%-14s %-7s", "MiB, fds", "target");
	for (j = 0; j < nr_active; j++)
		printf(" %12.12s", active[j]->name);
	printf(" %14s %7s %7s %7s %7s %9s\n", "best raw", "tmpl x", "paired",
	       "inh x", "paired", "fork/tmpl");
	for (ri = 0; ri < nr_results; ri++) {
		const struct result *r = &results[ri];
		char p[32];

		snprintf(p, sizeof(p), "%ld, %d", r->st.mem_mib, r->st.fds);
		printf("%-14s %-7s", p, r->tgt->name);
		for (j = 0; j < nr_active; j++)
			printf(" %12.1f", r->s[j].median);
		printf(" %14s", r->best_raw >= 0 ? active[r->best_raw]->name : "-");
		printf(" %7.3f %7.3f %7.3f %7.3f %9.1f\n",
		       tm >= 0 ? ratio_best(r, tm) : NAN, tm >= 0 ? r->paired[tm] : NAN,
		       ti >= 0 ? ratio_best(r, ti) : NAN, ti >= 0 ? r->paired[ti] : NAN,
		       fk >= 0 && tm >= 0 ? r->s[fk].median / r->s[tm].median : NAN);
	}

	if (tm < 0 || fk < 0) {
		printf("\ngoals not judged: needs the template and fork+execve methods\n");
		return 1;
	}
	printf("\n== goals (issue 2): template within 5 %% of the fastest raw method in every row "
	       "(paired ratio <= 1.05); >= 50x faster than fork+execve from a 2 GiB parent\n");
	for (ri = 0; ri < nr_results; ri++) {
		const struct result *r = &results[ri];
		int ok = r->paired[tm] <= 1.05;

		all_ok &= ok;
		printf("  %5ld MiB %6d fds %-7s template %.3f x %s (medians %.3f x)%s",
		       r->st.mem_mib, r->st.fds, r->tgt->name, r->paired[tm],
		       active[r->best_raw]->name, ratio_best(r, tm), ok ? "  met" : "  NOT MET");
		if (ti >= 0)
			printf("; template-inherit %.3f x%s", r->paired[ti],
			       r->paired[ti] <= 1.05 ? "" : " (over 5 %)");
		printf("\n");
		if (r->st.mem_mib >= 2048) {
			double f = r->s[fk].median / r->s[tm].median;

			all_ok &= f >= 50;
			printf("  %5ld MiB %6d fds %-7s fork+execve / template = %.1f x %s\n",
			       r->st.mem_mib, r->st.fds, r->tgt->name, f,
			       f >= 50 ? "  met" : "  NOT MET");
		}
	}
	printf("goals: %s\n", all_ok ? "all met" : "NOT all met");
	if (json)
		fprintf(json, "  \"goals_met\": %s,\n", all_ok ? "true" : "false");
	return all_ok;
}

static void json_num(FILE *f, const char *key, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.3f%s", key, v, sep);
	else
		fprintf(f, "\"%s\": null%s", key, sep);
}

/* Strings we emit are our own names and paths; escape the two that matter. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_results(FILE *f)
{
	int ri, j, k;

	fprintf(f, "  \"methods\": [\n");
	for (j = 0; j < nr_active; j++) {
		fprintf(f, "    {\"name\": ");
		json_str(f, active[j]->name);
		fprintf(f, ", \"how\": ");
		json_str(f, active[j]->how);
		fprintf(f, ", \"raw\": %s, \"closes_fds\": %s}%s\n",
			active[j]->raw ? "true" : "false",
			active[j]->closes_fds ? "true" : "false",
			j + 1 < nr_active ? "," : "");
	}
	fprintf(f, "  ],\n  \"results\": [\n");
	for (ri = 0; ri < nr_results; ri++) {
		const struct result *r = &results[ri];

		fprintf(f, "    {\"mem_mib\": %ld, \"vmrss_kib\": %ld, \"open_fds\": %d, "
			"\"open_fds_asked\": %d, \"highest_fd\": %d, \"target\": ",
			r->st.mem_mib, r->vmrss_kib, r->fds_open, r->st.fds_asked,
			r->fds_highest);
		json_str(f, r->tgt->name);
		fprintf(f, ", \"target_path\": ");
		json_str(f, r->tgt->path);
		fprintf(f, ", \"iterations\": %d, \"rounds\": %d, \"seconds\": %.2f, "
			"\"best_raw\": ", r->iterations, r->rounds, r->seconds);
		json_str(f, active[r->best_raw]->name);
		fprintf(f, ",\n     \"methods\": {\n");
		for (j = 0; j < nr_active; j++) {
			const struct stats *s = &r->s[j];

			fprintf(f, "       ");
			json_str(f, active[j]->name);
			fprintf(f, ": {\"n\": %d, ", s->n);
			json_num(f, "min_us", s->min, ", ");
			json_num(f, "median_us", s->median, ", ");
			json_num(f, "max_us", s->max, ", ");
			json_num(f, "mean_us", s->mean, ", ");
			json_num(f, "sd_us", s->sd, ", ");
			json_num(f, "ratio_to_best_raw", ratio_best(r, j), ", ");
			json_num(f, "paired_ratio_to_best_raw", r->paired[j], ", ");
			fprintf(f, "\"round_medians_us\": [");
			for (k = 0; k < s->nr_rounds; k++) {
				if (isfinite(s->round_median[k]))
					fprintf(f, "%.3f", s->round_median[k]);
				else
					fprintf(f, "null");
				fprintf(f, "%s", k + 1 < s->nr_rounds ? ", " : "");
			}
			fprintf(f, "]}%s\n", j + 1 < nr_active ? "," : "");
		}
		fprintf(f, "     }}%s\n", ri + 1 < nr_results ? "," : "");
	}
	fprintf(f, "  ]\n");
}

/* The 1/5/15-minute load averages: how busy the shared machine was. */
static void loadavg(char *buf, size_t n)
{
	FILE *f = fopen("/proc/loadavg", "re");

	snprintf(buf, n, "unknown");
	if (f) {
		if (fgets(buf, (int)n, f)) {
			char *p = buf;
			int k;

			for (k = 0; k < 3 && p; k++)	/* keep the first three fields */
				p = strchr(p + 1, ' ');
			if (p)
				*p = 0;
		}
		fclose(f);
	}
}

static void print_machine(FILE *f, int json, int argc, char **argv)
{
	char load[128];

	struct utsname u;
	char model[256] = "unknown", line[512];
	FILE *ci = fopen("/proc/cpuinfo", "re");
	int i;

	uname(&u);
	loadavg(load, sizeof(load));
	if (ci) {
		while (fgets(line, sizeof(line), ci))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		fclose(ci);
	}
	if (json) {
		fprintf(f, "  \"command\": [");
		for (i = 0; i < argc; i++) {
			fprintf(f, "%s", i ? ", " : "");
			json_str(f, argv[i]);
		}
		fprintf(f, "],\n  \"machine\": {\"kernel\": ");
		json_str(f, u.release);
		fprintf(f, ", \"cpus_online\": %ld, \"cpu\": ", sysconf(_SC_NPROCESSORS_ONLN));
		json_str(f, model);
		fprintf(f, ", \"glibc\": ");
		json_str(f, gnu_get_libc_version());
		fprintf(f, ", \"kernel_spawn_template\": %s, \"loadavg_at_start\": ",
			spawnkit_kernel_has_spawn_template() ? "true" : "false");
		json_str(f, start_load);
		fprintf(f, ", \"loadavg_at_end\": ");
		json_str(f, load);
		fprintf(f, "},\n");
		fprintf(f, "  \"config\": {\"max_samples\": %d, \"min_samples\": %d, "
			"\"rounds\": %d, \"budget_s\": %.1f, \"full\": %s, "
			"\"exit_status_checked\": %d},\n", o.max_samples, o.min_samples,
			o.rounds, o.budget, o.full ? "true" : "false", EXIT_MAGIC);
		return;
	}
	snprintf(start_load, sizeof(start_load), "%s", load);
	printf("bench_spawn: kernel %s, %ld cpus (%s), glibc %s, load average %s\n",
	       u.release, sysconf(_SC_NPROCESSORS_ONLN), model, gnu_get_libc_version(), load);
	printf("spawn-template kernel calls: %s\n", spawnkit_kernel_has_spawn_template()
	       ? "present (kernel backend measured)" : "absent (user backend only)");
	printf("each start = spawn + wait; exit status %d checked on every start\n", EXIT_MAGIC);
	printf("methods (fds>2: \"closed\" = the child closes every fd above 2 before exec, "
	       "\"kept\" = inherited):\n");
	for (i = 0; i < nr_active; i++)
		printf("  %-18s %-6s %s\n", active[i]->name,
		       active[i]->closes_fds ? "closed" : "kept", active[i]->how);
	printf("templates and the pinned fds are made at start-up (low fd numbers), "
	       "before the parent grows\n");
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: bench_spawn [options]\n"
"  --static-target PATH   the static target (default: target-static next to us)\n"
"  --dynamic-target PATH  the dynamic target (default: target-dynamic next to us)\n"
"  --targets LIST         static,dynamic (default both)\n"
"  --methods LIST         comma list of: fork+execve, vfork+execve, posix_spawn,\n"
"                         clone+execveat, template, template-inherit,\n"
"                         template-pidfd, ktemplate,\n"
"                         ktemplate-inherit (default: all the kernel allows)\n"
"  --full                 whole grid: memory {0,512,2048} MiB x fds {10,10k,100k}\n"
"                         (default: memory axis at 10 fds, fd axis at 0 MiB)\n"
"  --mem LIST             resident MiB values (cross product with --fds)\n"
"  --fds LIST             open fd counts\n"
"  --samples N            most samples per method and state (default 400)\n"
"  --min-samples N        fewest samples per method and state (default 20)\n"
"  --rounds R             rounds per state (default 5, at most 16)\n"
"  --budget SEC           time share per state and target (default 10)\n"
"  --json FILE            also write the results as JSON\n");
}

static int parse_list(const char *s, long *out, int max)
{
	int n = 0;
	char *end;

	while (*s && n < max) {
		errno = 0;
		out[n++] = strtol(s, &end, 10);
		if (errno || end == s || out[n - 1] < 0 || (*end && *end != ','))
			return -1;
		s = *end ? end + 1 : end;
	}
	return *s ? -1 : n;
}

static int positive(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == 0 || *end || v <= 0 || v > 1000000)
		die("bad %s: %s", what, s);
	return (int)v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"static-target", 1, 0, 'S'}, {"dynamic-target", 1, 0, 'D'},
		{"targets", 1, 0, 'T'}, {"methods", 1, 0, 'm'}, {"full", 0, 0, 'f'},
		{"mem", 1, 0, 'M'}, {"fds", 1, 0, 'F'}, {"samples", 1, 0, 'n'},
		{"min-samples", 1, 0, 'N'}, {"rounds", 1, 0, 'r'}, {"budget", 1, 0, 'b'},
		{"json", 1, 0, 'j'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}
	};
	long tmp[8];
	int c, i;
	char *end;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'S': o.static_path = optarg; break;
		case 'D': o.dynamic_path = optarg; break;
		case 'T': o.targets = optarg; break;
		case 'm': o.methods = optarg; break;
		case 'f': o.full = 1; break;
		case 'M':
			o.nr_mem = parse_list(optarg, o.mem_list, 8);
			if (o.nr_mem <= 0)
				die("bad --mem list: %s", optarg);
			break;
		case 'F':
			c = parse_list(optarg, tmp, 8);
			if (c <= 0)
				die("bad --fds list: %s", optarg);
			for (o.nr_fd = 0, i = 0; i < c; i++) {
				if (tmp[i] < 3 || tmp[i] > 1000000)
					die("--fds values must be 3..1000000: %ld", tmp[i]);
				o.fd_list[o.nr_fd++] = (int)tmp[i];
			}
			break;
		case 'n': o.max_samples = positive(optarg, "--samples"); break;
		case 'N': o.min_samples = positive(optarg, "--min-samples"); break;
		case 'r':
			o.rounds = positive(optarg, "--rounds");
			if (o.rounds > STATS_MAX_ROUNDS)
				die("--rounds at most %d", STATS_MAX_ROUNDS);
			break;
		case 'b':
			o.budget = strtod(optarg, &end);
			if (*end || !(o.budget > 0 && o.budget < 3600))
				die("bad --budget: %s", optarg);
			break;
		case 'j': o.json = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		die("unexpected argument: %s (see --help)", argv[optind]);
	if (o.min_samples > o.max_samples)
		die("--min-samples above --samples");
}

/* Is `name` in the comma list (NULL list: yes)? */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!list)
		return 1;
	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* Default target paths: next to this executable. */
static const char *beside_self(const char *name)
{
	static char buf[2][4096];
	static int k;
	char *b = buf[k++ % 2];
	ssize_t n = readlink("/proc/self/exe", b, sizeof(buf[0]) - 64);
	char *slash;

	if (n <= 0)
		die("readlink /proc/self/exe: %s", strerror(errno));
	b[n] = 0;
	slash = strrchr(b, '/');
	snprintf(slash + 1, 64, "%s", name);
	return b;
}

static int make_grid(struct state *g)
{
	static const long mem_def[] = {0, 512, 2048};
	static const int fd_def[] = {10, 10000, 100000};
	int n = 0, i, k;

	if (o.full || o.nr_mem || o.nr_fd) {
		const long *ml = o.nr_mem ? o.mem_list : mem_def;
		const int *fl = o.nr_fd ? o.fd_list : fd_def;
		int nm = o.nr_mem ? o.nr_mem : 3, nf = o.nr_fd ? o.nr_fd : 3;

		if (!o.full && !o.nr_mem)
			nm = 1;		/* --fds alone: with no ballast */
		if (!o.full && !o.nr_fd)
			nf = 1;		/* --mem alone: with 10 fds */
		/* fds outer (the fd table never shrinks), memory inner */
		for (k = 0; k < nf; k++)
			for (i = 0; i < nm; i++)
				g[n++] = (struct state){ml[i], fl[k], fl[k]};
		return n;
	}
	for (i = 0; i < 3; i++)
		g[n++] = (struct state){mem_def[i], 10, 10};
	for (k = 1; k < 3; k++)
		g[n++] = (struct state){0, fd_def[k], fd_def[k]};
	return n;
}

int main(int argc, char **argv)
{
	struct state grid[MAX_STATES];
	int nr_states, si, ti, j, have_kernel, want_user = 0, want_kernel = 0;
	FILE *json = NULL;

	if (bench_nr_methods > MAX_METHODS)
		die("%d methods, room for %d: raise MAX_METHODS", bench_nr_methods, MAX_METHODS);
	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * Start from a known fd table: fds we inherited (a make jobserver, a
	 * terminal's extras) would make "10 open fds" mean something else
	 * on each machine.
	 */
	j = fds_count();
	if (j > 3) {
		close_range(3, ~0U, 0);
		printf("closed %d inherited fds above 2\n", j - 3);
	}
	have_kernel = spawnkit_kernel_has_spawn_template();

	if (o.methods) {	/* every name asked for must exist */
		char *dup = strdup(o.methods), *tok, *save;

		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (j = 0; j < bench_nr_methods && strcmp(bench_methods[j].name, tok); j++)
				;
			if (j == bench_nr_methods)
				die("unknown method: %s (see --help)", tok);
		}
		free(dup);
	}
	for (j = 0; j < bench_nr_methods; j++) {
		const struct method *m = &bench_methods[j];

		if (!in_list(o.methods, m->name))
			continue;
		if (m->needs_kernel && !have_kernel) {
			if (o.methods)
				die("%s asked for, but the kernel has no spawn-template calls", m->name);
			continue;
		}
		active[nr_active++] = m;
		if (m->start == NULL)
			die("method %s has no start function", m->name);
	}
	for (j = 0; j < nr_active; j++) {
		if (!strncmp(active[j]->name, "template", 8))
			want_user = 1;
		if (active[j]->needs_kernel)
			want_kernel = 1;
	}
	if (!nr_active)
		die("no method selected (see --help)");

	if (in_list(o.targets, "static"))
		targets[nr_targets++] = (struct target){.name = "static",
			.path = o.static_path ? o.static_path : beside_self("target-static")};
	if (in_list(o.targets, "dynamic"))
		targets[nr_targets++] = (struct target){.name = "dynamic",
			.path = o.dynamic_path ? o.dynamic_path : beside_self("target-dynamic")};
	if (!nr_targets)
		die("no target selected: --targets takes static,dynamic");
	for (ti = 0; ti < nr_targets; ti++) {
		static char arg1[8];
		static char *args[2][3];
		static char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", NULL};

		if (targets[ti].path[0] != '/')
			die("target path must be absolute: %s", targets[ti].path);
		snprintf(arg1, sizeof(arg1), "%d", EXIT_MAGIC);
		args[ti][0] = (char *)targets[ti].path;
		args[ti][1] = arg1;
		args[ti][2] = NULL;
		targets[ti].ctx.argv = args[ti];
		targets[ti].ctx.envp = envp;
		if (target_ctx_init(&targets[ti].ctx, targets[ti].path, want_user,
				    want_kernel) < 0)
			die("cannot set up the %s target", targets[ti].name);
	}

	print_machine(stdout, 0, argc, argv);
	nr_states = make_grid(grid);

	for (si = 0; si < nr_states; si++) {
		struct state *st = &grid[si];
		long rss;
		int ret;

		ret = fds_set(st->fds);
		if (ret == -EPERM) {
			/*
			 * The hard RLIMIT_NOFILE is below the count and we may not
			 * raise it (no CAP_SYS_RESOURCE, as in some containers):
			 * measure at the most fds we can have, and say so.
			 */
			struct rlimit rl;

			getrlimit(RLIMIT_NOFILE, &rl);
			printf("\nnote: %d open fds impossible here (hard RLIMIT_NOFILE %llu, "
			       "raising it: %s); measuring at %llu fds instead\n", st->fds,
			       (unsigned long long)rl.rlim_max, strerror(EPERM),
			       (unsigned long long)rl.rlim_max - 64);
			st->fds = (int)(rl.rlim_max - 64);
			ret = fds_set(st->fds);
		}
		if (ret < 0)
			die("cannot open %d fds: %s", st->fds, strerror(-ret));
		ret = ballast_set((size_t)st->mem_mib << 20);
		if (ret < 0)
			die("cannot map %ld MiB: %s", st->mem_mib, strerror(-ret));
		rss = vmrss_kib();
		if (rss < 0 || rss < st->mem_mib * 1024)
			die("VmRSS %ld KiB is below the %ld MiB ballast", rss, st->mem_mib);
		if (fds_count() != st->fds)
			die("have %d open fds, wanted %d", fds_count(), st->fds);
		for (ti = 0; ti < nr_targets; ti++) {
			struct result *r = &results[nr_results++];

			r->vmrss_kib = rss;
			r->fds_open = fds_count();
			r->fds_highest = fds_highest();
			run_target(st, &targets[ti], r);
			print_result(r);
		}
	}

	if (o.json) {
		json = fopen(o.json, "we");
		if (!json)
			die("cannot write %s: %s", o.json, strerror(errno));
		fprintf(json, "{\n  \"benchmark\": \"spawn latency (bench/spawn)\",\n");
		print_machine(json, 1, argc, argv);
	}
	{
		char load[128];

		loadavg(load, sizeof(load));
		printf("\nload average at the end: %s (at the start: %s)\n", load, start_load);
	}
	print_summary(json);
	if (json) {
		json_results(json);
		fprintf(json, "}\n");
		if (fclose(json))
			die("writing %s: %s", o.json, strerror(errno));
		printf("json: %s\n", o.json);
	}
	ballast_set(0);
	fds_set(3);
	for (ti = 0; ti < nr_targets; ti++)
		target_ctx_fini(&targets[ti].ctx);
	return 0;
}

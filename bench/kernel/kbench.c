/* SPDX-License-Identifier: MIT */
/*
 * kbench - the in-guest benchmarks of `make -C kernel bench`.
 *
 *   kbench spawn ROUNDS N      spawn latency of /bin/true: user backend vs
 *                              kernel backend (and posix_spawn for scale)
 *   kbench batch ROUNDS K      batch per-entry cost: kernel vs emulator
 *   kbench wis ROUNDS MS       will-it-scale style access/stat/fstat ops/s
 *   kbench lookup ROUNDS N     path lookup: stat() of an 8-component and a
 *                              2-component path under $KBENCH_LOOKUP_DIR
 *                              (default /tmp, a tmpfs; a directory on the
 *                              root, so the component counts stay), the
 *                              first also as user nobody (ns/stat), and mdu
 *                              over a tree of 64 x 64 files (ns/entry)
 *
 * Methods are interleaved inside every round, so a slow phase of the
 * (emulated, shared) machine hits all of them alike; each prints
 * min/median/max over the rounds and the ratio of medians.  Every measured
 * call's result is checked: a failing call aborts the run, it never counts
 * as a fast one.  Absolute times under QEMU/TCG mean little; compare the
 * ratios.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/batch.h>

extern char **environ;

#define MAX_ROUNDS 64

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what, long err)
{
	fprintf(stderr, "kbench: %s: %s\n", what, strerror(err < 0 ? (int)-err : (int)err));
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct series {
	const char *name;
	double v[MAX_ROUNDS];
	int n;
	double median;
};

static void summarize(struct series *s)
{
	double tmp[MAX_ROUNDS];

	memcpy(tmp, s->v, s->n * sizeof(double));
	qsort(tmp, s->n, sizeof(double), cmp_double);
	s->median = s->n % 2 ? tmp[s->n / 2] : (tmp[s->n / 2 - 1] + tmp[s->n / 2]) / 2;
	s->v[0] = tmp[0];
	s->v[1] = tmp[s->n - 1];
}

/* After summarize(): v[0] min, v[1] max. */
static void row(const char *what, struct series *s, const char *unit, const struct series *base)
{
	printf("| %-34s | %-10s | %12.2f | %12.2f | %12.2f | %s%6.2fx |\n", what, unit,
	       s->v[0], s->median, s->v[1], base ? "" : " ",
	       base ? s->median / base->median : 1.0);
}

static void header(const char *title, const char *how)
{
	printf("\n%s (measured under QEMU/TCG emulation)\n%s\n", title, how);
	printf("| %-34s | %-10s | %12s | %12s | %12s | %7s |\n", "method", "unit", "min",
	       "median", "max", "ratio");
	printf("|------------------------------------|------------|--------------|"
	       "--------------|--------------|---------|\n");
}

/* ---- spawn latency -------------------------------------------------------- */

static struct spawnkit_template *template_on(const char *backend, const char *path)
{
	struct spawnkit_template *t;
	int r;

	setenv("SPAWNKIT_BACKEND", backend, 1);
	r = spawnkit_template_create(path, 0, &t);
	unsetenv("SPAWNKIT_BACKEND");
	if (r)
		die(backend, r);
	if (strcmp(spawnkit_backend_name(spawnkit_template_backend(t)), backend))
		die("template backend mismatch", EINVAL);
	return t;
}

static void check_exit0(pid_t pid, const char *what)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die(what, ECHILD);
}

static double spawn_round_template(struct spawnkit_template *t, int n)
{
	char *argv[] = { "true", NULL };
	double t0 = now_ns();
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = spawnkit_spawn(t, argv, environ, NULL, 0, 0, NULL);

		if (pid < 0)
			die("spawnkit_spawn", pid);
		check_exit0(pid, "template child");
	}
	return (now_ns() - t0) / n / 1000.0;
}

static double spawn_round_posix(int n)
{
	char *argv[] = { "true", NULL };
	double t0 = now_ns();
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid;
		int r = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);

		if (r)
			die("posix_spawn", r);
		check_exit0(pid, "posix_spawn child");
	}
	return (now_ns() - t0) / n / 1000.0;
}

static void bench_spawn(int rounds, int n)
{
	struct series user = { .name = "user" }, kern = { .name = "kernel" }, px = { .name = "posix_spawn" };
	struct spawnkit_template *tu = template_on("user", "/bin/true");
	struct spawnkit_template *tk = template_on("kernel", "/bin/true");
	char how[160];
	int r;

	spawn_round_template(tu, 5);	/* warm up */
	spawn_round_template(tk, 5);
	for (r = 0; r < rounds; r++) {
		user.v[user.n++] = spawn_round_template(tu, n);
		kern.v[kern.n++] = spawn_round_template(tk, n);
		px.v[px.n++] = spawn_round_posix(n);
	}
	summarize(&user);
	summarize(&kern);
	summarize(&px);
	snprintf(how, sizeof(how),
		 "(%d rounds x %d starts, interleaved; ratio = median / user-backend median)",
		 rounds, n);
	header("Spawn latency of /bin/true, per start incl. waitpid", how);
	row("template, user backend", &user, "us/start", NULL);
	row("template, kernel backend", &kern, "us/start", &user);
	row("posix_spawn (glibc)", &px, "us/start", &user);
	spawnkit_template_destroy(tu);
	spawnkit_template_destroy(tk);
}

/* ---- batch per-entry cost ------------------------------------------------- */

#define BIG 64

static double batch_round(int backend, unsigned int count, int k)
{
	static struct batch_entry e[BIG];
	static int64_t res[BIG];
	long ppid = getppid();
	double t0;
	int i;
	unsigned int j;

	for (j = 0; j < count; j++)
		e[j] = (struct batch_entry){ .nr = SYS_getppid };
	t0 = now_ns();
	for (i = 0; i < k; i++) {
		long r = spawnkit_batch_run(backend, e, res, count, 0);

		if (r != (long)count - 1)
			die("spawnkit_batch_run", r < 0 ? r : -EIO);
	}
	t0 = now_ns() - t0;
	for (j = 0; j < count; j++)
		if (res[j] != ppid)
			die("batch result", EIO);
	return t0 / k;
}

static void bench_batch(int rounds, int k)
{
	struct series em = { .name = "emulator" }, kn = { .name = "kernel" };
	struct series em1 = { .name = "emulator" }, kn1 = { .name = "kernel" };
	char how[160];
	int r;

	if (!spawnkit_batch_backend_available(SPAWNKIT_BATCH_KERNEL))
		die("kernel batch backend", ENOSYS);
	batch_round(SPAWNKIT_BATCH_EMULATOR, BIG, 10);
	batch_round(SPAWNKIT_BATCH_KERNEL, BIG, 10);
	for (r = 0; r < rounds; r++) {
		double e1 = batch_round(SPAWNKIT_BATCH_EMULATOR, 1, k);
		double eb = batch_round(SPAWNKIT_BATCH_EMULATOR, BIG, k);
		double k1 = batch_round(SPAWNKIT_BATCH_KERNEL, 1, k);
		double kb = batch_round(SPAWNKIT_BATCH_KERNEL, BIG, k);

		em.v[em.n++] = (eb - e1) / (BIG - 1);
		kn.v[kn.n++] = (kb - k1) / (BIG - 1);
		em1.v[em1.n++] = e1;
		kn1.v[kn1.n++] = k1;
	}
	summarize(&em);
	summarize(&kn);
	summarize(&em1);
	summarize(&kn1);
	snprintf(how, sizeof(how),
		 "(%d rounds x %d batches per size, interleaved; ratio = median / emulator median)",
		 rounds, k);
	header("Batch: per extra entry (getppid), (t(64 entries) - t(1 entry)) / 63", how);
	row("emulator (one syscall per entry)", &em, "ns/entry", NULL);
	row("kernel batch(2)", &kn, "ns/entry", &em);
	row("emulator, whole 1-entry batch", &em1, "ns/batch", NULL);
	row("kernel, whole 1-entry batch", &kn1, "ns/batch", &em1);
}

/* ---- will-it-scale style metadata loop ------------------------------------ */

enum { OP_ACCESS, OP_STAT, OP_FSTAT };

static double wis_round(int op, const char *path, int fd, int ms)
{
	double t0 = now_ns(), end = t0 + ms * 1e6, t;
	long ops = 0;
	struct stat st;
	int i;

	do {
		for (i = 0; i < 256; i++) {
			int r = op == OP_ACCESS ? access(path, R_OK) :
				op == OP_STAT ? stat(path, &st) : fstat(fd, &st);

			if (r)
				die("metadata call", errno);
		}
		ops += 256;
		t = now_ns();
	} while (t < end);
	return ops / ((t - t0) / 1e9);
}

static void bench_wis(int rounds, int ms)
{
	static const char *names[] = { "access(2)", "stat(2)", "fstat(2)" };
	struct series s[3] = { { .name = "access" }, { .name = "stat" }, { .name = "fstat" } };
	const char *path = "/tmp/kbench-wis";
	char how[160];
	int fd, r, op;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path, errno);
	for (r = 0; r < rounds; r++)
		for (op = 0; op < 3; op++)
			s[op].v[s[op].n++] = wis_round(op, path, fd, ms);
	snprintf(how, sizeof(how),
		 "(%d rounds x %d ms per op, interleaved; ratio = median / access median)",
		 rounds, ms);
	header("will-it-scale style metadata loop: one task, one shared file", how);
	for (op = 0; op < 3; op++) {
		summarize(&s[op]);
		row(names[op], &s[op], "ops/s", op ? &s[0] : NULL);
	}
	close(fd);
	unlink(path);
}

/* ---- path lookup: stat() loops and mdu ----------------------------------- */

/*
 * Under DIR ($KBENCH_LOOKUP_DIR, one component below /): DIR/kbench-lookup,
 * the deep path DIR/kbench-lookup/d1/d2/d3/d4/d5/f (8 components: every
 * directory from / down to d5 is searched once), the shallow one
 * DIR/kbench-lookup-f (2), and the tree DIR/kbench-lookup/tree.
 */
static char lookup_root[128], lookup_deep[160], lookup_shallow[160];
static char lookup_tree[160];
#define TREE_DIRS	64
#define TREE_FILES	64

static void make_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die(path, errno);
	close(fd);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die(path, errno);
}

/* The stat() targets and the tree mdu walks: directories 0755, files 0644. */
static void lookup_setup(const char *dir)
{
	char path[256];
	int d, f, n;

	if (strlen(dir) > 64 || dir[0] != '/' || strchr(dir + 1, '/'))
		die("KBENCH_LOOKUP_DIR: one component below /", EINVAL);
	snprintf(lookup_root, sizeof(lookup_root), "%s/kbench-lookup", dir);
	snprintf(lookup_deep, sizeof(lookup_deep), "%s/d1/d2/d3/d4/d5/f", lookup_root);
	snprintf(lookup_shallow, sizeof(lookup_shallow), "%s/kbench-lookup-f", dir);
	snprintf(lookup_tree, sizeof(lookup_tree), "%s/tree", lookup_root);

	n = snprintf(path, sizeof(path), "%s", lookup_root);
	make_dir(path);
	for (d = 1; d <= 5; d++) {
		n += snprintf(path + n, sizeof(path) - n, "/d%d", d);
		make_dir(path);
	}
	make_file(lookup_deep);
	make_file(lookup_shallow);
	make_dir(lookup_tree);
	for (d = 0; d < TREE_DIRS; d++) {
		snprintf(path, sizeof(path), "%s/%02d", lookup_tree, d);
		make_dir(path);
		for (f = 0; f < TREE_FILES; f++) {
			snprintf(path, sizeof(path), "%s/%02d/f%02d", lookup_tree, d, f);
			make_file(path);
		}
	}
}

static double stat_round(const char *path, int n)
{
	double t0 = now_ns();
	struct stat st;
	int i;

	for (i = 0; i < n; i++)
		if (stat(path, &st))
			die(path, errno);
	return (now_ns() - t0) / n;
}

/*
 * The same loop as user nobody, in a child: not the owner of any directory
 * on the way, so the DAC check goes past the owner test (and on a kernel
 * with POSIX ACLs, looks for an ACL) on every component.
 */
static double stat_round_nobody(const char *path, int n)
{
	double v = -1;
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(1);
		v = stat_round(path, n);
		_exit(write(p[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &v, sizeof(v)) != sizeof(v) || waitpid(pid, &st, 0) != pid ||
	    !WIFEXITED(st) || WEXITSTATUS(st))
		die("stat loop as nobody", ECHILD);
	close(p[0]);
	return v;
}

/* One `mdu -j1 -b tree` run, its output to /dev/null: ns per entry walked. */
static double mdu_round(const char *mdu)
{
	char *argv[] = { "mdu", "-j1", "-b", lookup_tree, NULL };
	posix_spawn_file_actions_t fa;
	double t0 = now_ns();
	pid_t pid;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	r = posix_spawn(&pid, mdu, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r)
		die(mdu, r);
	check_exit0(pid, "mdu");
	return (now_ns() - t0) / (1 + TREE_DIRS * (1 + TREE_FILES));
}

static void bench_lookup(int rounds, int n)
{
	const char *mdu = getenv("KBENCH_MDU") ? getenv("KBENCH_MDU") : "../build/bin/mdu";
	struct series deep = { .name = "deep" }, shallow = { .name = "shallow" };
	struct series other = { .name = "deep, nobody" };
	struct series walk = { .name = "mdu" };
	const char *dir = getenv("KBENCH_LOOKUP_DIR");
	const char *fs = getenv("KBENCH_LOOKUP_FS");
	char how[200], title[64];
	int r;

	lookup_setup(dir && *dir ? dir : "/tmp");
	for (r = 0; r < rounds; r++) {
		deep.v[deep.n++] = stat_round(lookup_deep, n);
		shallow.v[shallow.n++] = stat_round(lookup_shallow, n);
		other.v[other.n++] = stat_round_nobody(lookup_deep, n);
		walk.v[walk.n++] = mdu_round(mdu);
	}
	snprintf(how, sizeof(how),
		 "(%d rounds x %d stats per path and one mdu -j1 -b run over %d entries, "
		 "interleaved; ratio: over the 8-component stat as root)", rounds, n,
		 1 + TREE_DIRS * (1 + TREE_FILES));
	snprintf(title, sizeof(title), "path lookup on %s", fs && *fs ? fs : "tmpfs");
	header(title, how);
	summarize(&deep);
	summarize(&shallow);
	summarize(&walk);
	summarize(&other);
	row("stat(), 8 components", &deep, "ns/stat", NULL);
	row("stat(), 2 components", &shallow, "ns/stat", &deep);
	row("stat(), 8 components, as nobody", &other, "ns/stat", &deep);
	row("mdu -j1 -b, 64 dirs x 64 files", &walk, "ns/entry", NULL);
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	int n = argc > 3 ? atoi(argv[3]) : 0;

	if (argc < 2 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: kbench spawn|batch|wis|lookup ROUNDS [N]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "spawn"))
		bench_spawn(rounds, n > 0 ? n : 50);
	else if (!strcmp(argv[1], "batch"))
		bench_batch(rounds, n > 0 ? n : 2000);
	else if (!strcmp(argv[1], "wis"))
		bench_wis(rounds, n > 0 ? n : 300);
	else if (!strcmp(argv[1], "lookup"))
		bench_lookup(rounds, n > 0 ? n : 2000);
	else {
		fprintf(stderr, "kbench: unknown benchmark %s\n", argv[1]);
		return 2;
	}
	return 0;
}

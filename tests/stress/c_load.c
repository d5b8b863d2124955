/* SPDX-License-Identifier: MIT */
/*
 * c_load - load on the C library: threads x spawns from one template, with
 * and without a thread that forks all the while, pidfd and no-pidfd reaping,
 * templates made and destroyed while others spawn.  Every child's exit
 * status is checked (each spawn asks for its own), posix_spawn runs the same
 * load as the reference, and fds, pidfds, children and RSS are compared
 * before and after.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "stress.h"
#include "probe_path.h"

#define RSS_SLACK_KB (8 * 1024)

static struct spawnkit_template *tmpl;
static long per_thread;
static atomic_long bad, done;
static atomic_int stop;
static int use_posix, no_pidfd;

static int spawn_one(int code)
{
	char num[16];
	char *argv[] = { "probe", "--quiet", "--exit", num, NULL };
	int st, pidfd = -1;
	pid_t pid;

	snprintf(num, sizeof(num), "%d", code);
	if (use_posix)
		return ref_posix_spawn(probe_path(), argv, environ);
	pid = spawnkit_spawn(tmpl, argv, environ, NULL, 0, 0, no_pidfd ? NULL : &pidfd);
	if (pid < 0)
		return pid;
	if (no_pidfd) {
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				return -errno;
		return st;
	}
	return reap_pidfd(pidfd);
}

static void *spawner(void *arg)
{
	long i, id = (long)(intptr_t)arg;

	for (i = 0; i < per_thread; i++) {
		int code = (int)((id * 37 + i) % 200);
		int st = spawn_one(code);

		if (st != code << 8) {
			if (atomic_fetch_add(&bad, 1) == 0)
				fprintf(stderr, "thread %ld spawn %ld: want exit %d, got %d\n",
					id, i, code, st);
		}
	}
	atomic_fetch_add(&done, per_thread);
	return NULL;
}

static void *forker(void *arg)
{
	long *forks = arg;

	while (!atomic_load(&stop)) {
		pid_t pid = fork();
		int st;

		if (pid == 0)
			_exit(3);
		if (pid < 0)
			continue;
		if (waitpid(pid, &st, 0) != pid || st != 3 << 8)
			atomic_fetch_add(&bad, 1);
		(*forks)++;
	}
	return NULL;
}

/* threads x per spawns; returns ms taken, bad spawns in `bad`. */
static long load(int threads, long per, int with_forker, long *forks)
{
	pthread_t th[64], ft;
	long t0 = now_ms();
	int i;

	per_thread = per;
	atomic_store(&bad, 0);
	atomic_store(&stop, 0);
	if (with_forker)
		pthread_create(&ft, NULL, forker, forks);
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, spawner, (void *)(intptr_t)i);
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	atomic_store(&stop, 1);
	if (with_forker)
		pthread_join(ft, NULL);
	return now_ms() - t0;
}

static int threads_n(void)
{
	return env_long("STRESS_SCALE", 1) > 2 ? 16 : 4;
}

static int run_load(int with_forker, const char *what)
{
	int threads = threads_n();
	long per = scaled(25), forks = 0, ms_sk, ms_ref, bad_ref;
	struct snap s;
	int v;

	tmpl = make_template(probe_path());
	if (!tmpl)
		return SV_WRONG;
	load(threads, 4, with_forker, &forks);		/* warm-up: stacks, caches */
	s = snap_take();
	ms_sk = load(threads, per, with_forker, &forks);
	if (atomic_load(&bad)) {
		note("%s: %ld of %ld spawns wrong", what, atomic_load(&bad), threads * per);
		return SV_WRONG;
	}
	v = snap_verdict(&s, what, RSS_SLACK_KB);
	use_posix = 1;
	ms_ref = load(threads, per, with_forker, &forks);
	bad_ref = atomic_load(&bad);
	use_posix = 0;
	spawnkit_template_destroy(tmpl);
	note_add("%dx%ld in %ld ms (posix_spawn %ld ms, %ld wrong)", threads, per,
		 ms_sk, ms_ref, bad_ref);
	if (with_forker)
		note_add("%ld forks", forks);
	return v;
}

static int threads_spawns(void)
{
	return run_load(0, "threads x spawns");
}

static int threads_spawns_forking(void)
{
	return run_load(1, "threads x spawns + forking thread");
}

static int no_pidfd_reaping(void)
{
	long forks = 0;
	struct snap s;
	int v;

	tmpl = make_template(probe_path());
	if (!tmpl)
		return SV_WRONG;
	no_pidfd = 1;
	load(2, 4, 0, &forks);
	s = snap_take();
	load(threads_n(), scaled(20), 0, &forks);
	if (atomic_load(&bad)) {
		note("%ld spawns wrong (pidfd NULL, waitpid)", atomic_load(&bad));
		return SV_WRONG;
	}
	v = snap_verdict(&s, "pidfd NULL, reaped by waitpid", RSS_SLACK_KB);
	spawnkit_template_destroy(tmpl);
	return v;
}

/* Templates made and destroyed in a loop while other threads spawn. */
static void *churner(void *arg)
{
	long *made = arg;

	while (!atomic_load(&stop)) {
		struct spawnkit_template *t = make_template(probe_path());
		char *argv[] = { "probe", "--quiet", "--exit", "9", NULL };

		if (!t || sk_run(t, argv, NULL, 0) != 9 << 8)
			atomic_fetch_add(&bad, 1);
		spawnkit_template_destroy(t);
		(*made)++;
	}
	return NULL;
}

static int template_churn(void)
{
	pthread_t ct[2];
	long made[2] = { 0, 0 }, forks = 0;
	struct snap s;
	int i, v;

	tmpl = make_template(probe_path());
	if (!tmpl)
		return SV_WRONG;
	load(2, 4, 0, &forks);
	s = snap_take();
	atomic_store(&stop, 0);
	for (i = 0; i < 2; i++)
		pthread_create(&ct[i], NULL, churner, &made[i]);
	/* load() resets stop at its start and sets it at its end */
	load(threads_n(), scaled(20), 0, &forks);
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(ct[i], NULL);
	if (atomic_load(&bad)) {
		note("%ld spawns wrong with templates churning", atomic_load(&bad));
		return SV_WRONG;
	}
	spawnkit_template_destroy(tmpl);
	tmpl = make_template(probe_path());
	v = snap_verdict(&s, "templates made/destroyed during spawns", RSS_SLACK_KB);
	note_add("%ld templates churned", made[0] + made[1]);
	spawnkit_template_destroy(tmpl);
	return v;
}

static const struct scenario scenarios[] = {
	{ "threads-x-spawns", threads_spawns, 120 },
	{ "threads-x-spawns-forking-thread", threads_spawns_forking, 120 },
	{ "no-pidfd-waitpid", no_pidfd_reaping, 120 },
	{ "template-churn", template_churn, 120 },
	{ NULL, NULL, 0 }
};

int main(int argc, char **argv)
{
	return st_main("c/load", scenarios, argc, argv);
}

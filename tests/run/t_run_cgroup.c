/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_run() with a cgroup: a process that left the session and lost
 * its parent (only the cgroup still knows it) is killed at the end of the
 * run, and without the cgroup it is not (the control).  A fork bomb capped
 * by pids.max is killed whole.  The cases skip without a writable cgroup2
 * (and the bomb without the pids controller); the QEMU guest has both.
 */
#include <sys/stat.h>
#include "run_util.h"
#include "spawn/cgroup_util.h"

/* Number of processes cgroup.procs lists, or -1. */
static int procs_in(const char *cg)
{
	char path[4200], line[64];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static int empty_within(const char *cg, int bound_s)
{
	int i;

	for (i = 0; i < bound_s * 50; i++) {
		if (procs_in(cg) == 0)
			return 1;
		usleep(20000);
	}
	return 0;
}

/* Write text to dir/file; 0 or -1. */
static int put(const char *dir, const char *file, const char *text)
{
	char path[4200];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* A number from a "key N" line of dir/file (pids.events), or -1. */
static long long key_in(const char *dir, const char *file, const char *key)
{
	char path[4200], line[128];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

/* A fresh cgroup of ours (removed by the teardown) and an fd on it. */
FIXTURE(cg) {
	char cg[4096];
	int fd;
};

FIXTURE_SETUP(cg)
{
	char name[64];

	self->fd = -1;
	snprintf(name, sizeof(name), "spawnkit-run-%d", (int)getpid());
	if (make_test_cgroup(name, self->cg, sizeof(self->cg))) {
		self->cg[0] = '\0';
		TEST_SKIP("no writable cgroup2 here");
	}
	self->fd = open(self->cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(cg)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->cg[0])
		CHECK_EQ(rmdir(self->cg), 0);	/* empty: nothing left in it */
}

/* A process that left the session and lost its parent: only the cgroup
 * still knows it, and cgroup.kill at the end of the run takes it. */
TEST_F(cg, escapee_is_killed_with_the_cgroup)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	/* the escapee writes the file once it has its own session; the
	 * shell prints its pid only then, and exits */
	const char *escape = "f=$(mktemp); "
		"setsid sh -c \"echo x > $f; exec sleep 1000\" </dev/null >/dev/null 2>&1 & "
		"while [ ! -s $f ]; do sleep 0.05; done; rm -f $f; echo $!";
	int bound = 120 * slow();
	pid_t esc;

	if (access("/usr/bin/setsid", X_OK) && access("/bin/setsid", X_OK))
		TEST_SKIP("no setsid program");

	/* the control: without the cgroup the escapee outlives the run */
	spawnkit_run_opts_init(&o);
	CHECK_EQ(run_sh(&o, escape, &r), 0);
	esc = (pid_t)atoi(joined(&r.out[1]));
	CHECK(esc > 1 && !gone_within(esc, 1));
	if (esc > 1)
		kill(esc, SIGKILL);
	spawnkit_run_result_free(&r);

	/* with it, cgroup.kill takes it */
	o.cgroup_fd = self->fd;
	CHECK_EQ(run_sh(&o, escape, &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	esc = (pid_t)atoi(joined(&r.out[1]));
	CHECK(esc > 1 && gone_within(esc, bound));
	CHECK(empty_within(self->cg, bound));
	spawnkit_run_result_free(&r);
}

/* A fork bomb held by pids.max (it did hit the limit: pids.events counts
 * refused forks) is killed whole when the run times out. */
TEST_F(cg, fork_bomb_is_killed_whole)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char parent[4096];
	int bound = 120 * slow();

	/* pids.max exists once the parent enables the controller for its
	 * children (the guest's init enables it in the root) */
	snprintf(parent, sizeof(parent), "%s", self->cg);
	*strrchr(parent, '/') = '\0';
	put(parent, "cgroup.subtree_control", "+pids");
	if (put(self->cg, "pids.max", "64"))
		TEST_SKIP("no pids controller for this cgroup");

	spawnkit_run_opts_init(&o);
	o.cgroup_fd = self->fd;
	o.timeout_ms = 3000 * slow();
	o.head[2] = o.tail[2] = 1024;	/* fork failures, many */
	/*
	 * A shell whose fork fails exits, so "b & b & wait" can collapse on
	 * its own before the timeout (it did under TCG).  Here a member that
	 * forked both copies then sleeps, so the bomb stays at pids.max; the
	 * top shell forks its sleep first and waits for that alone.
	 */
	CHECK_EQ(run_sh(&o, "sleep 1000 & s=$!; b() { b & b & sleep 1000; }; b & wait $s",
			&r), 0);
	CHECK(r.why & SPAWNKIT_RUN_TIMED_OUT);
	CHECK(key_in(self->cg, "pids.events", "max") > 0);
	CHECK(empty_within(self->cg, bound));
	spawnkit_run_result_free(&r);
}

TEST_HARNESS_MAIN

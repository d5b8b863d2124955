/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_run() with a cgroup: a process that left the session and lost
 * its parent (only the cgroup still knows it) is killed at the end of the
 * run, and without the cgroup it is not (the control).  Where the pids
 * controller can be enabled, a fork bomb capped by pids.max is killed
 * whole.  Skips (77) without a writable cgroup2.
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

int main(void)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char cg[4096], name[64], parent[4096];
	/* the escapee writes the file once it has its own session; the
	 * shell prints its pid only then, and exits */
	const char *escape = "f=$(mktemp); "
		"setsid sh -c \"echo x > $f; exec sleep 1000\" </dev/null >/dev/null 2>&1 & "
		"while [ ! -s $f ]; do sleep 0.05; done; rm -f $f; echo $!";
	int bound = 120 * slow(), cgfd;
	pid_t esc;

	if (access("/usr/bin/setsid", X_OK) && access("/bin/setsid", X_OK))
		TEST_SKIP("no setsid program");
	snprintf(name, sizeof(name), "spawnkit-run-%d", (int)getpid());
	if (make_test_cgroup(name, cg, sizeof(cg)))
		TEST_SKIP("no writable cgroup2 here");
	cgfd = open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(cgfd >= 0);

	/* the control: without the cgroup the escapee outlives the run */
	spawnkit_run_opts_init(&o);
	CHECK_EQ(run_sh(&o, escape, &r), 0);
	esc = (pid_t)atoi(joined(&r.out[1]));
	CHECK(esc > 1 && !gone_within(esc, 1));
	if (esc > 1)
		kill(esc, SIGKILL);
	spawnkit_run_result_free(&r);

	/* with it, cgroup.kill takes it */
	o.cgroup_fd = cgfd;
	CHECK_EQ(run_sh(&o, escape, &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	esc = (pid_t)atoi(joined(&r.out[1]));
	CHECK(esc > 1 && gone_within(esc, bound));
	CHECK(empty_within(cg, bound));
	spawnkit_run_result_free(&r);

	/* a fork bomb, capped by pids.max, killed whole by the timeout */
	snprintf(parent, sizeof(parent), "%s", cg);
	*strrchr(parent, '/') = '\0';
	put(parent, "cgroup.subtree_control", "+pids");
	rmdir(cg);
	close(cgfd);
	CHECK_EQ(make_test_cgroup(name, cg, sizeof(cg)), 0);
	if (put(cg, "pids.max", "64") == 0) {
		cgfd = open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		o.cgroup_fd = cgfd;
		o.timeout_ms = 2000;
		o.head[2] = o.tail[2] = 1024;	/* fork failures, many */
		CHECK_EQ(run_sh(&o, "b() { b & b & wait; }; b", &r), 0);
		CHECK(r.why & SPAWNKIT_RUN_TIMED_OUT);
		CHECK(empty_within(cg, bound));
		spawnkit_run_result_free(&r);
		close(cgfd);
	} else {
		printf("no pids controller: fork bomb case not run\n");
	}
	CHECK_EQ(rmdir(cg), 0);
	TEST_DONE();
}

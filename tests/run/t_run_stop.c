/* SPDX-License-Identifier: MIT */
/*
 * stop_fd: another thread stops a run that writes nothing (what on_output
 * cannot do), the tree goes with it; a bad stop_fd is refused; a caller
 * built before stop_fd existed (the older size) still runs.  Time bounds
 * are generous upper bounds (the suite also runs under QEMU/TCG).
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include "run_util.h"

struct poke {
	int fd;
	int delay_ms;
};

static void *poke_later(void *arg)
{
	struct poke *k = arg;
	struct timespec ts = { k->delay_ms / 1000, (k->delay_ms % 1000) * 1000000L };
	uint64_t one = 1;

	nanosleep(&ts, NULL);
	if (write(k->fd, &one, sizeof(one)) != sizeof(one))
		abort();
	return NULL;
}

TEST(stop_fd_stops_a_silent_run_and_its_tree)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct poke k = { eventfd(0, EFD_CLOEXEC), 200 };
	int bound = 120 * slow();
	pthread_t th;
	pid_t bg;

	CHECK(k.fd >= 0);
	spawnkit_run_opts_init(&o);
	CHECK_EQ(o.stop_fd, -1);
	o.stop_fd = k.fd;
	/* the background job's pid goes to stderr's capture at once, then
	 * nothing more is written */
	CHECK_EQ(pthread_create(&th, NULL, poke_later, &k), 0);
	CHECK_EQ(run_sh(&o, "sleep 1000 & echo $! >&2; exec sleep 1000", &r), 0);
	pthread_join(th, NULL);
	CHECK(r.why & SPAWNKIT_RUN_STOPPED);
	CHECK(!(r.why & (SPAWNKIT_RUN_TIMED_OUT | SPAWNKIT_RUN_NO_OUTPUT)));
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	CHECK(secs(r.elapsed_ns) >= 0.2 && secs(r.elapsed_ns) < bound);
	bg = (pid_t)atoi(joined(&r.out[2]));
	CHECK(bg > 1 && gone_within(bg, bound));
	/* the run never reads the fd: it is still readable, the caller's */
	uint64_t v = 0;
	CHECK_EQ(read(k.fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CHECK_EQ(v, 1);
	spawnkit_run_result_free(&r);
	close(k.fd);
}

TEST(stop_fd_already_readable_stops_at_once)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int p[2];

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	close(p[1]);				/* end of file: readable */
	spawnkit_run_opts_init(&o);
	o.stop_fd = p[0];
	CHECK_EQ(run_sh(&o, "exec sleep 1000", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_STOPPED);
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	CHECK(secs(r.elapsed_ns) < 120 * slow());
	spawnkit_run_result_free(&r);
	close(p[0]);
}

TEST(stop_fd_unused_changes_nothing)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int efd = eventfd(0, EFD_CLOEXEC);

	CHECK(efd >= 0);
	spawnkit_run_opts_init(&o);
	o.stop_fd = efd;
	CHECK_EQ(run_sh(&o, "echo hi; exit 3", &r), 0);
	CHECK_EQ(r.why, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
	EXPECT_STREQ(joined(&r.out[1]), "hi\n");
	spawnkit_run_result_free(&r);
	close(efd);
}

TEST(stop_fd_bad_values)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.stop_fd = -2;
	CHECK_ERR(run_sh(&o, "true", &r), EINVAL);
	spawnkit_run_opts_init(&o);
	o.stop_fd = 777;			/* not open */
	CHECK_ERR(run_sh(&o, "true", &r), EBADF);
}

TEST(older_callers_size_still_runs)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	/* what a caller compiled before stop_fd passes: its size, and
	 * whatever happens to lie where stop_fd is now */
	spawnkit_run_opts_init(&o);
	o.size = SPAWNKIT_RUN_OPTS_SIZE_V1;
	o.stop_fd = 12345;
	CHECK_EQ(run_sh(&o, "echo old", &r), 0);
	CHECK_EQ(r.why, 0);
	EXPECT_STREQ(joined(&r.out[1]), "old\n");
	spawnkit_run_result_free(&r);
	o.size = SPAWNKIT_RUN_OPTS_SIZE_V1 + 4;	/* neither size */
	CHECK_ERR(run_sh(&o, "true", &r), EINVAL);
}

TEST_HARNESS_MAIN

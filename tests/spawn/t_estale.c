/* SPDX-License-Identifier: MIT */
/*
 * A replaced or rewritten executable makes the template stale (ESTALE);
 * a new template of the same path then works.  On the kernel backend an
 * in-place write is refused while the template lives (ETXTBSY).
 */
#include <sys/time.h>
#include "util.h"

static char *argv_q[] = { "probe", "--quiet", NULL };

static pid_t spawn_wait(struct spawnkit_template *t)
{
	int pidfd;
	pid_t pid = spawnkit_spawn(t, argv_q, environ, NULL, 0, 0, &pidfd);

	if (pid > 0)
		CHECK_EQ(wait_pidfd(pidfd), 0);
	return pid;
}

/* A copy of the probe at dir/prog; every case ends with the fds it
 * started with and no child left. */
FIXTURE(stale) {
	char *dir;
	char prog[256], other[256];
	int fds_before;
};

FIXTURE_SETUP(stale)
{
	self->fds_before = count_open_fds();
	self->dir = make_tmpdir();
	snprintf(self->prog, sizeof(self->prog), "%s/prog", self->dir);
	snprintf(self->other, sizeof(self->other), "%s/new", self->dir);
	copy_file(probe_path(), self->prog, 0755);
}

FIXTURE_TEARDOWN(stale)
{
	unlink(self->prog);
	rm_tmpdir(self->dir);
	CHECK_EQ(count_open_fds(), self->fds_before);
	CHECK(no_children());
}

/* rename-over: the path names another file; the fd template's file
 * lost its name (unlink moves its ctime), so both are stale */
TEST_F(stale, rename_over_makes_stale_and_new_template_works)
{
	const char *prog = self->prog;
	const char *other = self->other;
	struct spawnkit_template *t;
	struct spawnkit_template *tfd;
	int fd;

	copy_file(probe_path(), prog, 0755);
	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	fd = open(prog, O_RDONLY | O_CLOEXEC);
	CHECK_EQ(spawnkit_template_create_fd(fd, 0, &tfd), 0);
	close(fd);
	CHECK(spawn_wait(t) > 0);
	copy_file(probe_path(), other, 0755);
	CHECK_EQ(rename(other, prog), 0);
	CHECK_ERR(spawn_wait(t), ESTALE);
	CHECK_ERR(spawn_wait(t), ESTALE);	/* stays stale */
	CHECK_ERR(spawn_wait(tfd), ESTALE);
	spawnkit_template_destroy(t);
	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	CHECK(spawn_wait(t) > 0);		/* the runtime's recovery */
	spawnkit_template_destroy(t);
	spawnkit_template_destroy(tfd);
}

/* the path removed: stale */
TEST_F(stale, removed_path_makes_stale)
{
	const char *prog = self->prog;
	struct spawnkit_template *t;

	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	CHECK_EQ(unlink(prog), 0);
	CHECK_ERR(spawn_wait(t), ESTALE);
	spawnkit_template_destroy(t);
}

/* in-place write: kernel refuses the writer, user backend goes stale.
 * The user backend sees a write through ctime/mtime; before 6.13 those
 * are clock-tick grained, so the write must come a tick after the
 * file's last change for stat to show it (a documented limit). */
TEST_F(stale, in_place_write_refused_or_stale)
{
	const char *prog = self->prog;
	struct spawnkit_template *t;
	struct spawnkit_template *tfd;
	int fd;

	copy_file(probe_path(), prog, 0755);
	usleep(50 * 1000);
	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	fd = open(prog, O_RDONLY | O_CLOEXEC);
	CHECK_EQ(spawnkit_template_create_fd(fd, 0, &tfd), 0);
	close(fd);
	fd = open(prog, O_RDWR | O_CLOEXEC);
	if (is_kernel(t)) {
		CHECK_EQ(fd, -1);
		CHECK_EQ(errno, ETXTBSY);
		CHECK(spawn_wait(t) > 0);
	} else {
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
		char byte = 0;

		CHECK(fd >= 0);
		/* rewrite one byte with its own value and keep the mtime: the
		 * ctime still moves */
		CHECK_EQ(pread(fd, &byte, 1, 100), 1);
		CHECK_EQ(pwrite(fd, &byte, 1, 100), 1);
		futimens(fd, ts);
		close(fd);
		CHECK_ERR(spawn_wait(t), ESTALE);
		CHECK_ERR(spawn_wait(tfd), ESTALE);
	}
	spawnkit_template_destroy(t);
	spawnkit_template_destroy(tfd);
}

/* the pinned fd closed behind the library's back and its number
 * reused for another executable: never run that one */
TEST_F(stale, reused_fd_number_never_runs_other_file)
{
	const char *prog = self->prog;
	struct spawnkit_template *t;
	int fd;

	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	if (!is_kernel(t)) {
		int xfd = spawnkit_template_fd(t);

		close(xfd);
		CHECK_ERR(spawn_wait(t), EBADF);
		fd = open(probe_path(), O_RDONLY | O_CLOEXEC);
		if (fd != xfd) {
			CHECK_EQ(dup2(fd, xfd), xfd);
			close(fd);
		}
		CHECK_ERR(spawn_wait(t), ESTALE);
	}
	spawnkit_template_destroy(t);
}

/* chmod and chown are changes of identity too */
TEST_F(stale, chmod_and_chown_make_stale)
{
	const char *prog = self->prog;
	struct spawnkit_template *t;

	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	CHECK(spawn_wait(t) > 0);
	CHECK_EQ(chmod(prog, 0700), 0);
	CHECK_ERR(spawn_wait(t), ESTALE);
	spawnkit_template_destroy(t);
	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	CHECK_EQ(chown(prog, 1, 1), 0);
	CHECK_ERR(spawn_wait(t), ESTALE);
	spawnkit_template_destroy(t);
}

/* a touch of atime alone is a change too: utimensat moves the ctime */
TEST_F(stale, atime_touch_makes_stale)
{
	const char *prog = self->prog;
	struct spawnkit_template *t;

	CHECK_EQ(chown(prog, 0, 0), 0);
	CHECK_EQ(chmod(prog, 0755), 0);
	CHECK_EQ(spawnkit_template_create(prog, 0, &t), 0);
	usleep(50 * 1000);	/* a clock tick after the chown above */
	{
		struct timespec ts[2] = { { 1, 0 }, { 0, UTIME_OMIT } };

		CHECK_EQ(utimensat(AT_FDCWD, prog, ts, 0), 0);
	}
	CHECK_ERR(spawn_wait(t), ESTALE);
	spawnkit_template_destroy(t);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/* Each of the seven actions, observed from inside the child by the probe. */
#include <linux/close_range.h>
#include "util.h"

static struct spawnkit_template *t;
static char *argv_probe[] = { "probe", NULL };

static void run(const struct spawn_template_action *a, unsigned int n, struct run_result *r)
{
	spawn_capture(t, argv_probe, environ, a, n, 0, r);
}

/* The probe's template, a result buffer, a scratch directory open as dfd. */
FIXTURE(probe) {
	struct run_result *r;
	char *dir;
	int dfd;
};

FIXTURE_SETUP(probe)
{
	t = probe_template();
	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
	self->dir = make_tmpdir();
	self->dfd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_GE(self->dfd, 0);
}

/* Every case ends with every child reaped. */
FIXTURE_TEARDOWN(probe)
{
	close(self->dfd);
	rm_tmpdir(self->dir);
	spawnkit_template_destroy(t);
	free(self->r);
	CHECK(no_children());
}

/* CLOSE: close stdin in the child */
TEST_F(probe, close_closes_stdin)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];

	spawnkit_action_close(&a[0], 0);
	run(a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(!has_line(r, "fd 0"));
	CHECK(has_line(r, "fd 1") && has_line(r, "fd 2"));
}

/* CLOSE of an fd that is not open is that fd's EBADF */
TEST_F(probe, close_of_unopened_fd_is_ebadf)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];

	spawnkit_action_close(&a[0], 999);
	run(a, 1, r);
	CHECK_ERR(r->pid, EBADF);
}

/* DUP2: a parent fd to a new number, with and without O_CLOEXEC
 * (INHERIT_FDS: by default every fd above 2 is closed after the
 * actions, those they made too) */
TEST_F(probe, dup2_moves_fd_with_and_without_cloexec)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	int fd;

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	spawnkit_action_dup2(&a[0], fd, 7, 0);
	spawnkit_action_dup2(&a[1], fd, 8, O_CLOEXEC);
	spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "fd 7"));
	CHECK(has_line(r, "fdflags 7 0"));
	CHECK(!has_line(r, "fd 8"));		/* closed by exec */
	CHECK(!has_line(r, "fd %d", fd));	/* closed: above 2 */
	close(fd);
}

/* fd == newfd only checks that fd is open */
TEST_F(probe, dup2_onto_itself_checks_fd_is_open)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];

	spawnkit_action_dup2(&a[0], 2, 2, 0);
	run(a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	spawnkit_action_dup2(&a[0], 500, 500, 0);
	run(a, 1, r);
	CHECK_ERR(r->pid, EBADF);
	spawnkit_action_dup2(&a[0], 500, 3, 0);
	run(a, 1, r);
	CHECK_ERR(r->pid, EBADF);
}

TEST_F(probe, fchdir_sets_child_cwd)
{
	struct run_result *r = self->r;
	const char *dir = self->dir;
	int dfd = self->dfd;
	struct spawn_template_action a[4];

	/* FCHDIR: the cwd of the child */
	spawnkit_action_fchdir(&a[0], dfd);
	run(a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "cwd %s", dir));
}

TEST_F(probe, fchdir_of_non_dir_or_closed_fd_fails)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	int fd;

	/* FCHDIR: ENOTDIR; EBADF */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	spawnkit_action_fchdir(&a[0], fd);
	run(a, 1, r);
	CHECK_ERR(r->pid, ENOTDIR);
	close(fd);
	spawnkit_action_fchdir(&a[0], 777);
	run(a, 1, r);
	CHECK_ERR(r->pid, EBADF);
}

/* checked before anything runs: an errno even in exit-status mode */
TEST_F(probe, fchdir_checked_before_any_action_runs)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	int fd;

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	spawnkit_action_fchdir(&a[0], fd);
	spawn_capture(t, argv_probe, environ, a, 1, SPAWNKIT_SPAWN_EXIT_STATUS, r);
	CHECK_ERR(r->pid, ENOTDIR);
	close(fd);
}

/* unless an earlier action puts a directory at that number */
TEST_F(probe, fchdir_sees_directory_put_by_earlier_action)
{
	struct run_result *r = self->r;
	const char *dir = self->dir;
	int dfd = self->dfd;
	struct spawn_template_action a[4];
	int fd;

	/* FCHDIR of an fd that is not a directory in the parent works when an
	 * earlier action puts a directory at that number */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	spawnkit_action_dup2(&a[0], dfd, fd, 0);
	spawnkit_action_fchdir(&a[1], fd);
	run(a, 2, r);
	CHECK(r->pid > 0 && r->status == 0 && has_line(r, "cwd %s", dir));
	close(fd);
}

/* the parent's cwd did not move */
TEST_F(probe, fchdir_leaves_parent_cwd)
{
	struct run_result *r = self->r;
	const char *dir = self->dir;
	int dfd = self->dfd;
	struct spawn_template_action a[4];
	char buf[256];

	/* the parent's cwd did not move */
	spawnkit_action_fchdir(&a[0], dfd);
	run(a, 1, r);
	CHECK(r->pid > 0 && has_line(r, "cwd %s", dir));
	CHECK(getcwd(buf, sizeof(buf)) && strcmp(buf, dir));
}

/* OPEN: create a file relative to a dirfd, at a chosen number */
TEST_F(probe, open_creates_at_chosen_number)
{
	struct run_result *r = self->r;
	const char *dir = self->dir;
	int dfd = self->dfd;
	struct spawn_template_action a[4];
	struct spawnkit_open o;
	char path[256];

	spawnkit_action_open(&a[0], &o, dfd, "made-by-open", O_WRONLY | O_CREAT | O_TRUNC,
			     0600, 5);
	spawn_capture(t, argv_probe, environ, a, 1, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "fd 5") && has_line(r, "fdflags 5 0"));
	snprintf(path, sizeof(path), "%s/made-by-open", dir);
	{
		struct stat st;

		CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	}
}

/* the child writes through its opened fd */
TEST_F(probe, open_fd_is_written_by_child)
{
	struct run_result *r = self->r;
	const char *dir = self->dir;
	struct spawn_template_action a[4];
	struct spawnkit_open o;
	char path[256];
	char buf[256];
	int fd;
	int n;

	snprintf(path, sizeof(path), "%s/made-by-open", dir);
	write_file(path, "", 0600);
	{
		char *wargv[] = { "probe", "--write-fd", "1", "hello-from-child", NULL };

		spawnkit_action_open(&a[0], &o, AT_FDCWD, path, O_WRONLY | O_TRUNC, 0, 1);
		spawn_capture(t, wargv, environ, a, 1, 0, r);
		CHECK(r->pid > 0 && r->status == 0);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		CHECK(strstr(buf, "hello-from-child") != NULL);
	}
}

/* stdin from a file: the probe copies fd 0 to stdout */
TEST_F(probe, open_gives_child_stdin)
{
	struct run_result *r = self->r;
	const char *dir = self->dir;
	struct spawn_template_action a[4];
	struct spawnkit_open o;
	char path[256];

	snprintf(path, sizeof(path), "%s/made-by-open", dir);
	{
		char *cargv[] = { "probe", "--cat", "0", NULL };

		write_file(path, "line-in-file\n", 0644);
		spawnkit_action_open(&a[0], &o, AT_FDCWD, path, O_RDONLY, 0, 0);
		spawn_capture(t, cargv, environ, a, 1, 0, r);
		CHECK(r->pid > 0 && r->status == 0);
		CHECK(has_line(r, "line-in-file"));
	}
}

/* O_CLOEXEC in how.flags: the fd is gone after exec */
TEST_F(probe, open_cloexec_fd_gone_after_exec)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	struct spawnkit_open o;

	spawnkit_action_open(&a[0], &o, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC, 0, 6);
	spawn_capture(t, argv_probe, environ, a, 1, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && !has_line(r, "fd 6"));
}

/* and without INHERIT_FDS the default closing takes what OPEN made */
TEST_F(probe, open_fd_closed_without_inherit_fds)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	struct spawnkit_open o;

	spawnkit_action_open(&a[0], &o, AT_FDCWD, "/dev/null", O_RDONLY, 0, 6);
	run(a, 1, r);
	CHECK(r->pid > 0 && r->status == 0 && !has_line(r, "fd 6"));
}

/* errors of the open itself */
TEST_F(probe, open_errors)
{
	struct run_result *r = self->r;
	int dfd = self->dfd;
	struct spawn_template_action a[4];
	struct spawnkit_open o;

	spawnkit_action_open(&a[0], &o, AT_FDCWD, "/nonexistent/file", O_RDONLY, 0, 6);
	run(a, 1, r);
	CHECK_ERR(r->pid, ENOENT);
	spawnkit_action_open(&a[0], &o, dfd, "made-by-open", O_RDONLY, 0755, 6);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);	/* a mode without O_CREAT: openat2 says no */
	spawnkit_action_open(&a[0], &o, AT_FDCWD, (const char *)16, O_RDONLY, 0, 6);
	run(a, 1, r);
	CHECK_ERR(r->pid, EFAULT);
	spawnkit_action_open(&a[0], &o, 888, "relative", O_RDONLY, 0, 6);
	run(a, 1, r);
	CHECK_ERR(r->pid, EBADF);
}

/* CLOSE_RANGE: a range; up to the highest fd; CLOEXEC */
TEST_F(probe, close_range_range_all_and_cloexec)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	int fd;

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	spawnkit_action_dup2(&a[0], fd, 10, 0);
	spawnkit_action_dup2(&a[1], fd, 11, 0);
	spawnkit_action_dup2(&a[2], fd, 12, 0);
	spawnkit_action_close_range(&a[3], 10, 11, 0);
	spawn_capture(t, argv_probe, environ, a, 4, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0);
	CHECK(!has_line(r, "fd 10") && !has_line(r, "fd 11") && has_line(r, "fd 12"));
	spawnkit_action_close_range(&a[3], 0, SPAWN_TEMPLATE_FD_MAX, 0);
	spawn_capture(t, argv_probe, environ, a, 4, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	/* everything closed, stdout too: the probe printed nothing */
	CHECK(r->pid > 0 && r->len == 0);
	spawnkit_action_close_range(&a[3], 11, SPAWN_TEMPLATE_FD_MAX, CLOSE_RANGE_CLOEXEC);
	spawn_capture(t, argv_probe, environ, a, 4, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && has_line(r, "fd 10") && !has_line(r, "fd 11") &&
	      !has_line(r, "fd 12"));
	close(fd);
}

/* SIGMASK: the child's blocked set is exactly the given one, less
 * SIGKILL and SIGSTOP */
TEST_F(probe, sigmask_sets_child_blocked_set)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	struct spawn_template_sigset ss;
	uint64_t set;

	set = (1ULL << (SIGUSR1 - 1)) | (1ULL << (SIGTERM - 1)) | (1ULL << (SIGKILL - 1)) |
	      (1ULL << (SIGSTOP - 1));
	spawnkit_action_sigset(&a[0], SPAWN_TEMPLATE_ACTION_SIGMASK, &ss, (sigset_t *)&set);
	run(a, 1, r);
	CHECK(r->pid > 0);
	CHECK_EQ(hex_line(r, "sigblk"), (1ULL << (SIGUSR1 - 1)) | (1ULL << (SIGTERM - 1)));
}

/* without the action: the parent's mask */
TEST_F(probe, no_sigmask_keeps_parent_mask)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];

	{
		sigset_t m, old;

		sigemptyset(&m);
		sigaddset(&m, SIGHUP);
		sigprocmask(SIG_BLOCK, &m, &old);
		run(a, 0, r);
		CHECK_EQ(hex_line(r, "sigblk"), 1ULL << (SIGHUP - 1));
		sigprocmask(SIG_SETMASK, &old, NULL);
		run(a, 0, r);
		CHECK_EQ(hex_line(r, "sigblk"), 0);
	}
}

/* SIGDEFAULT: ignored in the parent, default in the child */
TEST_F(probe, sigdefault_resets_in_child_only)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	struct spawn_template_sigset ss;
	uint64_t set;

	signal(SIGUSR2, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	run(a, 0, r);
	CHECK_EQ(hex_line(r, "sigign"), (1ULL << (SIGUSR2 - 1)) | (1ULL << (SIGPIPE - 1)));
	set = 1ULL << (SIGUSR2 - 1);
	spawnkit_action_sigset(&a[0], SPAWN_TEMPLATE_ACTION_SIGDEFAULT, &ss, (sigset_t *)&set);
	run(a, 1, r);
	CHECK_EQ(hex_line(r, "sigign"), 1ULL << (SIGPIPE - 1));
	/* and the parent still ignores it */
	{
		struct sigaction sa;

		sigaction(SIGUSR2, NULL, &sa);
		CHECK(sa.sa_handler == SIG_IGN);
	}
	signal(SIGUSR2, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

/* actions run in order: dup then close the same number */
TEST_F(probe, actions_run_in_order)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];

	spawnkit_action_dup2(&a[0], 2, 9, 0);
	spawnkit_action_close(&a[1], 9);
	spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && !has_line(r, "fd 9"));
	spawnkit_action_close(&a[0], 9);
	spawnkit_action_dup2(&a[1], 2, 9, 0);
	spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK_ERR(r->pid, EBADF);	/* 9 was not open to close */
}

/* actions aimed at the template's own fd number still work: the
 * pinned executable moves out of their way (user backend) */
TEST_F(probe, template_fd_number_is_free_for_actions)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[4];
	int fd;

	{
		int xfd = spawnkit_template_fd(t);

		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		spawnkit_action_dup2(&a[0], fd, xfd, 0);
		spawn_capture(t, argv_probe, environ, a, 1, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK(r->pid > 0 && r->status == 0 && has_line(r, "fd %d", xfd));
		spawnkit_action_close(&a[0], xfd);
		spawn_capture(t, argv_probe, environ, a, 1, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK(r->pid > 0 && r->status == 0 && !has_line(r, "fd %d", xfd));
		spawnkit_action_close_range(&a[0], 3, SPAWN_TEMPLATE_FD_MAX, 0);
		spawn_capture(t, argv_probe, environ, a, 1, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK(r->pid > 0 && r->status == 0);
		/* after a CLOSE_RANGE over it, the number is closed to later
		 * actions, as in the kernel where the file is not in the table */
		spawnkit_action_dup2(&a[1], xfd, 9, 0);
		spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK_ERR(r->pid, EBADF);
		spawnkit_action_close(&a[1], xfd);
		spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK_ERR(r->pid, EBADF);
		spawnkit_action_fchdir(&a[1], xfd);
		spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK_ERR(r->pid, EBADF);
		/* OPEN with that number as dirfd: an absolute path does not
		 * need it, a relative one finds it closed */
		{
			struct spawnkit_open o2;

			spawnkit_action_open(&a[1], &o2, xfd, "/dev/null", O_RDONLY, 0, 9);
			spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
			CHECK(r->pid > 0 && r->status == 0 && has_line(r, "fd 9"));
			spawnkit_action_open(&a[1], &o2, xfd, "dev/null", O_RDONLY, 0, 9);
			spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
			CHECK_ERR(r->pid, EBADF);
		}
		/* and a new file may take the number */
		spawnkit_action_dup2(&a[1], 2, xfd, 0);
		spawn_capture(t, argv_probe, environ, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK(r->pid > 0 && r->status == 0 && has_line(r, "fd %d", xfd));
		close(fd);
	}
}

TEST_HARNESS_MAIN

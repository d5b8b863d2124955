/* SPDX-License-Identifier: MIT */
/* Default fd closing vs INHERIT_FDS, checked from inside the child. */
#include "util.h"

/*
 * The probe's template and, as a careless parent leaves them, four
 * inheritable fds (one at a high number) and an O_CLOEXEC one.  Every case
 * ends with the parent's table as it was (spawning changes nothing in it).
 */
FIXTURE(fds) {
	struct spawnkit_template *t;
	struct run_result *r;
	int keep[4], cloexec, inheritable, before;
};

FIXTURE_SETUP(fds)
{
	struct dirent *de;
	DIR *d;
	int i;

	self->t = probe_template();
	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
	/* what this process inherited itself (a test runner may leave some) */
	d = opendir("/proc/self/fd");
	ASSERT_TRUE(d != NULL);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d) &&
		    !(fcntl(atoi(de->d_name), F_GETFD) & FD_CLOEXEC))
			self->inheritable++;
	closedir(d);
	for (i = 0; i < 4; i++)
		self->keep[i] = open("/dev/null", O_RDONLY);
	self->cloexec = open("/dev/null", O_RDONLY | O_CLOEXEC);
	i = self->keep[3];
	self->keep[3] = dup2(i, 200);		/* a high number too */
	close(i);
	self->before = count_open_fds();
}

FIXTURE_TEARDOWN(fds)
{
	CHECK_EQ(count_open_fds(), self->before);
	for (int i = 0; i < 4; i++)
		close(self->keep[i]);
	close(self->cloexec);
	spawnkit_template_destroy(self->t);
	free(self->r);
	CHECK(no_children());
}

/* default: the child starts with exactly 0, 1, 2 */
TEST_F(fds, default_child_has_only_0_1_2)
{
	struct spawnkit_template *t = self->t;
	struct run_result *r = self->r;
	char *argv_probe[] = { "probe", NULL };

	spawn_capture(t, argv_probe, environ, NULL, 0, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(fd_lines(r), 3);
	CHECK(has_line(r, "fd 0") && has_line(r, "fd 1") && has_line(r, "fd 2"));
}

/* INHERIT_FDS: the inheritable ones stay, O_CLOEXEC ones and the
 * template's own fd do not */
TEST_F(fds, inherit_fds_keeps_inheritable_only)
{
	struct spawnkit_template *t = self->t;
	struct run_result *r = self->r;
	char *argv_probe[] = { "probe", NULL };
	int *keep = self->keep;
	int cloexec = self->cloexec;
	int inheritable = self->inheritable;
	int xfd = spawnkit_template_fd(self->t);
	int i;

	spawn_capture(t, argv_probe, environ, NULL, 0, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && r->status == 0);
	for (i = 0; i < 4; i++)
		CHECK(has_line(r, "fd %d", keep[i]));
	CHECK(!has_line(r, "fd %d", cloexec));
	CHECK(!has_line(r, "fd %d", xfd));
	CHECK_EQ(fd_lines(r), inheritable + 4);
}

/* the template's own fd is close-on-exec with no flag: even INHERIT_FDS
 * does not pass it (user backend: the pinned executable; kernel: the
 * template fd) */
TEST_F(fds, template_fd_never_passes)
{
	struct run_result *r = self->r;
	char *argv_probe[] = { "probe", NULL };

	{
		struct spawnkit_template *t2;

		CHECK_EQ(spawnkit_template_create(probe_path(), 0, &t2), 0);
		spawn_capture(t2, argv_probe, environ, NULL, 0, SPAWNKIT_SPAWN_INHERIT_FDS, r);
		CHECK(r->pid > 0 && r->status == 0);
		CHECK(!has_line(r, "fd %d", spawnkit_template_fd(t2)));
		spawn_capture(t2, argv_probe, environ, NULL, 0, 0, r);
		CHECK(r->pid > 0 && !has_line(r, "fd %d", spawnkit_template_fd(t2)));
		spawnkit_template_destroy(t2);
	}
}

/* with stdin closed in the parent, 0..2 are still the caller's: the
 * template's fd never lands there */
TEST_F(fds, template_fd_never_lands_on_0_to_2)
{
	struct run_result *r = self->r;
	char *argv_probe[] = { "probe", NULL };

	{
		struct spawnkit_template *t3;
		int saved = dup(0);

		close(0);
		CHECK_EQ(spawnkit_template_create(probe_path(), 0, &t3), 0);
		CHECK(spawnkit_template_fd(t3) > 2);
		spawn_capture(t3, argv_probe, environ, NULL, 0, 0, r);
		CHECK(r->pid > 0 && r->status == 0 && !has_line(r, "fd 0"));
		spawnkit_template_destroy(t3);
		dup2(saved, 0);
		close(saved);
	}
}

/* the child copies only the fds its actions name (it shares the
 * table until then): a high fd named by an action still arrives, and
 * the parent's table is untouched by the child's actions */
TEST_F(fds, child_copies_only_fds_actions_name)
{
	struct spawnkit_template *t = self->t;
	struct run_result *r = self->r;

	{
		char *cat[] = { "probe", "--quiet", "--cat", "0", NULL };
		int p[2], hi;

		CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
		hi = dup3(p[0], 900, O_CLOEXEC);
		CHECK_EQ(write(p[1], "via-fd-900\n", 11), 11);
		close(p[1]);
		{
			struct spawn_template_action a[2];

			spawnkit_action_dup2(&a[0], hi, 0, 0);
			spawnkit_action_close(&a[1], 0);	/* closes the child's 0 only */
			spawn_capture(t, cat, environ, a, 1, 0, r);
			CHECK(r->pid > 0 && r->status == 0 && has_line(r, "via-fd-900"));
			spawn_capture(t, cat, environ, a, 2, 0, r);
			CHECK(r->pid > 0);
		}
		CHECK(fcntl(0, F_GETFD) >= 0);		/* the parent's stdin */
		CHECK(fcntl(hi, F_GETFD) >= 0);
		close(hi);
		close(p[0]);
	}
}

TEST_HARNESS_MAIN

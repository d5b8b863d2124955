/* SPDX-License-Identifier: MIT */
/* spawnkit_actions_pass_fds: chosen fds reach the child, nothing else. */
#include "util.h"

/*
 * The probe's template; an inheritable fd (stray), an O_CLOEXEC one
 * (kept1) and its copy at 40 (kept2), as the fds to pass.
 */
FIXTURE(pass) {
	struct spawnkit_template *t;
	struct run_result *r;
	int stray, kept1, kept2;
};

FIXTURE_SETUP(pass)
{
	self->t = probe_template();
	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
	self->stray = open("/dev/null", O_RDONLY);			/* inheritable */
	self->kept1 = open("/dev/null", O_RDONLY | O_CLOEXEC);	/* CLOEXEC */
	self->kept2 = dup2(self->kept1, 40);
	fcntl(self->kept2, F_SETFD, FD_CLOEXEC);
}

FIXTURE_TEARDOWN(pass)
{
	close(self->stray);
	close(self->kept1);
	close(self->kept2);
	spawnkit_template_destroy(self->t);
	free(self->r);
	CHECK(no_children());
}

TEST_F(pass, chosen_fds_reach_child_nothing_else)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[64];
	char *argv_probe[] = { "probe", NULL };
	int kept1 = self->kept1, kept2 = self->kept2;
	int fds[] = { kept2, kept1, 1, kept1 };
	int n;

	n = spawnkit_actions_pass_fds(a, 64, fds, 4);
	CHECK(n > 0 && n <= 3 * 2 + 1);
	spawn_capture(self->t, argv_probe, environ, a, n, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "fd %d", kept1) && has_line(r, "fdflags %d 0", kept1));
	CHECK(has_line(r, "fd %d", kept2) && has_line(r, "fdflags %d 0", kept2));
	CHECK(!has_line(r, "fd %d", self->stray));
	CHECK(!has_line(r, "fd %d", kept2 + 1));	/* the scratch number */
	CHECK_EQ(fd_lines(r), 5);
	/* the parent's fds keep their flags */
	CHECK_EQ(fcntl(kept1, F_GETFD), FD_CLOEXEC);
}

/* no fds: just "close everything above 2" */
TEST_F(pass, no_fds_closes_all_above_2)
{
	struct run_result *r = self->r;
	struct spawn_template_action a[64];
	char *argv_probe[] = { "probe", NULL };
	int n;

	n = spawnkit_actions_pass_fds(a, 64, NULL, 0);
	CHECK_EQ(n, 1);
	spawn_capture(self->t, argv_probe, environ, a, n, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && fd_lines(r) == 3);
}

TEST_F(pass, bad_fd_no_room_or_too_many_fds_fail)
{
	struct spawn_template_action a[64];
	int fds[] = { -1, self->kept1, 1, self->kept1 };

	CHECK_ERR(spawnkit_actions_pass_fds(a, 64, fds, 4), EINVAL);
	fds[0] = self->kept2;
	CHECK_ERR(spawnkit_actions_pass_fds(a, 6, fds, 4), ENOSPC);
	CHECK_ERR(spawnkit_actions_pass_fds(a, 64, fds, SPAWN_TEMPLATE_ACTIONS_MAX + 1), EINVAL);
}

TEST_HARNESS_MAIN

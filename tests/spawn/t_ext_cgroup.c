/* SPDX-License-Identifier: MIT */
/*
 * The CGROUP action: the child starts inside a fresh cgroup2 directory
 * (CLONE_INTO_CGROUP), and a cgroup whose cgroup.procs we may not write is
 * EACCES.  Skips (exit 77) where no writable cgroup2 is mounted.
 */
#include "util.h"
#include "cgroup_util.h"

static char *argv_attrs[] = { "attrs", NULL };

/*
 * A fresh cgroup of our own (open as fd), the attrs template, a result.
 * Skips where no writable cgroup2 is mounted or clone3 cannot place
 * children in cgroups.  The teardown checks every child was reaped: the
 * cgroup is empty again and can be removed.
 */
FIXTURE(cg) {
	struct spawnkit_template *t;
	struct spawn_template_action a[2];
	struct run_result *r;
	char cg[4096], want[4200], name[64];
	int fd;
};

FIXTURE_SETUP(cg)
{
	int ret;

	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
	snprintf(self->name, sizeof(self->name), "spawnkit-t-%d", (int)getpid());
	if (make_test_cgroup(self->name, self->cg, sizeof(self->cg)))
		SKIP("no writable cgroup2 here");
	ret = spawnkit_template_create(helper_path("attrs"), 0,
				       &self->t);
	if (ret)
		fprintf(stderr, "template of attrs: %s\n", strerror(-ret));
	ASSERT_EQ(ret, 0);	/* no template of attrs */
	self->fd = open(self->cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_GE(self->fd, 0);
	/* its cgroup path ends with our directory's name */
	snprintf(self->want, sizeof(self->want), "/%s", strstr(self->cg, self->name));
	spawnkit_action_cgroup(&self->a[0], self->fd);
	spawn_capture(self->t, argv_attrs, environ, self->a, 1, 0, self->r);
	if (self->r->pid == -EOPNOTSUPP) {
		rmdir(self->cg);
		SKIP("clone3 cannot place children in cgroups here");
	}
}

FIXTURE_TEARDOWN(cg)
{
	close(self->fd);
	CHECK(no_children());
	CHECK_EQ(rmdir(self->cg), 0);	/* empty again: every child was reaped */
	spawnkit_template_destroy(self->t);
	free(self->r);
}

TEST_F(cg, child_starts_inside_the_cgroup)
{
	struct run_result *r = self->r;

	spawnkit_action_cgroup(&self->a[0], self->fd);
	spawn_capture(self->t, argv_attrs, environ, self->a, 1, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(strstr(r->out, self->want) != NULL);
}

/* anywhere in the list: it applies before the other actions */
TEST_F(cg, cgroup_after_setsid_still_applies)
{
	struct run_result *r = self->r;

	spawnkit_action_setsid(&self->a[0]);
	spawnkit_action_cgroup(&self->a[1], self->fd);
	spawn_capture(self->t, argv_attrs, environ, self->a, 2, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(strstr(r->out, self->want) != NULL);
}

/* cgroup.procs not writable: EACCES, nothing started (as an unprivileged
 * user; root passes every access check) */
TEST_F(cg, unwritable_cgroup_procs_is_eacces)
{
	struct run_result *r = self->r;

	if (geteuid() == 0)
		SKIP("root passes every access check");
	ASSERT_EQ(chmod(self->cg, 0555), 0);
	spawnkit_action_cgroup(&self->a[0], self->fd);
	spawn_capture(self->t, argv_attrs, environ, self->a, 1, 0, r);
	CHECK_ERR(r->pid, EACCES);
}

TEST_HARNESS_MAIN

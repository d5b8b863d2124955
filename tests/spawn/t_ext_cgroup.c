/* SPDX-License-Identifier: MIT */
/*
 * The CGROUP action: the child starts inside a fresh cgroup2 directory
 * (CLONE_INTO_CGROUP), and a cgroup whose cgroup.procs we may not write is
 * EACCES.  Skips (exit 77) where no writable cgroup2 is mounted.
 */
#include "util.h"
#include "cgroup_util.h"

int main(void)
{
	struct spawnkit_template *t;
	struct spawn_template_action a[2];
	struct run_result *r = malloc(sizeof(*r));
	char *argv_attrs[] = { "attrs", NULL };
	char cg[4096], want[4200], name[64];
	const char *rel;
	int ret, fd;

	snprintf(name, sizeof(name), "spawnkit-t-%d", (int)getpid());
	ret = make_test_cgroup(name, cg, sizeof(cg));
	if (ret)
		TEST_SKIP("no writable cgroup2 here");
	ret = spawnkit_template_create(helper_path("attrs"), SPAWN_TEMPLATE_CREATE_CLOEXEC, &t);
	if (ret) {
		fprintf(stderr, "template of attrs: %s\n", strerror(-ret));
		return 2;
	}
	fd = open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0);
	spawnkit_action_cgroup(&a[0], fd);
	spawn_capture(t, argv_attrs, environ, a, 1, 0, r);
	if (r->pid == -EOPNOTSUPP) {
		rmdir(cg);
		TEST_SKIP("clone3 cannot place children in cgroups here");
	}
	CHECK(r->pid > 0 && r->status == 0);
	/* its cgroup path ends with our directory's name */
	rel = strstr(cg, name);
	snprintf(want, sizeof(want), "/%s", rel);
	CHECK(strstr(r->out, want) != NULL);
	/* anywhere in the list: it applies before the other actions */
	spawnkit_action_setsid(&a[0]);
	spawnkit_action_cgroup(&a[1], fd);
	spawn_capture(t, argv_attrs, environ, a, 2, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(strstr(r->out, want) != NULL);
	close(fd);

	/* cgroup.procs not writable: EACCES, nothing started (as an
	 * unprivileged user; root passes every access check) */
	if (geteuid() != 0) {
		fd = open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		chmod(cg, 0555);
		spawnkit_action_cgroup(&a[0], fd);
		spawn_capture(t, argv_attrs, environ, a, 1, 0, r);
		CHECK_ERR(r->pid, EACCES);
		close(fd);
	}
	CHECK(no_children());
	CHECK_EQ(rmdir(cg), 0);	/* empty again: every child was reaped */
	spawnkit_template_destroy(t);
	free(r);
	TEST_DONE();
}

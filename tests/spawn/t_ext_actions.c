/* SPDX-License-Identifier: MIT */
/*
 * spawnkit's extension actions SETSID, SETPGID, UMASK and SETRLIMIT, seen
 * from inside the child by the attrs helper, and the field rules of all
 * five (CGROUP's placement is t_ext_cgroup).  On the kernel backend the
 * kernel runs them, or on a kernel without them they are handed to the user
 * backend: the same results.
 */
#include <sys/resource.h>
#include "util.h"

static struct spawnkit_template *t;
static char *argv_attrs[] = { "attrs", NULL };

static void run(const struct spawn_template_action *a, unsigned int n, struct run_result *r)
{
	spawn_capture(t, argv_attrs, environ, a, n, 0, r);
}

static long val(const struct run_result *r, const char *key)
{
	const char *p = r->out;
	size_t n = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtol(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -12345;
}

/* (merged from main as one program; one case until split by behaviour) */
TEST(ext_actions)
{
	struct spawn_template_action a[3];
	struct spawn_template_rlimit rl = { 64, 64 }, core0 = { 0, 0 }, bad = { 10, 5 };
	struct run_result *r = malloc(sizeof(*r));
	struct rlimit before, after;
	int ret, fd, i;

	ret = spawnkit_template_create(helper_path("attrs"), SPAWN_TEMPLATE_CREATE_CLOEXEC, &t);
	if (ret) {
		fprintf(stderr, "template of attrs: %s\n", strerror(-ret));
		ASSERT_TRUE(0);	/* no template of attrs */
	}

	/* no action: the child shares our session and group */
	run(a, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(val(r, "sid"), getsid(0));
	CHECK_EQ(val(r, "pgid"), getpgid(0));

	/* SETSID: a session and group of its own, led by the child */
	spawnkit_action_setsid(&a[0]);
	run(a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(val(r, "sid"), r->pid);
	CHECK_EQ(val(r, "pgid"), r->pid);
	CHECK_EQ(val(r, "pid"), r->pid);
	/* a session leader cannot start another: setsid's EPERM */
	spawnkit_action_setsid(&a[1]);
	run(a, 2, r);
	CHECK_ERR(r->pid, EPERM);

	/* SETPGID 0: a group of its own in our session */
	spawnkit_action_setpgid(&a[0], 0);
	run(a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(val(r, "pgid"), r->pid);
	CHECK_EQ(val(r, "sid"), getsid(0));
	/* into our own group: allowed, same session (not nameable where our
	 * group is 0, as under the guest's init: 0 means "a new group") */
	if (getpgid(0) > 0) {
		spawnkit_action_setpgid(&a[0], getpgid(0));
		run(a, 1, r);
		CHECK(r->pid > 0 && r->status == 0);
		CHECK_EQ(val(r, "pgid"), getpgid(0));
	}
	/* a group that does not exist in the session: EPERM */
	spawnkit_action_setpgid(&a[0], 0x3ffffff0);
	run(a, 1, r);
	CHECK_ERR(r->pid, EPERM);
	/* after SETSID the leader cannot move: EPERM; order matters */
	spawnkit_action_setsid(&a[0]);
	spawnkit_action_setpgid(&a[1], 0);
	run(a, 2, r);
	CHECK_ERR(r->pid, EPERM);
	spawnkit_action_setpgid(&a[0], 0);
	spawnkit_action_setsid(&a[1]);
	run(a, 2, r);		/* a group leader cannot setsid either */
	CHECK_ERR(r->pid, EPERM);

	/* UMASK */
	spawnkit_action_umask(&a[0], 027);
	run(a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "umask 027"));
	spawnkit_action_umask(&a[0], 0);
	run(a, 1, r);
	CHECK(has_line(r, "umask 000"));
	CHECK_EQ(umask(022), 022);	/* ours is untouched (the runner's 022) */
	umask(022);

	/* SETRLIMIT: the child's limits, not ours */
	getrlimit(RLIMIT_NOFILE, &before);
	spawnkit_action_setrlimit(&a[0], RLIMIT_NOFILE, &rl);
	spawnkit_action_setrlimit(&a[1], RLIMIT_CORE, &core0);
	run(a, 2, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "nofile 64 64"));
	CHECK(has_line(r, "core 0 0"));
	getrlimit(RLIMIT_NOFILE, &after);
	CHECK(before.rlim_cur == after.rlim_cur && before.rlim_max == after.rlim_max);
	/* cur > max, an unknown resource, no or a bad pointer */
	spawnkit_action_setrlimit(&a[0], RLIMIT_NOFILE, &bad);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_setrlimit(&a[0], RLIM_NLIMITS, &rl);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_setrlimit(&a[0], -1, &rl);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_setrlimit(&a[0], RLIMIT_NOFILE, NULL);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_setrlimit(&a[0], RLIMIT_NOFILE, (void *)8);
	run(a, 1, r);
	CHECK_ERR(r->pid, EFAULT);

	/* field rules: a field the type does not use must be zero */
	for (i = SPAWN_TEMPLATE_ACTION_SETSID; i <= SPAWN_TEMPLATE_ACTION_SETCTTY; i++) {
		memset(&a[0], 0, sizeof(a[0]));
		a[0].type = i;
		if (i == SPAWN_TEMPLATE_ACTION_SETRLIMIT)
			a[0].arg = (uintptr_t)&rl;
		a[0].newfd = 1;
		run(a, 1, r);
		CHECK_ERR(r->pid, EINVAL);
		a[0].newfd = 0;
		a[0].flags = 1;
		run(a, 1, r);
		CHECK_ERR(r->pid, EINVAL);
	}
	spawnkit_action_setsid(&a[0]);
	a[0].fd = 1;
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_umask(&a[0], 01000);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_setpgid(&a[0], -1);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_umask(&a[0], 0);
	a[0].arg = 8;
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	a[0].type = SPAWN_TEMPLATE_ACTION_SETCTTY + 1;	/* past the last */
	a[0].arg = 0;
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);

	/* CGROUP's checks before anything starts */
	spawnkit_action_cgroup(&a[0], -1);
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_cgroup(&a[0], 987);	/* not open */
	run(a, 1, r);
	CHECK_ERR(r->pid, EBADF);
	fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	spawnkit_action_cgroup(&a[0], fd);	/* a directory, not a cgroup */
	run(a, 1, r);
	CHECK_ERR(r->pid, EINVAL);
	spawnkit_action_cgroup(&a[1], fd);	/* and two of them */
	run(a, 2, r);
	CHECK_ERR(r->pid, EINVAL);
	close(fd);
	CHECK(no_children());

	/* A kernel template made from an fd: the kernel runs the actions
	 * itself, or on a kernel without them there is no path for the
	 * handoff (EOPNOTSUPP). */
	if (is_kernel(t)) {
		struct spawnkit_template *tf;

		fd = open(helper_path("attrs"), O_RDONLY | O_CLOEXEC);
		CHECK_EQ(spawnkit_template_create_fd(fd, SPAWN_TEMPLATE_CREATE_CLOEXEC, &tf), 0);
		close(fd);
		spawnkit_action_setsid(&a[0]);
		spawn_capture(tf, argv_attrs, environ, a, 1, 0, r);
		if (kernel_has_ext_actions(tf)) {
			CHECK(r->pid > 0 && r->status == 0);
			CHECK_EQ(val(r, "sid"), r->pid);
		} else {
			CHECK_ERR(r->pid, EOPNOTSUPP);
		}
		spawnkit_template_destroy(tf);
	}
	spawnkit_template_destroy(t);
	free(r);
}

TEST_HARNESS_MAIN

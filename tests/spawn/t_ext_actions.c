/* SPDX-License-Identifier: MIT */
/*
 * spawnkit's extension actions SETSID, SETPGID, UMASK, SETRLIMIT and NICE,
 * seen from inside the child by the attrs helper, and the field rules of
 * all nine (CGROUP's placement is t_ext_cgroup, SETCTTY's t_ext_setctty,
 * SCHED_POLICY's and SCHED_SLICE's t_ext_sched_policy).  On the kernel
 * backend the kernel runs the first five, or on a kernel without them they
 * are handed to the user backend (SETCTTY, NICE, SCHED_POLICY and
 * SCHED_SLICE always are): the same results.
 */
#include <sys/resource.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include "util.h"

static struct spawnkit_template *t;
static char *argv_attrs[] = { "attrs", NULL };

static void run(const struct spawn_template_action *a, unsigned int n, struct run_result *r)
{
	spawn_capture(t, argv_attrs, environ, a, n, 0, r);
}

/* Every fixture here: the attrs helper's template as t (or the case
 * fails) and a result buffer; at the end, every child reaped. */
static struct run_result *attrs_setup(void)
{
	struct run_result *r = malloc(sizeof(*r));
	int ret;

	ASSERT_TRUE(r != NULL);
	ret = spawnkit_template_create(helper_path("attrs"), 0, &t);
	if (ret)
		fprintf(stderr, "template of attrs: %s\n", strerror(-ret));
	ASSERT_EQ(ret, 0);
	return r;
}

static void attrs_teardown(struct run_result *r)
{
	spawnkit_template_destroy(t);
	free(r);
	CHECK(no_children());
}

FIXTURE(attrs) {
	struct run_result *r;
	struct spawn_template_action a[3];
};

FIXTURE_SETUP(attrs)
{
	self->r = attrs_setup();
}

FIXTURE_TEARDOWN(attrs)
{
	attrs_teardown(self->r);
}

/* no action: the child shares our session and group */
TEST_F(attrs, no_action_shares_our_session_and_group)
{
	struct run_result *r = self->r;

	run(self->a, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "sid"), getsid(0));
	CHECK_EQ(dec_line(r, "pgid"), getpgid(0));
}

/* SETSID: a session and group of its own, led by the child */
TEST_F(attrs, setsid_makes_the_child_a_session_leader)
{
	struct run_result *r = self->r;

	spawnkit_action_setsid(&self->a[0]);
	run(self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "sid"), r->pid);
	CHECK_EQ(dec_line(r, "pgid"), r->pid);
	CHECK_EQ(dec_line(r, "pid"), r->pid);
}

/* SETPGID 0: a group of its own in our session */
TEST_F(attrs, setpgid_zero_makes_a_group_in_our_session)
{
	struct run_result *r = self->r;

	spawnkit_action_setpgid(&self->a[0], 0);
	run(self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "pgid"), r->pid);
	CHECK_EQ(dec_line(r, "sid"), getsid(0));
}

/* into our own group: allowed, same session (not nameable where our group
 * is 0, as under the guest's init: 0 means "a new group") */
TEST_F(attrs, setpgid_into_our_own_group)
{
	struct run_result *r = self->r;

	if (getpgid(0) <= 0)
		SKIP("our process group is 0 (as under the guest's init)");
	spawnkit_action_setpgid(&self->a[0], getpgid(0));
	run(self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "pgid"), getpgid(0));
}

TEST_F(attrs, umask_sets_the_childs_mask_not_ours)
{
	struct run_result *r = self->r;

	spawnkit_action_umask(&self->a[0], 027);
	run(self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "umask 027"));
	spawnkit_action_umask(&self->a[0], 0);
	run(self->a, 1, r);
	CHECK(has_line(r, "umask 000"));
	CHECK_EQ(umask(022), 022);	/* ours is untouched (the runner's 022) */
}

/* SETRLIMIT: the child's limits, not ours */
TEST_F(attrs, setrlimit_sets_the_childs_limits_not_ours)
{
	struct run_result *r = self->r;
	struct spawn_template_rlimit rl = { 64, 64 }, core0 = { 0, 0 };
	struct rlimit before, after;

	getrlimit(RLIMIT_NOFILE, &before);
	spawnkit_action_setrlimit(&self->a[0], RLIMIT_NOFILE, &rl);
	spawnkit_action_setrlimit(&self->a[1], RLIMIT_CORE, &core0);
	run(self->a, 2, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "nofile 64 64"));
	CHECK(has_line(r, "core 0 0"));
	getrlimit(RLIMIT_NOFILE, &after);
	CHECK(before.rlim_cur == after.rlim_cur && before.rlim_max == after.rlim_max);
}

/* NICE: ours plus the increment in the child, clamped at 19; ours untouched */
TEST_F(attrs, nice_adds_to_the_childs_nice_value_not_ours)
{
	struct run_result *r = self->r;
	int ours = getpriority(PRIO_PROCESS, 0);

	spawnkit_action_nice(&self->a[0], 3);
	run(self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "nice"), ours + 3 > 19 ? 19 : ours + 3);
	spawnkit_action_nice(&self->a[0], 39);
	run(self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "nice"), 19);
	/* two add up, in list order */
	spawnkit_action_nice(&self->a[0], 1);
	spawnkit_action_nice(&self->a[1], 1);
	run(self->a, 2, r);
	CHECK_EQ(dec_line(r, "nice"), ours + 2 > 19 ? 19 : ours + 2);
	spawnkit_action_nice(&self->a[0], 0);
	run(self->a, 1, r);
	CHECK_EQ(dec_line(r, "nice"), ours);
	CHECK_EQ(getpriority(PRIO_PROCESS, 0), ours);
}

/* May this process lower its nice value?  Asked of a forked copy. */
static int may_lower_nice(void)
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) - 1) ? 1 : 0);
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Our nice value at 5 or above, so there is room below (raising it is
 * always allowed; the case runs in a process of its own). */
static int nice_with_room_below(void)
{
	if (getpriority(PRIO_PROCESS, 0) < 5 && setpriority(PRIO_PROCESS, 0, 5))
		return -100;
	return getpriority(PRIO_PROCESS, 0);
}

/* A negative increment lowers the child's value where the kernel lets us
 * (CAP_SYS_NICE: the suites run as root) */
TEST_F(attrs, nice_negative_lowers_it_with_the_privilege)
{
	struct run_result *r = self->r;
	int ours = nice_with_room_below();

	ASSERT_GE(ours, 5);
	if (may_lower_nice() != 1)
		SKIP("no CAP_SYS_NICE or RLIMIT_NICE here (the next case covers it)");
	spawnkit_action_nice(&self->a[0], -2);
	run(self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "nice"), ours - 2);
}

/* and without the privilege it is setpriority's EACCES, from the child,
 * and no child: CAP_SYS_NICE dropped, RLIMIT_NICE 0, a template made
 * with those credentials */
TEST_F(attrs, nice_negative_without_the_privilege_is_eacces)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct rlimit none = { 0, 0 };
	struct spawnkit_template *tn;
	struct run_result *r = self->r;

	ASSERT_GE(nice_with_room_below(), 5);
	ASSERT_EQ(syscall(SYS_capget, &h, d), 0);
	d[0].effective &= ~(1U << CAP_SYS_NICE);
	ASSERT_EQ(syscall(SYS_capset, &h, d), 0);
	ASSERT_EQ(setrlimit(RLIMIT_NICE, &none), 0);
	ASSERT_EQ(may_lower_nice(), 0);
	ASSERT_EQ(spawnkit_template_create(helper_path("attrs"), 0, &tn), 0);
	spawnkit_action_nice(&self->a[0], -2);
	spawn_capture(tn, argv_attrs, environ, self->a, 1, 0, r);
	CHECK_ERR(r->pid, EACCES);
	spawnkit_action_nice(&self->a[0], 2);	/* raising still works */
	spawn_capture(tn, argv_attrs, environ, self->a, 1, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	spawnkit_template_destroy(tn);
}

/*
 * A kernel template made from an fd: the kernel runs the action itself
 * (asked of the kernel directly whether it can), or, on a patched kernel
 * from before the actions, there is no path for the handoff: EOPNOTSUPP.
 * NICE is the user backend's alone: EOPNOTSUPP on any kernel.
 */
TEST_F(attrs, kernel_template_from_an_fd)
{
	struct run_result *r = self->r;
	struct spawnkit_template *tf;
	int fd;

	if (!is_kernel(t))
		SKIP("not the kernel backend: nothing is handed off");
	fd = open(helper_path("attrs"), O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(spawnkit_template_create_fd(fd, 0, &tf), 0);
	close(fd);
	spawnkit_action_setsid(&self->a[0]);
	spawn_capture(tf, argv_attrs, environ, self->a, 1, 0, r);
	if (kernel_has_ext_actions(tf)) {
		CHECK(r->pid > 0 && r->status == 0);
		CHECK_EQ(dec_line(r, "sid"), r->pid);
	} else {
		CHECK_ERR(r->pid, EOPNOTSUPP);
	}
	spawnkit_action_nice(&self->a[0], 1);
	spawn_capture(tf, argv_attrs, environ, self->a, 1, 0, r);
	CHECK_ERR(r->pid, EOPNOTSUPP);
	spawnkit_template_destroy(tf);
}

/*
 * Actions the spawn refuses before anything starts: `set` fills the first
 * n actions, and the spawn must fail with -err.
 */
FIXTURE(bad) {
	struct run_result *r;
	struct spawn_template_action a[3];
};

FIXTURE_VARIANT(bad) {
	void (*set)(struct spawn_template_action *a);
	unsigned int n;
	int err;
};

FIXTURE_SETUP(bad)
{
	self->r = attrs_setup();
}

FIXTURE_TEARDOWN(bad)
{
	attrs_teardown(self->r);
}

#define BAD(name, N, E, ...)						\
	static void set_##name(struct spawn_template_action *a) { __VA_ARGS__; } \
	FIXTURE_VARIANT_ADD(bad, name) { .set = set_##name, .n = N, .err = E }

static const struct spawn_template_rlimit rl64 = { 64, 64 };

/* a session leader cannot start another: setsid's EPERM */
BAD(setsid_twice, 2, EPERM, spawnkit_action_setsid(&a[0]); spawnkit_action_setsid(&a[1]));
/* a group that does not exist in the session */
BAD(setpgid_to_a_missing_group, 1, EPERM, spawnkit_action_setpgid(&a[0], 0x3ffffff0));
/* after SETSID the leader cannot move; order matters */
BAD(setpgid_after_setsid, 2, EPERM,
    spawnkit_action_setsid(&a[0]); spawnkit_action_setpgid(&a[1], 0));
/* a group leader cannot setsid either */
BAD(setsid_after_setpgid, 2, EPERM,
    spawnkit_action_setpgid(&a[0], 0); spawnkit_action_setsid(&a[1]));
BAD(setrlimit_cur_above_max, 1, EINVAL,
    static const struct spawn_template_rlimit bad = { 10, 5 };
    spawnkit_action_setrlimit(&a[0], RLIMIT_NOFILE, &bad));
BAD(setrlimit_unknown_resource, 1, EINVAL, spawnkit_action_setrlimit(&a[0], RLIM_NLIMITS, &rl64));
BAD(setrlimit_negative_resource, 1, EINVAL, spawnkit_action_setrlimit(&a[0], -1, &rl64));
BAD(setrlimit_null_limits, 1, EINVAL, spawnkit_action_setrlimit(&a[0], RLIMIT_NOFILE, NULL));
BAD(setrlimit_bad_pointer, 1, EFAULT,
    spawnkit_action_setrlimit(&a[0], RLIMIT_NOFILE, (void *)8));
/* field rules: a field the type does not use must be zero */
BAD(setsid_with_an_fd, 1, EINVAL, spawnkit_action_setsid(&a[0]); a[0].fd = 1);
BAD(umask_above_0777, 1, EINVAL, spawnkit_action_umask(&a[0], 01000));
BAD(setpgid_negative, 1, EINVAL, spawnkit_action_setpgid(&a[0], -1));
BAD(umask_with_an_arg, 1, EINVAL, spawnkit_action_umask(&a[0], 0); a[0].arg = 8);
BAD(nice_above_39, 1, EINVAL, spawnkit_action_nice(&a[0], 40));
BAD(nice_below_minus_39, 1, EINVAL, spawnkit_action_nice(&a[0], -40));
BAD(nice_with_an_arg, 1, EINVAL, spawnkit_action_nice(&a[0], 1); a[0].arg = 8);
BAD(type_past_the_last, 1, EINVAL,
    memset(&a[0], 0, sizeof(a[0])); a[0].type = SPAWN_TEMPLATE_ACTION_SCHED_SLICE + 1);
/* CGROUP's checks before anything starts */
BAD(cgroup_negative_fd, 1, EINVAL, spawnkit_action_cgroup(&a[0], -1));
BAD(cgroup_fd_not_open, 1, EBADF, spawnkit_action_cgroup(&a[0], 987));
/* a directory, not a cgroup (the case's process ends with the fd) */
BAD(cgroup_of_a_plain_directory, 1, EINVAL,
    spawnkit_action_cgroup(&a[0], open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
/* and two CGROUP actions */
BAD(cgroup_twice, 2, EINVAL,
    int fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    spawnkit_action_cgroup(&a[0], fd); spawnkit_action_cgroup(&a[1], fd));

TEST_F(bad, is_refused)
{
	variant->set(self->a);
	run(self->a, variant->n, self->r);
	CHECK_ERR(self->r->pid, variant->err);
}

/*
 * The field rules of every extension type: newfd and flags are used by
 * none of them, so either being set is EINVAL.
 */
FIXTURE(ext_type) {
	struct run_result *r;
	struct spawn_template_action a[1];
};

FIXTURE_VARIANT(ext_type) {
	int type;
};

FIXTURE_VARIANT_ADD(ext_type, setsid) { .type = SPAWN_TEMPLATE_ACTION_SETSID };
FIXTURE_VARIANT_ADD(ext_type, setpgid) { .type = SPAWN_TEMPLATE_ACTION_SETPGID };
FIXTURE_VARIANT_ADD(ext_type, umask) { .type = SPAWN_TEMPLATE_ACTION_UMASK };
FIXTURE_VARIANT_ADD(ext_type, setrlimit) { .type = SPAWN_TEMPLATE_ACTION_SETRLIMIT };
FIXTURE_VARIANT_ADD(ext_type, cgroup) { .type = SPAWN_TEMPLATE_ACTION_CGROUP };
FIXTURE_VARIANT_ADD(ext_type, setctty) { .type = SPAWN_TEMPLATE_ACTION_SETCTTY };
FIXTURE_VARIANT_ADD(ext_type, nice) { .type = SPAWN_TEMPLATE_ACTION_NICE };
FIXTURE_VARIANT_ADD(ext_type, sched_policy) { .type = SPAWN_TEMPLATE_ACTION_SCHED_POLICY };
FIXTURE_VARIANT_ADD(ext_type, sched_slice) { .type = SPAWN_TEMPLATE_ACTION_SCHED_SLICE };

/* An otherwise valid action of the type (SETRLIMIT needs its limits). */
FIXTURE_SETUP(ext_type)
{
	self->r = attrs_setup();
	memset(&self->a[0], 0, sizeof(self->a[0]));
	self->a[0].type = variant->type;
	if (variant->type == SPAWN_TEMPLATE_ACTION_SETRLIMIT)
		self->a[0].arg = (uintptr_t)&rl64;
}

FIXTURE_TEARDOWN(ext_type)
{
	attrs_teardown(self->r);
}

TEST_F(ext_type, newfd_set_is_einval)
{
	self->a[0].newfd = 1;
	run(self->a, 1, self->r);
	CHECK_ERR(self->r->pid, EINVAL);
}

TEST_F(ext_type, flags_set_is_einval)
{
	self->a[0].flags = 1;
	run(self->a, 1, self->r);
	CHECK_ERR(self->r->pid, EINVAL);
}

TEST_HARNESS_MAIN

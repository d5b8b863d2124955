/* SPDX-License-Identifier: MIT */
/* spawnkit_run() and spawnkit_kill_tree(): every bad input is an error,
 * and nothing is started for it. */
#include <sys/resource.h>
#include "run_util.h"

static int no_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG) == -1 && errno == ECHILD;
}

/* Options that would run the attrs helper, before the one bad setting. */
static void reset(struct spawnkit_run_opts *o)
{
	static char *argv[] = { "attrs", NULL };

	spawnkit_run_opts_init(o);
	o->argv = argv;
	o->file = helper("attrs");
}

TEST(null_opts_or_result_is_einval)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	reset(&o);
	CHECK_ERR(spawnkit_run(NULL, &r), EINVAL);
	CHECK_ERR(spawnkit_run(&o, NULL), EINVAL);
	CHECK(no_children());
}

/*
 * One bad setting a variant: `set` makes it on good options, and
 * spawnkit_run must refuse them with -err, starting nothing.
 */
FIXTURE(bad_opts) {
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
};

FIXTURE_VARIANT(bad_opts) {
	void (*set)(struct spawnkit_run_opts *o);
	int err;
};

FIXTURE_SETUP(bad_opts)
{
	reset(&self->o);
}

FIXTURE_TEARDOWN(bad_opts)
{
}

#define BAD_OPTS(name, E, ...)						\
	static void set_##name(struct spawnkit_run_opts *o) { __VA_ARGS__; } \
	FIXTURE_VARIANT_ADD(bad_opts, name) { .set = set_##name, .err = E }

BAD_OPTS(size_too_small, EINVAL, o->size = 8);
BAD_OPTS(unknown_flag, EINVAL, o->flags = 1U << 31);
BAD_OPTS(no_argv, EINVAL, o->argv = NULL);
BAD_OPTS(empty_argv, EINVAL, static char *argv_null[] = { NULL }; o->argv = argv_null);
BAD_OPTS(stdout_mode_out_of_range, EINVAL, o->std_mode[1] = 9);
BAD_OPTS(stdin_mode_negative, EINVAL, o->std_mode[0] = -1);
/* only stderr may go to stdout */
BAD_OPTS(stdout_to_stdout, EINVAL, o->std_mode[1] = SPAWNKIT_RUN_STDOUT);
BAD_OPTS(fd_mode_without_fd, EINVAL, o->std_mode[1] = SPAWNKIT_RUN_FD);
BAD_OPTS(fd_mode_fd_not_open, EBADF, o->std_mode[1] = SPAWNKIT_RUN_FD; o->std_fd[1] = 777);
BAD_OPTS(fd_without_fd_mode, EINVAL, o->std_fd[2] = 1);
/* stdin is not captured */
BAD_OPTS(head_limit_on_stdin, EINVAL, o->head[0] = 1);
BAD_OPTS(input_length_without_bytes, EINVAL, o->input_len = 3);
BAD_OPTS(input_with_stdin_devnull, EINVAL,
	 o->input = "abc"; o->input_len = 3; o->std_mode[0] = SPAWNKIT_RUN_DEVNULL);
BAD_OPTS(negative_timeout, EINVAL, o->timeout_ms = -2);
BAD_OPTS(negative_no_output_timeout, EINVAL, o->no_output_timeout_ms = -5);
BAD_OPTS(negative_wait_delay, EINVAL, o->wait_delay_ms = INT64_MIN);
BAD_OPTS(cwd_fd_below_minus_one, EINVAL, o->cwd_fd = -2);
/* FCHDIR's check */
BAD_OPTS(cwd_fd_not_open, EBADF, o->cwd_fd = 777);
BAD_OPTS(cgroup_fd_below_minus_one, EINVAL, o->cgroup_fd = -7);
/* a directory, not a cgroup2 one (the case's process ends with the fd) */
BAD_OPTS(cgroup_fd_not_a_cgroup, EINVAL,
	 o->cgroup_fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
BAD_OPTS(action_count_without_actions, EINVAL, o->nr_actions = 1);
/* the run's own actions and these together exceed the limit */
BAD_OPTS(too_many_actions, E2BIG,
	 static struct spawn_template_action acts[SPAWN_TEMPLATE_ACTIONS_MAX];
	 for (int i = 0; i < SPAWN_TEMPLATE_ACTIONS_MAX; i++)
		 spawnkit_action_umask(&acts[i], 022);
	 o->actions = acts; o->nr_actions = SPAWN_TEMPLATE_ACTIONS_MAX);
BAD_OPTS(extra_setrlimit_cur_above_max, EINVAL,
	 static struct spawn_template_action acts[1];
	 static struct spawn_template_rlimit bad = { 10, 5 };
	 spawnkit_action_setrlimit(&acts[0], RLIMIT_NOFILE, &bad);
	 o->actions = acts; o->nr_actions = 1);
BAD_OPTS(extra_umask_out_of_range, EINVAL,
	 static struct spawn_template_action acts[1];
	 spawnkit_action_umask(&acts[0], 07777);
	 o->actions = acts; o->nr_actions = 1);
/* the caller's actions' arguments are still copied checked: EFAULT, no
 * crash (the run reads only its own actions' arguments directly) */
BAD_OPTS(extra_sigdefault_arg_unmapped, EFAULT,
	 static struct spawn_template_action acts[1];
	 acts[0] = (struct spawn_template_action){
		 .type = SPAWN_TEMPLATE_ACTION_SIGDEFAULT, .arg = 8 };
	 o->actions = acts; o->nr_actions = 1);
BAD_OPTS(extra_setrlimit_arg_unmapped, EFAULT,
	 static struct spawn_template_action acts[1];
	 spawnkit_action_setrlimit(&acts[0], RLIMIT_NOFILE, (void *)8);
	 o->actions = acts; o->nr_actions = 1);
BAD_OPTS(file_missing, ENOENT, o->file = "/nonexistent/attrs");
BAD_OPTS(file_is_a_directory, EACCES, o->file = "/tmp");

TEST_F(bad_opts, is_refused_and_starts_nothing)
{
	variant->set(&self->o);
	CHECK_ERR(spawnkit_run(&self->o, &self->r), variant->err);
	CHECK(no_children());
}

/* a template and a file at once: which one?  The template alone runs. */
TEST(template_and_file_together_is_einval)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct spawnkit_template *t;

	ASSERT_EQ(spawnkit_template_create(helper("attrs"), 0, &t), 0);
	reset(&o);
	o.tmpl = t;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	CHECK(no_children());
	o.file = NULL;
	CHECK_EQ(spawnkit_run(&o, &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	spawnkit_run_result_free(&r);
	spawnkit_template_destroy(t);
	CHECK(no_children());
}

/* spawnkit_kill_tree's own checks: one bad argument a variant */
FIXTURE(bad_kill) {
	int unused;
};

FIXTURE_VARIANT(bad_kill) {
	pid_t leader;
	int ours;		/* the leader is this process instead */
	int cgroup_fd, sig;
	unsigned int flags;
	int err;
};

FIXTURE_SETUP(bad_kill)
{
}

FIXTURE_TEARDOWN(bad_kill)
{
}

FIXTURE_VARIANT_ADD(bad_kill, leader_zero) { .leader = 0, .cgroup_fd = -1, .sig = SIGKILL, .err = EINVAL };
FIXTURE_VARIANT_ADD(bad_kill, leader_init) { .leader = 1, .cgroup_fd = -1, .sig = SIGKILL, .err = EINVAL };
/* our own group: we would be killed too */
FIXTURE_VARIANT_ADD(bad_kill, group_of_ourselves) {
	.ours = 1, .cgroup_fd = -1, .sig = SIGKILL, .flags = SPAWNKIT_KILL_GROUP, .err = EINVAL };
FIXTURE_VARIANT_ADD(bad_kill, signal_above_64) { .leader = 99999, .cgroup_fd = -1, .sig = 65, .err = EINVAL };
FIXTURE_VARIANT_ADD(bad_kill, signal_negative) { .leader = 99999, .cgroup_fd = -1, .sig = -1, .err = EINVAL };
FIXTURE_VARIANT_ADD(bad_kill, unknown_flag) {
	.leader = 99999, .cgroup_fd = -1, .sig = SIGKILL, .flags = 1U << 9, .err = EINVAL };
FIXTURE_VARIANT_ADD(bad_kill, cgroup_fd_below_minus_one) {
	.leader = 99999, .cgroup_fd = -2, .sig = SIGKILL, .err = EINVAL };
FIXTURE_VARIANT_ADD(bad_kill, cgroup_fd_not_open) {
	.leader = 99999, .cgroup_fd = 777, .sig = SIGKILL, .err = EBADF };

TEST_F(bad_kill, is_refused)
{
	pid_t leader = variant->ours ? getpid() : variant->leader;

	CHECK_ERR(spawnkit_kill_tree(leader, variant->cgroup_fd, variant->sig, variant->flags),
		  variant->err);
}

/* a harmless call finds nothing to signal (no such pid) */
TEST(kill_tree_of_no_such_pid_is_zero)
{
	CHECK_EQ(spawnkit_kill_tree(0x3ffffff0, -1, 0, SPAWNKIT_KILL_GROUP), 0);
}

TEST_HARNESS_MAIN

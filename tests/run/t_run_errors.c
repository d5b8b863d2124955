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

int main(void)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct spawn_template_action acts[SPAWN_TEMPLATE_ACTIONS_MAX];
	struct spawn_template_rlimit bad = { 10, 5 };
	char *argv[] = { "attrs", NULL }, *argv_null[] = { NULL };
	struct spawnkit_template *t;
	int i;

#define RESET() do { spawnkit_run_opts_init(&o); o.argv = argv; o.file = helper("attrs"); } while (0)
	RESET();
	CHECK_ERR(spawnkit_run(NULL, &r), EINVAL);
	CHECK_ERR(spawnkit_run(&o, NULL), EINVAL);
	o.size = 8;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.flags = 1U << 31;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.argv = NULL;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.argv = argv_null;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.std_mode[1] = 9;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.std_mode[0] = -1;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.std_mode[1] = SPAWNKIT_RUN_STDOUT;	/* only stderr may */
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.std_mode[1] = SPAWNKIT_RUN_FD;	/* no fd given */
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.std_mode[1] = SPAWNKIT_RUN_FD; o.std_fd[1] = 777;	/* not open */
	CHECK_ERR(spawnkit_run(&o, &r), EBADF);
	RESET(); o.std_fd[2] = 1;			/* an fd without FD mode */
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.head[0] = 1;				/* stdin is not captured */
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.input_len = 3;			/* length without bytes */
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.input = "abc"; o.input_len = 3; o.std_mode[0] = SPAWNKIT_RUN_DEVNULL;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.timeout_ms = -2;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.no_output_timeout_ms = -5;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.wait_delay_ms = INT64_MIN;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.cwd_fd = -2;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.cwd_fd = 777;			/* FCHDIR's check */
	CHECK_ERR(spawnkit_run(&o, &r), EBADF);
	RESET(); o.cgroup_fd = -7;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.cgroup_fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);	/* not a cgroup2 dir */
	close(o.cgroup_fd);
	RESET(); o.nr_actions = 1;			/* a count without actions */
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.actions = acts; o.nr_actions = SPAWN_TEMPLATE_ACTIONS_MAX;
	for (i = 0; i < SPAWN_TEMPLATE_ACTIONS_MAX; i++)
		spawnkit_action_umask(&acts[i], 022);
	CHECK_ERR(spawnkit_run(&o, &r), E2BIG);
	RESET(); o.actions = acts; o.nr_actions = 1;	/* a bad extra action */
	spawnkit_action_setrlimit(&acts[0], RLIMIT_NOFILE, &bad);
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	spawnkit_action_umask(&acts[0], 07777);
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	RESET(); o.file = "/nonexistent/attrs";
	CHECK_ERR(spawnkit_run(&o, &r), ENOENT);
	RESET(); o.file = "/tmp";			/* a directory */
	CHECK_ERR(spawnkit_run(&o, &r), EACCES);
	/* a template and a file at once: which one? */
	CHECK_EQ(spawnkit_template_create(helper("attrs"), SPAWN_TEMPLATE_CREATE_CLOEXEC, &t), 0);
	RESET(); o.tmpl = t;
	CHECK_ERR(spawnkit_run(&o, &r), EINVAL);
	o.file = NULL;					/* the template alone runs */
	CHECK_EQ(spawnkit_run(&o, &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	spawnkit_run_result_free(&r);
	spawnkit_template_destroy(t);
	CHECK(no_children());

	/* spawnkit_kill_tree's own checks */
	CHECK_ERR(spawnkit_kill_tree(0, -1, SIGKILL, 0), EINVAL);
	CHECK_ERR(spawnkit_kill_tree(1, -1, SIGKILL, 0), EINVAL);
	CHECK_ERR(spawnkit_kill_tree(getpid(), -1, SIGKILL, SPAWNKIT_KILL_GROUP), EINVAL);
	CHECK_ERR(spawnkit_kill_tree(99999, -1, 65, 0), EINVAL);
	CHECK_ERR(spawnkit_kill_tree(99999, -1, -1, 0), EINVAL);
	CHECK_ERR(spawnkit_kill_tree(99999, -1, SIGKILL, 1U << 9), EINVAL);
	CHECK_ERR(spawnkit_kill_tree(99999, -2, SIGKILL, 0), EINVAL);
	CHECK_ERR(spawnkit_kill_tree(99999, 777, SIGKILL, 0), EBADF);
	/* and a harmless call finds nothing to signal (no such pid) */
	CHECK_EQ(spawnkit_kill_tree(0x3ffffff0, -1, 0, SPAWNKIT_KILL_GROUP), 0);
	TEST_DONE();
}

/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_run(): exit statuses, stdout and stderr captured apart or
 * together, stdin fed (1 MiB through cat: no deadlock), the other stdio
 * modes, environment and working directory, the on_output callback, and
 * the program search (PATH, EACCES for a directory).
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include "run_util.h"

static int chunks, stop_after;
static uint64_t seen;

static int count(void *ctx, int fd, const void *data, size_t len)
{
	(void)ctx;
	(void)data;
	if (fd == 1)
		seen += len;
	chunks++;
	return stop_after && chunks >= stop_after;
}

/* Does the child's stdout hold "sid N"? */
static int out_has_sid(const struct spawnkit_run_result *r, pid_t sid)
{
	char want[64];

	snprintf(want, sizeof(want), "sid %d\n", (int)sid);
	return strstr(joined(&r->out[1]), want) != NULL;
}

TEST(exit_status_and_both_streams_apart)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	ASSERT_EQ(run_sh(&o, "echo out; echo err >&2; exit 3", &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
	CHECK(!strcmp(joined(&r.out[1]), "out\n"));
	CHECK(!strcmp(joined(&r.out[2]), "err\n"));
	CHECK_EQ(r.out[1].dropped, 0);
	CHECK_EQ(r.out[1].total, 4);
	CHECK_EQ(r.why, 0);
	CHECK(r.pid > 0);
	spawnkit_run_result_free(&r);
}

TEST(killed_by_a_signal_is_the_real_status)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	ASSERT_EQ(run_sh(&o, "kill -TERM $$", &r), 0);
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM);
	spawnkit_run_result_free(&r);
}

/* SIGPIPE and SIGXFSZ ignored here (as a Python caller has them): the
 * child keeps them ignored without SPAWNKIT_RUN_RESTORE_SIGNALS and has
 * them at SIG_DFL with it; other ignored signals stay ignored. */
TEST(restore_signals_sets_sigpipe_and_sigxfsz_back_to_default)
{
	const unsigned long long both = (1ULL << (SIGPIPE - 1)) | (1ULL << (SIGXFSZ - 1));
	const unsigned long long usr2 = 1ULL << (SIGUSR2 - 1);
	struct sigaction old[3], ign = { .sa_handler = SIG_IGN };
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	unsigned long long mask;
	int restore, rc;

	sigaction(SIGPIPE, &ign, &old[0]);
	sigaction(SIGXFSZ, &ign, &old[1]);
	sigaction(SIGUSR2, &ign, &old[2]);
	for (restore = 0; restore < 2; restore++) {
		spawnkit_run_opts_init(&o);
		if (restore)
			o.flags |= SPAWNKIT_RUN_RESTORE_SIGNALS;
		rc = run_sh(&o, "sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status", &r);
		CHECK_EQ(rc, 0);
		if (rc)
			break;
		mask = strtoull(joined(&r.out[1]), NULL, 16);
		CHECK((mask & both) == (restore ? 0 : both));
		CHECK(mask & usr2);
		spawnkit_run_result_free(&r);
	}
	sigaction(SIGPIPE, &old[0], NULL);
	sigaction(SIGXFSZ, &old[1], NULL);
	sigaction(SIGUSR2, &old[2], NULL);
}

TEST(stderr_into_stdout_keeps_order)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.std_mode[2] = SPAWNKIT_RUN_STDOUT;
	ASSERT_EQ(run_sh(&o, "echo 1; echo 2 >&2; echo 3", &r), 0);
	CHECK(!strcmp(joined(&r.out[1]), "1\n2\n3\n"));
	CHECK_EQ(r.out[2].total, 0);
	spawnkit_run_result_free(&r);
}

/* Options feeding 1 MiB of input, a..z over and over. */
FIXTURE(mib_input) {
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char *big;
	size_t n;
};

FIXTURE_SETUP(mib_input)
{
	self->n = 1 << 20;
	self->big = malloc(self->n);
	ASSERT_TRUE(self->big != NULL);
	for (size_t i = 0; i < self->n; i++)
		self->big[i] = (char)('a' + i % 26);
	spawnkit_run_opts_init(&self->o);
	self->o.input = self->big;
	self->o.input_len = self->n;
}

FIXTURE_TEARDOWN(mib_input)
{
	free(self->big);
}

/* in through cat and back out, unlimited capture: no deadlock */
TEST_F(mib_input, through_cat_and_out_unlimited)
{
	struct spawnkit_run_result *r = &self->r;
	char *argv_cat[] = { "cat", NULL };

	self->o.head[1] = SPAWNKIT_RUN_UNLIMITED;
	self->o.argv = argv_cat;
	ASSERT_EQ(spawnkit_run(&self->o, r), 0);
	CHECK(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
	CHECK_EQ(r->out[1].total, self->n);
	CHECK_EQ(r->out[1].head_len, self->n);
	CHECK(r->out[1].head_len == self->n && !memcmp(r->out[1].head, self->big, self->n));
	CHECK(!(r->why & SPAWNKIT_RUN_INPUT_CLOSED));
	spawnkit_run_result_free(r);
}

/* a child that reads none of its input: no SIGPIPE for us, and it is said */
TEST_F(mib_input, a_child_closing_stdin_is_input_closed)
{
	struct spawnkit_run_result *r = &self->r;

	ASSERT_EQ(run_sh(&self->o, "exec 0<&-; exit 0", r), 0);
	CHECK(r->why & SPAWNKIT_RUN_INPUT_CLOSED);
	CHECK(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
	spawnkit_run_result_free(r);
}

TEST(stdin_is_empty_by_default)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char *argv_cat[] = { "cat", NULL };

	spawnkit_run_opts_init(&o);
	o.argv = argv_cat;
	ASSERT_EQ(spawnkit_run(&o, &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && r.out[1].total == 0);
	spawnkit_run_result_free(&r);
}

/*
 * A scratch directory holding "tool" (a script printing its working
 * directory) and "sub" (a directory), for the cwd and PATH cases.
 */
FIXTURE(dir) {
	char dir[32];
	char path[PATH_MAX + 32];
	struct spawnkit_run_opts o;	/* initialised */
	struct spawnkit_run_result r;
};

FIXTURE_SETUP(dir)
{
	int fd;

	snprintf(self->dir, sizeof(self->dir), "/tmp/spawnkit-run-XXXXXX");
	ASSERT_TRUE(mkdtemp(self->dir) != NULL);
	snprintf(self->path, sizeof(self->path), "%s/tool", self->dir);
	fd = open(self->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "#!/bin/sh\npwd\n", 14), 14);
	close(fd);
	snprintf(self->path, sizeof(self->path), "%s/sub", self->dir);
	ASSERT_EQ(mkdir(self->path, 0755), 0);
	spawnkit_run_opts_init(&self->o);
}

FIXTURE_TEARDOWN(dir)
{
	static const char *const names[] = { "tool", "log" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(self->path, sizeof(self->path), "%s/%s", self->dir, names[i]);
		unlink(self->path);
	}
	snprintf(self->path, sizeof(self->path), "%s/sub", self->dir);
	rmdir(self->path);
	rmdir(self->dir);
}

/* stdout to an fd of ours, stderr to /dev/null, and only the given envp */
TEST_F(dir, fd_devnull_and_environment)
{
	struct spawnkit_run_opts o = self->o;
	struct spawnkit_run_result r;
	char *env[] = { "ONLY=this", NULL };
	char got[64] = "";
	ssize_t k;
	int fd;

	snprintf(self->path, sizeof(self->path), "%s/log", self->dir);
	fd = open(self->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT_GE(fd, 0);
	o.std_mode[1] = SPAWNKIT_RUN_FD;
	o.std_fd[1] = fd;
	o.std_mode[2] = SPAWNKIT_RUN_DEVNULL;
	o.envp = env;
	ASSERT_EQ(run_sh(&o, "echo \"$ONLY\"; echo gone >&2", &r), 0);
	CHECK_EQ(r.out[1].total + r.out[2].total, 0);
	spawnkit_run_result_free(&r);
	close(fd);
	fd = open(self->path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	k = read(fd, got, sizeof(got) - 1);
	got[k > 0 ? k : 0] = '\0';
	CHECK(!strcmp(got, "this\n"));
	close(fd);
}

/* the working directory, and a relative program path resolved in it */
TEST_F(dir, cwd_fd_and_a_relative_program_in_it)
{
	struct spawnkit_run_opts o = self->o;
	struct spawnkit_run_result r;
	char *argv_rel[] = { "./tool", NULL };

	o.cwd_fd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_GE(o.cwd_fd, 0);
	o.argv = argv_rel;
	ASSERT_EQ(spawnkit_run(&o, &r), 0);
	snprintf(self->path, sizeof(self->path), "%s\n", self->dir);
	CHECK(!strcmp(joined(&r.out[1]), self->path));
	spawnkit_run_result_free(&r);
	close(o.cwd_fd);
}

static char *argv_tool[] = { "tool", NULL };

/* Run o; the run must succeed and the program exit 0. */
static void run_exits_0(struct spawnkit_run_opts *o)
{
	struct spawnkit_run_result r;

	ASSERT_EQ(spawnkit_run(o, &r), 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	spawnkit_run_result_free(&r);
}

TEST_F(dir, path_search_finds_the_program)
{
	self->o.path = self->dir;
	self->o.argv = argv_tool;
	run_exits_0(&self->o);
}

/* a directory of the name: EACCES, as execvp */
TEST_F(dir, path_search_of_a_directory_is_eacces)
{
	char *argv_sub[] = { "sub", NULL };

	self->o.path = self->dir;
	self->o.argv = argv_sub;
	CHECK_ERR(spawnkit_run(&self->o, &self->r), EACCES);
}

TEST_F(dir, path_search_of_a_missing_or_empty_name_is_enoent)
{
	char *argv_none[] = { "no-such-tool-spawnkit", NULL }, *argv_empty[] = { "", NULL };

	self->o.path = self->dir;
	self->o.argv = argv_none;
	CHECK_ERR(spawnkit_run(&self->o, &self->r), ENOENT);
	self->o.argv = argv_empty;
	CHECK_ERR(spawnkit_run(&self->o, &self->r), ENOENT);
}

/* PATH from envp when o.path is NULL */
TEST_F(dir, path_search_uses_envp_path)
{
	char envpath[PATH_MAX + 8];
	char *env[] = { envpath, NULL };

	snprintf(envpath, sizeof(envpath), "PATH=%s", self->dir);
	self->o.envp = env;
	self->o.argv = argv_tool;
	run_exits_0(&self->o);
}

/* a relative PATH entry is under the child's directory, not ours */
TEST_F(dir, relative_path_entry_is_under_the_childs_cwd)
{
	self->o.path = ".";
	self->o.argv = argv_tool;
	CHECK_ERR(spawnkit_run(&self->o, &self->r), ENOENT);	/* not under ours */
	self->o.cwd_fd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_GE(self->o.cwd_fd, 0);
	run_exits_0(&self->o);
	close(self->o.cwd_fd);
}

TEST(on_output_sees_every_byte)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.on_output = count;
	ASSERT_EQ(run_sh(&o, "echo hello", &r), 0);
	CHECK_EQ(seen, 6);
	spawnkit_run_result_free(&r);
}

TEST(on_output_returning_nonzero_stops_the_run)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.on_output = count;
	stop_after = 1;
	ASSERT_EQ(run_sh(&o, "echo first; exec sleep 1000", &r), 0);
	CHECK(r.why & SPAWNKIT_RUN_STOPPED);
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	spawnkit_run_result_free(&r);
}

/* Options that run the attrs helper (it reports its session, umask and
 * limits on stdout). */
FIXTURE(attrs) {
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
};

FIXTURE_SETUP(attrs)
{
	static char *argv_attrs[] = { "attrs", NULL };

	spawnkit_run_opts_init(&self->o);
	self->o.argv = argv_attrs;
	self->o.file = helper("attrs");
}

FIXTURE_TEARDOWN(attrs)
{
}

/* extra actions through o.actions: umask and a resource limit; and the
 * default session: the child leads its own */
TEST_F(attrs, extra_actions_apply_and_child_leads_a_session)
{
	struct spawn_template_action acts[2];
	struct spawn_template_rlimit rl = { 32, 32 };

	spawnkit_action_umask(&acts[0], 077);
	spawnkit_action_setrlimit(&acts[1], RLIMIT_NOFILE, &rl);
	self->o.actions = acts;
	self->o.nr_actions = 2;
	ASSERT_EQ(spawnkit_run(&self->o, &self->r), 0);
	CHECK(strstr(joined(&self->r.out[1]), "umask 077\n") != NULL);
	CHECK(strstr(joined(&self->r.out[1]), "nofile 32 32\n") != NULL);
	CHECK(out_has_sid(&self->r, self->r.pid));
	spawnkit_run_result_free(&self->r);
}

TEST_F(attrs, no_new_session_keeps_ours)
{
	self->o.flags = SPAWNKIT_RUN_NO_NEW_SESSION;
	ASSERT_EQ(spawnkit_run(&self->o, &self->r), 0);
	CHECK(out_has_sid(&self->r, getsid(0)));
	spawnkit_run_result_free(&self->r);
}

TEST_F(attrs, errno_is_left_alone)
{
	errno = 1234;
	ASSERT_EQ(spawnkit_run(&self->o, &self->r), 0);
	CHECK_EQ(errno, 1234);
	spawnkit_run_result_free(&self->r);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_spawn_start: the start returns while the child is still on its
 * way to exec, the child reads only the library's own copies, and the
 * outcome (exec'd, or the failed step's errno) comes through the start's
 * fd.  Run on the user backend (SPAWNKIT_BACKEND=user), where the start
 * does not wait; on the kernel backend every start is decided on return.
 */
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "util.h"

static struct spawnkit_template *user_probe(void)
{
	setenv("SPAWNKIT_BACKEND", "user", 1);
	return probe_template();
}

static int readable_within(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, ms) == 1;
}

/* The decision, waited for by polling the start's fd as a loop would. */
static int poll_decision(struct spawnkit_start *s)
{
	int fd = spawnkit_start_fd(s), ret;

	while ((ret = spawnkit_start_wait(s, WNOHANG)) == -EAGAIN)
		CHECK(readable_within(fd, 60000));
	return ret;
}

static size_t read_all(int fd, char *buf, size_t room)
{
	size_t len = 0;
	ssize_t n;

	while (len < room - 1 && (n = read(fd, buf + len, room - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	return len;
}

/* A start with stdout on a pipe (DUP2 to 1, then the extra actions). */
struct capture {
	struct spawnkit_start *s;
	int pipe[2];
	int pidfd;
	pid_t pid;
};

static void capture_start(struct capture *c, struct spawnkit_template *t, char *const argv[],
			  char *const envp[], const struct spawn_template_action *extra,
			  unsigned int n)
{
	struct spawn_template_action all[4];

	memset(c, 0, sizeof(*c));
	c->pidfd = -1;
	CHECK_EQ(pipe2(c->pipe, O_CLOEXEC), 0);
	spawnkit_action_dup2(&all[0], c->pipe[1], 1, 0);
	if (n)
		memcpy(&all[1], extra, n * sizeof(*extra));
	c->pid = spawnkit_spawn_start(t, argv, envp, all, n + 1, 0, &c->pidfd, &c->s);
	close(c->pipe[1]);
}

/* The decision, the output in out, the wait status in *status. */
static int capture_finish(struct capture *c, char *out, size_t room, int *status)
{
	int ret = poll_decision(c->s);

	read_all(c->pipe[0], out, room);
	close(c->pipe[0]);
	*status = wait_pidfd(c->pidfd);
	spawnkit_start_free(c->s);
	return ret;
}

/* Start, send sig (if not 0) at once, then the decision (asked twice: the
 * same answer), the wait status in *status. */
static int start_decide(struct spawnkit_template *t, char *const argv[],
			const struct spawn_template_action *acts, unsigned int n,
			unsigned int flags, int sig, int *status)
{
	struct spawnkit_start *s = NULL;
	int pidfd = -1, ret;

	*status = -1;
	ret = spawnkit_spawn_start(t, argv, environ, acts, n, flags, &pidfd, &s);
	CHECK(ret > 0);
	if (ret <= 0)
		return ret;
	if (sig)
		CHECK_EQ(syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0), 0);
	ret = poll_decision(s);
	CHECK_EQ(spawnkit_start_wait(s, WNOHANG), ret);
	*status = wait_pidfd(pidfd);
	spawnkit_start_free(s);
	return ret;
}

/* exec'd: 0, output and exit status as from spawnkit_spawn. */
TEST(exec_reported_and_output)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", "hello", "--exit", "4", NULL }, out[1 << 16];
	struct capture c;
	int st;

	capture_start(&c, t, argv, environ, NULL, 0);
	ASSERT_GT(c.pid, 0);
	CHECK(c.pidfd >= 0);
	CHECK(spawnkit_start_fd(c.s) >= 0);
	CHECK_EQ(poll_decision(c.s), 0);
	CHECK_EQ(spawnkit_start_fd(c.s), -1);
	CHECK_EQ(spawnkit_start_wait(c.s, 0), 0);	/* asked again: the same */
	CHECK_EQ(capture_finish(&c, out, sizeof(out), &st), 0);
	CHECK(strstr(out, "argv 1 hello\n") != NULL);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 4);
	spawnkit_template_destroy(t);
}

/* The caller frees and scribbles over argv, envp and the OPEN path as soon
 * as the start returns; the child still sees what was passed. */
TEST(caller_memory_is_not_read_after_return)
{
	struct spawnkit_template *t = user_probe();
	char *a1 = strdup("first-arg"), *e1 = strdup("SK_START_VAR=value");
	char *path = strdup("/dev/null"), out[1 << 16];
	char **argv = calloc(3, sizeof(char *)), **envp = calloc(2, sizeof(char *));
	struct spawn_template_action act;
	struct spawnkit_open o;
	struct capture c;
	int st;

	argv[0] = "probe";
	argv[1] = a1;
	envp[0] = e1;
	spawnkit_action_open(&act, &o, AT_FDCWD, path, O_RDONLY, 0, 0);
	capture_start(&c, t, argv, envp, &act, 1);
	ASSERT_GT(c.pid, 0);
	memset(a1, 'X', strlen(a1));
	memset(e1, 'Y', strlen(e1));
	memset(path, 'Z', strlen(path));
	memset(&o, 0xff, sizeof(o));
	memset(&act, 0xff, sizeof(act));
	argv[1] = "changed";
	free(argv);
	free(envp);
	CHECK_EQ(capture_finish(&c, out, sizeof(out), &st), 0);
	CHECK(strstr(out, "argv 1 first-arg\n") != NULL);
	CHECK(strstr(out, "env SK_START_VAR=value\n") != NULL);
	CHECK(WIFEXITED(st));
	free(a1);
	free(e1);
	free(path);
	spawnkit_template_destroy(t);
}

/* A child stuck in an action (opening a FIFO nobody writes) does not hold
 * the caller: the start returns, its fd stays unreadable until the child
 * moves on. */
TEST(start_does_not_wait_for_a_stuck_child)
{
	struct spawnkit_template *t = user_probe();
	char dir[] = "/tmp/sk-start-XXXXXX", fifo[64], *argv[] = { "probe", "--quiet", NULL };
	struct spawn_template_action a;
	struct spawnkit_open o;
	struct spawnkit_start *s = NULL;
	int pidfd = -1, w, st;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	spawnkit_action_open(&a, &o, AT_FDCWD, fifo, O_RDONLY, 0, 0);
	ASSERT_GT(spawnkit_spawn_start(t, argv, environ, &a, 1, 0, &pidfd, &s), 0);
	CHECK(!readable_within(spawnkit_start_fd(s), 200));
	CHECK_EQ(spawnkit_start_wait(s, WNOHANG), -EAGAIN);
	w = open(fifo, O_WRONLY | O_CLOEXEC);	/* lets its open return */
	CHECK(w >= 0);
	CHECK_EQ(poll_decision(s), 0);
	close(w);
	st = wait_pidfd(pidfd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	spawnkit_start_free(s);
	unlink(fifo);
	rmdir(dir);
	spawnkit_template_destroy(t);
}

/* A failed action: its errno through the start, the child exits 1. */
TEST(action_errno_reported)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", "--quiet", NULL };
	struct spawn_template_action a;
	int st;

	spawnkit_action_dup2(&a, 900, 5, 0);	/* 900 is not open */
	CHECK_EQ(start_decide(t, argv, &a, 1, 0, 0, &st), -EBADF);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == SPAWN_TEMPLATE_EXIT_OTHER);
	spawnkit_template_destroy(t);
}

/* A CLOSE_RANGE over every fd cannot close the report pipe: a later
 * failure still arrives, not an end of file that would say "exec'd". */
TEST(report_pipe_survives_close_range)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", "--quiet", NULL };
	struct spawn_template_action a[2];
	int st;

	spawnkit_action_close_range(&a[0], 3, SPAWN_TEMPLATE_FD_MAX, 0);
	spawnkit_action_dup2(&a[1], 40, 41, 0);	/* closed just above */
	CHECK_EQ(start_decide(t, argv, a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, 0, &st), -EBADF);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == SPAWN_TEMPLATE_EXIT_OTHER);
	spawnkit_template_destroy(t);
}

/* A template of an executable file holding text, made in a new temporary
 * directory (dir, file: filled in; the caller removes both). */
static struct spawnkit_template *text_template(char *dir, char *file, size_t room,
					       const char *text)
{
	struct spawnkit_template *t = NULL;
	int fd;

	setenv("SPAWNKIT_BACKEND", "user", 1);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, room, "%s/f", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	CHECK(fd >= 0);
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	CHECK_EQ(spawnkit_template_create(file, 0, &t), 0);
	return t;
}

/* An exec that fails in the child: a #! line naming a missing interpreter. */
TEST(exec_errno_reported)
{
	char dir[] = "/tmp/sk-start-XXXXXX", file[64], *argv[] = { "s", NULL };
	struct spawnkit_template *t = text_template(dir, file, sizeof(file), "#!/no/such/interp\n");
	int st;

	ASSERT_TRUE(t != NULL);
	CHECK_EQ(start_decide(t, argv, NULL, 0, 0, 0, &st), -ENOENT);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == SPAWN_TEMPLATE_EXIT_ENOENT);
	spawnkit_template_destroy(t);
	unlink(file);
	rmdir(dir);
}

/* Neither #! nor ELF: made the ordinary way, so ENOEXEC is returned at
 * once with nothing started, as spawnkit_spawn says it. */
TEST(unknown_format_is_decided_on_return)
{
	char dir[] = "/tmp/sk-start-XXXXXX", file[64], *argv[] = { "x", NULL };
	struct spawnkit_template *t = text_template(dir, file, sizeof(file), "echo no magic\n");
	struct spawnkit_start *s = NULL;
	int pidfd = -1;

	ASSERT_TRUE(t != NULL);
	CHECK_ERR(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, &pidfd, &s), ENOEXEC);
	CHECK(s == NULL);
	CHECK(no_children());
	spawnkit_template_destroy(t);
	unlink(file);
	rmdir(dir);
}

/* An argument over MAX_ARG_STRLEN: E2BIG at once, as execve says it. */
TEST(huge_argument_is_e2big_on_return)
{
	struct spawnkit_template *t = user_probe();
	char *big = malloc(200000), *argv[] = { "probe", big, NULL };
	struct spawnkit_start *s = NULL;
	int pidfd = -1;

	memset(big, 'x', 199999);
	big[199999] = '\0';
	CHECK_ERR(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, &pidfd, &s), E2BIG);
	CHECK(s == NULL);
	CHECK(no_children());
	free(big);
	spawnkit_template_destroy(t);
}

/* Killed before or after its exec, the child's start still decides (0:
 * no step failed) and its status is the signal. */
TEST(kill_right_after_start)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", "--quiet", "--sleep", "30", NULL };
	int st;

	CHECK_EQ(start_decide(t, argv, NULL, 0, 0, SIGKILL, &st), 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	spawnkit_template_destroy(t);
}

/* Freed undecided, the start waits for the decision; no fd, no mapping
 * and no child of the start's is left. */
TEST(free_undecided_leaks_nothing)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", "--quiet", NULL };
	int before = count_open_fds();

	for (int i = 0; i < 50; i++) {
		struct spawnkit_start *s = NULL;
		int pidfd = -1;

		ASSERT_GT(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, &pidfd, &s), 0);
		spawnkit_start_free(s);
		CHECK(WIFEXITED(wait_pidfd(pidfd)));
	}
	CHECK_EQ(count_open_fds(), before);
	CHECK(no_children());
	spawnkit_template_destroy(t);
}

/* Without INHERIT_FDS the child gets 0..2 and nothing else: not the
 * report pipe, not the pinned executable. */
TEST(child_sees_no_report_pipe)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", NULL }, out[1 << 16];
	struct capture c;
	int st;

	capture_start(&c, t, argv, environ, NULL, 0);
	ASSERT_GT(c.pid, 0);
	CHECK_EQ(capture_finish(&c, out, sizeof(out), &st), 0);
	CHECK(strstr(out, "fd 1\n") != NULL);
	CHECK(strstr(out, "fd 3\n") == NULL);
	CHECK(strstr(out, "fd 4\n") == NULL);
	spawnkit_template_destroy(t);
}

/* The kernel backend's call returns after the exec: its start comes back
 * decided, and the child runs as from spawnkit_spawn. */
TEST(kernel_backend_is_decided_on_return)
{
	char *argv[] = { "probe", "--quiet", "--exit", "3", NULL };
	struct spawnkit_template *t;
	struct spawnkit_start *s = NULL;
	int pidfd = -1, st;

	if (spawnkit_backend() != SPAWNKIT_BACKEND_KERNEL)
		SKIP("no kernel backend (the guest's patched kernel has one)");
	t = probe_template();
	ASSERT_EQ(spawnkit_template_backend(t), SPAWNKIT_BACKEND_KERNEL);
	ASSERT_GT(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, &pidfd, &s), 0);
	CHECK_EQ(spawnkit_start_fd(s), -1);
	CHECK_EQ(spawnkit_start_wait(s, WNOHANG), 0);
	st = wait_pidfd(pidfd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	spawnkit_start_free(s);
	spawnkit_template_destroy(t);
}

TEST(bad_arguments)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", NULL };
	struct spawnkit_start *s = NULL;
	int pidfd = -1;

	CHECK_ERR(spawnkit_spawn_start(t, argv, environ, NULL, 0, SPAWNKIT_SPAWN_EXIT_STATUS,
				       &pidfd, &s), EINVAL);
	CHECK_ERR(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, NULL, &s), EINVAL);
	CHECK_ERR(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, &pidfd, NULL), EINVAL);
	CHECK_ERR(spawnkit_spawn_start(NULL, argv, environ, NULL, 0, 0, &pidfd, &s), EINVAL);
	CHECK_ERR(spawnkit_start_wait(NULL, 0), EINVAL);
	CHECK(no_children());
	spawnkit_template_destroy(t);
}

/* The caller is SCHED_BATCH during the clone only (sched_hold.c): the
 * child runs with the caller's policy and nice value, and the caller has
 * its own back, reset-on-fork included.  Run for each policy a caller may
 * have that an unprivileged one may set. */
static void start_with_policy(struct spawnkit_template *t, int policy, const char *want)
{
	char *argv[] = { "probe", NULL }, out[1 << 16];
	struct sched_param zero = { 0 };
	struct capture c;
	int st;

	ASSERT_EQ(sched_setscheduler(0, policy, &zero), 0);
	capture_start(&c, t, argv, environ, NULL, 0);
	ASSERT_GT(c.pid, 0);
	CHECK_EQ(sched_getscheduler(0), policy);
	CHECK_EQ(capture_finish(&c, out, sizeof(out), &st), 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!strstr(out, want))
		fprintf(stderr, "want \"%s\" in:\n%s", want, out);
	CHECK(strstr(out, want) != NULL);
}

TEST(child_runs_with_the_callers_policy)
{
	struct spawnkit_template *t = user_probe();
	int nice0 = getpriority(PRIO_PROCESS, 0);
	char want[64];

	/* a nice value of our own (this case runs in a child of its own),
	 * kept by every start below */
	ASSERT_EQ(setpriority(PRIO_PROCESS, 0, nice0 < 19 ? nice0 + 1 : 19), 0);
	snprintf(want, sizeof(want), "sched %d %d\n", SCHED_OTHER, getpriority(PRIO_PROCESS, 0));
	start_with_policy(t, SCHED_OTHER, want);
	snprintf(want, sizeof(want), "sched %d %d\n", SCHED_BATCH, getpriority(PRIO_PROCESS, 0));
	start_with_policy(t, SCHED_BATCH, want);
	/* reset-on-fork: the caller keeps the flag, the child has none */
	snprintf(want, sizeof(want), "sched %d %d\n", SCHED_OTHER, getpriority(PRIO_PROCESS, 0));
	start_with_policy(t, SCHED_OTHER | SCHED_RESET_ON_FORK, want);
	/* last: leaving SCHED_IDLE may need a privilege */
	snprintf(want, sizeof(want), "sched %d %d\n", SCHED_IDLE, getpriority(PRIO_PROCESS, 0));
	start_with_policy(t, SCHED_IDLE, want);
	spawnkit_template_destroy(t);
}

TEST_HARNESS_MAIN

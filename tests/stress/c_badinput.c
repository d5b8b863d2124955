/* SPDX-License-Identifier: MIT */
/*
 * c_badinput - bad arguments to the C library: NULL and unmapped pointers
 * in every place the API reads or writes one, argv and environments too big
 * for exec (E2BIG), invalid fds and directories in actions, bad action
 * types and counts, empty and odd program paths (a directory, a FIFO,
 * /dev/null).  Each must give an error, never a crash, hang or leaked
 * child, and where posix_spawn can be asked the same thing it must give the
 * same errno (except where spawnkit documents a difference).
 */
#include <sys/mman.h>
#include "stress.h"
#include "probe_path.h"

static char *argv_ok[] = { "probe", "--quiet", "--exit", "6", NULL };
static int checks, failed;

/* One check: got must equal want; a mismatch is added to the note. */
#define SAME(got, want, what) do {					\
	long g_ = (long)(got), w_ = (long)(want);			\
	checks++;							\
	if (g_ != w_) {							\
		failed++;						\
		note_add("%s: got %ld want %ld", what, g_, w_);		\
	}								\
} while (0)

/* got must be one of two values */
#define EITHER(got, w1, w2, what) do {					\
	long g_ = (long)(got);						\
	checks++;							\
	if (g_ != (w1) && g_ != (w2)) {					\
		failed++;						\
		note_add("%s: got %ld want %d or %d", what, g_, w1, w2);\
	}								\
} while (0)

static int verdict(const char *what)
{
	if (child_count())
		note_add("children left behind: %d", child_count());
	if (!failed && child_count())
		return SV_LEAK;
	if (!failed)
		note("%s: %d checks", what, checks);
	return failed ? SV_WRONG : SV_OK;
}

/* An address with nothing mapped behind it. */
static void *unmapped(void)
{
	void *p = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, 8192);
	return p;
}

/* posix_spawn with one file action; -errno or the wait status. */
static int ref_with(int (*add)(posix_spawn_file_actions_t *, int, int), int a, int b)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r, st;

	posix_spawn_file_actions_init(&fa);
	r = add(&fa, a, b);
	if (!r)
		r = posix_spawn(&pid, probe_path(), &fa, NULL, argv_ok, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r)
		return -r;
	waitpid(pid, &st, 0);
	return st;
}

static int add_dup2(posix_spawn_file_actions_t *fa, int fd, int newfd)
{
	return posix_spawn_file_actions_adddup2(fa, fd, newfd);
}

static int add_close(posix_spawn_file_actions_t *fa, int fd, int unused)
{
	return posix_spawn_file_actions_addclose(fa, fd);
}

static int add_fchdir(posix_spawn_file_actions_t *fa, int fd, int unused)
{
	return posix_spawn_file_actions_addfchdir_np(fa, fd);
}

static int null_pointers(void)
{
	struct spawnkit_template *t = make_template(probe_path()), *t2 = NULL;
	struct spawnkit_open o;
	int pidfd;

	if (!t)
		return SV_WRONG;
	SAME(spawnkit_template_create(NULL, 0, &t2), -EINVAL, "create(NULL path)");
	SAME(spawnkit_template_create(probe_path(), 0, NULL), -EINVAL, "create(tp NULL)");
	EITHER(spawnkit_template_create_args(NULL, 64, &t2), -EINVAL, -EFAULT, "create_args(NULL)");
	SAME(spawnkit_spawn(NULL, argv_ok, environ, NULL, 0, 0, &pidfd), -EINVAL, "spawn(NULL t)");
	SAME(spawnkit_spawn(t, argv_ok, environ, NULL, 1, 0, &pidfd), -EINVAL,
	     "spawn(actions NULL, 1)");
	EITHER(spawnkit_spawn_args(t, NULL, 64), -EINVAL, -EFAULT, "spawn_args(NULL)");
	/* envp NULL is an empty environment (documented) */
	SAME(sk_run_env(t, argv_ok, NULL), 6 << 8, "spawn(envp NULL)");
	/* argv NULL: exec with no arguments, as execve allows */
	{
		struct spawn_template_action quiet;
		pid_t pid;

		spawnkit_action_open(&quiet, &o, AT_FDCWD, "/dev/null", O_WRONLY, 0, 1);
		pid = spawnkit_spawn(t, NULL, environ, &quiet, 1, 0, &pidfd);

		checks++;
		if (pid > 0)
			reap_pidfd(pidfd);
		else if (pid != -EINVAL && pid != -EFAULT)
			failed++, note_add("spawn(argv NULL): %d", (int)pid);
	}
	spawnkit_template_destroy(NULL);
	SAME(spawnkit_template_fd(NULL), -EINVAL, "template_fd(NULL)");
	SAME(spawnkit_template_path(NULL) == NULL, 1, "template_path(NULL)");
	spawnkit_template_destroy(t);
	return verdict("NULL pointers");
}

static int unmapped_pointers(void)
{
	struct spawnkit_template *t = make_template(probe_path()), *t2 = NULL;
	char *bad = unmapped();
	char *argv_bad1[] = { "probe", bad, NULL };
	char *env_bad[] = { "A=1", bad, NULL };
	struct spawn_template_action act;
	struct spawnkit_open o;
	struct spawn_template_sigset ss;
	int pidfd;

	if (!t)
		return SV_WRONG;
	SAME(spawnkit_template_create(bad, 0, &t2), -EFAULT, "create(path unmapped)");
	SAME(spawnkit_spawn(t, (void *)bad, environ, NULL, 0, 0, &pidfd), -EFAULT,
	     "spawn(argv unmapped)");
	SAME(spawnkit_spawn(t, argv_bad1, environ, NULL, 0, 0, &pidfd), -EFAULT,
	     "spawn(argv[1] unmapped)");
	SAME(spawnkit_spawn(t, argv_ok, (void *)bad, NULL, 0, 0, &pidfd), -EFAULT,
	     "spawn(envp unmapped)");
	SAME(spawnkit_spawn(t, argv_ok, env_bad, NULL, 0, 0, &pidfd), -EFAULT,
	     "spawn(envp[1] unmapped)");
	SAME(spawnkit_spawn(t, argv_ok, environ, (void *)bad, 1, 0, &pidfd), -EFAULT,
	     "spawn(actions unmapped)");
	SAME(spawnkit_spawn(t, argv_ok, environ, NULL, 0, 0, (void *)bad), -EFAULT,
	     "spawn(pidfd unmapped)");
	spawnkit_action_open(&act, &o, AT_FDCWD, bad, O_RDONLY, 0, 5);
	SAME(sk_run(t, argv_ok, &act, 1), -EFAULT, "OPEN action, path unmapped");
	spawnkit_action_open(&act, &o, AT_FDCWD, "/dev/null", O_RDONLY, 0, 5);
	act.arg = (uint64_t)(uintptr_t)bad;
	SAME(sk_run(t, argv_ok, &act, 1), -EFAULT, "OPEN action, struct unmapped");
	spawnkit_action_sigset(&act, SPAWN_TEMPLATE_ACTION_SIGMASK, &ss, (void *)bad);
	SAME(sk_run(t, argv_ok, &act, 1), -EFAULT, "SIGMASK action, set unmapped");
	spawnkit_template_destroy(t);
	return verdict("unmapped pointers");
}

/* argv/env past what exec takes: E2BIG, as posix_spawn. */
static int e2big(void)
{
	struct spawnkit_template *t = make_template(probe_path());
	size_t one = 200 * 1024, n = 40000, i;	/* a string past MAX_ARG_STRLEN */
	char *big = malloc(one + 1), **many = calloc(n + 3, sizeof(char *));
	char *argv_big[] = { "probe", big, NULL };
	char *env_big[] = { big, NULL };
	char *pad = malloc(101);

	if (!t || !big || !many || !pad)
		return SV_WRONG;
	memset(big, 'x', one);
	big[0] = 'X', big[1] = '=', big[one] = '\0';
	SAME(sk_run(t, argv_big, NULL, 0), ref_posix_spawn(probe_path(), argv_big, environ),
	     "one 200 KiB argument (vs posix_spawn)");
	SAME(sk_run(t, argv_big, NULL, 0), -E2BIG, "one 200 KiB argument");
	SAME(sk_run_env(t, argv_ok, env_big), -E2BIG, "one 200 KiB variable");
	/* 40000 x 100 bytes = 4 MB: past a quarter of the 8 MiB stack limit */
	memset(pad, 'a', 100);
	pad[100] = '\0';
	many[0] = "probe";
	for (i = 1; i <= n; i++)
		many[i] = pad;
	many[n + 1] = NULL;
	SAME(sk_run(t, many, NULL, 0), ref_posix_spawn(probe_path(), many, environ),
	     "4 MB of arguments (vs posix_spawn)");
	SAME(sk_run(t, many, NULL, 0), -E2BIG, "4 MB of arguments");
	/* 5000 x 100 bytes fits: it runs (probe exits 0 with no --exit) */
	many[5001] = NULL;
	many[1] = "--quiet";
	SAME(sk_run(t, many, NULL, 0), ref_posix_spawn(probe_path(), many, environ),
	     "500 KB of arguments (vs posix_spawn)");
	spawnkit_template_destroy(t);
	return verdict("E2BIG");
}

static int bad_fds(void)
{
	struct spawnkit_template *t = make_template(probe_path());
	struct spawn_template_action act[SPAWN_TEMPLATE_ACTIONS_MAX + 1];
	int closed = dup(0), file = open(probe_path(), O_RDONLY | O_CLOEXEC), r;

	if (!t)
		return SV_WRONG;
	close(closed);
	spawnkit_action_dup2(&act[0], closed, 1, 0);
	SAME(sk_run(t, argv_ok, act, 1), ref_with(add_dup2, closed, 1), "DUP2 from a closed fd");
	/* negative fds are invalid actions (the ABI's EINVAL; posix_spawn's
	 * file actions refuse them with EBADF when added) */
	spawnkit_action_dup2(&act[0], -1, 1, 0);
	SAME(sk_run(t, argv_ok, act, 1), -EINVAL, "DUP2 from -1");
	spawnkit_action_dup2(&act[0], 1, -5, 0);
	SAME(sk_run(t, argv_ok, act, 1), -EINVAL, "DUP2 to -5");
	spawnkit_action_dup2(&act[0], 0, 1 << 30, 0);
	SAME(sk_run(t, argv_ok, act, 1), -EBADF, "DUP2 to 2^30");
	spawnkit_action_fchdir(&act[0], closed);
	SAME(sk_run(t, argv_ok, act, 1), ref_with(add_fchdir, closed, 0), "FCHDIR closed fd");
	spawnkit_action_fchdir(&act[0], file);
	SAME(sk_run(t, argv_ok, act, 1), ref_with(add_fchdir, file, 0), "FCHDIR to a file");
	/* CLOSE of a fd that is not open: posix_spawn ignores it; spawnkit
	 * either matches or fails with EBADF (a documented difference). */
	spawnkit_action_close(&act[0], closed);
	r = sk_run(t, argv_ok, act, 1);
	checks++;
	if (r != ref_with(add_close, closed, 0) && r != -EBADF)
		failed++, note_add("CLOSE of a closed fd: %d", r);
	memset(act, 0, sizeof(act));
	act[0].type = 99;
	SAME(sk_run(t, argv_ok, act, 1), -EINVAL, "action type 99");
	act[0].type = SPAWN_TEMPLATE_ACTION_CLOSE_RANGE;
	act[0].fd = 10, act[0].newfd = 3;
	SAME(sk_run(t, argv_ok, act, 1), -EINVAL, "CLOSE_RANGE 10..3");
	memset(act, 0, sizeof(act));
	SAME(spawnkit_spawn(t, argv_ok, environ, act, SPAWN_TEMPLATE_ACTIONS_MAX + 1, 0, &r),
	     -E2BIG, "257 actions");
	SAME(spawnkit_spawn(t, argv_ok, environ, NULL, 0, 1U << 7, &r), -EINVAL,
	     "unknown spawn flag");
	close(file);
	spawnkit_template_destroy(t);
	return verdict("invalid fds and actions");
}

static int bad_cwd(void)
{
	struct spawnkit_template *t = make_template(probe_path());
	struct spawn_template_action act;
	struct spawnkit_open o;
	char dir[PATH_MAX];
	int dfd;

	if (!t || !tmpdir_make(dir, sizeof(dir)))
		return SV_WRONG;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rmdir(dir);
	/* a deleted directory is still a directory: both run in it */
	spawnkit_action_fchdir(&act, dfd);
	SAME(sk_run(t, argv_ok, &act, 1), ref_with(add_fchdir, dfd, 0), "FCHDIR deleted dir");
	spawnkit_action_open(&act, &o, AT_FDCWD, "/nonexistent/x", O_RDONLY, 0, 5);
	SAME(sk_run(t, argv_ok, &act, 1), -ENOENT, "OPEN missing file");
	spawnkit_action_open(&act, &o, AT_FDCWD, "", O_RDONLY, 0, 5);
	SAME(sk_run(t, argv_ok, &act, 1), -ENOENT, "OPEN empty path");
	spawnkit_action_open(&act, &o, dfd, "x", O_WRONLY | O_CREAT, 0644, 5);
	SAME(sk_run(t, argv_ok, &act, 1), -ENOENT, "OPEN create in deleted dir");
	close(dfd);
	spawnkit_template_destroy(t);
	return verdict("bad cwd");
}

static int bad_programs(void)
{
	struct spawnkit_template *t = NULL;
	char dir[PATH_MAX], fifo[PATH_MAX + 8], file[PATH_MAX + 8];
	char *argv[] = { "x", NULL };
	int fd;

	if (!tmpdir_make(dir, sizeof(dir)))
		return SV_WRONG;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	mkfifo(fifo, 0755);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	close(fd);
	SAME(spawnkit_template_create("", 0, &t), -EINVAL, "empty path (relative: EINVAL)");
	SAME(spawnkit_template_create("probe", 0, &t), -EINVAL, "relative path");
	SAME(spawnkit_template_create(dir, 0, &t), ref_posix_spawn(dir, argv, environ),
	     "a directory (vs posix_spawn)");
	SAME(spawnkit_template_create(fifo, 0, &t), -EACCES, "a FIFO, no hang");
	SAME(spawnkit_template_create("/dev/null", 0, &t), ref_posix_spawn("/dev/null", argv, environ),
	     "/dev/null (vs posix_spawn)");
	SAME(spawnkit_template_create(file, 0, &t), ref_posix_spawn(file, argv, environ),
	     "mode 644 file (vs posix_spawn)");
	SAME(spawnkit_template_create("/nonexistent/x", 0, &t),
	     ref_posix_spawn("/nonexistent/x", argv, environ), "missing (vs posix_spawn)");
	SAME(spawnkit_template_create_fd(-1, 0, &t), -EINVAL, "create_fd(-1)");
	SAME(spawnkit_template_create_fd(1 << 20, 0, &t), -EBADF, "create_fd(2^20)");
	fd = open(dir, O_RDONLY | O_CLOEXEC);
	SAME(spawnkit_template_create_fd(fd, 0, &t), -EACCES, "create_fd(directory)");
	close(fd);
	SAME(spawnkit_template_create(probe_path(), 1ULL << 40, &t), -EINVAL, "unknown create flag");
	rm_tree(dir);
	return verdict("bad programs");
}

static const struct scenario scenarios[] = {
	{ "null-pointers", null_pointers, 60 },
	{ "unmapped-pointers", unmapped_pointers, 60 },
	{ "e2big", e2big, 60 },
	{ "invalid-fds-actions", bad_fds, 60 },
	{ "bad-cwd", bad_cwd, 60 },
	{ "bad-programs", bad_programs, 60 },
	{ NULL, NULL, 0 }
};

int main(int argc, char **argv)
{
	return st_main("c/badinput", scenarios, argc, argv);
}

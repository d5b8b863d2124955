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

int main(void)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	char dir[] = "/tmp/spawnkit-run-XXXXXX", path[PATH_MAX + 32], *big;
	char *argv_attrs[] = { "attrs", NULL }, *argv_cat[] = { "cat", NULL };
	char *env[] = { "ONLY=this", NULL };
	int ret, fd;
	size_t i, n = 1 << 20;

	/* exit status and both streams */
	spawnkit_run_opts_init(&o);
	ret = run_sh(&o, "echo out; echo err >&2; exit 3", &r);
	CHECK_EQ(ret, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
	CHECK(!strcmp(joined(&r.out[1]), "out\n"));
	CHECK(!strcmp(joined(&r.out[2]), "err\n"));
	CHECK_EQ(r.out[1].dropped, 0);
	CHECK_EQ(r.out[1].total, 4);
	CHECK_EQ(r.why, 0);
	CHECK(r.pid > 0);
	spawnkit_run_result_free(&r);

	/* killed by a signal: the real status */
	ret = run_sh(&o, "kill -TERM $$", &r);
	CHECK_EQ(ret, 0);
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM);
	spawnkit_run_result_free(&r);

	/* stderr into stdout, in order */
	o.std_mode[2] = SPAWNKIT_RUN_STDOUT;
	ret = run_sh(&o, "echo 1; echo 2 >&2; echo 3", &r);
	CHECK_EQ(ret, 0);
	CHECK(!strcmp(joined(&r.out[1]), "1\n2\n3\n"));
	CHECK_EQ(r.out[2].total, 0);
	spawnkit_run_result_free(&r);

	/* 1 MiB in through cat and back out, unlimited capture */
	spawnkit_run_opts_init(&o);
	big = malloc(n);
	for (i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	o.input = big;
	o.input_len = n;
	o.head[1] = SPAWNKIT_RUN_UNLIMITED;
	o.argv = argv_cat;
	ret = spawnkit_run(&o, &r);
	CHECK_EQ(ret, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	CHECK_EQ(r.out[1].total, n);
	CHECK_EQ(r.out[1].head_len, n);
	CHECK(r.out[1].head_len == n && !memcmp(r.out[1].head, big, n));
	CHECK(!(r.why & SPAWNKIT_RUN_INPUT_CLOSED));
	spawnkit_run_result_free(&r);
	/* a child that reads nothing: no SIGPIPE for us, and it is said */
	o.argv = NULL;
	ret = run_sh(&o, "exec 0<&-; exit 0", &r);
	CHECK_EQ(ret, 0);
	CHECK(r.why & SPAWNKIT_RUN_INPUT_CLOSED);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	spawnkit_run_result_free(&r);
	free(big);

	/* stdin empty by default: cat ends at once */
	spawnkit_run_opts_init(&o);
	o.argv = argv_cat;
	ret = spawnkit_run(&o, &r);
	CHECK_EQ(ret, 0);
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && r.out[1].total == 0);
	spawnkit_run_result_free(&r);

	/* DEVNULL, FD and environment */
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	spawnkit_run_opts_init(&o);
	o.std_mode[1] = SPAWNKIT_RUN_FD;
	o.std_fd[1] = fd;
	o.std_mode[2] = SPAWNKIT_RUN_DEVNULL;
	o.envp = env;
	ret = run_sh(&o, "echo \"$ONLY\"; echo gone >&2", &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(r.out[1].total + r.out[2].total, 0);
	spawnkit_run_result_free(&r);
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	{
		char got[64] = "";
		ssize_t k = read(fd, got, sizeof(got) - 1);

		got[k > 0 ? k : 0] = '\0';
		CHECK(!strcmp(got, "this\n"));
	}
	close(fd);

	/* the working directory, and a relative program path resolved in it */
	snprintf(path, sizeof(path), "%s/tool", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	CHECK_EQ(write(fd, "#!/bin/sh\npwd\n", 14), 14);
	close(fd);
	spawnkit_run_opts_init(&o);
	o.cwd_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	{
		char *argv_tool[] = { "./tool", NULL };

		o.argv = argv_tool;
		ret = spawnkit_run(&o, &r);
		CHECK_EQ(ret, 0);
		snprintf(path, sizeof(path), "%s\n", dir);
		CHECK(!strcmp(joined(&r.out[1]), path));
		spawnkit_run_result_free(&r);
	}
	close(o.cwd_fd);

	/* PATH search: found, not found, and a directory of the name (EACCES,
	 * as execvp); PATH from envp when o.path is NULL */
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK_EQ(mkdir(path, 0755), 0);
	spawnkit_run_opts_init(&o);
	{
		char *argv_tool[] = { "tool", NULL }, *argv_sub[] = { "sub", NULL };
		char *argv_none[] = { "no-such-tool-spawnkit", NULL }, *argv_empty[] = { "", NULL };
		char envpath[PATH_MAX + 8];
		char *env2[] = { envpath, NULL };

		o.path = dir;
		o.argv = argv_tool;
		ret = spawnkit_run(&o, &r);
		CHECK_EQ(ret, 0);
		CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
		spawnkit_run_result_free(&r);
		o.argv = argv_sub;
		CHECK_ERR(spawnkit_run(&o, &r), EACCES);
		o.argv = argv_none;
		CHECK_ERR(spawnkit_run(&o, &r), ENOENT);
		o.argv = argv_empty;
		CHECK_ERR(spawnkit_run(&o, &r), ENOENT);
		o.path = NULL;
		snprintf(envpath, sizeof(envpath), "PATH=%s", dir);
		o.envp = env2;
		o.argv = argv_tool;
		ret = spawnkit_run(&o, &r);
		CHECK_EQ(ret, 0);
		spawnkit_run_result_free(&r);
		/* a relative PATH entry is under the child's directory */
		o.envp = NULL;
		o.path = ".";
		CHECK_ERR(spawnkit_run(&o, &r), ENOENT);	/* not under ours */
		o.cwd_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ret = spawnkit_run(&o, &r);
		CHECK_EQ(ret, 0);
		CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
		spawnkit_run_result_free(&r);
		close(o.cwd_fd);
	}

	/* on_output sees every byte; a non-zero return stops the run */
	spawnkit_run_opts_init(&o);
	o.on_output = count;
	ret = run_sh(&o, "echo hello", &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(seen, 6);
	spawnkit_run_result_free(&r);
	stop_after = 1;
	chunks = 0;
	ret = run_sh(&o, "echo first; exec sleep 1000", &r);
	CHECK_EQ(ret, 0);
	CHECK(r.why & SPAWNKIT_RUN_STOPPED);
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	spawnkit_run_result_free(&r);

	/* extra actions: umask and a resource limit through o.actions */
	{
		struct spawn_template_action acts[2];
		struct spawn_template_rlimit rl = { 32, 32 };
		char *argv_a[] = { "attrs", NULL };

		spawnkit_run_opts_init(&o);
		o.argv = argv_a;
		o.file = helper("attrs");
		spawnkit_action_umask(&acts[0], 077);
		spawnkit_action_setrlimit(&acts[1], RLIMIT_NOFILE, &rl);
		o.actions = acts;
		o.nr_actions = 2;
		CHECK_EQ(spawnkit_run(&o, &r), 0);
		CHECK(strstr(joined(&r.out[1]), "umask 077\n") != NULL);
		CHECK(strstr(joined(&r.out[1]), "nofile 32 32\n") != NULL);
		/* and the default session: the child leads its own */
		{
			char want[64];

			snprintf(want, sizeof(want), "sid %d\n", (int)r.pid);
			CHECK(strstr(joined(&r.out[1]), want) != NULL);
		}
		spawnkit_run_result_free(&r);
		o.flags = SPAWNKIT_RUN_NO_NEW_SESSION;
		o.nr_actions = 0;
		CHECK_EQ(spawnkit_run(&o, &r), 0);
		{
			char want[64];

			snprintf(want, sizeof(want), "sid %d\n", (int)getsid(0));
			CHECK(strstr(joined(&r.out[1]), want) != NULL);
		}
		spawnkit_run_result_free(&r);
	}

	/* errno is left alone */
	spawnkit_run_opts_init(&o);
	o.argv = argv_attrs;
	o.file = helper("attrs");
	errno = 1234;
	ret = spawnkit_run(&o, &r);
	CHECK_EQ(ret, 0);
	CHECK_EQ(errno, 1234);
	spawnkit_run_result_free(&r);
	TEST_DONE();
}

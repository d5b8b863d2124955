/* SPDX-License-Identifier: MIT */
/*
 * Warm templates, the parts that need no Python: which argv forms fit and
 * which flags are start-up flags (classify.c), the replay of a call's
 * actions into "tool fd <- caller fd" (fdplan.c), and calls that must run
 * cold with their reason counted (pool.c).  The interpreter side is
 * tests/warm/equivalence.py and python/tests/test_warm.py.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/warm.h>

#include "harness.h"
#include "warm/warm_int.h"

static int classify(struct warm_call *c, const char *a0, ...)
{
	char *argv[16];
	va_list ap;
	int n = 0;

	argv[n++] = (char *)a0;
	va_start(ap, a0);
	while ((argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	return warm_classify(argv, c);
}

TEST(classify_argv_forms)
{
	struct warm_call c;

	CHECK_EQ(classify(&c, "python3", "s.py", "a", NULL), 0);
	CHECK_EQ(c.mode, WARM_SCRIPT);
	CHECK(!strcmp(c.payload, "s.py") && c.rest == 2 && c.nflags == 0);

	CHECK_EQ(classify(&c, "python3", "-I", "-W", "error", "-Xutf8", "-c", "code", "x", NULL), 0);
	CHECK_EQ(c.mode, WARM_CODE);
	CHECK(!strcmp(c.payload, "code") && c.rest == 7 && c.nflags == 4);
	CHECK(!strcmp(c.flags[0], "-I") && !strcmp(c.flags[1], "-W") &&
	      !strcmp(c.flags[2], "error") && !strcmp(c.flags[3], "-Xutf8"));

	CHECK_EQ(classify(&c, "python3", "-Sccode", "arg", NULL), 0);	/* combined */
	CHECK(c.mode == WARM_CODE && !strcmp(c.payload, "code") && c.rest == 2);
	CHECK(c.nflags == 1 && !strcmp(c.flags[0], "-S"));

	CHECK_EQ(classify(&c, "python3", "-Bm", "json.tool", NULL), 0);
	CHECK(c.mode == WARM_MODULE && !strcmp(c.payload, "json.tool") && c.rest == 3);

	CHECK_EQ(classify(&c, "python3", "--", "-s.py", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "--", "s.py", NULL), 0);
	CHECK(c.nflags == 0 && !strcmp(c.payload, "s.py"));

	/* forms whose effect is at start or exit, or not a run: cold */
	CHECK_EQ(classify(&c, "python3", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "-", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "-i", "s.py", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "-v", "-c", "1", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "-X", "importtime", "s.py", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "-X", "dev", "s.py", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "--version", NULL), SPAWNKIT_WARM_ARGS);
	CHECK_EQ(classify(&c, "python3", "-c", NULL), SPAWNKIT_WARM_ARGS);

	CHECK_EQ(warm_python_name("/usr/bin/python3.11"), 0);
	CHECK_EQ(warm_python_name("/venv/bin/python"), 0);
	CHECK_EQ(warm_python_name("/usr/bin/python3"), 0);
	CHECK_EQ(warm_python_name("/usr/bin/python3.7"), SPAWNKIT_WARM_NOT_PYTHON);
	CHECK_EQ(warm_python_name("/usr/bin/python2.7"), SPAWNKIT_WARM_NOT_PYTHON);
	CHECK_EQ(warm_python_name("/usr/bin/pypy3"), SPAWNKIT_WARM_NOT_PYTHON);
	CHECK_EQ(warm_is_cpython("/bin/sh"), SPAWNKIT_WARM_NOT_PYTHON);
}

static int has(const struct warm_fdplan *p, int src, int target)
{
	for (int i = 0; i < p->n; i++)
		if (p->target[i] == target)
			return p->src[i] == src;
	return 0;
}

TEST(fd_plan_replays_actions)
{
	struct spawn_template_action a[16];
	struct warm_fdplan p;
	int pass[2], dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int n, in, out, spare;

	in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	spare = open("/dev/null", O_RDONLY);		/* inheritable, never passed */
	CHECK(in > 2 && out > 2 && dir > 2 && spare > 2);
	spawnkit_action_dup2(&a[0], in, 0, 0);
	spawnkit_action_dup2(&a[1], out, 1, 0);
	spawnkit_action_dup2(&a[2], 1, 2, 0);		/* stderr = the new stdout */
	spawnkit_action_fchdir(&a[3], dir);
	CHECK_EQ(warm_fdplan(a, 4, 0, &p), 0);
	CHECK(p.n == 3 && has(&p, in, 0) && has(&p, out, 1) && has(&p, out, 2));
	CHECK_EQ(p.cwd_src, dir);
	warm_fdplan_release(&p);

	/* pass_fds under INHERIT_FDS: the passed fd travels, nothing else */
	pass[0] = out;
	n = spawnkit_actions_pass_fds(a + 2, 14, pass, 1);
	CHECK(n > 0);
	CHECK_EQ(warm_fdplan(a, 2 + (unsigned int)n, SPAWNKIT_SPAWN_INHERIT_FDS, &p), 0);
	CHECK(p.n == 4 && has(&p, out, out) && !has(&p, spare, spare));
	warm_fdplan_release(&p);
	/* INHERIT_FDS with nothing closing the rest: unknown fds would leak */
	CHECK_EQ(warm_fdplan(a, 2, SPAWNKIT_SPAWN_INHERIT_FDS, &p), SPAWNKIT_WARM_FDS);
	warm_fdplan_release(&p);

	/* a closed stdio fd: Python would make sys.stdout None */
	spawnkit_action_close(&a[2], 1);
	CHECK_EQ(warm_fdplan(a, 3, 0, &p), SPAWNKIT_WARM_FDS);
	warm_fdplan_release(&p);

	/* OPEN of an absolute path is opened by the client; O_CREAT is not */
	{
		struct spawnkit_open o;

		spawnkit_action_open(&a[0], &o, AT_FDCWD, "/dev/null", O_RDONLY, 0, 0);
		spawnkit_action_dup2(&a[1], out, 1, 0);
		spawnkit_action_dup2(&a[2], out, 2, 0);
		CHECK_EQ(warm_fdplan(a, 3, 0, &p), 0);
		CHECK(p.n == 3 && p.nopened == 1 && has(&p, p.opened[0], 0));
		warm_fdplan_release(&p);
		CHECK_EQ(p.nopened, 0);
		spawnkit_action_open(&a[0], &o, AT_FDCWD, "/tmp/x", O_WRONLY | O_CREAT, 0600, 0);
		CHECK_EQ(warm_fdplan(a, 3, 0, &p), SPAWNKIT_WARM_FDS);
		warm_fdplan_release(&p);
	}
	close(in);
	close(out);
	close(spare);
	close(dir);
}

TEST(cold_reasons)
{
	struct spawnkit_warm_stats before, after;
	char *echo[] = { "echo", "hi", NULL }, *env[] = { "A=1", NULL };
	char *py[] = { "python3", "-i", NULL };
	pid_t pid = -1;
	int pidfd = -1;

	spawnkit_warm_stats(&before);
	CHECK_EQ(spawnkit_warm_spawn("/bin/echo", echo, env, NULL, 0, 0, NULL, &pid, &pidfd),
		 SPAWNKIT_WARM_NOT_PYTHON);
	CHECK_EQ(spawnkit_warm_spawn("/usr/bin/python3", py, env, NULL, 0, 0, NULL, &pid, &pidfd),
		 SPAWNKIT_WARM_ARGS);
	CHECK_EQ(spawnkit_warm_spawn("relative/python3", py, env, NULL, 0, 0, NULL, &pid, &pidfd),
		 SPAWNKIT_WARM_ARGS);
	CHECK_EQ(spawnkit_warm_spawn("/usr/bin/python3", py, env, NULL, 0, 0, "bad name!", &pid,
				     &pidfd), SPAWNKIT_WARM_ARGS);
	CHECK(pid == -1 && pidfd == -1);		/* nothing started */
	spawnkit_warm_stats(&after);
	CHECK_EQ(after.cold_fallbacks - before.cold_fallbacks, 4);
	CHECK_EQ(after.reasons[SPAWNKIT_WARM_NOT_PYTHON] - before.reasons[SPAWNKIT_WARM_NOT_PYTHON], 1);
	CHECK_EQ(after.reasons[SPAWNKIT_WARM_ARGS] - before.reasons[SPAWNKIT_WARM_ARGS], 3);
	CHECK_EQ(after.warm_spawns, before.warm_spawns);
	CHECK(!strcmp(spawnkit_warm_reason_name(SPAWNKIT_WARM_TTY), "tty"));
	CHECK(!strcmp(spawnkit_warm_reason_name(99), "unknown"));
	setenv("SPAWNKIT_WARM", "0", 1);
	CHECK_EQ(spawnkit_warm_spawn("/usr/bin/python3", py, env, NULL, 0, 0, NULL, &pid, &pidfd),
		 SPAWNKIT_WARM_DISABLED);
	unsetenv("SPAWNKIT_WARM");
	spawnkit_warm_shutdown();			/* nothing to stop: a no-op */
}

TEST_HARNESS_MAIN

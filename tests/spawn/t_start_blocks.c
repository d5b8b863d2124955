/* SPDX-License-Identifier: MIT */
/*
 * The blocks of spawnkit_spawn_start() (block_cache.c): a block given up
 * by one start serves the next, which sees only its own arguments,
 * environment and actions; and the blocks kept are bounded, however many
 * starts were in flight at once.  Run on the user backend, where starts
 * use blocks.
 */
#include <poll.h>
#include "util.h"

#define IN_FLIGHT	40	/* more than the cache keeps */
#define KEPT_MAX	16	/* block_cache.c's SK_BLOCK_SLOTS */

static struct spawnkit_template *user_probe(void)
{
	setenv("SPAWNKIT_BACKEND", "user", 1);
	return probe_template();
}

/* Anonymous one-page PROT_NONE mappings: a block's guard page (no thread
 * of this test has a stack guard of its own). */
static int nr_guards(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi, ino;
	char perms[8], line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &lo, &hi, perms, &ino) == 4 &&
		    hi - lo == 4096 && !strcmp(perms, "---p") && ino == 0)
			n++;
	fclose(f);
	return n;
}

/* Start argv/envp with stdout on a pipe, wait for the decision and the
 * exit, return the output in out. */
static int run_one(struct spawnkit_template *t, char *const argv[], char *const envp[],
		   char *out, size_t room)
{
	struct spawn_template_action act;
	struct spawnkit_start *s = NULL;
	int p[2], pidfd = -1, ret, st;
	size_t len = 0;
	ssize_t n;

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	spawnkit_action_dup2(&act, p[1], 1, 0);
	ret = spawnkit_spawn_start(t, argv, envp, &act, 1, 0, &pidfd, &s);
	close(p[1]);
	if (ret < 0) {
		close(p[0]);
		return ret;
	}
	while ((ret = spawnkit_start_wait(s, 0)) == -EAGAIN)
		;
	while (len < room - 1 && (n = read(p[0], out + len, room - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	st = wait_pidfd(pidfd);
	CHECK(WIFEXITED(st));
	spawnkit_start_free(s);
	return ret;
}

/* Each start after the first takes a block an earlier start left with
 * longer arguments and another environment: the child sees its own. */
TEST(kept_block_holds_only_the_new_start)
{
	struct spawnkit_template *t = user_probe();
	static char out[1 << 17];
	char *big = malloc(20000), buf[64];

	memset(big, 'a', 19999);
	big[19999] = '\0';
	for (int i = 0; i < 8; i++) {
		char *argv_big[] = { "probe", big, "second", NULL };
		char *env_big[] = { "SK_BLOCK_OLD=1", "SK_BLOCK_OLDER=2", NULL };
		char *argv[] = { "probe", buf, NULL };
		char *env[] = { "SK_BLOCK_NEW=3", NULL };

		CHECK_EQ(run_one(t, argv_big, env_big, out, sizeof(out)), 0);
		CHECK(strstr(out, "argv 2 second\n") != NULL);
		snprintf(buf, sizeof(buf), "short-%d", i);
		CHECK_EQ(run_one(t, argv, env, out, sizeof(out)), 0);
		CHECK(strstr(out, buf) != NULL);
		CHECK(strstr(out, "argv 2") == NULL);
		CHECK(strstr(out, "env SK_BLOCK_NEW=3\n") != NULL);
		CHECK(strstr(out, "SK_BLOCK_OLD") == NULL);
		CHECK(strstr(out, "aaaa") == NULL);
	}
	free(big);
	spawnkit_template_destroy(t);
}

/* IN_FLIGHT starts at once need as many blocks; once decided, exactly
 * KEPT_MAX stay mapped (each case runs in a process of its own, whose
 * cache starts empty), and later starts reuse them rather than map more. */
TEST(kept_blocks_are_bounded_and_reused)
{
	struct spawnkit_template *t = user_probe();
	char *argv[] = { "probe", "--quiet", NULL };
	struct spawnkit_start *s[IN_FLIGHT];
	int pidfd[IN_FLIGHT], before;

	before = nr_guards();
	ASSERT_GE(before, 0);
	for (int i = 0; i < IN_FLIGHT; i++) {
		s[i] = NULL;
		pidfd[i] = -1;
		ASSERT_GT(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, &pidfd[i], &s[i]), 0);
	}
	CHECK_EQ(nr_guards(), before + IN_FLIGHT);
	for (int i = 0; i < IN_FLIGHT; i++) {
		CHECK_EQ(spawnkit_start_wait(s[i], 0), 0);
		spawnkit_start_free(s[i]);
		CHECK(WIFEXITED(wait_pidfd(pidfd[i])));
	}
	CHECK_EQ(nr_guards(), before + KEPT_MAX);
	for (int i = 0; i < 3 * IN_FLIGHT; i++) {
		struct spawnkit_start *one = NULL;
		int fd = -1;

		ASSERT_GT(spawnkit_spawn_start(t, argv, environ, NULL, 0, 0, &fd, &one), 0);
		CHECK_EQ(nr_guards(), before + KEPT_MAX);	/* one of them in use, none new */
		CHECK_EQ(spawnkit_start_wait(one, 0), 0);
		spawnkit_start_free(one);
		CHECK(WIFEXITED(wait_pidfd(fd)));
	}
	CHECK_EQ(nr_guards(), before + KEPT_MAX);
	CHECK(no_children());
	spawnkit_template_destroy(t);
}

TEST_HARNESS_MAIN

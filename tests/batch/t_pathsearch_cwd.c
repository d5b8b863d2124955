/* SPDX-License-Identifier: MIT */
/*
 * The PATH search errs and resolves as execvp in the child would:
 *  - a PATH entry holding a directory with the program's name, and nothing
 *    better, is EACCES (execve of a directory), not ENOENT;
 *  - with spawnkit_pathsearch_cwd, relative PATH entries (an empty one
 *    included) and relative names with a '/' are taken under the child's
 *    cwd, not ours.
 * Each answer is checked against execvp itself, run in a forked child that
 * changed to that directory first.
 */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "bt.h"
#include "scratch.h"

/* errno of execvp(name) with PATH=path in a child in dir; 0: it ran. */
static int execvp_errno(const char *name, const char *path, const char *dir)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { (char *)name, NULL };

		if (chdir(dir) || setenv("PATH", path, 1))
			_exit(100);
		execvp(name, argv);
		_exit(errno);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) == 7 ? 0 : WEXITSTATUS(st);
}

/* pathsearch_cwd answers what execvp in cwd does; on success out is the
 * path execvp ran (want, under top). */
static void same_as_execvp(const char *name, const char *path, const char *cwd,
			   const char *want)
{
	char out[PATH_MAX], full[PATH_MAX];
	int ret = spawnkit_pathsearch_cwd(name, path, cwd, out, sizeof(out));
	int e = execvp_errno(name, path, cwd);

	if (e == 0) {
		snprintf(full, sizeof(full), "%s/%s", top, want);
		CHECK(ret > 0);
		CHECK(ret > 0 && strcmp(out, full) == 0);
		if (ret <= 0 || strcmp(out, full))
			fprintf(stderr, "  %s in %s: got %d '%s', want '%s'\n", name,
				cwd, ret, ret > 0 ? out : "", full);
	} else {
		CHECK_EQ(ret, -e);
	}
}

/*
 * The tree: a/cmd (executable) and a/bin; b/bin/cmd and b/bin/tool; d/cmd
 * a directory.  The case starts in top/a (no bin/cmd there), so relative
 * entries resolved under our cwd instead of the child's would differ.
 */
FIXTURE(tree) {
	char here[PATH_MAX];
};

FIXTURE_SETUP(tree)
{
	bt_init();
	tree_create("spawnkit-psc");
	mk("a", 0); mk("a/bin", 0); mk("a/cmd", 0755);
	mk("b", 0); mk("b/bin", 0); mk("b/bin/cmd", 0755);
	mk("d", 0); mk("d/cmd", 0);			/* a directory named cmd */
	mk("b/bin/tool", 0755);
	ASSERT_TRUE(getcwd(self->here, sizeof(self->here)) != NULL);
	ASSERT_EQ(chdir(top), 0);
	ASSERT_EQ(chdir("a"), 0);
}

FIXTURE_TEARDOWN(tree)
{
	CHECK_EQ(chdir(self->here), 0);
	tree_remove();
}

/* A directory of that name, and nothing else: EACCES; a later regular
 * executable still wins; a missing name stays ENOENT. */
TEST_F(tree, directory_of_that_name_is_eacces)
{
	char out[PATH_MAX], path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/d", top);
	CHECK_ERR(spawnkit_pathsearch("cmd", path, out, sizeof(out)), EACCES);
	CHECK_EQ(execvp_errno("cmd", path, "/"), EACCES);
	snprintf(path, sizeof(path), "%s/d:%s/b/bin", top, top);
	CHECK_EQ(spawnkit_pathsearch("cmd", path, out, sizeof(out)),
		 strlen(top) + strlen("/b/bin/cmd"));
	CHECK_ERR(spawnkit_pathsearch("nothing", path, out, sizeof(out)), ENOENT);
}

/* Relative entries, empty entries and relative names are under the
 * child's cwd, not ours, as execvp in the child finds them. */
TEST_F(tree, relative_entries_are_under_child_cwd)
{
	char cwd[PATH_MAX];

	snprintf(cwd, sizeof(cwd), "%s/b", top);
	same_as_execvp("cmd", "bin", cwd, "b/bin/cmd");
	same_as_execvp("cmd", "/nonexistent:bin:/usr/bin", cwd, "b/bin/cmd");
	same_as_execvp("tool", "./bin", cwd, "b/./bin/tool");
	snprintf(cwd, sizeof(cwd), "%s/a", top);
	same_as_execvp("cmd", "/nonexistent::", cwd, "a/./cmd");
	snprintf(cwd, sizeof(cwd), "%s/b", top);
	same_as_execvp("cmd", "/nonexistent::", cwd, "");
	same_as_execvp("bin/cmd", "/nonexistent", cwd, "b/bin/cmd");
	snprintf(cwd, sizeof(cwd), "%s", top);
	same_as_execvp("cmd", "d", cwd, "");
}

/* Without cwd, relative entries are under ours (a): none there. */
TEST_F(tree, no_cwd_means_ours)
{
	char out[PATH_MAX];

	CHECK_ERR(spawnkit_pathsearch_cwd("cmd", "bin", NULL, out, sizeof(out)), ENOENT);
	CHECK_ERR(spawnkit_pathsearch_cwd("cmd", "bin", "", out, sizeof(out)), ENOENT);
	CHECK_EQ(spawnkit_pathsearch_cwd("cmd", ":", NULL, out, sizeof(out)), 5);
	CHECK(strcmp(out, "./cmd") == 0);
}

/* Absolute entries ignore cwd; an out buffer too small is ENAMETOOLONG. */
TEST_F(tree, absolute_entries_ignore_cwd_and_short_out)
{
	char out[PATH_MAX], path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/b/bin", top);
	CHECK_EQ(spawnkit_pathsearch_cwd("cmd", path, "/nonexistent", out, sizeof(out)),
		 strlen(top) + strlen("/b/bin/cmd"));
	CHECK_ERR(spawnkit_pathsearch_cwd("cmd", "b/bin", top, out, 4), ENAMETOOLONG);
}

TEST_HARNESS_MAIN

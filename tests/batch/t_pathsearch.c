/* SPDX-License-Identifier: MIT */
/* spawnkit_pathsearch against `command -v` (bash): skips missing entries,
 * non-executable files and directories; first executable regular file
 * wins; long PATHs (several batches); names with a slash; errors. */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include "bt.h"
#include "scratch.h"

/* What bash's `command -v name` prints under PATH=path ("" if nothing). */
static void command_v(const char *name, const char *path, char *out, size_t len)
{
	char cmd[8192];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "PATH='%s' /bin/bash -c 'command -v %s'", path, name);
	f = popen(cmd, "r");
	out[0] = 0;
	if (f) {
		if (!fgets(out, (int)len, f))
			out[0] = 0;
		pclose(f);
	}
	out[strcspn(out, "\n")] = 0;
}

static void same_as_shell(const char *name, const char *path)
{
	char want[PATH_MAX], got[PATH_MAX];
	int ret;

	struct stat st;

	if (access("/bin/bash", X_OK))
		SKIP("no bash (the test guest): no reference");
	command_v(name, path, want, sizeof(want));
	ret = spawnkit_pathsearch(name, path, got, sizeof(got));
	/* bash falls back to a non-executable file when it finds nothing
	 * better (exec then fails with EACCES); we answer -EACCES. */
	if (want[0] && (stat(want, &st) || !S_ISREG(st.st_mode) || access(want, X_OK))) {
		CHECK_ERR(ret, EACCES);
		return;
	}
	if (want[0]) {
		CHECK_EQ(ret, strlen(want));
		CHECK(ret >= 0 && strcmp(got, want) == 0);
		if (ret < 0 || strcmp(got, want))
			fprintf(stderr, "  %s: got %d '%s', shell '%s'\n", name, ret,
				ret >= 0 ? got : "", want);
	} else {
		CHECK(ret == -ENOENT || ret == -EACCES);
	}
}

static char path[32768];

/* The tree: d1..d5 with cmd non-executable in d2, a directory in d3,
 * executable in d4 (the winner) and d5; only5; noexec; a directory dir. */
FIXTURE(dirs) {
	int unused;
};

FIXTURE_SETUP(dirs)
{
	bt_init();
	tree_create("spawnkit-ps");
	mk("d1", 0); mk("d2", 0); mk("d3", 0); mk("d4", 0); mk("d5", 0);
	mk("d2/cmd", 0644);		/* not executable */
	mk("d3/cmd", 0);		/* a directory */
	mk("d4/cmd", 0755);		/* the winner */
	mk("d5/cmd", 0755);
	mk("d5/only5", 0700);
	mk("d2/noexec", 0600);
	mk("d5/dir", 0);
}

FIXTURE_TEARDOWN(dirs)
{
	tree_remove();
}

TEST_F(dirs, same_answer_as_bash)
{
	char out[PATH_MAX];

	if (access("/bin/bash", X_OK))
		SKIP("no bash (the test guest): no reference");
	snprintf(path, sizeof(path), "%s/d1:%s/d2:%s/d3:%s/d4:%s/d5", top, top, top, top, top);
	same_as_shell("cmd", path);
	same_as_shell("only5", path);
	same_as_shell("nothing", path);
	same_as_shell("noexec", path);
	same_as_shell("dir", path);
	same_as_shell("sh", "/usr/bin:/bin");
	same_as_shell("ls", "/nonexistent:/usr/bin");
	snprintf(out, sizeof(out), "%s/d4/cmd", top);
	same_as_shell(out, path);			/* a name with a slash */
}

TEST_F(dirs, errors_and_output_length)
{
	char out[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/d1:%s/d2:%s/d3:%s/d4:%s/d5", top, top, top, top, top);
	CHECK_ERR(spawnkit_pathsearch("nothing", path, out, sizeof(out)), ENOENT);
	CHECK_ERR(spawnkit_pathsearch("noexec", path, out, sizeof(out)), EACCES);
	/* a directory of that name: execvp's EACCES (issue 12, #4) */
	CHECK_ERR(spawnkit_pathsearch("dir", path, out, sizeof(out)), EACCES);
	CHECK_ERR(spawnkit_pathsearch("", path, out, sizeof(out)), EINVAL);
	CHECK_ERR(spawnkit_pathsearch(NULL, path, out, sizeof(out)), EINVAL);
	CHECK_ERR(spawnkit_pathsearch("cmd", path, NULL, 10), EINVAL);
	ret = (int)strlen(top) + 7;			/* top/d4/cmd */
	CHECK_ERR(spawnkit_pathsearch("cmd", path, out, ret), ENAMETOOLONG);
	CHECK_EQ(spawnkit_pathsearch("cmd", path, out, ret + 1), ret);
	snprintf(out, sizeof(out), "%s/d3/cmd", top);
	CHECK_ERR(spawnkit_pathsearch(out, NULL, out, sizeof(out)), EACCES);
	snprintf(out, sizeof(out), "%s/d3/none", top);
	CHECK_ERR(spawnkit_pathsearch(out, NULL, out, sizeof(out)), ENOENT);
	snprintf(out, sizeof(out), "%s/d2/cmd", top);
	CHECK_ERR(spawnkit_pathsearch(out, NULL, out, sizeof(out)), EACCES);
}

/* A PATH longer than one batch: 600 missing entries, then d5. */
TEST_F(dirs, path_longer_than_one_batch)
{
	char out[PATH_MAX];
	char *w;

	w = path;
	for (int i = 0; i < 600; i++)
		w += sprintf(w, "/nonexistent/%d:", i);
	sprintf(w, "%s/d5", top);
	CHECK_EQ(spawnkit_pathsearch("only5", path, out, sizeof(out)),
		 strlen(top) + strlen("/d5/only5"));
}

/* ...and one where the first "executable" hit is a directory. */
TEST_F(dirs, executable_directory_is_passed_over)
{
	char out[PATH_MAX];

	snprintf(path, sizeof(path), "%s/d3:%s/d5", top, top);
	CHECK(spawnkit_pathsearch("cmd", path, out, sizeof(out)) > 0);
	CHECK(strstr(out, "/d5/cmd") != NULL);
}

/* Empty entries mean the current directory; NULL means $PATH. */
TEST_F(dirs, empty_entry_is_current_directory)
{
	char out[PATH_MAX];

	CHECK_EQ(chdir(top), 0);
	CHECK_EQ(spawnkit_pathsearch("cmd", "/nonexistent::/usr/bin", out, sizeof(out)), -ENOENT);
	CHECK_EQ(chdir("d4"), 0);
	CHECK_EQ(spawnkit_pathsearch("cmd", "/nonexistent::/usr/bin", out, sizeof(out)), 5);
	CHECK(strcmp(out, "./cmd") == 0);
	CHECK_EQ(spawnkit_pathsearch("cmd", ":", out, sizeof(out)), 5);
}

TEST_F(dirs, null_path_means_env_path)
{
	char out[PATH_MAX];
	int ret;

	CHECK_EQ(chdir("/"), 0);
	setenv("PATH", "/nonexistent:/usr/bin:/bin", 1);
	ret = spawnkit_pathsearch("ls", NULL, out, sizeof(out));
	CHECK_EQ(ret, access("/usr/bin/ls", X_OK) == 0 ? 11 : 7);
	CHECK(strcmp(out, access("/usr/bin/ls", X_OK) == 0 ? "/usr/bin/ls" : "/bin/ls") == 0);
	unsetenv("PATH");
	ret = spawnkit_pathsearch("ls", NULL, out, sizeof(out));	/* default PATH */
	CHECK(ret > 0 && strstr(out, "/ls") != NULL);
}

TEST_HARNESS_MAIN

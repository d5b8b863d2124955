/* SPDX-License-Identifier: MIT */
/* total: the grand total of the bytes of the named files (read in the
 * batch when small, mapped when larger than its buffer), a message and
 * exit status 1 for a directory or a missing file, the others still
 * counted. */
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include "bt.h"
#include "scratch.h"
#include "proc_self.h"

/* Run total with args; its stdout as a number, its status. */
static long long total(const char *bin, char **files, int n, int *status, char *err, size_t elen)
{
	char cmd[8192], *w = cmd, line[256];
	FILE *f;
	long long v = -1;

	w += sprintf(w, "%s", bin);
	for (int i = 0; i < n; i++)
		w += sprintf(w, " '%s'", files[i]);
	/* stderr to a file beside the tree, for the messages */
	sprintf(w, " 2>'%s/err'", top);
	f = popen(cmd, "r");
	if (f && fgets(line, sizeof(line), f))
		v = atoll(line);
	*status = f ? WEXITSTATUS(pclose(f)) : -1;
	snprintf(cmd, sizeof(cmd), "%s/err", top);
	f = fopen(cmd, "r");
	err[0] = 0;
	if (f) {
		size_t m = fread(err, 1, elen - 1, f);

		err[m] = 0;
		fclose(f);
	}
	return v;
}

static const size_t sizes[5] = { 0, 1, 256 * 1024, 256 * 1024 + 1, 3 * 1000 * 1000 + 7 };

/* Files f0..f4 of the sizes above (paths[i]); bin/total beside the tests. */
FIXTURE(files) {
	char bin[PATH_MAX], err[4096];
	char paths[8][PATH_MAX];
	char *files[8];
	long long sum;
};

FIXTURE_SETUP(files)
{
	bt_init();
	build_path_to(self->bin, sizeof(self->bin), "bin/total");
	if (access(self->bin, X_OK))
		SKIP("bin/total not built beside the tests");
	tree_create("spawnkit-total");
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		put(name, sizes[i]);
		snprintf(self->paths[i], PATH_MAX, "%s", at(name));
		self->files[i] = self->paths[i];
		self->sum += (long long)sizes[i];
	}
}

FIXTURE_TEARDOWN(files)
{
	tree_remove();
}

TEST_F(files, sums_the_named_files)
{
	int status;

	CHECK_EQ(total(self->bin, self->files, 5, &status, self->err, sizeof(self->err)), self->sum);
	CHECK_EQ(status, 0);
	CHECK_EQ(self->err[0], 0);
}

/* A directory and a missing file among them: messages, status 1, the
 * others still counted. */
TEST_F(files, directory_and_missing_file_are_errors)
{
	int status;

	self->files[5] = top;
	snprintf(self->paths[6], PATH_MAX, "%s/missing", top);
	self->files[6] = self->paths[6];
	CHECK_EQ(total(self->bin, self->files, 7, &status, self->err, sizeof(self->err)), self->sum);
	CHECK_EQ(status, 1);
	CHECK(strstr(self->err, "Is a directory") != NULL);
	CHECK(strstr(self->err, "No such file or directory") != NULL);
}

/* A file named twice counts twice (bytes of the named files). */
TEST_F(files, file_named_twice_counts_twice)
{
	int status;

	self->files[0] = self->files[1] = self->files[4];
	CHECK_EQ(total(self->bin, self->files, 2, &status, self->err, sizeof(self->err)),
		 2 * (long long)sizes[4]);
}

/* No fd is left open per file: 40 files under a limit of 12 fds. */
TEST_F(files, no_fd_left_open_per_file)
{
	char cmd[PATH_MAX * 2];
	char *w = cmd + sprintf(cmd, "ulimit -n 12; exec %s", self->bin);
	FILE *f;
	char line[64] = "";

	for (int i = 0; i < 40; i++)
		w += sprintf(w, " '%s'", self->paths[i % 2 ? 1 : 3]);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		CHECK_EQ(WEXITSTATUS(pclose(f)), 0);
	}
	CHECK_EQ(atoll(line), 20 * (long long)(sizes[1] + sizes[3]));
}

TEST_HARNESS_MAIN

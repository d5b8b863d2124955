/* SPDX-License-Identifier: MIT */
/* total: the grand total of the bytes of the named files (read in the
 * batch when small, mapped when larger than its buffer), a message and
 * exit status 1 for a directory or a missing file, the others still
 * counted. */
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include "bt.h"

static char top[] = "/tmp/spawnkit-total-XXXXXX";

static void put(const char *name, size_t size, char *path)
{
	char buf[8192];
	int fd;

	snprintf(path, PATH_MAX, "%s/%s", top, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	memset(buf, 'q', sizeof(buf));
	while (size) {
		size_t n = size < sizeof(buf) ? size : sizeof(buf);

		CHECK_EQ(write(fd, buf, n), n);
		size -= n;
	}
	close(fd);
}

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

int main(int argc, char **argv)
{
	static char paths[8][PATH_MAX];
	char bin[PATH_MAX], err[4096], *files[8];
	const size_t sizes[5] = { 0, 1, 256 * 1024, 256 * 1024 + 1, 3 * 1000 * 1000 + 7 };
	long long sum = 0, got;
	int status;

	bt_init();
	snprintf(bin, sizeof(bin), "%s/../../bin/total", dirname(strdup(argv[0])));
	if (access(bin, X_OK))
		TEST_SKIP("bin/total not built beside the tests");
	CHECK(mkdtemp(top) != NULL);
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		put(name, sizes[i], paths[i]);
		files[i] = paths[i];
		sum += (long long)sizes[i];
	}
	got = total(bin, files, 5, &status, err, sizeof(err));
	CHECK_EQ(got, sum);
	CHECK_EQ(status, 0);
	CHECK_EQ(err[0], 0);

	/* A directory and a missing file among them. */
	files[5] = top;
	snprintf(paths[6], PATH_MAX, "%s/missing", top);
	files[6] = paths[6];
	got = total(bin, files, 7, &status, err, sizeof(err));
	CHECK_EQ(got, sum);
	CHECK_EQ(status, 1);
	CHECK(strstr(err, "Is a directory") != NULL);
	CHECK(strstr(err, "No such file or directory") != NULL);

	/* A file named twice counts twice (bytes of the named files). */
	files[0] = files[1] = files[4];
	got = total(bin, files, 2, &status, err, sizeof(err));
	CHECK_EQ(got, 2 * (long long)sizes[4]);

	/* No fd is left open per file: 40 files under a limit of 12 fds. */
	{
		char cmd[PATH_MAX * 2];
		char *w = cmd + sprintf(cmd, "ulimit -n 12; exec %s", bin);
		FILE *f;
		char line[64] = "";

		for (int i = 0; i < 40; i++)
			w += sprintf(w, " '%s'", paths[i % 2 ? 1 : 3]);
		f = popen(cmd, "r");
		CHECK(f != NULL);
		if (f) {
			if (!fgets(line, sizeof(line), f))
				line[0] = 0;
			CHECK_EQ(WEXITSTATUS(pclose(f)), 0);
		}
		CHECK_EQ(atoll(line), 20 * (long long)(sizes[1] + sizes[3]));
	}

	snprintf(bin, sizeof(bin), "rm -rf '%s'", top);
	CHECK_EQ(system(bin), 0);
	TEST_DONE();
}

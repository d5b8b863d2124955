/* SPDX-License-Identifier: MIT */
/*
 * mdu against GNU du on generated trees, with 1, 2 and 8 threads: wide
 * (several getdents buffers and batches), deep (longer than PATH_MAX, walked
 * under an open-file limit of 24), a comb (reopening far up under that
 * limit), bushy (work shared between threads, hard links across them), hard
 * links (once, or every time with -l), sparse files, symlinks
 * (not followed, dangling ones too), several arguments, and an unreadable
 * directory (as an unprivileged user: root reads everything): the same
 * totals, the same exit status, a message for the same directory.
 */
#include <grp.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include "bt.h"
#include "scratch.h"
#include "proc_self.h"

#define NOBODY 65534

static char mdu[PATH_MAX];

struct outcome {
	int status;
	char out[4096], err[4096];
};

/* Run argv (uid >= 0: as that user; nofile > 0: under that fd limit). */
static void run(char *const argv[], int uid, int nofile, struct outcome *o)
{
	int po[2], pe[2], st;
	pid_t pid;
	ssize_t n;

	memset(o, 0, sizeof(*o));
	if (pipe(po) || pipe(pe))
		exit(1);
	pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (nofile > 0) {
			struct rlimit rl = { nofile, nofile };

			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (uid >= 0 && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	n = read(po[0], o->out, sizeof(o->out) - 1);
	while (n > 0 && (size_t)n < sizeof(o->out) - 1) {
		ssize_t m = read(po[0], o->out + n, sizeof(o->out) - 1 - n);

		if (m <= 0)
			break;
		n += m;
	}
	n = read(pe[0], o->err, sizeof(o->err) - 1);
	(void)n;
	close(po[0]);
	close(pe[0]);
	waitpid(pid, &st, 0);
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* du -s<opt> paths vs mdu -<opt> paths: same stdout and status, with one
 * thread, two, and more than this machine may have (the walk shares work
 * between them; under a low fd limit mdu starts fewer). */
static void compare(const char *du_opt, const char *mdu_opt, char *p1, char *p2,
		    int uid, int nofile, int line)
{
	static char *const jobs[] = { "-j1", "-j2", "-j8" };
	char *du_argv[] = { "/usr/bin/du", (char *)du_opt, p1, p2, NULL };
	struct outcome d, m;

	run(du_argv, uid, 0, &d);
	CHECK(d.out[0] != 0);
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		char *mdu_argv[] = { mdu, (char *)mdu_opt, jobs[j], p1, p2, NULL };

		run(mdu_argv, uid, nofile, &m);
		if (strcmp(d.out, m.out) || d.status != m.status)
			fprintf(stderr, "  line %d: du %s: [%s] %d, mdu %s %s: [%s] %d (%s)\n",
				line, du_opt, d.out, d.status, mdu_opt, jobs[j], m.out,
				m.status, m.err);
		CHECK(strcmp(d.out, m.out) == 0);
		CHECK_EQ(m.status, d.status);
		/* Both complain about the same things, or neither does. */
		CHECK_EQ(!!m.err[0], !!d.err[0]);
		if (strstr(d.err, "cannot read directory"))
			CHECK(strstr(m.err, "cannot read directory") != NULL);
	}
}

/* A full tree below rel: `fanout` subdirectories per level down to
 * `depth`, each directory with one small file of a size from its path. */
static void bushy(const char *rel, int fanout, int depth)
{
	char sub[PATH_MAX];

	dir(rel);
	snprintf(sub, sizeof(sub), "%s/f", rel);
	put(sub, strlen(rel) * 13 % 3000);
	for (int i = 0; depth > 0 && i < fanout; i++) {
		snprintf(sub, sizeof(sub), "%s/%d", rel, i);
		bushy(sub, fanout, depth - 1);
	}
}

/*
 * A scratch tree at top (fresh in every case: each case is its own
 * process), bin/mdu beside the tests and GNU du, or the case is skipped.
 */
FIXTURE(tree) {
	int unused;
};

FIXTURE_SETUP(tree)
{
	bt_init();
	build_path_to(mdu, sizeof(mdu), "bin/mdu");
	if (access(mdu, X_OK))
		SKIP("bin/mdu not built beside the tests");
	if (access("/usr/bin/du", X_OK))
		SKIP("GNU du not installed");
	tree_create("spawnkit-mdu");
	ASSERT_EQ(chmod(top, 0755), 0);	/* nobody walks it too */
}

FIXTURE_TEARDOWN(tree)
{
	tree_remove();
}

/* -j takes a number of threads from 1 to 64, nothing else. */
TEST_F(tree, bad_jobs_value_is_usage_error)
{
	static char *const bad[] = { "-j0", "-j65", "-jx", "-j-1", "-j", "-j2x" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { mdu, bad[i], top, NULL };
		struct outcome m;

		run(argv, -1, 0, &m);
		CHECK_EQ(m.status, 2);
		CHECK_EQ(m.out[0], 0);
		CHECK(strstr(m.err, "mdu: ") == m.err);
	}
}

/*
 * Files and directories vanishing mid-walk: a child keeps creating and
 * removing them while mdu runs.  Which ones vanish is timing, so the checks
 * are what must hold every time: exit status 0 or 1, and 1 only with du's
 * messages for files that vanished ("cannot access ...: No such file or
 * directory") or directories that did ("cannot read directory").
 */
TEST_F(tree, vanishing_entries_mid_walk)
{
	char *mdu_argv[] = { mdu, "-b", "-j1", at("churn"), NULL };
	struct outcome m;
	int saw_error = 0;
	pid_t pid;

	dir("churn");
	for (int i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "churn/d%d", i);
		dir(name);
	}
	pid = fork();
	if (pid == 0) {
		char p[PATH_MAX];

		for (unsigned long n = 0;; n++) {
			int d = (int)(n % 40), f = (int)(n % 500);

			snprintf(p, sizeof(p), "%s/churn/d%d/f%d", top, d, f);
			if (n & 1)
				close(open(p, O_WRONLY | O_CREAT, 0644));
			else
				unlink(p);
			if (n % 97 == 0) {
				snprintf(p, sizeof(p), "%s/churn/d%d/sub", top, d);
				if (mkdir(p, 0755))
					rmdir(p);
			}
		}
	}
	CHECK(pid > 0);
	for (int r = 0; r < 30; r++) {
		char *line, *save = NULL;

		mdu_argv[2] = r & 1 ? "-j2" : "-j1";

		run(mdu_argv, -1, 0, &m);
		CHECK(m.status == 0 || m.status == 1);
		CHECK_EQ(m.status == 1, m.err[0] != 0);
		CHECK(strtoull(m.out, NULL, 10) > 0 && strstr(m.out, mdu_argv[3]) != NULL);
		for (line = strtok_r(m.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			int ok = (strstr(line, "mdu: cannot access '") == line &&
				  strstr(line, "': No such file or directory")) ||
				 (strstr(line, "mdu: cannot read directory '") == line &&
				  strstr(line, "': No such file or directory"));

			if (!ok)
				fprintf(stderr, "  unexpected: %s\n", line);
			CHECK(ok);
			saw_error = 1;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (!saw_error)
		printf("note: nothing vanished during the churn runs this time\n");
}

/* Wide: 3000 files in one directory. */
TEST_F(tree, wide_directory)
{
	char name[64];
	int i;

	dir("wide");
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "wide/a_rather_long_file_name_%05d", i);
		put(name, (size_t)(i * 7) % 5000);
	}
	compare("-sb", "-b", at("wide"), NULL, -1, 0, __LINE__);
	compare("-sB1", "-B1", at("wide"), NULL, -1, 0, __LINE__);
}

/* mix: hard links, a sparse file, symlinks (to a file, to a directory,
 * dangling) and a subdirectory. */
static void make_mix(void)
{
	int fd;

	dir("mix");
	dir("mix/sub");
	put("mix/a", 10000);
	put("mix/sub/b", 123);
	CHECK_EQ(link(at("mix/a"), at("mix/sub/a2")), 0);
	CHECK_EQ(link(at("mix/a"), at("mix/a3")), 0);
	CHECK_EQ(symlink("a", at("mix/sl")), 0);
	CHECK_EQ(symlink("sub", at("mix/sldir")), 0);
	CHECK_EQ(symlink("/nonexistent/dangling", at("mix/dangling")), 0);
	fd = open(at("mix/sparse"), O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && ftruncate(fd, 50 << 20) == 0 && pwrite(fd, "y", 1, 1 << 20) == 1);
	close(fd);
}

/* Links, sparse files, symlinks. */
TEST_F(tree, links_sparse_files_symlinks)
{
	make_mix();
	compare("-sb", "-b", at("mix"), NULL, -1, 0, __LINE__);
	compare("-sB1", "-B1", at("mix"), NULL, -1, 0, __LINE__);
	compare("-slb", "-lb", at("mix"), NULL, -1, 0, __LINE__);
	compare("-slB1", "-lB1", at("mix"), NULL, -1, 0, __LINE__);
}

/* Two arguments: each file once over both, a symlink argument not
 * followed, a file argument, a missing one. */
TEST_F(tree, two_arguments)
{
	make_mix();
	compare("-sb", "-b", at("mix"), at("mix/sub"), -1, 0, __LINE__);
	compare("-sb", "-b", at("mix/sldir"), at("mix/a"), -1, 0, __LINE__);
	compare("-sb", "-b", at("mix"), at("nonexistent"), -1, 0, __LINE__);
}

/* Deep: 2100 levels (paths of 4200+ bytes), under 24 open files. */
TEST_F(tree, deep_tree_under_24_fds)
{
	int fd;
	int i;

	dir("deep");
	fd = open(at("deep"), O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 2100 && fd >= 0; i++) {
		int nfd, f;

		CHECK_EQ(mkdirat(fd, "d", 0755), 0);
		f = openat(fd, "f", O_WRONLY | O_CREAT, 0644);
		CHECK(f >= 0 && write(f, "deep", (size_t)(i % 4) + 1) > 0);
		close(f);
		nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = nfd;
	}
	close(fd);
	compare("-sb", "-b", at("deep"), NULL, -1, 24, __LINE__);
	compare("-sB1", "-B1", at("deep"), NULL, -1, 24, __LINE__);
}

/* An unreadable directory, as nobody: message, status 1, and the
 * rest of the walk counted (its own size too). */
TEST_F(tree, unreadable_directory)
{
	dir("perm");
	dir("perm/open");
	dir("perm/closed");
	put("perm/open/f", 777);
	put("perm/closed/hidden", 5000);
	dir("perm/zz");
	put("perm/zz/after", 55);
	CHECK_EQ(chmod(at("perm/closed"), 0), 0);
	if (geteuid() == 0) {
		compare("-sb", "-b", at("perm"), NULL, NOBODY, 0, __LINE__);
		compare("-sB1", "-B1", at("perm"), NULL, NOBODY, 0, __LINE__);
		/* Listable but not searchable: every entry's stat fails. */
		CHECK_EQ(chmod(at("perm/closed"), 0744), 0);
		compare("-sb", "-b", at("perm"), NULL, NOBODY, 0, __LINE__);
	} else {
		/* Not root: we are the user who cannot read it. */
		compare("-sb", "-b", at("perm"), NULL, -1, 0, __LINE__);
	}
}

/* Bushy: 6^4 directories walked by several threads, with hard links
 * between subtrees that different threads walk. */
TEST_F(tree, bushy_tree_with_cross_links)
{
	bushy("bushy", 6, 4);
	CHECK_EQ(link(at("bushy/0/0/0/0/f"), at("bushy/5/5/5/5/l1")), 0);
	CHECK_EQ(link(at("bushy/0/0/0/0/f"), at("bushy/3/1/l2")), 0);
	CHECK_EQ(link(at("bushy/2/f"), at("bushy/4/4/4/l3")), 0);
	compare("-sb", "-b", at("bushy"), NULL, -1, 0, __LINE__);
	compare("-sB1", "-B1", at("bushy"), NULL, -1, 0, __LINE__);
	compare("-slb", "-lb", at("bushy"), NULL, -1, 0, __LINE__);
	compare("-sb", "-b", at("bushy/5"), at("bushy"), -1, 0, __LINE__);
}

/* A comb under 24 open files: a chain of 300 directories, each also
 * holding leaf directories (one made before the chain's next link, one
 * after, so some are listed after it whatever the fs's order).  Walking
 * back up reopens directories closed hundreds of levels above, which
 * must not hold more fds than the budget on the way. */
TEST_F(tree, comb_under_24_fds)
{
	int fd;
	int i;

	dir("comb");
	fd = open(at("comb"), O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 300 && fd >= 0; i++) {
		int nfd;

		CHECK_EQ(mkdirat(fd, "a", 0755), 0);
		CHECK_EQ(mkdirat(fd, "b", 0755), 0);
		CHECK_EQ(mkdirat(fd, "z", 0755), 0);
		nfd = openat(fd, "b", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = nfd;
	}
	close(fd);
	compare("-sb", "-b", at("comb"), NULL, -1, 24, __LINE__);
}

TEST_HARNESS_MAIN

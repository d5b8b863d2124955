/* SPDX-License-Identifier: MIT */
/*
 * SPAWNKIT_RUN_DEVNULL streams are copies of a /dev/null the library keeps
 * (src/run/devnull.c): the child's fd 0 is /dev/null open for reading
 * only, its fd 1 and 2 open for writing only, as when the child opened it
 * itself; runs do not open one each; and a caller that closes the kept fd
 * and reuses the number for a file of its own gets a child that still
 * reads /dev/null, and keeps its file.
 */
#include "run_util.h"

/* The child's stdin: its link and access mode, then what reading it gives
 * (cat's output length), on stdout; the same of its stderr on stderr. */
static const char *const SHOW =
	"readlink /proc/self/fd/0; sed -n 's/^flags:.*\\(.\\)$/mode \\1/p' /proc/self/fdinfo/0;"
	" cat | wc -c;"
	" readlink /proc/self/fd/2 >&3; sed -n 's/^flags:.*\\(.\\)$/mode \\1/p' /proc/self/fdinfo/2 >&3";

/* Run SHOW with stdin /dev/null and stderr /dev/null (its report goes to
 * fd 3, a pipe of ours); stdout and the fd 3 report into out/err. */
static void run_show(char *out, size_t outlen, char *err, size_t errlen)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct spawn_template_action act[1];
	int p[2];
	ssize_t n;

	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	spawnkit_run_opts_init(&o);
	o.std_mode[0] = SPAWNKIT_RUN_DEVNULL;
	o.std_mode[2] = SPAWNKIT_RUN_DEVNULL;
	spawnkit_action_dup2(&act[0], p[1], 3, 0);
	o.actions = act;
	o.nr_actions = 1;
	o.flags |= SPAWNKIT_RUN_INHERIT_FDS;
	ASSERT_EQ(run_sh(&o, SHOW, &r), 0);
	close(p[1]);
	ASSERT_EQ(r.status, 0);
	snprintf(out, outlen, "%.200s", joined(&r.out[1]));
	n = read(p[0], err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(p[0]);
	spawnkit_run_result_free(&r);
}

/* The fds of ours that are /dev/null, as a bit set of numbers < 64. */
static uint64_t devnull_fds(void)
{
	char path[64], link[64];
	uint64_t set = 0;
	ssize_t n;
	int fd;

	for (fd = 0; fd < 64; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n == 9 && !memcmp(link, "/dev/null", 9))
			set |= 1ULL << fd;
	}
	return set;
}

static void expect_devnull_child(void)
{
	char out[256], err[256];

	run_show(out, sizeof(out), err, sizeof(err));
	EXPECT_STREQ(out, "/dev/null\nmode 0\n0\n");	/* O_RDONLY, empty */
	EXPECT_STREQ(err, "/dev/null\nmode 1\n");	/* O_WRONLY */
}

TEST(the_child_sees_dev_null_in_the_modes_it_would_open)
{
	expect_devnull_child();
	expect_devnull_child();
}

TEST(runs_keep_one_dev_null_per_direction)
{
	uint64_t before = devnull_fds(), kept;
	int fds;

	expect_devnull_child();
	kept = devnull_fds() & ~before;
	EXPECT_EQ(__builtin_popcountll(kept), 2);	/* read, write */
	EXPECT_EQ(kept & 7, 0);				/* above stdio */
	fds = count_open_fds();
	expect_devnull_child();
	expect_devnull_child();
	EXPECT_EQ(count_open_fds(), fds);
	EXPECT_EQ(devnull_fds() & ~before, kept);
}

/* The kept fds closed behind the library's back and their numbers taken
 * by the caller: a file of its own, and /dev/null in the wrong mode. */
TEST(a_kept_fd_the_caller_closed_and_reused_is_left_alone)
{
	char path[] = "/tmp/spawnkit-devnull-XXXXXX", buf[16];
	uint64_t before = devnull_fds(), kept;
	int fd, lo, hi, mine, other;

	expect_devnull_child();
	kept = devnull_fds() & ~before;
	ASSERT_EQ(__builtin_popcountll(kept), 2);
	lo = __builtin_ctzll(kept);
	hi = 63 - __builtin_clzll(kept);
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	unlink(path);
	ASSERT_EQ(write(fd, "mine", 4), 4);
	ASSERT_EQ(dup2(fd, lo), lo);
	ASSERT_EQ(dup2(fd, hi), hi);
	close(fd);
	other = open("/dev/null", O_RDWR | O_CLOEXEC);	/* wrong mode for both */
	ASSERT_GE(other, 0);
	ASSERT_EQ(dup3(other, hi, O_CLOEXEC), hi);
	close(other);

	expect_devnull_child();
	/* ours: the file, where it was, untouched (offset after "mine") */
	mine = lo;
	EXPECT_EQ(pread(mine, buf, sizeof(buf), 0), 4);
	EXPECT_EQ(lseek(mine, 0, SEEK_CUR), 4);
	EXPECT_EQ(fcntl(hi, F_GETFL) & O_ACCMODE, O_RDWR);
	close(lo);
	close(hi);
	expect_devnull_child();
}

TEST_HARNESS_MAIN

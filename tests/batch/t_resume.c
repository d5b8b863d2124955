/* SPDX-License-Identifier: MIT */
/*
 * A batch the kernel hands back unfinished gives the results a batch run
 * to the end gives.  Under a seccomp filter (allow-all) the kernel loop
 * stops before its first system call (BATCH_STOPPED | i) and the library
 * finishes the batch call by call (src/batch/resume.c), after redoing the
 * word copies into the entries array that the kernel already ran: here the
 * fd of an openat reaches read and close only through such copies, and a
 * word copy that ran in the kernel before the stop feeds the first entry
 * the library runs.  The emulator backend runs the same program straight.
 */
#include <string.h>
#include "bt.h"
#include "seccomp_filter.h"
#include "scratch.h"

static const char content[] = "resumed\n";

/* word copies the kernel ran before its stop are redone, once, by the library */
TEST(stopped_batch_finishes_like_a_straight_run)
{
	struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	char path[sizeof(top) + 8], buf[32];
	struct batch_entry e[6], copy[6];
	int64_t res[6];
	uint64_t three = 3;
	long ret;

	bt_init();
	tree_create("spawnkit-resume");
	put_text("f", content);
	snprintf(path, sizeof(path), "%s/f", top);
	CHECK_EQ(INSTALL_SECCOMP_FILTER(allow), 0);

	memset(buf, 0, sizeof(buf));
	/* 0: a word copy the kernel runs before it stops: 3 -> read's count */
	e[0] = BATCH_WORDCOPY(&three, &e[4].args[2]);
	e[1] = BATCH_CALL4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	spawnkit_batch_end_on_error(&e[1]);
	spawnkit_batch_pass_result(&e[2], res, 1, e, 4, 0);	/* fd -> read */
	spawnkit_batch_pass_result(&e[3], res, 1, e, 5, 0);	/* fd -> close */
	e[4] = BATCH_CALL3(SYS_read, -1, buf, 100);
	e[5] = BATCH_CALL1(SYS_close, -1);
	memcpy(copy, e, sizeof(e));
	ret = bt_run(e, res, 6, 1);
	if (ret == -EOPNOTSUPP && bt_uring()) {	/* a program it cannot express */
		CHECK_ERR(ret, EOPNOTSUPP);
		tree_remove();
		return;
	}
	CHECK_EQ(ret, 5);
	CHECK(memcmp(copy, e, sizeof(e)) == 0);	/* the caller's array as it was */
	CHECK_EQ(res[0], 0);
	CHECK(res[1] >= 3);
	CHECK_EQ(res[2], 0);
	CHECK_EQ(res[3], 0);
	CHECK_EQ(res[4], 3);			/* the count the first copy set */
	CHECK(memcmp(buf, "res", 3) == 0 && buf[3] == 0);
	CHECK_EQ(res[5], 0);
	CHECK_EQ(fcntl((int)res[1], F_GETFD), -1);	/* closed: no fd leaked */
	tree_remove();
}

TEST_HARNESS_MAIN

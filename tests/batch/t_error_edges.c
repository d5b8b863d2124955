/* SPDX-License-Identifier: MIT */
/*
 * The error range is -4095..-1: -4095 and -1 take ON_ERROR, -4096 and below
 * take ON_POSITIVE (a large "negative" value such as an address is not an
 * error), 0 takes ON_ZERO.
 *
 * Real sub-calls that return such values: fcntl(F_GETOWN) on a file owned
 * by process group N returns -N.  We make processes with pids 4095 and 4096
 * (clone3 set_tid, in a new pid namespace when the kernel has them, so the
 * numbers are surely free), make them group leaders and own a file by their
 * groups, then let a batch branch on F_GETOWN.  The loop's own rule is also
 * checked directly on sk_batch_next (shared by the user-space backends).
 */
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "bt.h"
#include "batch/batch_int.h"
#include "common/sys.h"

#define CANCELED (-(int64_t)ECANCELED)

struct shared {
	int done;		/* 1: ran; 77: could not make the pids */
	long ret[6];
	int64_t res[6][3];
	int64_t owner[6];	/* what plain fcntl(F_GETOWN) gave */
};

static const int owners[6] = { -4095, -4096, -1, -4094, 1, 0 };

static pid_t make_pid(pid_t want)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	pid_t tid = want, pid;

	ca.set_tid = (uintptr_t)&tid;
	ca.set_tid_size = 1;
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

/* In a process that may make pids 4094..4096: run the programs. */
static void run_programs(struct shared *sh)
{
	pid_t kids[3] = { -1, -1, -1 };
	int fd, i;

	if (getpid() == 1)
		setpgid(0, 0);	/* so that process group 1 exists (owner -1) */
	for (i = 0; i < 3; i++) {
		kids[i] = make_pid(4094 + i);
		if (kids[i] < 0) {
			sh->done = 77;
			goto out;
		}
	}
	fd = open("/dev/null", O_RDONLY);
	for (i = 0; i < 6; i++) {
		/* 0: F_GETOWN: error -> 2, zero -> end, positive -> 1
		 * 1: marks the positive path, then ends
		 * 2: marks the error path */
		struct batch_entry e[3] = {
			BATCH_CALL2(SYS_fcntl, fd, F_GETOWN),
			BATCH_CALL0(SYS_getpid),
			BATCH_CALL0(SYS_getppid),
		};

		spawnkit_batch_jump(&e[0], BATCH_ON_ERROR, 1);
		spawnkit_batch_jump(&e[0], BATCH_ON_ZERO, BATCH_JUMP_END);
		spawnkit_batch_jump(&e[1], BATCH_ON_POSITIVE, BATCH_JUMP_END);
		if (fcntl(fd, F_SETOWN, owners[i]) < 0) {
			sh->done = 77;
			goto out;
		}
		sh->owner[i] = sk_syscall2(SYS_fcntl, fd, F_GETOWN);
		sh->ret[i] = spawnkit_batch(e, sh->res[i], 3, 0);
	}
	sh->done = 1;
out:
	for (i = 0; i < 3; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
}

/* fcntl(F_GETOWN) returning -4095, -4096, -1, -4094, 1, 0 takes the edge
 * its value says. */
TEST(real_subcall_values_take_their_edges)
{
	struct shared *sh;
	pid_t pid;
	int i;

	bt_init();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	pid = fork();
	if (pid == 0) {
		/* pid 1 of a new namespace makes the pids; without pid
		 * namespaces (a small guest kernel) try the numbers here. */
		if (unshare(CLONE_NEWPID) == 0) {
			pid_t init = fork();

			if (init == 0) {
				run_programs(sh);
				_exit(0);
			}
			waitpid(init, NULL, 0);
		} else {
			run_programs(sh);
		}
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, NULL, 0) == pid);
	if (sh->done != 1)
		SKIP("cannot make pids 4094..4096 here (the loop rule case still runs)");
	for (i = 0; i < 6; i++) {
		int64_t r = owners[i];	/* F_GETOWN gives the owner back */

		CHECK_EQ(sh->owner[i], r);
		if (bt_uring()) {	/* fcntl: not an io_uring op */
			CHECK_ERR(sh->ret[i], EOPNOTSUPP);
			continue;
		}
		CHECK_EQ(sh->res[i][0], r);
		if (r >= -4095 && r <= -1) {		/* ON_ERROR: to 2 */
			CHECK_EQ(sh->ret[i], 2);
			CHECK_EQ(sh->res[i][1], CANCELED);
			CHECK(sh->res[i][2] >= 0);	/* getppid ran */
		} else if (r == 0) {			/* ON_ZERO: end */
			CHECK_EQ(sh->ret[i], 0);
			CHECK_EQ(sh->res[i][1], CANCELED);
			CHECK_EQ(sh->res[i][2], CANCELED);
		} else {				/* ON_POSITIVE: 1, end */
			CHECK_EQ(sh->ret[i], 1);
			CHECK(sh->res[i][1] > 0);
			CHECK_EQ(sh->res[i][2], CANCELED);
		}
	}
	/* The two edges themselves, spelled out. */
	CHECK_EQ(sh->ret[0], bt_uring() ? -EOPNOTSUPP : 2);	/* -4095: error */
	CHECK_EQ(sh->ret[1], bt_uring() ? -EOPNOTSUPP : 1);	/* -4096: positive */
	munmap(sh, sizeof(*sh));
}

/* The loop's own rule on sk_batch_next: -4095..-1 is an error, -4096
 * and below positive; past the end is "end" (count), never more. */
TEST(loop_rule_error_range_and_end)
{
	struct batch_entry e = BATCH_CALL0(0);

	bt_init();
	e.jump[BATCH_ON_ERROR] = 0;
	e.jump[BATCH_ON_ZERO] = 1;
	e.jump[BATCH_ON_POSITIVE] = 2;
	CHECK_EQ(sk_batch_next(&e, -1, 0, 10), 1);
	CHECK_EQ(sk_batch_next(&e, -4095, 0, 10), 1);
	CHECK_EQ(sk_batch_next(&e, -4096, 0, 10), 3);
	CHECK_EQ(sk_batch_next(&e, INT64_MIN, 0, 10), 3);
	CHECK_EQ(sk_batch_next(&e, 0, 0, 10), 2);
	CHECK_EQ(sk_batch_next(&e, 1, 0, 10), 3);
	CHECK_EQ(sk_batch_next(&e, INT64_MAX, 0, 10), 3);
	CHECK_EQ(sk_batch_next(&e, 1, 7, 10), 10);
	CHECK_EQ(sk_batch_next(&e, 1, 9, 10), 10);
	e.jump[BATCH_ON_POSITIVE] = 0xfffe;
	CHECK_EQ(sk_batch_next(&e, 1, 1023, 1024), 1024);
	e.jump[BATCH_ON_POSITIVE] = BATCH_JUMP_END;
	CHECK_EQ(sk_batch_next(&e, 1, 0, 1024), 1024);
}

TEST_HARNESS_MAIN

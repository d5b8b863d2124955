/* SPDX-License-Identifier: MIT */
/* Unknown and denied numbers give -ENOSYS in their slot and the batch goes
 * on along ON_ERROR; numbers that would alias a real call on their low bits
 * are refused, never issued; entry flags != 0 give -EINVAL. */
#include <linux/sched.h>
#include <sched.h>
#include <sys/wait.h>
#include "bt.h"
#include "common/kernel_adv.h"

static void one(uint64_t nr, const uint64_t *args, int64_t want, int line)
{
	struct batch_entry e[2];
	int64_t res[2];
	long ret;

	e[0] = BATCH_CALL0(nr);
	for (int i = 0; args && i < 6; i++)
		e[0].args[i] = args[i];
	e[1] = bt_positive();
	ret = bt_run(e, res, 2, 0);
	if (ret == -EOPNOTSUPP)
		return;
	if (res[0] != want)
		fprintf(stderr, "  (nr %#llx at line %d)\n", (unsigned long long)nr, line);
	CHECK_EQ(ret, 1);
	CHECK_EQ(res[0], want);
	CHECK_EQ(res[1], 8);	/* ON_ERROR "next": the batch went on */
}

/* Unknown numbers: one no kernel has, the first past every table,
 * and ones whose low 32 bits or x32 bit would reach getpid. */
TEST(unknown_and_aliasing_numbers_are_enosys)
{
	bt_init();
	one(999, NULL, -ENOSYS, __LINE__);
	one(4095, NULL, -ENOSYS, __LINE__);
	one(4096, NULL, -ENOSYS, __LINE__);
	one((1ULL << 32) + SYS_getpid, NULL, -ENOSYS, __LINE__);
	one(BATCH_NR_WORDCOPY + 1, NULL, -ENOSYS, __LINE__);
	one(0x40000000ULL | SYS_getpid, NULL, -ENOSYS, __LINE__);
	one(0x80000000ULL, NULL, -ENOSYS, __LINE__);
	one(UINT64_MAX, NULL, -ENOSYS, __LINE__);
	one((uint64_t)-1 - 0xffffffffULL + SYS_getpid, NULL, -ENOSYS, __LINE__);
}

/* Denied calls, with arguments that would work if they ran: the
 * test would fork, exec /bin/true or exit with 3. */
TEST(denied_calls_are_enosys_and_never_run)
{
	static const char *argv_true[] = { "/bin/true", NULL };
	struct clone_args ca = { .exit_signal = SIGCHLD };
	uint64_t exec_args[6] = { (uintptr_t)"/bin/true", (uintptr_t)argv_true, 0 };
	uint64_t execat_args[6] = { AT_FDCWD, (uintptr_t)"/bin/true", (uintptr_t)argv_true };
	uint64_t clone_args[6] = { SIGCHLD };
	uint64_t clone3_args[6] = { (uintptr_t)&ca, sizeof(ca) };
	uint64_t exit_args[6] = { 3 };
	const struct sk_kernel_adv *adv = sk_kernel_adv();
	int status;

	bt_init();
	one(SYS_fork, NULL, -ENOSYS, __LINE__);
	one(SYS_vfork, NULL, -ENOSYS, __LINE__);
	one(SYS_clone, clone_args, -ENOSYS, __LINE__);
	one(SYS_clone3, clone3_args, -ENOSYS, __LINE__);
	one(SYS_execve, exec_args, -ENOSYS, __LINE__);
	one(SYS_execveat, execat_args, -ENOSYS, __LINE__);
	one(SYS_exit, exit_args, -ENOSYS, __LINE__);
	one(SYS_exit_group, exit_args, -ENOSYS, __LINE__);
	one(SYS_rt_sigreturn, NULL, -ENOSYS, __LINE__);
	one(SYS_restart_syscall, NULL, -ENOSYS, __LINE__);
	if (adv->batch)
		one(adv->nr_batch, NULL, -ENOSYS, __LINE__);
	if (adv->spawn_template)
		one(adv->nr_spawn_template_spawn, NULL, -ENOSYS, __LINE__);
	/* No child was made. */
	CHECK_EQ(waitpid(-1, &status, WNOHANG), -1);
}

/* Calls next to the denied ones in the table do run. */
TEST(calls_next_to_denied_ones_run)
{
	bt_init();
	one(SYS_getppid, NULL, getppid(), __LINE__);
	one(SYS_getpid, NULL, getpid(), __LINE__);
}

/* Entry flags != 0: -EINVAL, for a call and for a word copy. */
TEST(entry_flags_are_einval)
{
	bt_init();
	{
		struct batch_entry e[3];
		int64_t res[3], word = 7, dst = 0;

		e[0] = bt_positive();
		e[0].flags = 1;
		e[1] = BATCH_WORDCOPY(&word, &dst);
		e[1].flags = 0x8000;
		e[2] = bt_zero();
		if (bt_run(e, res, 3, 0) != -EOPNOTSUPP) {
			CHECK_EQ(res[0], -EINVAL);
			CHECK_EQ(res[1], -EINVAL);
			CHECK_EQ(res[2], 0);
			CHECK_EQ(dst, 0);
		}
	}
}

TEST_HARNESS_MAIN

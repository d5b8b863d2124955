/* SPDX-License-Identifier: MIT */
/* Only the calls of the allow-list run in a batch: any other number of the
 * system call table gets -EOPNOTSUPP in its slot, never runs, and the
 * batch goes on along ON_ERROR; a number past the table (or one that would
 * alias a real call on its low bits) gets -ENOSYS; entry flags != 0 give
 * -EINVAL.  The kernel's batch(2) and the emulator refuse the same numbers. */
#include <linux/sched.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "bt.h"
#include "batch/batch_int.h"
#include "common/kernel_adv.h"

/* uretprobe (6.11) is newer than some system headers. */
#if !defined(SYS_uretprobe) && defined(__x86_64__)
#define SYS_uretprobe 335
#endif

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

/* Numbers past every table, and ones whose low 32 bits or x32 bit would
 * reach getpid: no such call. */
TEST(numbers_past_the_table_are_enosys)
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

/* Calls off the list, with arguments that would show if they ran: a child,
 * an exit with status 3, ENOENT from an exec, 0 from kill, ESRCH from
 * ptrace, ENOTTY from ioctl.  uretprobe issued for real kills its caller
 * (or, before 6.11, is a hole of the table: refused all the same). */
TEST(calls_off_the_list_are_eopnotsupp_and_never_run)
{
	static const char *argv_none[] = { "/nonexistent/spawnkit-batch", NULL };
	struct clone_args ca = { .exit_signal = SIGCHLD };
	uint64_t exec_args[6] = { (uintptr_t)argv_none[0], (uintptr_t)argv_none, 0 };
	uint64_t execat_args[6] = { AT_FDCWD, (uintptr_t)argv_none[0], (uintptr_t)argv_none };
	uint64_t clone_args[6] = { SIGCHLD };
	uint64_t clone3_args[6] = { (uintptr_t)&ca, sizeof(ca) };
	uint64_t exit_args[6] = { 3 };
	uint64_t kill_args[6] = { (uint64_t)getpid(), 0 };
	uint64_t ptrace_args[6] = { PTRACE_PEEKDATA, 0x7fffffff };
	uint64_t ioctl_args[6] = { 0, TCGETS };
	const struct sk_kernel_adv *adv = sk_kernel_adv();
	int status;

	bt_init();
	ioctl_args[0] = (uint64_t)bt_null_fd;
	one(SYS_fork, NULL, -EOPNOTSUPP, __LINE__);
	one(SYS_vfork, NULL, -EOPNOTSUPP, __LINE__);
	one(SYS_clone, clone_args, -EOPNOTSUPP, __LINE__);
	one(SYS_clone3, clone3_args, -EOPNOTSUPP, __LINE__);
	one(SYS_execve, exec_args, -EOPNOTSUPP, __LINE__);
	one(SYS_execveat, execat_args, -EOPNOTSUPP, __LINE__);
	one(SYS_exit, exit_args, -EOPNOTSUPP, __LINE__);
	one(SYS_exit_group, exit_args, -EOPNOTSUPP, __LINE__);
	one(SYS_rt_sigreturn, NULL, -EOPNOTSUPP, __LINE__);
	one(SYS_restart_syscall, NULL, -EOPNOTSUPP, __LINE__);
#ifdef SYS_uretprobe
	one(SYS_uretprobe, NULL, -EOPNOTSUPP, __LINE__);
#endif
	one(SYS_kill, kill_args, -EOPNOTSUPP, __LINE__);
	one(SYS_ptrace, ptrace_args, -EOPNOTSUPP, __LINE__);
	one(SYS_ioctl, ioctl_args, -EOPNOTSUPP, __LINE__);
	if (adv->batch)
		one(adv->nr_batch, NULL, -EOPNOTSUPP, __LINE__);
	if (adv->spawn_template)
		one(adv->nr_spawn_template_spawn, NULL, -EOPNOTSUPP, __LINE__);
	/* No child was made. */
	CHECK_EQ(waitpid(-1, &status, WNOHANG), -1);
}

/* Calls of the list next to refused ones in the table do run. */
TEST(calls_on_the_list_run)
{
	mode_t old;

	bt_init();
	one(SYS_getppid, NULL, getppid(), __LINE__);
	one(SYS_getpid, NULL, getpid(), __LINE__);
	old = umask(022);
	one(SYS_umask, (const uint64_t[6]){ 027 }, 022, __LINE__);
	umask(old);
}

/*
 * The emulator and the kernel refuse the same numbers: every number up to
 * past the table's end, once on each backend, with all arguments -1 (so
 * that a call of the list fails at once: EBADF, EFAULT, EINVAL), the
 * results compared slot by slot.  Only where the kernel has batch(2).
 */
TEST(kernel_and_emulator_refuse_the_same_numbers)
{
	struct batch_entry e[1];
	int64_t rk[1], ru[1];
	mode_t old = umask(022);
	long nr, kret, uret;
	int diff = 0;

	if (!spawnkit_batch_backend_available(SPAWNKIT_BATCH_KERNEL))
		TEST_SKIP("the kernel has no batch(2)");
	for (nr = 0; nr < 600; nr++) {
		e[0] = BATCH_CALL6(nr, -1, -1, -1, -1, -1, -1);
		kret = spawnkit_batch_run(SPAWNKIT_BATCH_KERNEL, e, rk, 1, 0);
		umask(022);	/* umask(-1) sets 0777 */
		uret = spawnkit_batch_run(SPAWNKIT_BATCH_EMULATOR, e, ru, 1, 0);
		umask(022);
		if (kret != 0 || uret != 0 || rk[0] != ru[0]) {
			if (diff++ < 5)
				printf("  nr %ld: kernel %ld/%lld, emulator %ld/%lld\n", nr,
				       kret, (long long)rk[0], uret, (long long)ru[0]);
		}
		if (sk_batch_refused((uint64_t)nr) == 0)
			CHECK(rk[0] != -EOPNOTSUPP);
		else
			CHECK_EQ(rk[0], sk_batch_refused((uint64_t)nr));
	}
	umask(old);
	CHECK_EQ(diff, 0);
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

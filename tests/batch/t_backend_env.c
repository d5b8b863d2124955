/* SPDX-License-Identifier: MIT */
/* SPAWNKIT_BATCH_BACKEND: each name selects its backend, an absent one is
 * -ENOSYS for every call, an unknown name -EINVAL (re-run in a child with
 * each value, since the variable is read once per process). */
#include <string.h>
#include <sys/wait.h>
#include "bt.h"

/* Run this program again as "child" with SPAWNKIT_BATCH_BACKEND=value. */
static int child(const char *value)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		setenv("SPAWNKIT_BATCH_BACKEND", value, 1);
		execl("/proc/self/exe", "t_backend_env", "child", (char *)NULL);
		_exit(99);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The child: exit code 10 + backend, or 50 + errno; ENOSYS must also be
 * what a batch call gives. */
static int child_main(void)
{
	struct batch_entry e[1];
	int64_t res[1];
	int be = spawnkit_batch_backend();

	e[0] = BATCH_CALL3(SYS_write, 1, "", 0);
	if (be < 0)
		return spawnkit_batch(e, res, 1, 0) == be ? 50 - be : 99;
	return spawnkit_batch(e, res, 1, 0) == 0 && res[0] == 0 ? 10 + be : 98;
}

TEST(emulator_selects_emulator)
{
	CHECK_EQ(child("emulator"), 10 + SPAWNKIT_BATCH_EMULATOR);
}

TEST(empty_or_auto_prefers_kernel)
{
	CHECK_EQ(child(""), 10 + (spawnkit_kernel_has_batch() ?
				  SPAWNKIT_BATCH_KERNEL : SPAWNKIT_BATCH_EMULATOR));
	CHECK_EQ(child("auto"), 10 + (spawnkit_kernel_has_batch() ?
				      SPAWNKIT_BATCH_KERNEL : SPAWNKIT_BATCH_EMULATOR));
}

TEST(uring_selects_uring_or_enosys)
{
	CHECK_EQ(child("uring"),
		 spawnkit_batch_backend_available(SPAWNKIT_BATCH_URING) ?
		 10 + SPAWNKIT_BATCH_URING : 50 + ENOSYS);
}

TEST(kernel_selects_kernel_or_enosys)
{
	CHECK_EQ(child("kernel"),
		 spawnkit_kernel_has_batch() ? 10 + SPAWNKIT_BATCH_KERNEL : 50 + ENOSYS);
}

TEST(unknown_name_is_einval)
{
	CHECK_EQ(child("bogus"), 50 + EINVAL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child_main();
	return th_main(argc, argv);
}

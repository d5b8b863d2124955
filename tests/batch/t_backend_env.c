/* SPDX-License-Identifier: MIT */
/* SPAWNKIT_BATCH_BACKEND: each name selects its backend, an absent one is
 * -ENOSYS for every call, an unknown name -EINVAL (re-run in a child with
 * each value, since the variable is read once per process). */
#include <string.h>
#include <sys/wait.h>
#include "bt.h"

static int child(const char *value, const char *self)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		setenv("SPAWNKIT_BATCH_BACKEND", value, 1);
		execl(self, self, "child", (char *)NULL);
		_exit(99);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	struct batch_entry e[1];
	int64_t res[1];
	int be;

	if (argc > 1) {
		/* Child: exit code 10 + backend, or 50 + errno; ENOSYS must
		 * also be what a batch call gives. */
		be = spawnkit_batch_backend();
		e[0] = BATCH_CALL3(SYS_write, 1, "", 0);
		if (be < 0)
			return spawnkit_batch(e, res, 1, 0) == be ? 50 - be : 99;
		return spawnkit_batch(e, res, 1, 0) == 0 && res[0] == 0 ? 10 + be : 98;
	}
	CHECK_EQ(child("emulator", argv[0]), 10 + SPAWNKIT_BATCH_EMULATOR);
	CHECK_EQ(child("", argv[0]), 10 + (spawnkit_kernel_has_batch() ?
					   SPAWNKIT_BATCH_KERNEL : SPAWNKIT_BATCH_EMULATOR));
	CHECK_EQ(child("auto", argv[0]), 10 + (spawnkit_kernel_has_batch() ?
					       SPAWNKIT_BATCH_KERNEL : SPAWNKIT_BATCH_EMULATOR));
	CHECK_EQ(child("uring", argv[0]),
		 spawnkit_batch_backend_available(SPAWNKIT_BATCH_URING) ?
		 10 + SPAWNKIT_BATCH_URING : 50 + ENOSYS);
	CHECK_EQ(child("kernel", argv[0]),
		 spawnkit_kernel_has_batch() ? 10 + SPAWNKIT_BATCH_KERNEL : 50 + ENOSYS);
	CHECK_EQ(child("bogus", argv[0]), 50 + EINVAL);
	TEST_DONE();
}

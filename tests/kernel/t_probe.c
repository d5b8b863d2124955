/* SPDX-License-Identifier: MIT */
/*
 * The library finds the series' calls by probing, and then picks them.
 *
 * In the QEMU guest of `make -C kernel test` (SPAWN_BACKENDS names
 * "kernel") the calls must be found, and with no SPAWNKIT_BACKEND /
 * SPAWNKIT_BATCH_BACKEND forced the library picks the kernel backends on
 * its own.  Elsewhere, where a direct probe of the create call's slot says
 * ENOSYS, the library must find neither call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/batch.h>
#include "harness.h"

/* where the series wires spawn_template_create up on x86_64 */
#define NR_CREATE 472

static int in_test_guest(void)
{
	const char *want = getenv("SPAWN_BACKENDS");

	return want && strstr(want, "kernel");
}

FIXTURE(probe) {
	int unused;
};

FIXTURE_SETUP(probe)
{
	unsetenv("SPAWNKIT_BACKEND");
	unsetenv("SPAWNKIT_BATCH_BACKEND");
}

FIXTURE_TEARDOWN(probe)
{
}

/* a kernel whose create slot says ENOSYS: the library finds neither call */
TEST_F(probe, stock_kernel_has_neither_call)
{
	if (in_test_guest())
		SKIP("the test guest has the calls");
	if (syscall(NR_CREATE, NULL, 0) != -1 || errno != ENOSYS)
		SKIP("not the test guest, and the create slot is not ENOSYS here");
	CHECK_EQ(spawnkit_kernel_has_spawn_template(), 0);
	CHECK_EQ(spawnkit_kernel_has_batch(), 0);
}

TEST_F(probe, guest_library_picks_the_kernel_backends)
{
	if (!in_test_guest())
		SKIP("not the test guest");
	CHECK_EQ(spawnkit_kernel_has_spawn_template(), 1);
	CHECK_EQ(spawnkit_backend(), SPAWNKIT_BACKEND_KERNEL);
	CHECK_EQ(spawnkit_kernel_has_batch(), 1);
	CHECK_EQ(spawnkit_batch_backend_available(SPAWNKIT_BATCH_KERNEL), 1);
	CHECK_EQ(spawnkit_batch_backend(), SPAWNKIT_BATCH_KERNEL);
}

/* a template made now is a kernel one that runs */
TEST_F(probe, guest_template_is_a_kernel_one_that_runs)
{
	struct spawnkit_template *t = NULL;
	char *argv[] = { "true", NULL };
	int pidfd = -1, st;
	pid_t pid;

	if (!in_test_guest())
		SKIP("not the test guest");
	ASSERT_EQ(spawnkit_template_create("/bin/true", 0, &t), 0);
	CHECK_EQ(spawnkit_template_backend(t), SPAWNKIT_BACKEND_KERNEL);
	pid = spawnkit_spawn(t, argv, NULL, NULL, 0, 0, &pidfd);
	CHECK(pid > 0);
	if (pid > 0) {
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		close(pidfd);
	}
	spawnkit_template_destroy(t);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * The patched kernel's advertisement and the library's automatic choice.
 *
 * Where /sys/kernel/spawnkit exists (the QEMU guest of `make test-kernel`):
 * both files hold exactly the ABI version and numbers the series chose, the
 * library reads them, and with no SPAWNKIT_BACKEND / SPAWNKIT_BATCH_BACKEND
 * forced it picks the kernel backends on its own.  Elsewhere (a stock
 * kernel) this test is skipped, never passed.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/batch.h>
#include "harness.h"

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

FIXTURE(adv) {
	char buf[64];
};

FIXTURE_SETUP(adv)
{
	if (access("/sys/kernel/spawnkit", F_OK))
		SKIP("this kernel does not advertise spawnkit's calls");
	unsetenv("SPAWNKIT_BACKEND");
	unsetenv("SPAWNKIT_BATCH_BACKEND");
}

FIXTURE_TEARDOWN(adv)
{
}

TEST_F(adv, sysfs_files_give_version_and_numbers)
{
	CHECK_EQ(read_file(SPAWN_TEMPLATE_SYSFS_PATH, self->buf, sizeof(self->buf)), 0);
	CHECK(strcmp(self->buf, "1 472 473\n") == 0);
	CHECK_EQ(read_file(BATCH_SYSFS_PATH, self->buf, sizeof(self->buf)), 0);
	CHECK(strcmp(self->buf, "1 474\n") == 0);
}

TEST_F(adv, library_picks_the_kernel_backends)
{
	CHECK_EQ(spawnkit_kernel_has_spawn_template(), 1);
	CHECK_EQ(spawnkit_backend(), SPAWNKIT_BACKEND_KERNEL);
	CHECK_EQ(spawnkit_kernel_has_batch(), 1);
	CHECK_EQ(spawnkit_batch_backend_available(SPAWNKIT_BATCH_KERNEL), 1);
	CHECK_EQ(spawnkit_batch_backend(), SPAWNKIT_BATCH_KERNEL);
}

/* A template made now is a kernel one that runs. */
TEST_F(adv, template_is_a_kernel_one_that_runs)
{
	struct spawnkit_template *t = NULL;
	char *argv[] = { "true", NULL };
	int pidfd = -1, st;
	pid_t pid;

	ASSERT_EQ(spawnkit_template_create("/bin/true", SPAWN_TEMPLATE_CREATE_CLOEXEC, &t), 0);
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

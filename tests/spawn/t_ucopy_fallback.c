/* SPDX-License-Identifier: MIT */
/*
 * Bad pointers are still EFAULT, not a crash, where process_vm_readv and
 * process_vm_writev are unavailable (a kernel without CROSS_MEMORY_ATTACH,
 * or a seccomp filter): here a filter makes them fail with EPERM, and the
 * library falls back to probing pages with harmless system calls.
 */
#include <stddef.h>
#include <sys/mman.h>
#include "util.h"
#include "seccomp_filter.h"

static int deny_vm_copy(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return INSTALL_SECCOMP_FILTER(f);
}

/*
 * Each case runs in its own child (tests/harness.h), so the filter a case
 * installs dies with it.  Page two of `two` is unmapped.
 */
FIXTURE(filtered) {
	char *two;
	void *unmapped;
};

FIXTURE_SETUP(filtered)
{
	char iov[16];

	self->two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(self->two != MAP_FAILED);
	self->unmapped = self->two + 4096;
	munmap(self->unmapped, 4096);
	ASSERT_EQ(deny_vm_copy(), 0);
	/* the filter is in force */
	ASSERT_EQ(syscall(SYS_process_vm_readv, getpid(), iov, 0, iov, 0, 0), -1);
	ASSERT_EQ(errno, EPERM);
}

FIXTURE_TEARDOWN(filtered)
{
	munmap(self->two, 4096);
}

TEST_F(filtered, create_with_bad_path_is_efault)
{
	struct spawnkit_template *t;
	char *two = self->two;

	CHECK_ERR(spawnkit_template_create(self->unmapped, 0, &t), EFAULT);
	CHECK_ERR(spawnkit_template_create((const char *)8, 0, &t), EFAULT);
	/* a path that ends exactly at the unmapped page, without a NUL */
	memset(two, 'a', 4096);
	two[4000] = '/';
	CHECK_ERR(spawnkit_template_create(two + 4000, 0, &t), EFAULT);
}

/* a good path that ends 1 byte before the unmapped page */
TEST_F(filtered, create_with_path_ending_at_the_page_works)
{
	struct spawnkit_template *t;
	char *two = self->two;

	strcpy(two + 4096 - 1 - strlen(probe_path()), probe_path());
	CHECK_EQ(spawnkit_template_create(two + 4096 - 1 - strlen(probe_path()),
					  0, &t), 0);
	spawnkit_template_destroy(t);
}

TEST_F(filtered, spawn_with_bad_pointers_is_efault)
{
	struct spawnkit_template *t = probe_template();
	struct spawn_template_spawn_args a;
	char *argv_q[] = { "probe", "--quiet", NULL };
	int pidfd;

	memset(&a, 0, sizeof(a));
	a.argv = (uintptr_t)argv_q;
	a.envp = (uintptr_t)environ;
	a.pidfd = (uintptr_t)self->unmapped;
	CHECK_ERR(spawnkit_spawn_args(t, &a, sizeof(a)), EFAULT);
	a.pidfd = (uintptr_t)&pidfd;
	a.actions = (uintptr_t)self->unmapped;
	a.actions_len = 1;
	CHECK_ERR(spawnkit_spawn_args(t, &a, sizeof(a)), EFAULT);
	CHECK_ERR(spawnkit_spawn_args(t, self->unmapped, sizeof(a)), EFAULT);
	spawnkit_template_destroy(t);
}

/* a good spawn with an action still works, and returns its pidfd */
TEST_F(filtered, good_spawn_with_action_works)
{
	struct spawnkit_template *t = probe_template();
	struct spawn_template_action act;
	char *argv_q[] = { "probe", "--quiet", NULL };
	int pidfd;
	pid_t pid;

	spawnkit_action_dup2(&act, 2, 2, 0);
	pid = spawnkit_spawn(t, argv_q, environ, &act, 1, 0, &pidfd);
	CHECK(pid > 0);
	if (pid > 0)
		CHECK_EQ(wait_pidfd(pidfd), 0);
	spawnkit_template_destroy(t);
	CHECK(no_children());
}

TEST_HARNESS_MAIN

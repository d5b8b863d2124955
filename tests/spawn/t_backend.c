/* SPDX-License-Identifier: MIT */
/*
 * Backend choice: SPAWNKIT_BACKEND=user|kernel|auto, -ENOSYS for a kernel
 * without the calls, and the library never issuing our syscall numbers
 * there once its probe said ENOSYS (checked with a seccomp filter that turns
 * them into EPERM: if the library issued one, the answer would not be
 * ENOSYS).
 */
#include <stddef.h>
#include <linux/audit.h>
#include "util.h"
#include "seccomp_filter.h"

static int filter_our_numbers(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 463, 0, 1),	/* past 6.12's table */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return INSTALL_SECCOMP_FILTER(f);
}

/* SPAWNKIT_BACKEND=user */
TEST(user_backend_when_forced)
{
	struct spawnkit_template *t;

	setenv("SPAWNKIT_BACKEND", "user", 1);
	CHECK_EQ(spawnkit_backend(), SPAWNKIT_BACKEND_USER);
	CHECK_EQ(spawnkit_template_create(probe_path(), 0, &t), 0);
	CHECK_EQ(spawnkit_template_backend(t), SPAWNKIT_BACKEND_USER);
	spawnkit_template_destroy(t);
}

/* SPAWNKIT_BACKEND=kernel: the kernel's calls, or ENOSYS without them */
TEST(kernel_backend_when_forced_or_enosys)
{
	int have = spawnkit_kernel_has_spawn_template();
	struct spawnkit_template *t;

	setenv("SPAWNKIT_BACKEND", "kernel", 1);
	if (have) {
		CHECK_EQ(spawnkit_backend(), SPAWNKIT_BACKEND_KERNEL);
		CHECK_EQ(spawnkit_template_create(probe_path(), 0, &t), 0);
		CHECK_EQ(spawnkit_template_backend(t), SPAWNKIT_BACKEND_KERNEL);
		spawnkit_template_destroy(t);
	} else {
		CHECK_ERR(spawnkit_backend(), ENOSYS);
		CHECK_ERR(spawnkit_template_create(probe_path(), 0, &t), ENOSYS);
	}
}

TEST(auto_or_unset_prefers_kernel)
{
	int have = spawnkit_kernel_has_spawn_template();

	setenv("SPAWNKIT_BACKEND", "auto", 1);
	CHECK_EQ(spawnkit_backend(), have ? SPAWNKIT_BACKEND_KERNEL : SPAWNKIT_BACKEND_USER);
	unsetenv("SPAWNKIT_BACKEND");
	CHECK_EQ(spawnkit_backend(), have ? SPAWNKIT_BACKEND_KERNEL : SPAWNKIT_BACKEND_USER);
}

TEST(unknown_backend_is_einval)
{
	struct spawnkit_template *t;

	setenv("SPAWNKIT_BACKEND", "warp-drive", 1);
	CHECK_ERR(spawnkit_backend(), EINVAL);
	CHECK_ERR(spawnkit_template_create(probe_path(), 0, &t), EINVAL);
	unsetenv("SPAWNKIT_BACKEND");
}

TEST(backend_names)
{
	CHECK(!strcmp(spawnkit_backend_name(SPAWNKIT_BACKEND_USER), "user"));
	CHECK(!strcmp(spawnkit_backend_name(SPAWNKIT_BACKEND_KERNEL), "kernel"));
	CHECK(!strcmp(spawnkit_backend_name(0), "unknown"));
}

/* where the probe found nothing, the raw calls issue nothing */
TEST(raw_calls_issue_nothing_where_the_probe_found_none)
{
	int have = spawnkit_kernel_has_spawn_template();

	if (have)
		SKIP("the kernel has the calls");
	if (!have) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			struct spawn_template_create_args ca;
			struct spawn_template_spawn_args sa;

			memset(&ca, 0, sizeof(ca));
			memset(&sa, 0, sizeof(sa));
			if (filter_our_numbers())
				_exit(10);
			/* the filter works: a number past the table is EPERM */
			if (syscall(472) != -1 || errno != EPERM)
				_exit(11);
			if (spawnkit_sys_spawn_template_create(&ca, sizeof(ca)) != -ENOSYS)
				_exit(12);
			if (spawnkit_sys_spawn_template_spawn(3, &sa, sizeof(sa)) != -ENOSYS)
				_exit(13);
			_exit(0);
		}
		CHECK_EQ(waitpid(pid, &status, 0), pid);
		CHECK(WIFEXITED(status));
		CHECK_EQ(WEXITSTATUS(status), 0);
	}
}

TEST_HARNESS_MAIN

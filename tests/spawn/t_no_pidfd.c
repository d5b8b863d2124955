/* SPDX-License-Identifier: MIT */
/*
 * No pidfds, no backend: where a seccomp filter makes clone3 and pidfd_open
 * fail (ENOSYS as before Linux 5.3, or EPERM as a sandbox policy), the user
 * backend cannot hand out a pidfd with each pid, so spawnkit_backend() says
 * -ENOSYS (the bindings then use their portable fallback) unless the kernel
 * backend is there (spawnkit_kernel_has_spawn_template(), the library's
 * probe of the calls).  SPAWNKIT_BACKEND=fallback says -ENOSYS on purpose.
 * A filter that refuses only clone3 with EPERM costs nothing: the user
 * backend starts the child with clone(CLONE_PIDFD) instead.
 */
#include <stddef.h>
#include <linux/audit.h>
#include "util.h"
#include "seccomp_filter.h"

/* clone3 and, if also_pidfd_open, pidfd_open fail with err from now on. */
static int deny(int err, int also_pidfd_open)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, also_pidfd_open ? 0 : 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned int)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return INSTALL_SECCOMP_FILTER(f);
}

/* Run fn in a forked child; CHECK that it exits 0. */
static void in_child(int (*fn)(int), int arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fn(arg));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

static int no_pidfds(int err)
{
	struct spawnkit_template *t;
	int have = spawnkit_kernel_has_spawn_template();

	if (deny(err, 1))
		return 10;
	if (syscall(SYS_pidfd_open, getpid(), 0) != -1 || errno != err)
		return 11;			/* the filter is not in force */
	unsetenv("SPAWNKIT_BACKEND");
	if (spawnkit_backend() != (have ? SPAWNKIT_BACKEND_KERNEL : -ENOSYS))
		return 12;
	setenv("SPAWNKIT_BACKEND", "user", 1);
	if (spawnkit_backend() != -ENOSYS)
		return 13;
	if (spawnkit_template_create(probe_path(), 0, &t) != -ENOSYS)
		return 14;
	setenv("SPAWNKIT_BACKEND", "fallback", 1);
	if (spawnkit_backend() != -ENOSYS)
		return 15;
	return 0;
}

static int clone3_refused(int err)
{
	struct spawnkit_template *t;
	struct spawn_template_action quiet;
	struct spawnkit_open devnull;
	char *argv[] = { "probe", NULL };
	int pidfd = -1;
	pid_t pid;

	if (deny(err, 0))
		return 20;
	if (syscall(SYS_clone3, NULL, 0) != -1 || errno != err)
		return 21;
	setenv("SPAWNKIT_BACKEND", "user", 1);
	if (spawnkit_backend() != SPAWNKIT_BACKEND_USER)
		return 22;
	if (spawnkit_template_create(probe_path(), 0, &t))
		return 23;
	/* the probe's report goes to /dev/null */
	spawnkit_action_open(&quiet, &devnull, AT_FDCWD, "/dev/null", O_WRONLY, 0, 1);
	pid = spawnkit_spawn(t, argv, environ, &quiet, 1, 0, &pidfd);
	if (pid <= 0 || pidfd < 0)
		return 24;
	if (wait_pidfd(pidfd) != 0)
		return 25;
	spawnkit_template_destroy(t);
	return 0;
}

/* SPAWNKIT_BACKEND=fallback: no backend, on purpose */
TEST(forced_fallback_is_enosys)
{
	setenv("SPAWNKIT_BACKEND", "fallback", 1);
	CHECK_ERR(spawnkit_backend(), ENOSYS);
	unsetenv("SPAWNKIT_BACKEND");
}

/* clone3 and pidfd_open refused: no user backend */
TEST(no_pidfds_enosys_leaves_no_user_backend)
{
	in_child(no_pidfds, ENOSYS);
}

TEST(no_pidfds_eperm_leaves_no_user_backend)
{
	in_child(no_pidfds, EPERM);
}

/* clone3 alone refused: clone(CLONE_PIDFD) starts the child instead */
TEST(clone3_eperm_falls_back_to_clone)
{
	in_child(clone3_refused, EPERM);
}

TEST(clone3_enosys_falls_back_to_clone)
{
	in_child(clone3_refused, ENOSYS);
}

TEST_HARNESS_MAIN

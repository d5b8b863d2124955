/* SPDX-License-Identifier: MIT */
/*
 * Bad pointers are still EFAULT, not a crash, where process_vm_readv and
 * process_vm_writev are unavailable (a kernel without CROSS_MEMORY_ATTACH,
 * or a seccomp filter): here a filter makes them fail with EPERM, and the
 * library falls back to probing pages with harmless system calls.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "util.h"

static int deny_vm_copy(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Runs in a child under the filter; returns the number of failed checks. */
static int under_filter(void)
{
	struct spawnkit_template *t;
	struct spawn_template_spawn_args a;
	struct spawn_template_action act;
	char *argv_q[] = { "probe", "--quiet", NULL };
	char iov[16];
	int bad = 0, pidfd;
	pid_t pid;
	char *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *unmapped = two + 4096;

	munmap(unmapped, 4096);
	if (deny_vm_copy())
		return 100;
	/* the filter is in force */
	if (syscall(SYS_process_vm_readv, getpid(), iov, 0, iov, 0, 0) != -1 || errno != EPERM)
		return 101;

	bad += spawnkit_template_create(unmapped, 0, &t) != -EFAULT;
	bad += spawnkit_template_create((const char *)8, 0, &t) != -EFAULT;
	/* a path that ends exactly at the unmapped page, without a NUL */
	memset(two, 'a', 4096);
	two[4000] = '/';
	bad += spawnkit_template_create(two + 4000, 0, &t) != -EFAULT;
	/* a good path that ends 1 byte before the unmapped page */
	strcpy(two + 4096 - 1 - strlen(probe_path()), probe_path());
	bad += spawnkit_template_create(two + 4096 - 1 - strlen(probe_path()),
					SPAWN_TEMPLATE_CREATE_CLOEXEC, &t) != 0;

	memset(&a, 0, sizeof(a));
	a.argv = (uintptr_t)argv_q;
	a.envp = (uintptr_t)environ;
	a.pidfd = (uintptr_t)unmapped;
	bad += spawnkit_spawn_args(t, &a, sizeof(a)) != -EFAULT;
	a.pidfd = (uintptr_t)&pidfd;
	a.actions = (uintptr_t)unmapped;
	a.actions_len = 1;
	bad += spawnkit_spawn_args(t, &a, sizeof(a)) != -EFAULT;
	bad += spawnkit_spawn_args(t, unmapped, sizeof(a)) != -EFAULT;
	/* a good spawn with an action still works, and returns its pidfd */
	spawnkit_action_dup2(&act, 2, 2, 0);
	pid = spawnkit_spawn(t, argv_q, environ, &act, 1, 0, &pidfd);
	bad += pid <= 0;
	if (pid > 0)
		bad += wait_pidfd(pidfd) != 0;
	spawnkit_template_destroy(t);
	return bad;
}

int main(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(under_filter());
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));	/* not killed by SIGSEGV */
	CHECK_EQ(WEXITSTATUS(status), 0);
	TEST_DONE();
}

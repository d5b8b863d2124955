/* SPDX-License-Identifier: MIT */
/*
 * deny_pidfd ENOSYS|EPERM [SYSCALLS] -- PROGRAM [ARG...]
 *
 * Run PROGRAM under a seccomp filter that makes clone3 and pidfd_open fail
 * with the given errno, as on a kernel older than 5.3 (ENOSYS) or inside a
 * sandbox whose policy refuses them (EPERM).  SYSCALLS narrows the set:
 * "clone3", "pidfd_open" or "clone3,pidfd_open" (the default).  The filter
 * is inherited by every process PROGRAM starts, so a whole test suite runs
 * without them.  Used by `make test-fallback` to check that the bindings
 * then report backend "fallback" and still work.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#else
#error "deny_pidfd: add this architecture's AUDIT_ARCH"
#endif

static int usage(void)
{
	fprintf(stderr, "usage: deny_pidfd ENOSYS|EPERM [clone3,pidfd_open] -- PROGRAM [ARG...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned int err, deny_clone3 = 1, deny_pidfd = 1;
	int i = 2;

	if (argc < 4)
		return usage();
	if (!strcmp(argv[1], "ENOSYS"))
		err = ENOSYS;
	else if (!strcmp(argv[1], "EPERM"))
		err = EPERM;
	else
		return usage();
	if (strcmp(argv[i], "--")) {
		deny_clone3 = strstr(argv[i], "clone3") != NULL;
		deny_pidfd = strstr(argv[i], "pidfd_open") != NULL;
		i++;
	}
	if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc)
		return usage();

	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, deny_clone3 ? SECCOMP_RET_ERRNO | err : SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, deny_pidfd ? SECCOMP_RET_ERRNO | err : SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("deny_pidfd: seccomp");
		return 1;
	}
	execvp(argv[i + 1], argv + i + 1);
	perror(argv[i + 1]);
	return 127;
}

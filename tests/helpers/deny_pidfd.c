/* SPDX-License-Identifier: MIT */
/*
 * deny_pidfd SPEC -- PROGRAM [ARG...]
 *
 * Run PROGRAM under a seccomp filter that makes clone3 and pidfd_open fail,
 * as on a kernel older than 5.3 (ENOSYS) or inside a sandbox whose policy
 * refuses them (EPERM).  SPEC is ENOSYS or EPERM for both calls, or a list
 * naming each: "clone3=ENOSYS,pidfd_open=EPERM" (a call not named is
 * allowed).  The filter is inherited by everything PROGRAM starts, so a
 * whole test suite runs without them.  `make test-fallback` uses it to check
 * that the bindings then report backend "fallback" and still work.
 *
 * Note: glibc (2.34+) creates threads with clone3 and falls back to clone
 * only on ENOSYS, so under clone3=EPERM no program can start a thread
 * (Node.js cannot start at all); real sandboxes answer ENOSYS for clone3.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include "../seccomp_filter.h"

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
	fprintf(stderr, "usage: deny_pidfd ENOSYS|EPERM|clone3=E,pidfd_open=E -- PROGRAM [ARG...]\n");
	return 2;
}

/* The errno that SPEC gives call `name` (0: allowed), or -1 if SPEC is bad. */
static int errno_for(const char *spec, const char *name)
{
	char key[32];
	const char *p;
	size_t n = strlen(name);

	if (!strcmp(spec, "ENOSYS"))
		return ENOSYS;
	if (!strcmp(spec, "EPERM"))
		return EPERM;
	snprintf(key, sizeof(key), "%s=", name);
	p = strstr(spec, key);
	if (!p)
		return 0;
	p += n + 1;
	if (!strncmp(p, "ENOSYS", 6) && (p[6] == ',' || !p[6]))
		return ENOSYS;
	if (!strncmp(p, "EPERM", 5) && (p[5] == ',' || !p[5]))
		return EPERM;
	return -1;
}

static unsigned int action(int err)
{
	return err ? SECCOMP_RET_ERRNO | (unsigned int)err : SECCOMP_RET_ALLOW;
}

int main(int argc, char **argv)
{
	int e_clone3, e_pidfd;

	if (argc < 4 || strcmp(argv[2], "--"))
		return usage();
	e_clone3 = errno_for(argv[1], "clone3");
	e_pidfd = errno_for(argv[1], "pidfd_open");
	if (e_clone3 < 0 || e_pidfd < 0 || (!e_clone3 && !e_pidfd))
		return usage();

	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action(e_clone3)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action(e_pidfd)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	if (INSTALL_SECCOMP_FILTER(f)) {
		perror("deny_pidfd: seccomp");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}

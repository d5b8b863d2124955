/* SPDX-License-Identifier: MIT */
/*
 * seccomp_filter.h - install a seccomp filter, as the tests that take
 * system calls away do (a kernel without pidfds, without process_vm_*, or
 * without our numbers): no_new_privs first, so no privilege is needed.
 */
#ifndef SPAWNKIT_TEST_SECCOMP_FILTER_H
#define SPAWNKIT_TEST_SECCOMP_FILTER_H

#include <stddef.h>
#include <sys/prctl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* Filter every later system call of this thread (and the children it
 * starts) through f[0..n); 0, or -1 with errno. */
static inline int install_seccomp_filter(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog prog = { n, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

#define INSTALL_SECCOMP_FILTER(f) install_seccomp_filter((f), sizeof(f) / sizeof((f)[0]))

#endif

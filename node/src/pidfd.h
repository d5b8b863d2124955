/* SPDX-License-Identifier: MIT */
/*
 * pidfd.h - the pidfd system calls the addon uses, by number: glibc 2.36
 * (Debian 12) has no wrappers for all of them, and older headers lack the
 * numbers.  Each returns what the system call returns (-1 and errno).
 */
#ifndef SPAWNKIT_NODE_PIDFD_H
#define SPAWNKIT_NODE_PIDFD_H

#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static inline int sk_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static inline int sk_pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * pidfd_exit.h - does the kernel keep a reaped child's exit status on its
 * pidfd (PIDFD_INFO_EXIT, Linux 6.15)?  Tests of a status another waiter
 * takes expect the real one where it does, and "lost" elsewhere.
 */
#ifndef SPAWNKIT_TEST_PIDFD_EXIT_H
#define SPAWNKIT_TEST_PIDFD_EXIT_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* Forks a child, so ask before anything in the test reaps children. */
static inline int kernel_keeps_status(void)
{
	struct { uint64_t mask, cg; uint32_t ids[11]; int32_t code; } info;
	pid_t pid = fork();
	int fd, keeps;

	if (pid == 0)
		_exit(3);
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	waitpid(pid, NULL, 0);
	memset(&info, 0, sizeof(info));
	info.mask = 1ULL << 3;
	keeps = fd >= 0 && ioctl(fd, _IOWR(0xFF, 11, info), &info) == 0 &&
		(info.mask & (1ULL << 3)) && info.code == 3 << 8;
	if (fd >= 0)
		close(fd);
	return keeps;
}

#endif

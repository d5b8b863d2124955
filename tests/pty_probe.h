/* SPDX-License-Identifier: MIT */
/*
 * pty_probe.h - why no pty can be made here, or NULL if one can.  The
 * only reasons taken: /dev/ptmx is absent, or it is there (devtmpfs makes
 * it) but no devpts is mounted to make ptys on (ENOENT/ENODEV from its
 * open, as in a QEMU guest without devpts).  Any other failure is not a
 * reason to skip: the test goes on and fails.  take_terminal() gives the
 * calling process a new session with a new pty as its controlling
 * terminal, as a login would.
 */
#ifndef SPAWNKIT_TEST_PTY_PROBE_H
#define SPAWNKIT_TEST_PTY_PROBE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>

static inline const char *no_pty_reason(void)
{
	int fd;

	if (access("/dev/ptmx", F_OK))
		return "no /dev/ptmx";
	fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	if (errno == ENOENT || errno == ENODEV)
		return "/dev/ptmx but no devpts mounted (no ptys)";
	return NULL;
}

/* A new session whose controlling terminal is a new pty, its slave's name
 * in name.  0, or the step that failed: 1 setsid, 2 the pty, 3 TIOCSCTTY. */
static inline int take_terminal(char *name, size_t len)
{
	int m, s;

	if (setsid() < 0)
		return 1;
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return 2;
	snprintf(name, len, "%s", ptsname(m));
	s = open(name, O_RDWR);
	if (s < 0 || ioctl(s, TIOCSCTTY, 0))
		return 3;
	return 0;
}

#endif

/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <termios.h>
#include <sys/ioctl.h>

#include "common/sys.h"
#include "run/pty.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* fd moved to 3 or above (O_CLOEXEC), so the stdio dup2s never read a
 * number an earlier one of them replaced; -errno with fd closed. */
static int above_stdio(int fd)
{
	int n;

	if (fd >= 3)
		return fd;
	n = (int)sk_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
	sk_syscall1(SYS_close, fd);
	return n;
}

/* The slave of master: TIOCGPTPEER (4.13+, no path lookup), else by its
 * /dev/pts name. */
static int open_slave(int master)
{
	char path[32];
	unsigned int n;
	long fd;

	fd = sk_syscall3(SYS_ioctl, master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd != -EINVAL && fd != -ENOTTY)
		return (int)fd;
	fd = sk_syscall3(SYS_ioctl, master, TIOCGPTN, &n);
	if (fd < 0)
		return (int)fd;
	snprintf(path, sizeof(path), "/dev/pts/%u", n);
	return (int)sk_syscall4(SYS_openat, AT_FDCWD, path, O_RDWR | O_NOCTTY | O_CLOEXEC, 0);
}

int sk_pty_open(unsigned short rows, unsigned short cols, int *master, int *slave)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };
	int unlock = 0, m, s;
	long ret;

	m = (int)sk_syscall4(SYS_openat, AT_FDCWD, "/dev/ptmx",
			     O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, 0);
	if (m < 0)
		return m;
	m = above_stdio(m);
	if (m < 0)
		return m;
	ret = sk_syscall3(SYS_ioctl, m, TIOCSPTLCK, &unlock);
	s = ret ? (int)ret : open_slave(m);
	if (s >= 0)
		s = above_stdio(s);
	if (s >= 0) {
		ret = sk_syscall3(SYS_ioctl, s, TIOCSWINSZ, &ws);
		if (ret) {
			sk_syscall1(SYS_close, s);
			s = (int)ret;
		}
	}
	if (s < 0) {
		sk_syscall1(SYS_close, m);
		return s;
	}
	*master = m;
	*slave = s;
	return 0;
}

int sk_pty_eof(int master, int ends_line, char seq[2])
{
	struct termios t;
	int n = 0;

	if (tcgetattr(master, &t))
		return -errno;
	if (t.c_cc[VEOF] == _POSIX_VDISABLE)
		return 0;
	seq[n++] = (char)t.c_cc[VEOF];
	if ((t.c_lflag & ICANON) && !ends_line)
		seq[n++] = (char)t.c_cc[VEOF];
	return n;
}

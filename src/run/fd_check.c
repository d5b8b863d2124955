/* SPDX-License-Identifier: MIT */
#include <fcntl.h>

#include "common/sys.h"
#include "run/fd_check.h"

int sk_fd_check(int fd, int mode, struct stat *st)
{
	long fl;

	if (fd < 0 || sk_syscall2(SYS_fstat, fd, st))
		return 0;
	if (mode < 0)
		return 1;
	fl = sk_syscall2(SYS_fcntl, fd, F_GETFL);
	return fl >= 0 && (fl & O_ACCMODE) == mode;
}

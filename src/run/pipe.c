/* SPDX-License-Identifier: MIT */
#include <fcntl.h>

#include "common/sys.h"
#include "run/pipe.h"

/* The stdio actions then never read a number an earlier one of them
 * replaced. */
int sk_dup_high(int fd)
{
	return (int)sk_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
}

/*
 * Ours is nonblocking when we write it (stdin: a write must not wait for
 * room); a read end stays blocking, as the pump reads it only once poll
 * said it is readable, and only we read it, so that read never waits
 * (one fcntl less per output stream).
 */
int sk_run_pipe(int p[2], int nonblock_write)
{
	int i, ret = (int)sk_syscall2(SYS_pipe2, p, O_CLOEXEC);

	if (ret)
		return ret;
	for (i = 0; i < 2; i++)
		if (p[i] < 3) {
			int n = sk_dup_high(p[i]);

			sk_syscall1(SYS_close, p[i]);
			p[i] = n;
		}
	if (p[0] < 0 || p[1] < 0) {
		ret = p[0] < 0 ? p[0] : p[1];
		sk_syscall1(SYS_close, p[0] < 0 ? p[1] : p[0]);
		return ret;
	}
	if (nonblock_write)
		sk_syscall3(SYS_fcntl, p[1], F_SETFL, O_NONBLOCK);
	return 0;
}

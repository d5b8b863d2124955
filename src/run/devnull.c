/* SPDX-License-Identifier: MIT */
/*
 * devnull.c - a run's /dev/null, kept open by the library.
 *
 * A child that opens /dev/null itself spends ~3 us of its start on the
 * path walk and the device's open (openat2 + dup3 + close, on a 6.18 VM),
 * and every microsecond of the child's start is on the run's critical
 * path: the caller waits for the exec.  A dup3 of an fd the parent holds
 * costs 0.25 us.  So the first run that wants a /dev/null stream opens
 * one per direction (O_RDONLY for stdin, O_WRONLY for stdout/stderr, the
 * modes the child's own open used) and keeps it, close-on-exec, above 2,
 * as Python's spawn() keeps one (python/spawnkit/_process.py).
 *
 * The caller may close any fd, ours too (a daemon's closerange), and may
 * get the number back for a file of its own.  So each use checks, with an
 * fstat and an F_GETFL (0.6 us), that the fd is still the null device
 * (character device 1:3) open in the right mode; if not, the number is
 * the caller's now, is left alone, and a new /dev/null is opened.  Only a
 * caller that closes our fd in one thread while another runs can still
 * hand the child a file of its own: closing fds one does not own, while
 * other threads run, is a bug for every library that keeps one.
 * A /dev/null that is not the null device (an odd chroot) is not kept:
 * the child opens it per run, as it always did.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/sys.h"
#include "run/devnull.h"

#define NONE (-1)		/* not opened yet, or lost to the caller */
#define UNUSABLE (-2)		/* /dev/null is no null device: never kept */

static int kept[2] = { NONE, NONE };

static int is_null(int fd, int mode)
{
	struct stat st;
	long fl;

	if (sk_syscall2(SYS_fstat, fd, &st) || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != makedev(1, 3))
		return 0;
	fl = sk_syscall2(SYS_fcntl, fd, F_GETFL);
	return fl >= 0 && (fl & O_ACCMODE) == mode;
}

/* A new /dev/null above 2, or -1 (the verdict UNUSABLE stored if the
 * file is there but no null device). */
static int open_null(int *slot, int mode)
{
	long fd = sk_syscall4(SYS_openat, AT_FDCWD, "/dev/null", mode | O_CLOEXEC, 0);

	if (fd >= 0 && fd < 3) {
		long high = sk_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);

		sk_syscall1(SYS_close, fd);
		fd = high;
	}
	if (fd < 0)
		return -1;
	if (!is_null((int)fd, mode)) {
		sk_syscall1(SYS_close, fd);
		__atomic_store_n(slot, UNUSABLE, __ATOMIC_RELAXED);
		return -1;
	}
	return (int)fd;
}

int sk_devnull_fd(int out)
{
	int *slot = &kept[out ? 1 : 0];
	int mode = out ? O_WRONLY : O_RDONLY;
	int fd = __atomic_load_n(slot, __ATOMIC_ACQUIRE), nfd;

	if (fd == UNUSABLE)
		return -1;
	if (fd >= 0 && is_null(fd, mode))
		return fd;
	nfd = open_null(slot, mode);
	if (nfd < 0)
		return -1;
	/* another thread may have put one there first: keep theirs */
	if (__atomic_compare_exchange_n(slot, &fd, nfd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return nfd;
	sk_syscall1(SYS_close, nfd);
	return fd >= 0 ? fd : -1;
}

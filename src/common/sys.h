/* SPDX-License-Identifier: MIT */
/*
 * sys.h - raw system calls that return -errno and never touch errno.
 *
 * The library's convention (as liburing) is to leave errno alone, and the
 * vfork-style child must not write the parent thread's errno either, so every
 * system call spawnkit makes goes through sk_syscall*.  On x86_64 this is the
 * syscall instruction itself; elsewhere glibc's syscall(2) with errno saved
 * and restored (not for the child: the child code is x86_64-only for now).
 */
#ifndef SPAWNKIT_SYS_H
#define SPAWNKIT_SYS_H

#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
static inline long sk_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile ("syscall"
			  : "=a"(ret)
			  : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			  : "rcx", "r11", "memory");
	return ret;
}
#else
static inline long sk_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	int saved = errno;
	long ret = syscall(n, a, b, c, d, e, f);

	if (ret == -1) {
		ret = -errno;
	}
	errno = saved;
	return ret;
}
#endif

#define sk_syscall0(n)			sk_syscall6((n), 0, 0, 0, 0, 0, 0)
#define sk_syscall1(n, a)		sk_syscall6((n), (long)(a), 0, 0, 0, 0, 0)
#define sk_syscall2(n, a, b)		sk_syscall6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define sk_syscall3(n, a, b, c)		sk_syscall6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sk_syscall4(n, a, b, c, d)	sk_syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sk_syscall5(n, a, b, c, d, e)	sk_syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

/* Numbers older libc headers may lack. */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

/* pidfd_open() on ourselves, closed at once: 0 where it works here, or
 * its -errno (ENOSYS before 5.3; EPERM or ENOSYS under a seccomp filter). */
static inline long sk_pidfd_open_probe(void)
{
	long fd = sk_syscall2(SYS_pidfd_open, sk_syscall0(SYS_getpid), 0);

	if (fd < 0)
		return fd;
	sk_syscall1(SYS_close, fd);
	return 0;
}

/* Mark a public function: exported from libspawnkit.so (and listed in
 * src/libspawnkit.map).  Everything else is hidden (-fvisibility=hidden). */
#define SK_EXPORT __attribute__((visibility("default")))

#endif /* SPAWNKIT_SYS_H */

/* SPDX-License-Identifier: MIT */
/*
 * breakdown.c - where the user backend's time per spawn goes, outside exec.
 *
 * bench_spawn gives the end-to-end figures; this times, in a tight loop and
 * without starting anything, each group of system calls that the user
 * backend (src/spawn) makes per spawn on top of a bare
 * clone(CLONE_VM|CLONE_VFORK) + execveat, so that a gap between "template"
 * and "clone+execveat" can be put down to file:function.  The groups copy
 * the library's calls (same syscalls, same arguments) and must be kept in
 * step with it; each line names the function it mirrors.
 *
 * Usage: breakdown PATH [iterations]   (PATH: the target the bench execs)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <linux/capability.h>
#include <linux/close_range.h>

#include "common/sys.h"

static const char *path;
static int pinned;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* creds.c: sk_creds_unchanged() -> read_ids() + getgroups x2 */
static void creds_check(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	unsigned int a, b, c;
	gid_t g[32];
	long n;

	sk_syscall3(SYS_getresuid, &a, &b, &c);
	sk_syscall3(SYS_getresgid, &a, &b, &c);
	sk_syscall1(SYS_setfsuid, -1);
	sk_syscall1(SYS_setfsgid, -1);
	sk_syscall2(SYS_capget, &hdr, data);
	n = sk_syscall2(SYS_getgroups, 0, NULL);
	if (n >= 0 && n <= 32)
		sk_syscall2(SYS_getgroups, n, g);
}

/* user_backend.c: check_identity() -> identity.c: sk_identity_of_path() */
static void identity_check(void)
{
	struct stat st;

	sk_syscall4(SYS_newfstatat, AT_FDCWD, path, &st, 0);
}

/* user_backend.c: user_spawn(): block all signals around the clone */
static void sigmask_pair(void)
{
	uint64_t all = ~0ULL, old;

	sk_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
	sk_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, 8);
}

/* child.c: reset_handlers(): one rt_sigaction query per signal (1..64) */
static void handler_queries(void)
{
	struct { void *h; unsigned long f; void *r; uint64_t m; } old;
	int sig;

	for (sig = 1; sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		sk_syscall4(SYS_rt_sigaction, sig, 0, &old, 8);
	}
}

/* child.c: sk_child_main(): close_span_keep(3, ~0U) around the exec fd
 * (two close_range calls when the pinned fd is above 3), then the mask */
static void child_fd_close(void)
{
	uint64_t m = 0;

	/* nothing above the pinned fd is open here, as in a small parent */
	sk_syscall3(SYS_close_range, pinned + 1, ~0U, 0);
	sk_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, &m, 0, 8);
}

/* api.c: spawnkit_spawn() with pidfd == NULL: CLONE_PIDFD's fd, closed;
 * priced here as pidfd_open + close of our own pid */
static void pidfd_cost(void)
{
	long fd = sk_syscall2(SYS_pidfd_open, getpid(), 0);

	if (fd >= 0)
		sk_syscall1(SYS_close, fd);
}

/* user_backend.c:user_spawn(): sk_copy_out(args->pidfd) probe ->
 * ucopy.c:vm_copy(): getpid + process_vm_writev of 4 bytes */
static void pidfd_probe(void)
{
	static int target;
	int v = -1;
	struct iovec l = { .iov_base = &v, .iov_len = sizeof(v) };
	struct iovec r = { .iov_base = &target, .iov_len = sizeof(target) };
	long pid = sk_syscall0(SYS_getpid);

	sk_syscall6(SYS_process_vm_writev, pid, (long)&l, 1, (long)&r, 1, 0);
}

/* a baseline: the cheapest system call */
static void one_getppid(void)
{
	sk_syscall0(SYS_getppid);
}

static const struct {
	const char *what;
	void (*fn)(void);
} groups[] = {
	{ "1 getppid (syscall floor)", one_getppid },
	{ "creds.c:sk_creds_unchanged (7 syscalls)", creds_check },
	{ "user_backend.c:check_identity (newfstatat of the path)", identity_check },
	{ "user_backend.c:user_spawn sigprocmask x2", sigmask_pair },
	{ "user_backend.c:user_spawn sk_copy_out pidfd probe (2 sc)", pidfd_probe },
	{ "child.c:reset_handlers (62 rt_sigaction)", handler_queries },
	{ "child.c:sk_child_main close_range + sigprocmask", child_fd_close },
	{ "api.c/clone3 CLONE_PIDFD fd + close (as pidfd_open+close)", pidfd_cost },
};

int main(int argc, char **argv)
{
	int iters = argc > 2 ? atoi(argv[2]) : 20000, g, i, r;

	if (argc < 2 || argv[1][0] != '/' || iters <= 0) {
		fprintf(stderr, "usage: breakdown ABSOLUTE-PATH [iterations]\n");
		return 2;
	}
	path = argv[1];
	pinned = open(path, O_PATH | O_CLOEXEC);
	if (pinned < 0) {
		perror(path);
		return 1;
	}
	printf("%-58s %10s\n", "per spawn, user backend, on top of clone+execveat", "us (min of 5)");
	for (g = 0; g < (int)(sizeof(groups) / sizeof(groups[0])); g++) {
		double best = 1e30;

		for (r = 0; r < 5; r++) {
			double t0 = now_ns();

			for (i = 0; i < iters; i++)
				groups[g].fn();
			t0 = (now_ns() - t0) / iters;
			if (t0 < best)
				best = t0;
		}
		printf("%-58s %10.2f\n", groups[g].what, best / 1e3);
	}
	close(pinned);
	return 0;
}

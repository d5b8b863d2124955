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
 * Part two, the ladder, starts the target for real (spawn + wait, exit
 * status checked), interleaved: a bare clone(CLONE_VM|CLONE_VFORK) +
 * execveat, then the same with one of the user backend's child-side steps
 * added, then all of them, then spawnkit_spawn itself; and, for parents with
 * many fds, the child taking a private copy of only fds 0..2 (CLONE_FILES +
 * close_range(CLOSE_RANGE_UNSHARE)) instead of copying the whole table at
 * clone and closing it.  The parent is given FDS open fds first.
 *
 * Usage: breakdown PATH [iterations [ladder-iterations [FDS]]]
 *        (PATH: the target the bench execs, exiting with argv[1])
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

#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <spawnkit/spawnkit.h>
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

/* ---- part two: the ladder ---- */

enum { L_SIGACTION = 1, L_CLOSE_RANGE = 2, L_PIDFD = 4, L_UNSHARE = 8, L_TEMPLATE = 16 };

static const struct {
	const char *what;
	int steps;
} rungs[] = {
	{ "clone+execveat, bare", 0 },
	{ "+ 62 rt_sigaction in the child (reset_handlers)", L_SIGACTION },
	{ "+ close_range(3.., ~0) in the child", L_CLOSE_RANGE },
	{ "+ CLONE_PIDFD, pidfd closed", L_PIDFD },
	{ "+ all three (the user backend's child side)", L_SIGACTION | L_CLOSE_RANGE | L_PIDFD },
	{ "CLONE_FILES + close_range(UNSHARE) in the child", L_UNSHARE },
	{ "spawnkit_spawn, user backend, default flags", L_TEMPLATE },
};
#define NR_RUNGS ((int)(sizeof(rungs) / sizeof(rungs[0])))

static char ladder_stack[64 * 1024] __attribute__((aligned(16)));
static char *ladder_argv[3], *ladder_envp[] = { "PATH=/usr/bin:/bin", NULL };
static int ladder_steps;

static int ladder_child(void *arg)
{
	struct { void *h; unsigned long f; void *r; uint64_t m; } old;
	int sig;

	if (ladder_steps & L_SIGACTION)
		for (sig = 1; sig <= 64; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				sk_syscall4(SYS_rt_sigaction, sig, 0, &old, 8);
	if (ladder_steps & L_CLOSE_RANGE)
		sk_syscall3(SYS_close_range, pinned + 1, ~0U, 0);
	if (ladder_steps & L_UNSHARE)
		sk_syscall3(SYS_close_range, pinned + 1, ~0U, CLOSE_RANGE_UNSHARE);
	sk_syscall5(SYS_execveat, pinned, "", ladder_argv, ladder_envp, AT_EMPTY_PATH);
	sk_syscall1(SYS_exit, 127);
	return 127;
}

static double ladder_once(int steps, struct spawnkit_template *t)
{
	double t0 = now_ns();
	int pidfd = -1, status;
	pid_t pid;

	ladder_steps = steps;
	if (steps & L_TEMPLATE)
		pid = spawnkit_spawn(t, ladder_argv, ladder_envp, NULL, 0, 0, NULL);
	else
		pid = clone(ladder_child, ladder_stack + sizeof(ladder_stack),
			    CLONE_VM | CLONE_VFORK | SIGCHLD |
			    (steps & L_PIDFD ? CLONE_PIDFD : 0) |
			    (steps & L_UNSHARE ? CLONE_FILES : 0), NULL, &pidfd);
	if (pidfd >= 0)
		close(pidfd);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 42) {
		fprintf(stderr, "breakdown: start failed (steps %#x, pid %d)\n", steps, (int)pid);
		exit(1);
	}
	return (now_ns() - t0) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void ladder(int n, int nfds)
{
	struct spawnkit_template *t;
	static double *v[NR_RUNGS];
	int i, k, ret, devnull;

	setenv("SPAWNKIT_BACKEND", "user", 1);
	ret = spawnkit_template_create(path, 0, &t);
	if (ret < 0) {
		fprintf(stderr, "breakdown: template: %s\n", strerror(-ret));
		exit(1);
	}
	if (nfds > 0) {
		struct rlimit rl = { (rlim_t)nfds + 64, (rlim_t)nfds + 64 };

		setrlimit(RLIMIT_NOFILE, &rl);	/* may fail: then dup says so */
		devnull = open("/dev/null", O_RDWR);
		for (i = 0; i < nfds; i++)
			if (dup(devnull) < 0) {
				perror("breakdown: dup");
				exit(1);
			}
	}
	ladder_argv[0] = (char *)path;
	ladder_argv[1] = "42";
	for (k = 0; k < NR_RUNGS; k++)
		v[k] = malloc(n * sizeof(double));
	for (i = 0; i < n; i++)
		for (k = 0; k < NR_RUNGS; k++) {
			int r = (i + k) % NR_RUNGS;	/* rotated order */

			v[r][i] = ladder_once(rungs[r].steps, t);
		}
	printf("\nladder: %d interleaved starts each, %d extra open fds; us per start\n", n, nfds);
	printf("%-52s %8s %8s %8s %8s\n", "", "min", "p25", "median", "-bare");
	for (k = 0; k < NR_RUNGS; k++)
		qsort(v[k], n, sizeof(double), cmp_double);
	for (k = 0; k < NR_RUNGS; k++) {
		printf("%-52s %8.1f %8.1f %8.1f %+8.1f\n", rungs[k].what, v[k][0], v[k][n / 4],
		       v[k][n / 2], v[k][n / 2] - v[0][n / 2]);
		free(v[k]);
	}
	spawnkit_template_destroy(t);
}

int main(int argc, char **argv)
{
	int iters = argc > 2 ? atoi(argv[2]) : 20000, g, i, r;
	int lad = argc > 3 ? atoi(argv[3]) : 300, nfds = argc > 4 ? atoi(argv[4]) : 0;

	if (argc < 2 || argv[1][0] != '/' || iters <= 0 || lad < 0 || nfds < 0) {
		fprintf(stderr, "usage: breakdown ABSOLUTE-PATH [iterations [ladder-iterations [FDS]]]\n");
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
	if (lad)
		ladder(lad, nfds);
	close(pinned);
	return 0;
}

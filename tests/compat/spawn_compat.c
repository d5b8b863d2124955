/* SPDX-License-Identifier: MIT */
/*
 * spawn_template_create(2) and spawn_template_spawn(2) called from 32-bit
 * user space, by their numbers for this ABI (review finding #11).
 *
 * kernel/scripts/run-guest.sh builds this file twice, as a static i386
 * program (-m32) and a static x32 program (-mx32), against the patched
 * kernel's uapi headers: __NR_spawn_template_* come from this ABI's
 * <asm/unistd.h> (unistd_32.h, unistd_x32.h), and NR_BATCH_X86_64 from
 * unistd_64.h.  A compiler that cannot link an ABI gets a printed reason
 * and no program; the guest init starts each program through abi_exec,
 * which turns a kernel without that ABI into a skip.  On the patched
 * kernel ENOSYS is a failure: the wire-up patch gives both ABIs the calls.
 *
 * What a 32-bit caller changes: argv and envp are arrays of 4-byte
 * pointers (the i386 table's compat_sys_spawn_template_spawn; x32 comes
 * through the native entry and in_compat_syscall()).  Every other
 * argument is a struct of u64 fields, read whole: a flag or a pointer bit
 * above bit 31 must not be dropped.  batch() is wired on x86_64 only, so
 * this ABI's number for it is ENOSYS.
 *
 * The program is also the child it spawns: started with argv[0]
 * "spawn-compat-child" it runs one command (child_main()) and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <asm/unistd.h>
#include <linux/batch.h>
#include <linux/openat2.h>
#include <linux/spawn_template.h>
#include "harness.h"

#if defined(__i386__)
#define ABI "i386"
#elif defined(__x86_64__) && defined(__ILP32__)
#define ABI "x32"
#elif defined(__x86_64__)
#define ABI "x86_64"
#define NATIVE 1	/* the reference run: the same cases from 64 bits */
#else
#error "spawn_compat.c is built with -m32, -mx32 or -m64 only"
#endif

#ifndef __NR_spawn_template_spawn
#error "no __NR_spawn_template_spawn: build against the patched kernel's uapi headers"
#endif
#ifndef NR_BATCH_X86_64
#error "NR_BATCH_X86_64 (batch's x86_64 number, from unistd_64.h) not given"
#endif

/* The ABI the kernel reads: the same bytes from every caller. */
_Static_assert(sizeof(struct spawn_template_create_args) ==
	       SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0, "create args: 24 bytes");
_Static_assert(sizeof(struct spawn_template_spawn_args) ==
	       SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0, "spawn args: 48 bytes");
_Static_assert(sizeof(struct spawn_template_action) == 24, "action: 24 bytes");
_Static_assert(sizeof(struct spawn_template_open) == 24, "open: 24 bytes");
_Static_assert(sizeof(struct spawn_template_sigset) == 16, "sigset: 16 bytes");
_Static_assert(sizeof(struct spawn_template_rlimit) == 16, "rlimit: 16 bytes");

typedef unsigned long long u64;

#define CHILD "spawn-compat-child"
#define U(p) ((u64)(uintptr_t)(p))
/*
 * A pointer bit that names no mapping of this process: for a 32-bit caller
 * bit 32, which a kernel cutting the u64 field to 32 bits would drop (and
 * reach the caller's real variable); for the 64-bit reference bit 63.
 */
#define HIGH_BIT (sizeof(void *) == 4 ? 1ULL << 32 : 1ULL << 63)
#define HIGH_FLAG (1ULL << 40)	/* a flag bit in the upper half */
/* x86's O_LARGEFILE as the kernel reports it (x32's glibc defines it 0) */
#define KERNEL_O_LARGEFILE 0100000

#ifdef __x86_64__
/*
 * x32: glibc's syscall() takes 32-bit longs, whose upper register halves
 * the ABI leaves undefined; the kernel reads 64-bit registers.  The same
 * code serves x86_64.
 */
static long sc(long nr, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	register u64 r10 __asm__("r10") = a4;
	register u64 r8 __asm__("r8") = a5;
	u64 ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((u64)(unsigned long)nr), "D"(a1), "S"(a2), "d"(a3),
			   "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	if (ret > -4096ULL) {
		errno = (int)-(long long)ret;
		return -1;
	}
	return (long)ret;
}
#else
/* i386: 32-bit registers (64-bit values go only in the structs) */
static long sc(long nr, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	return syscall(nr, (unsigned long)a1, (unsigned long)a2, (unsigned long)a3,
		       (unsigned long)a4, (unsigned long)a5);
}
#endif

static char self_exe[PATH_MAX];	/* this program: the child it spawns */

static int create_args(const void *args, size_t size)
{
	int r = sc(__NR_spawn_template_create, U(args), size, 0, 0, 0);

	return r < 0 ? -errno : r;
}

static int create_path(const char *path)
{
	struct spawn_template_create_args a = {
		.filename = U(path), .execfd = -1,
	};

	return create_args(&a, sizeof(a));
}

static int spawn_args(int tfd, const void *args, size_t size)
{
	int r = sc(__NR_spawn_template_spawn, (unsigned int)tfd, U(args), size, 0, 0);

	return r < 0 ? -errno : r;
}

static int spawn(int tfd, const char *const *argv, const char *const *envp,
		 const struct spawn_template_action *acts, unsigned int n, u64 flags,
		 int *pidfd)
{
	struct spawn_template_spawn_args a = {
		.flags = flags, .pidfd = U(pidfd), .argv = U(argv), .envp = U(envp),
		.actions = U(acts), .actions_len = n,
	};

	return spawn_args(tfd, &a, sizeof(a));
}

/* The exit status of pid (-1 if it did not exit normally). */
static int exit_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* No child of this process is left (none made, or every one reaped). */
static int no_child_left(void)
{
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

static int cloexec(int fd)
{
	int f = fcntl(fd, F_GETFD);

	return f < 0 ? -1 : !!(f & FD_CLOEXEC);
}

/* A page no access reaches: EFAULT for anything pointed into it. */
static void *bad_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct run {
	int pidfd;
	int status;		/* exit status, -1 if killed */
	char out[8192];		/* what the child wrote to fd 1 */
};

/*
 * Spawn with the given actions plus a DUP2 of a pipe onto fd 1; collect
 * what the child writes there and its exit status.  Returns the spawn's
 * result: the pid, or -errno.
 */
static int run_capture(int tfd, const char *const *argv, const char *const *envp,
		       const struct spawn_template_action *acts, unsigned int n,
		       u64 flags, struct run *r)
{
	struct spawn_template_action all[8];
	size_t len = 0;
	ssize_t got;
	int p[2], pid;

	memset(r, 0, sizeof(*r));
	r->pidfd = -2;
	r->status = -3;
	if (n >= 8 || pipe2(p, O_CLOEXEC))
		return -EINVAL;
	memcpy(all, acts, n * sizeof(*acts));
	all[n] = (struct spawn_template_action){
		.type = SPAWN_TEMPLATE_ACTION_DUP2, .fd = p[1], .newfd = 1,
	};
	pid = spawn(tfd, argv, envp, all, n + 1, flags, &r->pidfd);
	close(p[1]);
	if (pid > 0) {
		while (len < sizeof(r->out) - 1 &&
		       (got = read(p[0], r->out + len, sizeof(r->out) - 1 - len)) > 0)
			len += got;
		r->status = exit_status(pid);
		if (r->pidfd >= 0)
			close(r->pidfd);
	}
	close(p[0]);
	return pid;
}

/* ---- the child ---------------------------------------------------------- */

/* Started as CHILD: argv[1] is the command.  Reports go to fd 1. */
static int child_main(int argc, char **argv)
{
	extern char **environ;
	const char *cmd = argv[1];

	if (!strcmp(cmd, "exit") && argc > 2)
		return atoi(argv[2]);
	if (!strcmp(cmd, "args")) {
		int n = 0;

		printf("argc=%d\n", argc);
		for (int i = 0; i < argc; i++)
			printf("[%s]\n", argv[i]);
		while (environ && environ[n])
			n++;
		printf("env=%d\n", n);
		for (int i = 0; i < n; i++)
			printf("[%s]\n", environ[i]);
		return fflush(stdout) ? 2 : 0;
	}
	if (!strcmp(cmd, "fd") && argc > 2)
		return fcntl(atoi(argv[2]), F_GETFD) < 0 ? 3 : 0;
	if (!strcmp(cmd, "write5") && argc > 2) {
		char buf[256];
		int fl = fcntl(5, F_GETFL);
		int len = snprintf(buf, sizeof(buf), "%s\nflags=%o\n", argv[2], fl);

		return fl < 0 || write(5, buf, len) != len ? 3 : 0;
	}
	if (!strcmp(cmd, "pwd")) {
		char buf[PATH_MAX];

		if (!getcwd(buf, sizeof(buf)))
			return 3;
		printf("%s\n", buf);
		return fflush(stdout) ? 2 : 0;
	}
	if (!strcmp(cmd, "status") && argc > 2) {
		char line[256];
		size_t n = strlen(argv[2]);
		FILE *f = fopen("/proc/self/status", "re");

		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, argv[2], n) && line[n] == ':')
				fputs(line, stdout);
		return !f || fflush(stdout) ? 2 : 0;
	}
	if (!strcmp(cmd, "nofile")) {
		struct rlimit64 rl;

		if (getrlimit64(RLIMIT_NOFILE, &rl))
			return 3;
		printf("%llu %llu\n", (u64)rl.rlim_cur, (u64)rl.rlim_max);
		return fflush(stdout) ? 2 : 0;
	}
	return 100;
}

/* ---- the cases ---------------------------------------------------------- */

FIXTURE(compat) {
	int tfd;		/* a template of this program */
	char dir[64];		/* a directory of the case's own */
};

FIXTURE_SETUP(compat)
{
	self->tfd = create_path(self_exe);
	ASSERT_GE(self->tfd, 0);
	strcpy(self->dir, "/tmp/spawn-compat.XXXXXX");
	ASSERT_TRUE(mkdtemp(self->dir) != NULL);
}

FIXTURE_TEARDOWN(compat)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/out", self->dir);
	unlink(path);
	rmdir(self->dir);
	if (self->tfd >= 0)
		close(self->tfd);
}

/* A plain spawn: pid, a pidfd of that pid, both fds close-on-exec, the exit status. */
TEST_F(compat, plain_spawn)
{
	static const char *const argv[] = { CHILD, "exit", "7", NULL };
	static const char *const envp[] = { NULL };
	struct pollfd pfd;
	char path[64], line[128];
	int pidfd = -2, pid, fdpid = -1;
	FILE *f;

	EXPECT_EQ(cloexec(self->tfd), 1);
	pid = spawn(self->tfd, argv, envp, NULL, 0, 0, &pidfd);
	ASSERT_GT(pid, 0);
	ASSERT_GE(pidfd, 0);
	EXPECT_EQ(cloexec(pidfd), 1);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "Pid: %d", &fdpid);
	if (f)
		fclose(f);
	EXPECT_EQ(fdpid, pid);
	pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	EXPECT_EQ(poll(&pfd, 1, -1), 1);	/* readable once the child exited */
	EXPECT_EQ(exit_status(pid), 7);
	close(pidfd);
	EXPECT_TRUE(no_child_left());
}

/* A 64-bit program from the 32-bit caller: its argv and envp arrive whole. */
TEST_F(compat, spawn_64bit_program)
{
	static const char *const argv[] = {
		"sh", "-c", "echo \"$0|$1|$SPAWN_V\"; exit 7", "zero", "one", NULL,
	};
	static const char *const envp[] = { "SPAWN_V=vee", NULL };
	struct run r;
	int sh = create_path("/bin/sh");

	ASSERT_GE(sh, 0);
	EXPECT_GT(run_capture(sh, argv, envp, NULL, 0, 0, &r), 0);
	EXPECT_STREQ(r.out, "zero|one|vee\n");
	EXPECT_EQ(r.status, 7);
	close(sh);
}

/* argv and envp are arrays of 4-byte pointers here: every string arrives. */
TEST_F(compat, argv_envp)
{
	static char longarg[301];
	const char *argv[] = { CHILD, "args", "", "two words", longarg, NULL };
	static const char *const envp[] = { "A=1", "B=", "C=three", NULL };
	static const char *const noenv_argv[] = { CHILD, "args", NULL };
	char want[1024];
	struct run r;

	memset(longarg, 'x', 300);
	snprintf(want, sizeof(want),
		 "argc=5\n[" CHILD "]\n[args]\n[]\n[two words]\n[%s]\n"
		 "env=3\n[A=1]\n[B=]\n[C=three]\n", longarg);
	EXPECT_GT(run_capture(self->tfd, argv, envp, NULL, 0, 0, &r), 0);
	EXPECT_STREQ(r.out, want);
	EXPECT_EQ(r.status, 0);

	/* envp NULL is an empty environment, as for execve() */
	EXPECT_GT(run_capture(self->tfd, noenv_argv, NULL, NULL, 0, 0, &r), 0);
	EXPECT_STREQ(r.out, "argc=2\n[" CHILD "]\n[args]\nenv=0\n");
	EXPECT_EQ(r.status, 0);
}

/* DUP2 onto a free fd, and DUP2(fd, fd) clearing close-on-exec. */
TEST_F(compat, dup2_actions)
{
	static const char *const envp[] = { NULL };
	struct spawn_template_action a = { .type = SPAWN_TEMPLATE_ACTION_DUP2 };
	char num[16];
	const char *argv[] = { CHILD, "fd", num, NULL };
	int pidfd, pid, fd = open("/", O_RDONLY | O_CLOEXEC);

	ASSERT_GE(fd, 3);
	ASSERT_LT(fd, 9);
	ASSERT_LT(fcntl(9, F_GETFD), 0);	/* 9 is free here */
	/* close-on-exec and no DUP2: gone in the child */
	snprintf(num, sizeof(num), "%d", fd);
	pid = spawn(self->tfd, argv, envp, NULL, 0,
		    SPAWN_TEMPLATE_SPAWN_INHERIT_FDS, &pidfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), 3);
	close(pidfd);
	/* DUP2(fd, fd): kept open across exec */
	a.fd = a.newfd = fd;
	pid = spawn(self->tfd, argv, envp, &a, 1,
		    SPAWN_TEMPLATE_SPAWN_INHERIT_FDS, &pidfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), 0);
	close(pidfd);
	/* DUP2(fd, 9): 9 open in the child only */
	a.newfd = 9;
	strcpy(num, "9");
	pid = spawn(self->tfd, argv, envp, NULL, 0,
		    SPAWN_TEMPLATE_SPAWN_INHERIT_FDS, &pidfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), 3);
	close(pidfd);
	pid = spawn(self->tfd, argv, envp, &a, 1,
		    SPAWN_TEMPLATE_SPAWN_INHERIT_FDS, &pidfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), 0);
	close(pidfd);
	EXPECT_LT(fcntl(9, F_GETFD), 0);
	close(fd);
}

/* OPEN: the path and struct open_how by pointer and size, from 32-bit memory. */
TEST_F(compat, open_action)
{
	static const char *const argv[] = { CHILD, "write5", "hello", NULL };
	static const char *const envp[] = { NULL };
	struct open_how how = {
		.flags = O_WRONLY | O_CREAT | O_TRUNC, .mode = 0640,
	};
	struct { struct open_how how; u64 tail; } big = { .how = how };
	char path[128], buf[256] = "";
	struct spawn_template_open o;
	struct spawn_template_action a = {
		.type = SPAWN_TEMPLATE_ACTION_OPEN, .fd = AT_FDCWD, .newfd = 5,
		.arg = U(&o),
	};
	unsigned int flags = 0;
	struct stat st;
	int pidfd, pid, fd;
	void *bad = bad_page();

	ASSERT_TRUE(bad != NULL);
	umask(0);
	snprintf(path, sizeof(path), "%s/out", self->dir);
	o = (struct spawn_template_open){
		.path = U(path), .how = U(&how), .how_size = sizeof(how),
	};
	pid = spawn(self->tfd, argv, envp, &a, 1, SPAWN_TEMPLATE_SPAWN_INHERIT_FDS, &pidfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), 0);
	close(pidfd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_GT(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	EXPECT_EQ(sscanf(buf, "hello\nflags=%o", &flags), 1);
	EXPECT_EQ(flags & O_ACCMODE, O_WRONLY);
	/* as openat2() from any ABI on a 64-bit kernel: O_LARGEFILE implied */
	EXPECT_EQ(flags & KERNEL_O_LARGEFILE, KERNEL_O_LARGEFILE);
	ASSERT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0640);

	/* a bigger open_how with a zero tail is read; a non-zero tail is E2BIG */
	o.how = U(&big);
	o.how_size = sizeof(big);
	pid = spawn(self->tfd, argv, envp, &a, 1, SPAWN_TEMPLATE_SPAWN_INHERIT_FDS, &pidfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), 0);
	close(pidfd);
	big.tail = 1;
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), E2BIG);
	/* how_size below VER0 */
	o.how = U(&how);
	o.how_size = sizeof(how) - 8;
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), EINVAL);
	/* how, path and the open struct itself unreadable */
	o.how_size = sizeof(how);
	o.how = U(bad);
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), EFAULT);
	o.how = U(&how) | HIGH_BIT;
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), EFAULT);
	o.how = U(&how);
	o.path = U(bad);
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), EFAULT);
	a.arg = U(bad);
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), EFAULT);
	EXPECT_TRUE(no_child_left());
}

/* FCHDIR: the child starts in the directory. */
TEST_F(compat, fchdir_action)
{
	static const char *const argv[] = { CHILD, "pwd", NULL };
	static const char *const envp[] = { NULL };
	struct spawn_template_action a = { .type = SPAWN_TEMPLATE_ACTION_FCHDIR };
	char want[80];
	struct run r;

	a.fd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_GE(a.fd, 0);
	snprintf(want, sizeof(want), "%s\n", self->dir);
	EXPECT_GT(run_capture(self->tfd, argv, envp, &a, 1, 0, &r), 0);
	EXPECT_STREQ(r.out, want);
	EXPECT_EQ(r.status, 0);
	close(a.fd);
}

/*
 * SIGMASK takes a signal set of rt_sigprocmask()'s size (8 bytes on x86,
 * also for a 32-bit caller, whose glibc sigset_t is 128): both halves of
 * it arrive.  The set is written as this ABI's rt_sigprocmask() takes it,
 * 32-bit words with signals 1-32 first for a 32-bit caller.  On x86 (little
 * endian) that is byte for byte the kernel's u64, so this case cannot show
 * a compat set read as the native sigset_t instead of with
 * get_compat_sigset(): on a big-endian 64-bit kernel that swaps signals
 * 1-32 and 33-64.
 */
TEST_F(compat, sigmask_action)
{
	static const char *const argv[] = { CHILD, "status", "SigBlk", NULL };
	static const char *const envp[] = { NULL };
	u64 mask = 1ULL << (SIGUSR1 - 1) | 1ULL << (SIGTERM - 1) | 1ULL << (40 - 1);
	unsigned long words[8 / sizeof(long)];
	struct spawn_template_sigset s = { .sigset = U(words), .sigsetsize = 8 };
	struct spawn_template_action a = {
		.type = SPAWN_TEMPLATE_ACTION_SIGMASK, .arg = U(&s),
	};
	struct run r;
	int pidfd;

	for (unsigned int i = 0; i < 8 / sizeof(long); i++)
		words[i] = (unsigned long)(mask >> (i * 8 * sizeof(long)));
	EXPECT_GT(run_capture(self->tfd, argv, envp, &a, 1, 0, &r), 0);
	EXPECT_STREQ(r.out, "SigBlk:\t0000008000004200\n");
	EXPECT_EQ(r.status, 0);
	s.sigsetsize = sizeof(sigset_t);	/* glibc's, not the kernel's */
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), EINVAL);
	s.sigsetsize = 8;
	s.sigset = U(bad_page());
	EXPECT_ERR(spawn(self->tfd, argv, envp, &a, 1, 0, &pidfd), EFAULT);
}

/* SETRLIMIT takes a struct rlimit64 from any ABI. */
TEST_F(compat, setrlimit_action)
{
	static const char *const argv[] = { CHILD, "nofile", NULL };
	static const char *const envp[] = { NULL };
	struct spawn_template_rlimit rl = { .rlim_cur = 64, .rlim_max = 128 };
	struct spawn_template_action a = {
		.type = SPAWN_TEMPLATE_ACTION_SETRLIMIT, .fd = RLIMIT_NOFILE,
		.arg = U(&rl),
	};
	struct run r;

	EXPECT_GT(run_capture(self->tfd, argv, envp, &a, 1, 0, &r), 0);
	EXPECT_STREQ(r.out, "64 128\n");
	EXPECT_EQ(r.status, 0);
}

/* Unknown flags, bad sizes and bad values: EINVAL/E2BIG, and no child. */
TEST_F(compat, bad_flags_and_sizes)
{
	static const char *const argv[] = { CHILD, "exit", "0", NULL };
	struct { struct spawn_template_create_args a; u64 tail; } c = {
		.a = { .filename = U(self_exe), .execfd = -1 },
	};
	struct { struct spawn_template_spawn_args a; u64 tail; } s = { 0 };
	struct spawn_template_action bad_type = { .type = 99 };
	int pidfd = -2, fd, p[2];

	/* create: 24 bytes; a longer struct with a zero tail is fine */
	fd = create_args(&c, sizeof(c));
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	EXPECT_ERR(create_args(&c, SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0 - 1), EINVAL);
	EXPECT_ERR(create_args(&c, 4097), E2BIG);
	c.tail = 1;
	EXPECT_ERR(create_args(&c, sizeof(c)), E2BIG);
	c.tail = 0;
	c.a.flags = 1;				/* v1's CLOEXEC: no flag now */
	EXPECT_ERR(create_args(&c, sizeof(c.a)), EINVAL);
	c.a.flags = HIGH_FLAG;			/* the upper half is read too */
	EXPECT_ERR(create_args(&c, sizeof(c.a)), EINVAL);
	c.a.flags = 0;
	c.a.execfd = -7;			/* a filename and an fd */
	EXPECT_ERR(create_args(&c, sizeof(c.a)), EINVAL);
	c.a.execfd = -1;
	c.a.filename = U("bin/sh");		/* relative */
	EXPECT_ERR(create_args(&c, sizeof(c.a)), EINVAL);

	/* spawn: 48 bytes */
	s.a = (struct spawn_template_spawn_args){
		.pidfd = U(&pidfd), .argv = U(argv),
	};
	fd = spawn_args(self->tfd, &s, sizeof(s));	/* zero tail */
	EXPECT_GT(fd, 0);
	if (fd > 0)
		EXPECT_EQ(exit_status(fd), 0);
	close(pidfd);
	EXPECT_ERR(spawn_args(self->tfd, &s, SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0 - 1), EINVAL);
	s.tail = 1;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), E2BIG);
	s.tail = 0;
	s.a.flags = 1ULL << 5;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s.a)), EINVAL);
	s.a.flags = HIGH_FLAG;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s.a)), EINVAL);
	s.a.flags = 0;
	s.a.actions = U(&bad_type);
	s.a.actions_len = 1;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s.a)), EINVAL);
	s.a.actions_len = SPAWN_TEMPLATE_ACTIONS_MAX + 1;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s.a)), E2BIG);
	s.a.actions_len = 0;
	s.a.actions = 0;
	/* not a template; no fd */
	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	EXPECT_ERR(spawn_args(p[0], &s, sizeof(s.a)), EINVAL);
	EXPECT_ERR(spawn_args(-1, &s, sizeof(s.a)), EBADF);
	close(p[0]);
	close(p[1]);
	EXPECT_TRUE(no_child_left());
}

/*
 * Unreadable or unwritable memory is EFAULT: pointers into a PROT_NONE
 * page, and a pointer with bit 32 set (the u64 field must not be cut to
 * the 32 bits that would name this process's real variable).
 */
TEST_F(compat, bad_pointers)
{
	static const char *const argv[] = { CHILD, "exit", "0", NULL };
	const char *bad_elem_argv[] = { CHILD, NULL, NULL };
	struct spawn_template_create_args c = { .execfd = -1 };
	struct spawn_template_spawn_args s = { .argv = U(argv) };
	int pidfd = -2, pid;
	void *bad = bad_page();

	ASSERT_TRUE(bad != NULL);
	EXPECT_ERR(create_args(bad, sizeof(c)), EFAULT);
	c.filename = U(bad);
	EXPECT_ERR(create_args(&c, sizeof(c)), EFAULT);
	c.filename = U(self_exe) | HIGH_BIT;
	EXPECT_ERR(create_args(&c, sizeof(c)), EFAULT);

	EXPECT_ERR(spawn_args(self->tfd, bad, sizeof(s)), EFAULT);
	/* the pidfd is written before the child exists: EFAULT, no child */
	s.pidfd = U(bad);
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), EFAULT);
	s.pidfd = U(&pidfd) | HIGH_BIT;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), EFAULT);
	EXPECT_EQ(pidfd, -2);
	s.pidfd = U(&pidfd);
	s.actions = U(bad);
	s.actions_len = 1;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), EFAULT);
	s.actions = 0;
	s.actions_len = 0;
	EXPECT_TRUE(no_child_left());

	/* argv is read by the child's exec: REPORT_ERRNO says EFAULT */
	s.flags = SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO;
	s.argv = U(bad);
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), EFAULT);
	EXPECT_EQ(pidfd, -1);
	s.argv = U(argv) | HIGH_BIT;
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), EFAULT);
	bad_elem_argv[1] = bad;
	s.argv = U(bad_elem_argv);
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), EFAULT);
	s.argv = U(argv);
	s.envp = U(bad);
	EXPECT_ERR(spawn_args(self->tfd, &s, sizeof(s)), EFAULT);
	EXPECT_TRUE(no_child_left());
	/* without REPORT_ERRNO: a child that exits 1 */
	s.flags = 0;
	pid = spawn_args(self->tfd, &s, sizeof(s));
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), SPAWN_TEMPLATE_EXIT_OTHER);
	close(pidfd);
}

/* REPORT_ERRNO: a failed action is the call's errno; the kernel reaps the child. */
TEST_F(compat, report_errno)
{
	static const char *const argv[] = { CHILD, "exit", "0", NULL };
	struct spawn_template_action a = {
		.type = SPAWN_TEMPLATE_ACTION_CLOSE, .fd = 1000,
	};
	int pidfd = -2, pid;

	EXPECT_ERR(spawn(self->tfd, argv, NULL, &a, 1,
			 SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO, &pidfd), EBADF);
	EXPECT_EQ(pidfd, -1);
	EXPECT_TRUE(no_child_left());
	pid = spawn(self->tfd, argv, NULL, &a, 1, 0, &pidfd);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(exit_status(pid), SPAWN_TEMPLATE_EXIT_OTHER);
	close(pidfd);
}

#ifndef NATIVE
/*
 * batch() is wired on x86_64 only (patch "arch: wire up"): this ABI's
 * headers have no number for it, and x86_64's number in this ABI's table
 * is ENOSYS.
 */
TEST(batch_not_wired_for_this_abi)
{
	static unsigned char entries[BATCH_ENTRY_SIZE_VER0];
	static long long results[1];
	long nr = NR_BATCH_X86_64;
	int wired = 0;

#ifdef __NR_batch
	wired = 1;
#endif
	EXPECT_EQ(wired, 0);
#ifdef __x86_64__
	nr += __X32_SYSCALL_BIT;
#endif
	EXPECT_EQ(sc(nr, U(entries), U(results), 1, 0, BATCH_ENTRY_SIZE_VER0), -1);
	EXPECT_EQ(errno, ENOSYS);
}
#else
/*
 * The reference: on x86_64 batch() is there, and takes entries of a larger
 * entry_size; an entry whose bytes past the known struct are not zero is
 * not run (-E2BIG in its slot).
 */
TEST(batch_with_entry_size)
{
	union {
		struct batch_entry e;
		unsigned char bytes[128];
	} ents[2];
	long long results[2] = { 0, 0 };

	EXPECT_EQ(NR_BATCH_X86_64, __NR_batch);
	memset(ents, 0, sizeof(ents));
	ents[0].e.nr = __NR_getppid;
	ents[1].e.nr = __NR_getppid;
	ents[1].bytes[100] = 1;
	EXPECT_GE(sc(__NR_batch, U(ents), U(results), 2, 0, sizeof(ents[0])), 0);
	EXPECT_EQ(results[0], getppid());
	EXPECT_EQ(results[1], -E2BIG);
}
#endif

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc > 1 && !strcmp(argv[0], CHILD))
		return child_main(argc, argv);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	self_exe[n] = '\0';
	printf("spawn_compat: %s ABI, spawn_template_create %ld, spawn_template_spawn %ld\n",
	       ABI, (long)__NR_spawn_template_create, (long)__NR_spawn_template_spawn);
	fflush(stdout);
	return th_main(argc, argv);
}

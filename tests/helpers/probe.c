/* SPDX-License-Identifier: MIT */
/*
 * probe: report the state a spawned child starts with, one fact per line,
 * so tests can check what the actions did without depending on a shell or
 * coreutils (the same binary runs inside the minimal QEMU guest).
 *
 *   probe [--quiet] [--exit N] [--sleep SECONDS] [--write-fd FD TEXT] [--cat FD]
 *
 * Prints: "argc N", "argv I ARG", "cwd PATH", "fd N" for each open fd,
 * "fdflags N HEX" (FD_CLOEXEC etc.), "sigblk HEX", "sigign HEX", "sched
 * POLICY NICE" (sched_getscheduler, getpriority), "slice NS" (the EEVDF
 * slice, sched_getattr's sched_runtime: 0 before Linux 6.12), "env
 * VAR=..." for each variable, then does the requested extra steps.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

extern char **environ;

/* The thread's slice in ns (0: no custom slices in this kernel, or no
 * sched_getattr), read as the UAPI's struct sched_attr, first version. */
static unsigned long long slice_ns(void)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t prio;
		uint64_t runtime, deadline, period;
	} attr = { .size = sizeof(attr) };

	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0))
		return 0;
	return attr.runtime;
}

int main(int argc, char **argv)
{
	uint64_t blk = 0, ign = 0;
	char cwd[4096];
	struct dirent *de;
	DIR *d;
	int i, sig, status = 0;
	sigset_t cur;

	if (argc > 1 && !strcmp(argv[1], "--quiet"))
		goto steps;
	printf("argc %d\n", argc);
	for (i = 0; i < argc; i++)
		printf("argv %d %s\n", i, argv[i]);
	if (getcwd(cwd, sizeof(cwd)))
		printf("cwd %s\n", cwd);
	/* Inventory the fd table before opening anything ourselves. */
	d = opendir("/proc/self/fd");
	if (d) {
		int self = dirfd(d);

		while ((de = readdir(d))) {
			int fd;

			if (de->d_name[0] == '.')
				continue;
			fd = atoi(de->d_name);
			if (fd == self)
				continue;
			printf("fd %d\n", fd);
			printf("fdflags %d %x\n", fd, fcntl(fd, F_GETFD));
		}
		closedir(d);
	}
	sigprocmask(SIG_BLOCK, NULL, &cur);
	for (sig = 1; sig <= 64; sig++) {
		struct sigaction sa;

		if (sig <= SIGRTMAX && sigismember(&cur, sig) == 1)
			blk |= 1ULL << (sig - 1);
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN)
			ign |= 1ULL << (sig - 1);
	}
	printf("sigblk %llx\n", (unsigned long long)blk);
	printf("sigign %llx\n", (unsigned long long)ign);
	printf("sched %d %d\n", sched_getscheduler(0), getpriority(PRIO_PROCESS, 0));
	printf("slice %llu\n", slice_ns());
	for (i = 0; environ[i]; i++)
		printf("env %s\n", environ[i]);
	fflush(stdout);
steps:
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--exit") && i + 1 < argc) {
			status = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--sleep") && i + 1 < argc) {
			sleep(atoi(argv[++i]));
		} else if (!strcmp(argv[i], "--write-fd") && i + 2 < argc) {
			int fd = atoi(argv[++i]);
			const char *s = argv[++i];

			if (write(fd, s, strlen(s)) < 0)
				status = 3;
		} else if (!strcmp(argv[i], "--cat") && i + 1 < argc) {
			char buf[4096];
			ssize_t n;
			int fd = atoi(argv[++i]);

			while ((n = read(fd, buf, sizeof(buf))) > 0)
				if (write(1, buf, n) != n)
					status = 3;
		}
	}
	return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * attrs: print the process attributes the extension actions set, one per
 * line, for tests/spawn/t_ext_actions and tests/run:
 *   "pid N", "ppid N", "sid N", "pgid N", "umask OCTAL",
 *   "nofile CUR MAX", "core CUR MAX" (-1 for unlimited), "cgroup PATH",
 *   "nice N"
 * With arguments, it then does: --sleep S (seconds), --out N (write N
 * bytes of 'x' to stdout), --err TEXT (to stderr), --fork-pgrp (a child
 * in a group of its own, "child PID"), --exit N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

static void limit(const char *name, int res)
{
	struct rlimit rl;

	getrlimit(res, &rl);
	printf("%s %lld %lld\n", name,
	       rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur,
	       rl.rlim_max == RLIM_INFINITY ? -1LL : (long long)rl.rlim_max);
}

int main(int argc, char **argv)
{
	char line[4096];
	FILE *f;
	mode_t m;
	int i;

	printf("pid %d\nppid %d\nsid %d\npgid %d\n", getpid(), getppid(), getsid(0), getpgid(0));
	m = umask(0);
	umask(m);
	printf("umask %03o\n", (unsigned int)m);
	limit("nofile", RLIMIT_NOFILE);
	limit("core", RLIMIT_CORE);
	errno = 0;
	i = getpriority(PRIO_PROCESS, 0);
	if (!errno)
		printf("nice %d\n", i);
	f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			printf("cgroup %s", line + 3);
	if (f)
		fclose(f);
	fflush(stdout);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sleep") && i + 1 < argc) {
			sleep(atoi(argv[++i]));
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			long n = atol(argv[++i]);
			char buf[4096];

			memset(buf, 'x', sizeof(buf));
			while (n > 0) {
				ssize_t w = write(1, buf, n < (long)sizeof(buf) ? (size_t)n : sizeof(buf));

				if (w <= 0)
					break;
				n -= w;
			}
		} else if (!strcmp(argv[i], "--err") && i + 1 < argc) {
			fputs(argv[++i], stderr);
		} else if (!strcmp(argv[i], "--fork-pgrp")) {
			/* a child in a process group of its own (same session),
			 * as a job-control shell makes: prints its pid, sleeps */
			pid_t c = fork();

			if (c == 0) {
				int nul = open("/dev/null", O_RDWR);

				/* hold none of the caller's pipes */
				dup2(nul, 0);
				dup2(nul, 1);
				dup2(nul, 2);
				setpgid(0, 0);
				sleep(1000);
				_exit(0);
			}
			setpgid(c, c);
			printf("child %d\n", (int)c);
			fflush(stdout);
		} else if (!strcmp(argv[i], "--exit") && i + 1 < argc) {
			return atoi(argv[++i]);
		}
	}
	return 0;
}

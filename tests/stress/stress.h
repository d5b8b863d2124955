/* SPDX-License-Identifier: MIT */
/*
 * stress.h - the scenario harness of the C stress programs (tests/stress/c_*.c).
 *
 * Each scenario is a function run in a forked child of the program, under a
 * deadline, so that one crash or hang is counted against that scenario and
 * the rest still run.  The function returns a verdict (SV_OK, SV_WRONG,
 * SV_LEAK, SV_SKIP) and may say why with note().  The parent prints one line
 * per scenario, the format tests/stress/run.sh counts:
 *
 *     STRESS <ok|wrong|leak|crash|hang|skip> <name>: <detail>
 *
 * A child killed by a signal is a crash, one past its deadline is killed and
 * is a hang.  Sizes scale with STRESS_SCALE (1 for the smoke run inside
 * `make test`, larger for `make test-stress`), deadlines with
 * STRESS_TIMEOUT_SCALE (a slow, loaded machine).
 *
 * Also here: what a scenario measures before and after (fds, pidfds,
 * children, RSS) and the probe/reference helpers shared by the programs.
 */
#ifndef SPAWNKIT_STRESS_H
#define SPAWNKIT_STRESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <spawnkit/spawnkit.h>
#include "../proc_self.h"	/* also built with -Itests/stress alone */

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

enum { SV_OK = 0, SV_WRONG = 1, SV_LEAK = 2, SV_SKIP = 3 };

extern char **environ;

static char st_note_buf[1024];

/* Detail for this scenario's line (the last call wins). */
static inline void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st_note_buf, sizeof(st_note_buf), fmt, ap);
	va_end(ap);
}

/* Append "; <text>" to the detail. */
static inline void note_add(const char *fmt, ...)
{
	size_t n = strlen(st_note_buf);
	va_list ap;

	if (n + 3 >= sizeof(st_note_buf))
		return;
	if (n) {
		strcpy(st_note_buf + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(st_note_buf + n, sizeof(st_note_buf) - n, fmt, ap);
	va_end(ap);
}

/* Fail the scenario when cond is false, adding the reason to the note. */
#define EXPECT(cond, ...) do {						\
	if (!(cond)) {							\
		note_add(__VA_ARGS__);					\
		return SV_WRONG;					\
	}								\
} while (0)

static inline long env_long(const char *name, long dflt)
{
	const char *e = getenv(name);

	return e && *e ? strtol(e, NULL, 10) : dflt;
}

/* n scaled by STRESS_SCALE (at least 1). */
static inline long scaled(long n)
{
	long s = env_long("STRESS_SCALE", 1);

	return n * (s > 0 ? s : 1);
}

/* ---- measurements -------------------------------------------------- */

static inline int pidfd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char p[300], l[64];
	int n = 0;
	ssize_t k;

	while (d && (de = readdir(d))) {
		snprintf(p, sizeof(p), "/proc/self/fd/%s", de->d_name);
		k = readlink(p, l, sizeof(l) - 1);
		if (k > 0) {
			l[k] = '\0';
			n += strstr(l, "pidfd") != NULL;
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* Children of this process (any thread's), zombies included. */
static inline int child_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	char p[300], buf[4096];
	int n = 0, fd;
	ssize_t k, i;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/self/task/%s/children", de->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* "pid pid pid " : one space after each */
		while ((k = read(fd, buf, sizeof(buf))) > 0)
			for (i = 0; i < k; i++)
				n += buf[i] == ' ';
		close(fd);
	}
	if (d)
		closedir(d);
	return n;
}

struct snap { int fds, pidfds, children; long rss; };

static inline struct snap snap_take(void)
{
	struct snap s = { count_open_fds(), pidfd_count(), child_count(), rss_kb() };

	return s;
}

/*
 * Compare before/after: any fd, pidfd or child more is a leak, and so is
 * RSS growth beyond rss_slack_kb.  Adds the figures to the note.
 */
static inline int snap_verdict(const struct snap *a, const char *what, long rss_slack_kb)
{
	struct snap b = snap_take();

	/* ASan's quarantine holds freed memory: STRESS_RSS_SLACK_KB widens */
	if (env_long("STRESS_RSS_SLACK_KB", 0) > rss_slack_kb)
		rss_slack_kb = env_long("STRESS_RSS_SLACK_KB", 0);
	note_add("%s: fds %d->%d pidfds %d->%d children %d->%d rss %ld->%ld KiB",
	     what, a->fds, b.fds, a->pidfds, b.pidfds, a->children, b.children,
	     a->rss, b.rss);
	if (b.fds > a->fds || b.pidfds > a->pidfds || b.children > a->children ||
	    b.rss - a->rss > rss_slack_kb)
		return SV_LEAK;
	return SV_OK;
}

/* ---- spawning helpers ---------------------------------------------- */

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Reap a pidfd child: its wait status (as waitpid gives it), -1 on error.
 * Closes the pidfd. */
static inline int reap_pidfd(int pidfd)
{
	siginfo_t si;
	int st = -1, r;

	memset(&si, 0, sizeof(si));
	do
		r = (int)syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		st = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8
					      : (si.si_status & 0x7f);
	close(pidfd);
	return st;
}

/* The reference: posix_spawn of path; its wait status, or -errno. */
static inline int ref_posix_spawn(const char *path, char *const argv[], char *const envp[])
{
	pid_t pid;
	int st, r = posix_spawn(&pid, path, NULL, NULL, argv, envp);

	if (r)
		return -r;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return st;
}

static inline struct spawnkit_template *make_template(const char *path)
{
	struct spawnkit_template *t = NULL;
	int r = spawnkit_template_create(path, 0, &t);

	if (r) {
		fprintf(stderr, "template %s: %s\n", path, strerror(-r));
		return NULL;
	}
	return t;
}

/* Spawn from t with envp and reap: the wait status, or spawn's -errno. */
static inline int sk_run_env(struct spawnkit_template *t, char *const argv[],
			     char *const envp[])
{
	int pidfd = -1;
	pid_t pid = spawnkit_spawn(t, argv, envp, NULL, 0, 0, &pidfd);

	return pid < 0 ? pid : reap_pidfd(pidfd);
}

/* Spawn from t with actions and reap: the wait status, or spawn's -errno. */
static inline int sk_run(struct spawnkit_template *t, char *const argv[],
			 const struct spawn_template_action *acts, unsigned int n)
{
	int pidfd = -1;
	pid_t pid = spawnkit_spawn(t, argv, environ, acts, n, 0, &pidfd);

	return pid < 0 ? pid : reap_pidfd(pidfd);
}

/* A private temporary directory (removed by the caller with rm_tree). */
static inline char *tmpdir_make(char *buf, size_t len)
{
	const char *base = getenv("TMPDIR");

	snprintf(buf, len, "%s/skstress.XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(buf);
}

static inline void rm_tree(const char *dir)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) {
		/* best effort */
	}
}

/* Copy a file (an executable to replace or delete under a template). */
static inline int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

/* ---- the runner ---------------------------------------------------- */

struct scenario {
	const char *name;
	int (*fn)(void);
	int timeout_s;	/* before STRESS_TIMEOUT_SCALE */
};

static const char *const st_verdicts[] = { "ok", "wrong", "leak", "skip" };

/* Run one scenario in a child under its deadline; print its line. */
static inline int st_run_one(const char *prog, const struct scenario *s)
{
	int p[2], st = 0, pidfd;
	long deadline = now_ms() + 1000L * s->timeout_s * env_long("STRESS_TIMEOUT_SCALE", 1);
	char detail[1024] = "";
	const char *verdict;
	ssize_t n = 0, k;
	pid_t pid;

	fflush(stdout);
	if (pipe2(p, O_CLOEXEC) || (pid = fork()) < 0) {
		printf("STRESS crash %s/%s: cannot start it: %s\n", prog, s->name, strerror(errno));
		return 1;
	}
	if (pid == 0) {
		int v;

		setpgid(0, 0);		/* its descendants: one group to kill */
		close(p[0]);
		v = s->fn();
		if (write(p[1], st_note_buf, strlen(st_note_buf)) < 0)
			v = SV_WRONG;
		_exit(v);
	}
	close(p[1]);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		struct pollfd pf = { .fd = pidfd, .events = POLLIN };
		long left = deadline - now_ms();

		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			verdict = "hang";
			snprintf(detail, sizeof(detail), "no result after %d s",
				 (int)(s->timeout_s * env_long("STRESS_TIMEOUT_SCALE", 1)));
			goto out;
		}
		if (poll(&pf, 1, left > 1000 ? 1000 : (int)left) > 0)
			break;
	}
	waitpid(pid, &st, 0);
	while (n < (ssize_t)sizeof(detail) - 1 &&
	       (k = read(p[0], detail + n, sizeof(detail) - 1 - (size_t)n)) > 0)
		n += k;
	detail[n] = '\0';
	if (WIFSIGNALED(st)) {
		verdict = "crash";
		snprintf(detail + n, sizeof(detail) - (size_t)n, "%skilled by signal %d (%s)",
			 n ? "; " : "", WTERMSIG(st), strsignal(WTERMSIG(st)));
	} else if (WEXITSTATUS(st) <= SV_SKIP) {
		verdict = st_verdicts[WEXITSTATUS(st)];
	} else {
		verdict = "wrong";
		snprintf(detail + n, sizeof(detail) - (size_t)n, "%sexit %d",
			 n ? "; " : "", WEXITSTATUS(st));
	}
out:
	kill(-pid, SIGKILL);	/* anything the scenario left running */
	close(pidfd);
	close(p[0]);
	printf("STRESS %s %s/%s: %s\n", verdict, prog, s->name, detail);
	fflush(stdout);
	return 0;
}

/* main() of a stress program: run every scenario, or those named in argv. */
static inline int st_main(const char *prog, const struct scenario *list, int argc, char **argv)
{
	const struct scenario *s;
	int i, want;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (s = list; s->name; s++) {
		want = argc < 2;
		for (i = 1; i < argc; i++)
			want |= !strcmp(argv[i], s->name);
		if (want)
			st_run_one(prog, s);
	}
	return 0;
}

#endif

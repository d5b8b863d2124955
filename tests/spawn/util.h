/* SPDX-License-Identifier: MIT */
/*
 * util.h - shared helpers of the tests/spawn programs: find the probe
 * helper, spawn with stdout captured through a pipe, look for lines in what
 * the probe printed, count fds and children.
 */
#ifndef SPAWNKIT_TEST_SPAWN_UTIL_H
#define SPAWNKIT_TEST_SPAWN_UTIL_H

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <spawnkit/spawnkit.h>
#include "harness.h"
#include "proc_self.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

static inline const char *probe_path(void)
{
	return helper_path("probe");
}

struct run_result {
	pid_t pid;		/* > 0, or the -errno spawn returned */
	int status;		/* wait status (valid if pid > 0) */
	size_t len;
	char out[1 << 16];
};

/* Wait for a pidfd child, returning its wait status, and close the pidfd. */
static inline int wait_pidfd(int pidfd)
{
	siginfo_t si;
	int status = -1;

	memset(&si, 0, sizeof(si));
	if (syscall(SYS_waitid, P_PIDFD, pidfd, &si, WEXITED, NULL) == 0) {
		if (si.si_code == CLD_EXITED)
			status = (si.si_status & 0xff) << 8;
		else
			status = si.si_status & 0x7f;
	}
	close(pidfd);
	return status;
}

/* Read fd to its end into r->out (NUL-terminated, r->len bytes). */
static inline void read_output(int fd, struct run_result *r)
{
	ssize_t got;

	while (r->len < sizeof(r->out) - 1 &&
	       (got = read(fd, r->out + r->len, sizeof(r->out) - 1 - r->len)) > 0)
		r->len += got;
	r->out[r->len] = '\0';
}

/*
 * Spawn argv from t with stdout on a pipe (DUP2 to 1 first, then the
 * caller's actions), read all output, wait.  r->pid < 0 is spawn's error.
 */
static inline void spawn_capture(struct spawnkit_template *t, char *const argv[],
				 char *const envp[],
				 const struct spawn_template_action *acts, unsigned int n,
				 unsigned int flags, struct run_result *r)
{
	struct spawn_template_action all[SPAWN_TEMPLATE_ACTIONS_MAX + 1];
	int p[2], pidfd = -1;

	memset(r, 0, sizeof(*r) - sizeof(r->out));
	r->out[0] = '\0';
	if (pipe2(p, O_CLOEXEC)) {
		perror("pipe2");
		exit(2);
	}
	spawnkit_action_dup2(&all[0], p[1], 1, 0);
	if (n)
		memcpy(&all[1], acts, n * sizeof(*acts));
	r->pid = spawnkit_spawn(t, argv, envp, all, n + 1, flags, &pidfd);
	close(p[1]);
	if (r->pid > 0) {
		read_output(p[0], r);
		r->status = wait_pidfd(pidfd);
	}
	close(p[0]);
}

/* Does the output hold this exact line? */
static inline int has_line(const struct run_result *r, const char *fmt, ...)
{
	char want[512];
	const char *p = r->out;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	n = strlen(want);
	while (p && *p) {
		if (!strncmp(p, want, n) && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* What follows "key " on the first line that starts so, or NULL. */
static inline const char *line_value(const struct run_result *r, const char *key)
{
	const char *p = r->out;
	size_t n = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ')
			return p + n + 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Value of the "key HEX" line, or ~0 if absent. */
static inline unsigned long long hex_line(const struct run_result *r, const char *key)
{
	const char *v = line_value(r, key);

	return v ? strtoull(v, NULL, 16) : ~0ULL;
}

/* Value of the "key N" line (decimal), or -12345 if absent. */
static inline long long dec_line(const struct run_result *r, const char *key)
{
	const char *v = line_value(r, key);

	return v ? strtoll(v, NULL, 10) : -12345;
}

/* Number of "fd N" lines: the fds the child started with. */
static inline int fd_lines(const struct run_result *r)
{
	const char *p = r->out;
	int n = 0;

	while (p && *p) {
		if (!strncmp(p, "fd ", 3))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* 1 if this process has no child left, reaped or not. */
static inline int no_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG) == -1 && errno == ECHILD;
}

/* A template of the probe, or the test fails hard. */
static inline struct spawnkit_template *probe_template(void)
{
	struct spawnkit_template *t = NULL;
	int ret = spawnkit_template_create(probe_path(), 0, &t);

	if (ret) {
		fprintf(stderr, "template of %s: %s\n", probe_path(), strerror(-ret));
		exit(2);
	}
	return t;
}

static inline int is_kernel(const struct spawnkit_template *t)
{
	return spawnkit_template_backend(t) == SPAWNKIT_BACKEND_KERNEL;
}

/*
 * Does the kernel behind kernel-backend template t run the extension
 * actions itself?  Asked of the kernel directly, as the library's probe
 * does (a known type then an OPEN whose argument faults: EFAULT; an unknown
 * type: EINVAL), so a test can tell what the library should have done.
 */
static inline int kernel_has_ext_actions(const struct spawnkit_template *t)
{
	struct spawn_template_action p[2];
	struct spawn_template_spawn_args a;
	int pidfd = -1;

	memset(p, 0, sizeof(p));
	p[0].type = SPAWN_TEMPLATE_ACTION_SETSID;
	p[1].type = SPAWN_TEMPLATE_ACTION_OPEN;
	p[1].arg = 8;
	memset(&a, 0, sizeof(a));
	a.flags = SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO;
	a.pidfd = (uintptr_t)&pidfd;
	a.actions = (uintptr_t)p;
	a.actions_len = 2;
	return spawnkit_sys_spawn_template_spawn(spawnkit_template_fd(t), &a,
						 sizeof(a)) == -EFAULT;
}

/* Write a file with the given mode; exits on failure. */
static inline void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(path);
		exit(2);
	}
	close(fd);
	chmod(path, mode);
}

/* Copy a file (e.g. the probe) to path with mode; exits on failure. */
static inline void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	if (in < 0 || out < 0) {
		perror(to);
		exit(2);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			perror(to);
			exit(2);
		}
	close(in);
	close(out);
	chmod(to, mode);
}

/* A fresh temporary directory, removed by rm_tmpdir(). */
static inline char *make_tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/spawnkit-test-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	return dir;
}

static inline void rm_tmpdir(const char *dir)
{
	char cmd[512];
	DIR *d = opendir(dir);
	struct dirent *de;

	/* flat directories only: no shell needed */
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		snprintf(cmd, sizeof(cmd), "%s/%s", dir, de->d_name);
		if (unlink(cmd))
			rmdir(cmd);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

#endif

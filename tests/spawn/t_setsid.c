/* SPDX-License-Identifier: MIT */
/* SPAWNKIT_SPAWN_SETSID: the child leads a new session and process group
 * (user backend); the kernel backend refuses it and starts nothing. */
#include "util.h"

/* Field n (1-based, n >= 4) of /proc/<pid>/stat, after the comm field. */
static long stat_field(pid_t pid, int n)
{
	char path[64], buf[1024], *p;
	long v = -1;
	int fd, len;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p += 2;				/* field 3, the state */
	for (int f = 3; f < n && p; f++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		v = strtol(p, NULL, 10);
	return v;
}

int main(void)
{
	struct spawnkit_template *t = probe_template();
	char *argv[] = { "probe", "--sleep", "30", NULL };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct spawn_template_action a;
	int pidfd = -1;
	pid_t pid;

	spawnkit_action_dup2(&a, null, 1, 0);
	if (is_kernel(t)) {
		CHECK_ERR(spawnkit_spawn(t, argv, environ, &a, 1, SPAWNKIT_SPAWN_SETSID, &pidfd), EOPNOTSUPP);
		CHECK_EQ(pidfd, -1);
		CHECK(no_children());
		spawnkit_template_destroy(t);
		TEST_DONE();
	}

	/* with the flag: session id and process group are the child's pid */
	pid = spawnkit_spawn(t, argv, environ, &a, 1, SPAWNKIT_SPAWN_SETSID, &pidfd);
	CHECK(pid > 0);
	CHECK_EQ(stat_field(pid, 6), pid);	/* session */
	CHECK_EQ(stat_field(pid, 5), pid);	/* process group */
	CHECK_EQ(getsid(pid), pid);
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	CHECK_EQ(wait_pidfd(pidfd), SIGKILL);
	close(pidfd);

	/* without it: ours */
	pid = spawnkit_spawn(t, argv, environ, &a, 1, 0, &pidfd);
	CHECK(pid > 0);
	CHECK_EQ(stat_field(pid, 6), getsid(0));
	CHECK_EQ(stat_field(pid, 5), getpgrp());
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	CHECK_EQ(wait_pidfd(pidfd), SIGKILL);
	close(pidfd);

	/* with INHERIT_FDS too (the fd table is copied, not shared) */
	pid = spawnkit_spawn(t, argv, environ, &a, 1,
			     SPAWNKIT_SPAWN_SETSID | SPAWNKIT_SPAWN_INHERIT_FDS, &pidfd);
	CHECK(pid > 0);
	CHECK_EQ(getsid(pid), pid);
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	CHECK_EQ(wait_pidfd(pidfd), SIGKILL);
	close(pidfd);

	/* an unknown flag bit is still EINVAL */
	CHECK_ERR(spawnkit_spawn(t, argv, environ, &a, 1, 1U << 7, &pidfd), EINVAL);
	CHECK(no_children());
	close(null);
	spawnkit_template_destroy(t);
	TEST_DONE();
}

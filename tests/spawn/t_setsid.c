/* SPDX-License-Identifier: MIT */
/* SPAWNKIT_SPAWN_SETSID: the child leads a new session and process group,
 * on both backends (the kernel's as a first SETSID action, or handed to
 * the user backend on a kernel without one), before the actions run. */
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

static char *argv_sleep[] = { "probe", "--sleep", "30", NULL };

/* The probe's template and a stdout-to-/dev/null action. */
FIXTURE(sess) {
	struct spawnkit_template *t;
	struct spawn_template_action a;
	int null;
};

FIXTURE_SETUP(sess)
{
	self->t = probe_template();
	self->null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ASSERT_GE(self->null, 0);
	spawnkit_action_dup2(&self->a, self->null, 1, 0);
}

FIXTURE_TEARDOWN(sess)
{
	CHECK(no_children());
	close(self->null);
	spawnkit_template_destroy(self->t);
}

/* Start argv_sleep with flags, check it with check(), kill and reap it. */
static void sleeper(FIXTURE_DATA(sess) *self, unsigned int flags, void (*check)(pid_t))
{
	int pidfd = -1;
	pid_t pid = spawnkit_spawn(self->t, argv_sleep, environ, &self->a, 1, flags, &pidfd);

	ASSERT_GT(pid, 0);
	check(pid);
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	CHECK_EQ(wait_pidfd(pidfd), SIGKILL);
	close(pidfd);
}

static void leads_own_session(pid_t pid)
{
	CHECK_EQ(stat_field(pid, 6), pid);	/* session */
	CHECK_EQ(stat_field(pid, 5), pid);	/* process group */
	CHECK_EQ(getsid(pid), pid);
}

static void in_our_session(pid_t pid)
{
	CHECK_EQ(stat_field(pid, 6), getsid(0));
	CHECK_EQ(stat_field(pid, 5), getpgrp());
}

static void session_of_its_own(pid_t pid)
{
	CHECK_EQ(getsid(pid), pid);
}

/* with the flag: session id and process group are the child's pid */
TEST_F(sess, setsid_child_leads_its_session)
{
	sleeper(self, SPAWNKIT_SPAWN_SETSID, leads_own_session);
}

/* without it: ours */
TEST_F(sess, without_setsid_child_is_in_ours)
{
	sleeper(self, 0, in_our_session);
}

/* with INHERIT_FDS too (the fd table is copied, not shared) */
TEST_F(sess, setsid_with_inherit_fds)
{
	sleeper(self, SPAWNKIT_SPAWN_SETSID | SPAWNKIT_SPAWN_INHERIT_FDS, session_of_its_own);
}

/* setsid() comes before the actions: a session leader cannot then move to
 * another group (setpgid's EPERM), and nothing is left running */
TEST_F(sess, setsid_runs_before_the_actions)
{
	struct spawn_template_action a[2] = { self->a };
	int pidfd = -1;

	spawnkit_action_setpgid(&a[1], 0);
	CHECK_ERR(spawnkit_spawn(self->t, argv_sleep, environ, a, 2,
				 SPAWNKIT_SPAWN_SETSID, &pidfd), EPERM);
	CHECK_EQ(pidfd, -1);
	/* the same list without the flag: a group of its own */
	pid_t pid = spawnkit_spawn(self->t, argv_sleep, environ, a, 2, 0, &pidfd);

	ASSERT_GT(pid, 0);
	CHECK_EQ(stat_field(pid, 5), pid);
	CHECK_EQ(stat_field(pid, 6), getsid(0));
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	CHECK_EQ(wait_pidfd(pidfd), SIGKILL);
	close(pidfd);
}

/* an unknown flag bit is still EINVAL */
TEST_F(sess, unknown_flag_is_einval)
{
	int pidfd = -1;

	CHECK_ERR(spawnkit_spawn(self->t, argv_sleep, environ, &self->a, 1, 1U << 7, &pidfd),
		  EINVAL);
}

TEST_HARNESS_MAIN

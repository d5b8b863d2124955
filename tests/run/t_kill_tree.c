/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_kill_tree(): the group, the session members that moved to
 * other groups, and descendants that left the session (found through their
 * parent while it lives) all die; the caller never does.
 */
#include "run_util.h"

static struct spawnkit_template *sh_tmpl(void)
{
	struct spawnkit_template *t = NULL;

	if (spawnkit_template_create("/bin/sh", 0, &t))
		exit(2);
	return t;
}

/* Start sh -c script in a new session with stdout on a pipe; reads one
 * line (the pids it prints) into line. */
static pid_t start(struct spawnkit_template *t, const char *script, char *line, size_t len,
		   int *pidfd)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct spawn_template_action a[2];
	int p[2];
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		exit(2);
	spawnkit_action_dup2(&a[0], p[1], 1, 0);
	spawnkit_action_setsid(&a[1]);
	pid = spawnkit_spawn(t, argv, environ, a, 2, 0, pidfd);
	close(p[1]);
	while (got < (ssize_t)len - 1 && (n = read(p[0], line + got, len - 1 - got)) > 0) {
		got += n;
		if (memchr(line, '\n', got))
			break;
	}
	line[got > 0 ? got : 0] = '\0';
	close(p[0]);
	return pid;
}

static pid_t sid_of(pid_t pid)
{
	return getsid(pid);
}

/* A template of /bin/sh; every case ends with its pidfd closed. */
FIXTURE(sh) {
	struct spawnkit_template *t;
	int pidfd;
	char line[256];
};

FIXTURE_SETUP(sh)
{
	self->t = sh_tmpl();
	self->pidfd = -1;
}

FIXTURE_TEARDOWN(sh)
{
	if (self->pidfd >= 0)
		close(self->pidfd);
	spawnkit_template_destroy(self->t);
}

/* a shell with a background job: both die, the caller reaps the shell */
TEST_F(sh, group_and_its_background_job_die)
{
	int bound = 120 * slow(), status;
	pid_t pid, a;

	pid = start(self->t, "sleep 1000 & echo $!; wait", self->line, sizeof(self->line),
		    &self->pidfd);
	ASSERT_GT(pid, 0);
	CHECK_EQ(sscanf(self->line, "%d", &a), 1);
	CHECK(spawnkit_kill_tree(pid, -1, SIGKILL, SPAWNKIT_KILL_GROUP) >= 1);
	CHECK(gone_within(pid, bound));
	CHECK(gone_within(a, bound));
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
}

/* a session member in a group of its own (as job control makes), whose
 * parent has exited: found by its session alone */
TEST_F(sh, member_in_a_group_of_its_own_found_by_session)
{
	int bound = 120 * slow(), status;
	char script[2 * PATH_MAX];
	pid_t pid, b;

	snprintf(script, sizeof(script), "%s --fork-pgrp | grep child; exit 0",
		 helper("attrs"));
	pid = start(self->t, script, self->line, sizeof(self->line), &self->pidfd);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(sscanf(self->line, "child %d", &b), 1);
	CHECK(waitpid(pid, &status, 0) == pid);	/* the leader is gone */
	CHECK(b > 1 && getpgid(b) == b && getsid(b) == pid);
	CHECK(spawnkit_kill_tree(pid, -1, SIGKILL,
				 SPAWNKIT_KILL_GROUP | SPAWNKIT_KILL_REAPED) >= 1);
	CHECK(b > 1 && gone_within(b, bound));
}

/* an escapee: a new session of its own, found through its parent */
TEST_F(sh, escapee_to_a_new_session_found_through_its_parent)
{
	int bound = 120 * slow(), status, n;
	pid_t pid, c;

	if (access("/usr/bin/setsid", X_OK) && access("/bin/setsid", X_OK))
		SKIP("no setsid program");
	pid = start(self->t, "setsid sleep 1000 & echo $!; wait", self->line,
		    sizeof(self->line), &self->pidfd);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(sscanf(self->line, "%d", &c), 1);
	/* give setsid a moment to become the sleep in its own session */
	for (n = 0; n < bound * 50 && sid_of(c) != c; n++)
		usleep(20000);
	CHECK_EQ(sid_of(c), c);		/* it escaped the session */
	CHECK(spawnkit_kill_tree(pid, -1, SIGKILL, SPAWNKIT_KILL_GROUP) >= 2);
	CHECK(gone_within(c, bound));
	CHECK(waitpid(pid, &status, 0) == pid);
}

/* signal 0 finds a live tree and changes nothing; then SIGKILL without
 * the group flag still ends the leader */
TEST_F(sh, signal_zero_changes_nothing)
{
	int status;
	pid_t pid;

	pid = start(self->t, "echo up; exec sleep 1000", self->line, sizeof(self->line),
		    &self->pidfd);
	ASSERT_GT(pid, 0);
	CHECK(spawnkit_kill_tree(pid, -1, 0, SPAWNKIT_KILL_GROUP) >= 1);
	CHECK(!gone_within(pid, 1));
	CHECK(spawnkit_kill_tree(pid, -1, SIGKILL, 0) >= 1);	/* without the group */
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
}

TEST_HARNESS_MAIN

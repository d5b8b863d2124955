/* SPDX-License-Identifier: MIT */
/*
 * A template is not launch authority for other credentials: any change of
 * uid/gid/groups/capabilities after create makes spawn fail with EACCES.
 * Tests run as root; each change happens in a forked helper process.
 */
#include <grp.h>
#include <sys/fsuid.h>
#include <linux/capability.h>
#include "util.h"

static char *argv_q[] = { "probe", "--quiet", NULL };

static pid_t spawn_wait(struct spawnkit_template *t)
{
	int pidfd;
	pid_t pid = spawnkit_spawn(t, argv_q, environ, NULL, 0, 0, &pidfd);

	if (pid > 0)
		wait_pidfd(pidfd);
	return pid;
}

enum change { SAME, SETRESUID, SETEUID, SETFSUID, SETRESGID, SETGROUPS, CAPDROP, BACK_TO_SAME };

/* In a child: make a template, change one credential, report spawn's
 * result through the exit status (0: as expected). */
static int in_child(enum change what)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct spawnkit_template *t;
		gid_t g[1] = { 4242 };
		pid_t r;

		if (spawnkit_template_create(probe_path(), 0, &t))
			_exit(10);
		if (spawn_wait(t) <= 0)
			_exit(11);
		switch (what) {
		case SAME:
			break;
		case SETRESUID:
			if (setresuid(0, 0, 1234))	/* saved uid alone */
				_exit(12);
			break;
		case SETEUID:
			if (setresuid(0, 1234, 0))
				_exit(12);
			break;
		case SETFSUID:
			setfsuid(1234);
			break;
		case SETRESGID:
			if (setresgid(0, 4321, 0))
				_exit(12);
			break;
		case SETGROUPS:
			if (setgroups(1, g))
				_exit(12);
			break;
		case CAPDROP: {
			struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct d[2];

			if (syscall(SYS_capget, &h, d))
				_exit(12);
			d[0].effective &= ~(1U << CAP_NET_RAW);
			if (syscall(SYS_capset, &h, d))
				_exit(12);
			break;
		}
		case BACK_TO_SAME:
			/* changed and changed back: same values, so the user
			 * backend accepts; the kernel compares the cred object */
			setfsuid(1234);
			setfsuid(0);
			break;
		}
		r = spawn_wait(t);
		if (what == SAME)
			_exit(r > 0 ? 0 : 20);
		if (what == BACK_TO_SAME)
			_exit((is_kernel(t) ? r == -EACCES : r > 0) ? 0 : 21);
		_exit(r == -EACCES ? 0 : 22);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* One variant a credential change; in_child() says 0 when spawn's answer
 * after that change was the expected one. */
FIXTURE(creds) {
	int unused;
};

FIXTURE_VARIANT(creds) {
	enum change what;
};

FIXTURE_VARIANT_ADD(creds, same) { .what = SAME };
FIXTURE_VARIANT_ADD(creds, setresuid_saved) { .what = SETRESUID };
FIXTURE_VARIANT_ADD(creds, seteuid) { .what = SETEUID };
FIXTURE_VARIANT_ADD(creds, setfsuid) { .what = SETFSUID };
FIXTURE_VARIANT_ADD(creds, setresgid) { .what = SETRESGID };
FIXTURE_VARIANT_ADD(creds, setgroups) { .what = SETGROUPS };
FIXTURE_VARIANT_ADD(creds, capdrop) { .what = CAPDROP };
FIXTURE_VARIANT_ADD(creds, changed_back) { .what = BACK_TO_SAME };

FIXTURE_SETUP(creds)
{
	if (geteuid() != 0)
		SKIP("needs root to change credentials");
}

FIXTURE_TEARDOWN(creds)
{
	CHECK(no_children());
}

TEST_F(creds, spawn_accepts_only_unchanged_credentials)
{
	CHECK_EQ(in_child(variant->what), 0);
}

TEST_HARNESS_MAIN

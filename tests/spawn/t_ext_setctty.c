/* SPDX-License-Identifier: MIT */
/*
 * SETCTTY (spawnkit extension action 12): after SETSID, a pty made the
 * child's stdin becomes its controlling terminal, with the child's group
 * in the foreground; its errors come back from spawn.  On the kernel
 * backend these spawns are handed to the user backend: the same results.
 * The cases skip, saying why, only where /dev/ptmx is absent or no devpts
 * is mounted (tests/pty_probe.h).
 */
#include <termios.h>
#include <sys/ioctl.h>
#include "util.h"
#include "pty_probe.h"

static char *const *argv_sh(const char *script)
{
	static char *argv[4] = { "sh", "-c", NULL, NULL };

	argv[2] = (char *)script;
	return argv;
}

FIXTURE(ctty) {
	struct spawnkit_template *t;
	int master, slave;
	struct run_result *r;
};

FIXTURE_SETUP(ctty)
{
	const char *why = no_pty_reason();

	if (why)
		SKIP(why);
	self->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_TRUE(self->master >= 0);
	ASSERT_EQ(grantpt(self->master), 0);
	ASSERT_EQ(unlockpt(self->master), 0);
	self->slave = open(ptsname(self->master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_TRUE(self->slave >= 0);
	ASSERT_EQ(spawnkit_template_create("/bin/sh", 0,
					   &self->t), 0);
	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
}

FIXTURE_TEARDOWN(ctty)
{
	if (self->t)
		spawnkit_template_destroy(self->t);
	free(self->r);
	if (self->master > 0)
		close(self->master);
	if (self->slave > 0)
		close(self->slave);
}

/* fields 7 and 8 of the shell's /proc stat: tty_nr, tpgid; and /dev/tty */
static const char *probe =
	"set -- $(cut -d' ' -f5-8 /proc/$$/stat); echo \"pid $$ pgrp $1 sid $2 tty $3 tpgid $4\";"
	" { echo x >/dev/tty; } 2>/dev/null && echo devtty-ok";

TEST_F(ctty, becomes_controlling_terminal)
{
	struct spawn_template_action a[3];
	char want[160];
	struct stat st;

	spawnkit_action_dup2(&a[0], self->slave, 0, 0);
	spawnkit_action_setsid(&a[1]);
	spawnkit_action_setctty(&a[2], 0);
	spawn_capture(self->t, argv_sh(probe), environ, a, 3, 0, self->r);
	ASSERT_TRUE(self->r->pid > 0);
	EXPECT_EQ(self->r->status, 0);
	ASSERT_EQ(fstat(self->slave, &st), 0);
	/* session and group led by the child, the pty its terminal, its
	 * group in the terminal's foreground */
	snprintf(want, sizeof(want), "pid %d pgrp %d sid %d tty %lu tpgid %d",
		 self->r->pid, self->r->pid, self->r->pid, (unsigned long)st.st_rdev,
		 self->r->pid);
	EXPECT_TRUE(has_line(self->r, "%s", want));
	EXPECT_TRUE(has_line(self->r, "devtty-ok"));
	if (!has_line(self->r, "%s", want))
		fprintf(stderr, "want \"%s\", got:\n%s", want, self->r->out);
}

TEST_F(ctty, without_it_no_terminal)
{
	/* the control: SETSID alone leaves the session without a terminal */
	struct spawn_template_action a[2];

	spawnkit_action_dup2(&a[0], self->slave, 0, 0);
	spawnkit_action_setsid(&a[1]);
	spawn_capture(self->t, argv_sh(probe), environ, a, 2, 0, self->r);
	ASSERT_TRUE(self->r->pid > 0);
	EXPECT_TRUE(has_line(self->r, "pid %d pgrp %d sid %d tty 0 tpgid -1",
			     self->r->pid, self->r->pid, self->r->pid));
	EXPECT_FALSE(has_line(self->r, "devtty-ok"));
}

TEST_F(ctty, errors)
{
	struct spawn_template_action a[3];
	int p[2];

	/* no session led by the child: EPERM */
	spawnkit_action_dup2(&a[0], self->slave, 0, 0);
	spawnkit_action_setctty(&a[1], 0);
	spawn_capture(self->t, argv_sh("true"), environ, a, 2, 0, self->r);
	EXPECT_ERR(self->r->pid, EPERM);
	/* not a terminal: ENOTTY */
	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	spawnkit_action_dup2(&a[0], p[0], 0, 0);
	spawnkit_action_setsid(&a[1]);
	spawnkit_action_setctty(&a[2], 0);
	spawn_capture(self->t, argv_sh("true"), environ, a, 3, 0, self->r);
	EXPECT_ERR(self->r->pid, ENOTTY);
	close(p[0]);
	close(p[1]);
	/* not open: EBADF; a negative fd: EINVAL */
	spawnkit_action_setsid(&a[0]);
	spawnkit_action_setctty(&a[1], 900);
	spawn_capture(self->t, argv_sh("true"), environ, a, 2, 0, self->r);
	EXPECT_ERR(self->r->pid, EBADF);
	spawnkit_action_setctty(&a[1], -1);
	spawn_capture(self->t, argv_sh("true"), environ, a, 2, 0, self->r);
	EXPECT_ERR(self->r->pid, EINVAL);
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: MIT */
/*
 * #! scripts run from templates made from a path and from an fd (an
 * O_CLOEXEC exec fd alone would leave the interpreter nothing to open).
 * The interpreter is the probe itself, so no shell is needed.
 */
#include "util.h"

/* dir/script: a #! script whose interpreter is the probe. */
FIXTURE(script) {
	struct run_result *r;
	char *dir;
	char script[256], text[PATH_MAX + 128];
};

FIXTURE_SETUP(script)
{
	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
	self->dir = make_tmpdir();
	snprintf(self->script, sizeof(self->script), "%s/script", self->dir);
	snprintf(self->text, sizeof(self->text), "#!%s --from-script\n", probe_path());
	write_file(self->script, self->text, 0755);
}

FIXTURE_TEARDOWN(script)
{
	unlink(self->script);
	rm_tmpdir(self->dir);
	free(self->r);
	CHECK(no_children());
}

/* from a path: the interpreter gets the script's path */
TEST_F(script, path_template_gives_interpreter_script_path)
{
	const char *script = self->script;
	struct spawnkit_template *t;
	struct run_result *r = self->r;
	char *argv_s[] = { "myscript", "one", "two", NULL };

	CHECK_EQ(spawnkit_template_create(script, 0, &t), 0);
	spawn_capture(t, argv_s, environ, NULL, 0, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "argv 1 --from-script"));
	CHECK(has_line(r, "argv 2 %s", script));
	CHECK(has_line(r, "argv 3 one") && has_line(r, "argv 4 two"));
	CHECK_EQ(fd_lines(r), 3);	/* nothing leaked into the interpreter */
	spawnkit_template_destroy(t);
}

/* still revalidated: a rename-over makes it stale */
TEST_F(script, script_template_still_goes_stale)
{
	const char *script = self->script;
	const char *text = self->text;
	struct spawnkit_template *t;
	struct run_result *r = self->r;
	char *argv_s[] = { "myscript", "one", "two", NULL };

	CHECK_EQ(spawnkit_template_create(script, 0, &t), 0);
	{
		char tmp[300];

		snprintf(tmp, sizeof(tmp), "%s.new", script);
		write_file(tmp, text, 0755);
		CHECK_EQ(rename(tmp, script), 0);
		spawn_capture(t, argv_s, environ, NULL, 0, 0, r);
		CHECK_ERR(r->pid, ESTALE);
	}
	spawnkit_template_destroy(t);
}

/* from an fd: the interpreter reads it through /dev/fd/N */
TEST_F(script, fd_template_reads_script_through_dev_fd)
{
	const char *script = self->script;
	struct spawnkit_template *t;
	struct run_result *r = self->r;
	char *argv_s[] = { "myscript", "one", "two", NULL };
	int fd;

	fd = open(script, O_RDONLY | O_CLOEXEC);
	CHECK_EQ(spawnkit_template_create_fd(fd, 0, &t), 0);
	close(fd);
	spawn_capture(t, argv_s, environ, NULL, 0, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "argv 1 --from-script"));
	CHECK(strstr(r->out, "argv 2 /dev/fd/") != NULL);
	CHECK(has_line(r, "argv 3 one"));
	spawnkit_template_destroy(t);
}

/* from an O_PATH fd: nothing to read through it, still a script */
TEST_F(script, o_path_fd_template_is_still_a_script)
{
	const char *script = self->script;
	struct spawnkit_template *t;
	struct run_result *r = self->r;
	char *argv_s[] = { "myscript", "one", "two", NULL };
	int fd;

	fd = open(script, O_PATH | O_CLOEXEC);
	CHECK_EQ(spawnkit_template_create_fd(fd, 0, &t), 0);
	close(fd);
	spawn_capture(t, argv_s, environ, NULL, 0, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "argv 1 --from-script") && has_line(r, "argv 3 one"));
	spawnkit_template_destroy(t);
}

/* a script whose interpreter does not exist: ENOENT, child reaped */
TEST_F(script, missing_interpreter_is_enoent_or_127)
{
	const char *dir = self->dir;
	char badscript[256];
	struct spawnkit_template *t;
	char *argv_s[] = { "myscript", "one", "two", NULL };
	int pidfd;

	snprintf(badscript, sizeof(badscript), "%s/bad", dir);
	write_file(badscript, "#!/nonexistent/interpreter\n", 0755);
	CHECK_EQ(spawnkit_template_create(badscript, 0, &t), 0);
	CHECK_ERR(spawnkit_spawn(t, argv_s, environ, NULL, 0, 0, &pidfd), ENOENT);
	/* proposal behaviour: exit 127 */
	{
		pid_t pid = spawnkit_spawn(t, argv_s, environ, NULL, 0,
					   SPAWNKIT_SPAWN_EXIT_STATUS, &pidfd);

		CHECK(pid > 0);
		if (pid > 0)
			CHECK_EQ(wait_pidfd(pidfd), 127 << 8);
	}
	spawnkit_template_destroy(t);
	unlink(badscript);
}

TEST_HARNESS_MAIN

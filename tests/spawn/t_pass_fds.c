/* SPDX-License-Identifier: MIT */
/* spawnkit_actions_pass_fds: chosen fds reach the child, nothing else. */
#include "util.h"

int main(void)
{
	struct spawnkit_template *t = probe_template();
	struct run_result *r = malloc(sizeof(*r));
	struct spawn_template_action a[64];
	char *argv_probe[] = { "probe", NULL };
	int stray = open("/dev/null", O_RDONLY);		/* inheritable */
	int kept1 = open("/dev/null", O_RDONLY | O_CLOEXEC);	/* CLOEXEC */
	int kept2 = dup2(kept1, 40);
	int fds[] = { kept2, kept1, 1, kept1 };
	int n;

	fcntl(kept2, F_SETFD, FD_CLOEXEC);
	n = spawnkit_actions_pass_fds(a, 64, fds, 4);
	CHECK(n > 0 && n <= 3 * 2 + 1);
	spawn_capture(t, argv_probe, environ, a, n, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "fd %d", kept1) && has_line(r, "fdflags %d 0", kept1));
	CHECK(has_line(r, "fd %d", kept2) && has_line(r, "fdflags %d 0", kept2));
	CHECK(!has_line(r, "fd %d", stray));
	CHECK(!has_line(r, "fd %d", kept2 + 1));	/* the scratch number */
	CHECK_EQ(fd_lines(r), 5);
	/* the parent's fds keep their flags */
	CHECK_EQ(fcntl(kept1, F_GETFD), FD_CLOEXEC);

	/* no fds: just "close everything above 2" */
	n = spawnkit_actions_pass_fds(a, 64, NULL, 0);
	CHECK_EQ(n, 1);
	spawn_capture(t, argv_probe, environ, a, n, SPAWNKIT_SPAWN_INHERIT_FDS, r);
	CHECK(r->pid > 0 && fd_lines(r) == 3);

	/* errors */
	fds[0] = -1;
	CHECK_ERR(spawnkit_actions_pass_fds(a, 64, fds, 4), EINVAL);
	fds[0] = kept2;
	CHECK_ERR(spawnkit_actions_pass_fds(a, 6, fds, 4), ENOSPC);
	CHECK_ERR(spawnkit_actions_pass_fds(a, 64, fds, SPAWN_TEMPLATE_ACTIONS_MAX + 1), EINVAL);

	close(stray);
	close(kept1);
	close(kept2);
	spawnkit_template_destroy(t);
	free(r);
	CHECK(no_children());
	TEST_DONE();
}

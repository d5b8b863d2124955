/* SPDX-License-Identifier: MIT */
/*
 * binding_util.c - what the spawn calls of binding.c and compat_binding.c
 * share: unwrapping (template, argv[], envp[]|null, cwd|null), and the
 * step after a start, which either watches the child or ends it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>

#include "binding_util.h"
#include "child_watch.h"
#include "pidfd.h"

int spawn_call_parse(napi_env env, napi_value *argv, struct spawn_call *c)
{
	napi_valuetype type;

	memset(c, 0, sizeof(*c));
	c->box = get_box(env, argv[0]);
	if (!c->box || !c->box->t)
		return -EBADF;
	c->argv = dup_string_array(env, argv[1]);
	if (!c->argv)
		return -1;
	if (napi_typeof(env, argv[2], &type) != napi_ok)
		return -1;
	if (type != napi_null && type != napi_undefined) {
		c->envp = dup_string_array(env, argv[2]);
		if (!c->envp)
			return -1;
	}
	if (napi_typeof(env, argv[3], &type) != napi_ok)
		return -1;
	if (type == napi_string) {
		c->cwd = dup_string(env, argv[3]);
		if (!c->cwd)
			return -1;
	}
	return 0;
}

void spawn_call_free(struct spawn_call *c)
{
	free(c->argv);
	free(c->envp);
	free(c->cwd);
	memset(c, 0, sizeof(*c));
}

int watch_or_reap(napi_env env, pid_t pid, int pidfd, napi_value on_exit,
		  struct spawnkit_start *start, napi_value on_spawn,
		  const int *fds, int n, struct child_watch **w)
{
	int r = child_watch_start(env, pid, pidfd, on_exit, start, on_spawn, w);

	if (r == 0)
		return 0;
	/* Cannot watch it: do not leave an orphan running. */
	sk_pidfd_signal(pidfd, SIGKILL);
	spawnkit_start_free(start);	/* decided at the latest by its death */
	spawnkit_pidfd_wait(pidfd, 0, &(int){ 0 });
	close(pidfd);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return r;
}

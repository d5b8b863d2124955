/* SPDX-License-Identifier: MIT */
/*
 * methods.c - fork+execve, vfork+execve, posix_spawn, clone+execveat and the
 * spawnkit templates, each as one "start the target" function.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spawnkit/spawnkit.h>
#include "common/sys.h"
#include "methods.h"

static pid_t start_fork(const struct target_ctx *c)
{
	pid_t pid = fork();

	if (pid == 0) {
		execve(c->path, c->argv, c->envp);
		_exit(127);
	}
	return pid < 0 ? -errno : pid;
}

static pid_t start_vfork(const struct target_ctx *c)
{
	/* The vfork child shares our memory: exec or _exit, nothing else. */
	pid_t pid = vfork();

	if (pid == 0) {
		execve(c->path, c->argv, c->envp);
		_exit(127);
	}
	return pid < 0 ? -errno : pid;
}

static pid_t start_posix_spawn(const struct target_ctx *c)
{
	pid_t pid;
	int err = posix_spawn(&pid, c->path, NULL, NULL, c->argv, c->envp);

	return err ? -err : pid;
}

/*
 * clone(CLONE_VM|CLONE_VFORK) on a stack of its own, then execveat() of the
 * pinned fd: what a hand-written vfork-style spawner does, without any of the
 * template's checks.  One stack suffices: CLONE_VFORK keeps us suspended
 * until the child has exec'd or exited.  The child makes raw syscalls only,
 * so it never writes errno (which is the parent thread's errno).
 */
static char clone_stack[64 * 1024] __attribute__((aligned(16)));

static int clone_child(void *arg)
{
	const struct target_ctx *c = arg;

	sk_syscall5(SYS_execveat, c->pinned_fd, "", c->argv, c->envp, AT_EMPTY_PATH);
	sk_syscall1(SYS_exit, 127);
	return 127;
}

static pid_t start_clone_execveat(const struct target_ctx *c)
{
	pid_t pid = clone(clone_child, clone_stack + sizeof(clone_stack),
			  CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)c);

	return pid < 0 ? -errno : pid;
}

static pid_t start_tmpl(struct spawnkit_template *t, const struct target_ctx *c,
			unsigned int flags)
{
	/* pidfd NULL: we reap by pid like every other method. */
	return spawnkit_spawn(t, c->argv, c->envp, NULL, 0, flags, NULL);
}

static pid_t start_tmpl_user(const struct target_ctx *c)
{
	return start_tmpl(c->tmpl_user, c, 0);
}

static pid_t start_tmpl_user_inherit(const struct target_ctx *c)
{
	return start_tmpl(c->tmpl_user, c, SPAWNKIT_SPAWN_INHERIT_FDS);
}

/* As a caller that wants the pidfd gets it (closed here: we reap by pid). */
static pid_t start_tmpl_user_pidfd(const struct target_ctx *c)
{
	int pidfd = -1;
	pid_t pid = spawnkit_spawn(c->tmpl_user, c->argv, c->envp, NULL, 0, 0, &pidfd);

	if (pid > 0) {
		if (pidfd < 0)
			return -EBADF;	/* a pid without its pidfd: a library bug */
		close(pidfd);
	}
	return pid;
}

static pid_t start_tmpl_kernel(const struct target_ctx *c)
{
	return start_tmpl(c->tmpl_kernel, c, 0);
}

static pid_t start_tmpl_kernel_inherit(const struct target_ctx *c)
{
	return start_tmpl(c->tmpl_kernel, c, SPAWNKIT_SPAWN_INHERIT_FDS);
}

const struct method bench_methods[] = {
	{ "fork+execve", "fork(), execve(path) in the child", 1, 0, 0, start_fork },
	{ "vfork+execve", "vfork(), execve(path) in the child", 1, 0, 0, start_vfork },
	{ "posix_spawn", "glibc posix_spawn(path), no attributes", 1, 0, 0, start_posix_spawn },
	{ "clone+execveat", "clone(CLONE_VM|CLONE_VFORK), execveat(pinned O_PATH fd, AT_EMPTY_PATH)",
	  1, 0, 0, start_clone_execveat },
	{ "template", "spawnkit_spawn, user backend, default flags (closes fds > 2)",
	  0, 1, 0, start_tmpl_user },
	{ "template-inherit", "spawnkit_spawn, user backend, SPAWNKIT_SPAWN_INHERIT_FDS",
	  0, 0, 0, start_tmpl_user_inherit },
	{ "template-pidfd", "spawnkit_spawn, user backend, default flags, pidfd returned (and closed)",
	  0, 1, 0, start_tmpl_user_pidfd },
	{ "ktemplate", "spawnkit_spawn, kernel backend, default flags (closes fds > 2)",
	  0, 1, 1, start_tmpl_kernel },
	{ "ktemplate-inherit", "spawnkit_spawn, kernel backend, SPAWNKIT_SPAWN_INHERIT_FDS",
	  0, 0, 1, start_tmpl_kernel_inherit },
};
const int bench_nr_methods = sizeof(bench_methods) / sizeof(bench_methods[0]);

/* Make a template with the backend forced through SPAWNKIT_BACKEND, which
 * the library reads at each creation; the caller's own setting is restored. */
static int make_template(const char *path, const char *backend,
			 struct spawnkit_template **tp)
{
	const char *old = getenv("SPAWNKIT_BACKEND");
	char *saved = old ? strdup(old) : NULL;
	int ret;

	if (old && !saved)
		return -ENOMEM;
	setenv("SPAWNKIT_BACKEND", backend, 1);
	ret = spawnkit_template_create(path, 0, tp);
	if (saved)
		setenv("SPAWNKIT_BACKEND", saved, 1);
	else
		unsetenv("SPAWNKIT_BACKEND");
	free(saved);
	if (ret < 0)
		return ret;
	if (spawnkit_template_backend(*tp) !=
	    (strcmp(backend, "kernel") ? SPAWNKIT_BACKEND_USER : SPAWNKIT_BACKEND_KERNEL)) {
		fprintf(stderr, "bench_spawn: template for %s has backend %s, not %s\n",
			path, spawnkit_backend_name(spawnkit_template_backend(*tp)), backend);
		spawnkit_template_destroy(*tp);
		*tp = NULL;
		return -EINVAL;
	}
	return 0;
}

int target_ctx_init(struct target_ctx *c, const char *path, int want_user,
		    int want_kernel)
{
	int ret;

	c->path = path;
	c->tmpl_user = c->tmpl_kernel = NULL;
	c->pinned_fd = open(path, O_PATH | O_CLOEXEC);
	if (c->pinned_fd < 0) {
		ret = -errno;
		fprintf(stderr, "bench_spawn: open %s: %s\n", path, strerror(-ret));
		return ret;
	}
	ret = want_user ? make_template(path, "user", &c->tmpl_user) : 0;
	if (ret < 0) {
		fprintf(stderr, "bench_spawn: user template for %s: %s\n", path, strerror(-ret));
		target_ctx_fini(c);
		return ret;
	}
	if (want_kernel) {
		ret = make_template(path, "kernel", &c->tmpl_kernel);
		if (ret < 0) {
			fprintf(stderr, "bench_spawn: kernel template for %s: %s\n",
				path, strerror(-ret));
			target_ctx_fini(c);
			return ret;
		}
	}
	return 0;
}

void target_ctx_fini(struct target_ctx *c)
{
	spawnkit_template_destroy(c->tmpl_user);
	spawnkit_template_destroy(c->tmpl_kernel);
	c->tmpl_user = c->tmpl_kernel = NULL;
	if (c->pinned_fd >= 0)
		close(c->pinned_fd);
	c->pinned_fd = -1;
}

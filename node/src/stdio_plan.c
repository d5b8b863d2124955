/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "stdio_plan.h"

static struct spawn_template_action *next_action(struct stdio_plan *p)
{
	return &p->actions[p->nr_actions++];
}

static void close_if(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static int make_pipe(struct stdio_plan *p, int slot)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	/* slot 0: the child reads; slots 1, 2: the child writes. */
	p->child_fd[slot] = slot == 0 ? fds[0] : fds[1];
	p->parent_fd[slot] = slot == 0 ? fds[1] : fds[0];
	/* Only our end is non-blocking: O_NONBLOCK lives in the open file
	 * description, and the child expects an ordinary blocking pipe. */
	if (fcntl(p->parent_fd[slot], F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

unsigned int signal_reset_actions(struct spawn_template_action *a, struct signal_reset *s,
				  int below)
{
	sigemptyset(&s->signals);
	sigemptyset(&s->no_signals);
	for (int sig = 1; sig < below; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		sigaddset(&s->signals, sig);	/* glibc refuses 32/33: fine */
	}
	spawnkit_action_sigset(&a[0], SPAWN_TEMPLATE_ACTION_SIGDEFAULT,
			       &s->sigdefault, &s->signals);
	spawnkit_action_sigset(&a[1], SPAWN_TEMPLATE_ACTION_SIGMASK,
			       &s->sigmask, &s->no_signals);
	return 2;
}

static void add_signal_reset(struct stdio_plan *p)
{
	p->nr_actions += signal_reset_actions(&p->actions[p->nr_actions], &p->sig, NSIG);
}

int stdio_plan_build(struct stdio_plan *p, const int spec[3], const char *cwd)
{
	int src[3], stage;
	int err;

	memset(p, 0, sizeof(*p));
	p->cwd_fd = -1;
	for (int i = 0; i < 3; i++)
		p->parent_fd[i] = p->child_fd[i] = -1;

	if (cwd) {
		p->cwd_fd = open(cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (p->cwd_fd < 0) {
			err = -errno;
			goto fail;
		}
	}
	for (int i = 0; i < 3; i++) {
		src[i] = spec[i] == STDIO_INHERIT ? i : spec[i];
		if (src[i] == STDIO_PIPE) {
			err = make_pipe(p, i);
			if (err)
				goto fail;
		} else if (src[i] < 0 && src[i] != STDIO_IGNORE) {
			err = -EINVAL;
			goto fail;
		}
	}
	/* Staging fds: above every fd an action reads, so none is overwritten
	 * (and low, so the library's fd-table copy stays small). */
	stage = 3;
	for (int i = 0; i < 3; i++) {
		if (p->child_fd[i] >= stage)
			stage = p->child_fd[i] + 1;
		if (src[i] >= stage)
			stage = src[i] + 1;
	}
	if (p->cwd_fd >= stage)
		stage = p->cwd_fd + 1;

	add_signal_reset(p);

	/* Parent fds 0..2 are staged to a higher number before any DUP2 onto
	 * 0..2 runs: another slot's DUP2 cannot overwrite them, and the DUP2
	 * back clears O_CLOEXEC (Node sets it on its own 0..2; a DUP2 of an fd
	 * onto itself only checks that it is open). */
	for (int i = 0; i < 3; i++)
		if (src[i] >= 0 && src[i] < 3)
			spawnkit_action_dup2(next_action(p), src[i], stage + i, 0);

	for (int i = 0; i < 3; i++) {
		if (src[i] == STDIO_PIPE)
			spawnkit_action_dup2(next_action(p), p->child_fd[i], i, 0);
		else if (src[i] == STDIO_IGNORE)
			spawnkit_action_open(next_action(p), &p->opens[i], AT_FDCWD,
					     "/dev/null", i == 0 ? O_RDONLY : O_WRONLY,
					     0, i);
		else
			spawnkit_action_dup2(next_action(p),
					     src[i] < 3 ? stage + i : src[i], i, 0);
	}
	/* Last: a relative path above must not depend on it. */
	if (p->cwd_fd >= 0)
		spawnkit_action_fchdir(next_action(p), p->cwd_fd);
	return 0;
fail:
	stdio_plan_finish(p, 0);
	return err;
}

void stdio_plan_finish(struct stdio_plan *p, int started)
{
	for (int i = 0; i < 3; i++) {
		close_if(&p->child_fd[i]);
		if (!started)
			close_if(&p->parent_fd[i]);
	}
	close_if(&p->cwd_fd);
}

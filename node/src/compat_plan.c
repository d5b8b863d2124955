/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "compat_plan.h"

static struct spawn_template_action *next_action(struct compat_plan *p)
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

static void add_signal_reset(struct compat_plan *p)
{
	/* libuv resets 1..31 only: real-time signals are glibc's. */
	p->nr_actions += signal_reset_actions(&p->actions[p->nr_actions], &p->sig, 32);
}

int compat_plan_build(struct compat_plan *p, const int *spec, int n,
		      const char *cwd, const struct compat_sched *sched)
{
	int src[COMPAT_MAX_SLOTS], stage, err, sv[2];

	if (n < 0 || n > COMPAT_MAX_SLOTS)
		return -E2BIG;
	memset(p, 0, sizeof(*p));
	p->nr_slots = n;
	p->cwd_fd = -1;
	for (int i = 0; i < n; i++)
		p->parent_fd[i] = p->child_fd[i] = -1;
	if (cwd) {
		p->cwd_fd = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (p->cwd_fd < 0) {
			err = -errno;
			goto fail;
		}
	}
	stage = n;
	for (int i = 0; i < n; i++) {
		src[i] = spec[i];
		if (spec[i] == COMPAT_PIPE) {
			/* Both ends blocking here; libuv makes its own end
			 * non-blocking when it opens the Pipe handle. */
			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
				err = -errno;
				goto fail;
			}
			p->parent_fd[i] = sv[0];
			p->child_fd[i] = src[i] = sv[1];
		} else if (spec[i] < 0 && spec[i] != COMPAT_IGNORE) {
			err = -EINVAL;
			goto fail;
		}
		if (src[i] >= stage)
			stage = src[i] + 1;
	}
	if (p->cwd_fd >= stage)
		stage = p->cwd_fd + 1;
	/*
	 * libuv's child clears O_NONBLOCK on its fds 0..2: a program reading
	 * its stdin expects blocking reads (`tr` fails with EAGAIN on a
	 * non-blocking socket another Node child's stdout left behind).  The
	 * flag lives in the open file description the parent shares, so
	 * clearing it here is the same change, made before the spawn instead
	 * of in the child (which has no fcntl action).
	 */
	for (int i = 0; i < n && i < 3; i++) {
		int fl;

		if (spec[i] < 0)
			continue;
		fl = fcntl(src[i], F_GETFL);
		if (fl >= 0 && (fl & O_NONBLOCK))
			fcntl(src[i], F_SETFL, fl & ~O_NONBLOCK);
	}

	add_signal_reset(p);
	/* Every source goes to a staging fd (close-on-exec) first, so no
	 * final dup2 onto slot i can overwrite the source of a later slot. */
	for (int i = 0; i < n; i++)
		if (src[i] >= 0)
			spawnkit_action_dup2(next_action(p), src[i], stage + i, O_CLOEXEC);
	for (int i = 0; i < n; i++) {
		if (src[i] >= 0)
			spawnkit_action_dup2(next_action(p), stage + i, i, 0);
		else if (i < 3)
			spawnkit_action_open(next_action(p), &p->opens[i], AT_FDCWD,
					     "/dev/null", i == 0 ? O_RDONLY : O_RDWR,
					     0, i);
	}
	if (p->cwd_fd >= 0)
		spawnkit_action_fchdir(next_action(p), p->cwd_fd);
	if (sched && sched->nice)
		spawnkit_action_nice(next_action(p), sched->nice);
	if (sched && sched->slice)
		spawnkit_action_sched_slice(next_action(p), (uint32_t)sched->slice);
	if (sched && sched->policy >= 0)
		spawnkit_action_sched_policy(next_action(p), sched->policy);
	return 0;
fail:
	compat_plan_finish(p, 0);
	return err;
}

void compat_plan_finish(struct compat_plan *p, int started)
{
	for (int i = 0; i < p->nr_slots; i++) {
		close_if(&p->child_fd[i]);
		if (!started)
			close_if(&p->parent_fd[i]);
	}
	close_if(&p->cwd_fd);
}

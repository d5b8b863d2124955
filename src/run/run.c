/* SPDX-License-Identifier: MIT */
/*
 * run.c - spawnkit_run(): check every option, resolve the program, lay out
 * the child's stdio and session as spawn actions, start it, and hand it to
 * the pump (pump.c) and the tree kill (killtree.c).
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <spawnkit/warm.h>

#include "common/sys.h"
#include "run/devnull.h"
#include "run/late_pidfd.h"
#include "run/pump.h"
#include "run/pty.h"
#include "run/resolve.h"
#include "spawn/template.h"

extern char **environ;

/* stdin, stdout, stderr, setsid, setctty, fchdir, cgroup, sigdefault */
#define OUR_ACTIONS 8

SK_EXPORT void spawnkit_run_opts_init(struct spawnkit_run_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->cwd_fd = -1;
	o->cgroup_fd = -1;
	o->stop_fd = -1;
	for (i = 0; i < 3; i++) {
		o->std_mode[i] = SPAWNKIT_RUN_PIPE;
		o->std_fd[i] = -1;
	}
	for (i = 1; i < 3; i++) {
		o->head[i] = SPAWNKIT_RUN_DEFAULT_CAP / 2;
		o->tail[i] = SPAWNKIT_RUN_DEFAULT_CAP / 2;
	}
	o->timeout_ms = SPAWNKIT_RUN_NONE;
	o->no_output_timeout_ms = SPAWNKIT_RUN_NONE;
	o->wait_delay_ms = SPAWNKIT_RUN_NONE;
}

SK_EXPORT void spawnkit_run_result_free(struct spawnkit_run_result *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < 3; i++) {
		free(r->out[i].head);
		free(r->out[i].tail);
		r->out[i].head = r->out[i].tail = NULL;
	}
}

static int fd_open(int fd)
{
	return sk_syscall2(SYS_fcntl, fd, F_GETFD) >= 0;
}

static int check_opts(const struct spawnkit_run_opts *o)
{
	int i;

	if (o->size != sizeof(*o) || (o->flags & ~SPAWNKIT_RUN_FLAGS))
		return -EINVAL;
	/* a pty is the child's terminal: its own session, all three fds */
	if ((o->flags & SPAWNKIT_RUN_PTY) &&
	    ((o->flags & SPAWNKIT_RUN_NO_NEW_SESSION) ||
	     o->std_mode[0] != SPAWNKIT_RUN_PIPE || o->std_mode[1] != SPAWNKIT_RUN_PIPE ||
	     o->std_mode[2] != SPAWNKIT_RUN_PIPE))
		return -EINVAL;
	if (!o->argv || !o->argv[0] || (o->tmpl && o->file))
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		int m = o->std_mode[i];

		if (m < SPAWNKIT_RUN_PIPE || m > SPAWNKIT_RUN_STDOUT ||
		    (m == SPAWNKIT_RUN_STDOUT && i != 2))
			return -EINVAL;
		if (m == SPAWNKIT_RUN_FD ? o->std_fd[i] < 0 : o->std_fd[i] != -1)
			return -EINVAL;
		if (m == SPAWNKIT_RUN_FD && !fd_open(o->std_fd[i]))
			return -EBADF;
	}
	if (o->head[0] || o->tail[0])
		return -EINVAL;		/* stdin is fed, not captured */
	if ((o->input_len && !o->input) ||
	    (o->input_len && o->std_mode[0] != SPAWNKIT_RUN_PIPE))
		return -EINVAL;
	if (o->timeout_ms < -1 || o->no_output_timeout_ms < -1 || o->wait_delay_ms < -1)
		return -EINVAL;
	if (o->cwd_fd < -1 || o->cgroup_fd < -1 || o->stop_fd < -1)
		return -EINVAL;
	if (o->stop_fd >= 0 && !fd_open(o->stop_fd))
		return -EBADF;
	if (o->nr_actions && !o->actions)
		return -EINVAL;
	if (o->warm_preload && !(o->flags & SPAWNKIT_RUN_WARM))
		return -EINVAL;
	if (o->nr_actions > SPAWN_TEMPLATE_ACTIONS_MAX - OUR_ACTIONS)
		return -E2BIG;
	return 0;
}

/* An O_CLOEXEC copy of fd at 3 or above: the stdio actions then never
 * read a number an earlier one of them replaced.  fd itself is kept. */
static int dup_high(int fd)
{
	return (int)sk_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
}

/*
 * A pipe with both ends at 3 or above.  Ours is nonblocking when we write
 * it (stdin: a write must not wait for room); a read end stays blocking,
 * as the pump reads it only once poll said it is readable, and only we
 * read it, so that read never waits (one fcntl less per output stream).
 */
static int make_pipe(int p[2], int ours)
{
	int i, ret = (int)sk_syscall2(SYS_pipe2, p, O_CLOEXEC);

	if (ret)
		return ret;
	for (i = 0; i < 2; i++)
		if (p[i] < 3) {
			int n = dup_high(p[i]);

			sk_syscall1(SYS_close, p[i]);
			p[i] = n;
		}
	if (p[0] < 0 || p[1] < 0) {
		ret = p[0] < 0 ? p[0] : p[1];
		sk_syscall1(SYS_close, p[0] < 0 ? p[1] : p[0]);
		return ret;
	}
	if (ours == 1)
		sk_syscall3(SYS_fcntl, p[1], F_SETFL, O_NONBLOCK);
	return 0;
}

struct layout {
	struct spawn_template_action act[SPAWN_TEMPLATE_ACTIONS_MAX];
	struct spawnkit_open devnull[3];
	struct spawn_template_sigset restore;	/* SPAWNKIT_RUN_RESTORE_SIGNALS */
	uint64_t restore_set;
	unsigned int n;
	unsigned int own;	/* the first `own` actions are ours (sk_spawn_own) */
	int child_end[3];	/* closed in the parent after the spawn */
	int hold[3];		/* output pipes' write ends: the pump's until
				   the child is reaped (pump.c, ended()) */
	int ours[3];		/* the pump's ends */
};

static void close_all(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0) {
			sk_syscall1(SYS_close, fds[i]);
			fds[i] = -1;
		}
}

/* SPAWNKIT_RUN_PTY: the slave as fds 0, 1, 2 and the controlling terminal
 * (after the setsid); ours: the master, read as stdout, and a copy of it
 * that the input is written to and closed after, as a stdin pipe is. */
static int lay_out_pty(const struct spawnkit_run_opts *o, struct layout *l)
{
	int i, ret;

	ret = sk_pty_open(o->pty_rows ? o->pty_rows : SPAWNKIT_RUN_PTY_ROWS,
			  o->pty_cols ? o->pty_cols : SPAWNKIT_RUN_PTY_COLS,
			  &l->ours[1], &l->child_end[0]);
	if (ret)
		return ret;
	l->ours[0] = dup_high(l->ours[1]);
	if (l->ours[0] < 0)
		return l->ours[0];
	for (i = 0; i < 3; i++)
		spawnkit_action_dup2(&l->act[l->n++], l->child_end[0], i, 0);
	spawnkit_action_setsid(&l->act[l->n++]);
	spawnkit_action_setctty(&l->act[l->n++], 0);
	return 0;
}

static int lay_out(const struct spawnkit_run_opts *o, struct layout *l)
{
	int i, p[2], ret;

	l->n = 0;
	for (i = 0; i < 3; i++)
		l->child_end[i] = l->hold[i] = l->ours[i] = -1;
	if (o->flags & SPAWNKIT_RUN_PTY) {
		ret = lay_out_pty(o, l);
		if (ret)
			return ret;
		goto rest;
	}
	for (i = 0; i < 3; i++) {
		switch (o->std_mode[i]) {
		case SPAWNKIT_RUN_PIPE:
			ret = make_pipe(p, i ? 0 : 1);
			if (ret)
				return ret;
			l->ours[i] = i ? p[0] : p[1];
			if (i)
				l->hold[i] = p[1];
			else
				l->child_end[i] = p[0];
			spawnkit_action_dup2(&l->act[l->n++], p[i ? 1 : 0], i, 0);
			break;
		case SPAWNKIT_RUN_DEVNULL:
			/* a copy of the one we keep (devnull.c), else the
			 * child opens it */
			ret = sk_devnull_fd(i);
			if (ret >= 0)
				spawnkit_action_dup2(&l->act[l->n++], ret, i, 0);
			else
				spawnkit_action_open(&l->act[l->n++], &l->devnull[i], AT_FDCWD,
						     "/dev/null", i ? O_WRONLY : O_RDONLY, 0, i);
			break;
		case SPAWNKIT_RUN_FD:
			l->child_end[i] = dup_high(o->std_fd[i]);
			if (l->child_end[i] < 0)
				return l->child_end[i];
			spawnkit_action_dup2(&l->act[l->n++], l->child_end[i], i, 0);
			break;
		case SPAWNKIT_RUN_STDOUT:
			spawnkit_action_dup2(&l->act[l->n++], 1, 2, 0);
			break;
		default:	/* INHERIT */
			break;
		}
	}
	if (!(o->flags & SPAWNKIT_RUN_NO_NEW_SESSION))
		spawnkit_action_setsid(&l->act[l->n++]);
rest:
	if (o->cwd_fd >= 0)
		spawnkit_action_fchdir(&l->act[l->n++], o->cwd_fd);
	if (o->cgroup_fd >= 0)
		spawnkit_action_cgroup(&l->act[l->n++], o->cgroup_fd);
	if (o->flags & SPAWNKIT_RUN_RESTORE_SIGNALS) {
		/* in our own memory: read directly at the spawn, where a
		 * caller's SIGDEFAULT costs two checked copies */
		l->restore_set = (1ULL << (SIGPIPE - 1)) | (1ULL << (SIGXFSZ - 1));
		spawnkit_action_sigset(&l->act[l->n++], SPAWN_TEMPLATE_ACTION_SIGDEFAULT,
				       &l->restore, (const sigset_t *)&l->restore_set);
	}
	l->own = l->n;
	if (o->nr_actions)
		memcpy(&l->act[l->n], o->actions, o->nr_actions * sizeof(*o->actions));
	l->n += o->nr_actions;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The child, warm when asked and it fits (else counted and cold). */
static pid_t start(const struct spawnkit_run_opts *o, struct spawnkit_template *t,
		   const struct layout *l, int *pidfd)
{
	unsigned int flags = o->flags & SPAWNKIT_RUN_INHERIT_FDS ? SPAWNKIT_SPAWN_INHERIT_FDS : 0;
	char *const *envp = o->envp ? o->envp : environ;
	const char *path = spawnkit_template_path(t);
	pid_t pid;
	int ret;

	if ((o->flags & SPAWNKIT_RUN_WARM) && path &&
	    !spawnkit_warm_spawn(path, o->argv, envp, l->act, l->n, flags,
				 o->warm_preload, &pid, pidfd))
		return pid;
	if (t->backend != SPAWNKIT_BACKEND_USER || !sk_late_pidfd_ok())
		return sk_spawn_own(t, o->argv, envp, l->act, l->n, l->own, flags, pidfd);
	/* the pidfd opened beside the child's exec, not before it */
	pid = sk_spawn_own(t, o->argv, envp, l->act, l->n, l->own, flags, NULL);
	if (pid < 0)
		return pid;
	ret = sk_late_pidfd_open(pid, pidfd);
	return ret ? ret : pid;
}

static int run(const struct spawnkit_run_opts *o, struct spawnkit_run_result *r)
{
	struct spawnkit_template *t = o->tmpl;
	struct sk_pump p;
	struct layout *l;
	char path[PATH_MAX];
	uint64_t t0 = now_ns();
	int i, ret, pidfd = -1;
	pid_t pid;

	ret = check_opts(o);
	if (ret)
		return ret;
	if (!t) {
		ret = sk_run_resolve(o, path, sizeof(path));
		if (!ret)
			ret = spawnkit_template_create(path, 0, &t);
		if (ret)
			return ret;
	}
	l = malloc(sizeof(*l));
	if (!l) {
		ret = -ENOMEM;
		goto out;
	}
	ret = lay_out(o, l);
	if (ret)
		goto out_fds;
	pid = start(o, t, l, &pidfd);
	close_all(l->child_end, 3);
	if (pid < 0) {
		ret = pid;
		goto out_fds;
	}
	memset(&p, 0, sizeof(p));
	p.o = o;
	p.pid = pid;
	p.pidfd = pidfd;
	p.group = !(o->flags & SPAWNKIT_RUN_NO_NEW_SESSION);
	p.pty = !!(o->flags & SPAWNKIT_RUN_PTY);
	for (i = 0; i < 3; i++) {
		p.fd[i] = l->ours[i];
		p.hold[i] = l->hold[i];
		l->ours[i] = l->hold[i] = -1;
		sk_capture_init(&p.cap[i], o->head[i], o->tail[i]);
	}
	ret = sk_pump_run(&p);
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->status = p.status;
	r->why = p.why;
	r->killed = p.killed;
	for (i = 0; i < 3; i++)
		if (sk_capture_finish(&p.cap[i], &r->out[i]))
			ret = -ENOMEM;
	if (ret)
		spawnkit_run_result_free(r);
	r->elapsed_ns = now_ns() - t0;
out_fds:
	close_all(l->child_end, 3);
	close_all(l->hold, 3);
	close_all(l->ours, 3);
	free(l);
out:
	if (t != o->tmpl)
		spawnkit_template_destroy(t);
	return ret;
}

SK_EXPORT int spawnkit_run(const struct spawnkit_run_opts *o, struct spawnkit_run_result *r)
{
	struct spawnkit_run_opts full;
	int saved = errno, ret;

	if (!o || !r)
		return -EINVAL;
	if (o->size == SPAWNKIT_RUN_OPTS_SIZE_V1) {
		/* a caller built before stop_fd: its fields, then the defaults
		 * of the ones it does not know */
		spawnkit_run_opts_init(&full);
		memcpy(&full, o, SPAWNKIT_RUN_OPTS_SIZE_V1);
		full.size = sizeof(full);
		o = &full;
	}
	ret = run(o, r);
	errno = saved;
	return ret;
}

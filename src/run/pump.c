/* SPDX-License-Identifier: MIT */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>

#include "common/sys.h"
#include "run/pump.h"
#include "run/pty.h"

#define CHUNK 65536
#define STOP_IDX 3	/* pollfd index tag of o->stop_fd (0..2: stdio, -1: pidfd) */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		sk_syscall1(SYS_close, *fd);
	*fd = -1;
}

/* write(2) to a pipe the child may have closed, without a SIGPIPE for the
 * caller: blocked around the write, and ours taken back if it came. */
static long write_nosigpipe(int fd, const void *buf, size_t n)
{
	uint64_t pipe_set = 1ULL << (SIGPIPE - 1), old, pending = 0;
	struct timespec zero = { 0, 0 };
	long ret;

	sk_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, &pipe_set, &old, 8);
	sk_syscall2(SYS_rt_sigpending, &pending, 8);
	ret = sk_syscall3(SYS_write, fd, buf, n);
	if (ret == -EPIPE && !(pending & pipe_set))
		sk_syscall4(SYS_rt_sigtimedwait, &pipe_set, 0, &zero, 8);
	sk_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, 8);
	return ret;
}

/* Take the child's exit if it has come: 1 (p->status set) or 0.  Through
 * spawnkit_pidfd_wait(), so a status another waiter took is still read
 * from the pidfd where the kernel keeps it; -1 where it is lost. */
static int try_reap(struct sk_pump *p)
{
	int st = -1, w;

	do
		w = spawnkit_pidfd_wait(p->pidfd, WNOHANG, &st);
	while (w == -EINTR);
	if (!w)
		return 0;
	p->status = w == 1 ? st : -1;
	return 1;
}

static void kill_tree(struct sk_pump *p, int reaped)
{
	int n = spawnkit_kill_tree(p->pid, p->o->cgroup_fd, SIGKILL,
				   (p->group ? SPAWNKIT_KILL_GROUP : 0) |
				   (reaped ? SPAWNKIT_KILL_REAPED : 0));

	if (n > 0)
		p->killed += (uint32_t)n;
}

/* Read one chunk from fd i; 1 if output came, 0 if not, -1 to stop. */
static int read_one(struct sk_pump *p, int i, char *buf)
{
	long n = sk_syscall3(SYS_read, p->fd[i], buf, CHUNK);

	if (n == -EAGAIN || n == -EINTR)
		return 0;
	if (n <= 0) {			/* end of file, or an error: done */
		close_fd(&p->fd[i]);
		return 0;
	}
	if (p->o->on_output && p->o->on_output(p->o->ctx, i, buf, (size_t)n)) {
		sk_capture_add(&p->cap[i], buf, (size_t)n);
		return -1;
	}
	sk_capture_add(&p->cap[i], buf, (size_t)n);	/* ENOMEM: counted dropped */
	return 1;
}

/* on_output or stop_fd asked: kill now, then drain as after any kill */
static void stop(struct sk_pump *p, int exited, int *killed, int64_t *drain_until)
{
	p->why |= SPAWNKIT_RUN_STOPPED;
	kill_tree(p, exited);
	*killed = 1;
	*drain_until = exited ? now_ms() + SK_RUN_DRAIN_MS : -1;
}

/* A pty's input ends with its EOF character(s), written once all input
 * is: 1 when they are all written (or there are none). */
static int feed_eof(struct sk_pump *p)
{
	const struct spawnkit_run_opts *o = p->o;
	long w;

	if (p->eof_len < 0) {
		int ends_line = !o->input_len ||
				((const char *)o->input)[o->input_len - 1] == '\n';

		p->eof_len = sk_pty_eof(p->fd[0], ends_line, p->eof);
		if (p->eof_len < 0)	/* the terminal is gone: nothing to end */
			p->eof_len = 0;
	}
	if (p->eof_off == p->eof_len)
		return 1;
	w = sk_syscall3(SYS_write, p->fd[0], p->eof + p->eof_off,
			(size_t)(p->eof_len - p->eof_off));
	if (w == -EAGAIN || w == -EINTR)
		return 0;
	if (w < 0)
		return 1;
	p->eof_off += (int)w;
	return p->eof_off == p->eof_len;
}

static void feed(struct sk_pump *p, size_t *off)
{
	const struct spawnkit_run_opts *o = p->o;
	size_t n = o->input_len - *off;
	long w;

	if (n) {
		w = write_nosigpipe(p->fd[0], (const char *)o->input + *off,
				    n < CHUNK ? n : CHUNK);
		if (w == -EAGAIN || w == -EINTR)
			return;
		if (w < 0) {		/* EPIPE (EIO for a pty): not read */
			p->why |= SPAWNKIT_RUN_INPUT_CLOSED;
			close_fd(&p->fd[0]);
			return;
		}
		*off += (size_t)w;
	}
	if (*off == o->input_len && (!p->pty || feed_eof(p)))
		close_fd(&p->fd[0]);
}

/*
 * The direct child has exited (and is reaped): the wait delay and the
 * drain count from now, and its stdin is of no more use.  The output
 * pipes' write ends we held (run.c) go now, so their end of file says
 * that nobody else holds them either.  Held until here, the child's exit
 * wakes us once, through the pidfd: each pipe's close at its exit no
 * longer does first, which cost an extra sleep and wake-up per run.
 */
static void ended(struct sk_pump *p, int *exited, int64_t *exit_at, int killed,
		  int64_t *drain_until)
{
	*exited = 1;
	*exit_at = now_ms();
	if (killed)
		*drain_until = *exit_at + SK_RUN_DRAIN_MS;
	close_fd(&p->fd[0]);
	close_fd(&p->hold[1]);
	close_fd(&p->hold[2]);
}

/* Earliest of the deadlines that apply, as a poll timeout (-1: none). */
static int next_wait(int64_t now, const int64_t *deadlines, int n)
{
	int64_t best = -1;
	int i;

	for (i = 0; i < n; i++)
		if (deadlines[i] >= 0 && (best < 0 || deadlines[i] < best))
			best = deadlines[i];
	if (best < 0)
		return -1;
	if (best <= now)
		return 0;
	return best - now > 60000 ? 60000 : (int)(best - now);
}

/* The reasons to kill now (why bits), 0 if none.  exit_at < 0: running. */
static uint32_t due(const struct spawnkit_run_opts *o, int64_t t, int64_t start,
		    int64_t last_out, int64_t exit_at)
{
	uint32_t why = 0;

	if (o->timeout_ms >= 0 && t - start >= o->timeout_ms)
		why |= SPAWNKIT_RUN_TIMED_OUT;
	if (o->no_output_timeout_ms >= 0 && t - last_out >= o->no_output_timeout_ms)
		why |= SPAWNKIT_RUN_NO_OUTPUT;
	if (exit_at >= 0 && o->wait_delay_ms >= 0 && t - exit_at >= o->wait_delay_ms)
		why |= SPAWNKIT_RUN_WAIT_DELAY;
	return why;
}

int sk_pump_run(struct sk_pump *p)
{
	const struct spawnkit_run_opts *o = p->o;
	int64_t start = now_ms(), last_out = start, exit_at = -1, drain_until = -1, t;
	int64_t dl[4];
	uint32_t reasons;
	int exited = 0, killed = 0, i, n, ret = 0;
	struct pollfd pf[5];
	int idx[5];
	size_t off = 0;
	char *buf = malloc(CHUNK);

	if (!buf)
		ret = -ENOMEM;
	p->eof_len = -1;
	if (p->fd[0] >= 0 && !o->input_len && !p->pty)
		close_fd(&p->fd[0]);
	if (p->pidfd < 0) {		/* gone before its pidfd (late_pidfd.c) */
		p->status = -1;
		ended(p, &exited, &exit_at, killed, &drain_until);
	}
	for (;;) {
		t = now_ms();
		if (exited && p->fd[1] < 0 && p->fd[2] < 0)
			break;
		reasons = killed ? 0 : due(o, t, start, last_out, exit_at);
		if (!killed && (!buf || reasons)) {
			p->why |= reasons;
			kill_tree(p, exited);
			killed = 1;
			if (exited)
				drain_until = t + SK_RUN_DRAIN_MS;
		}
		if (killed && exited && t >= drain_until)
			break;		/* something we could not kill holds a pipe */
		n = 0;
		if (!exited) {
			pf[n] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
			idx[n++] = -1;
		}
		for (i = 0; i < 3; i++)
			if (p->fd[i] >= 0) {
				pf[n] = (struct pollfd){ .fd = p->fd[i],
							 .events = i ? POLLIN : POLLOUT };
				idx[n++] = i;
			}
		if (!killed && o->stop_fd >= 0) {	/* level-triggered: until the kill */
			pf[n] = (struct pollfd){ .fd = o->stop_fd, .events = POLLIN };
			idx[n++] = STOP_IDX;
		}
		dl[0] = !killed && o->timeout_ms >= 0 ? start + o->timeout_ms : -1;
		dl[1] = !killed && o->no_output_timeout_ms >= 0 ? last_out + o->no_output_timeout_ms : -1;
		dl[2] = !killed && exited && o->wait_delay_ms >= 0 ? exit_at + o->wait_delay_ms : -1;
		dl[3] = killed && exited ? drain_until : -1;
		if (sk_syscall3(SYS_poll, pf, n, next_wait(t, dl, 4)) < 0) {
			/* EINTR: the caller's handlers may run now (on_signal),
			 * after the exit status is ours if it came */
			if (!o->on_signal)
				continue;
			if (!exited && try_reap(p))
				ended(p, &exited, &exit_at, killed, &drain_until);
			if (!killed && o->on_signal(o->ctx))
				stop(p, exited, &killed, &drain_until);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (!pf[i].revents)
				continue;
			if (idx[i] == STOP_IDX) {
				if (!killed)
					stop(p, exited, &killed, &drain_until);
			} else if (idx[i] == 0) {
				if (pf[i].revents & (POLLERR | POLLHUP)) {
					p->why |= off < o->input_len ? SPAWNKIT_RUN_INPUT_CLOSED : 0;
					close_fd(&p->fd[0]);
				} else {
					feed(p, &off);
				}
			} else if (idx[i] > 0 && p->fd[idx[i]] >= 0 &&
				   !(pf[i].revents & POLLIN) && !p->pty) {
				/* a pipe with nothing in it and no writer
				 * left: its end of file, without a read */
				close_fd(&p->fd[idx[i]]);
			} else if (idx[i] > 0 && p->fd[idx[i]] >= 0) {
				int r = read_one(p, idx[i], buf);

				if (r > 0)
					last_out = now_ms();
				else if (r < 0 && !killed)
					stop(p, exited, &killed, &drain_until);
			}
		}
		/* the pidfd last: output that came with the exit is read first */
		if (!exited && pf[0].revents && try_reap(p))
			ended(p, &exited, &exit_at, killed, &drain_until);
	}
	/* The direct child is gone: what is left of its session, group and
	 * cgroup goes too (background jobs of a successful call included). */
	/* The common case costs one kill(2): a group with nobody left and no
	 * cgroup means no /proc scan, unless the caller wants the session's
	 * other groups swept too (SPAWNKIT_RUN_SWEEP). */
	if (o->cgroup_fd >= 0 || (p->group && (killed || (o->flags & SPAWNKIT_RUN_SWEEP) ||
					       sk_syscall2(SYS_kill, -p->pid, 0) == 0)))
		kill_tree(p, 1);
	for (i = 0; i < 3; i++) {
		close_fd(&p->fd[i]);
		close_fd(&p->hold[i]);
	}
	close_fd(&p->pidfd);
	free(buf);
	return ret;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "pidfd.h"
#include "sync_wait.h"

#define BLOCK 65536	/* libuv's sync runner reads into 64 KiB buffers */

struct state {
	int pidfd;
	struct sync_slot *s;
	int n;
	double max_buffer, total;
	int kill_sig, killed, error, pipe_error;
	struct sync_result *r;
};

static void set_error(struct state *st, int err)
{
	if (!st->error)
		st->error = err;
}

static void close_slot(struct sync_slot *s)
{
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}

static void kill_child(struct state *st)
{
	if (st->killed)
		return;
	st->killed = 1;
	if (!st->r->exited && sk_pidfd_signal(st->pidfd, st->kill_sig) < 0 &&
	    errno != ESRCH) {
		set_error(st, -errno);
		sk_pidfd_signal(st->pidfd, SIGKILL);
	}
	for (int i = 0; i < st->n; i++)
		close_slot(&st->s[i]);
}

static void reap(struct state *st)
{
	siginfo_t si;

	si.si_pid = 0;
	if (waitid(P_PIDFD, (id_t)st->pidfd, &si, WEXITED | WNOHANG) < 0) {
		if (errno == EINTR)
			return;
		si.si_pid = 1;		/* reaped elsewhere: status lost */
		si.si_code = CLD_EXITED;
		si.si_status = 0;
	}
	if (si.si_pid == 0)
		return;
	st->r->exited = 1;
	if (si.si_code == CLD_EXITED)
		st->r->status = si.si_status;
	else
		st->r->termsig = si.si_status;
}

static void do_read(struct state *st, struct sync_slot *s)
{
	size_t room = BLOCK - s->out_len % BLOCK;
	ssize_t nr;

	if (s->out_cap - s->out_len < room) {
		size_t cap = s->out_cap ? s->out_cap * 2 : BLOCK;
		char *p;

		while (cap - s->out_len < room)
			cap *= 2;
		p = realloc(s->out, cap);
		if (!p) {
			st->pipe_error = -ENOMEM;
			close_slot(s);
			return;
		}
		s->out = p;
		s->out_cap = cap;
	}
	nr = read(s->fd, s->out + s->out_len, room);
	if (nr < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		if (errno != ECONNRESET && !st->pipe_error)
			st->pipe_error = -errno;
		close_slot(s);
		return;
	}
	if (nr == 0) {
		close_slot(s);
		return;
	}
	s->out_len += (size_t)nr;
	st->total += (double)nr;
	if (st->max_buffer > 0 && st->total > st->max_buffer) {
		set_error(st, -ENOBUFS);
		kill_child(st);
	}
}

static void do_write(struct state *st, struct sync_slot *s)
{
	ssize_t nw = send(s->fd, s->input + s->input_off,
			  s->input_len - s->input_off, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (nw < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		/* The child stopped reading: not an error for Node either. */
		if (errno != EPIPE && errno != ECONNRESET && !st->pipe_error)
			st->pipe_error = -errno;
		close_slot(s);
		return;
	}
	s->input_off += (size_t)nw;
	if (s->input_off == s->input_len) {
		shutdown(s->fd, SHUT_WR);
		close_slot(s);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void sync_wait(int pidfd, struct sync_slot *slots, int n, double timeout_ms,
	       double max_buffer, int kill_sig, struct sync_result *r)
{
	struct state st = { .pidfd = pidfd, .s = slots, .n = n,
			    .max_buffer = max_buffer, .kill_sig = kill_sig, .r = r };
	double deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	struct pollfd *pfd = calloc((size_t)n + 1, sizeof(*pfd));
	int *map = calloc((size_t)n + 1, sizeof(int));

	memset(r, 0, sizeof(*r));
	if (!pfd || !map) {
		/* No memory for a poll set: stop the child, wait for its exit. */
		set_error(&st, -ENOMEM);
		kill_child(&st);
		siginfo_t si = { 0 };

		if (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) == 0) {
			r->exited = 1;
			if (si.si_code == CLD_EXITED)
				r->status = si.si_status;
			else
				r->termsig = si.si_status;
		}
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (slots[i].fd < 0)
			continue;
		fcntl(slots[i].fd, F_SETFL, O_NONBLOCK);
		if (slots[i].is_input && slots[i].input_len == 0) {
			shutdown(slots[i].fd, SHUT_WR);
			close_slot(&slots[i]);
		}
	}
	for (;;) {
		int np = 0, wait_ms = -1, ret;

		if (!r->exited) {
			pfd[np] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
			map[np++] = -1;
		}
		for (int i = 0; i < n; i++) {
			if (slots[i].fd < 0)
				continue;
			pfd[np] = (struct pollfd){ .fd = slots[i].fd,
				.events = slots[i].is_input ? POLLOUT : POLLIN };
			map[np++] = i;
		}
		if (np == 0)
			break;
		if (deadline && !st.killed) {
			double left = deadline - now_ms();

			if (left <= 0) {
				set_error(&st, -ETIMEDOUT);
				kill_child(&st);
				continue;
			}
			wait_ms = (int)left + 1;
		}
		ret = poll(pfd, (nfds_t)np, wait_ms);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			set_error(&st, -errno);
			kill_child(&st);
			continue;
		}
		for (int k = 0; k < np; k++) {
			if (!pfd[k].revents)
				continue;
			if (map[k] < 0) {
				reap(&st);
				continue;
			}
			struct sync_slot *s = &slots[map[k]];

			if (s->fd < 0)
				continue;	/* closed by a kill above */
			if (s->is_input)
				do_write(&st, s);
			else
				do_read(&st, s);
		}
	}
out:
	free(pfd);
	free(map);
	r->error = st.error ? st.error : st.pipe_error;
}

/* SPDX-License-Identifier: MIT */
/*
 * request.c - one call over the socketpair: the request (proto.h) with the
 * tool's fds, its cwd and the call's go channel as SCM_RIGHTS, then the
 * reply with the tool's pidfd, then "g" on the go channel: the tool runs
 * nothing of the call before that.
 *
 * Anything unexpected (EOF, a short or malformed reply, no answer within
 * SPAWNKIT_WARM_TIMEOUT, a death at any step) makes the interpreter
 * unusable and the call runs cold.  The tool, if the interpreter got as far
 * as cloning it, is already our child (CLONE_PARENT) and the reply that
 * would have named it may never come: it names itself on the go channel
 * (its pid, first thing after the clone), so once the interpreter is gone
 * we either read that pid, kill and reap the tool, or read EOF (no tool was
 * made).  Nothing of the call ran, nothing is left unreaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "common/sys.h"

#include "warm/proto.h"
#include "warm/warm_int.h"

int warm_wait_readable(const struct warm_interp *w, double seconds);

struct mbuf {
	char *p;
	size_t len, cap;
	int err;
};

static void put(struct mbuf *b, const void *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > WARM_MAX_MSG) {
		b->err = 1;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void put32(struct mbuf *b, uint32_t v)
{
	unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8),
			       (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
	put(b, x, 4);
}

static void put64(struct mbuf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

static void putstr(struct mbuf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Wait up to `seconds` for the go channel to say something (or EOF). */
static int go_readable(int go, double seconds)
{
	uint64_t end = warm_now_ns() + (uint64_t)(seconds * 1e9);

	for (;;) {
		struct pollfd p = { .fd = go, .events = POLLIN };
		uint64_t now = warm_now_ns();
		int r;

		if (now >= end)
			return 0;
		r = poll(&p, 1, (int)((end - now) / 1000000 + 1));
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return 0;
	}
}

/*
 * The request failed after it was sent and the interpreter is stopped (so
 * its end of the go channel is closed): a tool it cloned holds the only
 * other end and has written its pid there.  Kill and reap it.
 */
static void reap_unannounced(int go, double seconds)
{
	unsigned char b[4];
	siginfo_t si;
	ssize_t n;
	pid_t pid;
	int fd;

	if (!go_readable(go, seconds))
		return;			/* a tool that never named itself: see docs */
	do
		n = recv(go, b, sizeof(b), MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n != 4)
		return;			/* EOF: the interpreter made no tool */
	pid = (pid_t)get32(b);
	if (pid <= 0)
		return;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return;
	/* our child? (an unreaped child keeps its pid: no reuse race) */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)fd, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
		syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		while (waitid(P_PIDFD, (id_t)fd, &si, WEXITED) < 0 && errno == EINTR)
			;
	}
	close(fd);
}

int warm_request(struct warm_interp *w, const struct warm_request *r, pid_t *pid, int *pidfd)
{
	const struct warm_fdplan *plan = r->plan;
	int fds[WARM_MAX_FDS + 2], nfd = 0, cwd = -1, go[2] = { -1, -1 }, sent = 0, i;
	int ret = SPAWNKIT_WARM_FAILED;
	double timeout = warm_env_seconds("SPAWNKIT_WARM_TIMEOUT", 30);
	union {
		char buf[CMSG_SPACE(sizeof(int) * (WARM_MAX_FDS + 2))];
		struct cmsghdr align;
	} ctl;
	struct mbuf b = { 0 };
	unsigned char reply[16];
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *cm;
	uint32_t nargv = 0, nenv = 0;
	ssize_t n;

	if (plan->cwd_src >= 0) {
		fds[nfd++] = plan->cwd_src;
	} else {
		cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cwd < 0)
			return SPAWNKIT_WARM_FDS;
		fds[nfd++] = cwd;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, go)) {
		go[0] = go[1] = -1;
		ret = SPAWNKIT_WARM_FDS;	/* ours (EMFILE): the interpreter is fine */
		goto out;
	}
	fds[nfd++] = go[1];
	for (i = 0; i < plan->n; i++)
		fds[nfd++] = plan->src[i];

	put(&b, WARM_MAGIC_REQUEST, 4);
	put32(&b, (uint32_t)nfd);
	put32(&b, (uint32_t)-1);
	put32(&b, (uint32_t)-2);
	for (i = 0; i < plan->n; i++)
		put32(&b, (uint32_t)plan->target[i]);
	put32(&b, r->umask);
	put64(&b, r->mask);
	put64(&b, r->ignored);
	put32(&b, WARM_NR_RLIMITS);
	for (i = 0; i < WARM_NR_RLIMITS; i++) {
		put64(&b, (uint64_t)r->proc->rl[i].rlim_cur);
		put64(&b, (uint64_t)r->proc->rl[i].rlim_max);
	}
	while (r->argv[nargv])
		nargv++;
	while (r->envp[nenv])
		nenv++;
	put32(&b, (uint32_t)r->call->mode);
	put32(&b, (uint32_t)r->call->rest);
	put32(&b, nargv);
	put32(&b, nenv);
	for (i = 0; i < (int)nargv; i++)
		putstr(&b, r->argv[i]);
	for (i = 0; i < (int)nenv; i++)
		putstr(&b, r->envp[i]);
	putstr(&b, r->comm);
	putstr(&b, r->call->payload);
	if (b.err) {
		ret = SPAWNKIT_WARM_ENV;		/* too large for one message */
		goto out;
	}

	memset(&mh, 0, sizeof(mh));
	memset(&ctl, 0, sizeof(ctl));
	iov.iov_base = b.p;
	iov.iov_len = b.len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfd);
	do
		n = sendmsg(w->sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = (errno == EMSGSIZE || errno == ENOBUFS) ? SPAWNKIT_WARM_ENV :
		      errno == EBADF ? SPAWNKIT_WARM_FDS : SPAWNKIT_WARM_FAILED;
		goto out;
	}
	sent = 1;
	close(go[1]);			/* the interpreter (and a tool) hold it now */
	go[1] = -1;

	if (!warm_wait_readable(w, timeout))
		goto out;
	memset(&mh, 0, sizeof(mh));
	memset(&ctl, 0, sizeof(ctl));
	iov.iov_base = reply;
	iov.iov_len = sizeof(reply);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int));
	do
		n = recvmsg(w->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*pidfd = -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(pidfd, CMSG_DATA(cm), sizeof(int));
	if (n != 12 || memcmp(reply, WARM_MAGIC_REPLY, 4) || get32(reply + 4) ||
	    (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || *pidfd < 0) {
		if (*pidfd >= 0)
			close(*pidfd);
		*pidfd = -1;
		goto out;
	}
	*pid = (pid_t)get32(reply + 8);
	/* the go: EPIPE means the tool already died (killed from outside); its
	 * status is the caller's to collect, as for a cold child */
	while (send(go[0], "g", 1, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	ret = 0;
out:
	if (ret && sent) {
		warm_interp_stop(w);
		reap_unannounced(go[0], timeout);
	}
	for (i = 0; i < 2; i++)
		if (go[i] >= 0)
			close(go[i]);
	if (cwd >= 0)
		close(cwd);
	free(b.p);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * interp.c - one warm interpreter: started as the caller's child from a
 * spawn template (`PYTHON [flags] -c <bootstrap>`, fd 3 the socketpair, cwd
 * "/", stdin /dev/null, stdout and stderr a pipe), its hello read, its watch
 * list recorded, and stopped with SIGKILL (it keeps no state) and reaped.
 *
 * An interpreter that writes anything while starting (a .pth that prints, a
 * start-up warning) cannot be warmed: a cold start would show that output on
 * every call.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "warm/proto.h"
#include "warm/warm_int.h"

extern const char sk_warm_bootstrap[];

uint64_t warm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double warm_env_seconds(const char *name, double dflt)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (!v || !*v)
		return dflt;
	d = strtod(v, &end);
	return (*end || d < 0) ? dflt : d;
}

static int high_fd(int fd)
{
	int hi;

	if (fd < 0 || fd > 2)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
}

static void watch_stat(struct warm_watch *w)
{
	struct stat st;

	w->present = !stat(w->path, &st);
	if (!w->present)
		return;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->size = st.st_size;
	w->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	w->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
}

int warm_interp_fresh(const struct warm_interp *w)
{
	int i;

	for (i = 0; i < w->nwatch; i++) {
		struct warm_watch now = { .path = w->watch[i].path };

		watch_stat(&now);
		if (now.present != w->watch[i].present)
			return 0;
		if (now.present && (now.dev != w->watch[i].dev || now.ino != w->watch[i].ino ||
				    now.size != w->watch[i].size ||
				    now.mtime_ns != w->watch[i].mtime_ns ||
				    now.ctime_ns != w->watch[i].ctime_ns))
			return 0;
	}
	return 1;
}

int warm_interp_alive(const struct warm_interp *w)
{
	struct pollfd p = { .fd = w->pidfd, .events = POLLIN };

	return w->pidfd >= 0 && poll(&p, 1, 0) == 0;
}

void warm_interp_stop(struct warm_interp *w)
{
	int i;

	if (w->sock >= 0)
		close(w->sock);
	w->sock = -1;
	if (w->pidfd >= 0) {
		siginfo_t si;

		syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
		while (waitid(P_PIDFD, (id_t)w->pidfd, &si, WEXITED) < 0 && errno == EINTR)
			;
		close(w->pidfd);
	}
	w->pidfd = -1;
	for (i = 0; i < w->nwatch; i++)
		free(w->watch[i].path);
	free(w->watch);
	w->watch = NULL;
	w->nwatch = 0;
}

/* Parse the hello; 0 or a reason. */
static int take_hello(struct warm_interp *w, const char *msg, size_t len)
{
	const char *p = msg + 4, *end = msg + len;
	int n = 0;

	if (len < 7 || memcmp(msg, WARM_MAGIC_HELLO, 4))
		return SPAWNKIT_WARM_FAILED;
	if (strcmp(p, "ok"))
		return SPAWNKIT_WARM_UNSUPPORTED;
	p += 3;
	snprintf(w->version, sizeof(w->version), "%s", p);
	p += strlen(p) + 1;
	for (const char *q = p; q < end; q += strlen(q) + 1)
		n++;
	w->watch = calloc((size_t)n + 1, sizeof(*w->watch));
	if (!w->watch)
		return SPAWNKIT_WARM_FAILED;
	for (; p < end; p += strlen(p) + 1) {
		struct warm_watch *x = &w->watch[w->nwatch];

		x->path = strdup(p);
		if (!x->path)
			return SPAWNKIT_WARM_FAILED;
		watch_stat(x);
		w->nwatch++;
	}
	return 0;
}

/* Wait for a message on w->sock while the interpreter lives. */
int warm_wait_readable(const struct warm_interp *w, double seconds);
int warm_wait_readable(const struct warm_interp *w, double seconds)
{
	uint64_t end = warm_now_ns() + (uint64_t)(seconds * 1e9);

	for (;;) {
		struct pollfd p[2] = { { .fd = w->sock, .events = POLLIN }, { .fd = w->pidfd, .events = POLLIN } };
		uint64_t now = warm_now_ns();
		int r;

		if (now >= end)
			return 0;
		r = poll(p, 2, (int)((end - now) / 1000000 + 1));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 0;
		if (p[0].revents & POLLIN)
			return 1;
		if (p[0].revents || p[1].revents)
			return 0;			/* hung up or exited */
	}
}

static void sigset_of(struct spawn_template_sigset *s, const uint64_t *bits)
{
	s->sigset = (uint64_t)(uintptr_t)bits;
	s->sigsetsize = 8;
}

int warm_interp_start(struct warm_interp *w, const char *path, char *const argv[],
		      const struct warm_call *c, const struct warm_proc *proc)
{
	static const uint64_t empty = 0;
	struct spawn_template_action act[10];
	struct spawn_template_sigset none;
	struct spawnkit_template *t = NULL;
	int sv[2] = { -1, -1 }, out[2] = { -1, -1 }, devnull, root, scratch, i, n = 0, ret;
	const char *die, *ic;
	char pidbuf[24], idlebuf[32], *args[WARM_MAX_FLAGS + 10], **envp = NULL, *msg = NULL;
	ssize_t len;
	pid_t pid;

	w->sock = w->pidfd = -1;
	w->proc = *proc;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return SPAWNKIT_WARM_FAILED;
	sv[0] = high_fd(sv[0]);
	sv[1] = high_fd(sv[1]);
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK)) {
		out[0] = out[1] = -1;
	}
	out[0] = high_fd(out[0]);
	out[1] = high_fd(out[1]);
	devnull = high_fd(open("/dev/null", O_RDWR | O_CLOEXEC));
	root = high_fd(open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
	ret = SPAWNKIT_WARM_FAILED;
	if (sv[0] < 0 || sv[1] < 0 || out[0] < 0 || out[1] < 0 || devnull < 0 || root < 0)
		goto out;
	{
		int big = WARM_MAX_MSG + 4096;

		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
		setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	}
	if (spawnkit_template_create(path, SPAWN_TEMPLATE_CREATE_CLOEXEC, &t) < 0)
		goto out;
	scratch = sv[1];
	if (out[1] > scratch) scratch = out[1];
	if (devnull > scratch) scratch = devnull;
	if (root > scratch) scratch = root;
	scratch++;
	sigset_of(&none, &empty);
	spawnkit_action_fchdir(&act[n++], root);
	spawnkit_action_dup2(&act[n++], devnull, 0, 0);
	spawnkit_action_dup2(&act[n++], out[1], 1, 0);
	spawnkit_action_dup2(&act[n++], out[1], 2, 0);
	spawnkit_action_dup2(&act[n++], sv[1], scratch, 0);
	spawnkit_action_dup2(&act[n++], scratch, WARM_SOCK_FD, 0);
	spawnkit_action_close_range(&act[n++], WARM_SOCK_FD + 1, SPAWN_TEMPLATE_FD_MAX, 0);
	act[n].type = SPAWN_TEMPLATE_ACTION_SIGMASK;
	act[n].flags = 0;
	act[n].fd = act[n].newfd = 0;
	act[n++].arg = (uint64_t)(uintptr_t)&none;

	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
	w->idle_ns = (uint64_t)(warm_env_seconds("SPAWNKIT_WARM_IDLE", 60) * 1e9);
	snprintf(idlebuf, sizeof(idlebuf), "%g", (double)w->idle_ns / 1e9);
	i = 0;
	args[i++] = argv[0];
	for (int f = 0; f < c->nflags; f++)
		args[i++] = (char *)c->flags[f];
	args[i++] = "-c";
	args[i++] = (char *)sk_warm_bootstrap;
	args[i++] = pidbuf;
	args[i++] = syscall(SYS_gettid) == getpid() ? "1" : "0";
	args[i++] = idlebuf;
	args[i++] = (char *)(c->preload ? c->preload : "");
	/* the import cache (importcache.py); SPAWNKIT_WARM_IMPORT_CACHE=0 turns
	 * it off, for measuring it (bench/warm) */
	ic = getenv("SPAWNKIT_WARM_IMPORT_CACHE");
	args[i++] = (ic && !strcmp(ic, "0")) ? "0" : "1";
	die = getenv("SPAWNKIT_WARM_TEST_DIE");	/* tests/warm/robust.py */
	if (die && *die)
		args[i++] = (char *)die;
	args[i] = NULL;
	envp = warm_key_env(&w->key);
	if (!envp)
		goto out;
	pid = spawnkit_spawn(t, args, envp, act, (unsigned int)n, SPAWNKIT_SPAWN_INHERIT_FDS,
			     &w->pidfd);
	if (pid < 0) {
		w->pidfd = -1;
		goto out;
	}
	w->pid = pid;
	w->sock = sv[0];
	sv[0] = -1;
	close(sv[1]);
	sv[1] = -1;
	close(out[1]);
	out[1] = -1;
	msg = malloc(65536);
	if (!msg || !warm_wait_readable(w, warm_env_seconds("SPAWNKIT_WARM_TIMEOUT", 30)))
		goto out;
	len = recv(w->sock, msg, 65535, MSG_DONTWAIT);
	if (len <= 0)
		goto out;
	msg[len] = '\0';
	ret = take_hello(w, msg, (size_t)len);
	if (!ret) {
		char b;

		if (read(out[0], &b, 1) > 0)	/* start-up wrote something */
			ret = SPAWNKIT_WARM_UNSUPPORTED;
	}
out:
	free(msg);
	free(envp);
	if (t)
		spawnkit_template_destroy(t);
	for (i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	if (devnull >= 0)
		close(devnull);
	if (root >= 0)
		close(root);
	if (ret)
		warm_interp_stop(w);
	w->started_ns = w->last_ns = warm_now_ns();
	return ret;
}

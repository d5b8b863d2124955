/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kill_tree.h"
#include "pidfd.h"

/* Upper bound on one tree; beyond it the rest is left to the grace timer. */
#define KILL_TREE_MAX 65536

struct victims {
	pid_t *pid;
	int *pidfd;		/* -1: signal by pid (parent is stopped) */
	int n, cap;
};

static int victims_has(const struct victims *v, pid_t pid)
{
	for (int i = 0; i < v->n; i++)
		if (v->pid[i] == pid)
			return 1;
	return 0;
}

static int victims_add(struct victims *v, pid_t pid, int pidfd)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 64;
		pid_t *p;
		int *f;

		if (cap > KILL_TREE_MAX)
			return -E2BIG;
		p = realloc(v->pid, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		v->pid = p;
		f = realloc(v->pidfd, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		v->pidfd = f;
		v->cap = cap;
	}
	v->pid[v->n] = pid;
	v->pidfd[v->n] = pidfd;
	v->n++;
	return 0;
}

static int send_to(const struct victims *v, int i, int sig)
{
	if (v->pidfd[i] >= 0)
		return sk_pidfd_signal(v->pidfd[i], sig);
	return kill(v->pid[i], sig);
}

/* Stop and record every child of v->pid[i] (all its threads' children). */
static int add_children(struct victims *v, int i)
{
	char path[320], buf[4096];
	struct dirent *de;
	DIR *tasks;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)v->pid[i]);
	tasks = opendir(path);
	if (!tasks)
		return 0;	/* exited meanwhile: nothing below it */
	while (!err && (de = readdir(tasks))) {
		ssize_t len;
		char *s, *end;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
			 (int)v->pid[i], de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		for (s = buf; !err; s = end) {
			long pid = strtol(s, &end, 10);

			if (end == s)
				break;
			if (pid <= 0 || victims_has(v, (pid_t)pid))
				continue;
			kill((pid_t)pid, SIGSTOP);
			err = victims_add(v, (pid_t)pid, -1);
		}
	}
	closedir(tasks);
	return err;
}

static int holds_pipe(pid_t pid, const unsigned long *ino, int nr)
{
	char path[64], link[64];
	struct dirent *de;
	DIR *fds;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	fds = opendir(path);
	if (!fds)
		return 0;
	while (!found && (de = readdir(fds))) {
		char lpath[600];
		unsigned long n;
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(lpath, sizeof(lpath), "%s/%s", path, de->d_name);
		len = readlink(lpath, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (sscanf(link, "pipe:[%lu]", &n) != 1)
			continue;
		for (int k = 0; k < nr; k++)
			if (ino[k] == n)
				found = 1;
	}
	closedir(fds);
	return found;
}

/* Processes outside the walked tree that hold one of our pipes. */
static int add_pipe_holders(struct victims *v, const unsigned long *ino, int nr)
{
	pid_t self = getpid();
	struct dirent *de;
	DIR *proc;
	int err = 0;

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!err && (de = readdir(proc))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		int pidfd;

		if (*end || pid <= 0 || pid == self || victims_has(v, (pid_t)pid))
			continue;
		/* pidfd first: what we scan next is what we will signal. */
		pidfd = sk_pidfd_open((pid_t)pid);
		if (pidfd < 0)
			continue;
		if (!holds_pipe((pid_t)pid, ino, nr)) {
			close(pidfd);
			continue;
		}
		sk_pidfd_signal(pidfd, SIGSTOP);
		err = victims_add(v, (pid_t)pid, pidfd);
		if (err)
			close(pidfd);
	}
	closedir(proc);
	return err;
}

int kill_tree(int root_pidfd, pid_t root, int sig,
	      const unsigned long *pipe_inodes, int nr_inodes)
{
	struct victims v = { 0 };
	int err = 0, sent = 0, walked = 0;

	if (root_pidfd >= 0) {
		sk_pidfd_signal(root_pidfd, SIGSTOP);
		err = victims_add(&v, root, root_pidfd);
	}
	/* Walk below the tree, then below anything the pipe scan found. */
	for (int pass = 0; !err && pass < 2; pass++) {
		for (; !err && walked < v.n; walked++)
			err = add_children(&v, walked);
		if (!err && pass == 0 && nr_inodes > 0)
			err = add_pipe_holders(&v, pipe_inodes, nr_inodes);
	}
	/* Even on a partial list, signal what we have stopped. */
	for (int i = 0; i < v.n; i++)
		if (send_to(&v, i, sig) == 0)
			sent++;
	if (sig != SIGKILL)
		for (int i = 0; i < v.n; i++)
			send_to(&v, i, SIGCONT);
	for (int i = 0; i < v.n; i++)
		if (v.pidfd[i] >= 0 && v.pidfd[i] != root_pidfd)
			close(v.pidfd[i]);
	free(v.pid);
	free(v.pidfd);
	return err ? err : sent;
}

/* SPDX-License-Identifier: MIT */
/*
 * killtree.c - the one tree-kill policy (issue 11): the process group and
 * session, the cgroup, and a /proc walk for what escaped both.
 *
 * The walk reads pid, ppid, process group and session of every process from
 * /proc/<pid>/stat (no CONFIG_PROC_CHILDREN needed), takes the group and
 * session members and every descendant of a process taken (by parent pid,
 * to a fixed point), and signals them.  A fork can race with a walk, so the
 * walk repeats while it signals processes it had not seen (bounded rounds).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/sys.h"
#include <spawnkit/run.h>

#define WALK_ROUNDS 16

struct proc {
	pid_t pid, ppid, pgrp, sid;
	int taken, dead;
};

/* "pid (comm) S ppid pgrp sid ...": comm may hold spaces and ')' */
static int read_stat(int dirfd, const char *name, struct proc *p)
{
	char path[300], buf[512], *rp, state;
	long n;
	int fd;

	snprintf(path, sizeof(path), "%s/stat", name);
	fd = (int)sk_syscall4(SYS_openat, dirfd, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	n = sk_syscall3(SYS_read, fd, buf, sizeof(buf) - 1);
	sk_syscall1(SYS_close, fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %c %d %d %d", &state, &p->ppid, &p->pgrp, &p->sid) != 4)
		return -1;
	p->pid = atoi(buf);
	p->taken = 0;
	p->dead = state == 'Z' || state == 'X';	/* nothing left to signal */
	return 0;
}

/* Every process now, or NULL (no /proc, ENOMEM). */
static struct proc *scan(size_t *np)
{
	struct proc *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (read_stat(dirfd(d), de->d_name, &v[n]) == 0)
			n++;
	}
	closedir(d);
	*np = n;
	return v;
}

/* pid -> index, open addressing over a power-of-two table (-1: empty) */
static long find(const int *tab, size_t mask, const struct proc *v, pid_t pid)
{
	size_t h = ((size_t)pid * 2654435761u) & mask;

	while (tab[h] >= 0) {
		if (v[tab[h]].pid == pid)
			return tab[h];
		h = (h + 1) & mask;
	}
	return -1;
}

/* Is pid in the sorted-on-insert list of pids already signalled? */
struct seen {
	pid_t *pids;
	size_t n, cap;
};

static int seen_add(struct seen *s, pid_t pid)
{
	size_t i;
	pid_t *np;

	for (i = 0; i < s->n; i++)
		if (s->pids[i] == pid)
			return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		np = realloc(s->pids, s->cap * sizeof(*np));
		if (!np)
			return 1;	/* counts as new: at worst one more round */
		s->pids = np;
	}
	s->pids[s->n++] = pid;
	return 1;
}

/* One walk: signal what belongs to the tree; how many new ones. */
static int walk(pid_t leader, int group, int gone, int sig, pid_t self, struct seen *seen)
{
	size_t n = 0, i, size = 1, mask;
	struct proc *v = scan(&n);
	int changed, fresh = 0, *tab;
	long pi;

	if (!v)
		return 0;
	while (size < 2 * n + 2)
		size *= 2;
	mask = size - 1;
	tab = malloc(size * sizeof(*tab));
	if (!tab) {
		free(v);
		return 0;
	}
	memset(tab, 0xff, size * sizeof(*tab));
	for (i = 0; i < n; i++) {
		size_t h = ((size_t)v[i].pid * 2654435761u) & mask;

		while (tab[h] >= 0)
			h = (h + 1) & mask;
		tab[h] = (int)i;
		v[i].taken = (!gone && v[i].pid == leader) ||
			     (group && (v[i].sid == leader || v[i].pgrp == leader));
	}
	do {	/* descendants of anything taken, to a fixed point */
		changed = 0;
		for (i = 0; i < n; i++) {
			if (v[i].taken)
				continue;
			pi = find(tab, mask, v, v[i].ppid);
			if (pi >= 0 && v[pi].taken)
				v[i].taken = changed = 1;
		}
	} while (changed);
	for (i = 0; i < n; i++)
		if (v[i].taken && !v[i].dead && v[i].pid != self && v[i].pid > 1 &&
		    sk_syscall2(SYS_kill, v[i].pid, sig) == 0)
			fresh += seen_add(seen, v[i].pid);
	free(tab);
	free(v);
	return fresh;
}

/* cgroup.kill (5.14+), else each pid cgroup.procs lists; how many. */
static int kill_cgroup(int cgfd, int sig, pid_t self)
{
	char buf[4096];
	long fd, n;
	int hits = 0, round;

	if (sig == SIGKILL) {
		fd = sk_syscall4(SYS_openat, cgfd, "cgroup.kill", O_WRONLY | O_CLOEXEC, 0);
		if (fd >= 0) {
			n = sk_syscall3(SYS_write, fd, "1", 1);
			sk_syscall1(SYS_close, fd);
			if (n == 1)
				return 1;
		}
	}
	for (round = 0; round < WALK_ROUNDS; round++) {
		int found = 0;
		char *p, *end;

		fd = sk_syscall4(SYS_openat, cgfd, "cgroup.procs", O_RDONLY | O_CLOEXEC, 0);
		if (fd < 0)
			break;
		/* one read's worth a round: a long list takes more rounds */
		n = sk_syscall3(SYS_read, fd, buf, sizeof(buf) - 1);
		sk_syscall1(SYS_close, fd);
		if (n <= 0)
			break;
		buf[n] = '\0';
		end = strrchr(buf, '\n');
		if (end)
			end[1] = '\0';
		for (p = buf; *p; ) {
			long pid = strtol(p, &p, 10);

			while (*p == '\n')
				p++;
			if (pid > 1 && pid != self && sk_syscall2(SYS_kill, pid, sig) == 0) {
				hits++;
				found = 1;
			}
			if (pid <= 0)
				break;
		}
		if (!found || sig != SIGKILL)
			break;
	}
	return hits;
}

SK_EXPORT int spawnkit_kill_tree(pid_t leader, int cgroup_fd, int sig, unsigned int flags)
{
	pid_t self = (pid_t)sk_syscall0(SYS_getpid);
	struct seen seen = { 0 };
	int hits = 0, round, n, gone;
	struct stat st;

	if (leader <= 1 || leader == self || sig < 0 || sig > 64 ||
	    (flags & ~(SPAWNKIT_KILL_GROUP | SPAWNKIT_KILL_REAPED)) || cgroup_fd < -1)
		return -EINVAL;
	/* A reaped leader's pid may name another process by now: only the
	 * members of its group and session, which keep the number from
	 * being reused, are signalled through it. */
	gone = !!(flags & SPAWNKIT_KILL_REAPED);
	if (cgroup_fd >= 0 && sk_syscall2(SYS_fstat, cgroup_fd, &st))
		return -EBADF;
	/*
	 * A process that dies hands its children to init at once, so killing
	 * the group first would cut every escaped descendant loose before the
	 * walk could follow its parent.  For SIGKILL the group (== the
	 * session's first group) and the leader are stopped first: nothing in
	 * them forks or exits while the walk collects the tree, and a stopped
	 * process still dies of SIGKILL.
	 */
	if (sig == SIGKILL) {
		if (flags & SPAWNKIT_KILL_GROUP)
			sk_syscall2(SYS_kill, -leader, SIGSTOP);
		if (!gone)
			sk_syscall2(SYS_kill, leader, SIGSTOP);
	}
	if (cgroup_fd >= 0)
		hits += kill_cgroup(cgroup_fd, sig, self);
	/* The walk: the leader, its session's members in whatever group, and
	 * every descendant; again while a round finds processes no earlier
	 * round signalled (a fork can race with a scan). */
	for (round = 0; round < WALK_ROUNDS; round++) {
		n = walk(leader, !!(flags & SPAWNKIT_KILL_GROUP), gone, sig, self, &seen);
		hits += n;
		if (!n)
			break;
	}
	/* and the group in one call, for what the walk could not see (no
	 * /proc, a scan that ran out of memory) */
	if ((flags & SPAWNKIT_KILL_GROUP) && sk_syscall2(SYS_kill, -leader, sig) == 0 && !hits)
		hits++;
	if (!gone && sk_syscall2(SYS_kill, leader, sig) == 0 && !hits)	/* never left stopped */
		hits++;
	free(seen.pids);
	return hits;
}

/* SPDX-License-Identifier: MIT */
/*
 * procstate.c - what a tool inherits from its creator that the warm
 * interpreter fixed when it started: credentials, supplementary groups,
 * capabilities, no_new_privs, seccomp, namespaces, personality, session and
 * process group, and the hard rlimits (a child can lower, not raise them).
 * A call whose caller no longer matches the interpreter's start runs cold.
 *
 * Most of it is one read of /proc/thread-self/status (the calling thread's:
 * credentials and seccomp are per thread), which also gives the umask
 * without the umask(2) round trip that would race other threads, and the
 * ignored and blocked signals without a sigaction(2) per signal.  Seccomp
 * filters only ever stack, and the interpreter inherited the stack of the
 * thread that started it: the same mode and the same number of filters
 * (Seccomp_filters, Linux 5.9+) is the same filter set, as long as the
 * caller's threads share one (SECCOMP_FILTER_FLAG_TSYNC, the usual way).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/personality.h>
#include <sys/stat.h>

#include "warm/warm_int.h"

static const char *const ns_names[WARM_NR_NS] = {
	"mnt", "pid_for_children", "net", "user", "uts", "ipc", "cgroup"
};

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* The value after "Name:" in status, or NULL. */
static const char *field(const char *buf, const char *name)
{
	size_t n = strlen(name);
	const char *p = buf;

	while ((p = strstr(p, name))) {
		if ((p == buf || p[-1] == '\n') && p[n] == ':')
			return p + n + 1;
		p += n;
	}
	return NULL;
}

static int status_fields(struct warm_proc *p)
{
	char buf[4096];
	const char *v;
	int fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!(v = field(buf, "Umask")))
		return -1;
	p->umask = (unsigned int)strtoul(v, NULL, 8);
	if (!(v = field(buf, "Uid")))
		return -1;
	p->ids_hash = fnv(1469598103934665603ULL, v, strcspn(v, "\n"));
	if (!(v = field(buf, "Gid")))
		return -1;
	p->ids_hash = fnv(p->ids_hash, v, strcspn(v, "\n"));
	if ((v = field(buf, "Groups")))
		p->ids_hash = fnv(p->ids_hash, v, strcspn(v, "\n"));
	if ((v = field(buf, "CapInh")))
		p->caps[2] = strtoull(v, NULL, 16);
	if ((v = field(buf, "CapPrm")))
		p->caps[1] = strtoull(v, NULL, 16);
	if ((v = field(buf, "CapEff")))
		p->caps[0] = strtoull(v, NULL, 16);
	if ((v = field(buf, "CapAmb")))
		p->ids_hash = fnv(p->ids_hash, v, strcspn(v, "\n"));
	if (!(v = field(buf, "SigIgn")))
		return -1;
	p->sigign = strtoull(v, NULL, 16);
	if (!(v = field(buf, "SigBlk")))
		return -1;
	p->sigblk = strtoull(v, NULL, 16);
	p->nnp = (v = field(buf, "NoNewPrivs")) ? atoi(v) : 0;
	p->seccomp = (v = field(buf, "Seccomp")) ? atoi(v) : 0;
	/* without the count, filters cannot be compared: -1 never matches */
	p->seccomp_filters = (v = field(buf, "Seccomp_filters")) ? atoi(v) : (p->seccomp ? -1 : 0);
	return 0;
}

int warm_proc_snapshot(struct warm_proc *p)
{
	char path[64];
	int i;

	memset(p, 0, sizeof(*p));
	if (status_fields(p))
		return -1;
	for (i = 0; i < WARM_NR_NS; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "/proc/thread-self/ns/%s", ns_names[i]);
		p->ns[i] = stat(path, &st) ? 0 : (uint64_t)st.st_ino;
	}
	p->personality = personality(0xffffffff);
	p->sid = getsid(0);
	p->pgid = getpgrp();
	for (i = 0; i < WARM_NR_RLIMITS; i++)
		getrlimit(i, &p->rl[i]);
	return 0;
}

int warm_proc_compatible(const struct warm_proc *then, const struct warm_proc *now)
{
	int i;

	if (then->seccomp != now->seccomp || then->seccomp_filters != now->seccomp_filters ||
	    now->seccomp_filters < 0)
		return 0;
	if (then->ids_hash != now->ids_hash ||
	    memcmp(then->ns, now->ns, sizeof(now->ns)) ||
	    memcmp(then->caps, now->caps, sizeof(now->caps)) ||
	    then->nnp != now->nnp || then->personality != now->personality ||
	    then->sid != now->sid || then->pgid != now->pgid)
		return 0;
	for (i = 0; i < WARM_NR_RLIMITS; i++)
		if (now->rl[i].rlim_max > then->rl[i].rlim_max &&
		    !(then->caps[0] & (1ULL << 24)))	/* CAP_SYS_RESOURCE */
			return 0;
	return 1;
}

/* SPDX-License-Identifier: MIT */
/*
 * procstate.c - what a tool inherits from its creator that the warm
 * interpreter fixed when it started: credentials, namespaces, seccomp,
 * no_new_privs, capabilities, personality, session and process group, and
 * the hard rlimits (a child can lower, not raise them).  A call whose caller
 * no longer matches the interpreter's start runs cold.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "warm/warm_int.h"

static const char *const ns_names[WARM_NR_NS] = {
	"mnt", "pid_for_children", "net", "user", "uts", "ipc", "cgroup"
};

int warm_proc_snapshot(struct warm_proc *p)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	gid_t groups[256];
	char path[64];
	int i, n;

	memset(p, 0, sizeof(*p));
	if (getresuid(&p->uid[0], &p->uid[1], &p->uid[2]) ||
	    getresgid(&p->gid[0], &p->gid[1], &p->gid[2]))
		return -1;
	n = getgroups(256, groups);
	p->groups_hash = 1469598103934665603ULL;
	for (i = 0; i < n; i++)
		p->groups_hash = (p->groups_hash ^ (uint64_t)groups[i]) * 1099511628211ULL;
	p->groups_hash ^= (uint64_t)n;
	for (i = 0; i < WARM_NR_NS; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "/proc/thread-self/ns/%s", ns_names[i]);
		p->ns[i] = stat(path, &st) ? 0 : (uint64_t)st.st_ino;
	}
	if (!syscall(SYS_capget, &h, d)) {
		p->caps[0] = d[0].effective | (uint64_t)d[1].effective << 32;
		p->caps[1] = d[0].permitted | (uint64_t)d[1].permitted << 32;
		p->caps[2] = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	}
	p->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	p->nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
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

	if (now->seccomp != 0 || then->seccomp != 0)
		return 0;		/* filters cannot be compared */
	if (memcmp(then->uid, now->uid, sizeof(now->uid)) ||
	    memcmp(then->gid, now->gid, sizeof(now->gid)) ||
	    then->groups_hash != now->groups_hash ||
	    memcmp(then->ns, now->ns, sizeof(now->ns)) ||
	    memcmp(then->caps, now->caps, sizeof(now->caps)) ||
	    then->nnp != now->nnp || then->personality != now->personality ||
	    then->sid != now->sid || then->pgid != now->pgid)
		return 0;
	for (i = 0; i < WARM_NR_RLIMITS; i++)
		if (now->rl[i].rlim_max > then->rl[i].rlim_max &&
		    !(then->caps[0] & (1ULL << CAP_SYS_RESOURCE)))
			return 0;
	return 1;
}

/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>

#include "common/sys.h"
#include "spawn/creds.h"

/* Everything but the groups; 0 or -errno. */
static int read_ids(struct sk_creds *c)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	long ret;

	memset(data, 0, sizeof(data));
	ret = sk_syscall3(SYS_getresuid, &c->ruid, &c->euid, &c->suid);
	if (!ret)
		ret = sk_syscall3(SYS_getresgid, &c->rgid, &c->egid, &c->sgid);
	if (ret)
		return (int)ret;
	/* setfs[ug]id(-1) changes nothing and returns the current value. */
	c->fsuid = (uid_t)sk_syscall1(SYS_setfsuid, -1);
	c->fsgid = (gid_t)sk_syscall1(SYS_setfsgid, -1);
	ret = sk_syscall2(SYS_capget, &hdr, data);
	if (ret)
		return (int)ret;
	c->cap[0] = data[0].effective;
	c->cap[1] = data[1].effective;
	c->cap[2] = data[0].permitted;
	c->cap[3] = data[1].permitted;
	c->cap[4] = data[0].inheritable;
	c->cap[5] = data[1].inheritable;
	return 0;
}

int sk_creds_snapshot(struct sk_creds *c)
{
	long n;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = read_ids(c);
	if (ret)
		return ret;
	for (;;) {
		n = sk_syscall2(SYS_getgroups, 0, NULL);
		if (n < 0)
			return (int)n;
		c->groups = c->inline_groups;
		if (n > SK_CREDS_INLINE_GROUPS) {
			c->groups = malloc(n * sizeof(gid_t));
			if (!c->groups)
				return -ENOMEM;
		}
		c->ngroups = (int)sk_syscall2(SYS_getgroups, n, c->groups);
		if (c->ngroups >= 0)
			return 0;
		/* The list grew between the two calls (another thread): again. */
		sk_creds_release(c);
	}
}

void sk_creds_release(struct sk_creds *c)
{
	if (c->groups && c->groups != c->inline_groups)
		free(c->groups);
	c->groups = NULL;
	c->ngroups = 0;
}

int sk_creds_check(const struct sk_creds *c)
{
	struct sk_creds now;
	gid_t small[SK_CREDS_INLINE_GROUPS];
	gid_t *g = small;
	long n;
	int same;

	memset(&now, 0, sizeof(now));
	if (read_ids(&now))
		return -EACCES;
	if (now.ruid != c->ruid || now.euid != c->euid || now.suid != c->suid ||
	    now.fsuid != c->fsuid || now.rgid != c->rgid || now.egid != c->egid ||
	    now.sgid != c->sgid || now.fsgid != c->fsgid ||
	    memcmp(now.cap, c->cap, sizeof(now.cap)))
		return -EACCES;
	n = sk_syscall2(SYS_getgroups, 0, NULL);
	if (n != c->ngroups)
		return -EACCES;
	if (!n)
		return 0;	/* no groups then, none now: nothing to compare */
	if (n > SK_CREDS_INLINE_GROUPS) {
		g = malloc(n * sizeof(gid_t));
		if (!g)
			return -ENOMEM;
	}
	same = sk_syscall2(SYS_getgroups, n, g) == n &&
	       memcmp(g, c->groups, n * sizeof(gid_t)) == 0;
	if (g != small)
		free(g);
	return same ? 0 : -EACCES;
}

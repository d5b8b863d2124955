/* SPDX-License-Identifier: MIT */
/*
 * creds.h - the caller's credentials, as far as user space can see them.
 *
 * The kernel compares the very same struct cred object; user space compares
 * what it can read: real/effective/saved/fs uid and gid, the supplementary
 * groups and the effective/permitted/inheritable capability sets.  (Not
 * compared: ambient and bounding capabilities, securebits, LSM labels; a
 * change of those alone is not seen by the user backend.)  Credentials are
 * per thread in Linux, so the check reads the calling thread's.
 */
#ifndef SPAWNKIT_CREDS_H
#define SPAWNKIT_CREDS_H

#include <stdint.h>
#include <sys/types.h>

#define SK_CREDS_INLINE_GROUPS 32

struct sk_creds {
	uid_t ruid, euid, suid, fsuid;
	gid_t rgid, egid, sgid, fsgid;
	uint32_t cap[6];	/* effective, permitted, inheritable x 2 words */
	int ngroups;
	gid_t *groups;		/* ngroups entries: inline_groups or malloc'd */
	gid_t inline_groups[SK_CREDS_INLINE_GROUPS];
};

/* Snapshot the calling thread's credentials: 0 or -errno. */
int sk_creds_snapshot(struct sk_creds *c);
void sk_creds_release(struct sk_creds *c);
/* 0 if the calling thread still has exactly the credentials in c,
 * -EACCES if not, -ENOMEM if the check itself could not be made. */
int sk_creds_check(const struct sk_creds *c);

#endif

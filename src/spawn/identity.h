/* SPDX-License-Identifier: MIT */
/*
 * identity.h - the executable's identity key (spec: device, inode, size,
 * mode, owner uid and gid, ctime and mtime with nanoseconds).  Recorded at
 * create, compared before every spawn: a rename-over changes dev/inode, an
 * in-place write changes size/mtime/ctime, a chmod/chown changes ctime.
 * User space cannot deny writers (the kernel's ETXTBSY), so this comparison
 * is what turns an in-place write into ESTALE instead of a torn exec.
 */
#ifndef SPAWNKIT_IDENTITY_H
#define SPAWNKIT_IDENTITY_H

#include <stdint.h>
#include <sys/stat.h>

struct sk_identity {
	uint64_t dev, ino, size;
	uint32_t mode, uid, gid;
	int64_t ctime_sec, mtime_sec;
	long ctime_nsec, mtime_nsec;
};

void sk_identity_from_stat(struct sk_identity *id, const struct stat *st);
int sk_identity_equal(const struct sk_identity *a, const struct sk_identity *b);

/* Current key of an fd or a path (following symlinks): 0 or -errno. */
int sk_identity_of_fd(int fd, struct sk_identity *id);
int sk_identity_of_path(const char *path, struct sk_identity *id);

#endif

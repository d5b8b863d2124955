/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <string.h>

#include "common/sys.h"
#include "spawn/identity.h"

void sk_identity_from_stat(struct sk_identity *id, const struct stat *st)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mode = st->st_mode;
	id->uid = st->st_uid;
	id->gid = st->st_gid;
	id->ctime_sec = st->st_ctim.tv_sec;
	id->ctime_nsec = st->st_ctim.tv_nsec;
	id->mtime_sec = st->st_mtim.tv_sec;
	id->mtime_nsec = st->st_mtim.tv_nsec;
}

int sk_identity_equal(const struct sk_identity *a, const struct sk_identity *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

int sk_identity_of_fd(int fd, struct sk_identity *id)
{
	struct stat st;
	long ret = sk_syscall2(SYS_fstat, fd, &st);

	if (ret)
		return (int)ret;
	sk_identity_from_stat(id, &st);
	return 0;
}

int sk_identity_of_path(const char *path, struct sk_identity *id)
{
	struct stat st;
	long ret = sk_syscall4(SYS_newfstatat, AT_FDCWD, path, &st, 0);

	if (ret)
		return (int)ret;
	sk_identity_from_stat(id, &st);
	return 0;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>

#include <spawnkit/spawn_template.h>
#include <spawnkit/batch_abi.h>
#include "common/kernel_adv.h"
#include "common/sys.h"

static struct sk_kernel_adv adv;
static pthread_once_t adv_once = PTHREAD_ONCE_INIT;

int sk_read_adv_file(const char *path, long *version, long *nrs, int n)
{
	char buf[128], *p, *end;
	long fd, len;
	int i;

	fd = sk_syscall4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return (int)fd;
	len = sk_syscall3(SYS_read, fd, buf, sizeof(buf) - 1);
	sk_syscall1(SYS_close, fd);
	if (len <= 0)
		return -EINVAL;
	buf[len] = '\0';
	p = buf;
	*version = strtol(p, &end, 10);
	if (end == p)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		p = end;
		nrs[i] = strtol(p, &end, 10);
		/* A number must be a real syscall slot, never a negative value. */
		if (end == p || nrs[i] <= 0 || nrs[i] >= 4096)
			return -EINVAL;
	}
	return 0;
}

static void adv_read(void)
{
	long version, nrs[2];
	int saved = errno;	/* strtol may set ERANGE: errno is the caller's */

	if (sk_read_adv_file(SPAWN_TEMPLATE_SYSFS_PATH, &version, nrs, 2) == 0 &&
	    version == SPAWN_TEMPLATE_ABI_VERSION) {
		adv.spawn_template = 1;
		adv.nr_spawn_template_create = nrs[0];
		adv.nr_spawn_template_spawn = nrs[1];
	}
	if (sk_read_adv_file(BATCH_SYSFS_PATH, &version, nrs, 1) == 0 &&
	    version == BATCH_ABI_VERSION) {
		adv.batch = 1;
		adv.nr_batch = nrs[0];
	}
	errno = saved;
}

const struct sk_kernel_adv *sk_kernel_adv(void)
{
	pthread_once(&adv_once, adv_read);
	return &adv;
}

/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <sys/uio.h>

#include "common/probe.h"
#include "common/sys.h"
#include "common/ucopy.h"

#define SK_PAGE 4096UL

static long vm_copy(int write, void *local, uint64_t remote, size_t n)
{
	struct iovec l = { .iov_base = local, .iov_len = n };
	struct iovec r = { .iov_base = (void *)(uintptr_t)remote, .iov_len = n };
	long pid = sk_syscall0(SYS_getpid);

	return sk_syscall6(write ? SYS_process_vm_writev : SYS_process_vm_readv,
			   pid, (long)&l, 1, (long)&r, 1, 0);
}

/* ENOSYS/EPERM: the copy syscalls are filtered or absent here.  Then
 * sk_copy_in/sk_copy_out probe the range with harmless syscalls
 * (sk_probe_range) and memcpy only when every page of it is mapped. */
static int vm_copy_unavailable(long ret)
{
	return ret == -ENOSYS || ret == -EPERM;
}

int sk_copy_in(void *dst, uint64_t src, size_t n)
{
	long ret;

	if (!n)
		return 0;
	if (!src)
		return -EFAULT;
	ret = vm_copy(0, dst, src, n);
	if (vm_copy_unavailable(ret)) {
		if (sk_probe_range(src, n, 0))
			return -EFAULT;
		memcpy(dst, (const void *)(uintptr_t)src, n);
		return 0;
	}
	return ret == (long)n ? 0 : -EFAULT;
}

int sk_copy_out(uint64_t dst, const void *src, size_t n)
{
	long ret;

	if (!n)
		return 0;
	if (!dst)
		return -EFAULT;
	ret = vm_copy(1, (void *)src, dst, n);
	if (vm_copy_unavailable(ret)) {
		if (sk_probe_range(dst, n, 1))
			return -EFAULT;
		memcpy((void *)(uintptr_t)dst, src, n);
		return 0;
	}
	return ret == (long)n ? 0 : -EFAULT;
}

long sk_strncpy_in(char *dst, uint64_t src, size_t max)
{
	size_t done = 0;

	if (!src)
		return -EFAULT;
	/* Page by page: a string may end just before an unmapped page. */
	while (done < max) {
		size_t chunk = SK_PAGE - ((src + done) & (SK_PAGE - 1));
		char *nul;
		int ret;

		if (chunk > max - done)
			chunk = max - done;
		ret = sk_copy_in(dst + done, src + done, chunk);
		if (ret)
			return ret;
		nul = memchr(dst + done, '\0', chunk);
		if (nul)
			return nul - dst;
		done += chunk;
	}
	return -ENAMETOOLONG;
}

int sk_copy_struct_in(void *kdst, size_t ksize, size_t min_size,
		      uint64_t usrc, size_t usize)
{
	unsigned char rest[256];
	size_t off;
	int ret;

	if (usize < min_size)
		return -EINVAL;
	if (usize > SK_PAGE)
		return -E2BIG;
	memset(kdst, 0, ksize);
	ret = sk_copy_in(kdst, usrc, usize < ksize ? usize : ksize);
	if (ret)
		return ret;
	/* A newer caller's extra fields must be zero: we cannot honour them. */
	for (off = ksize; off < usize; off += sizeof(rest)) {
		size_t n = usize - off < sizeof(rest) ? usize - off : sizeof(rest);
		size_t i;

		ret = sk_copy_in(rest, usrc + off, n);
		if (ret)
			return ret;
		for (i = 0; i < n; i++)
			if (rest[i])
				return -E2BIG;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * probe.c - is this user memory readable / writable, without a signal?
 *
 * The emulator must answer EFAULT for a bad entries/results pointer or word
 * copy address, as the kernel does, instead of crashing the caller.  A
 * library cannot install a SIGSEGV handler, and process_vm_readv(2) needs
 * CONFIG_CROSS_MEMORY_ATTACH (absent from tinyconfig kernels unless
 * asked for), so we ask the kernel to touch the memory for us with two calls
 * that have no other effect:
 *   read:  rt_sigprocmask(invalid how, p, NULL, 8) copies 8 bytes from p
 *          (EFAULT if it cannot), then fails with EINVAL changing nothing;
 *   write: time(p) stores 8 bytes at p (EFAULT if it cannot).
 * Protection is per page, so one probe per page of the range answers for
 * the whole range.
 */
#include <stddef.h>
#include <stdint.h>

#include "common/probe.h"
#include "common/sys.h"

#define PROBE_PAGE 4096UL	/* the smallest page size: never misses a page */

static int probe_range(uintptr_t p, size_t len, int write)
{
	uintptr_t end, a;
	long ret;

	/* Both probe calls take NULL as "no buffer" and succeed, so page 0
	 * is answered here: it is never mapped unless vm.mmap_min_addr is 0,
	 * and then a batch still refuses to use it. */
	if (len < 8 || p + len < p || p < PROBE_PAGE)
		return -EFAULT;
	end = p + len;
	a = p;
	for (;;) {
		uintptr_t at = a + 8 > end ? end - 8 : a;

		if (write)
#ifdef SYS_time
			ret = sk_syscall1(SYS_time, at);
#else
			ret = sk_syscall3(SYS_getcpu, at, at + 4, 0);
#endif
		else
			ret = sk_syscall4(SYS_rt_sigprocmask, -1, at, 0, 8);
		if (ret == -EFAULT)
			return -EFAULT;
		a = (a & ~(PROBE_PAGE - 1)) + PROBE_PAGE;
		if (a >= end || a == 0)
			return 0;
	}
}

int sk_probe_read(uintptr_t p, size_t len)
{
	return probe_range(p, len, 0);
}

int sk_probe_write(uintptr_t p, size_t len)
{
	return probe_range(p, len, 1);
}

int sk_probe_range(uintptr_t p, size_t len, int write)
{
	uintptr_t end = p + len, page;

	if (!len)
		return 0;
	if (end < p || p < PROBE_PAGE)
		return -EFAULT;
	/* Protection is per page: any 8 aligned bytes of each page the range
	 * touches answer for it (an aligned 8-byte block never spans pages).
	 * A write probe may clobber only bytes inside [p, end), which the
	 * caller overwrites next, or, at a range's ends, bytes it restores. */
	for (page = p & ~(PROBE_PAGE - 1); page < end; page += PROBE_PAGE) {
		uintptr_t at = page > p ? page : p & ~7UL;
		int ret;

		if (write) {
			uint64_t keep;

			/* the aligned block may stick out of [p, end): it is
			 * readable-and-writable or EFAULT, so keep its bytes */
			if (probe_range(at, 8, 0))
				return -EFAULT;
			keep = *(volatile uint64_t *)at;
			ret = probe_range(at, 8, 1);
			if (!ret)
				*(volatile uint64_t *)at = keep;
		} else {
			ret = probe_range(at, 8, 0);
		}
		if (ret)
			return ret;
		if (page + PROBE_PAGE < page)
			break;
	}
	return 0;
}

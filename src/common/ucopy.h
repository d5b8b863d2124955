/* SPDX-License-Identifier: MIT */
/*
 * ucopy.h - copy caller memory without trusting the pointer.
 *
 * The kernel calls answer a bad pointer with EFAULT; the user-space backend
 * must too, not crash.  process_vm_readv/writev on our own pid does the copy
 * inside the kernel, which fails cleanly on an unmapped address.  Where it
 * is missing or forbidden (ENOSYS: no CONFIG_CROSS_MEMORY_ATTACH; EPERM: a
 * seccomp filter), each page is probed with a system call that reads or
 * writes it (common/probe.c) before a plain memcpy.
 */
#ifndef SPAWNKIT_UCOPY_H
#define SPAWNKIT_UCOPY_H

#include <stddef.h>
#include <stdint.h>

/* 0 or -EFAULT */
int sk_copy_in(void *dst, uint64_t src, size_t n);
int sk_copy_out(uint64_t dst, const void *src, size_t n);

/* Copy a NUL-terminated string of at most max bytes (with the NUL):
 * length, -EFAULT, or -ENAMETOOLONG. */
long sk_strncpy_in(char *dst, uint64_t src, size_t max);

/*
 * The extensible-struct rule of clone3/openat2: copy min(usize, ksize) bytes
 * of a user struct into kdst (zero-filled to ksize); usize < min_size is
 * -EINVAL, usize > page size is -E2BIG, non-zero bytes past ksize are -E2BIG.
 */
int sk_copy_struct_in(void *kdst, size_t ksize, size_t min_size,
		      uint64_t usrc, size_t usize);

#endif

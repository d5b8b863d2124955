/* SPDX-License-Identifier: MIT */
/*
 * probe.h - is this caller memory readable / writable, without a signal
 * handler and without process_vm_readv (see probe.c for how).  Used by the
 * batch emulator for EFAULT, and by ucopy.c where process_vm_readv/writev
 * are unavailable (no CONFIG_CROSS_MEMORY_ATTACH, or a seccomp filter).
 */
#ifndef SPAWNKIT_PROBE_H
#define SPAWNKIT_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* 0 if [p, p+len) is readable / writable now, else -EFAULT.  len >= 8;
 * the write probe clobbers the bytes it checks. */
int sk_probe_read(uintptr_t p, size_t len);
int sk_probe_write(uintptr_t p, size_t len);

/* The same for any len >= 1: one probe per page the range touches. */
int sk_probe_range(uintptr_t p, size_t len, int write);

#endif

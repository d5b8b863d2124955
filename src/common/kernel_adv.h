/* SPDX-License-Identifier: MIT */
/*
 * kernel_adv.h - what the running kernel says it implements.
 *
 * spawnkit's kernel series publishes one sysfs file per feature with an ABI
 * version and the system call numbers it chose.  The library reads them once
 * and issues those numbers only if the file exists and the version matches:
 * free slots in one kernel are other calls in the next.
 */
#ifndef SPAWNKIT_KERNEL_ADV_H
#define SPAWNKIT_KERNEL_ADV_H

struct sk_kernel_adv {
	int spawn_template;	/* 1 if advertised with a known ABI version */
	long nr_spawn_template_create;
	long nr_spawn_template_spawn;
	int batch;		/* 1 if advertised with a known ABI version */
	long nr_batch;
};

/* Read once per process (thread-safe); never NULL. */
const struct sk_kernel_adv *sk_kernel_adv(void);

/* Parse "<version> <nr>..." from path into nrs[0..n); 0 on success. */
int sk_read_adv_file(const char *path, long *version, long *nrs, int n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * kernel_adv.h - which of the series' system calls the running kernel has.
 *
 * Probed once per process, the way user space finds any new system call:
 * the call with arguments it refuses at once, with the errno only this ABI
 * gives (see kernel_adv.c), or ENOSYS.  A number is issued for real only
 * once its probe answered as this ABI does.
 */
#ifndef SPAWNKIT_KERNEL_ADV_H
#define SPAWNKIT_KERNEL_ADV_H

struct sk_kernel_adv {
	int spawn_template;	/* 1 if both calls answered their probe */
	long nr_spawn_template_create;
	long nr_spawn_template_spawn;
	int batch;		/* 1 if batch answered its probe */
	long nr_batch;
};

/* Probed once per process (thread-safe); never NULL. */
const struct sk_kernel_adv *sk_kernel_adv(void);

#endif

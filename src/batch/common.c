/* SPDX-License-Identifier: MIT */
/*
 * common.c - checks, working copy, word copy and deny list shared by the
 * user-space backends (see batch_abi.h for the semantics).
 */
#include <stdlib.h>
#include <string.h>

#include "batch/batch_int.h"
#include "common/kernel_adv.h"
#include "common/sys.h"

long sk_batch_begin(struct sk_batch_run *r, const struct batch_entry *entries,
		    int64_t *results, unsigned int count, unsigned int flags)
{
	size_t bytes;

	r->work = NULL;
	if (flags != 0 || count == 0)
		return -EINVAL;
	if (count > BATCH_MAX_ENTRIES)
		return -E2BIG;
	bytes = (size_t)count * sizeof(*entries);
	r->ue = (uintptr_t)entries;
	r->ue_end = r->ue + bytes;
	r->ur = (uintptr_t)results;
	r->ur_end = r->ur + (size_t)count * sizeof(*results);
	r->count = count;
	r->results = results;
	if (r->ue_end < r->ue || r->ur_end < r->ur || sk_probe_read(r->ue, bytes))
		return -EFAULT;
	if (count <= SK_BATCH_STACK_ENTRIES) {
		r->work = r->stack;
		r->results = r->stack_results;
	} else {
		/* one allocation: the entries, then the results */
		r->work = malloc(bytes + (size_t)count * sizeof(*results));
		if (!r->work)
			return -ENOMEM;
		r->results = (int64_t *)(r->work + count);
	}
	memcpy(r->work, entries, bytes);
	return 0;
}

long sk_batch_results_init(struct sk_batch_run *r, int keep)
{
	unsigned int i;

	/* sk_probe_range puts back the bytes it tries: a program that a
	 * backend then refuses leaves the caller's results as they were. */
	if (keep ? sk_probe_range(r->ur, r->ur_end - r->ur, 1)
		 : sk_probe_write(r->ur, r->ur_end - r->ur))
		return -EFAULT;
	r->remapped = 0;
	for (i = 0; i < r->count; i++)
		r->results[i] = -ECANCELED;
	memset(r->ran, 0, (r->count + 63) / 64 * sizeof(r->ran[0]));
	return 0;
}

long sk_batch_finish(struct sk_batch_run *r, unsigned int last)
{
	size_t bytes = r->ur_end - r->ur;
	unsigned int i;
	long ret = last;

	for (i = 0; i < r->count; i++)
		if (!(r->ran[i / 64] & (1ULL << (i % 64))))
			r->results[i] = -ECANCELED;
	/* The batch's own calls may have unmapped or write-protected the
	 * array since results_init: then ask again, page by page, just before
	 * the copy (the write probe clobbers only bytes the copy overwrites).
	 * Other threads changing our caller's mappings meanwhile are the
	 * caller's race, as for any call that writes to a buffer. */
	if (r->remapped && sk_probe_write(r->ur, bytes))
		ret = -EFAULT;
	else
		memcpy((void *)r->ur, r->results, bytes);
	sk_batch_end(r);
	return ret;
}

void sk_batch_end(struct sk_batch_run *r)
{
	if (r->work && r->work != r->stack)
		free(r->work);
	r->work = NULL;
	r->results = NULL;
}

/*
 * Where the 8 bytes at addr live for this batch: inside the caller's
 * entries array they are the working copy; inside the results array, the
 * results themselves (they are the working copy: written as entries run,
 * -ECANCELED until then).  Straddling an array's edge is -EINVAL; anything
 * else is ordinary memory (*outside = 1).
 */
static int wc_locate(struct sk_batch_run *r, uint64_t addr, void **where, int *outside)
{
	uint64_t end = addr + 8;

	*outside = 0;
	if (end < addr)
		return -EFAULT;	/* wraps: no such user address */
	if (addr >= r->ue && end <= r->ue_end) {
		*where = (char *)r->work + (addr - r->ue);
		return 0;
	}
	if (addr >= r->ur && end <= r->ur_end) {
		*where = (char *)r->results + (addr - r->ur);
		return 0;
	}
	if ((addr < r->ue_end && end > r->ue) || (addr < r->ur_end && end > r->ur))
		return -EINVAL;
	*where = (void *)(uintptr_t)addr;
	*outside = 1;
	return 0;
}

/*
 * The word moves with plain loads and stores once the probes said the
 * memory is there.  It is the caller's memory at an address the caller
 * chose, not an object of ours: a sanitizer's shadow check has nothing to
 * say about it (and faults itself for addresses in its own shadow gap).
 */
struct unaligned_word {
	uint64_t v;
} __attribute__((packed, may_alias));

#if defined(__clang__) || __GNUC__ >= 8
#define NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#else
#define NO_SANITIZE
#endif

NO_SANITIZE static uint64_t load_word(const void *p)
{
	return ((const volatile struct unaligned_word *)p)->v;
}

NO_SANITIZE static void store_word(void *p, uint64_t v)
{
	((volatile struct unaligned_word *)p)->v = v;
}

int64_t sk_batch_wordcopy(struct sk_batch_run *r, const struct batch_entry *e)
{
	void *src, *dst;
	int src_out, dst_out, ret;
	uint64_t word;

	if (e->args[2] | e->args[3] | e->args[4] | e->args[5])
		return -EINVAL;
	/* Both addresses are classified before anything is read or written,
	 * so EINVAL (straddle) wins over EFAULT. */
	ret = wc_locate(r, e->args[0], &src, &src_out);
	if (ret == 0)
		ret = wc_locate(r, e->args[1], &dst, &dst_out);
	if (ret)
		return ret;
	if (src_out && sk_probe_read((uintptr_t)src, 8))
		return -EFAULT;
	word = load_word(src);
	if (dst_out && sk_probe_write((uintptr_t)dst, 8))
		return -EFAULT;
	store_word(dst, word);
	return 0;
}

/* The highest x86_64 syscall number this list was written against (mseal,
 * Linux 6.10); anything newer counts as "may remap", to be safe. */
#define SK_LAST_REVIEWED_NR 462

int sk_batch_may_remap(uint64_t nr)
{
	if (nr > SK_LAST_REVIEWED_NR)
		return 1;
	switch (nr) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_brk:
	case SYS_madvise:		/* MADV_GUARD_INSTALL makes pages fault */
	case SYS_remap_file_pages:
	case SYS_shmat:
	case SYS_shmdt:
	case SYS_userfaultfd:
	case SYS_ioctl:			/* UFFDIO_REGISTER, UFFDIO_WRITEPROTECT */
	case SYS_prctl:			/* PR_SET_MM */
#ifdef SYS_pkey_mprotect
	case SYS_pkey_mprotect:
#endif
#ifdef SYS_pkey_alloc
	case SYS_pkey_alloc:
#endif
#ifdef SYS_process_madvise
	case SYS_process_madvise:
#endif
#ifdef SYS_map_shadow_stack
	case SYS_map_shadow_stack:
#endif
		return 1;
	}
	return 0;
}

int sk_batch_denied(uint64_t nr)
{
	const struct sk_kernel_adv *adv;

	/* Every real number is small; a large one could alias a real call
	 * (the kernel dispatches on the low 32 bits, and bit 30 selects the
	 * x32 table), so it is refused, never issued. */
	if (nr >= 4096)
		return 1;
	switch (nr) {
	case SYS_fork:
	case SYS_vfork:
	case SYS_clone:
	case SYS_clone3:
	case SYS_execve:
	case SYS_execveat:
	case SYS_exit:
	case SYS_exit_group:
	case SYS_rt_sigreturn:
	case SYS_restart_syscall:
		return 1;
	}
	adv = sk_kernel_adv();
	if (adv->batch && (long)nr == adv->nr_batch)
		return 1;
	if (adv->spawn_template && (long)nr == adv->nr_spawn_template_spawn)
		return 1;
	return 0;
}

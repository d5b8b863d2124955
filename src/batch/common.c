/* SPDX-License-Identifier: MIT */
/*
 * common.c - checks, working copy, word copy and allow-list shared by the
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
	if (r->ue_end < r->ue || r->ur_end < r->ur)
		return -EFAULT;
	/* as the kernel: results written over the entries would change them */
	if (r->ue < r->ur_end && r->ur < r->ue_end)
		return -EINVAL;
	if (sk_probe_read(r->ue, bytes))
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

/* 1 if system call nr may change what memory is mapped or writable.  Only
 * calls of the allow-list get here: its memory group. */
int sk_batch_may_remap(uint64_t nr)
{
	switch (nr) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_madvise:		/* MADV_GUARD_INSTALL makes pages fault */
		return 1;
	}
	return 0;
}

/* fchmodat2 (Linux 6.6) is newer than some system headers. */
#if !defined(SYS_fchmodat2) && defined(__x86_64__) && !defined(__ILP32__)
#define SYS_fchmodat2 452
#endif

/*
 * The calls a batch runs: the allow-list of the kernel's batch(2)
 * (batch_allowed() in kernel/batch.c, patch 0006), name for name, so the
 * emulator and the kernel refuse the same calls.  Why each group is there
 * and what must never be added (fork, clone, execve, exit, rt_sigreturn,
 * restart_syscall, uretprobe, batch, spawn_template_spawn, ioctl...): see
 * the kernel's comment.  Change both together.
 */
int sk_batch_allowed(uint64_t nr)
{
	switch (nr) {
	/* looking at the file tree: stat, access checks, directory reads */
	case SYS_statx:
	case SYS_newfstatat:
	case SYS_fstat:
	case SYS_fstatfs:
	case SYS_faccessat:
	case SYS_faccessat2:
	case SYS_readlinkat:
	case SYS_getdents64:
	case SYS_getcwd:
	/* opening, closing and duplicating file descriptors */
	case SYS_openat:
	case SYS_openat2:
	case SYS_close:
	case SYS_close_range:
	case SYS_dup:
	case SYS_dup3:
	case SYS_fcntl:
	/* file data */
	case SYS_read:
	case SYS_write:
	case SYS_pread64:
	case SYS_pwrite64:
	case SYS_readv:
	case SYS_writev:
	case SYS_preadv:
	case SYS_pwritev:
	case SYS_preadv2:
	case SYS_pwritev2:
	case SYS_lseek:
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_ftruncate:
	case SYS_fallocate:
	case SYS_copy_file_range:
	/* changing the file tree: the *at family, and the caller's cwd */
	case SYS_mkdirat:
	case SYS_mknodat:
	case SYS_unlinkat:
	case SYS_renameat2:
	case SYS_linkat:
	case SYS_symlinkat:
	case SYS_fchmod:
	case SYS_fchmodat:
#ifdef SYS_fchmodat2
	case SYS_fchmodat2:
#endif
	case SYS_fchown:
	case SYS_fchownat:
	case SYS_utimensat:
	case SYS_truncate:
	case SYS_umask:
	case SYS_chdir:
	case SYS_fchdir:
	/* memory for the data: a mapped file, a buffer */
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_madvise:
	case SYS_msync:
	/* sleeps and waits */
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
	case SYS_ppoll:
	case SYS_pselect6:
	/* identity and clock queries */
	case SYS_getpid:
	case SYS_getppid:
	case SYS_gettid:
	case SYS_getuid:
	case SYS_geteuid:
	case SYS_getgid:
	case SYS_getegid:
	case SYS_getresuid:
	case SYS_getresgid:
	case SYS_getgroups:
	case SYS_getpgid:
	case SYS_getsid:
	case SYS_sched_yield:
	case SYS_uname:
	case SYS_clock_gettime:
		return 1;
	}
	return 0;
}

/*
 * The first number past the running kernel's system call table, as far as
 * the library can tell (the kernel's batch(2) uses its own NR_syscalls):
 * Linux 6.12's x86_64 table ends with mseal (462), and the series' calls,
 * where the probe found them, come after it.  Elsewhere 4096: every real
 * number is smaller, and a larger one could alias a real call (the kernel
 * dispatches on the low 32 bits, and bit 30 selects the x32 table).
 */
static uint64_t table_end(void)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	const struct sk_kernel_adv *adv = sk_kernel_adv();
	uint64_t end = 463;

	if (adv->spawn_template) {
		if ((uint64_t)adv->nr_spawn_template_create >= end)
			end = adv->nr_spawn_template_create + 1;
		if ((uint64_t)adv->nr_spawn_template_spawn >= end)
			end = adv->nr_spawn_template_spawn + 1;
	}
	if (adv->batch && (uint64_t)adv->nr_batch >= end)
		end = adv->nr_batch + 1;
	return end;
#else
	return 4096;
#endif
}

int64_t sk_batch_refused(uint64_t nr)
{
	if (nr >= table_end())
		return -ENOSYS;
	return sk_batch_allowed(nr) ? 0 : -EOPNOTSUPP;
}

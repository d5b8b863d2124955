/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * batch_abi.h - the batch(2) system call ABI, mirrored for user space.
 *
 * The kernel series in kernel/patches/ installs the same definitions as
 * <linux/batch.h>; the emulator and io_uring backends of libspawnkit give the
 * same observable results for the same program.  Keep them identical.
 *
 *   long batch(struct batch_entry *entries, __s64 *results,
 *              unsigned int count, unsigned int flags, size_t entry_size);
 *
 * entry_size (the kernel call's; the library's spawnkit_batch() takes
 * arrays of struct batch_entry and passes its size): an entry can grow as
 * extensible structs do.  Below BATCH_ENTRY_SIZE_VER0 or not a multiple of
 * 8 is EINVAL, above BATCH_ENTRY_SIZE_MAX E2BIG; an entry with a non-zero
 * byte past the known struct gets -E2BIG as its result when it runs.
 *
 * Runs entries[0..count) in order, starting at 0.  After entry i ran with
 * return value r (a syscall's return, or -errno), r is stored in results[i]
 * and the next entry is i + 1 + jump[k], where k is
 *   BATCH_ON_ERROR    if -4095 <= r <= -1,
 *   BATCH_ON_ZERO     if r == 0,
 *   BATCH_ON_POSITIVE otherwise (r > 0, or r < -4095: a large "negative"
 *                     value such as an mmap address is not an error).
 * jump[k] == BATCH_JUMP_END ends the batch; a target at or past count ends it
 * too.  Jumps are unsigned, so a batch only moves forward and ends within
 * count steps: no loops, nothing to verify.
 *
 * Results: every slot of results[0..count) is set to -ECANCELED before
 * anything runs (an unwritable array is EFAULT with nothing done), and each
 * result is stored as its entry finishes; entries that did not run keep
 * -ECANCELED.  entries and results must not overlap (EINVAL).
 *
 * Return: the index of the last entry that ran (0..count-1) when the batch
 * ended; BATCH_STOPPED | i when it stopped before entry i, which did not
 * run (see below); or -errno for the call as a whole: EINVAL (flags != 0,
 * count == 0, overlapping arrays), E2BIG (count > BATCH_MAX_ENTRIES), EFAULT
 * (entries unreadable, results unwritable), all before anything ran; EINTR
 * (see below); EFAULT after entries ran only when the batch itself (or
 * another thread) made the results array unwritable and it still is at
 * the end.
 *
 * The batch stops before a system call entry (word copies never stop it)
 * when the task has a signal pending, or has syscall entry/exit work: a
 * seccomp filter, a ptrace syscall tracer, audit, syscall tracepoints or
 * syscall user dispatch, none of which a sub-call would pass through.  The
 * caller goes on at entry i itself, one system call per entry (where that
 * work sees each call), after redoing on its own copy of the entries the
 * word copies into the entries array that ran before i.
 *
 * A sub-call interrupted by a signal counts as not run.  When no handler
 * runs for the signal (a stop and continue, an ignored signal, the freezer,
 * a ptrace stop), the kernel goes back into the batch at that entry, as it
 * restarts a plain call.  When a handler runs, batch() fails with EINTR:
 * the results of the entries that ran are stored, and the interrupted entry
 * is the first one still at -ECANCELED along the jumps from entry 0.  A
 * restarted entry starts over (a nanosleep sleeps its whole time again).
 *
 * Per-entry errors, stored in the slot (the batch goes on along on_error):
 *   ENOSYS  a number past the caller's system call table: no such call.
 *   EOPNOTSUPP  a call of the table that a batch does not run: batch
 *           runs only the calls of its allow-list (kernel/batch.c; file
 *           tree, file data, memory, sleeps, identity queries), never
 *           fork, clone, execve, exit, rt_sigreturn, restart_syscall,
 *           uretprobe, batch or spawn_template_spawn.  It says nothing
 *           about whether the kernel has the call: probe that outside a
 *           batch.
 *   EINVAL  entry.flags != 0, or a word copy with args[2..5] != 0 or an
 *           address that straddles the entries/results arrays.
 *   EFAULT  a word copy from or to an unmapped address.
 *
 * Word copy (nr == BATCH_NR_WORDCOPY): copies the 8 bytes at args[0] to
 * args[1]; result 0.  An address inside the caller's entries or results
 * array names the batch's own working copy, so a result can become a later
 * entry's argument: results[i] -> &entries[j].args[k].  A copy into the
 * results array is written to the caller's array at once.  Writing into a later
 * entry's nr or jump fields is allowed; every entry is checked when it runs.
 * Neither the caller's entries array nor any memory outside the two arrays
 * and the copy's destination is modified.
 */
#ifndef SPAWNKIT_BATCH_ABI_H
#define SPAWNKIT_BATCH_ABI_H

#include <linux/types.h>

#define BATCH_ON_ERROR		0
#define BATCH_ON_ZERO		1
#define BATCH_ON_POSITIVE	2

#define BATCH_JUMP_NEXT		0x0000	/* go on with the next entry */
#define BATCH_JUMP_END		0xffff	/* end the batch */

#define BATCH_NR_WORDCOPY	(1ULL << 32)	/* outside every syscall table */
#define BATCH_MAX_ENTRIES	1024
#define BATCH_STOPPED		0x10000	/* ORed with the index to go on at */

#define BATCH_ENTRY_SIZE_VER0	64	/* sizeof first published struct */
#define BATCH_ENTRY_SIZE_MAX	512	/* entry_size above: E2BIG */

struct batch_entry {
	__aligned_u64 nr;	/* syscall number, or BATCH_NR_WORDCOPY */
	__aligned_u64 args[6];	/* word-sized arguments, as in syscall(2) */
	__u16 jump[3];		/* indexed by BATCH_ON_*: entries to skip */
	__u16 flags;		/* must be 0 */
};

#ifdef __cplusplus
static_assert(sizeof(struct batch_entry) == 64, "batch ABI");
static_assert(__builtin_offsetof(struct batch_entry, jump) == 56, "batch ABI");
#else
_Static_assert(sizeof(struct batch_entry) == 64, "batch ABI");
_Static_assert(__builtin_offsetof(struct batch_entry, args) == 8, "batch ABI");
_Static_assert(__builtin_offsetof(struct batch_entry, jump) == 56, "batch ABI");
_Static_assert(__builtin_offsetof(struct batch_entry, flags) == 62, "batch ABI");
#endif

#endif /* SPAWNKIT_BATCH_ABI_H */

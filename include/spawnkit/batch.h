/* SPDX-License-Identifier: MIT */
/*
 * batch.h - syscall batches: many system calls in one kernel crossing.
 *
 * The ABI (struct batch_entry, jumps, word copy, allow-list) is in
 * <spawnkit/batch_abi.h>; every backend gives the results that comment
 * defines for the programs it accepts.  Backends:
 *
 *   kernel    batch(2) of spawnkit's kernel series, only where the running
 *             kernel has it (found by probing);
 *   emulator  the same loop in user space, one raw syscall per entry;
 *             always there;
 *   uring     linked io_uring SQEs (liburing), for the programs io_uring
 *             can express; any other program gives -EOPNOTSUPP.
 *
 * spawnkit_batch() uses the automatic backend: kernel if the kernel has it, else
 * the emulator (io_uring is never chosen automatically: measured slower for
 * every program shape we tried, see docs/batch.md).  The environment
 * variable SPAWNKIT_BATCH_BACKEND=emulator|uring|kernel, read once per
 * process at the first call, forces one; forcing one that is absent makes
 * every call -ENOSYS, and an unknown name makes it -EINVAL.
 *
 * Conventions: functions return >= 0 or -errno and never touch errno; all
 * are thread-safe (the uring backend keeps one ring per thread).
 */
#ifndef SPAWNKIT_BATCH_H
#define SPAWNKIT_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <spawnkit/batch_abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Backends (spawnkit_batch_run, spawnkit_batch_backend). */
#define SPAWNKIT_BATCH_AUTO	0
#define SPAWNKIT_BATCH_EMULATOR	1
#define SPAWNKIT_BATCH_URING	2
#define SPAWNKIT_BATCH_KERNEL	3

/*
 * Run entries[0..count) on the automatic (or forced) backend.  Returns the
 * index of the last entry that ran, or -errno for the call as a whole:
 * EINVAL (flags != 0, count == 0), E2BIG (count > BATCH_MAX_ENTRIES),
 * EFAULT (entries unreadable, results unwritable), ENOSYS (forced backend
 * absent), EOPNOTSUPP (forced uring backend cannot express the program),
 * ENOMEM.  entries is never modified.
 */
long spawnkit_batch(const struct batch_entry *entries, int64_t *results,
		    unsigned int count, unsigned int flags);

/* The same on one backend (SPAWNKIT_BATCH_AUTO: as spawnkit_batch). */
long spawnkit_batch_run(int backend, const struct batch_entry *entries,
			int64_t *results, unsigned int count, unsigned int flags);

/* Backend spawnkit_batch() uses: SPAWNKIT_BATCH_*, or -ENOSYS (forced
 * backend absent) or -EINVAL (unknown name in SPAWNKIT_BATCH_BACKEND). */
int spawnkit_batch_backend(void);
/* "emulator", "uring", "kernel", "auto" or "unknown". */
const char *spawnkit_batch_backend_name(int backend);
/* 1 if this backend can run here (kernel: the call is there; uring: built with
 * liburing and the kernel lets us make a ring), else 0. */
int spawnkit_batch_backend_available(int backend);
/* 1 if the running kernel has batch(2), else 0. */
int spawnkit_kernel_has_batch(void);

/*
 * Resolve a command name over a PATH string (as `command -v`): a name with
 * a '/' is taken as is; otherwise each entry of path_env (NULL: getenv
 * "PATH", unset: "/usr/local/bin:/usr/bin:/bin"; an empty entry is ".") is
 * tried in order in one batch, and the first executable regular file wins.
 * Writes the path to out (NUL-terminated) and returns its length.
 * Errors: ENOENT (not found), EACCES (found only files that are not
 * executable or not regular: a directory of that name, as execvp),
 * ENAMETOOLONG (out too small or a candidate
 * longer than PATH_MAX), EINVAL (empty name).
 */
int spawnkit_pathsearch(const char *name, const char *path_env, char *out,
			size_t outlen);

/*
 * The same search for a child that will run in cwd: relative PATH entries
 * (an empty one included) are taken under cwd, as execvp in that child
 * would take them, and the path written to out starts with cwd for them;
 * so is a relative name with a '/'.
 * cwd NULL or "" is spawnkit_pathsearch().
 */
int spawnkit_pathsearch_cwd(const char *name, const char *path_env,
			    const char *cwd, char *out, size_t outlen);

/* ---- helpers to build a batch by hand ------------------------------- */

#define BATCH_ARG(a) ((__u64)(uintptr_t)(a))

/* One entry calling nr with 0..6 arguments; every jump "next", flags 0.
 *   struct batch_entry e[2] = { BATCH_CALL0(SYS_getpid),
 *                               BATCH_CALL3(SYS_read, fd, buf, len) }; */
#define BATCH_CALL0(n_) \
	((struct batch_entry){ .nr = (n_) })
#define BATCH_CALL1(n_, a) \
	((struct batch_entry){ .nr = (n_), .args = { BATCH_ARG(a) } })
#define BATCH_CALL2(n_, a, b) \
	((struct batch_entry){ .nr = (n_), .args = { BATCH_ARG(a), BATCH_ARG(b) } })
#define BATCH_CALL3(n_, a, b, c) \
	((struct batch_entry){ .nr = (n_), .args = { BATCH_ARG(a), BATCH_ARG(b), \
						       BATCH_ARG(c) } })
#define BATCH_CALL4(n_, a, b, c, d) \
	((struct batch_entry){ .nr = (n_), .args = { BATCH_ARG(a), BATCH_ARG(b), \
						       BATCH_ARG(c), BATCH_ARG(d) } })
#define BATCH_CALL5(n_, a, b, c, d, e) \
	((struct batch_entry){ .nr = (n_), .args = { BATCH_ARG(a), BATCH_ARG(b), \
						       BATCH_ARG(c), BATCH_ARG(d), \
						       BATCH_ARG(e) } })
#define BATCH_CALL6(n_, a, b, c, d, e, f) \
	((struct batch_entry){ .nr = (n_), .args = { BATCH_ARG(a), BATCH_ARG(b), \
						       BATCH_ARG(c), BATCH_ARG(d), \
						       BATCH_ARG(e), BATCH_ARG(f) } })

/* Word copy of the 8 bytes at src to dst (see batch_abi.h). */
#define BATCH_WORDCOPY(src, dst) BATCH_CALL2(BATCH_NR_WORDCOPY, (src), (dst))

/* Set the jump taken when the result is of kind on (BATCH_ON_*): skip
 * entries (0: next), or BATCH_JUMP_END. */
static inline struct batch_entry *
spawnkit_batch_jump(struct batch_entry *e, unsigned int on, uint16_t skip)
{
	e->jump[on] = skip;
	return e;
}

/* End the batch when this entry fails (the usual "chain" shape). */
static inline struct batch_entry *spawnkit_batch_end_on_error(struct batch_entry *e)
{
	return spawnkit_batch_jump(e, BATCH_ON_ERROR, BATCH_JUMP_END);
}

/* End the batch when this entry succeeds (zero or positive result): the
 * "first that works" shape of a path search. */
static inline struct batch_entry *spawnkit_batch_end_on_success(struct batch_entry *e)
{
	spawnkit_batch_jump(e, BATCH_ON_ZERO, BATCH_JUMP_END);
	return spawnkit_batch_jump(e, BATCH_ON_POSITIVE, BATCH_JUMP_END);
}

/* From entries[from], on a result of kind on, go to entries[to] (to > from;
 * to >= count ends the batch).  Returns -EINVAL for a backward or too long
 * jump, else 0. */
static inline int spawnkit_batch_goto(struct batch_entry *entries, unsigned int from,
				      unsigned int on, unsigned int to)
{
	if (to <= from || on > BATCH_ON_POSITIVE || to - from - 1 >= BATCH_JUMP_END)
		return -22; /* EINVAL */
	entries[from].jump[on] = (uint16_t)(to - from - 1);
	return 0;
}

/* Make *e a word copy that passes results[i] into entries[j].args[k] (the
 * fd of an openat becoming the fd of a later read/fstat/close). */
static inline struct batch_entry *
spawnkit_batch_pass_result(struct batch_entry *e, const int64_t *results, unsigned int i,
			   struct batch_entry *entries, unsigned int j, unsigned int k)
{
	*e = BATCH_WORDCOPY(&results[i], &entries[j].args[k]);
	return e;
}

#ifdef __cplusplus
}
#endif

#endif /* SPAWNKIT_BATCH_H */

/* SPDX-License-Identifier: MIT */
/*
 * uring.c - batches as linked io_uring SQEs (liburing).
 *
 * What io_uring can express, and how (everything else is -EOPNOTSUPP,
 * decided before anything runs, so a caller can fall back to the emulator):
 *
 *  - ops: openat, close, read, write, pread64, pwrite64, statx, fsync,
 *    fdatasync, unlinkat, mkdirat (with pread64/pwrite64 offset != -1,
 *    which io_uring would take as "the file position");
 *  - jumps of every entry but the last: a chain (error: end; zero and
 *    positive: next), sent as IOSQE_IO_LINK, or "always next", sent as
 *    IOSQE_IO_HARDLINK; the last entry may jump anywhere (all ends);
 *  - word copies whose destination is outside the entries array or is
 *    args[0] (the fd) of a later op: the fd returned by openat becomes the
 *    fd of statx/read/close.  io_uring cannot pass a result to a later SQE
 *    except through a direct descriptor, and a direct descriptor is not an
 *    fd number: the openat slot would hold 0 where the kernel and the
 *    emulator hold the fd.  So the word copy runs here, in user space,
 *    between two submissions: each run of word copies splits the program
 *    into one more submission, and results stay identical.
 *  - entry flags must be 0.
 * A run of statx entries that all jump "next", into buffers at increasing
 * addresses (an array), is sent unlinked: io-wq runs them in parallel, and
 * since they change nothing and write disjoint buffers the results are
 * those of the ordered loop.
 *
 * Where io_uring and the batch loop differ, this file repairs it:
 *  - a short read or write (0 <= res < len) breaks a soft link, so the
 *    entries after it complete with -ECANCELED although the batch would go
 *    on: they are submitted again from there;
 *  - io_uring ops are not interrupted by signals; when a signal interrupts
 *    our wait, we cancel what is in flight and report the canceled entry as
 *    -EINTR, as the kernel loop reports the interrupted sub-call;
 *  - io_uring refuses some SQEs at submission (a bad path pointer, an
 *    empty path, bad flags) and then fails their whole chain unrun: the
 *    rest of that segment runs as plain syscalls, in order;
 *  - the ring's own fd would take a number the caller's openat would get
 *    otherwise (fd numbers in results would differ): the ring fd is
 *    registered and the fd closed.
 * statx always runs on an io-wq worker thread: a chain of statx is a chain
 * of thread hand-offs.  Whether io_uring wins is measured (bench/batch).
 */
#include <stdlib.h>
#include <string.h>

#include "batch/batch_int.h"
#include "common/sys.h"

#ifndef SPAWNKIT_HAVE_LIBURING

long sk_batch_uring(const struct batch_entry *entries, int64_t *results,
		    unsigned int count, unsigned int flags)
{
	return -ENOSYS;
}

int sk_batch_uring_available(void)
{
	return 0;
}

#else

#include <fcntl.h>
#include <pthread.h>
#include <liburing.h>

#define CANCEL_TAG	UINT64_MAX
#define NO_CQE		INT64_MIN	/* res[] of an SQE not completed yet */

enum { OP_NONE, OP_OPENAT, OP_CLOSE, OP_READ, OP_WRITE, OP_PREAD, OP_PWRITE,
       OP_STATX, OP_FSYNC, OP_FDATASYNC, OP_UNLINKAT, OP_MKDIRAT };

/* Link kinds of an entry's SQE, from its jumps. */
enum { LINK_NONE, LINK_SOFT, LINK_HARD };

static int op_of(uint64_t nr)
{
	/* io_uring runs a subset of the allow-list, never more */
	if (!sk_batch_allowed(nr))
		return OP_NONE;
	switch (nr) {
	case SYS_openat: return OP_OPENAT;
	case SYS_close: return OP_CLOSE;
	case SYS_read: return OP_READ;
	case SYS_write: return OP_WRITE;
	case SYS_pread64: return OP_PREAD;
	case SYS_pwrite64: return OP_PWRITE;
	case SYS_statx: return OP_STATX;
	case SYS_fsync: return OP_FSYNC;
	case SYS_fdatasync: return OP_FDATASYNC;
	case SYS_unlinkat: return OP_UNLINKAT;
	case SYS_mkdirat: return OP_MKDIRAT;
	default: return OP_NONE;
	}
}

/* ---- one ring per thread -------------------------------------------- */

static __thread struct io_uring *tls_ring;
static __thread int tls_ring_err;	/* -errno once making a ring failed */
static pthread_key_t ring_key;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;

static void ring_destroy(void *p)
{
	io_uring_queue_exit(p);
	free(p);
}

/*
 * Drop this thread's ring (its mappings and fd), so the next batch makes a
 * new one.  Two callers: the fork child handler (the child's copy shares
 * the parent's ring memory) and a ring that refused SQEs (so the ones left
 * in its queue never run).
 */
static void ring_drop(void)
{
	if (tls_ring) {
		ring_destroy(tls_ring);
		tls_ring = NULL;
		pthread_setspecific(ring_key, NULL);
	}
	tls_ring_err = 0;
}

static void ring_once_init(void)
{
	pthread_key_create(&ring_key, ring_destroy);
	pthread_atfork(NULL, NULL, ring_drop);
}

static struct io_uring *ring_get(void)
{
	static const unsigned int setup_flags[] = {
		IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN |
			IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SUBMIT_ALL,
	};
	struct io_uring *ring;
	unsigned int i;
	int ret = -ENOSYS;

	if (tls_ring || tls_ring_err)
		return tls_ring;
	pthread_once(&ring_once, ring_once_init);
	ring = calloc(1, sizeof(*ring));
	if (!ring) {
		tls_ring_err = -ENOMEM;
		return NULL;
	}
	/* SUBMIT_ALL (5.18) keeps a chain whole when one SQE fails at
	 * submission; without it, it is not safe to link. */
	for (i = 0; i < sizeof(setup_flags) / sizeof(setup_flags[0]); i++) {
		ret = io_uring_queue_init(BATCH_MAX_ENTRIES, ring, setup_flags[i]);
		if (ret == 0)
			break;
	}
	if (ret) {
		free(ring);
		tls_ring_err = ret;
		return NULL;
	}
	if (io_uring_register_ring_fd(ring) == 1) {
		/* Enter through the registered index from now on; the fd
		 * number goes back to the caller's pool. */
		sk_syscall1(SYS_close, ring->ring_fd);
		ring->ring_fd = -1;
	}
	pthread_setspecific(ring_key, ring);
	tls_ring = ring;
	return ring;
}

int sk_batch_uring_available(void)
{
	return ring_get() != NULL;
}

/* ---- can io_uring express this program? ----------------------------- */

static int link_kind(const struct batch_entry *e, unsigned int i, unsigned int count)
{
	unsigned int err = e->jump[BATCH_ON_ERROR];
	int err_ends = err == BATCH_JUMP_END || i + 1 + err >= count;

	if (e->jump[BATCH_ON_ZERO] != 0)
		return -1;
	/* A word copy never returns a positive value: that jump is moot. */
	if (e->nr != BATCH_NR_WORDCOPY && e->jump[BATCH_ON_POSITIVE] != 0)
		return -1;
	if (err_ends)
		return LINK_SOFT;
	if (err == 0)
		return LINK_HARD;
	return -1;
}

static int check_program(const struct sk_batch_run *r)
{
	unsigned int i, count = r->count;

	for (i = 0; i < count; i++) {
		const struct batch_entry *e = &r->work[i];

		if (e->flags != 0)
			return -EOPNOTSUPP;
		if (i + 1 < count && link_kind(e, i, count) < 0)
			return -EOPNOTSUPP;
		if (e->nr == BATCH_NR_WORDCOPY) {
			uint64_t dst = e->args[1], off;
			unsigned int j;

			/* Not into the entries, or straddling their edge
			 * (the copy fails with -EINVAL and writes nothing). */
			if (dst < r->ue || dst + 8 < dst || dst + 8 > r->ue_end)
				continue;
			off = dst - r->ue;
			j = off / sizeof(struct batch_entry);
			if (j <= i ||
			    off % sizeof(struct batch_entry) !=
				    __builtin_offsetof(struct batch_entry, args[0]) ||
			    op_of(r->work[j].nr) == OP_NONE)
				return -EOPNOTSUPP;
			continue;
		}
		switch (op_of(e->nr)) {
		case OP_NONE:
			return -EOPNOTSUPP;
		case OP_READ:
		case OP_WRITE:
			if (e->args[2] > UINT32_MAX)
				return -EOPNOTSUPP;
			break;
		case OP_PREAD:
		case OP_PWRITE:
			if (e->args[2] > UINT32_MAX || e->args[3] == UINT64_MAX)
				return -EOPNOTSUPP;
			break;
		}
	}
	return 0;
}

/* ---- running it ----------------------------------------------------- */

static void prep(struct io_uring_sqe *sqe, const struct batch_entry *e)
{
	const __u64 *a = e->args;
	int fd = (int)a[0];

	switch (op_of(e->nr)) {
	case OP_OPENAT:
		io_uring_prep_openat(sqe, fd, (const char *)(uintptr_t)a[1], (int)a[2],
				     (mode_t)a[3]);
		break;
	case OP_CLOSE:
		io_uring_prep_close(sqe, fd);
		break;
	case OP_READ:
		io_uring_prep_read(sqe, fd, (void *)(uintptr_t)a[1], (unsigned)a[2], -1);
		break;
	case OP_WRITE:
		io_uring_prep_write(sqe, fd, (const void *)(uintptr_t)a[1],
				    (unsigned)a[2], -1);
		break;
	case OP_PREAD:
		io_uring_prep_read(sqe, fd, (void *)(uintptr_t)a[1], (unsigned)a[2], a[3]);
		break;
	case OP_PWRITE:
		io_uring_prep_write(sqe, fd, (const void *)(uintptr_t)a[1],
				    (unsigned)a[2], a[3]);
		break;
	case OP_STATX:
		io_uring_prep_statx(sqe, fd, (const char *)(uintptr_t)a[1], (int)a[2],
				    (unsigned)a[3], (struct statx *)(uintptr_t)a[4]);
		break;
	case OP_FSYNC:
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	case OP_FDATASYNC:
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		break;
	case OP_UNLINKAT:
		io_uring_prep_unlinkat(sqe, fd, (const char *)(uintptr_t)a[1], (int)a[2]);
		break;
	case OP_MKDIRAT:
		io_uring_prep_mkdirat(sqe, fd, (const char *)(uintptr_t)a[1], (mode_t)a[2]);
		break;
	}
}

/* Did entry e, with result v, break its soft link by a short transfer? */
static int broke_short(const struct batch_entry *e, int64_t v)
{
	uint64_t want = e->args[2] > 0x7ffff000UL ? 0x7ffff000UL : e->args[2];
	int op = op_of(e->nr);

	if (op != OP_READ && op != OP_WRITE && op != OP_PREAD && op != OP_PWRITE)
		return 0;
	return v >= 0 && (uint64_t)v < want;
}

/* Sync fallback if the ring refuses a submission (resource shortage): the
 * same sub-calls, one syscall each, with the same jumps. */
static unsigned int run_sync(struct sk_batch_run *r, unsigned int i, unsigned int j,
			     unsigned int *last)
{
	while (i < j) {
		const struct batch_entry *e = &r->work[i];
		unsigned int next;
		int64_t res;

		r->remapped |= sk_batch_may_remap(e->nr);	/* none does today */
		res = sk_syscall6((long)e->nr, (long)e->args[0], (long)e->args[1],
				  (long)e->args[2], (long)e->args[3],
				  (long)e->args[4], (long)e->args[5]);

		sk_batch_set(r, i, res);
		*last = i;
		next = sk_batch_next(e, res, i, r->count);
		if (next != i + 1)
			return next;
		i++;
	}
	return j;
}

/*
 * Run the ops work[i..j) (no word copy among them) and return the index of
 * the next entry to run (j, or count when the batch ends).  Submits again
 * from the entry after a short read/write that broke a soft link.
 */
static unsigned int run_segment(struct sk_batch_run *r, struct io_uring *ring,
				unsigned int i, unsigned int j, unsigned int *last)
{
	int64_t res[BATCH_MAX_ENTRIES];
	unsigned int k, start = i, got, want, sent;
	int canceled = 0;

	for (;;) {
		struct io_uring_cqe *cqe;
		int ret = 0, sweep = 1;

		/* A sweep (statx only, every jump "next"): no entry depends on
		 * another and none changes anything, so unlinked SQEs, run in
		 * parallel on io-wq, give the results of the ordered loop. */
		/* Their statx buffers must not overlap (each at a higher
		 * address than the last: an array), or the last writer would
		 * depend on timing. */
		for (k = start; k < j && sweep; k++)
			sweep = op_of(r->work[k].nr) == OP_STATX &&
				(k + 1 == j || link_kind(&r->work[k], k, r->count) == LINK_HARD) &&
				(k == start || r->work[k].args[4] >=
					r->work[k - 1].args[4] + sizeof(struct statx));
		for (k = start; k < j; k++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			res[k] = NO_CQE;
			int kind = k + 1 < j && !sweep ?
				link_kind(&r->work[k], k, r->count) : LINK_NONE;

			prep(sqe, &r->work[k]);
			sqe->user_data = k;
			if (kind == LINK_SOFT)
				sqe->flags |= IOSQE_IO_LINK;
			else if (kind == LINK_HARD)
				sqe->flags |= IOSQE_IO_HARDLINK;
		}
		/* SUBMIT_ALL takes the whole chain in one call; the loop is for
		 * a submission interrupted part way (-EINTR, -EAGAIN). */
		for (sent = 0; sent < j - start; sent += ret) {
			ret = io_uring_submit(ring);
			if (ret <= 0)
				break;
		}
		want = sent;
		for (got = 0; got < want;) {
			ret = io_uring_wait_cqe(ring, &cqe);
			if (ret == -EINTR) {
				if (!canceled) {
					struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

					io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
					sqe->user_data = CANCEL_TAG;
					io_uring_submit(ring);
					canceled = 1;
					want++;
				}
				continue;
			}
			if (ret == -EAGAIN || ret == -EBUSY)
				continue;
			if (ret < 0)
				break;	/* the ring is broken: see NO_CQE below */
			if (cqe->user_data < r->count)
				res[cqe->user_data] = cqe->res;
			io_uring_cqe_seen(ring, cqe);
			got++;
		}
		if (sent < j - start || got < want) {
			/* The ring refused SQEs (resource shortage): drop it,
			 * so the ones left in its queue never run, and run
			 * the rest of the segment with plain syscalls. */
			ring_drop();
			ring = NULL;
		}
		/* Walk the segment in order as the batch loop would. */
		for (k = start; k < start + sent; k++) {
			const struct batch_entry *e = &r->work[k];
			int64_t v = res[k];
			unsigned int next;

			if (v == NO_CQE) {
				/* Never completed (a broken ring): the rest
				 * runs as plain syscalls. */
				return run_sync(r, k, j, last);
			}
			if (v == -ECANCELED) {
				if (canceled) {
					/* Our cancel after a signal: the
					 * interrupted sub-call. */
					v = -EINTR;
					canceled = 0;
				} else if (k > start && broke_short(&r->work[k - 1], res[k - 1])) {
					/* The link broke on a short result
					 * before k: k never ran.  Go on. */
					break;
				} else {
					/* io_uring refused an SQE at submission
					 * (a bad path pointer, an empty path,
					 * bad flags) and failed its whole chain:
					 * run the rest with plain syscalls, in
					 * order, as the loop would. */
					return run_sync(r, k, j, last);
				}
			}
			sk_batch_set(r, k, v);
			*last = k;
			next = sk_batch_next(e, v, k, r->count);
			if (next != k + 1)
				return next;
		}
		canceled = 0;
		if (k == j)
			return j;
		if (!ring)
			return run_sync(r, k, j, last);
		start = k;
	}
}

long sk_batch_uring(const struct batch_entry *entries, int64_t *results,
		    unsigned int count, unsigned int flags)
{
	struct sk_batch_run r;
	struct io_uring *ring;
	unsigned int i = 0, j, last = 0;
	long ret;

	/* The checks of the call as a whole (EFAULT for the results
	 * included) come first, as on every backend; only then whether
	 * io_uring can run this program (EOPNOTSUPP). */
	ret = sk_batch_begin(&r, entries, results, count, flags);
	if (ret == 0)
		ret = sk_batch_results_init(&r, 1);
	if (ret == 0 && !(ring = ring_get()))
		ret = tls_ring_err ? tls_ring_err : -ENOSYS;
	if (ret == 0)
		ret = check_program(&r);
	if (ret) {
		sk_batch_end(&r);
		return ret;
	}
	while (i < count) {
		if (r.work[i].nr == BATCH_NR_WORDCOPY) {
			struct batch_entry e = r.work[i];
			int64_t res = e.flags ? -EINVAL : sk_batch_wordcopy(&r, &e);

			sk_batch_set(&r, i, res);
			last = i;
			i = sk_batch_next(&e, res, i, count);
			continue;
		}
		for (j = i; j < count && r.work[j].nr != BATCH_NR_WORDCOPY; j++)
			;
		ring = ring_get();
		i = ring ? run_segment(&r, ring, i, j, &last) : run_sync(&r, i, j, &last);
	}
	return sk_batch_finish(&r, last);
}

#endif /* SPAWNKIT_HAVE_LIBURING */

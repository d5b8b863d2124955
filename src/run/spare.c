/* SPDX-License-Identifier: MIT */
/*
 * spare.c - what a run does for the next one while its child execs.
 *
 * A default run (both outputs captured) spends ~6 us before the clone on
 * its two pipe2() calls and ~4 us after the child's exit freeing the
 * pipes and the pidfd (the last close of each), all of it on the critical
 * path: the caller waits for the exec before, and for the run's end
 * after.  Between the spawn's return and the child's exit the caller only
 * waits.  So, there:
 *
 * - spare pipes: the next run's two output pipes are made now and kept
 *   (sk_spare_take() hands them out; a run that finds none makes its own);
 * - deferred release: the last run's spent fds, its output pipes' read
 *   ends and its pidfd, are closed now instead of at its end.  Only a read
 *   end the pump saw hung up and empty after our write ends were closed is
 *   deferred: no writer is left to lose an EPIPE.  One the pump closed for
 *   any other reason (a writer that escaped the kill) is closed at once.
 *
 * Each slot holds one set of at most 4 fds, taken and given back whole
 * with an atomic state word (spawnkit_run is called from many threads with
 * no lock held): a slot another thread is busy with counts as empty when
 * taking (the run makes its own pipes) and as full when keeping (the set
 * is closed at once).  So the library keeps at most 4 + 3 such fds between
 * runs, besides the two /dev/null copies of devnull.c; all close-on-exec.
 *
 * The caller may close any fd, ours too (a daemon's closerange), and get
 * the number back for a file of its own.  So each kept fd carries the
 * (st_dev, st_ino) it had when kept (both ends of a pipe share the inode),
 * checked with an fstat before any use or close (sk_fd_check, as
 * devnull.c checks its fds); a number that fails is the caller's and is
 * never touched.  Only a dup of our own fd onto the number passes.
 *
 * Fork: a child of fork() inherits the slots and the fds; with the spare
 * pipes it would share the parent's next run's pipes.  A set records the
 * pid that made it and is used only by that pid (a getpid() per take,
 * ~0.1 us); a pthread_atfork() handler would miss children of _Fork(),
 * clone() or a raw syscall.  In a child the inherited copies are closed
 * instead (after the same identity check: they are its own copies).  The
 * deferred set needs no pid: it is only ever closed.
 */
#include <stdint.h>
#include <string.h>

#include "common/sys.h"
#include "run/fd_check.h"
#include "run/pipe.h"
#include "run/spare.h"

enum { EMPTY, BUSY, FULL };

struct slot {
	int state;
	struct sk_fdset set;
};

static struct slot spare, deferred;

static int get(struct slot *s, struct sk_fdset *out)
{
	int full = FULL;

	if (__atomic_load_n(&s->state, __ATOMIC_RELAXED) != FULL ||
	    !__atomic_compare_exchange_n(&s->state, &full, BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	*out = s->set;
	__atomic_store_n(&s->state, EMPTY, __ATOMIC_RELEASE);
	return 1;
}

static int put(struct slot *s, const struct sk_fdset *in)
{
	int empty = EMPTY;

	if (!__atomic_compare_exchange_n(&s->state, &empty, BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	s->set = *in;
	__atomic_store_n(&s->state, FULL, __ATOMIC_RELEASE);
	return 1;
}

/* Still the file it was when kept? */
static int same(const struct sk_fdset *s, int i)
{
	struct stat st;

	return sk_fd_check(s->fd[i], -1, &st) && st.st_dev == s->dev[i] &&
	       st.st_ino == s->ino[i];
}

/* Close what is still ours; leave every number that is not alone. */
static void close_checked(const struct sk_fdset *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->fd[i] >= 0 && same(s, i))
			sk_syscall1(SYS_close, s->fd[i]);
}

static void close_unchecked(const struct sk_fdset *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->fd[i] >= 0)
			sk_syscall1(SYS_close, s->fd[i]);
}

int sk_fdset_add(struct sk_fdset *s, int fd)
{
	struct stat st;

	if (s->n == SK_SPARE_MAX || !sk_fd_check(fd, -1, &st))
		return -1;
	s->fd[s->n] = fd;
	s->dev[s->n] = st.st_dev;
	s->ino[s->n] = st.st_ino;
	s->n++;
	return 0;
}

int sk_spare_take(int p1[2], int p2[2])
{
	struct sk_fdset s;
	int i, ok;

	if (!get(&spare, &s))
		return 0;
	ok = s.n == 4 && s.pid == (int)sk_syscall0(SYS_getpid);
	for (i = 0; ok && i < 4; i++)
		ok = same(&s, i);
	if (!ok) {
		close_checked(&s);
		return 0;
	}
	p1[0] = s.fd[0];
	p1[1] = s.fd[1];
	p2[0] = s.fd[2];
	p2[1] = s.fd[3];
	return 1;
}

/* Two pipes for the next run, made from fresh fds: no check needed. */
static void make_spares(void)
{
	struct sk_fdset s;
	struct stat st;
	int p[2], k;

	memset(&s, 0, sizeof(s));
	s.pid = (int)sk_syscall0(SYS_getpid);
	for (k = 0; k < 2; k++) {
		if (sk_run_pipe(p, 0))
			break;
		s.fd[s.n] = p[0];
		s.fd[s.n + 1] = p[1];
		s.n += 2;
		if (sk_syscall2(SYS_fstat, p[0], &st))
			break;
		s.dev[s.n - 2] = s.dev[s.n - 1] = st.st_dev;
		s.ino[s.n - 2] = s.ino[s.n - 1] = st.st_ino;
	}
	if (k < 2 || !put(&spare, &s))
		close_unchecked(&s);
}

void sk_spare_after_spawn(int want_pipes)
{
	struct sk_fdset s;

	if (get(&deferred, &s))
		close_checked(&s);
	if (want_pipes && __atomic_load_n(&spare.state, __ATOMIC_RELAXED) == EMPTY)
		make_spares();
}

void sk_spare_defer(struct sk_fdset *s)
{
	struct sk_fdset keep;
	int i;

	/* entries the run closed itself are gone */
	memset(&keep, 0, sizeof(keep));
	for (i = 0; i < s->n; i++)
		if (s->fd[i] >= 0) {
			keep.fd[keep.n] = s->fd[i];
			keep.dev[keep.n] = s->dev[i];
			keep.ino[keep.n] = s->ino[i];
			keep.n++;
		}
	if (keep.n && !put(&deferred, &keep))
		close_unchecked(&keep);
}

void sk_spare_close_all(void)
{
	struct sk_fdset s;

	if (get(&deferred, &s))
		close_checked(&s);
	if (get(&spare, &s))
		close_checked(&s);
}

/* The library unloaded (dlclose) or the process ending: nothing kept. */
__attribute__((destructor)) static void spare_unload(void)
{
	sk_spare_close_all();
}

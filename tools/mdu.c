/* SPDX-License-Identifier: MIT */
/*
 * mdu - disk usage of trees, one getdents64 and one batch of statx per
 * directory buffer, on several threads.
 *
 *   mdu [-l] [-b | -B1] [-s] [-j THREADS] PATH...
 *
 * For each PATH prints its totals like `du -s`: with -b the apparent size in
 * bytes (as `du -sb`), with -B1 the allocated bytes (as `du -sB1`), with
 * neither both: "apparent<TAB>allocated<TAB>PATH".  Like GNU du: symlinks
 * are not followed, a file with several hard links is counted once (with
 * several PATHs, every file and directory once) unless -l, a directory's own
 * size counts, and a directory that cannot be read or a file that vanished
 * gets a message on stderr, exit status 1, and the walk goes on.
 *
 * Threads (-j, default: the online CPUs, at most MAX_THREADS): a batch saves
 * kernel crossings, but on a stock kernel the per-file statx work itself is
 * most of the cost, and only more CPUs shorten that.  Each thread walks a
 * subtree depth-first with the sequential algorithm below; when a thread
 * waits for work, a busy one gives away the unvisited subdirectories of its
 * shallowest directory that still has some (the biggest pieces it holds),
 * but never its only work.  A piece names its directory by the components
 * below its PATH (for messages, and to reopen by names from PATH's fd, which
 * every thread shares) and opens it from an anchor, a duplicate of its
 * parent's fd shared by the pieces of one hand-off.  The PATHs are walked
 * one after the other, so each one's total excludes what earlier ones
 * counted, as du's does; the (dev, ino) set is shared and striped by hash.
 *
 * Depth is not limited by the open-file limit: each thread holds at most its
 * share of the fd budget of directories open; a deeper walk closes the
 * shallowest and reopens it (by openat from its nearest open ancestor, one
 * name at a time, so paths may be longer than PATH_MAX) when it needs it
 * again.  Fewer threads are started when the limit cannot give each one
 * MIN_FDS_PER_THREAD.
 *
 * The batch backend is spawnkit's automatic one (SPAWNKIT_BATCH_BACKEND
 * forces one).
 */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spawnkit/batch.h>
#include "common/sys.h"

#define DENTS_BUF	(64 * 1024)
#define STAT_MASK	(STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_INO | STATX_SIZE | \
			 STATX_BLOCKS)
#define MAX_THREADS	64
#define MAX_FD_BUDGET	256	/* directories one thread keeps open, at most */
/* A thread holds its budget (>= 2: a directory and its parent), one more
 * while it opens a child before trimming, and an io_uring ring fd. */
#define MIN_FDS_PER_THREAD 4
#define SET_STRIPES	64
#define MAX_ANCHORS	1024

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* One directory on a walker's stack. */
struct frame {
	char *name;		/* relative to the parent frame (root: as given) */
	int fd;			/* open fd, or -1 when closed to save fds */
	int shared;		/* the PATH's fd, owned by main(): never closed here */
	char *subs;		/* NUL-separated names of subdirectories to visit */
	size_t subs_len, subs_cap, subs_pos;
};

/* A duplicate of the fd of a directory whose subdirectories were given
 * away, shared by those pieces: each opens its directory with one openat
 * from it, however deep it is, and the last one closes it. */
struct anchor {
	int fd;
	unsigned int refs;	/* atomic: pieces that have not opened theirs */
};

/* A piece of work: the directory root/comps[0]/.../comps[n-1], already
 * counted by whoever listed it; to be opened (from the anchor, which is the
 * fd of comps[n-2], or else one name at a time from root), scanned and
 * walked.  The names also make its messages' paths. */
struct unit {
	struct unit *next;
	struct anchor *anchor;	/* or NULL */
	size_t ncomps;
	char comps[];		/* NUL-separated */
};

/* One thread's walk. */
struct walker {
	struct frame *stack;
	size_t depth, cap;
	size_t open_fds, fd_budget;
	unsigned long long apparent, allocated;
	char *dents;				/* DENTS_BUF */
	struct batch_entry *ents;		/* BATCH_MAX_ENTRIES each */
	int64_t *res;
	struct statx *stx;
	const char **names;
};

/* The (dev, ino) pairs seen; (0, 0) marks a free slot. */
struct stripe {
	pthread_mutex_t lock;
	uint64_t *set;
	size_t cap, used;
};

static struct {
	int count_all;		/* -l */
	int hash_all;		/* several PATHs: every inode once */
	int status;		/* atomic: 1 once anything went wrong */
	unsigned int nthreads;
	const char *root_name;	/* the PATH being walked */
	int root_fd;
	unsigned int anchors, anchors_max;	/* anchors open (atomic), at most */
	struct stripe stripes[SET_STRIPES];
} g;

/* The work queue of the PATH being walked. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct unit *head;	/* LIFO: keeps the walk near depth-first */
	unsigned int busy;	/* threads walking a unit */
	unsigned int waiting;	/* threads waiting for one; read unlocked as a hint */
} q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0 };

static void oom(void)
{
	fputs("mdu: out of memory\n", stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		oom();
	return p;
}

static void failed(void)
{
	__atomic_store_n(&g.status, 1, __ATOMIC_RELAXED);
}

/* ---- (dev, ino) set ------------------------------------------------- */

static size_t key_hash(uint64_t dev, uint64_t ino)
{
	return (size_t)((ino * 0x9e3779b97f4a7c15ULL) ^ (dev * 0xc2b2ae3d27d4eb4fULL));
}

static size_t set_slot(uint64_t dev, uint64_t ino, const uint64_t *set, size_t cap)
{
	size_t h;

	/* Stripes are chosen by the low bits: probe with the high ones. */
	for (h = (key_hash(dev, ino) >> 6) & (cap - 1);; h = (h + 1) & (cap - 1))
		if ((set[2 * h] == dev && set[2 * h + 1] == ino) ||
		    (set[2 * h] == 0 && set[2 * h + 1] == 0))
			return h;
}

static void stripe_grow(struct stripe *s)
{
	size_t ncap = s->cap ? 2 * s->cap : 256, h, i;
	uint64_t *nset = calloc(2 * ncap, sizeof(*nset));

	if (!nset)
		oom();
	for (i = 0; i < s->cap; i++)
		if (s->set[2 * i] || s->set[2 * i + 1]) {
			h = set_slot(s->set[2 * i], s->set[2 * i + 1], nset, ncap);
			nset[2 * h] = s->set[2 * i];
			nset[2 * h + 1] = s->set[2 * i + 1];
		}
	free(s->set);
	s->set = nset;
	s->cap = ncap;
}

/* 1 if newly added, 0 if seen before. */
static int set_add(uint64_t dev, uint64_t ino)
{
	struct stripe *s;
	size_t h;
	int added = 0;

	dev++;	/* keep (0, 0) free as the empty mark */
	s = &g.stripes[key_hash(dev, ino) & (SET_STRIPES - 1)];
	pthread_mutex_lock(&s->lock);
	if (2 * (s->used + 1) > s->cap)
		stripe_grow(s);
	h = set_slot(dev, ino, s->set, s->cap);
	if (!(s->set[2 * h] == dev && s->set[2 * h + 1] == ino)) {
		s->set[2 * h] = dev;
		s->set[2 * h + 1] = ino;
		s->used++;
		added = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return added;
}

/* Count one file into the two totals; 0 if it was counted before (so
 * not descended into). */
static int account(const struct statx *st, unsigned long long *apparent,
		   unsigned long long *allocated)
{
	int isdir = S_ISDIR(st->stx_mode);

	if (!g.count_all && (g.hash_all || (!isdir && st->stx_nlink > 1))) {
		uint64_t dev = ((uint64_t)st->stx_dev_major << 32) | st->stx_dev_minor;

		if (!set_add(dev, st->stx_ino))
			return 0;
	}
	*apparent += st->stx_size;
	*allocated += st->stx_blocks * 512ULL;
	return 1;
}

/* ---- messages -------------------------------------------------------- */

/* Path of the top frame (+ "/" name), only ever built for a message. */
static char *path_of(const struct walker *w, const char *name)
{
	size_t i, len = 1;
	char *p, *o;

	for (i = 0; i < w->depth; i++)
		len += strlen(w->stack[i].name) + 1;
	if (name)
		len += strlen(name) + 1;
	o = p = xrealloc(NULL, len);
	for (i = 0; i < w->depth; i++) {
		if (i)
			*o++ = '/';
		o = stpcpy(o, w->stack[i].name);
	}
	if (name) {
		*o++ = '/';
		o = stpcpy(o, name);
	}
	*o = 0;
	return p;
}

static void complain(const struct walker *w, const char *what, const char *name, long err)
{
	char *p = path_of(w, name);

	fprintf(stderr, "mdu: %s '%s': %s\n", what, p, strerror((int)-err));
	free(p);
	failed();
}

/* ---- fds ------------------------------------------------------------ */

static long open_dir(int dirfd, const char *name)
{
	return sk_syscall4(SYS_openat, dirfd, name,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
}

static void close_frame_fd(struct walker *w, struct frame *f)
{
	if (f->fd >= 0 && !f->shared) {
		sk_syscall1(SYS_close, f->fd);
		f->fd = -1;
		w->open_fds--;
	}
}

/* Keep at most fd_budget directories open: close the shallowest ones below
 * frame `keep` (which, and the frames above it, stay open). */
static void trim_fds_below(struct walker *w, size_t keep)
{
	size_t i;

	for (i = 0; w->open_fds > w->fd_budget && i < keep; i++)
		close_frame_fd(w, &w->stack[i]);
}

/* The fd of frame k, reopened from its nearest open ancestor if closed
 * (the root frame is always open).  Never holds more than fd_budget + 1. */
static long frame_fd(struct walker *w, size_t k)
{
	size_t a;
	long fd;

	if (w->stack[k].fd >= 0)
		return w->stack[k].fd;
	for (a = k; a > 0 && w->stack[a - 1].fd < 0; a--)
		;
	for (; a <= k; a++) {
		fd = open_dir(w->stack[a - 1].fd, w->stack[a].name);
		if (fd < 0)
			return fd;
		w->stack[a].fd = (int)fd;
		w->open_fds++;
		trim_fds_below(w, a);
	}
	return w->stack[k].fd;
}

/* ---- one directory -------------------------------------------------- */

static void add_sub(struct frame *f, const char *name)
{
	size_t len = strlen(name) + 1;

	if (f->subs_len + len > f->subs_cap) {
		f->subs_cap = 2 * (f->subs_len + len) + 256;
		f->subs = xrealloc(f->subs, f->subs_cap);
	}
	memcpy(f->subs + f->subs_len, name, len);
	f->subs_len += len;
}

static void flush(struct walker *w, struct frame *f, unsigned int n)
{
	unsigned int i;
	long ret;

	if (!n)
		return;
	ret = spawnkit_batch(w->ents, w->res, n, 0);
	if (ret < 0) {
		const char *be = getenv("SPAWNKIT_BATCH_BACKEND");

		fprintf(stderr, "mdu: batch: %s (backend %s)\n", strerror((int)-ret),
			be && *be ? be : spawnkit_batch_backend_name(spawnkit_batch_backend()));
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (w->res[i] < 0) {
			complain(w, "cannot access", w->names[i], w->res[i]);
			continue;
		}
		if (account(&w->stx[i], &w->apparent, &w->allocated) &&
		    S_ISDIR(w->stx[i].stx_mode))
			add_sub(f, w->names[i]);
	}
}

/* Count every entry of the top frame (open) and list its subdirectories. */
static void scan(struct walker *w)
{
	struct frame *f = &w->stack[w->depth - 1];
	unsigned int n = 0;
	long len, off;

	for (;;) {
		len = sk_syscall3(SYS_getdents64, f->fd, w->dents, DENTS_BUF);
		if (len <= 0)
			break;
		for (off = 0; off < len;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(w->dents + off);
			const char *nm = d->d_name;

			off += d->d_reclen;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			w->names[n] = nm;
			w->ents[n] = BATCH_CALL5(SYS_statx, f->fd, nm, AT_SYMLINK_NOFOLLOW,
						 STAT_MASK, &w->stx[n]);
			if (++n == BATCH_MAX_ENTRIES) {
				flush(w, f, n);
				n = 0;
			}
		}
		/* The names live in the buffer: stat them before the next read. */
		flush(w, f, n);
		n = 0;
	}
	if (len < 0)
		complain(w, "cannot read directory", NULL, len);
}

static void push(struct walker *w, const char *name, int fd, int shared)
{
	struct frame *f;

	if (w->depth == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->stack = xrealloc(w->stack, w->cap * sizeof(*w->stack));
	}
	f = &w->stack[w->depth++];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	if (!f->name)
		oom();
	f->fd = fd;
	f->shared = shared;
	if (fd >= 0 && !shared)
		w->open_fds++;
}

static void pop(struct walker *w)
{
	struct frame *f = &w->stack[--w->depth];

	close_frame_fd(w, f);
	free(f->name);
	free(f->subs);
}

/* ---- sharing work ---------------------------------------------------- */

/* Queue the list `first`..`last` (linked by next). */
static void queue_push(struct unit *first, struct unit *last)
{
	pthread_mutex_lock(&q.lock);
	last->next = q.head;
	q.head = first;
	pthread_cond_broadcast(&q.cond);
	pthread_mutex_unlock(&q.lock);
}

/* An anchor for the open directory fd, or NULL when the fds set aside for
 * anchors are taken (the pieces then open by names from the root). */
static struct anchor *anchor_new(int fd)
{
	struct anchor *a;
	long dup;

	if (__atomic_add_fetch(&g.anchors, 1, __ATOMIC_RELAXED) > g.anchors_max)
		goto none;
	dup = sk_syscall3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
	if (dup < 0)
		goto none;
	a = malloc(sizeof(*a));
	if (!a)
		oom();
	a->fd = (int)dup;
	a->refs = 0;
	return a;
none:
	__atomic_sub_fetch(&g.anchors, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void anchor_put(struct anchor *a)
{
	if (a && __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		sk_syscall1(SYS_close, a->fd);
		free(a);
		__atomic_sub_fetch(&g.anchors, 1, __ATOMIC_RELAXED);
	}
}

/* Give the unvisited subdirectories of the shallowest frame that has some
 * to the queue, one unit each, if a thread is waiting for work.  From the
 * top frame the next one stays ours: giving away our only work would only
 * move it between threads (a chain of single subdirectories would bounce
 * down its whole depth). */
static void share(struct walker *w)
{
	struct unit *first = NULL, *last = NULL;
	size_t i, k, len = 0, pos, keep_end;
	struct frame *f = NULL;
	struct anchor *a;
	unsigned int n = 0;

	if (!__atomic_load_n(&q.waiting, __ATOMIC_RELAXED))
		return;
	for (i = 0; i < w->depth; i++)
		if (w->stack[i].subs_pos < w->stack[i].subs_len) {
			f = &w->stack[i];
			break;
		}
	if (!f)
		return;
	pos = f->subs_pos;
	keep_end = pos;
	if (i == w->depth - 1) {
		keep_end = pos + strlen(f->subs + pos) + 1;
		if (keep_end >= f->subs_len)
			return;
	}
	for (k = 1; k <= i; k++)
		len += strlen(w->stack[k].name) + 1;
	a = f->fd >= 0 ? anchor_new(f->fd) : NULL;
	for (pos = keep_end; pos < f->subs_len; n++) {
		const char *sub = f->subs + pos;
		size_t sublen = strlen(sub) + 1;
		struct unit *u = malloc(sizeof(*u) + len + sublen);
		char *o;

		if (!u)
			oom();
		o = u->comps;
		for (k = 1; k <= i; k++)
			o = stpcpy(o, w->stack[k].name) + 1;
		memcpy(o, sub, sublen);
		u->ncomps = i + 1;
		u->anchor = a;
		u->next = NULL;
		if (last)
			last->next = u;
		else
			first = u;
		last = u;
		pos += sublen;
	}
	if (a)
		a->refs = n;	/* before any piece can be taken */
	f->subs_len = keep_end;
	if (f->subs_pos > f->subs_len)
		f->subs_pos = f->subs_len;
	queue_push(first, last);
}

/* ---- walking --------------------------------------------------------- */

/* Open, scan and walk the unit's directory and everything below it. */
static void walk_unit(struct walker *w, const struct unit *u)
{
	const char *c = u->comps;
	size_t k;
	long fd;

	push(w, g.root_name, g.root_fd, 1);
	for (k = 0; k < u->ncomps; k++, c += strlen(c) + 1)
		push(w, c, -1, 0);
	if (u->anchor) {
		/* The frames between stay closed: reopened from the root if
		 * ever needed, as the anchor is not ours to keep. */
		struct frame *top = &w->stack[w->depth - 1];

		fd = open_dir(u->anchor->fd, top->name);
		anchor_put(u->anchor);
		if (fd >= 0) {
			top->fd = (int)fd;
			w->open_fds++;
		}
	} else {
		fd = frame_fd(w, w->depth - 1);
	}
	if (fd < 0) {
		/* Name the component that did not open: the top one from an
		 * anchor; else the one above the deepest open frame (frame_fd
		 * opens downwards and may close frames above it, never the
		 * last one it opened; the root is always open). */
		size_t top = w->depth, a = top - 1;

		if (!u->anchor)
			while (a > 1 && w->stack[a - 1].fd < 0)
				a--;
		w->depth = a;
		complain(w, "cannot read directory", w->stack[a].name, fd);
		w->depth = top;
		while (w->depth)
			pop(w);
		return;
	}
	scan(w);
	while (w->depth) {
		struct frame *f = &w->stack[w->depth - 1];
		const char *name;
		long pfd;

		if (g.nthreads > 1)
			share(w);
		if (f->subs_pos >= f->subs_len) {
			pop(w);
			continue;
		}
		name = f->subs + f->subs_pos;
		f->subs_pos += strlen(name) + 1;
		pfd = frame_fd(w, w->depth - 1);
		if (pfd < 0) {
			complain(w, "cannot read directory", NULL, pfd);
			f->subs_pos = f->subs_len;	/* its subtree is lost */
			continue;
		}
		fd = open_dir((int)pfd, name);
		if (fd < 0) {
			complain(w, "cannot read directory", name, fd);
			continue;
		}
		push(w, name, (int)fd, 0);
		trim_fds_below(w, w->depth - 1);
		scan(w);
		/* A leaf needs no fd any more; a parent reopens when needed. */
		f = &w->stack[w->depth - 1];
		if (f->subs_len == 0 || w->open_fds > w->fd_budget)
			close_frame_fd(w, f);
	}
}

static void *worker(void *arg)
{
	struct walker *w = arg;

	pthread_mutex_lock(&q.lock);
	for (;;) {
		struct unit *u;

		while (!q.head && q.busy) {
			__atomic_add_fetch(&q.waiting, 1, __ATOMIC_RELAXED);
			pthread_cond_wait(&q.cond, &q.lock);
			__atomic_sub_fetch(&q.waiting, 1, __ATOMIC_RELAXED);
		}
		if (!q.head)
			break;		/* nothing queued, nobody to queue more */
		u = q.head;
		q.head = u->next;
		q.busy++;
		pthread_mutex_unlock(&q.lock);
		walk_unit(w, u);
		free(u);
		pthread_mutex_lock(&q.lock);
		q.busy--;
	}
	/* Wake the others: they see the same empty, idle queue and end. */
	pthread_cond_broadcast(&q.cond);
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

static void walker_init(struct walker *w, size_t fd_budget)
{
	memset(w, 0, sizeof(*w));
	w->fd_budget = fd_budget;
	w->dents = malloc(DENTS_BUF);
	w->ents = malloc(BATCH_MAX_ENTRIES * sizeof(*w->ents));
	w->res = malloc(BATCH_MAX_ENTRIES * sizeof(*w->res));
	w->stx = malloc(BATCH_MAX_ENTRIES * sizeof(*w->stx));
	w->names = malloc(BATCH_MAX_ENTRIES * sizeof(*w->names));
	if (!w->dents || !w->ents || !w->res || !w->stx || !w->names)
		oom();
}

/* Walk below the open directory root (already counted) on every walker;
 * adds what they counted to the two totals. */
static void walk(const char *name, int fd, struct walker *ws, unsigned int n,
		 unsigned long long *apparent, unsigned long long *allocated)
{
	pthread_t tids[MAX_THREADS];
	struct unit *u = calloc(1, sizeof(*u) + 1);
	unsigned int i;
	int err;

	if (!u)
		oom();
	g.root_name = name;
	g.root_fd = fd;
	queue_push(u, u);
	for (i = 1; i < n; i++) {
		err = pthread_create(&tids[i], NULL, worker, &ws[i]);
		if (err) {
			fprintf(stderr, "mdu: cannot start a thread: %s\n", strerror(err));
			exit(1);
		}
	}
	worker(&ws[0]);
	for (i = 1; i < n; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < n; i++) {
		*apparent += ws[i].apparent;
		*allocated += ws[i].allocated;
		ws[i].apparent = ws[i].allocated = 0;
	}
}

static void usage(void)
{
	fputs("usage: mdu [-l] [-b | -B1] [-s] [-j THREADS] PATH...\n", stderr);
	exit(2);
}

/* Threads, each one's fd budget and the anchors' under the open-file
 * limit: stdio, the PATH's fd and a little for the C library stay free; a
 * quarter of the rest (at most MAX_ANCHORS) is for anchors. */
static void plan_threads(unsigned int want, size_t *fd_budget)
{
	struct rlimit rl;
	size_t avail = 4 * MAX_FD_BUDGET * (size_t)MAX_THREADS;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < avail)
		avail = rl.rlim_cur > 8 ? rl.rlim_cur - 8 : 0;
	if (want > 1) {
		g.anchors_max = (unsigned int)(avail / 4 < MAX_ANCHORS ? avail / 4 : MAX_ANCHORS);
		avail -= g.anchors_max;
	}
	if (want > avail / MIN_FDS_PER_THREAD)
		want = (unsigned int)(avail / MIN_FDS_PER_THREAD);
	g.nthreads = want ? want : 1;
	*fd_budget = avail / g.nthreads > MIN_FDS_PER_THREAD ?
		     avail / g.nthreads - (MIN_FDS_PER_THREAD - 2) : 2;
	if (*fd_budget > MAX_FD_BUDGET)
		*fd_budget = MAX_FD_BUDGET;
}

int main(int argc, char **argv)
{
	int opt, mode = 0;	/* 0 both, 'b' apparent, 'B' allocated */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int want = ncpu > 0 ? (ncpu > MAX_THREADS ? MAX_THREADS : (unsigned int)ncpu) : 1;
	struct walker *ws;
	size_t fd_budget;
	char *end;
	int i;

	while ((opt = getopt(argc, argv, "slbB:j:")) != -1) {
		switch (opt) {
		case 's':
			break;
		case 'l':
			g.count_all = 1;
			break;
		case 'b':
			mode = 'b';
			break;
		case 'B':
			if (strcmp(optarg, "1"))
				usage();
			mode = 'B';
			break;
		case 'j': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || optarg[0] == '-' || v < 1 || v > MAX_THREADS) {
				fprintf(stderr, "mdu: -j: a number of threads from 1 to %d\n",
					MAX_THREADS);
				exit(2);
			}
			want = (unsigned int)v;
			break;
		}
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	g.hash_all = argc - optind > 1;
	for (i = 0; i < SET_STRIPES; i++)
		pthread_mutex_init(&g.stripes[i].lock, NULL);
	plan_threads(want, &fd_budget);
	ws = malloc(g.nthreads * sizeof(*ws));
	if (!ws)
		oom();
	for (i = 0; i < (int)g.nthreads; i++)
		walker_init(&ws[i], fd_budget);

	for (i = optind; i < argc; i++) {
		unsigned long long apparent = 0, allocated = 0;
		struct statx st;
		long ret;

		ret = sk_syscall5(SYS_statx, AT_FDCWD, argv[i], AT_SYMLINK_NOFOLLOW,
				  STAT_MASK, &st);
		if (ret < 0) {
			fprintf(stderr, "mdu: cannot access '%s': %s\n", argv[i],
				strerror((int)-ret));
			failed();
			continue;
		}
		/* An argument already counted under an earlier one is not
		 * printed at all (as du). */
		if (!account(&st, &apparent, &allocated))
			continue;
		if (S_ISDIR(st.stx_mode)) {
			long fd = open_dir(AT_FDCWD, argv[i]);

			if (fd < 0) {
				fprintf(stderr, "mdu: cannot read directory '%s': %s\n",
					argv[i], strerror((int)-fd));
				failed();
			} else {
				walk(argv[i], (int)fd, ws, g.nthreads, &apparent, &allocated);
				sk_syscall1(SYS_close, fd);
			}
		}
		if (mode == 'b')
			printf("%llu\t%s\n", apparent, argv[i]);
		else if (mode == 'B')
			printf("%llu\t%s\n", allocated, argv[i]);
		else
			printf("%llu\t%llu\t%s\n", apparent, allocated, argv[i]);
	}
	return __atomic_load_n(&g.status, __ATOMIC_RELAXED);
}

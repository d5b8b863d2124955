/* SPDX-License-Identifier: MIT */
/*
 * mdu - disk usage of trees, one getdents64 and one batch of statx per
 * directory buffer.
 *
 *   mdu [-l] [-b | -B1] [-s] PATH...
 *
 * For each PATH prints its totals like `du -s`: with -b the apparent size in
 * bytes (as `du -sb`), with -B1 the allocated bytes (as `du -sB1`), with
 * neither both: "apparent<TAB>allocated<TAB>PATH".  Like GNU du: symlinks
 * are not followed, a file with several hard links is counted once (with
 * several PATHs, every file and directory once) unless -l, a directory's own
 * size counts, and a directory that cannot be read or a file that vanished
 * gets a message on stderr, exit status 1, and the walk goes on.
 *
 * Depth is not limited by the open-file limit: at most FD_BUDGET directories
 * are held open; a deeper walk closes the shallowest and reopens it (by
 * openat from its nearest open ancestor, one name at a time, so paths may be
 * longer than PATH_MAX) when it needs it again.
 *
 * The batch backend is spawnkit's automatic one (SPAWNKIT_BATCH_BACKEND
 * forces one).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <spawnkit/batch.h>
#include "common/sys.h"

#define DENTS_BUF	(64 * 1024)
#define STAT_MASK	(STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_INO | STATX_SIZE | \
			 STATX_BLOCKS)

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* One directory on the walk's stack. */
struct frame {
	char *name;		/* relative to the parent frame (root: as given) */
	int fd;			/* open fd, or -1 when closed to save fds */
	char *subs;		/* NUL-separated names of subdirectories to visit */
	size_t subs_len, subs_cap, subs_pos;
};

static struct {
	int count_all;		/* -l */
	int hash_all;		/* several PATHs: every inode once */
	int status;
	unsigned long long apparent, allocated;
	struct frame *stack;
	size_t depth, cap;
	size_t open_fds, fd_budget;
	uint64_t *set;		/* (dev, ino) pairs seen; 0,0 is free */
	size_t set_cap, set_used;
} g;

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

/* ---- (dev, ino) set ------------------------------------------------- */

static size_t set_slot(uint64_t dev, uint64_t ino, uint64_t *set, size_t cap)
{
	size_t h = (size_t)((ino * 0x9e3779b97f4a7c15ULL) ^ (dev * 0xc2b2ae3d27d4eb4fULL));

	for (h &= cap - 1;; h = (h + 1) & (cap - 1))
		if ((set[2 * h] == dev && set[2 * h + 1] == ino) ||
		    (set[2 * h] == 0 && set[2 * h + 1] == 0))
			return h;
}

/* 1 if newly added, 0 if seen before. */
static int set_add(uint64_t dev, uint64_t ino)
{
	size_t h, i;

	dev++;	/* keep (0, 0) free as the empty mark */
	if (2 * (g.set_used + 1) > g.set_cap) {
		size_t ncap = g.set_cap ? 2 * g.set_cap : 1024;
		uint64_t *nset = calloc(2 * ncap, sizeof(*nset));

		if (!nset)
			oom();
		for (i = 0; i < g.set_cap; i++)
			if (g.set[2 * i] || g.set[2 * i + 1]) {
				h = set_slot(g.set[2 * i], g.set[2 * i + 1], nset, ncap);
				nset[2 * h] = g.set[2 * i];
				nset[2 * h + 1] = g.set[2 * i + 1];
			}
		free(g.set);
		g.set = nset;
		g.set_cap = ncap;
	}
	h = set_slot(dev, ino, g.set, g.set_cap);
	if (g.set[2 * h] == dev && g.set[2 * h + 1] == ino)
		return 0;
	g.set[2 * h] = dev;
	g.set[2 * h + 1] = ino;
	g.set_used++;
	return 1;
}

/* Count one file; 0 if it was counted before (so not descended into). */
static int account(const struct statx *st)
{
	int isdir = S_ISDIR(st->stx_mode);

	if (!g.count_all && (g.hash_all || (!isdir && st->stx_nlink > 1))) {
		uint64_t dev = ((uint64_t)st->stx_dev_major << 32) | st->stx_dev_minor;

		if (!set_add(dev, st->stx_ino))
			return 0;
	}
	g.apparent += st->stx_size;
	g.allocated += st->stx_blocks * 512ULL;
	return 1;
}

/* ---- messages -------------------------------------------------------- */

/* Path of the top frame (+ "/" name), only ever built for a message. */
static char *path_of(const char *name)
{
	size_t i, len = 1;
	char *p, *w;

	for (i = 0; i < g.depth; i++)
		len += strlen(g.stack[i].name) + 1;
	if (name)
		len += strlen(name) + 1;
	w = p = xrealloc(NULL, len);
	for (i = 0; i < g.depth; i++) {
		if (i)
			*w++ = '/';
		w = stpcpy(w, g.stack[i].name);
	}
	if (name) {
		*w++ = '/';
		w = stpcpy(w, name);
	}
	*w = 0;
	return p;
}

static void complain(const char *what, const char *name, long err)
{
	char *p = path_of(name);

	fprintf(stderr, "mdu: %s '%s': %s\n", what, p, strerror((int)-err));
	free(p);
	g.status = 1;
}

/* ---- fds ------------------------------------------------------------ */

static long open_dir(int dirfd, const char *name)
{
	return sk_syscall4(SYS_openat, dirfd, name,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
}

static void close_frame_fd(struct frame *f)
{
	if (f->fd >= 0) {
		sk_syscall1(SYS_close, f->fd);
		f->fd = -1;
		g.open_fds--;
	}
}

/* Keep at most fd_budget directories open: close the shallowest ones
 * (frames below keep, the top needs its fd). */
static void trim_fds(void)
{
	size_t i;

	for (i = 0; g.open_fds > g.fd_budget && i + 1 < g.depth; i++)
		close_frame_fd(&g.stack[i]);
}

/* The fd of frame k, reopened from its nearest open ancestor if closed. */
static long frame_fd(size_t k)
{
	size_t a;
	long fd;

	if (g.stack[k].fd >= 0)
		return g.stack[k].fd;
	for (a = k; a > 0 && g.stack[a - 1].fd < 0; a--)
		;
	for (; a <= k; a++) {
		fd = open_dir(a ? g.stack[a - 1].fd : AT_FDCWD, g.stack[a].name);
		if (fd < 0)
			return fd;
		g.stack[a].fd = (int)fd;
		g.open_fds++;
	}
	trim_fds();
	return g.stack[k].fd;
}

/* ---- one directory -------------------------------------------------- */

static struct batch_entry ents[BATCH_MAX_ENTRIES];
static int64_t res[BATCH_MAX_ENTRIES];
static struct statx stx[BATCH_MAX_ENTRIES];
static const char *names[BATCH_MAX_ENTRIES];

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

static void flush(struct frame *f, unsigned int n)
{
	unsigned int i;
	long ret;

	if (!n)
		return;
	ret = spawnkit_batch(ents, res, n, 0);
	if (ret < 0) {
		const char *be = getenv("SPAWNKIT_BATCH_BACKEND");

		fprintf(stderr, "mdu: batch: %s (backend %s)\n", strerror((int)-ret),
			be && *be ? be : spawnkit_batch_backend_name(spawnkit_batch_backend()));
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (res[i] < 0) {
			complain("cannot access", names[i], res[i]);
			continue;
		}
		if (account(&stx[i]) && S_ISDIR(stx[i].stx_mode))
			add_sub(f, names[i]);
	}
}

/* Count every entry of the top frame (open) and list its subdirectories. */
static void scan(void)
{
	static char buf[DENTS_BUF] __attribute__((aligned(8)));
	struct frame *f = &g.stack[g.depth - 1];
	unsigned int n = 0;
	long len, off;

	for (;;) {
		len = sk_syscall3(SYS_getdents64, f->fd, buf, sizeof(buf));
		if (len <= 0)
			break;
		for (off = 0; off < len;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			const char *nm = d->d_name;

			off += d->d_reclen;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			names[n] = nm;
			ents[n] = BATCH_CALL5(SYS_statx, f->fd, nm, AT_SYMLINK_NOFOLLOW,
					      STAT_MASK, &stx[n]);
			if (++n == BATCH_MAX_ENTRIES) {
				flush(f, n);
				n = 0;
			}
		}
		/* The names live in buf: stat them before the next read. */
		flush(f, n);
		n = 0;
	}
	if (len < 0)
		complain("cannot read directory", NULL, len);
}

static void push(const char *name, int fd)
{
	struct frame *f;

	if (g.depth == g.cap) {
		g.cap = g.cap ? 2 * g.cap : 64;
		g.stack = xrealloc(g.stack, g.cap * sizeof(*g.stack));
	}
	f = &g.stack[g.depth++];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	if (!f->name)
		oom();
	f->fd = fd;
	if (fd >= 0)
		g.open_fds++;
}

static void pop(void)
{
	struct frame *f = &g.stack[--g.depth];

	close_frame_fd(f);
	free(f->name);
	free(f->subs);
}

static void walk(const char *root, int rootfd)
{
	push(root, rootfd);
	scan();
	while (g.depth) {
		struct frame *f = &g.stack[g.depth - 1];
		const char *name;
		long pfd, fd;

		if (f->subs_pos >= f->subs_len) {
			pop();
			continue;
		}
		name = f->subs + f->subs_pos;
		f->subs_pos += strlen(name) + 1;
		pfd = frame_fd(g.depth - 1);
		if (pfd < 0) {
			complain("cannot read directory", NULL, pfd);
			f->subs_pos = f->subs_len;	/* its subtree is lost */
			continue;
		}
		fd = open_dir((int)pfd, name);
		if (fd < 0) {
			complain("cannot read directory", name, fd);
			continue;
		}
		push(name, (int)fd);
		trim_fds();
		scan();
		/* A leaf needs no fd any more; a parent reopens when needed. */
		f = &g.stack[g.depth - 1];
		if (f->subs_len == 0 || g.open_fds > g.fd_budget)
			close_frame_fd(f);
	}
}

static void usage(void)
{
	fputs("usage: mdu [-l] [-b | -B1] [-s] PATH...\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	int opt, mode = 0;	/* 0 both, 'b' apparent, 'B' allocated */
	struct rlimit rl;
	int i;

	while ((opt = getopt(argc, argv, "slbB:")) != -1) {
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
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	g.hash_all = argc - optind > 1;
	g.fd_budget = 256;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 4 < g.fd_budget)
		g.fd_budget = rl.rlim_cur > 16 ? rl.rlim_cur / 4 : 2;
	for (i = optind; i < argc; i++) {
		struct statx st;
		long ret;

		g.apparent = g.allocated = 0;
		ret = sk_syscall5(SYS_statx, AT_FDCWD, argv[i], AT_SYMLINK_NOFOLLOW,
				  STAT_MASK, &st);
		if (ret < 0) {
			fprintf(stderr, "mdu: cannot access '%s': %s\n", argv[i],
				strerror((int)-ret));
			g.status = 1;
			continue;
		}
		/* An argument already counted under an earlier one is not
		 * printed at all (as du). */
		if (!account(&st))
			continue;
		if (S_ISDIR(st.stx_mode)) {
			long fd = open_dir(AT_FDCWD, argv[i]);

			if (fd < 0) {
				fprintf(stderr, "mdu: cannot read directory '%s': %s\n",
					argv[i], strerror((int)-fd));
				g.status = 1;
			} else {
				walk(argv[i], (int)fd);
			}
		}
		if (mode == 'b')
			printf("%llu\t%s\n", g.apparent, argv[i]);
		else if (mode == 'B')
			printf("%llu\t%s\n", g.allocated, argv[i]);
		else
			printf("%llu\t%llu\t%s\n", g.apparent, g.allocated, argv[i]);
	}
	return g.status;
}

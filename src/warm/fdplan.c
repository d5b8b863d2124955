/* SPDX-License-Identifier: MIT */
/*
 * fdplan.c - a call's actions replayed, without running them, into the list
 * "the tool's fd T is the caller's fd S", its cwd and its signal actions, so
 * the fds can travel to the warm interpreter with SCM_RIGHTS.
 *
 * The child of spawnkit_spawn() starts with the caller's fd table, runs the
 * actions in order, then (unless INHERIT_FDS) closes every fd above 2.  The
 * replay keeps the actions and asks, for one child fd, which caller fd it
 * holds at the end: the last action that wrote or closed it decides.
 * Anything whose result depends on the caller's whole fd table (INHERIT_FDS
 * without a closing range over the rest) or on the file system (OPEN) runs
 * cold, as does a terminal: Python decides buffering from isatty.
 */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "common/ucopy.h"
#include "warm/warm_int.h"

#define CLOSED (-1)
#define OPENED(i) (-2 - (int)(i))	/* held the file OPEN action i opened */

/* The caller fd that child fd `fd` holds after actions [0, upto), or CLOSED. */
static int holder(const struct spawn_template_action *a, unsigned int upto, int fd)
{
	while (upto--) {
		const struct spawn_template_action *x = &a[upto];

		switch (x->type) {
		case SPAWN_TEMPLATE_ACTION_DUP2:
			if (x->newfd == fd)
				return x->fd == fd ? holder(a, upto, fd) : holder(a, upto, x->fd);
			break;
		case SPAWN_TEMPLATE_ACTION_CLOSE:
			if (x->fd == fd)
				return CLOSED;
			break;
		case SPAWN_TEMPLATE_ACTION_CLOSE_RANGE:
			if (fd >= x->fd && (uint32_t)fd <= (uint32_t)x->newfd)
				return CLOSED;
			break;
		case SPAWN_TEMPLATE_ACTION_OPEN:
			if (x->newfd == fd)
				return OPENED(upto);
			break;
		}
	}
	return fcntl(fd, F_GETFD) < 0 ? CLOSED : fd;
}

/* Caller memory is copied as the spawn itself does (a bad pointer is
 * EFAULT there, so a cold fallback here, never a crash). */
static int sigset_of(const struct spawn_template_action *x, uint64_t *out)
{
	struct spawn_template_sigset s;

	if (!x->arg || sk_copy_in(&s, x->arg, sizeof(s)) || s.sigsetsize != 8 ||
	    sk_copy_in(out, s.sigset, sizeof(*out)))
		return -1;
	return 0;
}

/* With INHERIT_FDS: every fd above 2 is closed or written by some action,
 * so no fd of the caller reaches the tool by inheritance alone. */
static int rest_closed(const struct spawn_template_action *a, unsigned int nr)
{
	uint32_t lo = 3;
	int progress = 1;

	while (progress) {
		unsigned int i;

		progress = 0;
		for (i = 0; i < nr; i++) {
			const struct spawn_template_action *x = &a[i];

			if (x->type == SPAWN_TEMPLATE_ACTION_CLOSE_RANGE && x->fd >= 0 &&
			    (uint32_t)x->fd <= lo && (uint32_t)x->newfd >= lo) {
				if ((uint32_t)x->newfd >= SPAWN_TEMPLATE_FD_MAX)
					return 1;
				lo = (uint32_t)x->newfd + 1;
				progress = 1;
			} else if ((x->type == SPAWN_TEMPLATE_ACTION_DUP2 && (uint32_t)x->newfd == lo) ||
				   (x->type == SPAWN_TEMPLATE_ACTION_CLOSE && (uint32_t)x->fd == lo)) {
				lo++;
				progress = 1;
			}
		}
	}
	return 0;
}

/* OPEN is replayed by opening the file here: only where that is the same
 * (an absolute path, nothing created or truncated by the open itself, a
 * regular file or a device: a FIFO would block or fail differently). */
static int open_args(const struct spawn_template_action *x, struct open_how *how,
		     char *path)
{
	struct spawn_template_open o;

	if (!x->arg || x->newfd < 0 || x->flags || sk_copy_in(&o, x->arg, sizeof(o)) || !o.how ||
	    sk_copy_struct_in(how, sizeof(*how), sizeof(*how), o.how, o.how_size) ||
	    sk_strncpy_in(path, o.path, PATH_MAX) < 0 || path[0] != '/' || how->resolve ||
	    (how->flags & (O_CREAT | O_TRUNC | O_EXCL | O_TMPFILE | O_PATH)))
		return -1;
	return 0;
}

static int open_ok(const struct spawn_template_action *x)
{
	struct open_how how;
	char path[PATH_MAX];

	return open_args(x, &how, path);
}

static int open_here(const struct spawn_template_action *x)
{
	struct open_how how;
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (open_args(x, &how, path))
		return -1;
	fd = open(path, (int)(how.flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), (mode_t)how.mode);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) ||
	    (!(how.flags & O_NONBLOCK) && fcntl(fd, F_SETFL, (int)how.flags & ~O_NONBLOCK))) {
		close(fd);
		return -1;
	}
	return fd;
}

void warm_fdplan_release(struct warm_fdplan *p)
{
	int i;

	for (i = 0; i < p->nopened; i++)
		close(p->opened[i]);
	p->nopened = 0;
}

static int add(struct warm_fdplan *p, const struct spawn_template_action *a, int src, int target)
{
	struct termios t;

	if (p->n >= WARM_MAX_FDS)
		return SPAWNKIT_WARM_FDS;
	if (src <= OPENED(0)) {
		src = open_here(&a[OPENED(0) - src]);
		if (src < 0)
			return SPAWNKIT_WARM_FDS;	/* the cold start reports it */
		p->opened[p->nopened++] = src;
	}
	if (!ioctl(src, TCGETS, &t))
		return SPAWNKIT_WARM_TTY;
	p->src[p->n] = src;
	p->target[p->n++] = target;
	return 0;
}

int warm_fdplan(const struct spawn_template_action *a, unsigned int nr,
		unsigned int flags, struct warm_fdplan *p)
{
	int inherit = !!(flags & SPAWNKIT_SPAWN_INHERIT_FDS);
	unsigned int i;
	int fd, ret;

	memset(p, 0, sizeof(*p));
	p->cwd_src = -1;
	if (flags & ~(unsigned int)SPAWNKIT_SPAWN_FLAGS)
		return SPAWNKIT_WARM_FDS;
	for (i = 0; i < nr; i++) {
		const struct spawn_template_action *x = &a[i];

		switch (x->type) {
		case SPAWN_TEMPLATE_ACTION_DUP2:
			if (x->flags || x->fd < 0 || x->newfd < 0 || holder(a, i, x->fd) == CLOSED)
				return SPAWNKIT_WARM_FDS;
			break;
		case SPAWN_TEMPLATE_ACTION_CLOSE:
		case SPAWN_TEMPLATE_ACTION_CLOSE_RANGE:
			if (x->fd < 0 || (x->type == SPAWN_TEMPLATE_ACTION_CLOSE_RANGE && x->flags))
				return SPAWNKIT_WARM_FDS;
			break;
		case SPAWN_TEMPLATE_ACTION_FCHDIR:
			p->cwd_src = holder(a, i, x->fd);
			if (p->cwd_src < 0)
				return SPAWNKIT_WARM_FDS;
			break;
		case SPAWN_TEMPLATE_ACTION_SIGMASK:
			if (sigset_of(x, &p->mask))
				return SPAWNKIT_WARM_FDS;
			p->has_mask = 1;
			break;
		case SPAWN_TEMPLATE_ACTION_SIGDEFAULT: {
			uint64_t s;

			if (sigset_of(x, &s))
				return SPAWNKIT_WARM_FDS;
			p->dflt |= s;
			break;
		}
		case SPAWN_TEMPLATE_ACTION_OPEN:
			if (open_ok(x))
				return SPAWNKIT_WARM_FDS;
			break;
		default:
			return SPAWNKIT_WARM_FDS;
		}
	}
	for (fd = 0; fd < 3; fd++) {
		int src = holder(a, nr, fd);

		if (src == CLOSED)
			return SPAWNKIT_WARM_FDS;	/* Python would make sys.stdX None */
		ret = add(p, a, src, fd);
		if (ret)
			return ret;
	}
	if (!inherit)
		return 0;
	if (!rest_closed(a, nr))
		return SPAWNKIT_WARM_FDS;
	for (i = 0; i < nr; i++) {
		const struct spawn_template_action *x = &a[i];
		int src, j, dup = 0;

		if (x->type != SPAWN_TEMPLATE_ACTION_DUP2 || x->newfd < 3)
			continue;
		for (j = 0; j < p->n; j++)
			dup |= p->target[j] == x->newfd;
		if (dup)
			continue;
		src = holder(a, nr, x->newfd);
		if (src == CLOSED)
			continue;
		ret = add(p, a, src, x->newfd);
		if (ret)
			return ret;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * spare.h - work a run does for the next one while its own child execs:
 * the next run's two output pipes made (spare pipes), and the last run's
 * spent fds closed (deferred release).  Both are process-wide sets of at
 * most 4 fds, each checked by identity before use, and never handed to a
 * forked child.  See spare.c.
 */
#ifndef SPAWNKIT_RUN_SPARE_H
#define SPAWNKIT_RUN_SPARE_H

#define SK_SPARE_MAX 4

/* A set of fds of ours with the (st_dev, st_ino) each had when kept. */
struct sk_fdset {
	int pid;			/* the process that kept them */
	int n;
	int fd[SK_SPARE_MAX];
	unsigned long long dev[SK_SPARE_MAX], ino[SK_SPARE_MAX];
};

/* Two spare output pipes (p1 for stdout, p2 for stderr, [0] the read
 * end), all four fds checked to be the pipes made: 1; else 0 and nothing
 * of the caller's touched (the caller makes its pipes itself). */
int sk_spare_take(int p1[2], int p2[2]);

/*
 * Called once the child has been started (the caller would wait for its
 * exit next): close the previous run's deferred fds, and when want_pipes
 * and none are spare, make the next run's output pipes.
 */
void sk_spare_after_spawn(int want_pipes);

/* Record fd in set (its identity: an fstat); 0, or -1 if it cannot be
 * (then the set is not kept: its fds are closed at once). */
int sk_fdset_add(struct sk_fdset *s, int fd);

/* Keep set's fds open until the next run's sk_spare_after_spawn() closes
 * them; closed now if a set is kept already (another thread's run). */
void sk_spare_defer(struct sk_fdset *s);

/* Close every fd kept in either slot (spawnkit_run_close_kept()). */
void sk_spare_close_all(void);

#endif

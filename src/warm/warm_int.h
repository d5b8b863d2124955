/* SPDX-License-Identifier: MIT */
/*
 * warm_int.h - the warm-template client's internal interfaces.
 *
 *   classify.c  which argv forms fit, and the flags a warm start must share
 *   key.c       the key: interpreter identity, argv[0], flags, start-up env
 *   fdplan.c    a call's actions replayed into "child fd <- caller fd" pairs
 *   procstate.c caller state a tool inherits that a warm interpreter fixes
 *   interp.c    one warm interpreter: start, hello, watch list, stop
 *   request.c   one request/reply over the socketpair (proto.h)
 *   pool.c      the per-process table, lifecycle, counters, public API
 */
#ifndef SPAWNKIT_WARM_INT_H
#define SPAWNKIT_WARM_INT_H

#include <stdint.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/warm.h>

#define WARM_MAX_FLAGS	32
#define WARM_MAX_FDS	64
#define WARM_NR_RLIMITS	16
#define WARM_NR_NS	7

enum warm_mode { WARM_SCRIPT = 0, WARM_CODE = 1, WARM_MODULE = 2 };

struct warm_call {
	enum warm_mode mode;
	const char *payload;		/* script path, code or module name */
	const char *preload;		/* "json,re" or "" (part of the key) */
	int rest;			/* argv index of sys.argv[1] */
	int nflags;			/* the interpreter's start-up flags */
	const char *flags[WARM_MAX_FLAGS];
	char split[WARM_MAX_FLAGS][8];	/* "-S" of "-Sc": flags may point here */
};

/* 0, or the reason the argv form runs cold. */
int warm_classify(char *const argv[], struct warm_call *c);
/* 0 if the path's base name is a CPython's (python, python3, python3.N). */
int warm_python_name(const char *path);
/* 0 if the file is an ELF CPython interpreter we know how to name. */
int warm_is_cpython(const char *realpath_buf);

struct warm_key {
	char *buf;			/* NUL-separated fields */
	size_t len;
	uint64_t hash;
};

/* 0, or SPAWNKIT_WARM_ENV / _NOT_PYTHON; fills key (free with warm_key_free). */
int warm_key_build(const char *path, char *const argv[], char *const envp[],
		   const struct warm_call *c, struct warm_key *k,
		   char **realpath_out);
void warm_key_free(struct warm_key *k);
/* The key's start-up environment as a NULL-terminated array (malloc'd). */
char **warm_key_env(const struct warm_key *k);

struct warm_fdplan {
	int n;				/* fds to pass */
	int src[WARM_MAX_FDS];		/* the caller's fd */
	int target[WARM_MAX_FDS];	/* its number in the tool */
	int cwd_src;			/* caller fd for the tool's cwd, -1: ours */
	int has_mask;
	uint64_t mask;			/* SIGMASK action (bit n-1: signal n) */
	uint64_t dflt;			/* SIGDEFAULT actions */
	int nopened;			/* files OPEN actions name, opened here */
	int opened[WARM_MAX_FDS];
};

/* 0, or SPAWNKIT_WARM_FDS / _TTY; warm_fdplan_release() in both cases. */
int warm_fdplan(const struct spawn_template_action *a, unsigned int nr,
		unsigned int flags, struct warm_fdplan *p);
void warm_fdplan_release(struct warm_fdplan *p);

struct warm_proc {
	uint64_t ids_hash;		/* uids, gids, groups, ambient caps */
	uint64_t ns[WARM_NR_NS];
	uint64_t caps[3];		/* effective, permitted, inheritable */
	int seccomp, seccomp_filters, nnp, personality;
	unsigned int umask;
	uint64_t sigign, sigblk;	/* ignored (process), blocked (thread) */
	pid_t sid, pgid;
	struct rlimit rl[WARM_NR_RLIMITS];
};

/* Snapshot the calling thread's state; 0 or -errno. */
int warm_proc_snapshot(struct warm_proc *p);
/* 1 if a tool forked from an interpreter started under `then` gets what a
 * cold child of `now` would (rlimits may only be lowered). */
int warm_proc_compatible(const struct warm_proc *then, const struct warm_proc *now);

struct warm_watch {
	char *path;
	int present;
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns, ctime_ns;
};

struct warm_interp {
	struct warm_key key;
	pid_t pid;
	int pidfd;
	int sock;
	uint64_t calls;
	uint64_t started_ns, last_ns;
	uint64_t idle_ns;		/* it exits after this long without a call */
	struct warm_proc proc;
	struct warm_watch *watch;
	int nwatch;
	int bad;			/* could not be warmed: reason kept */
	char version[32];
	pthread_mutex_t lock;		/* one request at a time */
};

/* Start one; 0 or a reason (SPAWNKIT_WARM_UNSUPPORTED / _FAILED). */
int warm_interp_start(struct warm_interp *w, const char *path, char *const argv[],
		      const struct warm_call *c, const struct warm_proc *proc);
/* 1 if every watched file is as it was. */
int warm_interp_fresh(const struct warm_interp *w);
/* 1 if the process is still there (not exited). */
int warm_interp_alive(const struct warm_interp *w);
/* Kill (it keeps no state) and reap; frees everything but the struct. */
void warm_interp_stop(struct warm_interp *w);

struct warm_request {
	const struct warm_call *call;
	char *const *argv;
	char *const *envp;
	const struct warm_fdplan *plan;
	const struct warm_proc *proc;
	const char *comm;
	uint64_t ignored;		/* ignored signals in the tool */
	uint64_t mask;			/* the tool's signal mask */
	unsigned int umask;
};

/* 0 (started: pid, pidfd), SPAWNKIT_WARM_FAILED (interp unusable),
 * SPAWNKIT_WARM_ENV (request too large). */
int warm_request(struct warm_interp *w, const struct warm_request *r,
		 pid_t *pid, int *pidfd);

uint64_t warm_now_ns(void);
double warm_env_seconds(const char *name, double dflt);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * run.h - a whole child run in C: one process policy for every binding.
 *
 * spawnkit_run() resolves the program like execvp (PATH search, EACCES for
 * a directory or non-executable match), starts it from a spawn template in
 * a new session (unless asked not to), feeds its standard input, pumps its
 * standard output and error into head+tail captures with byte counts of
 * what was dropped, applies a timeout, a no-output timeout and a Go-style
 * wait delay, reaps it through its pidfd, and kills what is left of its
 * tree: its process group and session, its cgroup, and a /proc walk for
 * processes that escaped both.
 *
 * Conventions as the rest of spawnkit: 0 or -errno, errno untouched.
 */
#ifndef SPAWNKIT_RUN_H
#define SPAWNKIT_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <spawnkit/spawnkit.h>

#ifdef __cplusplus
extern "C" {
#endif

/* spawnkit_run_opts.flags */
#define SPAWNKIT_RUN_NO_NEW_SESSION	(1U << 0) /* stay in the caller's session
						     and process group */
#define SPAWNKIT_RUN_SWEEP		(1U << 1) /* after a clean exit, look for
						     session members in other
						     groups even when the
						     child's group is empty
						     (a /proc scan per run) */
#define SPAWNKIT_RUN_WARM		(1U << 2) /* start a Python call from a
						     warm interpreter when it
						     fits (spawnkit_warm_spawn;
						     a new session never fits:
						     with NO_NEW_SESSION only),
						     else cold */
#define SPAWNKIT_RUN_PTY		(1U << 3) /* stdin, stdout and stderr on
						     a new pty, the child's
						     controlling terminal
						     (pty_rows x pty_cols);
						     output read from the
						     master as stdout */
#define SPAWNKIT_RUN_INHERIT_FDS	(1U << 4) /* fds above 2 stay open in the
						     child (SPAWNKIT_SPAWN_INHERIT_FDS);
						     with the actions of
						     spawnkit_actions_pass_fds()
						     in o.actions: pass fds */
#define SPAWNKIT_RUN_RESTORE_SIGNALS	(1U << 5) /* SIGPIPE and SIGXFSZ back to
						     SIG_DFL in the child: the
						     signals language runtimes
						     ignore (Python's
						     restore_signals), as a
						     SIGDEFAULT action of the
						     run's own, before the
						     caller's actions */
#define SPAWNKIT_RUN_FLAGS		(SPAWNKIT_RUN_NO_NEW_SESSION | SPAWNKIT_RUN_SWEEP | \
					 SPAWNKIT_RUN_WARM | SPAWNKIT_RUN_PTY | \
					 SPAWNKIT_RUN_INHERIT_FDS | SPAWNKIT_RUN_RESTORE_SIGNALS)

/* Where each of the child's standard fds goes (spawnkit_run_opts.std_mode) */
#define SPAWNKIT_RUN_PIPE	0	/* stdin: fed from input/input_len;
					   stdout/stderr: captured (default) */
#define SPAWNKIT_RUN_DEVNULL	1	/* /dev/null */
#define SPAWNKIT_RUN_INHERIT	2	/* the caller's own fd 0, 1 or 2 */
#define SPAWNKIT_RUN_FD		3	/* std_fd[i], an fd of the caller */
#define SPAWNKIT_RUN_STDOUT	4	/* stderr only: wherever stdout goes
					   (captured together, as stdout) */

/* spawnkit_run_opts.std_mode/std_fd indexes */
#define SPAWNKIT_RUN_STDIN_IDX	0
#define SPAWNKIT_RUN_STDOUT_IDX	1
#define SPAWNKIT_RUN_STDERR_IDX	2

/* No limit, for the *_ms fields and the capture caps. */
#define SPAWNKIT_RUN_NONE	(-1)
#define SPAWNKIT_RUN_UNLIMITED	SIZE_MAX

/* The default capture cap per stream: 1 MiB, half head and half tail. */
#define SPAWNKIT_RUN_DEFAULT_CAP	(1U << 20)

struct spawnkit_run_opts {
	uint32_t size;		/* sizeof(struct spawnkit_run_opts) */
	uint32_t flags;		/* SPAWNKIT_RUN_* */
	char *const *argv;	/* required; argv[0] is the name the child sees */
	const char *file;	/* the program; NULL: argv[0].  With a '/':
				   a path (relative to cwd_fd's directory, or
				   the caller's cwd); else searched on PATH */
	char *const *envp;	/* NULL: the caller's environment */
	const char *path;	/* PATH for the search; NULL: the PATH of envp
				   if envp has one, else the caller's */
	struct spawnkit_template *tmpl;	/* non-NULL: spawn from it, no search */
	int cwd_fd;		/* the child's working directory, or -1 */
	int cgroup_fd;		/* a cgroup2 directory to start in, or -1;
				   then killed with cgroup.kill too */
	int std_mode[3];	/* SPAWNKIT_RUN_PIPE, _DEVNULL, ... per fd */
	int std_fd[3];		/* for SPAWNKIT_RUN_FD */
	const void *input;	/* stdin PIPE: these bytes, then end of file */
	size_t input_len;
	size_t head[3];		/* [1] stdout, [2] stderr: bytes kept from the */
	size_t tail[3];		/* start and from the end ([0] unused, 0) */
	int64_t timeout_ms;		/* whole run, or SPAWNKIT_RUN_NONE */
	int64_t no_output_timeout_ms;	/* since the last output byte, or NONE */
	int64_t wait_delay_ms;		/* after the child exits, how long the
					   pipes may stay open; NONE: until
					   the timeout */
	const struct spawn_template_action *actions;	/* extra actions (rlimits,
							   umask...), run last */
	unsigned int nr_actions;
	/* Called with each chunk read from stdout (fd 1) or stderr (fd 2),
	 * before it is captured; a non-zero return stops the run (the tree
	 * is killed, SPAWNKIT_RUN_STOPPED).  NULL: none. */
	int (*on_output)(void *ctx, int fd, const void *data, size_t len);
	void *ctx;
	/* Fields below were added after the first release: a caller built
	 * then passes SPAWNKIT_RUN_OPTS_SIZE_V1 and gets their defaults. */
	/* An fd the run polls; once it is readable (an eventfd written, a
	 * pipe's other end written or closed) the run stops as on_output's
	 * non-zero return does (SPAWNKIT_RUN_STOPPED).  Never read or closed
	 * by the run.  -1: none.  For a run that may produce no output, from
	 * another thread. */
	int stop_fd;
	/* With SPAWNKIT_RUN_WARM: modules the warm interpreter imports once
	 * ("json,re"), as spawnkit_warm_spawn's preload; NULL: none. */
	const char *warm_preload;
	unsigned short pty_rows;	/* SPAWNKIT_RUN_PTY's window: 0 is 24 */
	unsigned short pty_cols;	/* 0 is 80 */
	/* Called on the calling thread when a signal interrupted the wait
	 * (after taking the child's exit status if it had exited, so a
	 * handler that reaps cannot take it first); a non-zero return stops
	 * the run as on_output's does.  For a binding whose signal handlers
	 * run only when it is called (Python).  NULL: none. */
	int (*on_signal)(void *ctx);
};

/* spawnkit_run_opts.size of the first release (up to ctx), still taken:
 * the newer fields get their defaults then (stop_fd -1). */
#define SPAWNKIT_RUN_OPTS_SIZE_V1	offsetof(struct spawnkit_run_opts, stop_fd)
/* The PTY's window when pty_rows/pty_cols are 0 */
#define SPAWNKIT_RUN_PTY_ROWS	24
#define SPAWNKIT_RUN_PTY_COLS	80

/* What happened, spawnkit_run_result.why (bits) */
#define SPAWNKIT_RUN_TIMED_OUT		(1U << 0) /* timeout_ms passed */
#define SPAWNKIT_RUN_NO_OUTPUT		(1U << 1) /* no_output_timeout_ms passed */
#define SPAWNKIT_RUN_WAIT_DELAY		(1U << 2) /* pipes still open wait_delay
						     after the child exited */
#define SPAWNKIT_RUN_STOPPED		(1U << 3) /* on_output or on_signal asked
						     to stop, or stop_fd became
						     readable */
#define SPAWNKIT_RUN_INPUT_CLOSED	(1U << 4) /* the child closed stdin before
						     reading all input */

struct spawnkit_run_output {
	char *head;		/* the first bytes (malloc'd; NULL if none) */
	size_t head_len;
	char *tail;		/* the last bytes, after the dropped ones */
	size_t tail_len;
	uint64_t dropped;	/* bytes between head and tail not kept */
	uint64_t total;		/* every byte read */
};

struct spawnkit_run_result {
	pid_t pid;		/* the child's pid */
	int status;		/* wait status (WIFEXITED(), WTERMSIG()...);
				   -1 if another waiter reaped the child and
				   the kernel kept no status on the pidfd
				   (before Linux 6.15) */
	uint32_t why;		/* SPAWNKIT_RUN_TIMED_OUT ... */
	uint32_t killed;	/* processes the final tree kill signalled */
	uint64_t elapsed_ns;	/* start to the end of the run */
	struct spawnkit_run_output out[3];	/* [1] stdout, [2] stderr */
};

/* Defaults: size set, no flags, fds -1 (stop_fd too), every std_mode PIPE (stdin: the
 * input bytes, none by default, then end of file), stdout and stderr
 * captured with 512 KiB head and 512 KiB tail each, no timeouts, wait
 * delay NONE. */
void spawnkit_run_opts_init(struct spawnkit_run_opts *o);

/*
 * Run a child to its end.  Returns 0 with *r filled (free it with
 * spawnkit_run_result_free) once the child ran, whatever its status, or
 * -errno if it could not start (nothing to free): EINVAL (a bad option),
 * E2BIG (too many actions), ENOENT/EACCES (the search or the exec), the
 * errors of spawnkit_spawn(3) and of its actions, ENOMEM.
 */
int spawnkit_run(const struct spawnkit_run_opts *o, struct spawnkit_run_result *r);

/* Free the captures (r may be reused after). */
void spawnkit_run_result_free(struct spawnkit_run_result *r);

/* spawnkit_run_output_join() flags */
#define SPAWNKIT_JOIN_MARKER	(1U << 0) /* "[... N bytes omitted ...]"
					     between head and tail when
					     bytes were dropped */
#define SPAWNKIT_JOIN_LINES	(1U << 1) /* with MARKER, text: the cut moved
					     to line boundaries (else to
					     UTF-8 character boundaries),
					     the marker a line of its own */
#define SPAWNKIT_JOIN_FLAGS	(SPAWNKIT_JOIN_MARKER | SPAWNKIT_JOIN_LINES)

/* The most bytes a join adds to head_len + tail_len: the marker with a
 * 20-digit count, a newline before it and one after it. */
#define SPAWNKIT_RUN_MARKER_MAX	48

/*
 * Join a capture's head and tail into buf, as one text a reader cannot
 * mistake for the whole output.  Returns the joined length; when buf is
 * NULL or cap is smaller than that, writes nothing and returns the length
 * needed (at most head_len + tail_len + SPAWNKIT_RUN_MARKER_MAX).  When
 * cap is larger, a NUL follows.  -EINVAL: out NULL, unknown flags, LINES
 * without MARKER; -EOVERFLOW: a length past SSIZE_MAX.
 */
ssize_t spawnkit_run_output_join(const struct spawnkit_run_output *out,
				 unsigned int flags, char *buf, size_t cap);

/* spawnkit_kill_tree() flags */
#define SPAWNKIT_KILL_GROUP	(1U << 0) /* leader leads its own process
					     group and session: signal them */
#define SPAWNKIT_KILL_REAPED	(1U << 1) /* leader was reaped: its pid may
					     be another process's now; only
					     its group and session (whose
					     members keep the number) */

/*
 * Signal a process tree with sig: the leader; with SPAWNKIT_KILL_GROUP its
 * process group and every process of the session it leads, in any group;
 * the cgroup open at cgroup_fd (>= 0) through cgroup.kill (SIGKILL only,
 * Linux 5.14+; else each process it lists); and, by a /proc walk, every
 * descendant (by parent pid) of a process taken, repeated while it finds
 * new ones.  For SIGKILL the group and leader are stopped first, so no
 * parent dies (handing its children to init) before the walk saw them.
 * Never signals the caller.  Returns a count > 0 if anything was signalled
 * (one per process the walk signalled, at least one for the group or
 * cgroup), 0 if nothing was, or -errno: EINVAL (leader <= 1 or the caller,
 * a bad sig or flag, cgroup_fd < -1), EBADF (cgroup_fd not open).
 */
int spawnkit_kill_tree(pid_t leader, int cgroup_fd, int sig, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* SPAWNKIT_RUN_H */

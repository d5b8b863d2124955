/* SPDX-License-Identifier: MIT */
/*
 * spawnkit.h - spawn templates on any Linux kernel.
 *
 * A template is a handle to one executable, made once; each spawn from it is
 * one call that starts a vfork-style child, applies per-spawn actions, closes
 * every fd above 2 (unless asked not to), checks that the executable was not
 * replaced (-ESTALE) and that the caller's credentials did not change
 * (-EACCES), execs it, and returns pid and pidfd together.
 *
 * Two backends give the same observable behaviour:
 *   kernel  the spawn_template_create/spawn system calls of spawnkit's kernel
 *           series; used only where the running kernel has them
 *           (found by probing, ENOSYS otherwise);
 *   user    the same semantics built from clone3/execveat in user space.
 * SPAWNKIT_BACKEND=user|kernel in the environment forces one (read at each
 * template creation); forcing "kernel" where there is none gives -ENOSYS.
 * Where pidfd_open is missing or refused (before 5.3, or a seccomp policy)
 * there is no backend (-ENOSYS), and SPAWNKIT_BACKEND=fallback says so on
 * purpose: the Python and Node bindings then use a portable fallback.
 *
 * Conventions (as liburing): functions return a value >= 0 on success or
 * -errno on failure and never read or write errno.  All functions are
 * thread-safe; one template may be used by many threads at once.
 */
#ifndef SPAWNKIT_H
#define SPAWNKIT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>
#include <spawnkit/spawn_template.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPAWNKIT_VERSION_MAJOR 0
#define SPAWNKIT_VERSION_MINOR 1

/* Backends */
#define SPAWNKIT_BACKEND_USER	1
#define SPAWNKIT_BACKEND_KERNEL	2

/*
 * spawnkit_spawn() flags.  By default a child that cannot start (an action
 * or exec failed) is reaped by the library and its errno returned, so "not
 * found" is never confused with "exited 127".
 */
#define SPAWNKIT_SPAWN_INHERIT_FDS	(1U << 0) /* keep fds above 2 open */
#define SPAWNKIT_SPAWN_EXIT_STATUS	(1U << 1) /* proposal behaviour: a child
						     that cannot start exits
						     127/126/1 instead */
#define SPAWNKIT_SPAWN_SETSID	(1U << 2) /* the child calls setsid() before
						     the actions: a new session
						     and process group (the
						     kernel backend: a first
						     SETSID action) */
#define SPAWNKIT_SPAWN_FLAGS (SPAWNKIT_SPAWN_INHERIT_FDS | SPAWNKIT_SPAWN_EXIT_STATUS | \
			      SPAWNKIT_SPAWN_SETSID)

struct spawnkit_template;

/* Which backend a template made now would use, or -ENOSYS if forced kernel
 * is absent, if no pidfds are available (pidfd_open fails with ENOSYS or
 * EPERM) and the kernel backend is not there, or if SPAWNKIT_BACKEND is
 * "fallback"; -EINVAL if SPAWNKIT_BACKEND holds an unknown name. */
int spawnkit_backend(void);
/* "user", "kernel", or "unknown". */
const char *spawnkit_backend_name(int backend);
/* 1 if the running kernel has the spawn-template calls, else 0. */
int spawnkit_kernel_has_spawn_template(void);

/*
 * Make a template.  flags: 0 (SPAWN_TEMPLATE_CREATE_FLAGS; EINVAL otherwise).
 * The template's own fd (the kernel template fd, or the user backend's
 * pinned exec fd) is always close-on-exec: no exec'd program could use it.
 *   _create:      from an absolute path (EINVAL if relative)
 *   _create_fd:   from an open fd of the executable (the fd is not taken over)
 *   _create_args: the raw ABI: struct and its size, as the kernel call takes it
 * Errors: EINVAL, E2BIG, EBADF, EACCES (not a regular file, noexec mount, not
 * executable, not mappable), ENOENT and the other errors of open(2), ENOMEM.
 */
int spawnkit_template_create(const char *path, uint64_t flags,
			     struct spawnkit_template **tp);
int spawnkit_template_create_fd(int execfd, uint64_t flags,
				struct spawnkit_template **tp);
int spawnkit_template_create_args(const struct spawn_template_create_args *args,
				  size_t size, struct spawnkit_template **tp);

/* Release a template (NULL is a no-op). */
void spawnkit_template_destroy(struct spawnkit_template *t);

int spawnkit_template_backend(const struct spawnkit_template *t);
/* Absolute path the template was made from, or NULL if made from an fd. */
const char *spawnkit_template_path(const struct spawnkit_template *t);
/* The kernel template fd (kernel backend) or the pinned exec fd (user). */
int spawnkit_template_fd(const struct spawnkit_template *t);

/*
 * Start a child from a template.  argv/envp as for execve(2) (envp NULL: an
 * empty environment).  actions[0..nr_actions) run in order in the child.
 * On success returns the child's pid and, if pidfd != NULL, stores its pidfd
 * there (O_CLOEXEC; the caller closes it).  With pidfd == NULL the library
 * closes the pidfd and the caller reaps the child by pid.
 * Errors: ESTALE (executable replaced or rewritten: make a new template),
 * EACCES (credentials changed since create), EINVAL, E2BIG, EFAULT, and,
 * unless SPAWNKIT_SPAWN_EXIT_STATUS, the errno of a failed action or exec
 * (ENOENT, EACCES, ENOEXEC, EBADF, ENOTDIR, ...), the child already reaped.
 */
pid_t spawnkit_spawn(struct spawnkit_template *t, char *const argv[],
		     char *const envp[],
		     const struct spawn_template_action *actions,
		     unsigned int nr_actions, unsigned int flags, int *pidfd);

/*
 * A start that does not wait for the exec (spawnkit_spawn_start(3)).
 * spawnkit_spawn() returns once the child has exec'd or failed, and the
 * caller's thread waits for that; spawnkit_spawn_start() returns as soon as
 * the child exists, with its pid, its pidfd and a start whose fd
 * (spawnkit_start_fd) becomes readable when the exec is decided.  Then
 * spawnkit_start_wait() says 0 (exec'd, or killed before it could: the
 * exit status tells) or the -errno of the failed action or exec (the child
 * then exits 127/126/1: reap it through its pidfd as any other).  flags:
 * SPAWNKIT_SPAWN_INHERIT_FDS, SPAWNKIT_SPAWN_SETSID.  Some starts are made
 * the ordinary way and come back decided (spawnkit_start_fd() is -1): the
 * kernel backend, a file that is neither a #! script nor a native ELF
 * file, argument lists near the kernel's limit.  Errors of the start
 * itself are returned at once, nothing started: those of spawnkit_spawn()
 * and, for a start made the ordinary way, its child's errno.
 * spawnkit_start_free() waits for the decision if it has not come.
 */
struct spawnkit_start;
pid_t spawnkit_spawn_start(struct spawnkit_template *t, char *const argv[],
			   char *const envp[],
			   const struct spawn_template_action *actions,
			   unsigned int nr_actions, unsigned int flags, int *pidfd,
			   struct spawnkit_start **startp);
/* The fd to poll (readable once decided), -1 if decided. */
int spawnkit_start_fd(const struct spawnkit_start *s);
/* options: 0 (block until decided) or WNOHANG (-EAGAIN while undecided). */
int spawnkit_start_wait(struct spawnkit_start *s, int options);
void spawnkit_start_free(struct spawnkit_start *s);

/*
 * The policy of a cache of templates keyed by path (the Python and Node
 * bindings keep one each, and both follow it):
 *  - at most spawnkit_template_cache_max() templates: an eighth of the
 *    RLIMIT_NOFILE soft limit at the time of the call, at least 4 and at
 *    most 256 (each template holds one fd); the least recently used one is
 *    closed to make room;
 *  - a template unused for SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC seconds is
 *    closed (checked whenever the cache is used);
 *  - a spawn from a cached template that fails with ESTALE (the file was
 *    replaced) or EACCES (the credentials changed since it was made) makes
 *    a new template from the same path and spawns again, at most
 *    SPAWNKIT_STALE_RETRIES times in one call, then reports the
 *    error.
 */
#define SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC	300
#define SPAWNKIT_STALE_RETRIES			3
int spawnkit_template_cache_max(void);

/*
 * Reap the child behind pidfd (as spawnkit_spawn() returned it):
 * waitid(P_PIDFD, WEXITED, plus WNOHANG when options has it).  Returns 1 with
 * a wait status in *wstatus (WIFEXITED(), WEXITSTATUS(), WTERMSIG() apply),
 * 0 under WNOHANG while the child runs, or -errno: EINTR, EBADF, EINVAL
 * (options other than WNOHANG, wstatus NULL), ECHILD.
 * A child another waiter reaped first (a SIGCHLD handler's waitpid(-1),
 * SIGCHLD ignored) still gives its real status where the kernel keeps it on
 * the pidfd (PIDFD_INFO_EXIT, Linux 6.15); elsewhere that status is lost
 * and the answer is -ECHILD, never a made-up status.
 */
int spawnkit_pidfd_wait(int pidfd, int options, int *wstatus);

/*
 * The calling thread's EEVDF slice (sched_setattr(2)'s sched_runtime, Linux
 * 6.12 and later): slice_ns from SPAWNKIT_THREAD_SLICE_MIN to _MAX, or 0 for
 * the kernel's default back.  The thread keeps its policy (SCHED_OTHER or
 * SCHED_BATCH) and nice value, and gets SCHED_FLAG_RESET_ON_FORK:
 * no thread or process it creates from then on inherits the slice (nor a
 * negative nice value or a real-time policy, as for every reset-on-fork
 * task), and without CAP_SYS_NICE the flag stays set for good.  A longer
 * slice lets the thread's bursts of work end before a tick reschedules it
 * for an equal-weight task (spawnkit_thread_set_slice(3)).
 * Returns 0 or -errno: EINVAL (slice_ns out of range; a SCHED_IDLE,
 * real-time or deadline thread), EOPNOTSUPP (a kernel without custom slices: nothing
 * changed), EPERM (a seccomp filter or LSM refusing sched_setattr).
 */
#define SPAWNKIT_THREAD_SLICE_MIN	100000ULL	/* 0.1 ms */
#define SPAWNKIT_THREAD_SLICE_MAX	100000000ULL	/* 100 ms */
int spawnkit_thread_set_slice(uint64_t slice_ns);
/* 1 if the running kernel has custom slices (6.12 and later: the calling
 * thread's sched_getattr reports its slice; asked of a SCHED_OTHER, BATCH
 * or IDLE thread, as a real-time one has none), else 0; what the
 * SCHED_SLICE action and spawnkit_thread_set_slice() need. */
int spawnkit_kernel_has_custom_slices(void);

/* The raw ABI form of spawn: flags are SPAWN_TEMPLATE_SPAWN_* (kernel
 * flags, so without REPORT_ERRNO the proposal's exit-status behaviour). */
pid_t spawnkit_spawn_args(struct spawnkit_template *t,
			  struct spawn_template_spawn_args *args, size_t size);

/* Raw system calls: -ENOSYS unless the kernel has them. */
int spawnkit_sys_spawn_template_create(struct spawn_template_create_args *args,
				       size_t size);
pid_t spawnkit_sys_spawn_template_spawn(int template_fd,
					struct spawn_template_spawn_args *args,
					size_t size);

/*
 * Passing fds to the child.  Without SPAWNKIT_SPAWN_INHERIT_FDS every fd
 * above 2 is closed AFTER the actions ran, including the fds that DUP2 or
 * OPEN placed above 2.  To hand the child fds[0..nfds) at the same numbers
 * (and nothing else above 2), append the actions this writes and spawn with
 * SPAWNKIT_SPAWN_INHERIT_FDS: each fd is re-dup'ed to clear its O_CLOEXEC,
 * and CLOSE_RANGE actions close every other fd above 2.  fds <= 2 are
 * ignored; duplicates are fine.  Writes at most 3 * nfds + 1 actions.
 * Returns the number written, -ENOSPC if room is too small, -EINVAL for a
 * negative fd or too many fds.
 */
int spawnkit_actions_pass_fds(struct spawn_template_action *out, unsigned int room,
			      const int *fds, unsigned int nfds);

/* ---- action helpers (fill one action; the caller owns the storage) ---- */

static inline void spawnkit_action_close(struct spawn_template_action *a, int fd)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_CLOSE;
	a->fd = fd;
}

/* flags: 0 or O_CLOEXEC (for the new fd) */
static inline void spawnkit_action_dup2(struct spawn_template_action *a,
					int fd, int newfd, unsigned int flags)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_DUP2;
	a->flags = flags;
	a->fd = fd;
	a->newfd = newfd;
}

static inline void spawnkit_action_fchdir(struct spawn_template_action *a, int dirfd)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_FCHDIR;
	a->fd = dirfd;
}

/*
 * OPEN's argument together with the struct open_how it points at (the ABI
 * passes open_how by pointer and size, as openat2(2) takes it): what
 * spawnkit_action_open() fills.  arg is what the action points at.
 */
struct spawnkit_open {
	struct spawn_template_open arg;
	struct open_how how;
};

/* o must stay valid until spawn returns; path relative to dirfd. */
static inline void spawnkit_action_open(struct spawn_template_action *a,
					struct spawnkit_open *o,
					int dirfd, const char *path,
					uint64_t oflags, uint64_t mode, int newfd)
{
	memset(a, 0, sizeof(*a));
	memset(o, 0, sizeof(*o));
	o->how.flags = oflags;
	o->how.mode = mode;
	o->arg.path = (uint64_t)(uintptr_t)path;
	o->arg.how = (uint64_t)(uintptr_t)&o->how;
	o->arg.how_size = sizeof(o->how);
	a->type = SPAWN_TEMPLATE_ACTION_OPEN;
	a->fd = dirfd;
	a->newfd = newfd;
	a->arg = (uint64_t)(uintptr_t)&o->arg;
}

/* last == SPAWN_TEMPLATE_FD_MAX: up to the highest fd */
static inline void spawnkit_action_close_range(struct spawn_template_action *a,
					       int first, int last, unsigned int flags)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_CLOSE_RANGE;
	a->flags = flags;
	a->fd = first;
	a->newfd = last;
}

/* s must stay valid until spawn returns; set points at a kernel-layout
 * sigset (the first 8 bytes of a glibc sigset_t are that, on x86_64). */
static inline void spawnkit_action_sigset(struct spawn_template_action *a,
					  unsigned int type,
					  struct spawn_template_sigset *s,
					  const sigset_t *set)
{
	memset(a, 0, sizeof(*a));
	s->sigset = (uint64_t)(uintptr_t)set;
	s->sigsetsize = 8;	/* _NSIG / 8 on Linux */
	a->type = type;		/* SPAWN_TEMPLATE_ACTION_SIGMASK or _SIGDEFAULT */
	a->arg = (uint64_t)(uintptr_t)s;
}

/*
 * ---- spawnkit's extension actions (spawn_template.h) ----
 * Process attributes set in the child, in action order.  The kernel series
 * runs them in the kernel; on a patched kernel from before them (probed once
 * per process) a kernel-backend template hands a spawn that uses any of them
 * to the user backend (a template made from an fd cannot, and gives
 * -EOPNOTSUPP).  Errors at spawn time, besides EINVAL for bad fields:
 * SETSID: EPERM (already a group leader); SETPGID: EPERM, ESRCH;
 * SETRLIMIT: EPERM (raising a hard limit without CAP_SYS_RESOURCE);
 * CGROUP: EBADF (fd not open), EINVAL (not a cgroup2 directory, or two
 * CGROUP actions), EACCES (cgroup.procs not writable), EOPNOTSUPP (a kernel
 * before 5.7, or clone3 refused), EBUSY (a cgroup whose controllers are
 * enabled for its children cannot hold processes); SETCTTY: ENOTTY (fd is
 * no terminal), EPERM (the child leads no session, or the terminal is
 * another session's), EBADF; NICE: EACCES (lowering the nice value without
 * CAP_SYS_NICE or RLIMIT_NICE); SCHED_POLICY: EPERM (leaving SCHED_IDLE
 * without CAP_SYS_NICE or RLIMIT_NICE); SCHED_SLICE: EINVAL (the child is
 * SCHED_IDLE by then), EOPNOTSUPP (no custom slices: before Linux 6.12).
 */
static inline void spawnkit_action_setsid(struct spawn_template_action *a)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_SETSID;
}

/* pgid 0: a new group whose id is the child's pid */
static inline void spawnkit_action_setpgid(struct spawn_template_action *a, pid_t pgid)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_SETPGID;
	a->fd = pgid;
}

/* mask: 0 to 0777 */
static inline void spawnkit_action_umask(struct spawn_template_action *a, unsigned int mask)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_UMASK;
	a->fd = (int)mask;
}

/* resource: RLIMIT_*; rl must stay valid until spawn returns */
static inline void spawnkit_action_setrlimit(struct spawn_template_action *a, int resource,
					     const struct spawn_template_rlimit *rl)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_SETRLIMIT;
	a->fd = resource;
	a->arg = (uint64_t)(uintptr_t)rl;
}

/* cgroup_fd: an open cgroup2 directory; the child starts inside it */
static inline void spawnkit_action_cgroup(struct spawn_template_action *a, int cgroup_fd)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_CGROUP;
	a->fd = cgroup_fd;
}

/* tty_fd: a terminal open in the child (after the dup2s: 0 for a pty made
 * its stdin); the child must lead a session (a SETSID action before) */
static inline void spawnkit_action_setctty(struct spawn_template_action *a, int tty_fd)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_SETCTTY;
	a->fd = tty_fd;
}

/* inc: -39..39, added to the child's nice value as nice(1) -n does (the
 * result clamped to -20..19); user backend only (handed off like SETCTTY) */
static inline void spawnkit_action_nice(struct spawn_template_action *a, int inc)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_NICE;
	a->fd = inc;
}

/* policy: SCHED_OTHER, SCHED_BATCH or SCHED_IDLE (<sched.h>), the child's
 * from then on, its nice value and slice kept; user backend only (handed
 * off like NICE) */
static inline void spawnkit_action_sched_policy(struct spawn_template_action *a, int policy)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_SCHED_POLICY;
	a->fd = policy;
}

/* slice_ns: 0 (the default) or SPAWNKIT_THREAD_SLICE_MIN.._MAX, the
 * child's slice, set under its policy then: before a SCHED_POLICY to
 * SCHED_IDLE, which keeps it; user backend only (handed off like NICE) */
static inline void spawnkit_action_sched_slice(struct spawn_template_action *a,
					       uint32_t slice_ns)
{
	memset(a, 0, sizeof(*a));
	a->type = SPAWN_TEMPLATE_ACTION_SCHED_SLICE;
	a->fd = (int32_t)slice_ns;
}

#ifdef __cplusplus
}
#endif

#endif /* SPAWNKIT_H */

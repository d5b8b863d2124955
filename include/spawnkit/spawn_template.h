/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * spawn_template.h - the spawn-template kernel ABI, mirrored for user space.
 *
 * This file is byte-for-byte the ABI of the spawn_template_create(2) and
 * spawn_template_spawn(2) system calls (May 2026 proposal), plus the flag
 * SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO that our kernel series adds.  The kernel
 * series in kernel/patches/ installs the same definitions as
 * <linux/spawn_template.h>; keep the two identical.  The library finds the
 * calls by probing (src/common/kernel_adv.c).
 *
 * Every struct is size-versioned in the clone3()/openat2() way: the caller
 * passes sizeof(struct); a smaller size than VER0 is EINVAL, a larger one is
 * accepted only if the extra bytes are zero (E2BIG otherwise).
 */
#ifndef SPAWNKIT_SPAWN_TEMPLATE_H
#define SPAWNKIT_SPAWN_TEMPLATE_H

#include <linux/types.h>
#include <linux/openat2.h>	/* struct open_how */

/*
 * spawn_template_create() flags: none yet (EINVAL).  The template fd is
 * always close-on-exec, as a pidfd is: the exec'd program runs with new
 * credentials, which no template of the old program serves (EACCES).
 */
#define SPAWN_TEMPLATE_CREATE_FLAGS		0ULL

/* spawn_template_spawn() flags */
#define SPAWN_TEMPLATE_SPAWN_INHERIT_FDS	(1ULL << 0)
/*
 * If the child cannot start (an action or exec fails), the kernel takes it
 * back and spawn_template_spawn() returns -errno instead of a pid whose exit
 * status is 127/126/1.
 */
#define SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO	(1ULL << 1)
#define SPAWN_TEMPLATE_SPAWN_FLAGS \
	(SPAWN_TEMPLATE_SPAWN_INHERIT_FDS | SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO)

/* Action types (struct spawn_template_action.type) */
#define SPAWN_TEMPLATE_ACTION_CLOSE		0
#define SPAWN_TEMPLATE_ACTION_DUP2		1
#define SPAWN_TEMPLATE_ACTION_FCHDIR		2
#define SPAWN_TEMPLATE_ACTION_OPEN		3
#define SPAWN_TEMPLATE_ACTION_CLOSE_RANGE	4
#define SPAWN_TEMPLATE_ACTION_SIGMASK		5
#define SPAWN_TEMPLATE_ACTION_SIGDEFAULT	6

/*
 * spawnkit extensions of the action list (numbers appended after the
 * proposal's).  The user backend implements them all; the kernel series
 * SETSID..CGROUP since its process-attribute patch, not SETCTTY, NICE,
 * SCHED_POLICY or SCHED_SLICE.  The kernel backend hands a spawn the kernel
 * cannot run (those four, or any of them on an older patched kernel) to the
 * user backend (see spawnkit.h).
 *   SETSID     setsid(); every other field 0
 *   SETPGID    setpgid(0, fd): fd is the group (0: a new group led by the
 *              child); every other field 0
 *   UMASK      umask(fd): fd in 0..0777; every other field 0
 *   SETRLIMIT  setrlimit(fd, *arg): fd is RLIMIT_*, arg points at a
 *              struct spawn_template_rlimit with cur <= max
 *   CGROUP     start the child in the cgroup2 directory open as fd
 *              (clone3's CLONE_INTO_CGROUP): at most one per spawn, and it
 *              takes effect before any action runs, wherever it stands
 *   SETCTTY    ioctl(fd, TIOCSCTTY, 0): the terminal open as fd becomes the
 *              controlling terminal of the child's session (the child must
 *              lead one: SETSID before it); every other field 0
 *   NICE       the child's nice value goes up by fd (-39..39), as nice(1)
 *              -n does: clamped to -20..19, and lowering it needs
 *              CAP_SYS_NICE or RLIMIT_NICE; every other field 0.  User
 *              backend only (a kernel-backend spawn with it is handed off)
 *   SCHED_POLICY  the child's scheduling policy becomes fd: SCHED_OTHER,
 *              SCHED_BATCH or SCHED_IDLE (the policies that need no
 *              privilege; any other EINVAL before anything starts), its
 *              nice value and EEVDF slice kept; leaving SCHED_IDLE for
 *              another needs CAP_SYS_NICE or RLIMIT_NICE (EPERM); every
 *              other field 0.  User backend only, as NICE
 *   SCHED_SLICE  the child's EEVDF slice becomes fd ns (100000..100000000,
 *              0: the default), under the policy it has then (SCHED_OTHER
 *              or SCHED_BATCH: EINVAL from the child if SCHED_IDLE, whose
 *              slice the kernel leaves alone, so it goes before a
 *              SCHED_POLICY to SCHED_IDLE, which keeps it); EOPNOTSUPP from
 *              the child on a kernel without custom slices (before 6.12);
 *              every other field 0.  User backend only, as NICE
 */
#define SPAWN_TEMPLATE_ACTION_SETSID		7
#define SPAWN_TEMPLATE_ACTION_SETPGID		8
#define SPAWN_TEMPLATE_ACTION_UMASK		9
#define SPAWN_TEMPLATE_ACTION_SETRLIMIT		10
#define SPAWN_TEMPLATE_ACTION_CGROUP		11
#define SPAWN_TEMPLATE_ACTION_SETCTTY		12
#define SPAWN_TEMPLATE_ACTION_NICE		13
#define SPAWN_TEMPLATE_ACTION_SCHED_POLICY	14
#define SPAWN_TEMPLATE_ACTION_SCHED_SLICE	15
/* The first extension number: types from here on are spawnkit's own. */
#define SPAWN_TEMPLATE_ACTION_EXT_FIRST		SPAWN_TEMPLATE_ACTION_SETSID

/* At most this many actions per spawn (E2BIG above). */
#define SPAWN_TEMPLATE_ACTIONS_MAX		256

/*
 * CLOSE_RANGE with newfd == SPAWN_TEMPLATE_FD_MAX closes up to the highest
 * open fd (the close_range(fd, ~0U) of the action world).
 */
#define SPAWN_TEMPLATE_FD_MAX			0x7fffffff

struct spawn_template_action {
	__u32 type;		/* SPAWN_TEMPLATE_ACTION_* */
	__u32 flags;		/* DUP2: O_CLOEXEC; CLOSE_RANGE: CLOSE_RANGE_* */
	__s32 fd;		/* source fd, dirfd (OPEN), first fd (CLOSE_RANGE) */
	__s32 newfd;		/* target fd (DUP2, OPEN), last fd (CLOSE_RANGE) */
	/*
	 * OPEN: struct spawn_template_open *; SIGMASK, SIGDEFAULT:
	 * struct spawn_template_sigset *; SETRLIMIT: struct
	 * spawn_template_rlimit *
	 */
	__aligned_u64 arg;
};

/*
 * OPEN's argument.  how points at a struct open_how of how_size bytes, read
 * as openat2(2) reads it (how_size below OPEN_HOW_SIZE_VER0 is EINVAL, above
 * the page size E2BIG, unknown bytes past the kernel's struct must be 0).
 */
struct spawn_template_open {
	__aligned_u64 path;	/* const char * */
	__aligned_u64 how;	/* const struct open_how * */
	__aligned_u64 how_size;	/* sizeof(struct open_how) */
};

/*
 * SIGMASK's and SIGDEFAULT's argument.  sigset points at a signal set in the
 * caller's ABI layout, as rt_sigprocmask(2) takes it; sigsetsize is
 * rt_sigprocmask()'s (8 on x86).
 */
struct spawn_template_sigset {
	__aligned_u64 sigset;	/* const sigset_t *, _NSIG bits */
	__aligned_u64 sigsetsize; /* _NSIG / 8 */
};

/* SETRLIMIT's argument: the kernel's struct rlimit64. */
struct spawn_template_rlimit {
	__aligned_u64 rlim_cur;
	__aligned_u64 rlim_max;
};

/*
 * Exactly one of filename and execfd names the file: a filename and
 * execfd == -1, or filename == 0 and an open fd (0..INT_MAX).
 */
struct spawn_template_create_args {
	__aligned_u64 flags;	/* SPAWN_TEMPLATE_CREATE_*: 0 */
	__aligned_u64 filename;	/* absolute path (const char *), or 0 */
	__s64 execfd;		/* an open executable, or -1 */
};

#define SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0	24

struct spawn_template_spawn_args {
	__aligned_u64 flags;	/* SPAWN_TEMPLATE_SPAWN_* */
	__aligned_u64 pidfd;	/* int *: receives the child's pidfd */
	__aligned_u64 argv;	/* char *const * */
	__aligned_u64 envp;	/* char *const * */
	__aligned_u64 actions;	/* const struct spawn_template_action * */
	__aligned_u64 actions_len; /* number of actions */
};

#define SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0	48

/* Exit statuses of a child that could not start (proposal behaviour). */
#define SPAWN_TEMPLATE_EXIT_ENOENT		127
#define SPAWN_TEMPLATE_EXIT_EACCES		126	/* also ENOEXEC */
#define SPAWN_TEMPLATE_EXIT_OTHER		1

#ifdef __cplusplus
#define SPAWNKIT__SA static_assert
#else
#define SPAWNKIT__SA _Static_assert
#endif
#define SPAWNKIT__OFF(t, f) __builtin_offsetof(struct t, f)

SPAWNKIT__SA(sizeof(struct spawn_template_action) == 24, "action ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_action, type) == 0, "action ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_action, flags) == 4, "action ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_action, fd) == 8, "action ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_action, newfd) == 12, "action ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_action, arg) == 16, "action ABI");
SPAWNKIT__SA(sizeof(struct spawn_template_open) == 24, "open ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_open, how) == 8, "open ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_open, how_size) == 16, "open ABI");
SPAWNKIT__SA(sizeof(struct spawn_template_sigset) == 16, "sigset ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_sigset, sigsetsize) == 8, "sigset ABI");
SPAWNKIT__SA(sizeof(struct spawn_template_rlimit) == 16, "rlimit ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_rlimit, rlim_max) == 8, "rlimit ABI");
SPAWNKIT__SA(sizeof(struct spawn_template_create_args) ==
	     SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0, "create ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_create_args, filename) == 8, "create ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_create_args, execfd) == 16, "create ABI");
SPAWNKIT__SA(sizeof(struct spawn_template_spawn_args) ==
	     SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0, "spawn ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_spawn_args, pidfd) == 8, "spawn ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_spawn_args, argv) == 16, "spawn ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_spawn_args, envp) == 24, "spawn ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_spawn_args, actions) == 32, "spawn ABI");
SPAWNKIT__SA(SPAWNKIT__OFF(spawn_template_spawn_args, actions_len) == 40, "spawn ABI");

#endif /* SPAWNKIT_SPAWN_TEMPLATE_H */

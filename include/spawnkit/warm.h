/* SPDX-License-Identifier: MIT */
/*
 * warm.h - warm templates: Python tool calls forked from a pre-initialised
 * interpreter instead of started cold.
 *
 * spawnkit_warm_spawn() takes a call as spawnkit_spawn() does.  If it is a
 * CPython 3.8+ call of the form `PYTHON [flags] script.py args`,
 * `PYTHON [flags] -c code args` or `PYTHON [flags] -m module args` and
 * nothing about it needs a cold start, it is started from a warm interpreter
 * of this process (started lazily, one per key) and returns 0 with *pid and
 * *pidfd set: the tool is the caller's own child, as after spawnkit_spawn().
 * Otherwise it returns a reason > 0 (SPAWNKIT_WARM_*) and starts nothing: the
 * caller starts the call cold.  Every such return is counted.  Turning warm
 * on never changes a call's result, only its speed (docs/warm.md lists the
 * documented differences).
 *
 * Environment (read when a warm interpreter starts):
 *   SPAWNKIT_WARM=0          never warm (reason SPAWNKIT_WARM_DISABLED)
 *   SPAWNKIT_WARM_IDLE       seconds idle before an interpreter exits (60)
 *   SPAWNKIT_WARM_MAX_CALLS  calls after which it is restarted (2000)
 *   SPAWNKIT_WARM_MAX_AGE    seconds after which it is restarted (600)
 *   SPAWNKIT_WARM_TIMEOUT    seconds to wait for it to start or answer (30)
 *   SPAWNKIT_WARM_IMPORT_CACHE=0  no import cache in the interpreter (docs/warm.md)
 *   SPAWNKIT_WARM_TEST_DIE   tests only: request, clone, garbage, stall or reply,
 *                            the step at which the interpreter misbehaves
 *
 * Thread-safe.  errno is never changed.
 */
#ifndef SPAWNKIT_WARM_H
#define SPAWNKIT_WARM_H

#include <stdint.h>
#include <sys/types.h>
#include <spawnkit/spawn_template.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Why a call ran cold (spawnkit_warm_spawn's return value). */
#define SPAWNKIT_WARM_NOT_PYTHON	1  /* not a CPython 3.8+ executable */
#define SPAWNKIT_WARM_ARGS		2  /* -i, -v, -x, -, -X importtime, no script, ... */
#define SPAWNKIT_WARM_SCRIPT		3  /* script missing, not a regular file, .pyc, zip */
#define SPAWNKIT_WARM_ENV		4  /* PYTHONINSPECT & co, bad or duplicate entries */
#define SPAWNKIT_WARM_TTY		5  /* a terminal among the child's fds */
#define SPAWNKIT_WARM_FDS		6  /* fd 0-2 closed, inherit-fds, open actions, too many */
#define SPAWNKIT_WARM_PROCESS		7  /* uid, gid, groups, namespace, seccomp, session,
					      rlimit or caps differ from the interpreter's */
#define SPAWNKIT_WARM_INVALIDATED	8  /* interpreter, sys.path dir, .pth or *customize
					      changed: restarted on the next call */
#define SPAWNKIT_WARM_UNSUPPORTED	9  /* this interpreter cannot be warmed */
#define SPAWNKIT_WARM_FAILED		10 /* the warm interpreter died or misbehaved */
#define SPAWNKIT_WARM_DISABLED		11 /* SPAWNKIT_WARM=0 */
#define SPAWNKIT_WARM_NR_REASONS	12

struct spawnkit_warm_stats {
	uint64_t warm_spawns;		/* calls started warm */
	uint64_t cold_fallbacks;	/* calls returned with a reason */
	uint64_t started;		/* warm interpreters started (restarts included) */
	uint64_t restarted;		/* of those, replacing one of the same key */
	uint64_t shut_down;		/* stopped: idle, invalidated, aged, failed, evicted */
	uint64_t reasons[SPAWNKIT_WARM_NR_REASONS]; /* cold_fallbacks by reason */
};

/*
 * path: the executable as the cold spawn would run it (absolute).  argv,
 * envp, actions, nr_actions and flags as for spawnkit_spawn(); actions may
 * be DUP2, CLOSE, CLOSE_RANGE, FCHDIR, SIGMASK, SIGDEFAULT and OPEN (of an
 * absolute path, without O_CREAT/O_TRUNC/O_EXCL).
 * preload: NULL, or module names separated by commas ("json,re") that the
 * warm interpreter imports once; they are then in the tool's sys.modules
 * from the start (a visible difference: opt-in).  Part of the key.
 * Returns 0 (started: *pid, *pidfd set) or a SPAWNKIT_WARM_* reason.
 */
int spawnkit_warm_spawn(const char *path, char *const argv[], char *const envp[],
			const struct spawn_template_action *actions,
			unsigned int nr_actions, unsigned int flags, const char *preload,
			pid_t *pid, int *pidfd);
/* Copy the process-wide counters. */
void spawnkit_warm_stats(struct spawnkit_warm_stats *out);
/* "not-python", "args", ...; "unknown" for other numbers. */
const char *spawnkit_warm_reason_name(int reason);
/* Stop and reap every warm interpreter of this process. */
void spawnkit_warm_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif

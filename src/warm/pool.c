/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the process's warm interpreters and the public entry points.
 *
 * A small table, one interpreter per key (key.c), started lazily on the
 * first call that fits and reused until one of:
 *   - it exited by itself after SPAWNKIT_WARM_IDLE seconds without a call,
 *     or died (seen at the next call; reaped, replaced);
 *   - a file it watches changed (interp.c): stopped, this call runs cold,
 *     the next one starts a new interpreter;
 *   - the caller's credentials, namespaces, session... changed (procstate.c):
 *     stopped, this call runs cold;
 *   - it served SPAWNKIT_WARM_MAX_CALLS calls or is SPAWNKIT_WARM_MAX_AGE
 *     seconds old: replaced before this call, so hash seed and address
 *     layout are re-randomised;
 *   - the table is full: the least recently used one is stopped.
 * The table lock is held for the whole call (one interpreter serves one
 * request at a time anyway); fork() waits for it and the child forgets the
 * parent's interpreters without stopping them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common/sys.h"
#include "warm/warm_int.h"

#define TABLE		8
#define RETRY_BAD_NS	(60ULL * 1000000000ULL)
#define RETIRED		8
#define IDLE_MARGIN_NS	(500ULL * 1000000ULL)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct warm_interp *table[TABLE];
static uint64_t retired[RETIRED];	/* keys stopped to be replaced */
static unsigned int retired_next;
static struct spawnkit_warm_stats stats;

static void count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static int cold(int reason)
{
	count(&stats.cold_fallbacks);
	if (reason > 0 && reason < SPAWNKIT_WARM_NR_REASONS)
		count(&stats.reasons[reason]);
	return reason;
}

static void free_entry(struct warm_interp *w)
{
	warm_key_free(&w->key);
	free(w);
}

static void drop(int i, int retire)
{
	struct warm_interp *w = table[i];

	if (!w)
		return;
	if (!w->bad)
		count(&stats.shut_down);
	if (retire) {
		retired[retired_next++ % RETIRED] = w->key.hash;
	}
	warm_interp_stop(w);
	free_entry(w);
	table[i] = NULL;
}

static void at_fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void at_fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

/* The child does not own its parent's interpreters: close our ends only. */
static void at_fork_child(void)
{
	int i;

	for (i = 0; i < TABLE; i++) {
		struct warm_interp *w = table[i];

		if (!w)
			continue;
		if (w->sock >= 0)
			close(w->sock);
		if (w->pidfd >= 0)
			close(w->pidfd);
		w->sock = w->pidfd = -1;
		for (int j = 0; j < w->nwatch; j++)
			free(w->watch[j].path);
		free(w->watch);
		free_entry(w);
		table[i] = NULL;
	}
	pthread_mutex_unlock(&lock);
}

static void init_once(void)
{
	pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
}

static int script_ok(const struct warm_call *c, const struct warm_fdplan *p)
{
	int dirfd = p->cwd_src >= 0 ? p->cwd_src : AT_FDCWD, fd;
	size_t len = strlen(c->payload);
	unsigned char magic[4];
	struct stat st;
	ssize_t n;

	if (c->mode != WARM_SCRIPT)
		return 0;
	if (len >= 4 && !strcmp(c->payload + len - 4, ".pyc"))
		return SPAWNKIT_WARM_SCRIPT;
	fd = openat(dirfd, c->payload, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return SPAWNKIT_WARM_SCRIPT;	/* the cold start reports it */
	n = fstat(fd, &st) ? -1 : read(fd, magic, 4);
	close(fd);
	if (n < 0 || !S_ISREG(st.st_mode))
		return SPAWNKIT_WARM_SCRIPT;
	if (n == 4 && (!memcmp(magic, "PK\3\4", 4) || (magic[2] == '\r' && magic[3] == '\n')))
		return SPAWNKIT_WARM_SCRIPT;	/* a zip app, or bytecode */
	return 0;
}

static uint64_t idle_margin(const struct warm_interp *w)
{
	return w->idle_ns / 4 < IDLE_MARGIN_NS ? w->idle_ns / 4 : IDLE_MARGIN_NS;
}

static int find(const struct warm_key *k)
{
	int i;

	for (i = 0; i < TABLE; i++)
		if (table[i] && table[i]->key.hash == k->hash && table[i]->key.len == k->len &&
		    !memcmp(table[i]->key.buf, k->buf, k->len))
			return i;
	return -1;
}

static int free_slot(void)
{
	int i, lru = 0;

	for (i = 0; i < TABLE; i++)
		if (!table[i])
			return i;
	for (i = 1; i < TABLE; i++)
		if (table[i]->last_ns < table[lru]->last_ns)
			lru = i;
	drop(lru, 0);
	return lru;
}

/* Start an interpreter for key k into a slot; returns the slot, or -reason. */
static int start(struct warm_key *k, const char *path, const char *rp, char *const argv[],
		 const struct warm_call *c, const struct warm_proc *proc)
{
	struct warm_interp *w = calloc(1, sizeof(*w));
	int slot, ret, r;

	if (!w)
		return -SPAWNKIT_WARM_FAILED;
	w->key = *k;
	memset(k, 0, sizeof(*k));
	w->sock = w->pidfd = -1;
	slot = free_slot();
	table[slot] = w;
	ret = warm_is_cpython(rp);
	if (!ret) {
		ret = warm_interp_start(w, path, argv, c, proc);
		count(&stats.started);
		for (r = 0; r < RETIRED; r++)
			if (retired[r] == w->key.hash) {
				retired[r] = 0;
				count(&stats.restarted);
				break;
			}
	}
	if (ret) {
		w->bad = ret == SPAWNKIT_WARM_NOT_PYTHON ? ret : SPAWNKIT_WARM_UNSUPPORTED;
		w->started_ns = warm_now_ns();
		return -w->bad;
	}
	return slot;
}

static int spawn_locked(const char *path, char *const argv[], char *const envp[],
			const struct warm_call *c, const struct warm_fdplan *plan,
			pid_t *pid, int *pidfd)
{
	struct warm_key k;
	struct warm_proc proc;
	struct warm_request req;
	struct warm_interp *w;
	char *rp = NULL, comm[16];
	const char *base;
	uint64_t now = warm_now_ns();
	double max_calls = warm_env_seconds("SPAWNKIT_WARM_MAX_CALLS", 2000);
	double max_age = warm_env_seconds("SPAWNKIT_WARM_MAX_AGE", 600);
	int i, ret;

	ret = warm_key_build(path, argv, envp, c, &k, &rp);
	if (ret)
		return ret;
	if (warm_proc_snapshot(&proc)) {
		ret = SPAWNKIT_WARM_PROCESS;
		goto out;
	}
	/* interpreters that exited (idle) or died since the last call, and
	 * those about to exit for idleness (a request racing its exit would
	 * make this call cold) */
	for (i = 0; i < TABLE; i++)
		if (table[i] && !table[i]->bad &&
		    (!warm_interp_alive(table[i]) ||
		     (table[i]->idle_ns && now - table[i]->last_ns + idle_margin(table[i]) >=
		      table[i]->idle_ns)))
			drop(i, 0);
	i = find(&k);
	if (i >= 0 && table[i]->bad) {
		if (now - table[i]->started_ns < RETRY_BAD_NS) {
			ret = table[i]->bad;
			goto out;
		}
		drop(i, 0);
		i = -1;
	}
	if (i >= 0) {
		w = table[i];
		if (!warm_interp_fresh(w)) {
			drop(i, 1);
			ret = SPAWNKIT_WARM_INVALIDATED;
			goto out;
		}
		if (!warm_proc_compatible(&w->proc, &proc)) {
			drop(i, 1);
			ret = SPAWNKIT_WARM_PROCESS;
			goto out;
		}
		if ((double)w->calls >= max_calls || (double)(now - w->started_ns) >= max_age * 1e9) {
			drop(i, 1);
			i = -1;
		}
	}
	if (i < 0) {
		if (proc.seccomp_filters < 0) {	/* filters it cannot count */
			ret = SPAWNKIT_WARM_PROCESS;
			goto out;
		}
		i = start(&k, path, rp, argv, c, &proc);
		if (i < 0) {
			ret = -i;
			goto out;
		}
	}
	w = table[i];
	base = strrchr(rp, '/');
	snprintf(comm, sizeof(comm), "%s", base ? base + 1 : rp);
	req.call = c;
	req.argv = argv;
	req.envp = envp;
	req.plan = plan;
	req.proc = &proc;
	req.comm = comm;
	req.ignored = proc.sigign & ~plan->dflt;
	req.mask = plan->has_mask ? plan->mask : proc.sigblk;
	req.umask = proc.umask;
	ret = warm_request(w, &req, pid, pidfd);
	if (ret == SPAWNKIT_WARM_FAILED) {
		drop(i, 1);
	} else if (!ret) {
		w->calls++;
		w->last_ns = warm_now_ns();
	}
out:
	warm_key_free(&k);
	free(rp);
	return ret;
}

static int preload_ok(const char *p)
{
	if (!p)
		return 1;
	if (strlen(p) > 1024)
		return 0;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == ','))
			return 0;
	return 1;
}

SK_EXPORT int spawnkit_warm_spawn(const char *path, char *const argv[], char *const envp[],
				  const struct spawn_template_action *actions,
				  unsigned int nr_actions, unsigned int flags, const char *preload,
				  pid_t *pid, int *pidfd)
{
	struct warm_call c;
	struct warm_fdplan plan = { .nopened = 0 };
	const char *dis;
	int saved = errno, ret;

	pthread_once(&once, init_once);
	dis = getenv("SPAWNKIT_WARM");
	if (dis && !strcmp(dis, "0"))
		return cold(SPAWNKIT_WARM_DISABLED);
	if (!path || path[0] != '/' || !argv || !envp || !pid || !pidfd ||
	    (nr_actions && !actions) || !preload_ok(preload)) {
		errno = saved;
		return cold(SPAWNKIT_WARM_ARGS);
	}
	ret = 0;
	if (warm_python_name(path)) {
		char rp[PATH_MAX];

		/* a symlink of another name (python -> python3.11 is the usual way
		 * round; this is the rare one) */
		if (!realpath(path, rp) || warm_python_name(rp))
			ret = SPAWNKIT_WARM_NOT_PYTHON;
	}
	if (!ret)
		ret = warm_classify(argv, &c);
	if (!ret)
		ret = warm_fdplan(actions, nr_actions, flags, &plan);
	if (!ret)
		ret = script_ok(&c, &plan);
	if (!ret) {
		pthread_mutex_lock(&lock);
		c.preload = preload && *preload ? preload : "";
		ret = spawn_locked(path, argv, envp, &c, &plan, pid, pidfd);
		pthread_mutex_unlock(&lock);
	}
	warm_fdplan_release(&plan);
	errno = saved;
	if (ret)
		return cold(ret);
	count(&stats.warm_spawns);
	return 0;
}

SK_EXPORT void spawnkit_warm_stats(struct spawnkit_warm_stats *out)
{
	int i;

	out->warm_spawns = __atomic_load_n(&stats.warm_spawns, __ATOMIC_RELAXED);
	out->cold_fallbacks = __atomic_load_n(&stats.cold_fallbacks, __ATOMIC_RELAXED);
	out->started = __atomic_load_n(&stats.started, __ATOMIC_RELAXED);
	out->restarted = __atomic_load_n(&stats.restarted, __ATOMIC_RELAXED);
	out->shut_down = __atomic_load_n(&stats.shut_down, __ATOMIC_RELAXED);
	for (i = 0; i < SPAWNKIT_WARM_NR_REASONS; i++)
		out->reasons[i] = __atomic_load_n(&stats.reasons[i], __ATOMIC_RELAXED);
}

SK_EXPORT const char *spawnkit_warm_reason_name(int reason)
{
	static const char *const names[SPAWNKIT_WARM_NR_REASONS] = {
		"none", "not-python", "args", "script", "env", "tty", "fds", "process",
		"invalidated", "unsupported", "failed", "disabled"
	};

	return reason >= 0 && reason < SPAWNKIT_WARM_NR_REASONS ? names[reason] : "unknown";
}

SK_EXPORT void spawnkit_warm_shutdown(void)
{
	int saved = errno, i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < TABLE; i++)
		drop(i, 0);
	pthread_mutex_unlock(&lock);
	errno = saved;
}

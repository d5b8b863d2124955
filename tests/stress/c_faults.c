/* SPDX-License-Identifier: MIT */
/*
 * c_faults - the C library under resource limits and hostile events: EMFILE,
 * EAGAIN at RLIMIT_NPROC, ENOMEM under a small RLIMIT_AS, a signal storm
 * mid-run, a SIGCHLD handler that reaps everything, the executable replaced
 * or deleted under a template, the credentials changed.  Each is compared
 * with what open(2) or posix_spawn does in the same state, and nothing may
 * be left behind (fds, pidfds, children).
 */
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include "stress.h"
#include "probe_path.h"

static char *argv_exit[] = { "probe", "--quiet", "--exit", "4", NULL };

/* The lowest free fd: a RLIMIT_NOFILE at which no new fd can be made. */
static int fd_ceiling(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

static int emfile(void)
{
	struct spawnkit_template *t = make_template(probe_path()), *t2 = NULL;
	struct rlimit old, lim;
	struct snap s;
	int ref_errno, cr, st, pidfd = -1;
	pid_t pid, pid2;

	if (!t)
		return SV_WRONG;
	getrlimit(RLIMIT_NOFILE, &old);
	s = snap_take();
	lim = old;
	lim.rlim_cur = (rlim_t)fd_ceiling();
	setrlimit(RLIMIT_NOFILE, &lim);
	ref_errno = open(probe_path(), O_RDONLY) < 0 ? errno : 0;
	cr = spawnkit_template_create(probe_path(), 0, &t2);
	pid = spawnkit_spawn(t, argv_exit, environ, NULL, 0, 0, &pidfd);
	pid2 = spawnkit_spawn(t, argv_exit, environ, NULL, 0, 0, NULL);
	st = ref_posix_spawn(probe_path(), argv_exit, environ);
	setrlimit(RLIMIT_NOFILE, &old);
	if (pid > 0)
		reap_pidfd(pidfd);
	if (pid2 > 0)
		waitpid(pid2, NULL, 0);
	spawnkit_template_destroy(t2);
	note("open: %s, template_create: %s, spawn(pidfd): %s, spawn(no pidfd): %s, "
	     "posix_spawn: %s", strerror(ref_errno), strerror(-cr),
	     pid > 0 ? "pid" : strerror((int)-pid), pid2 > 0 ? "pid" : strerror((int)-pid2),
	     st < 0 ? strerror(-st) : "ran");
	EXPECT(ref_errno == EMFILE && cr == -EMFILE, "template_create must fail as open does");
	/* A pidfd needs an fd: EMFILE, never a child left without one. */
	EXPECT(pid == -EMFILE, "spawn with a pidfd must be EMFILE");
	EXPECT(pid2 > 0 || pid2 == -EMFILE, "spawn without pidfd");
	EXPECT(sk_run(t, argv_exit, NULL, 0) == 4 << 8, "no recovery after the limit");
	spawnkit_template_destroy(t);
	return snap_verdict(&s, "EMFILE", 1 << 20);
}

/* Become uid/gid 65534 with no supplementary groups (root only). */
static int drop_to_nobody(void)
{
	if (geteuid() != 0)
		return -1;
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	return 0;
}

static int nproc_eagain(void)
{
	struct rlimit lim = { 1, 1 };
	struct spawnkit_template *t;
	int ref, r;

	if (drop_to_nobody()) {
		note("needs root to become an unprivileged user");
		return SV_SKIP;
	}
	/* This process alone reaches the limit of its (real) user. */
	setrlimit(RLIMIT_NPROC, &lim);
	t = make_template(probe_path());
	if (!t)
		return SV_WRONG;
	r = sk_run(t, argv_exit, NULL, 0);
	ref = ref_posix_spawn(probe_path(), argv_exit, environ);
	note("spawnkit %s, posix_spawn %s", r < 0 ? strerror(-r) : "ran",
	     ref < 0 ? strerror(-ref) : "ran");
	EXPECT(ref == -EAGAIN, "reference did not hit the limit");
	EXPECT(r == -EAGAIN, "want EAGAIN as posix_spawn");
	EXPECT(child_count() == 0, "a child was left");
	spawnkit_template_destroy(t);
	return SV_OK;
}

/* What one start did, as a letter: r ran (right status), m ENOMEM/EAGAIN,
 * k killed by a signal (exec failed past its point of no return), f ran but
 * the program failed (its loader could not map a library), x other. */
static char outcome(int r)
{
	if (r == 4 << 8)
		return 'r';
	if (r > 0 && (r & 0x7f) == 0)
		return 'f';
	if (r == -ENOMEM || r == -EAGAIN)
		return 'm';
	if (r > 0 && r < 128)
		return 'k';
	return 'x';
}

/*
 * Under a small RLIMIT_AS the parent cannot map memory and the exec'd image
 * may not fit: each start must run, fail with ENOMEM/EAGAIN, or be killed
 * in exec, never anything else, and the library must recover once the limit
 * is lifted.  posix_spawn's outcome under the same limit is shown.
 */
static int enomem_rlimit_as(void)
{
	struct spawnkit_template *t = make_template(probe_path()), *t2;
	long kb[4] = { vm_size_kb() + 64, 16 * 1024, 4 * 1024, 1024 };
	char sk[8] = "", ref[8] = "", cr[8] = "";
	struct rlimit old, lim;
	struct snap s;
	int i, r, j, rounds = (int)scaled(5), bad = 0;

	if (!t)
		return SV_WRONG;
	if (env_long("STRESS_ASAN", 0)) {
		note("ASan reserves terabytes of address space: RLIMIT_AS cannot be tested");
		return SV_SKIP;
	}
	/* the loader's complaints of the children that could not map libc */
	dup2(open("/dev/null", O_WRONLY | O_CLOEXEC), 2);
	s = snap_take();
	getrlimit(RLIMIT_AS, &old);
	for (i = 0; i < 4; i++) {
		lim = old;
		lim.rlim_cur = (rlim_t)kb[i] * 1024;
		for (j = 0; j < rounds; j++) {
			setrlimit(RLIMIT_AS, &lim);
			r = sk_run(t, argv_exit, NULL, 0);
			sk[i] = outcome(r);
			bad += sk[i] == 'x';
			r = ref_posix_spawn(probe_path(), argv_exit, environ);
			ref[i] = outcome(r);
			t2 = NULL;
			r = spawnkit_template_create(probe_path(), 0, &t2);
			cr[i] = r == 0 ? 'r' : r == -ENOMEM ? 'm' : 'x';
			if (cr[i] == 'x')
				bad++, fprintf(stderr, "template_create: %d\n", r);
			setrlimit(RLIMIT_AS, &old);
			spawnkit_template_destroy(t2);
		}
	}
	note("RLIMIT_AS mapped+64K/16M/4M/1M (r ran, f program failed, m ENOMEM/EAGAIN, k killed in exec): "
	     "spawn %s, posix_spawn %s, template_create %s", sk, ref, cr);
	EXPECT(!bad, "an outcome other than run, ENOMEM/EAGAIN or killed in exec");
	EXPECT(sk_run(t, argv_exit, NULL, 0) == 4 << 8, "no recovery");
	spawnkit_template_destroy(t);
	return snap_verdict(&s, "after", 4096);
}

static atomic_int storm_stop;
static atomic_long handled;

static void on_signal(int sig)
{
	atomic_fetch_add(&handled, 1);
}

static void *storm(void *arg)
{
	pid_t self = getpid();
	struct timespec ts = { 0, 20000 };

	while (!atomic_load(&storm_stop)) {
		kill(self, SIGUSR1);
		kill(self, SIGUSR2);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Spawns while a thread floods the process with handled signals (no
 * SA_RESTART): every spawn still succeeds with the right status. */
static int signal_storm(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct spawnkit_template *t = make_template(probe_path());
	int i, n = (int)scaled(40), bad = 0, ref_bad = 0, last = 0, r;
	pthread_t th;
	struct snap s;

	if (!t)
		return SV_WRONG;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	s = snap_take();
	pthread_create(&th, NULL, storm, NULL);
	for (i = 0; i < n; i++) {
		char code[8];
		char *argv[] = { "probe", "--quiet", "--exit", code, NULL };

		snprintf(code, sizeof(code), "%d", i % 100);
		r = sk_run(t, argv, NULL, 0);
		if (r != (i % 100) << 8)
			bad++, last = r;
		if (ref_posix_spawn(probe_path(), argv, environ) != (i % 100) << 8)
			ref_bad++;
	}
	atomic_store(&storm_stop, 1);
	pthread_join(th, NULL);
	spawnkit_template_destroy(t);
	note("%d spawns under %ld handled signals: %d wrong (last %d); posix_spawn %d wrong",
	     n, atomic_load(&handled), bad, last, ref_bad);
	EXPECT(!bad, "wrong");
	return snap_verdict(&s, "after", 4096);
}

static void reap_all(int sig)
{
	int saved = errno;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

/* A SIGCHLD handler that reaps every child (waitpid(-1)): a child that
 * cannot start is still reported by its errno, as posix_spawn does. */
static int sigchld_reaper(void)
{
	struct sigaction sa = { .sa_handler = reap_all, .sa_flags = SA_RESTART };
	char dir[PATH_MAX], bad_exe[PATH_MAX + 16];
	struct spawnkit_template *t, *good;
	int i, n = (int)scaled(20), wrong = 0, ref_wrong = 0, lost = 0, r, fd;

	if (!tmpdir_make(dir, sizeof(dir)))
		return SV_WRONG;
	snprintf(bad_exe, sizeof(bad_exe), "%s/noexec", dir);
	fd = open(bad_exe, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, "\x01\x02garbage\n", 10) != 10)
		return SV_WRONG;
	close(fd);
	t = make_template(bad_exe);
	good = make_template(probe_path());
	if (!t || !good)
		return SV_WRONG;
	sigaction(SIGCHLD, &sa, NULL);
	for (i = 0; i < n; i++) {
		char *argv[] = { "noexec", NULL };
		int pidfd = -1;
		pid_t pid;

		r = sk_run(t, argv, NULL, 0);
		wrong += r != -ENOEXEC;
		ref_wrong += ref_posix_spawn(bad_exe, argv, environ) != -ENOEXEC;
		/* a started child: the handler may reap it before we do */
		pid = spawnkit_spawn(good, argv_exit, environ, NULL, 0, 0, &pidfd);
		if (pid < 0)
			wrong++;
		else if (reap_pidfd(pidfd) != 4 << 8)
			lost++;
	}
	rm_tree(dir);
	spawnkit_template_destroy(t);
	spawnkit_template_destroy(good);
	note("%d failed starts: %d not ENOEXEC (posix_spawn %d); %d started children, "
	     "%d statuses taken by the handler first", n, wrong, ref_wrong, n, lost);
	EXPECT(!wrong, "wrong");
	return SV_OK;
}

static int exe_replaced(void)
{
	char dir[PATH_MAX], exe[PATH_MAX + 16], other[PATH_MAX + 16];
	struct spawnkit_template *t;
	int r1, r2, r3;

	if (!tmpdir_make(dir, sizeof(dir)))
		return SV_WRONG;
	snprintf(exe, sizeof(exe), "%s/prog", dir);
	snprintf(other, sizeof(other), "%s/prog.new", dir);
	if (copy_file(probe_path(), exe, 0755) || copy_file(probe_path(), other, 0755))
		return SV_WRONG;
	t = make_template(exe);
	if (!t)
		return SV_WRONG;
	r1 = sk_run(t, argv_exit, NULL, 0);
	rename(other, exe);				/* a package upgrade */
	r2 = sk_run(t, argv_exit, NULL, 0);
	r3 = ref_posix_spawn(exe, argv_exit, environ);
	spawnkit_template_destroy(t);
	t = make_template(exe);
	note("before %d, after rename-over %d (posix_spawn runs the new file: %d), "
	     "new template %d", r1, r2, r3, t ? sk_run(t, argv_exit, NULL, 0) : -1);
	spawnkit_template_destroy(t);
	rm_tree(dir);
	EXPECT(r1 == 4 << 8 && r2 == -ESTALE && r3 == 4 << 8, "want ESTALE");
	EXPECT(strstr(st_note_buf, "new template 1024"), "new template must run");
	return SV_OK;
}

static int exe_deleted(void)
{
	char dir[PATH_MAX], exe[PATH_MAX + 16];
	struct spawnkit_template *t;
	int r1, r2, r3;

	if (!tmpdir_make(dir, sizeof(dir)))
		return SV_WRONG;
	snprintf(exe, sizeof(exe), "%s/prog", dir);
	if (copy_file(probe_path(), exe, 0755))
		return SV_WRONG;
	t = make_template(exe);
	if (!t)
		return SV_WRONG;
	r1 = sk_run(t, argv_exit, NULL, 0);
	unlink(exe);
	r2 = sk_run(t, argv_exit, NULL, 0);
	r3 = ref_posix_spawn(exe, argv_exit, environ);
	spawnkit_template_destroy(t);
	rm_tree(dir);
	note("before %d, after unlink %s (posix_spawn %s)", r1,
	     r2 < 0 ? strerror(-r2) : "ran", r3 < 0 ? strerror(-r3) : "ran");
	EXPECT(r1 == 4 << 8 && r2 == -ESTALE && r3 == -ENOENT, "want ESTALE");
	return SV_OK;
}

/* Template made as root, used after dropping to nobody: EACCES by design
 * (the template's credentials are checked at each spawn). */
static int creds_changed(void)
{
	struct spawnkit_template *t = make_template(probe_path()), *t2;
	int r, r2, ref;

	if (!t)
		return SV_WRONG;
	if (drop_to_nobody()) {
		note("needs root to change credentials");
		return SV_SKIP;
	}
	r = sk_run(t, argv_exit, NULL, 0);
	ref = access(probe_path(), X_OK) ? -errno : 0;
	t2 = make_template(probe_path());
	r2 = t2 ? sk_run(t2, argv_exit, NULL, 0) : -1;
	note("old template %s; new template %d (file executable by nobody: %s)",
	     r < 0 ? strerror(-r) : "ran", r2, ref ? strerror(-ref) : "yes");
	spawnkit_template_destroy(t);
	spawnkit_template_destroy(t2);
	if (ref) {
		note_add("probe is not reachable as nobody here");
		return SV_SKIP;
	}
	EXPECT(r == -EACCES && r2 == 4 << 8, "wrong");
	return SV_OK;
}

static const struct scenario scenarios[] = {
	{ "emfile", emfile, 60 },
	{ "eagain-rlimit-nproc", nproc_eagain, 60 },
	{ "enomem-rlimit-as", enomem_rlimit_as, 60 },
	{ "signal-storm", signal_storm, 120 },
	{ "sigchld-reaper", sigchld_reaper, 60 },
	{ "exe-replaced", exe_replaced, 60 },
	{ "exe-deleted", exe_deleted, 60 },
	{ "creds-changed", creds_changed, 60 },
	{ NULL, NULL, 0 }
};

int main(int argc, char **argv)
{
	return st_main("c/faults", scenarios, argc, argv);
}

/* SPDX-License-Identifier: MIT */
/*
 * spawnkit_thread_set_slice: the calling thread's EEVDF slice (sched_getattr's
 * sched_runtime, /proc/thread-self/sched's se.slice), its policy and nice
 * value kept, reset-on-fork set so that no thread or child made afterwards
 * inherits it; the range checked before anything changes; on a kernel
 * without custom slices EOPNOTSUPP and nothing changed.  Every case runs in
 * a process of its own (the harness forks), so what it sets dies with it.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include "util.h"
#include "sched_attr.h"

#define MS 1000000ULL

/* se.slice of /proc/thread-self/sched, or -1 */
static long long proc_slice(void)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/thread-self/sched", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "se.slice", 8))
			v = strtoll(strchr(line, ':') + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* Skip where there is nothing to set; the case for such kernels is
 * without_custom_slices_is_eopnotsupp. */
static void need_custom_slices(void)
{
	if (!t_has_custom_slices())
		SKIP("no custom slices in this kernel (before 6.12)");
}

TEST(sets_the_slice_and_reset_on_fork)
{
	struct t_sched_attr a;

	need_custom_slices();
	ASSERT_EQ(spawnkit_thread_set_slice(4 * MS), 0);
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.runtime, 4 * MS);
	CHECK_EQ(a.policy, SCHED_OTHER);
	CHECK(a.flags & SCHED_FLAG_RESET_ON_FORK);
	CHECK_EQ(sched_getscheduler(0), SCHED_OTHER | SCHED_RESET_ON_FORK);
	/* where the kernel shows it (CONFIG_SCHED_DEBUG) */
	if (proc_slice() >= 0)
		CHECK_EQ(proc_slice(), (long long)(4 * MS));
	/* the bounds themselves are taken */
	CHECK_EQ(spawnkit_thread_set_slice(SPAWNKIT_THREAD_SLICE_MIN), 0);
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.runtime, SPAWNKIT_THREAD_SLICE_MIN);
	CHECK_EQ(spawnkit_thread_set_slice(SPAWNKIT_THREAD_SLICE_MAX), 0);
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.runtime, SPAWNKIT_THREAD_SLICE_MAX);
}

/* 0 gives the default back; reset-on-fork stays (sticky without
 * CAP_SYS_NICE, and kept by the library in any case) */
TEST(zero_gives_the_default_back)
{
	struct t_sched_attr a;
	uint64_t dflt;

	need_custom_slices();
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	dflt = a.runtime;
	ASSERT_EQ(spawnkit_thread_set_slice(9 * MS), 0);
	ASSERT_EQ(spawnkit_thread_set_slice(0), 0);
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.runtime, dflt);
	CHECK(a.flags & SCHED_FLAG_RESET_ON_FORK);
}

/* The policy (SCHED_BATCH) and nice value stay as they are */
TEST(keeps_the_policy_and_nice_value)
{
	struct sched_param zero = { 0 };
	struct t_sched_attr a;
	int nice = getpriority(PRIO_PROCESS, 0);

	need_custom_slices();
	/* a value of our own: raising it is always allowed */
	nice = nice < 19 ? nice + 1 : 19;
	ASSERT_EQ(setpriority(PRIO_PROCESS, 0, nice), 0);
	ASSERT_EQ(sched_setscheduler(0, SCHED_BATCH, &zero), 0);
	ASSERT_EQ(spawnkit_thread_set_slice(3 * MS), 0);
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.policy, SCHED_BATCH);
	CHECK_EQ(a.nice, nice);
	CHECK_EQ(a.runtime, 3 * MS);
}

/* A thread with no slice to set: a real-time one, or a SCHED_IDLE one (the
 * kernel leaves an idle task's slice as it is): EINVAL, its policy kept */
TEST(an_idle_thread_is_einval)
{
	struct sched_param zero = { 0 };
	struct t_sched_attr a;

	ASSERT_EQ(sched_setscheduler(0, SCHED_IDLE, &zero), 0);
	CHECK_ERR(spawnkit_thread_set_slice(5 * MS), EINVAL);
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.policy, SCHED_IDLE);
	CHECK(!(a.flags & SCHED_FLAG_RESET_ON_FORK));
}

/* Out of range: EINVAL, nothing changed (not even reset-on-fork) */
TEST(out_of_range_is_einval_and_changes_nothing)
{
	static const uint64_t bad[] = {
		1, SPAWNKIT_THREAD_SLICE_MIN - 1, SPAWNKIT_THREAD_SLICE_MAX + 1, UINT64_MAX,
	};
	struct t_sched_attr before, after;
	unsigned int i;

	ASSERT_EQ(t_sched_getattr(0, &before), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_ERR(spawnkit_thread_set_slice(bad[i]), EINVAL);
	ASSERT_EQ(t_sched_getattr(0, &after), 0);
	CHECK_EQ(after.runtime, before.runtime);
	CHECK_EQ(after.flags, before.flags);
	CHECK_EQ(after.policy, before.policy);
}

TEST(a_real_time_thread_is_einval)
{
	struct sched_param one = { 1 };

	if (sched_setscheduler(0, SCHED_FIFO, &one))
		SKIP("SCHED_FIFO not allowed here (no CAP_SYS_NICE or RLIMIT_RTPRIO)");
	CHECK_ERR(spawnkit_thread_set_slice(4 * MS), EINVAL);
	CHECK_EQ(sched_getscheduler(0), SCHED_FIFO);
}

static void *report_slice(void *arg)
{
	struct t_sched_attr *a = arg;

	t_sched_getattr(0, a);
	return NULL;
}

/* Neither a new thread, nor a forked child, nor a spawned one inherits it;
 * a thread that already ran keeps its own */
TEST(no_new_thread_or_child_inherits_it)
{
	struct spawnkit_template *t = probe_template();
	struct run_result *r = malloc(sizeof(*r));
	char *argv[] = { "probe", NULL };
	struct t_sched_attr a, b;
	uint64_t dflt;
	pthread_t th;
	int st;
	pid_t pid;

	ASSERT_TRUE(r != NULL);
	need_custom_slices();
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	dflt = a.runtime;
	ASSERT_EQ(spawnkit_thread_set_slice(6 * MS), 0);
	ASSERT_EQ(pthread_create(&th, NULL, report_slice, &b), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(b.runtime, dflt);
	CHECK(!(b.flags & SCHED_FLAG_RESET_ON_FORK));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct t_sched_attr c;

		t_sched_getattr(0, &c);
		_exit(c.runtime == dflt && !(c.flags & SCHED_FLAG_RESET_ON_FORK) ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	spawn_capture(t, argv, environ, NULL, 0, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "slice %llu", (unsigned long long)dflt));
	CHECK(has_line(r, "sched %d %d", SCHED_OTHER, getpriority(PRIO_PROCESS, 0)));
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.runtime, 6 * MS);	/* ours kept */
	spawnkit_template_destroy(t);
	free(r);
	CHECK(no_children());
}

/* Only the calling thread: a thread already running keeps its slice */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage;
static pid_t other_tid;

static void *wait_for_stage_2(void *arg)
{
	pthread_mutex_lock(&mu);
	other_tid = (pid_t)syscall(SYS_gettid);
	stage = 1;
	pthread_cond_broadcast(&cv);
	while (stage < 2)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

TEST(other_threads_keep_theirs)
{
	struct t_sched_attr a;
	uint64_t dflt;
	pthread_t th;

	need_custom_slices();
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	dflt = a.runtime;
	ASSERT_EQ(pthread_create(&th, NULL, wait_for_stage_2, NULL), 0);
	pthread_mutex_lock(&mu);
	while (stage < 1)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	ASSERT_EQ(spawnkit_thread_set_slice(8 * MS), 0);
	ASSERT_EQ(t_sched_getattr(other_tid, &a), 0);
	CHECK_EQ(a.runtime, dflt);
	CHECK(!(a.flags & SCHED_FLAG_RESET_ON_FORK));
	pthread_mutex_lock(&mu);
	stage = 2;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	ASSERT_EQ(pthread_join(th, NULL), 0);
}

/* A kernel without custom slices: EOPNOTSUPP, nothing changed; where it
 * has them, the same call works (so this case asserts either way); the
 * library's answer to "has it?" agrees */
TEST(without_custom_slices_is_eopnotsupp)
{
	struct t_sched_attr before, after;
	int ret;

	ASSERT_EQ(t_sched_getattr(0, &before), 0);
	CHECK_EQ(spawnkit_kernel_has_custom_slices(), before.runtime != 0);
	ret = spawnkit_thread_set_slice(4 * MS);
	ASSERT_EQ(t_sched_getattr(0, &after), 0);
	if (before.runtime == 0) {
		CHECK_ERR(ret, EOPNOTSUPP);
		CHECK_EQ(after.flags, before.flags);
	} else {
		CHECK_EQ(ret, 0);
		CHECK_EQ(after.runtime, 4 * MS);
	}
}

TEST_HARNESS_MAIN

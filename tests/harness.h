/* SPDX-License-Identifier: MIT */
/*
 * harness.h - named test cases for every tests/<area>/t_*.c, in the manner
 * of the kernel's tools/testing/selftests/kselftest_harness.h.
 *
 *	TEST(name) { ... }			a case
 *	FIXTURE(f) { fields };			per-case state, zeroed, as `self`
 *	FIXTURE_SETUP(f) { ... }		runs before each TEST_F(f, ...)
 *	FIXTURE_TEARDOWN(f) { ... }		runs after it, even after a
 *						failed ASSERT_*
 *	FIXTURE_VARIANT(f) { fields };		optional: parameters, as `variant`
 *	FIXTURE_VARIANT_ADD(f, v) { .x = 1 };	one instance of them
 *	TEST_F(f, name) { ... }			a case run once per variant
 *	TEST_HARNESS_MAIN			the program's main()
 *
 * A FIXTURE needs both FIXTURE_SETUP and FIXTURE_TEARDOWN (either may be
 * empty); FIXTURE_VARIANT is optional (without variants, `variant` is NULL).
 *
 * Checks: EXPECT_* records a failure and goes on; ASSERT_* records it and
 * ends the case (the teardown still runs).  Both come as _TRUE, _FALSE,
 * _EQ, _NE, _LT, _LE, _GT, _GE (integers, printed on mismatch), _STREQ and
 * _ERR(expr, E) (expr must give -E, the library's convention).  CHECK,
 * CHECK_EQ and CHECK_ERR are the EXPECT forms under their older names.
 * SKIP(why) ends a case as skipped: for a kernel feature this host lacks.
 *
 * Each case runs in a forked child, so a crash, an exit() or a leaked fd or
 * child ends with it, and one case cannot see another's state.  A case
 * fails if any check failed, it died, it exited non-zero, it overran the
 * timeout (SPAWNKIT_TEST_TIMEOUT seconds, default 180), or it made no check
 * at all (a case that checks nothing cannot fail, so it proves nothing).
 * A skip after a failed check is a failure.
 *
 * The program prints "ok NAME", "FAIL NAME (why)" or "SKIP NAME" a case,
 * then "PROG: N passed, N failed, N skipped" and, if any failed,
 * "failed: NAME ...".  Exit status: 1 if a case failed or no case ran at
 * all, 77 (run-tests.sh's skip) if every case was skipped, else 0.
 * Arguments, if any, are substrings: only cases whose name holds one run.
 * "-l" lists the case names.
 *
 * GNU C (constructor functions register the cases) and POSIX (fork,
 * waitpid, sigaction, setjmp), no allocation in the registry: the same file
 * builds for the static QEMU guest programs.
 */
#ifndef SPAWNKIT_TEST_HARNESS_H
#define SPAWNKIT_TEST_HARNESS_H

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define TH_SKIP_STATUS 77
#define TH_UNUSED __attribute__((unused))

/* ---- registry ---------------------------------------------------------- */

struct th_variant {
	const char *name;
	const void *data;
	struct th_variant *next;
};

struct th_fixture {
	const char *name;
	struct th_variant *variants, **variants_tail;
};

struct th_case {
	const char *name;
	struct th_fixture *fixture;	/* NULL for TEST() */
	void (*fn)(const void *variant);
	struct th_case *next;
};

static struct th_case *th_cases, **th_cases_tail = &th_cases;

static inline void th_register_case(struct th_case *c)
{
	*th_cases_tail = c;
	th_cases_tail = &c->next;
}

static inline void th_register_variant(struct th_fixture *f, struct th_variant *v)
{
	if (!f->variants_tail)
		f->variants_tail = &f->variants;
	*f->variants_tail = v;
	f->variants_tail = &v->next;
}

/* ---- per-case state (lives in the forked child) ------------------------ */

static int th_checks, th_failed, th_skipped, th_in_case;
static jmp_buf th_jmp;

/* A failed ASSERT_* or a SKIP(): leave the case body (teardown still runs). */
static inline void th_abort_case(void)
{
	if (th_in_case)
		longjmp(th_jmp, 1);
	fflush(NULL);
	_exit(th_skipped && !th_failed ? TH_SKIP_STATUS : 1);
}

static inline int th_report(int ok, const char *file, int line, const char *what)
{
	th_checks++;
	if (!ok) {
		th_failed++;
		fprintf(stderr, "FAIL %s:%d: %s\n", file, line, what);
	}
	return ok;
}

static inline int th_report_cmp(int ok, const char *file, int line, const char *a,
				const char *op, const char *b, long long va, long long vb)
{
	th_checks++;
	if (!ok) {
		th_failed++;
		fprintf(stderr, "FAIL %s:%d: %s %s %s (%lld vs %lld)\n",
			file, line, a, op, b, va, vb);
	}
	return ok;
}

#define TH_BOOL(fatal, cond, text) do {					\
	if (!th_report(!!(cond), __FILE__, __LINE__, text) && (fatal))	\
		th_abort_case();					\
} while (0)

#define TH_CMP(fatal, a, op, b) do {					\
	long long th_a = (long long)(a), th_b = (long long)(b);		\
	if (!th_report_cmp(th_a op th_b, __FILE__, __LINE__, #a, #op, #b, \
			   th_a, th_b) && (fatal))			\
		th_abort_case();					\
} while (0)

#define TH_STREQ(fatal, a, b) do {					\
	const char *th_sa = (a), *th_sb = (b);				\
	int th_ok = th_sa && th_sb && !strcmp(th_sa, th_sb);		\
	th_checks++;							\
	if (!th_ok) {							\
		th_failed++;						\
		fprintf(stderr, "FAIL %s:%d: %s == %s (\"%s\" vs \"%s\")\n", \
			__FILE__, __LINE__, #a, #b,			\
			th_sa ? th_sa : "(null)", th_sb ? th_sb : "(null)"); \
		if (fatal)						\
			th_abort_case();				\
	}								\
} while (0)

#define EXPECT_TRUE(c)		TH_BOOL(0, (c), #c)
#define EXPECT_FALSE(c)		TH_BOOL(0, !(c), "!(" #c ")")
#define EXPECT_EQ(a, b)		TH_CMP(0, a, ==, b)
#define EXPECT_NE(a, b)		TH_CMP(0, a, !=, b)
#define EXPECT_LT(a, b)		TH_CMP(0, a, <, b)
#define EXPECT_LE(a, b)		TH_CMP(0, a, <=, b)
#define EXPECT_GT(a, b)		TH_CMP(0, a, >, b)
#define EXPECT_GE(a, b)		TH_CMP(0, a, >=, b)
#define EXPECT_STREQ(a, b)	TH_STREQ(0, a, b)
#define EXPECT_ERR(expr, E)	TH_CMP(0, expr, ==, -(E))
#define ASSERT_TRUE(c)		TH_BOOL(1, (c), #c)
#define ASSERT_FALSE(c)		TH_BOOL(1, !(c), "!(" #c ")")
#define ASSERT_EQ(a, b)		TH_CMP(1, a, ==, b)
#define ASSERT_NE(a, b)		TH_CMP(1, a, !=, b)
#define ASSERT_LT(a, b)		TH_CMP(1, a, <, b)
#define ASSERT_LE(a, b)		TH_CMP(1, a, <=, b)
#define ASSERT_GT(a, b)		TH_CMP(1, a, >, b)
#define ASSERT_GE(a, b)		TH_CMP(1, a, >=, b)
#define ASSERT_STREQ(a, b)	TH_STREQ(1, a, b)
#define ASSERT_ERR(expr, E)	TH_CMP(1, expr, ==, -(E))

/* The older names, kept because they read well in long check lists. */
#define CHECK(c)		EXPECT_TRUE(c)
#define CHECK_EQ(a, b)		EXPECT_EQ(a, b)
#define CHECK_ERR(expr, E)	EXPECT_ERR(expr, E)

#define SKIP(why) do {							\
	printf("SKIP: %s\n", (why));					\
	th_skipped = 1;							\
	th_abort_case();						\
} while (0)
#define TEST_SKIP(why)		SKIP(why)

/* ---- declaring cases ---------------------------------------------------- */

#define TEST(name)							\
	static void th_body_##name(void);				\
	static void th_run_##name(const void *th_v)			\
	{								\
		(void)th_v;						\
		if (!setjmp(th_jmp))					\
			th_body_##name();				\
	}								\
	static struct th_case th_case_##name = {			\
		#name, NULL, th_run_##name, NULL			\
	};								\
	__attribute__((constructor)) static void th_reg_##name(void)	\
	{								\
		th_register_case(&th_case_##name);			\
	}								\
	static void th_body_##name(void)

#define FIXTURE_DATA(f)		struct th_data_##f
#define FIXTURE_VARIANT(f)	struct th_variant_##f

#define FIXTURE(f)							\
	FIXTURE_VARIANT(f);						\
	static TH_UNUSED struct th_fixture th_fixture_##f = { #f, NULL, NULL };	\
	FIXTURE_DATA(f)

#define FIXTURE_SETUP(f)						\
	static TH_UNUSED void th_setup_##f(FIXTURE_DATA(f) *self TH_UNUSED,	\
				 const FIXTURE_VARIANT(f) *variant TH_UNUSED)

#define FIXTURE_TEARDOWN(f)						\
	static TH_UNUSED void th_teardown_##f(FIXTURE_DATA(f) *self TH_UNUSED,	\
				    const FIXTURE_VARIANT(f) *variant TH_UNUSED)

#define FIXTURE_VARIANT_ADD(f, v)					\
	static const FIXTURE_VARIANT(f) th_vdata_##f##_##v;		\
	static struct th_variant th_variant_##f##_##v = {		\
		#v, &th_vdata_##f##_##v, NULL				\
	};								\
	__attribute__((constructor)) static void th_vreg_##f##_##v(void) \
	{								\
		th_register_variant(&th_fixture_##f, &th_variant_##f##_##v); \
	}								\
	static const FIXTURE_VARIANT(f) th_vdata_##f##_##v =

#define TEST_F(f, name)							\
	static void th_body_##f##_##name(FIXTURE_DATA(f) *self,		\
					 const FIXTURE_VARIANT(f) *variant); \
	static void th_run_##f##_##name(const void *th_v)		\
	{								\
		FIXTURE_DATA(f) th_self;				\
		const FIXTURE_VARIANT(f) *th_var = th_v;		\
		volatile int th_set_up = 0;				\
									\
		memset(&th_self, 0, sizeof(th_self));			\
		if (!setjmp(th_jmp)) {					\
			th_setup_##f(&th_self, th_var);			\
			th_set_up = 1;					\
			th_body_##f##_##name(&th_self, th_var);		\
		}							\
		if (th_set_up && !setjmp(th_jmp))			\
			th_teardown_##f(&th_self, th_var);		\
	}								\
	static struct th_case th_case_##f##_##name = {			\
		#name, &th_fixture_##f, th_run_##f##_##name, NULL	\
	};								\
	__attribute__((constructor)) static void th_reg_##f##_##name(void) \
	{								\
		th_register_case(&th_case_##f##_##name);		\
	}								\
	static void th_body_##f##_##name(FIXTURE_DATA(f) *self TH_UNUSED, \
					 const FIXTURE_VARIANT(f) *variant TH_UNUSED)

/* ---- running ------------------------------------------------------------ */

static volatile sig_atomic_t th_alarmed;

static inline void th_on_alarm(int sig)
{
	(void)sig;
	th_alarmed = 1;
}

/* Runs one case in a child; returns 0 pass, 1 fail, 2 skip. */
static inline int th_run_one(const struct th_case *c, const struct th_variant *v,
			     const char *full, unsigned int timeout)
{
	struct sigaction sa, old;
	int status = 0, code;
	pid_t pid, w;

	fflush(NULL);	/* or the child would print the parent's buffer again */
	pid = fork();
	if (pid < 0) {
		printf("FAIL %s (fork: %s)\n", full, strerror(errno));
		return 1;
	}
	if (pid == 0) {
		th_in_case = 1;
		c->fn(v ? v->data : NULL);
		th_in_case = 0;
		fflush(NULL);
		if (th_failed)
			_exit(1);
		if (th_skipped)
			_exit(TH_SKIP_STATUS);
		if (!th_checks) {
			fprintf(stderr, "FAIL %s: the case made no check\n", full);
			_exit(1);
		}
		_exit(0);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = th_on_alarm;	/* no SA_RESTART: waitpid gets EINTR */
	sigaction(SIGALRM, &sa, &old);
	th_alarmed = 0;
	alarm(timeout);
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
		if (th_alarmed) {
			kill(pid, SIGKILL);
			th_alarmed = 0;
			timeout = 0;
		}
	}
	alarm(0);
	sigaction(SIGALRM, &old, NULL);

	if (w < 0) {
		printf("FAIL %s (waitpid: %s)\n", full, strerror(errno));
		return 1;
	}
	if (!timeout) {
		printf("FAIL %s (timed out)\n", full);
		return 1;
	}
	if (WIFSIGNALED(status)) {
		printf("FAIL %s (killed by signal %d)\n", full, WTERMSIG(status));
		return 1;
	}
	code = WEXITSTATUS(status);
	if (code == 0) {
		printf("ok %s\n", full);
		return 0;
	}
	if (code == TH_SKIP_STATUS) {
		printf("SKIP %s\n", full);
		return 2;
	}
	printf("FAIL %s (exit %d)\n", full, code);
	return 1;
}

static inline int th_selected(const char *full, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strstr(full, argv[i]))
			return 1;
	return 0;
}

static inline int th_main(int argc, char **argv)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *env = getenv("SPAWNKIT_TEST_TIMEOUT");
	unsigned int timeout = env && atoi(env) > 0 ? (unsigned int)atoi(env) : 180;
	int list = argc > 1 && !strcmp(argv[1], "-l");
	int counts[3] = { 0, 0, 0 };
	char failed[4096] = "", full[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (const struct th_case *c = th_cases; c; c = c->next) {
		const struct th_variant *v = c->fixture ? c->fixture->variants : NULL;

		do {
			if (v)
				snprintf(full, sizeof(full), "%s.%s.%s",
					 c->fixture->name, v->name, c->name);
			else if (c->fixture)
				snprintf(full, sizeof(full), "%s.%s", c->fixture->name, c->name);
			else
				snprintf(full, sizeof(full), "%s", c->name);
			if (list) {
				printf("%s\n", full);
			} else if (th_selected(full, argc, argv)) {
				int r = th_run_one(c, v, full, timeout);

				counts[r]++;
				if (r == 1 && strlen(failed) + strlen(full) + 2 < sizeof(failed)) {
					strcat(failed, " ");
					strcat(failed, full);
				}
			}
			v = v ? v->next : NULL;
		} while (v);
	}
	if (list)
		return 0;
	printf("%s: %d passed, %d failed, %d skipped\n", prog, counts[0], counts[1], counts[2]);
	if (counts[1]) {
		printf("failed:%s\n", failed);
		return 1;
	}
	if (!counts[0] && !counts[2]) {
		printf("%s: no case ran\n", prog);
		return 1;
	}
	return counts[0] ? 0 : TH_SKIP_STATUS;
}

#define TEST_HARNESS_MAIN						\
	int main(int argc, char **argv)					\
	{								\
		return th_main(argc, argv);				\
	}

#endif

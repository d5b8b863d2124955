/* SPDX-License-Identifier: MIT */
/*
 * What a binding needs around spawnkit_run(): fds passed to the child
 * (SPAWNKIT_RUN_INHERIT_FDS with spawnkit_actions_pass_fds' actions),
 * on_signal after a signal interrupted the wait (a non-zero return stops
 * the run; the child's status is taken before the handler could reap it),
 * and SPAWNKIT_RUN_WARM, which never changes a result: a call that does not
 * fit runs cold and is counted.
 */
#include <spawnkit/warm.h>
#include <sys/time.h>
#include "run_util.h"

static volatile sig_atomic_t alarms;
static int signal_calls, stop_on_signal, reaped_elsewhere;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A SIGCHLD "handler" run from on_signal, as Python runs its handlers:
 * it reaps whatever it can, as a careless waitpid(-1) loop does. */
static void reap_all(int sig)
{
	(void)sig;
}

static int on_signal(void *ctx)
{
	int st;

	(void)ctx;
	signal_calls++;
	while (waitpid(-1, &st, WNOHANG) > 0)
		reaped_elsewhere++;
	return stop_on_signal && alarms;
}

static void catch(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;	/* no SA_RESTART: poll says EINTR */
	sigaction(sig, &sa, NULL);
}

static void alarm_in_ms(int ms)
{
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

TEST(inherit_fds_passes_an_fd_at_its_number)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct spawn_template_action act[8];
	int p[2], n, fd;
	char buf[16] = "", script[64];

	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	fd = p[1];
	n = spawnkit_actions_pass_fds(act, 8, &fd, 1);
	ASSERT_GT(n, 0);
	snprintf(script, sizeof(script), "echo passed >&%d", fd);
	spawnkit_run_opts_init(&o);
	o.flags = SPAWNKIT_RUN_INHERIT_FDS;
	o.actions = act;
	o.nr_actions = (unsigned int)n;
	EXPECT_EQ(run_sh(&o, script, &r), 0);
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	spawnkit_run_result_free(&r);
	EXPECT_EQ(read(p[0], buf, sizeof(buf) - 1), 7);
	EXPECT_STREQ(buf, "passed\n");

	/* without the flag the library closes it, as it closes every fd */
	o.flags = 0;
	EXPECT_EQ(run_sh(&o, script, &r), 0);
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0);
	spawnkit_run_result_free(&r);
	close(p[0]);
	close(p[1]);
}

/* script under on_signal, with a SIGALRM after ms; stop: on_signal's answer */
static int run_with_alarm(int stop, int ms, const char *script, struct spawnkit_run_result *r)
{
	struct spawnkit_run_opts o;

	catch(SIGALRM, on_alarm);
	stop_on_signal = stop;
	spawnkit_run_opts_init(&o);
	o.on_signal = on_signal;
	alarm_in_ms(ms);
	return run_sh(&o, script, r);
}

TEST(on_signal_nonzero_stops_the_run_and_kills_the_tree)
{
	struct spawnkit_run_result r;

	EXPECT_EQ(run_with_alarm(1, 200, "echo $$; exec sleep 1000", &r), 0);
	EXPECT_TRUE(r.why & SPAWNKIT_RUN_STOPPED);
	EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	EXPECT_GE(signal_calls, 1);
	EXPECT_LT(secs(r.elapsed_ns), 120 * slow());
	spawnkit_run_result_free(&r);
}

TEST(on_signal_zero_lets_the_run_go_on)
{
	struct spawnkit_run_result r;

	EXPECT_EQ(run_with_alarm(0, 100, "sleep 0.5; echo done", &r), 0);
	EXPECT_EQ(r.why, 0);
	EXPECT_STREQ(joined(&r.out[1]), "done\n");
	EXPECT_GE(signal_calls, 1);
	spawnkit_run_result_free(&r);
}

TEST(a_reaping_handler_in_on_signal_cannot_take_the_status)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	int i;

	catch(SIGCHLD, reap_all);
	stop_on_signal = 0;
	spawnkit_run_opts_init(&o);
	o.on_signal = on_signal;
	for (i = 0; i < 20; i++) {
		EXPECT_EQ(run_sh(&o, "exit 5", &r), 0);
		EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 5);
		spawnkit_run_result_free(&r);
	}
	EXPECT_EQ(reaped_elsewhere, 0);
}

TEST(warm_flag_runs_a_call_that_does_not_fit_cold_and_counts_it)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;
	struct spawnkit_warm_stats before, after;

	spawnkit_warm_stats(&before);
	spawnkit_run_opts_init(&o);
	o.flags = SPAWNKIT_RUN_WARM | SPAWNKIT_RUN_NO_NEW_SESSION;
	EXPECT_EQ(run_sh(&o, "echo cold", &r), 0);
	EXPECT_STREQ(joined(&r.out[1]), "cold\n");
	spawnkit_run_result_free(&r);
	spawnkit_warm_stats(&after);
	EXPECT_EQ(after.cold_fallbacks, before.cold_fallbacks + 1);
	EXPECT_EQ(after.reasons[SPAWNKIT_WARM_NOT_PYTHON],
		  before.reasons[SPAWNKIT_WARM_NOT_PYTHON] + 1);
	EXPECT_EQ(after.warm_spawns, before.warm_spawns);
}

TEST(warm_preload_without_the_warm_flag_is_einval)
{
	struct spawnkit_run_opts o;
	struct spawnkit_run_result r;

	spawnkit_run_opts_init(&o);
	o.warm_preload = "json";
	EXPECT_ERR(run_sh(&o, "true", &r), EINVAL);
}

TEST_HARNESS_MAIN

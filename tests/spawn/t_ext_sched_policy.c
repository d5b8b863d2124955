/* SPDX-License-Identifier: MIT */
/*
 * The SCHED_POLICY and SCHED_SLICE extension actions
 * (spawnkit_action_sched_policy, _sched_slice).  SCHED_POLICY: the
 * child runs the program with SCHED_OTHER, SCHED_BATCH or SCHED_IDLE, seen
 * from inside it by the probe helper ("sched POLICY NICE", "slice NS"), its
 * nice value and inherited slice kept, after the sched hold of a start;
 * leaving SCHED_IDLE needs the privilege; any other value is EINVAL from the
 * parent, no child started.  The user backend runs it; a kernel-backend
 * spawn with it is handed off (the same results), and through a kernel
 * template made from an fd it is EOPNOTSUPP.  SCHED_SLICE: the child's slice
 * under its policy then, kept by a SCHED_POLICY to SCHED_IDLE after it,
 * EINVAL from the child if it is SCHED_IDLE already, out-of-range values
 * EINVAL from the parent.
 */
#include <sched.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include "util.h"
#include "sched_attr.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static char *argv_probe[] = { "probe", NULL };

/* The probe through spawnkit_spawn_start (on the user backend the caller
 * is SCHED_BATCH for the clone and the child sets SCHED_OTHER back first),
 * its output in r->out; the start's -errno in r->pid, or the exec's when
 * the start reports one later (the child then reaped). */
static void start_capture(struct spawnkit_template *t, const struct spawn_template_action *acts,
			  unsigned int n, struct run_result *r)
{
	struct spawn_template_action all[4];
	struct spawnkit_start *s = NULL;
	int p[2], pidfd = -1;

	memset(r, 0, sizeof(*r) - sizeof(r->out));
	r->out[0] = '\0';
	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	spawnkit_action_dup2(&all[0], p[1], 1, 0);
	memcpy(&all[1], acts, n * sizeof(*acts));
	r->pid = spawnkit_spawn_start(t, argv_probe, environ, all, n + 1, 0, &pidfd, &s);
	close(p[1]);
	if (r->pid > 0) {
		int decided;

		read_output(p[0], r);
		decided = spawnkit_start_wait(s, 0);
		r->status = wait_pidfd(pidfd);
		spawnkit_start_free(s);
		if (decided < 0)
			r->pid = decided;
	}
	close(p[0]);
}

FIXTURE(pol) {
	struct spawnkit_template *t;
	struct run_result *r;
	struct spawn_template_action a[3];
	int nice;	/* ours */
};

FIXTURE_SETUP(pol)
{
	self->t = probe_template();
	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
	self->nice = getpriority(PRIO_PROCESS, 0);
	/* the suites run as SCHED_OTHER; the cases below assume it */
	ASSERT_EQ(sched_getscheduler(0), SCHED_OTHER);
}

FIXTURE_TEARDOWN(pol)
{
	spawnkit_template_destroy(self->t);
	free(self->r);
	CHECK(no_children());
}

/* Each policy anyone may set is the program's, ours untouched, through
 * both the waiting spawn and the start (whose sched hold runs first) */
TEST_F(pol, each_policy_is_the_childs)
{
	static const int pols[] = { SCHED_IDLE, SCHED_BATCH, SCHED_OTHER };
	struct run_result *r = self->r;
	unsigned int i;

	for (i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
		spawnkit_action_sched_policy(&self->a[0], pols[i]);
		spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, r);
		CHECK(r->pid > 0 && r->status == 0);
		CHECK(has_line(r, "sched %d %d", pols[i], self->nice));
		start_capture(self->t, self->a, 1, r);
		CHECK(r->pid > 0 && r->status == 0);
		CHECK(has_line(r, "sched %d %d", pols[i], self->nice));
		CHECK_EQ(sched_getscheduler(0), SCHED_OTHER);
	}
	/* two: the last one stands (OTHER -> IDLE needs nothing) */
	spawnkit_action_sched_policy(&self->a[0], SCHED_BATCH);
	spawnkit_action_sched_policy(&self->a[1], SCHED_IDLE);
	spawn_capture(self->t, argv_probe, environ, self->a, 2, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_IDLE, self->nice));
}

/* With NICE, in either order: both apply (the policy change keeps the
 * nice value, and SCHED_IDLE keeps it too, only ignoring it) */
TEST_F(pol, with_nice_in_either_order)
{
	struct run_result *r = self->r;
	int want = self->nice + 3 > 19 ? 19 : self->nice + 3;

	spawnkit_action_nice(&self->a[0], 3);
	spawnkit_action_sched_policy(&self->a[1], SCHED_IDLE);
	spawn_capture(self->t, argv_probe, environ, self->a, 2, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_IDLE, want));
	spawnkit_action_sched_policy(&self->a[0], SCHED_BATCH);
	spawnkit_action_nice(&self->a[1], 3);
	start_capture(self->t, self->a, 2, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_BATCH, want));
}

/* The slice the child inherited stays: ours if we set one without
 * reset-on-fork, the default if we set it with (spawnkit_thread_set_slice) */
TEST_F(pol, keeps_the_inherited_slice)
{
	struct run_result *r = self->r;
	struct t_sched_attr a;
	uint64_t dflt;

	if (!t_has_custom_slices())
		SKIP("no custom slices in this kernel (before 6.12): nothing to keep");
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	dflt = a.runtime;
	a.runtime = 7000000;	/* 7 ms, no reset-on-fork: inherited */
	a.flags = 0;
	ASSERT_EQ(t_sched_setattr(&a), 0);
	spawnkit_action_sched_policy(&self->a[0], SCHED_IDLE);
	spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_IDLE, self->nice));
	CHECK_EQ(dec_line(r, "slice"), 7000000);
	start_capture(self->t, self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_IDLE, self->nice));
	CHECK_EQ(dec_line(r, "slice"), 7000000);
	/* with reset-on-fork the child starts at the default */
	ASSERT_EQ(spawnkit_thread_set_slice(7000000), 0);
	start_capture(self->t, self->a, 1, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_IDLE, self->nice));
	CHECK_EQ(dec_line(r, "slice"), (long long)dflt);
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	CHECK_EQ(a.runtime, 7000000);	/* ours kept through the hold */
}

/* SCHED_SLICE: the child's slice, also through SCHED_IDLE after it (which
 * keeps it); 0 the default; ours untouched */
TEST_F(pol, slice_is_the_childs_and_idle_keeps_it)
{
	struct run_result *r = self->r;
	struct t_sched_attr a;

	if (!t_has_custom_slices()) {
		/* the kernel would ignore it: EOPNOTSUPP from the child */
		spawnkit_action_sched_slice(&self->a[0], 8000000);
		spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, r);
		CHECK_ERR(r->pid, EOPNOTSUPP);
		return;
	}
	ASSERT_EQ(t_sched_getattr(0, &a), 0);
	spawnkit_action_sched_slice(&self->a[0], 8000000);
	spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_OTHER, self->nice));
	CHECK_EQ(dec_line(r, "slice"), 8000000);
	spawnkit_action_nice(&self->a[0], 1);
	spawnkit_action_sched_slice(&self->a[1], 8000000);
	spawnkit_action_sched_policy(&self->a[2], SCHED_IDLE);
	start_capture(self->t, self->a, 3, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_IDLE, self->nice + 1 > 19 ? 19 : self->nice + 1));
	CHECK_EQ(dec_line(r, "slice"), 8000000);
	spawnkit_action_sched_slice(&self->a[0], 0);
	spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK_EQ(dec_line(r, "slice"), (long long)a.runtime);
	CHECK_EQ(t_sched_getattr(0, &a), 0);
	CHECK(a.runtime != 8000000);
}

/* After SCHED_IDLE the kernel would leave the slice alone: EINVAL, from
 * the child, and no child */
TEST_F(pol, slice_after_idle_is_einval)
{
	struct run_result *r = self->r;

	if (!t_has_custom_slices())
		SKIP("no custom slices in this kernel (before 6.12)");
	spawnkit_action_sched_policy(&self->a[0], SCHED_IDLE);
	spawnkit_action_sched_slice(&self->a[1], 8000000);
	spawn_capture(self->t, argv_probe, environ, self->a, 2, 0, r);
	CHECK_ERR(r->pid, EINVAL);
	start_capture(self->t, self->a, 2, r);
	CHECK_ERR(r->pid, EINVAL);
}

/* Leaving SCHED_IDLE (ours, inherited) needs CAP_SYS_NICE or RLIMIT_NICE:
 * with it the child may; without it, sched_setscheduler's EPERM from the
 * child, and no child.  (This case runs in a process of its own.) */
TEST_F(pol, leaving_idle_needs_the_privilege)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct sched_param zero = { 0 };
	struct rlimit none = { 0, 0 };
	struct spawnkit_template *tn;
	struct run_result *r = self->r;

	ASSERT_EQ(sched_setscheduler(0, SCHED_IDLE, &zero), 0);
	spawnkit_action_sched_policy(&self->a[0], SCHED_IDLE);
	spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, r);
	CHECK(r->pid > 0 && r->status == 0);
	CHECK(has_line(r, "sched %d %d", SCHED_IDLE, self->nice));
	ASSERT_EQ(syscall(SYS_capget, &h, d), 0);
	if (d[0].effective & (1U << CAP_SYS_NICE)) {
		spawnkit_action_sched_policy(&self->a[0], SCHED_OTHER);
		spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, r);
		CHECK(r->pid > 0 && r->status == 0);
		CHECK(has_line(r, "sched %d %d", SCHED_OTHER, self->nice));
		d[0].effective &= ~(1U << CAP_SYS_NICE);
		ASSERT_EQ(syscall(SYS_capset, &h, d), 0);
	}
	ASSERT_EQ(setrlimit(RLIMIT_NICE, &none), 0);
	/* a template made with these credentials */
	ASSERT_EQ(spawnkit_template_create(probe_path(), 0, &tn), 0);
	spawnkit_action_sched_policy(&self->a[0], SCHED_OTHER);
	spawn_capture(tn, argv_probe, environ, self->a, 1, 0, r);
	CHECK_ERR(r->pid, EPERM);
	spawnkit_action_sched_policy(&self->a[0], SCHED_BATCH);
	spawn_capture(tn, argv_probe, environ, self->a, 1, 0, r);
	CHECK_ERR(r->pid, EPERM);
	spawnkit_template_destroy(tn);
}

/* SCHED_POLICY is the user backend's alone: through a kernel template made
 * from an fd there is no path to hand it off with */
TEST_F(pol, on_a_kernel_template_from_an_fd_is_eopnotsupp)
{
	struct spawnkit_template *tf;
	int fd;

	if (!is_kernel(self->t))
		SKIP("not the kernel backend: nothing is handed off");
	fd = open(probe_path(), O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(spawnkit_template_create_fd(fd, 0, &tf), 0);
	close(fd);
	spawnkit_action_sched_policy(&self->a[0], SCHED_IDLE);
	spawn_capture(tf, argv_probe, environ, self->a, 1, 0, self->r);
	CHECK_ERR(self->r->pid, EOPNOTSUPP);
	spawnkit_template_destroy(tf);
}

/*
 * Every other value is EINVAL from the parent before anything starts: also
 * with SPAWNKIT_SPAWN_EXIT_STATUS, where a refusal in the child would be a
 * pid and exit status 1 instead.
 */
FIXTURE(badpol) {
	struct spawnkit_template *t;
	struct run_result *r;
	struct spawn_template_action a[1];
};

FIXTURE_VARIANT(badpol) {
	int policy;
	int slice;	/* non-zero: a SCHED_SLICE action of this instead */
	int newfd, flags, arg;
};

FIXTURE_VARIANT_ADD(badpol, fifo) { .policy = SCHED_FIFO };
FIXTURE_VARIANT_ADD(badpol, rr) { .policy = SCHED_RR };
FIXTURE_VARIANT_ADD(badpol, four_unused) { .policy = 4 };
FIXTURE_VARIANT_ADD(badpol, deadline) { .policy = 6 };
FIXTURE_VARIANT_ADD(badpol, ext_seven) { .policy = 7 };
FIXTURE_VARIANT_ADD(badpol, negative) { .policy = -1 };
FIXTURE_VARIANT_ADD(badpol, reset_on_fork_bit) { .policy = SCHED_RESET_ON_FORK };
FIXTURE_VARIANT_ADD(badpol, idle_with_reset_on_fork) { .policy = SCHED_IDLE | SCHED_RESET_ON_FORK };
FIXTURE_VARIANT_ADD(badpol, idle_with_a_newfd) { .policy = SCHED_IDLE, .newfd = 1 };
FIXTURE_VARIANT_ADD(badpol, idle_with_flags) { .policy = SCHED_IDLE, .flags = 1 };
FIXTURE_VARIANT_ADD(badpol, idle_with_an_arg) { .policy = SCHED_IDLE, .arg = 8 };
/* SCHED_SLICE's range: 0 or 0.1..100 ms in ns */
FIXTURE_VARIANT_ADD(badpol, slice_1ns) { .slice = 1 };
FIXTURE_VARIANT_ADD(badpol, slice_below_0_1ms) { .slice = 99999 };
FIXTURE_VARIANT_ADD(badpol, slice_above_100ms) { .slice = 100000001 };
FIXTURE_VARIANT_ADD(badpol, slice_negative) { .slice = -1 };
FIXTURE_VARIANT_ADD(badpol, slice_with_a_newfd) { .slice = 8000000, .newfd = 1 };
FIXTURE_VARIANT_ADD(badpol, slice_with_flags) { .slice = 8000000, .flags = 1 };
FIXTURE_VARIANT_ADD(badpol, slice_with_an_arg) { .slice = 8000000, .arg = 8 };

FIXTURE_SETUP(badpol)
{
	self->t = probe_template();
	self->r = malloc(sizeof(*self->r));
	ASSERT_TRUE(self->r != NULL);
}

FIXTURE_TEARDOWN(badpol)
{
	spawnkit_template_destroy(self->t);
	free(self->r);
}

TEST_F(badpol, is_einval_from_the_parent)
{
	if (variant->slice)
		spawnkit_action_sched_slice(&self->a[0], (uint32_t)variant->slice);
	else
		spawnkit_action_sched_policy(&self->a[0], variant->policy);
	self->a[0].newfd = variant->newfd;
	self->a[0].flags = (uint32_t)variant->flags;
	self->a[0].arg = (uint64_t)variant->arg;
	spawn_capture(self->t, argv_probe, environ, self->a, 1, 0, self->r);
	CHECK_ERR(self->r->pid, EINVAL);
	spawn_capture(self->t, argv_probe, environ, self->a, 1, SPAWNKIT_SPAWN_EXIT_STATUS,
		      self->r);
	CHECK_ERR(self->r->pid, EINVAL);
	start_capture(self->t, self->a, 1, self->r);
	CHECK_ERR(self->r->pid, EINVAL);
	CHECK(no_children());
}

TEST_HARNESS_MAIN

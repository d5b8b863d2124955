/* SPDX-License-Identifier: MIT */
/* Every argument rule and errno of spawn, checked before anything runs. */
#include <sys/mman.h>
#include "util.h"

static struct spawnkit_template *t;
static char *argv_probe[] = { "probe", "--quiet", NULL };

static pid_t spawn_raw(struct spawn_template_spawn_args *a, size_t size)
{
	pid_t pid = spawnkit_spawn_args(t, a, size);

	if (pid > 0) {
		int pidfd = *(int *)(uintptr_t)a->pidfd;

		wait_pidfd(pidfd);
	}
	return pid;
}

static int pidfd_slot;

static void base(struct spawn_template_spawn_args *a)
{
	memset(a, 0, sizeof(*a));
	a->flags = SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO;
	a->pidfd = (uintptr_t)&pidfd_slot;
	a->argv = (uintptr_t)argv_probe;
	a->envp = (uintptr_t)environ;
}

/* One action alone: what does spawn say about it? */
static pid_t one(const struct spawn_template_action *act)
{
	struct spawn_template_spawn_args a;

	base(&a);
	a.actions = (uintptr_t)act;
	a.actions_len = 1;
	return spawn_raw(&a, sizeof(a));
}

static void act(struct spawn_template_action *x, uint32_t type, uint32_t flags,
		int fd, int newfd, uint64_t arg)
{
	x->type = type;
	x->flags = flags;
	x->fd = fd;
	x->newfd = newfd;
	x->arg = arg;
}

/* The probe's template (t) and an unmapped page; every case ends with
 * the fds it started with and no child left. */
FIXTURE(args) {
	void *unmapped;
	int fds_before;
};

FIXTURE_SETUP(args)
{
	t = probe_template();
	self->fds_before = count_open_fds();
	self->unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(self->unmapped != MAP_FAILED);
}

FIXTURE_TEARDOWN(args)
{
	munmap(self->unmapped, 4096);
	spawnkit_template_destroy(t);
	CHECK(no_children());
	CHECK_EQ(count_open_fds(), self->fds_before - 1);	/* minus the template's */
}

TEST_F(args, valid_args_spawn)
{
	struct spawn_template_spawn_args a;

	base(&a);
	CHECK(spawn_raw(&a, sizeof(a)) > 0);
}

/* template */
TEST_F(args, null_template_is_einval)
{
	struct spawn_template_spawn_args a;

	CHECK_ERR(spawnkit_spawn_args(NULL, &a, sizeof(a)), EINVAL);
	CHECK_ERR(spawnkit_spawn(NULL, argv_probe, environ, NULL, 0, 0, NULL), EINVAL);
}

/* size rules */
TEST_F(args, args_size_rules)
{
	struct spawn_template_spawn_args a;
	unsigned char big[8192];
	void *unmapped = self->unmapped;

	base(&a);
	CHECK_ERR(spawn_raw(&a, SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0 - 1), EINVAL);
	memset(big, 0, sizeof(big));
	memcpy(big, &a, sizeof(a));
	CHECK(spawn_raw((void *)big, 200) > 0);
	CHECK_ERR(spawn_raw((void *)big, 4097), E2BIG);
	big[150] = 7;
	CHECK_ERR(spawn_raw((void *)big, 200), E2BIG);
	CHECK_ERR(spawnkit_spawn_args(t, unmapped, sizeof(a)), EFAULT);
}

/* flags, pidfd */
TEST_F(args, unknown_flags_and_pidfd_0_are_einval)
{
	struct spawn_template_spawn_args a;

	base(&a);
	a.flags |= 1ULL << 2;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EINVAL);
	base(&a);
	a.pidfd = 0;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EINVAL);
	CHECK_ERR(spawnkit_spawn(t, argv_probe, environ, NULL, 0, 1U << 5, NULL), EINVAL);
}

/* The size is the only extension: 48 bytes, and a non-zero word where v1
 * had reserved[4] (bytes 48..79) is an unknown tail: E2BIG, not EINVAL. */
TEST_F(args, v1_reserved_words_are_an_unknown_tail)
{
	union {
		struct spawn_template_spawn_args a;
		uint64_t w[10];
	} u;
	int i;

	CHECK_EQ(sizeof(u.a), 48);
	CHECK_EQ(SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0, 48);
	for (i = 6; i < 10; i++) {
		memset(&u, 0, sizeof(u));
		base(&u.a);
		u.w[i] = 1;
		CHECK_ERR(spawn_raw(&u.a, sizeof(u)), E2BIG);
	}
	base(&u.a);
	CHECK_ERR(spawn_raw(&u.a, 40), EINVAL);
}

/* action counts: > 256 E2BIG, a count without an array EINVAL */
TEST_F(args, action_count_rules)
{
	struct spawn_template_spawn_args a;
	struct spawn_template_action many[SPAWN_TEMPLATE_ACTIONS_MAX + 1];
	void *unmapped = self->unmapped;
	int i;

	base(&a);
	a.actions_len = 1;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EINVAL);
	memset(many, 0, sizeof(many));
	for (i = 0; i <= SPAWN_TEMPLATE_ACTIONS_MAX; i++)
		act(&many[i], SPAWN_TEMPLATE_ACTION_DUP2, 0, 1, 1, 0);
	a.actions = (uintptr_t)many;
	a.actions_len = SPAWN_TEMPLATE_ACTIONS_MAX + 1;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), E2BIG);
	a.actions_len = SPAWN_TEMPLATE_ACTIONS_MAX;
	CHECK(spawn_raw(&a, sizeof(a)) > 0);
	a.actions_len = ~0ULL;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), E2BIG);
	a.actions = (uintptr_t)unmapped;
	a.actions_len = 2;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EFAULT);
}

/* every field an action type does not use must be zero */
TEST_F(args, unused_fields_of_close_dup2_fchdir_must_be_zero)
{
	struct spawn_template_action x;

	act(&x, 99, 0, 0, 0, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE, 0, -1, 0, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE, 1, 50, 0, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE, 0, 50, 1, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE, 0, 50, 0, 8);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_DUP2, 0, -1, 5, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_DUP2, 0, 1, -1, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_DUP2, O_NONBLOCK, 1, 5, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_DUP2, 0, 1, 5, 8);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_DUP2, O_CLOEXEC, 1, 5, 0);
	CHECK(one(&x) > 0);
	act(&x, SPAWN_TEMPLATE_ACTION_FCHDIR, 0, -1, 0, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_FCHDIR, 0, 0, 3, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_FCHDIR, 1, 0, 0, 0);
	CHECK_ERR(one(&x), EINVAL);
}

TEST_F(args, open_action_rules)
{
	struct spawn_template_action x;
	struct spawnkit_open o;
	void *unmapped = self->unmapped;

	memset(&o, 0, sizeof(o));
	o.arg.path = (uintptr_t)"/dev/null";
	o.arg.how = (uintptr_t)&o.how;
	o.arg.how_size = sizeof(o.how);
	o.how.flags = O_RDONLY;
	act(&x, SPAWN_TEMPLATE_ACTION_OPEN, 0, AT_FDCWD, 5, (uintptr_t)&o.arg);
	CHECK(one(&x) > 0);
	act(&x, SPAWN_TEMPLATE_ACTION_OPEN, 0, AT_FDCWD - 1, 5, (uintptr_t)&o);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_OPEN, 0, AT_FDCWD, -1, (uintptr_t)&o);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_OPEN, 0, AT_FDCWD, 5, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_OPEN, 1, AT_FDCWD, 5, (uintptr_t)&o);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_OPEN, 0, AT_FDCWD, 5, (uintptr_t)unmapped);
	CHECK_ERR(one(&x), EFAULT);
}

/* open_how by pointer and size, read as openat2(2) reads it: a larger
 * struct with a zero tail is fine, a non-zero tail E2BIG, less than its
 * first 24 bytes EINVAL (v1 embedded a fixed struct open_how). */
TEST_F(args, open_how_by_size)
{
	struct spawn_template_open o = { .path = (uintptr_t)"/dev/null" };
	uint64_t how[8] = { O_RDONLY };		/* struct open_how, then a tail */
	struct spawn_template_action x;

	CHECK_EQ(sizeof(struct open_how), 24);
	o.how = (uintptr_t)how;
	o.how_size = sizeof(how);
	act(&x, SPAWN_TEMPLATE_ACTION_OPEN, 0, AT_FDCWD, 5, (uintptr_t)&o);
	CHECK(one(&x) > 0);
	how[6] = 1;
	CHECK_ERR(one(&x), E2BIG);
	how[6] = 0;
	o.how_size = 16;
	CHECK_ERR(one(&x), EINVAL);
	o.how_size = 4096 + 8;
	CHECK_ERR(one(&x), E2BIG);
	o.how_size = 24;
	o.how = 0;
	CHECK_ERR(one(&x), EINVAL);
	o.how = (uintptr_t)self->unmapped;
	CHECK_ERR(one(&x), EFAULT);
}

TEST_F(args, close_range_action_rules)
{
	struct spawn_template_action x;

	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE_RANGE, 0, 5, 4, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE_RANGE, 0, -1, 4, 0);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE_RANGE, 1, 5, 10, 0);	/* bit 0: not a flag */
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE_RANGE, 0, 5, 10, 8);
	CHECK_ERR(one(&x), EINVAL);
	act(&x, SPAWN_TEMPLATE_ACTION_CLOSE_RANGE, 0, 5, SPAWN_TEMPLATE_FD_MAX, 0);
	CHECK(one(&x) > 0);
}

TEST_F(args, sigset_action_rules)
{
	struct spawn_template_action x;
	struct spawn_template_sigset ss;
	uint64_t set = 0;
	void *unmapped = self->unmapped;
	int i;

	ss.sigset = (uintptr_t)&set;
	ss.sigsetsize = 8;
	for (i = SPAWN_TEMPLATE_ACTION_SIGMASK; i <= SPAWN_TEMPLATE_ACTION_SIGDEFAULT; i++) {
		act(&x, i, 0, 0, 0, (uintptr_t)&ss);
		CHECK(one(&x) > 0);
		act(&x, i, 0, 0, 0, 0);
		CHECK_ERR(one(&x), EINVAL);
		act(&x, i, 0, 1, 0, (uintptr_t)&ss);
		CHECK_ERR(one(&x), EINVAL);
		act(&x, i, 1, 0, 0, (uintptr_t)&ss);
		CHECK_ERR(one(&x), EINVAL);
		act(&x, i, 0, 0, 1, (uintptr_t)&ss);
		CHECK_ERR(one(&x), EINVAL);
		act(&x, i, 0, 0, 0, (uintptr_t)unmapped);
		CHECK_ERR(one(&x), EFAULT);
		ss.sigsetsize = 16;
		act(&x, i, 0, 0, 0, (uintptr_t)&ss);
		CHECK_ERR(one(&x), EINVAL);
		ss.sigsetsize = 4;
		CHECK_ERR(one(&x), EINVAL);
		ss.sigsetsize = 8;
		ss.sigset = (uintptr_t)unmapped;
		CHECK_ERR(one(&x), EFAULT);
		ss.sigset = (uintptr_t)&set;
	}
}

/* a bad action anywhere stops the spawn before anything runs */
TEST_F(args, bad_action_anywhere_stops_spawn)
{
	struct spawn_template_spawn_args a;
	struct spawn_template_action many[SPAWN_TEMPLATE_ACTIONS_MAX + 1];

	act(&many[0], SPAWN_TEMPLATE_ACTION_DUP2, 0, 1, 1, 0);
	act(&many[1], SPAWN_TEMPLATE_ACTION_DUP2, 0, 1, 1, 0);
	act(&many[2], SPAWN_TEMPLATE_ACTION_CLOSE, 0, -3, 0, 0);
	base(&a);
	a.actions = (uintptr_t)many;
	a.actions_len = 3;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EINVAL);
}

/* bad pointers in argv/envp/pidfd: errors, not crashes */
TEST_F(args, bad_pointers_are_efault)
{
	struct spawn_template_spawn_args a;
	void *unmapped = self->unmapped;

	base(&a);
	a.pidfd = (uintptr_t)unmapped;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EFAULT);
	base(&a);
	a.argv = (uintptr_t)unmapped;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EFAULT);
	base(&a);
	a.envp = (uintptr_t)unmapped;
	CHECK_ERR(spawn_raw(&a, sizeof(a)), EFAULT);
	{
		char *bad_argv[] = { "probe", unmapped, NULL };

		CHECK_ERR(spawnkit_spawn(t, bad_argv, environ, NULL, 0, 0, NULL), EFAULT);
	}
}

TEST_HARNESS_MAIN

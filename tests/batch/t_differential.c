/* SPDX-License-Identifier: MIT */
/*
 * Differential test: a table of programs, each run on every backend
 * available here from the same fresh state; results, return value and the
 * data the calls produced must equal the emulator's.  The table says which
 * programs io_uring can express: for those the uring backend must run them,
 * for the others it must answer -EOPNOTSUPP (and run nothing).
 */
#include <string.h>
#include <sys/stat.h>
#include "bt.h"

#define MAXN 1024

/* Fresh state for one run of one program. */
struct ctx {
	char dir[64], file[80], sub[80], missing[80], newf[80];
	int pipefd[2];
	char buf[4][64];
	struct statx stx[4];
	struct stat st;
	int64_t word;
};

struct prog {
	const char *name;
	int uring;	/* io_uring must express it */
	unsigned int (*build)(struct batch_entry *e, int64_t *res, struct ctx *c);
};

static unsigned int p_chain(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = bt_positive(); e[1] = bt_zero(); e[2] = bt_error(); e[3] = bt_positive();
	spawnkit_batch_end_on_error(&e[2]);
	return 4;
}

static unsigned int p_skips(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	for (int i = 0; i < 8; i++)
		e[i] = i % 3 == 0 ? bt_error() : i % 3 == 1 ? bt_zero() : bt_positive();
	spawnkit_batch_jump(&e[0], BATCH_ON_ERROR, 0);
	spawnkit_batch_jump(&e[1], BATCH_ON_ZERO, 2);
	spawnkit_batch_jump(&e[4], BATCH_ON_ZERO, 0xfff0);
	return 8;
}

static unsigned int p_last_jumps(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = bt_positive(); e[1] = bt_positive();
	spawnkit_batch_jump(&e[1], BATCH_ON_POSITIVE, 9);
	return 2;
}

static unsigned int fd_chain(struct batch_entry *e, int64_t *res, struct ctx *c,
			     const char *path, int fstat)
{
	e[0] = BATCH_CALL4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	spawnkit_batch_end_on_error(&e[0]);
	for (int k = 0; k < 3; k++)
		spawnkit_batch_end_on_error(spawnkit_batch_pass_result(&e[1 + k], res, 0,
								      e, 4 + k, 0));
	e[4] = fstat ? BATCH_CALL2(SYS_fstat, -1, &c->st)
		     : BATCH_CALL5(SYS_statx, -1, "", AT_EMPTY_PATH, STATX_BASIC_STATS,
				   &c->stx[0]);
	e[5] = BATCH_CALL3(SYS_read, -1, c->buf[0], sizeof(c->buf[0]));
	e[6] = BATCH_CALL1(SYS_close, -1);
	return 7;
}

static unsigned int p_fd_statx(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	return fd_chain(e, res, c, c->file, 0);
}

static unsigned int p_fd_fstat(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	return fd_chain(e, res, c, c->file, 1);
}

static unsigned int p_fd_missing(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	return fd_chain(e, res, c, c->missing, 0);
}

static unsigned int p_dirs(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = BATCH_CALL3(SYS_mkdirat, AT_FDCWD, c->sub, 0700);
	e[1] = BATCH_CALL3(SYS_mkdirat, AT_FDCWD, c->sub, 0700);	/* EEXIST */
	e[2] = BATCH_CALL3(SYS_unlinkat, AT_FDCWD, c->sub, 0);		/* EISDIR */
	e[3] = BATCH_CALL3(SYS_unlinkat, AT_FDCWD, c->sub, AT_REMOVEDIR);
	e[4] = BATCH_CALL3(SYS_unlinkat, AT_FDCWD, c->sub, AT_REMOVEDIR); /* ENOENT */
	e[5] = BATCH_CALL3(SYS_unlinkat, AT_FDCWD, c->missing, 0x4000);	/* EINVAL */
	return 6;
}

static unsigned int p_create_write(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = BATCH_CALL4(SYS_openat, AT_FDCWD, c->newf, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			   0600);
	spawnkit_batch_end_on_error(&e[0]);
	for (int k = 0; k < 6; k++)
		spawnkit_batch_end_on_error(spawnkit_batch_pass_result(&e[1 + k], res, 0,
								      e, 7 + k, 0));
	e[7] = BATCH_CALL3(SYS_write, -1, "hello batch", 11);
	e[8] = BATCH_CALL1(SYS_fsync, -1);
	e[9] = BATCH_CALL1(SYS_fdatasync, -1);
	e[10] = BATCH_CALL4(SYS_pread64, -1, c->buf[1], 64, 6);
	e[11] = BATCH_CALL4(SYS_pwrite64, -1, "!", 1, 11);
	e[12] = BATCH_CALL1(SYS_close, -1);
	e[13] = BATCH_CALL4(SYS_openat, AT_FDCWD, c->newf, O_RDWR | O_CREAT | O_EXCL, 0600);
	e[14] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->newf, 0, STATX_BASIC_STATS, &c->stx[1]);
	e[15] = BATCH_CALL3(SYS_unlinkat, AT_FDCWD, c->newf, 0);
	return 16;
}

static unsigned int p_sweep(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->file, AT_SYMLINK_NOFOLLOW,
			   STATX_BASIC_STATS, &c->stx[0]);
	e[1] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->missing, 0, STATX_BASIC_STATS, &c->stx[1]);
	e[2] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->dir, 0, STATX_BASIC_STATS, &c->stx[2]);
	e[3] = BATCH_CALL5(SYS_statx, AT_FDCWD, "", 0, STATX_BASIC_STATS, &c->stx[3]);
	return 4;
}

/* statx into one shared buffer: the last one's data must win (so these
 * cannot run in parallel). */
static unsigned int p_sweep_shared(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->dir, 0, STATX_BASIC_STATS, &c->stx[0]);
	e[1] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->file, 0, STATX_BASIC_STATS, &c->stx[0]);
	e[2] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->missing, 0, STATX_BASIC_STATS, &c->stx[0]);
	e[3] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->dir, 0, STATX_BASIC_STATS, &c->stx[1]);
	e[4] = BATCH_CALL5(SYS_statx, AT_FDCWD, c->file, 0, STATX_BASIC_STATS, &c->stx[0]);
	return 5;
}

static unsigned int p_deny(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = BATCH_CALL0(SYS_fork);
	e[1] = BATCH_CALL0(999);
	e[2] = BATCH_CALL0((1ULL << 32) + SYS_getpid);
	e[3] = BATCH_CALL0(SYS_getpid);
	e[4] = bt_positive();
	e[4].flags = 2;
	return 5;
}

static unsigned int p_copies(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	c->word = 42;
	e[0] = BATCH_WORDCOPY(NULL, &c->word);			/* EFAULT, next */
	e[1] = BATCH_WORDCOPY(&res[0], &c->word);		/* -EFAULT out */
	e[2] = BATCH_WORDCOPY((uintptr_t)&res[5] - 3, &c->word);	/* EINVAL */
	e[3] = bt_positive();
	e[4] = BATCH_WORDCOPY(&res[3], &res[6]);
	e[5] = bt_zero();
	return 5;
}

static unsigned int p_short(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	e[0] = BATCH_CALL3(SYS_read, c->pipefd[0], c->buf[0], 8);
	e[1] = BATCH_CALL3(SYS_write, c->pipefd[1], "ab", 2);
	e[2] = BATCH_CALL3(SYS_read, c->pipefd[0], c->buf[2], 8);
	e[3] = BATCH_CALL3(SYS_write, c->pipefd[1], "x", 1);
	e[4] = BATCH_CALL3(SYS_read, c->pipefd[0], c->buf[3], 8);
	for (int i = 0; i < 5; i++)
		spawnkit_batch_end_on_error(&e[i]);
	return 5;
}

static unsigned int p_first_success(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	const char *cands[3] = { c->missing, c->sub, c->file };

	for (int i = 0; i < 3; i++) {
		e[i] = BATCH_CALL4(SYS_faccessat2, AT_FDCWD, cands[i], R_OK, AT_EACCESS);
		spawnkit_batch_end_on_success(&e[i]);
	}
	return 3;
}

static unsigned int p_long(struct batch_entry *e, int64_t *res, struct ctx *c)
{
	for (int i = 0; i < MAXN; i++) {
		e[i] = i % 2 ? bt_positive() : bt_zero();
		spawnkit_batch_end_on_error(&e[i]);
	}
	e[MAXN - 10] = bt_error();
	spawnkit_batch_end_on_error(&e[MAXN - 10]);
	return MAXN;
}

static const struct prog progs[] = {
	{ "chain", 1, p_chain },
	{ "skips", 0, p_skips },
	{ "last-entry jumps", 1, p_last_jumps },
	{ "openat-statx-read-close", 1, p_fd_statx },
	{ "openat-fstat-read-close", 0, p_fd_fstat },
	{ "openat missing", 1, p_fd_missing },
	{ "mkdirat/unlinkat", 1, p_dirs },
	{ "create-write-sync-pread-close", 1, p_create_write },
	{ "statx sweep", 1, p_sweep },
	{ "statx into one buffer", 1, p_sweep_shared },
	{ "denied and unknown", 0, p_deny },
	{ "word copies", 1, p_copies },
	{ "short reads", 1, p_short },
	{ "first success", 0, p_first_success },
	{ "1024 entries", 1, p_long },
};

struct outcome {
	long ret;
	int64_t res[MAXN];
	char buf[4][64];
	uint64_t stx[4][3];	/* size, mode, nlink: the fields stable across runs */
	uint64_t st_size;
	int64_t word;
};

static void setup(struct ctx *c)
{
	int fd;

	memset(c, 0, sizeof(*c));
	strcpy(c->dir, "/tmp/spawnkit-diff-XXXXXX");
	if (!mkdtemp(c->dir))
		exit(1);
	snprintf(c->file, sizeof(c->file), "%s/file", c->dir);
	snprintf(c->sub, sizeof(c->sub), "%s/sub", c->dir);
	snprintf(c->missing, sizeof(c->missing), "%s/missing", c->dir);
	snprintf(c->newf, sizeof(c->newf), "%s/new", c->dir);
	fd = open(c->file, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, "the same bytes on every backend\n", 32) != 32)
		exit(1);
	close(fd);
	if (pipe(c->pipefd) != 0 || write(c->pipefd[1], "12345", 5) != 5)
		exit(1);
}

static void teardown(struct ctx *c)
{
	close(c->pipefd[0]);
	close(c->pipefd[1]);
	unlink(c->file);
	unlink(c->newf);
	rmdir(c->sub);
	rmdir(c->dir);
}

static void run(const struct prog *p, int backend, struct outcome *o)
{
	static struct batch_entry e[MAXN];
	struct ctx c;
	unsigned int n;

	setup(&c);
	memset(o, 0, sizeof(*o));
	memset(e, 0, sizeof(e));
	n = p->build(e, o->res, &c);
	for (unsigned int i = 0; i < n; i++)
		o->res[i] = BT_MARK;
	o->ret = spawnkit_batch_run(backend, e, o->res, n, 0);
	memcpy(o->buf, c.buf, sizeof(o->buf));
	for (int i = 0; i < 4; i++) {
		o->stx[i][0] = c.stx[i].stx_size;
		o->stx[i][1] = c.stx[i].stx_mode;
		o->stx[i][2] = c.stx[i].stx_nlink;
	}
	o->st_size = c.st.st_size;
	o->word = c.word;
	teardown(&c);
}

/* One variant a program of the table; the emulator's run is the reference. */
FIXTURE(diff) {
	struct outcome ref, got;
};

FIXTURE_VARIANT(diff) {
	const struct prog *p;
};

FIXTURE_VARIANT_ADD(diff, chain) { .p = &progs[0] };
FIXTURE_VARIANT_ADD(diff, skips) { .p = &progs[1] };
FIXTURE_VARIANT_ADD(diff, last_entry_jumps) { .p = &progs[2] };
FIXTURE_VARIANT_ADD(diff, openat_statx_read_close) { .p = &progs[3] };
FIXTURE_VARIANT_ADD(diff, openat_fstat_read_close) { .p = &progs[4] };
FIXTURE_VARIANT_ADD(diff, openat_missing) { .p = &progs[5] };
FIXTURE_VARIANT_ADD(diff, mkdirat_unlinkat) { .p = &progs[6] };
FIXTURE_VARIANT_ADD(diff, create_write_sync_pread_close) { .p = &progs[7] };
FIXTURE_VARIANT_ADD(diff, statx_sweep) { .p = &progs[8] };
FIXTURE_VARIANT_ADD(diff, statx_into_one_buffer) { .p = &progs[9] };
FIXTURE_VARIANT_ADD(diff, denied_and_unknown) { .p = &progs[10] };
FIXTURE_VARIANT_ADD(diff, word_copies) { .p = &progs[11] };
FIXTURE_VARIANT_ADD(diff, short_reads) { .p = &progs[12] };
FIXTURE_VARIANT_ADD(diff, first_success) { .p = &progs[13] };
FIXTURE_VARIANT_ADD(diff, entries_1024) { .p = &progs[14] };

FIXTURE_SETUP(diff)
{
	bt_init();
	run(variant->p, SPAWNKIT_BATCH_EMULATOR, &self->ref);
}

FIXTURE_TEARDOWN(diff)
{
}

TEST_F(diff, emulator_runs_it)
{
	CHECK(self->ref.ret >= 0);
}

/* Every other backend here gives the emulator's results and data, or
 * (uring, a program it cannot express) -EOPNOTSUPP having run nothing. */
TEST_F(diff, other_backends_match_emulator)
{
	static const int backends[2] = { SPAWNKIT_BATCH_URING, SPAWNKIT_BATCH_KERNEL };
	const struct outcome *ref = &self->ref;
	struct outcome *got = &self->got;
	int ran = 0;

	for (int b = 0; b < 2; b++) {
		if (!spawnkit_batch_backend_available(backends[b]))
			continue;
		ran++;
		run(variant->p, backends[b], got);
		if (backends[b] == SPAWNKIT_BATCH_URING && !variant->p->uring) {
			CHECK_ERR(got->ret, EOPNOTSUPP);
			CHECK_EQ(got->res[0], BT_MARK);
			continue;
		}
		if (got->ret != ref->ret || memcmp(got->res, ref->res, sizeof(ref->res)) ||
		    memcmp(got->buf, ref->buf, sizeof(ref->buf)) ||
		    memcmp(got->stx, ref->stx, sizeof(ref->stx)) ||
		    got->st_size != ref->st_size || got->word != ref->word) {
			fprintf(stderr, "program \"%s\" differs on %s:\n", variant->p->name,
				spawnkit_batch_backend_name(backends[b]));
			fprintf(stderr, "  ret %ld vs emulator %ld\n", got->ret, ref->ret);
			for (int i = 0; i < MAXN; i++)
				if (got->res[i] != ref->res[i])
					fprintf(stderr, "  res[%d] %lld vs %lld\n", i,
						(long long)got->res[i],
						(long long)ref->res[i]);
		}
		CHECK_EQ(got->ret, ref->ret);
		CHECK(memcmp(got->res, ref->res, sizeof(ref->res)) == 0);
		CHECK(memcmp(got->buf, ref->buf, sizeof(ref->buf)) == 0);
		CHECK(memcmp(got->stx, ref->stx, sizeof(ref->stx)) == 0);
		CHECK_EQ(got->st_size, ref->st_size);
		CHECK_EQ(got->word, ref->word);
	}
	if (!ran)
		SKIP("only the emulator is available here; nothing to compare");
}

TEST_HARNESS_MAIN

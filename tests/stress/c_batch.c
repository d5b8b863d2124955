/* SPDX-License-Identifier: MIT */
/*
 * c_batch - syscall batches against a reference model, on every batch
 * backend this host has: every syscall number that does not run (calls off
 * the allow-list, the holes and the end of the table, numbers past 32
 * bits), every jump value
 * in generated programs, self-modifying programs (word copies that rewrite
 * a later entry's number, jumps, arguments, or a later word copy), arrays
 * that are NULL, unmapped or read-only from the start or become unwritable
 * through the batch's own mprotect/munmap, and many threads at once.
 *
 * The model (model_run) is the ABI of batch_abi.h written out plainly: a
 * working copy of the entries, each real sub-call made with syscall(2).
 * io_uring may refuse a program as a whole (EOPNOTSUPP): counted, not wrong.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <spawnkit/batch.h>
#include "stress.h"

#define MAXN 16
static const unsigned short kJumps[] = { 0, 0, 0, 1, 2, 3, 7, 15, 16, 0xfffe, BATCH_JUMP_END };

static int backends[4], nbackends;

static void find_backends(void)
{
	int b;

	nbackends = 0;
	for (b = SPAWNKIT_BATCH_EMULATOR; b <= SPAWNKIT_BATCH_KERNEL; b++)
		if (spawnkit_batch_backend_available(b))
			backends[nbackends++] = b;
}

static const char *bname(int b)
{
	return spawnkit_batch_backend_name(b);
}

/* The slot of a number that does not run, for the numbers gen() makes:
 * past every table (ENOSYS), or a call off the allow-list (EOPNOTSUPP);
 * 0 for the calls of the list it makes. */
static int64_t refused(uint64_t nr)
{
	if (nr >= 1024)
		return -ENOSYS;
	switch (nr) {
	case SYS_getppid: case SYS_sched_yield: case SYS_close:
		return 0;
	}
	return -EOPNOTSUPP;
}

static unsigned int kind(int64_t r)
{
	return r >= -4095 && r <= -1 ? BATCH_ON_ERROR : r == 0 ? BATCH_ON_ZERO : BATCH_ON_POSITIVE;
}

static int known(uint64_t a);

/* Translate an address in the caller's arrays to the model's copies. */
static void *xlate(uint64_t a, const struct batch_entry *e, struct batch_entry *we,
		   const int64_t *r, int64_t *wr, unsigned int n, int *bad)
{
	uintptr_t eb = (uintptr_t)e, ee = eb + n * sizeof(*e);
	uintptr_t rb = (uintptr_t)r, re = rb + n * sizeof(*r);

	if (a + 8 > eb && a < ee) {
		if (a < eb || a + 8 > ee)
			*bad = 1;
		return (char *)we + (a - eb);
	}
	if (a + 8 > rb && a < re) {
		if (a < rb || a + 8 > re)
			*bad = 1;
		return (char *)wr + (a - rb);
	}
	/* anything else a program of gen() names is either known memory or
	 * a number used as an address (a pid, 0, -errno): nothing mapped */
	return known(a) ? (void *)(uintptr_t)a : NULL;
}

/* The reference: what batch_abi.h says the program does. */
static long model_run(const struct batch_entry *e, const int64_t *res_addr,
		      int64_t *out, unsigned int n)
{
	struct batch_entry w[MAXN];
	unsigned int i = 0, k, last = 0;
	char ran[MAXN] = { 0 };

	memcpy(w, e, n * sizeof(*e));
	for (k = 0; k < n; k++)
		out[k] = -ECANCELED;
	while (i < n) {
		struct batch_entry c = w[i];
		int64_t v;

		if (c.flags)
			v = -EINVAL;
		else if (c.nr == BATCH_NR_WORDCOPY) {
			int bad = 0;
			void *src, *dst;

			for (k = 2; k < 6; k++)
				bad |= c.args[k] != 0;
			src = xlate(c.args[0], e, w, res_addr, out, n, &bad);
			dst = xlate(c.args[1], e, w, res_addr, out, n, &bad);
			if (bad)
				v = -EINVAL;
			else if (!src || !dst)
				v = -EFAULT;
			else {
				memmove(dst, src, 8);
				v = 0;
			}
		} else if (refused(c.nr))
			v = refused(c.nr);
		else
			v = syscall((long)c.nr, c.args[0], c.args[1], c.args[2], c.args[3],
				    c.args[4], c.args[5]) < 0 ? -errno : 0;
		if (!c.flags && c.nr == SYS_getppid)
			v = getppid();
		out[i] = v;
		ran[i] = 1;
		last = i;
		k = c.jump[kind(v)];
		if (k == BATCH_JUMP_END)
			break;
		i = i + 1 + k;
	}
	/* a word copy may have written the slot of an entry that never ran */
	for (k = 0; k < n; k++)
		if (!ran[k])
			out[k] = -ECANCELED;
	return last;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Words a word copy may take from outside the arrays: safe syscall numbers
 * and jump words, so that a rewritten entry never runs anything harmful,
 * and addresses (of scratch words and of the results) for a rewritten word
 * copy to read or write.  scratch is reset before every run. */
static uint64_t pool[8], addrs[4], scratch[2];

static void fill_pool(const int64_t *res, unsigned int n)
{
	pool[0] = SYS_getppid;
	pool[1] = SYS_sched_yield;
	pool[2] = SYS_fork;			/* off the allow-list */
	pool[3] = 1ULL << 33;			/* no such call */
	pool[4] = 0;				/* jumps all "next", flags 0 */
	pool[5] = 0x0000ffff0000ffffULL;	/* error and positive end it */
	pool[6] = 0x0001000000000000ULL;	/* flags 1: EINVAL */
	pool[7] = 0x0000000200010000ULL;	/* zero skips 1, positive 2 */
	addrs[0] = BATCH_ARG(&scratch[0]);
	addrs[1] = BATCH_ARG(&scratch[1]);
	addrs[2] = BATCH_ARG(&res[0]);
	addrs[3] = BATCH_ARG(&res[n - 1]);
}

static void reset_scratch(void)
{
	scratch[0] = 0x1111;
	scratch[1] = 0x2222;
}

/* Is [a, a+8) memory the model may touch (pool, addresses, scratch)? */
static int known(uint64_t a)
{
	return (a >= BATCH_ARG(pool) && a + 8 <= BATCH_ARG(pool + 8)) ||
	       (a >= BATCH_ARG(addrs) && a + 8 <= BATCH_ARG(addrs + 4)) ||
	       (a >= BATCH_ARG(scratch) && a + 8 <= BATCH_ARG(scratch + 2));
}

/* A random program of n entries (some self-modifying), in e. */
static void gen(struct batch_entry *e, const int64_t *res, unsigned int n)
{
	unsigned int i, k, j;

	memset(e, 0, n * sizeof(*e));
	for (i = 0; i < n; i++) {
		switch (rnd() % 8) {
		case 0: case 1:
			e[i].nr = SYS_getppid;
			break;
		case 2:
			e[i].nr = SYS_sched_yield;
			break;
		case 3:
			e[i].nr = SYS_close;
			e[i].args[0] = (uint64_t)-1;	/* EBADF */
			break;
		case 4:
			e[i].nr = rnd() % 2 ? SYS_fork : 100000 + rnd() % 1000;
			break;
		default:
			e[i].nr = BATCH_NR_WORDCOPY;
			j = i + 1 + (unsigned int)(rnd() % (n - i + 1));	/* may be past the end */
			if (j >= n || rnd() % 8 == 0) {
				/* result to result (or a straddling address) */
				e[i].args[0] = BATCH_ARG(&res[rnd() % n]);
				e[i].args[1] = BATCH_ARG(&res[rnd() % n]) + (rnd() % 6 == 0 ? 4 : 0);
				break;
			}
			switch (rnd() % 4) {
			case 0:		/* a later entry's number */
				e[i].args[0] = BATCH_ARG(&pool[rnd() % 4]);
				e[i].args[1] = BATCH_ARG(&e[j].nr);
				break;
			case 1:		/* a later entry's jumps and flags */
				e[i].args[0] = BATCH_ARG(&pool[4 + rnd() % 4]);
				e[i].args[1] = BATCH_ARG(&e[j].jump[0]);
				break;
			case 2:		/* a result into a later entry's unused argument */
				e[i].args[0] = BATCH_ARG(&res[rnd() % n]);
				e[i].args[1] = BATCH_ARG(&e[j].args[1 + rnd() % 5]);
				break;
			default:	/* a later word copy's source or destination */
				e[i].args[0] = BATCH_ARG(&addrs[rnd() % 4]);
				e[i].args[1] = BATCH_ARG(&e[j].args[rnd() % 2]);
				break;
			}
			if (rnd() % 16 == 0)
				e[i].args[2 + rnd() % 4] = 1;	/* EINVAL */
		}
		for (k = 0; k < 3; k++)
			e[i].jump[k] = kJumps[rnd() % (sizeof(kJumps) / sizeof(kJumps[0]))];
		if (rnd() % 24 == 0)
			e[i].flags = 1;
	}
}

static int same_results(const int64_t *a, const int64_t *b, unsigned int n)
{
	return !memcmp(a, b, n * sizeof(*a));
}

/* The program and both results, for the log (stderr). */
static void dump(const struct batch_entry *e, const int64_t *got, const int64_t *want,
		 unsigned int n)
{
	unsigned int i;

	fprintf(stderr, "  entries at %p, results at %p\n", (void *)e, (void *)got);
	for (i = 0; i < n; i++)
		fprintf(stderr, "  [%u] nr %#llx args %#llx %#llx jumps %u %u %u flags %u: "
			"got %lld want %lld\n", i, (unsigned long long)e[i].nr,
			(unsigned long long)e[i].args[0], (unsigned long long)e[i].args[1],
			e[i].jump[0], e[i].jump[1], e[i].jump[2], e[i].flags,
			(long long)got[i], (long long)want[i]);
}

/* Generated programs on every backend, against the model. */
static int generated_programs(void)
{
	struct batch_entry e[MAXN], copy[MAXN];
	int64_t res[MAXN], want[MAXN];
	long runs = scaled(500), i, ran = 0, refused[4] = { 0 }, wrong = 0;
	int b;

	find_backends();
	rng_state ^= (uint64_t)env_long("STRESS_SEED", 1);
	for (i = 0; i < runs; i++) {
		unsigned int n = 1 + (unsigned int)(rnd() % MAXN);
		long got, exp;

		fill_pool(res, n);
		gen(e, res, n);
		memcpy(copy, e, n * sizeof(*e));
		reset_scratch();
		exp = model_run(e, res, want, n);
		for (b = 0; b < nbackends; b++) {
			reset_scratch();
			memset(res, 0x5a, sizeof(res));
			got = spawnkit_batch_run(backends[b], e, res, n, 0);
			if (got == -EOPNOTSUPP && backends[b] == SPAWNKIT_BATCH_URING) {
				refused[b]++;
				continue;
			}
			ran++;
			if (got != exp || !same_results(res, want, n) ||
			    memcmp(copy, e, n * sizeof(*e))) {
				if (!wrong++) {
					note_add("%s program %ld (n %u): returned %ld want %ld",
						 bname(backends[b]), i, n, got, exp);
					dump(e, res, want, n);
				}
			}
		}
	}
	note_add("%ld programs x %d backends: %ld runs compared, %ld wrong", runs, nbackends,
		 ran, wrong);
	for (b = 0; b < nbackends; b++)
		if (refused[b])
			note_add("%s refused %ld", bname(backends[b]), refused[b]);
	return wrong ? SV_WRONG : SV_OK;
}

/* Every jump value from an entry of each result kind, in a 6-entry
 * program (0..7 covers every target and past the end, then the largest
 * skip and END), against the model. */
static int every_jump(void)
{
	const uint64_t calls[3][2] = { { SYS_close, (uint64_t)-1 }, { SYS_sched_yield, 0 },
				       { SYS_getppid, 0 } };
	struct batch_entry e[6];
	int64_t res[6], want[6];
	unsigned int k, j, pos, i, n = 6;
	int b, cases = 0, bad = 0;
	long got, exp;

	find_backends();
	for (k = 0; k < 3; k++)
		for (pos = 0; pos < n; pos++)
			for (j = 0; j < 10; j++) {
				unsigned short jv = j < 8 ? (unsigned short)j : j == 8 ? 0xfffe : 0xffff;

				for (i = 0; i < n; i++)
					e[i] = (struct batch_entry)BATCH_CALL0(SYS_getppid);
				e[pos] = (struct batch_entry)BATCH_CALL1(calls[k][0], calls[k][1]);
				e[pos].jump[k] = jv;
				exp = model_run(e, res, want, n);
				for (b = 0; b < nbackends; b++) {
					memset(res, 0, sizeof(res));
					got = spawnkit_batch_run(backends[b], e, res, n, 0);
					if (got == -EOPNOTSUPP && backends[b] == SPAWNKIT_BATCH_URING)
						continue;
					cases++;
					if (got != exp || !same_results(res, want, n)) {
						if (!bad++)
							note_add("%s: kind %u at %u jump %u: returned "
								 "%ld want %ld", bname(backends[b]),
								 k, pos, jv, got, exp);
					}
				}
			}
	note_add("%d runs compared, %d wrong", cases, bad);
	return bad ? SV_WRONG : SV_OK;
}

/* Every number that does not run: the calls off the allow-list that must
 * never run, and x86_64's reserved hole (336-423, kept free to line up with
 * other architectures: part of the table, so off the list too) give
 * EOPNOTSUPP; 600-1023 past the table's end and numbers past 32 bits give
 * ENOSYS, as syscall(2) does.  Each hole and end number is checked to be
 * ENOSYS for syscall(2) itself first. */
static int invalid_numbers(void)
{
	static struct batch_entry e[BATCH_MAX_ENTRIES];
	static int64_t res[BATCH_MAX_ENTRIES], want[BATCH_MAX_ENTRIES];
	uint64_t extra[] = { 1ULL << 31, 1ULL << 32 | 1, 1ULL << 33, 1ULL << 63, ~0ULL,
			     BATCH_NR_WORDCOPY - 1 };
	uint64_t off[] = { SYS_fork, SYS_vfork, SYS_clone, SYS_clone3, SYS_execve,
			   SYS_execveat, SYS_exit, SYS_exit_group, SYS_rt_sigreturn,
			   SYS_restart_syscall };
	unsigned int n = 0, i;
	long nr, got;
	int b, bad = 0;

	find_backends();
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		want[n] = -EOPNOTSUPP;
		e[n++].nr = off[i];
	}
	for (nr = 336; nr < 1024; nr++) {
		if (nr == 424)
			nr = 600;
		if (syscall(nr, 0, 0, 0, 0, 0, 0) == -1 && errno == ENOSYS) {
			want[n] = nr < 424 ? -EOPNOTSUPP : -ENOSYS;
			e[n++].nr = (uint64_t)nr;
		}
	}
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		want[n] = -ENOSYS;
		e[n++].nr = extra[i];
	}
	for (b = 0; b < nbackends; b++) {
		memset(res, 0, sizeof(res));
		got = spawnkit_batch_run(backends[b], e, res, n, 0);
		if (got == -EOPNOTSUPP && backends[b] == SPAWNKIT_BATCH_URING) {
			note_add("uring refuses it as a whole");
			continue;
		}
		if (got != (long)n - 1) {
			bad++;
			note_add("%s: returned %ld, want %u", bname(backends[b]), got, n - 1);
		}
		for (i = 0; i < n; i++)
			if (res[i] != want[i]) {
				bad++;
				note_add("%s: nr %#llx gave %lld, want %lld", bname(backends[b]),
					 (unsigned long long)e[i].nr, (long long)res[i],
					 (long long)want[i]);
				break;
			}
	}
	note_add("%u numbers that do not run x %d backends", n, nbackends);
	return bad ? SV_WRONG : SV_OK;
}

/* Whole-call errors: NULL, unmapped, read-only arrays; bad count/flags. */
static int bad_arrays(void)
{
	struct batch_entry e[2] = { BATCH_CALL0(SYS_getppid), BATCH_CALL0(SYS_getppid) };
	int64_t res[2];
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct { const char *what; const void *e; void *r; unsigned int n, f; long want; } c[] = {
		{ "entries NULL", NULL, res, 2, 0, -EFAULT },
		{ "results NULL", e, NULL, 2, 0, -EFAULT },
		{ "results read-only", e, ro, 2, 0, -EFAULT },
		{ "entries unmapped", gone, res, 2, 0, -EFAULT },
		{ "results unmapped", e, gone, 2, 0, -EFAULT },
		{ "count 0", e, res, 0, 0, -EINVAL },
		{ "count 1025", e, res, BATCH_MAX_ENTRIES + 1, 0, -E2BIG },
		{ "flags 1", e, res, 2, 1, -EINVAL },
	};
	unsigned int i;
	int b, bad = 0;
	long got;

	find_backends();
	munmap(gone, 4096);
	for (b = 0; b < nbackends; b++)
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			got = spawnkit_batch_run(backends[b], c[i].e, c[i].r, c[i].n, c[i].f);
			if (got != c[i].want) {
				bad++;
				note_add("%s %s: %ld want %ld", bname(backends[b]), c[i].what,
					 got, c[i].want);
			}
		}
	if (!bad)
		note("%zu cases x %d backends", sizeof(c) / sizeof(c[0]), nbackends);
	return bad ? SV_WRONG : SV_OK;
}

/* The batch's own mprotect/munmap makes its results (or entries) array
 * unwritable (unreadable) halfway: -EFAULT for the call, never a crash. */
static int arrays_become_unwritable(void)
{
	const int prots[] = { PROT_READ, PROT_NONE };
	int b, p, bad = 0, cases = 0;
	long got;

	find_backends();
	for (b = 0; b < nbackends; b++)
		for (p = 0; p < 3; p++) {
			int64_t *res = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			struct batch_entry e[3];

			e[0] = p < 2 ? BATCH_CALL3(SYS_mprotect, res, 4096, prots[p])
				     : BATCH_CALL2(SYS_munmap, res, 4096);
			e[1] = BATCH_CALL0(SYS_getppid);
			e[2] = BATCH_CALL0(SYS_getppid);
			got = spawnkit_batch_run(backends[b], e, res, 3, 0);
			cases++;
			if (got == -EOPNOTSUPP && backends[b] == SPAWNKIT_BATCH_URING)
				cases--;
			else if (got != -EFAULT) {
				bad++;
				note_add("%s, results made %s by entry 0: %ld want EFAULT",
					 bname(backends[b]), p == 0 ? "read-only" : p == 1 ?
					 "inaccessible" : "unmapped", got);
			}
			munmap(res, 4096);
		}
	/* entries unmapped by the batch itself: it runs on its working copy
	 * (the ABI reads entries once), or fails with EFAULT */
	for (b = 0; b < nbackends; b++) {
		struct batch_entry *e = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int64_t res[3];

		e[0] = BATCH_CALL2(SYS_munmap, e, 4096);
		e[1] = BATCH_CALL0(SYS_getppid);
		e[2] = BATCH_CALL0(SYS_getppid);
		got = spawnkit_batch_run(backends[b], e, res, 3, 0);
		cases++;
		if (got == -EOPNOTSUPP && backends[b] == SPAWNKIT_BATCH_URING)
			cases--;
		else if (!(got == 2 && res[0] == 0 && res[2] == getppid()) && got != -EFAULT) {
			bad++;
			note_add("%s, entries unmapped by entry 0: %ld", bname(backends[b]), got);
		}
	}
	note_add("%d cases", cases);
	return bad ? SV_WRONG : SV_OK;
}

/* Word copies from and to bad places: their own slot's error. */
static int wordcopy_faults(void)
{
	void *gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t word = 7, ro_word;
	uint64_t *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct batch_entry e[4];
	int64_t res[4];
	int b, i, bad = 0;
	long got;
	struct { const char *what; uint64_t src, dst; int64_t want; } c[4];

	find_backends();
	munmap(gone, 4096);
	mprotect(ro, 4096, PROT_READ);
	c[0] = (typeof(c[0])){ "from unmapped", BATCH_ARG(gone), BATCH_ARG(&ro_word), -EFAULT };
	c[1] = (typeof(c[0])){ "to unmapped", BATCH_ARG(&word), BATCH_ARG(gone), -EFAULT };
	c[2] = (typeof(c[0])){ "to read-only", BATCH_ARG(&word), BATCH_ARG(ro), -EFAULT };
	c[3] = (typeof(c[0])){ "straddling results", BATCH_ARG(&word), BATCH_ARG(&res[3]) + 4,
			       -EINVAL };
	for (b = 0; b < nbackends; b++)
		for (i = 0; i < 4; i++) {
			e[0] = BATCH_WORDCOPY(c[i].src, c[i].dst);
			e[1] = e[2] = e[3] = BATCH_CALL0(SYS_getppid);
			got = spawnkit_batch_run(backends[b], e, res, 4, 0);
			if (got == -EOPNOTSUPP && backends[b] == SPAWNKIT_BATCH_URING)
				continue;
			if (got != 3 || res[0] != c[i].want || res[3] != getppid()) {
				bad++;
				note_add("%s word copy %s: returned %ld, slot %lld want %lld",
					 bname(backends[b]), c[i].what, got, (long long)res[0],
					 (long long)c[i].want);
			}
		}
	munmap(ro, 4096);
	if (!bad)
		note("4 cases x %d backends", nbackends);
	return bad ? SV_WRONG : SV_OK;
}

static atomic_long thread_bad;

static void *batcher(void *arg)
{
	int backend = (int)(intptr_t)arg;
	long i, n = scaled(200);
	char path[] = "/proc/self/status";
	char buf[64];

	for (i = 0; i < n; i++) {
		struct batch_entry e[3];
		int64_t res[3];

		e[0] = BATCH_CALL4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
		spawnkit_batch_end_on_error(&e[0]);
		(void)res;
		e[1] = BATCH_CALL3(SYS_read, 0, buf, sizeof(buf));
		e[2] = BATCH_CALL1(SYS_close, 0);
		/* the fd of the open becomes the read's and the close's fd */
		{
			struct batch_entry p[5] = { e[0] };
			int64_t r5[5];

			p[3] = e[1];
			p[4] = e[2];
			spawnkit_batch_pass_result(&p[1], r5, 0, p, 3, 0);
			spawnkit_batch_pass_result(&p[2], r5, 0, p, 4, 0);
			long got = spawnkit_batch_run(backend, p, r5, 5, 0);

			if (got == -EOPNOTSUPP)
				return NULL;
			if (got != 4 || r5[0] < 0 || r5[3] <= 0 || r5[4] != 0)
				atomic_fetch_add(&thread_bad, 1);
		}
	}
	return NULL;
}

/* Many threads batching at once on each backend (uring: a ring per
 * thread): right results, and no fd left once the threads are gone. */
static int threads_batching(void)
{
	pthread_t th[8];
	struct snap s;
	int b, i;

	find_backends();
	for (b = 0; b < nbackends; b++) {
		pthread_create(&th[0], NULL, batcher, (void *)(intptr_t)backends[b]);
		pthread_join(th[0], NULL);	/* warm-up */
	}
	s = snap_take();
	for (b = 0; b < nbackends; b++) {
		for (i = 0; i < 8; i++)
			pthread_create(&th[i], NULL, batcher, (void *)(intptr_t)backends[b]);
		for (i = 0; i < 8; i++)
			pthread_join(th[i], NULL);
	}
	if (atomic_load(&thread_bad)) {
		note("%ld wrong batches", atomic_load(&thread_bad));
		return SV_WRONG;
	}
	note("8 threads x %ld open/read/close chains x %d backends", scaled(200), nbackends);
	return snap_verdict(&s, "after", 8192);
}

static const struct scenario scenarios[] = {
	{ "invalid-numbers", invalid_numbers, 60 },
	{ "every-jump", every_jump, 60 },
	{ "generated-programs", generated_programs, 120 },
	{ "bad-arrays", bad_arrays, 60 },
	{ "arrays-become-unwritable", arrays_become_unwritable, 60 },
	{ "wordcopy-faults", wordcopy_faults, 60 },
	{ "threads", threads_batching, 120 },
	{ NULL, NULL, 0 }
};

int main(int argc, char **argv)
{
	return st_main("c/batch", scenarios, argc, argv);
}

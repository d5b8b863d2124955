/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: random batch programs on the emulator never crash and
 * never write outside the entries/results arrays and the word copies'
 * destinations.
 *
 * Programs are made only of calls that are harmless whatever their
 * arguments (getpid, getppid, getuid, sched_yield, unknown numbers and
 * calls off the allow-list: a fork or exit_group that ran would show at
 * once), word
 * copies and random jumps and flags.  Copies read from anywhere (the arrays
 * at any offset, a scratch page, guard pages, NULL, kernel and random
 * addresses) and write into the results, the scratch page, guard pages, or
 * an entry's args/jump/flags bytes: never into an nr field, so no copy can
 * make a call out of a random word.  Nor into the destination (args[1]) of
 * a later word copy: the ABI lets that copy then write wherever the word
 * points, the canaries included, which is allowed, not a crash (and a word
 * pointing at an nr field would make a call out of a random word).  Such a
 * destination is moved to the scratch page after the program is built
 * (tests/fuzz/regress/ keeps an input that found the false crash).
 *
 * Layout: each array ends exactly at a PROT_NONE guard page (a write or read
 * past the end faults and libFuzzer reports it) and is preceded by canary
 * bytes in its own page; the caller's entries must be unchanged afterwards.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <spawnkit/batch.h>

#define PAGE 4096UL
#define NMAX 64			/* entries per program (plus rare big counts) */
#define E_BYTES (BATCH_MAX_ENTRIES + 1) * sizeof(struct batch_entry)
#define R_BYTES (BATCH_MAX_ENTRIES + 1) * sizeof(int64_t)
#define ROUND(x) (((x) + PAGE - 1) & ~(PAGE - 1))
#define CANARY 0xa5

static char *region, *e_area, *r_area, *scratch, *guard;

/* [e_area + guard][r_area + guard][scratch][guard] */
static void setup(void)
{
	size_t e_len = ROUND(E_BYTES) + PAGE, r_len = ROUND(R_BYTES) + PAGE;
	size_t total = PAGE + e_len + PAGE + r_len + PAGE + PAGE + PAGE;

	region = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		abort();
	mprotect(region, PAGE, PROT_NONE);
	e_area = region + PAGE;
	mprotect(e_area + e_len, PAGE, PROT_NONE);
	r_area = e_area + e_len + PAGE;
	mprotect(r_area + r_len, PAGE, PROT_NONE);
	scratch = r_area + r_len + PAGE;
	guard = scratch + PAGE;
	mprotect(guard, PAGE, PROT_NONE);
	/* the arrays are placed at the end of their areas, per run */
}

struct input {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct input *in, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v = (v << 8) | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

static uint64_t any_addr(struct input *in, uintptr_t ents, uintptr_t ress, unsigned int n)
{
	switch (take(in, 1) % 9) {
	case 0: return ents + take(in, 2) % (n * sizeof(struct batch_entry) + 16) - 8;
	case 1: return ress + take(in, 2) % (n * 8 + 16) - 8;
	case 2: return (uintptr_t)scratch + take(in, 2) % (PAGE - 8);
	case 3: return (uintptr_t)guard + take(in, 1);
	case 4: return 0;
	case 5: return 0xffff880000000000ULL + take(in, 2);
	case 6: return take(in, 8);
	case 7: return (uintptr_t)scratch + PAGE - 4;	/* straddles into the guard */
	default: return (uintptr_t)region + take(in, 1);	/* leading guard page */
	}
}

/* A destination: never an nr field (see the header). */
static uint64_t dst_addr(struct input *in, uintptr_t ents, uintptr_t ress, unsigned int n)
{
	switch (take(in, 1) % 6) {
	case 0: {
		unsigned int j = take(in, 1) % n;
		unsigned int off = 8 + take(in, 1) % 49;	/* [8, 56]: args..flags */

		return ents + j * sizeof(struct batch_entry) + off;
	}
	/* inside the results, straddling either edge, or on the guard
	 * page after them; never wholly in the canary bytes before */
	case 1: return ress + take(in, 2) % (n * 8 + 15) - 7;
	case 2: return (uintptr_t)scratch + take(in, 2) % (PAGE - 8);
	case 3: return (uintptr_t)guard + take(in, 1);
	case 4: return 0;
	default: return 0xffff880000000000ULL + take(in, 2);
	}
}

static const uint64_t harmless[] = {
	SYS_getpid, SYS_getppid, SYS_getuid, SYS_sched_yield,
	999, 4096, (1ULL << 32) + SYS_getpid, 0x40000000ULL + SYS_getpid, UINT64_MAX,
	SYS_fork, SYS_vfork, SYS_clone, SYS_execve, SYS_exit, SYS_exit_group,
	SYS_rt_sigreturn,
};

/* 1 if the 8 bytes at dst overlap args[1] of a word copy after entry i. */
static int hits_later_copy_target(const struct batch_entry *e, unsigned int n,
				  unsigned int i, uintptr_t ents, uint64_t dst)
{
	const uint64_t a1 = __builtin_offsetof(struct batch_entry, args[1]);

	for (unsigned int j = i + 1; j < n; j++) {
		uint64_t t = ents + j * sizeof(*e) + a1;

		if (e[j].nr == BATCH_NR_WORDCOPY && dst < t + 8 && dst + 8 > t)
			return 1;
	}
	return 0;
}

/* Word copies that would rewrite a later copy's destination write into the
 * scratch page instead (see the header). */
static void keep_copy_targets(struct batch_entry *e, unsigned int n, uintptr_t ents)
{
	for (unsigned int i = 0; i < n; i++)
		if (e[i].nr == BATCH_NR_WORDCOPY &&
		    hits_later_copy_target(e, n, i, ents, e[i].args[1]))
			e[i].args[1] = (uintptr_t)scratch + 8 * i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct batch_entry copy[BATCH_MAX_ENTRIES + 1];
	struct input in = { data, size };
	struct batch_entry *e;
	int64_t *res;
	unsigned int n, count, flags, i, alloc;
	uintptr_t ents, ress;
	long ret;

	if (!region)
		setup();
	n = 1 + take(&in, 1) % NMAX;
	count = n;
	flags = 0;
	switch (take(&in, 1) % 32) {
	case 0: count = 0; break;
	case 1: count = BATCH_MAX_ENTRIES + 1; break;
	case 2: flags = (unsigned int)take(&in, 4) | 1; break;
	}
	/* Arrays end at their guard pages: count entries when it is the
	 * length passed, else the n built (count 0 or too big). */
	alloc = count >= n ? count : n;
	e = (struct batch_entry *)(e_area + ROUND(E_BYTES) + PAGE - alloc * sizeof(*e));
	res = (int64_t *)(r_area + ROUND(R_BYTES) + PAGE - alloc * sizeof(*res));
	ents = (uintptr_t)e;
	ress = (uintptr_t)res;
	memset(e_area, CANARY, (char *)e - e_area);
	memset(r_area, CANARY, (char *)res - r_area);
	memset(e, 0, alloc * sizeof(*e));
	for (i = 0; i < n; i++) {
		uint8_t kind = (uint8_t)take(&in, 1);

		if (kind % 4 == 0) {
			e[i] = BATCH_WORDCOPY(any_addr(&in, ents, ress, n),
					      dst_addr(&in, ents, ress, n));
			if (kind & 0x40)
				e[i].args[2 + take(&in, 1) % 4] = take(&in, 1);
		} else {
			e[i] = BATCH_CALL0(harmless[take(&in, 1) %
						    (sizeof(harmless) / sizeof(harmless[0]))]);
			e[i].args[0] = take(&in, 8);
		}
		for (int k = 0; k < 3; k++) {
			uint8_t j = (uint8_t)take(&in, 1);

			e[i].jump[k] = j >= 0xf0 ? BATCH_JUMP_END :
				       j >= 0xe0 ? (uint16_t)take(&in, 2) : j % 8;
		}
		if ((kind & 0xf0) == 0xf0)
			e[i].flags = (uint16_t)take(&in, 2);
	}
	keep_copy_targets(e, n, ents);
	for (i = 0; i < count && i < n; i++)
		copy[i] = e[i];
	if (count > BATCH_MAX_ENTRIES)
		memset((char *)e + n * sizeof(*e), 0, (count - n) * sizeof(*e));

	ret = spawnkit_batch_run(SPAWNKIT_BATCH_EMULATOR, e, res, count, flags);

	if (flags) {
		if (ret != -22)
			abort();
	} else if (count == 0) {
		if (ret != -22)
			abort();
	} else if (count > BATCH_MAX_ENTRIES) {
		if (ret != -7)	/* E2BIG */
			abort();
	} else if (ret < 0 || ret >= (long)count) {
		abort();	/* never an index past the array */
	}
	/* The caller's entries are never modified; nothing before the
	 * arrays was written (after them is a guard page). */
	for (i = 0; i < count && i < n; i++)
		if (memcmp(&copy[i], &e[i], sizeof(*e)))
			abort();
	for (char *p = e_area; p < (char *)e; p++)
		if (*(unsigned char *)p != CANARY)
			abort();
	for (char *p = r_area; p < (char *)res; p++)
		if (*(unsigned char *)p != CANARY)
			abort();
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * total - grand total of the bytes of the named files, one batch per file.
 *
 *   total FILE...
 *
 * Each file is read in one batch:
 *   0 openat(AT_FDCWD, FILE, O_RDONLY)        error: end
 *   1-3 word copies: the fd of 0 into the fd argument of 4, 5 and 6
 *   4 statx(fd, "", AT_EMPTY_PATH, STATX_SIZE) always next
 *   5 pread64(fd, buf, BUF, 0)                always next (a directory
 *                                             fails here; 6 still closes)
 *   6 close(fd)
 * A file larger than the buffer is mapped in a second batch (openat, word
 * copies, mmap of the size statx gave, close) and every page touched.
 * (io_uring has no mmap: with SPAWNKIT_BATCH_BACKEND=uring that batch runs
 * on the emulator.)  Prints the total of the bytes actually read or mapped, one line; a file
 * that cannot be read gets a message on stderr and exit status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spawnkit/batch.h>
#include "common/sys.h"

#define BUF (256 * 1024)

static char buf[BUF];
static volatile unsigned char sink;

static long run(const struct batch_entry *e, int64_t *res, unsigned int n)
{
	long ret = spawnkit_batch(e, res, n, 0);

	/* io_uring has no mmap: that batch runs on the emulator. */
	if (ret == -EOPNOTSUPP)
		ret = spawnkit_batch_run(SPAWNKIT_BATCH_EMULATOR, e, res, n, 0);
	if (ret < 0) {
		const char *be = getenv("SPAWNKIT_BATCH_BACKEND");

		fprintf(stderr, "total: batch: %s (backend %s)\n", strerror((int)-ret),
			be && *be ? be : spawnkit_batch_backend_name(spawnkit_batch_backend()));
		_exit(1);
	}
	return ret;
}

/* Bytes of a file larger than BUF, through a mapping. */
static long long map_file(const char *path, uint64_t size)
{
	struct batch_entry e[5];
	int64_t res[5];
	long long sum = 0;
	uint64_t off;

	e[0] = BATCH_CALL4(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	spawnkit_batch_end_on_error(&e[0]);
	spawnkit_batch_pass_result(&e[1], res, 0, e, 3, 4);
	spawnkit_batch_pass_result(&e[2], res, 0, e, 4, 0);
	spawnkit_batch_end_on_error(&e[1]);
	spawnkit_batch_end_on_error(&e[2]);
	e[3] = BATCH_CALL6(SYS_mmap, 0, size, PROT_READ, MAP_PRIVATE, -1, 0);
	e[4] = BATCH_CALL1(SYS_close, -1);
	run(e, res, 5);
	if (res[0] < 0)
		return res[0];
	if (res[3] < 0 && res[3] >= -4095)
		return res[3];
	for (off = 0; off < size; off += 4096)
		sink += ((unsigned char *)(uintptr_t)res[3])[off];
	sum = (long long)size;
	munmap((void *)(uintptr_t)res[3], size);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long long total = 0;
	int i, status = 0;

	if (argc < 2) {
		fputs("usage: total FILE...\n", stderr);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct batch_entry e[7];
		int64_t res[7];
		struct statx st;
		long long got;

		e[0] = BATCH_CALL4(SYS_openat, AT_FDCWD, argv[i], O_RDONLY | O_CLOEXEC, 0);
		spawnkit_batch_end_on_error(&e[0]);
		spawnkit_batch_end_on_error(spawnkit_batch_pass_result(&e[1], res, 0, e, 4, 0));
		spawnkit_batch_end_on_error(spawnkit_batch_pass_result(&e[2], res, 0, e, 5, 0));
		spawnkit_batch_end_on_error(spawnkit_batch_pass_result(&e[3], res, 0, e, 6, 0));
		e[4] = BATCH_CALL5(SYS_statx, -1, "", AT_EMPTY_PATH, STATX_SIZE, &st);
		e[5] = BATCH_CALL4(SYS_pread64, -1, buf, BUF, 0);
		e[6] = BATCH_CALL1(SYS_close, -1);
		run(e, res, 7);
		got = res[0] < 0 ? res[0] : res[4] < 0 ? res[4] : res[5];
		if (got == BUF && st.stx_size > BUF)
			got = map_file(argv[i], st.stx_size);
		if (got < 0) {
			fprintf(stderr, "total: %s: %s\n", argv[i], strerror((int)-got));
			status = 1;
			continue;
		}
		total += (unsigned long long)got;
	}
	printf("%llu\n", total);
	return status;
}

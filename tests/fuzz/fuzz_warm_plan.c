/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the warm client's replay of spawn actions (fdplan.c).
 *
 * The input is an array of raw actions plus flags; pointer fields (SIGMASK,
 * SIGDEFAULT and OPEN args, the sigset and path inside) point at valid
 * structures built from the input, an unmapped page, or anywhere.  OPEN
 * paths are one of a few fixed names (/dev/null, a directory, a missing
 * file) or caller bytes.  warm_fdplan() must answer 0 or a reason, never
 * crash, and every fd it opened must be closed by warm_fdplan_release();
 * an accepted plan must have fds 0, 1 and 2.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "warm/warm_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *unmapped;

static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 256; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "/dev/null", "/", "/nonexistent/x", "relative" };
	struct spawn_template_action a[16];
	struct spawnkit_open opens[16];
	struct spawn_template_sigset sets[16];
	uint64_t bits[16];
	struct warm_fdplan p;
	unsigned int nr, flags, i;
	int before, ret;

	if (!unmapped) {
		unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (unmapped == MAP_FAILED)
			return 0;
	}
	if (size < 1)
		return 0;
	flags = data[0] & 3;
	data++;
	size--;
	nr = (unsigned int)(size / 16);
	if (nr > 16)
		nr = 16;
	for (i = 0; i < nr; i++) {
		const uint8_t *d = data + 16 * i;
		uint64_t sel = d[12] | (uint64_t)d[13] << 8;

		a[i].type = d[0] % 8;
		a[i].flags = d[1] & 1 ? 0 : d[1];
		a[i].fd = (int8_t)d[2] % 8;			/* mostly 0..7, some negative */
		a[i].newfd = d[3] & 0x80 ? SPAWN_TEMPLATE_FD_MAX : d[3] % 12;
		memcpy(&bits[i], d + 4, 8);
		sets[i].sigset = sel & 1 ? (uintptr_t)unmapped : (uintptr_t)&bits[i];
		sets[i].sigsetsize = sel & 2 ? 7 : 8;
		opens[i].arg.path = sel & 4 ? (uintptr_t)unmapped : (uintptr_t)paths[(sel >> 3) & 3];
		opens[i].arg.how = (uintptr_t)&opens[i].how;
		opens[i].arg.how_size = d[14] & 16 ? 16 : sizeof(opens[i].how);
		opens[i].how.flags = d[14] & 1 ? O_RDONLY : (d[14] & 2 ? O_WRONLY : O_RDWR);
		opens[i].how.flags |= d[14] & 4 ? O_CREAT : 0;
		opens[i].how.mode = 0;
		opens[i].how.resolve = d[14] & 8;
		switch ((sel >> 5) & 3) {
		case 0:
			a[i].arg = 0;
			break;
		case 1:
			a[i].arg = (uintptr_t)unmapped + (d[15] % 64);
			break;
		default:
			a[i].arg = a[i].type == SPAWN_TEMPLATE_ACTION_OPEN ? (uintptr_t)&opens[i].arg :
				   (uintptr_t)&sets[i];
		}
	}
	before = open_fds();
	ret = warm_fdplan(a, nr, flags, &p);
	if (ret == 0) {
		int have = 0;

		for (int j = 0; j < p.n; j++)
			have |= p.target[j] >= 0 && p.target[j] < 3 ? 1 << p.target[j] : 0;
		if (have != 7)
			__builtin_trap();
	} else if (ret != SPAWNKIT_WARM_FDS && ret != SPAWNKIT_WARM_TTY) {
		__builtin_trap();
	}
	warm_fdplan_release(&p);
	if (open_fds() != before)
		__builtin_trap();			/* an fd leaked */
	return 0;
}

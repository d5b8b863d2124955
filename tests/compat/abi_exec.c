/* SPDX-License-Identifier: MIT */
/*
 * abi_exec PROGRAM [ARG...] - run a program of another ABI, or say why not.
 *
 * The test guest's init starts the compat tests (spawn_compat.c, built
 * -m32, -mx32 and -m64) through this 64-bit program: execv() of an i386
 * program on a kernel without CONFIG_IA32_EMULATION, or of an x32 one
 * without CONFIG_X86_X32_ABI, fails with ENOEXEC, which is a skip (exit
 * 77, one line naming the option the program's ELF header asks for),
 * never a pass.  A shell cannot tell this: on ENOEXEC it runs the file as
 * a script.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The kernel option an ELF file of this class and machine needs. */
static const char *needed_option(const char *path)
{
	unsigned char h[EI_NIDENT + 4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, h, sizeof(h));
	unsigned int machine;

	if (fd >= 0)
		close(fd);
	if (n < (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return "a binfmt for this file";
	machine = h[EI_NIDENT + 2] | h[EI_NIDENT + 3] << 8;	/* e_machine, LE */
	if (machine == EM_386)
		return "CONFIG_IA32_EMULATION";
	if (machine == EM_X86_64 && h[EI_CLASS] == ELFCLASS32)
		return "CONFIG_X86_X32_ABI";
	return "a binfmt for this ELF class and machine";
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: abi_exec PROGRAM [ARG...]\n");
		return 2;
	}
	execv(argv[1], argv + 1);
	if (errno == ENOEXEC) {
		printf("SKIP: %s: this kernel cannot run it (execve: ENOEXEC; it needs %s)\n",
		       argv[1], needed_option(argv[1]));
		return 77;
	}
	fprintf(stderr, "abi_exec: %s: %s\n", argv[1], strerror(errno));
	return 127;
}

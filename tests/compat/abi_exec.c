/* SPDX-License-Identifier: MIT */
/*
 * abi_exec PROGRAM [ARG...] - run a program of another ABI, or say why not.
 *
 * The test guest's init starts the 32-bit compat tests (spawn_compat.c,
 * built -m32 and -mx32) through this 64-bit program: execv() of an i386
 * program on a kernel without CONFIG_IA32_EMULATION, or of an x32 one
 * without CONFIG_X86_X32_ABI, fails with ENOEXEC, which is a skip (exit
 * 77, one line naming the reason), never a pass.  A shell cannot tell
 * this: on ENOEXEC it runs the file as a script.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: abi_exec PROGRAM [ARG...]\n");
		return 2;
	}
	execv(argv[1], argv + 1);
	if (errno == ENOEXEC) {
		printf("SKIP: %s: this kernel cannot run its ABI (execve: ENOEXEC; "
		       "no CONFIG_IA32_EMULATION or CONFIG_X86_X32_ABI)\n", argv[1]);
		return 77;
	}
	fprintf(stderr, "abi_exec: %s: %s\n", argv[1], strerror(errno));
	return 127;
}

/* SPDX-License-Identifier: MIT */
/*
 * long sk_clone3(struct clone_args *args, size_t size,
 *                int (*fn)(void *), void *arg);
 *
 * clone3 with the child running fn(arg) on the stack given in args, then
 * exit(fn's return).  It has to be assembly: after the syscall the child
 * runs on a new stack, so no C frame of the caller may be used there.
 * Returns the child's pid or -errno in the parent; never touches errno.
 */
#ifdef __x86_64__
	.text
	.globl	sk_clone3
	.hidden	sk_clone3
	.type	sk_clone3, @function
sk_clone3:
	.cfi_startproc
	mov	%rcx, %r8		/* arg: r8 survives the syscall */
	mov	$435, %eax		/* __NR_clone3 */
	syscall
	test	%rax, %rax
	jz	1f
	ret				/* parent: pid or -errno */
1:
	.cfi_undefined rip
	xor	%ebp, %ebp		/* child: outermost frame */
	and	$-16, %rsp
	mov	%r8, %rdi
	call	*%rdx
	mov	%eax, %edi
	mov	$60, %eax		/* __NR_exit */
	syscall
	hlt
	.cfi_endproc
	.size	sk_clone3, .-sk_clone3
#endif
	.section .note.GNU-stack,"",@progbits

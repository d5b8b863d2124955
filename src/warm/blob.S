/* SPDX-License-Identifier: MIT */
/* The warm interpreter's bootstrap (importcache.py, then bootstrap.py: one
 * program), as a NUL-terminated string in the library, so it needs no
 * installed file. */
	.section .rodata
	.globl	sk_warm_bootstrap
	.hidden	sk_warm_bootstrap
	.type	sk_warm_bootstrap, @object
sk_warm_bootstrap:
	.incbin	"warm/importcache.py"	/* found through -I<top>/src */
	.incbin	"warm/bootstrap.py"
	.byte	0
	.size	sk_warm_bootstrap, . - sk_warm_bootstrap
	.section .note.GNU-stack,"",@progbits

/* SPDX-License-Identifier: MIT */
/*
 * pty.h - SPAWNKIT_RUN_PTY's terminal: a new pty pair sized for the child,
 * and the end of its input (the terminal's EOF character, at the start of
 * a line).
 */
#ifndef SPAWNKIT_RUN_PTY_H
#define SPAWNKIT_RUN_PTY_H

#include <stddef.h>

/* Open a new pty: *master (nonblocking) and *slave, both O_CLOEXEC and at
 * 3 or above, the window rows x cols.  0 or -errno (ENOENT: no /dev/ptmx,
 * no devpts). */
int sk_pty_open(unsigned short rows, unsigned short cols, int *master, int *slave);

/* The bytes that end the terminal's input now, into seq (2 bytes at most):
 * in canonical mode VEOF, twice when the input so far (ends_line 0) left
 * a line unfinished, since the first only hands that line to the reader;
 * VEOF once otherwise; nothing when VEOF is disabled.  The count, or
 * -errno. */
int sk_pty_eof(int master, int ends_line, char seq[2]);

#endif

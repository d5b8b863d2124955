/* SPDX-License-Identifier: MIT */
/*
 * fd_check.h - is an fd the library keeps between runs still the file it
 * opened?  The caller may close any fd, ours too, and get the number back
 * for a file of its own; such a number is the caller's and is left alone.
 */
#ifndef SPAWNKIT_RUN_FD_CHECK_H
#define SPAWNKIT_RUN_FD_CHECK_H

#include <sys/stat.h>

/* 1 if fd is open, with its fstat in *st, and (mode >= 0) open in access
 * mode `mode` (O_RDONLY, O_WRONLY, O_RDWR); else 0. */
int sk_fd_check(int fd, int mode, struct stat *st);

#endif

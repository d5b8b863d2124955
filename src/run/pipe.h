/* SPDX-License-Identifier: MIT */
/* pipe.h - the pipes and fd copies a run hands its child. */
#ifndef SPAWNKIT_RUN_PIPE_H
#define SPAWNKIT_RUN_PIPE_H

/* An O_CLOEXEC copy of fd at 3 or above, or -errno.  fd itself is kept. */
int sk_dup_high(int fd);

/* A close-on-exec pipe with both ends at 3 or above; the write end
 * nonblocking when nonblock_write.  0 or -errno (then no fd is left). */
int sk_run_pipe(int p[2], int nonblock_write);

#endif

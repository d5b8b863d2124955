/* SPDX-License-Identifier: MIT */
/*
 * devnull.h - the /dev/null a run's SPAWNKIT_RUN_DEVNULL streams are
 * copied from: opened once per process, not once per child.
 */
#ifndef SPAWNKIT_RUN_DEVNULL_H
#define SPAWNKIT_RUN_DEVNULL_H

/*
 * An fd of the null device open for reading (out 0: stdin) or writing
 * (out 1), close-on-exec and above 2, which the library keeps for the
 * next runs; -1 where there is none (the child then opens /dev/null
 * itself, as before).  Checked on every call, as the caller may have
 * closed it: then a new one (one of the caller's is never closed).
 */
int sk_devnull_fd(int out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * kill_tree.h - signal a child and everything it started.
 *
 * The ABI has no setsid/setpgid action, so there is no process group to
 * signal.  Instead:
 *   1. the tree under the child is walked through
 *      /proc/<pid>/task/<tid>/children, stopping each process (SIGSTOP)
 *      before its own children are read, so nothing can fork away while we
 *      look and no pid in the tree can be reaped and reused;
 *   2. processes that escaped the tree (re-parented to init when their
 *      parent exited: `sh -c 'sleep 60 &'`) but still hold one of the
 *      call's pipes are found by scanning /proc/<pid>/fd for those pipe
 *      inodes; they are exactly the ones that would keep the call hanging;
 *   3. everyone found gets the signal, then SIGCONT (so a SIGTERM is seen).
 * Processes of other users cannot be inspected (/proc permissions): the
 * JavaScript side still closes its pipe ends after a grace period.
 */
#ifndef SPAWNKIT_NODE_KILL_TREE_H
#define SPAWNKIT_NODE_KILL_TREE_H

#include <sys/types.h>

/* root_pidfd: the unreaped child's pidfd, or -1 if it is gone (then only
 * pipe holders are looked for).  Returns how many processes were signalled,
 * or -errno. */
int kill_tree(int root_pidfd, pid_t root, int sig,
	      const unsigned long *pipe_inodes, int nr_inodes);

#endif

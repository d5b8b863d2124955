"""kill_tree(): the library's kill policy (spawnkit_kill_tree(3)) for a
child of this process.

One algorithm for every binding: the child's process group and session if
it leads them (then they are signalled whole), and a /proc walk from the
child by parent pid, repeated until it finds nothing new; for SIGKILL the
group and the child are stopped first so no parent dies (handing its
children to init) before the walk saw them.  A process that left the tree
(an orphan of an exited parent, in the caller's session) is found only
through a session or a cgroup: run() starts each child in a session of its
own for that reason.
"""
from __future__ import annotations

import os
import signal
from typing import Iterable, Optional

from ._errors import error_from_errno
from ._ffi import lib

__all__ = ["kill_tree"]


def kill_tree(root_pid: Optional[int], root_pidfd: Optional[int] = None,
              sig: int = signal.SIGKILL, pipe_inodes: Iterable[int] = (),
              all_sessions: bool = False) -> int:
    """Signal the child root_pid (not reaped yet: the caller holds its pid)
    and its tree; a child that leads its own session and group gets them
    signalled whole.  root_pid None (the child was reaped): nothing can be
    found, 0.  Returns a count > 0 if anything was signalled.

    root_pidfd, pipe_inodes and all_sessions are the older signature's
    and not needed: the caller's unreaped child keeps its pid, and pipe
    holders outside the tree are found through the session instead.
    """
    if root_pid is None:
        return 0
    flags = 0
    try:
        if os.getsid(root_pid) == root_pid and os.getpgid(root_pid) == root_pid:
            flags = lib.SPAWNKIT_KILL_GROUP
    except ProcessLookupError:
        pass
    n = lib.spawnkit_kill_tree(root_pid, -1, int(sig), flags)
    if n < 0:
        raise error_from_errno(-n)
    return int(n)

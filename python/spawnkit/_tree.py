"""Kill a child's whole process tree without process groups.

The spawn ABI has no setsid/setpgid action, and a parent cannot setpgid() a
child that has already exec'd (a vfork-style spawn returns after exec), so
killpg() is not available.  The tree is found in /proc instead:

1. descendants: processes whose parent chain (the ppid field of
   /proc/<pid>/stat; /proc/<pid>/task/*/children needs CONFIG_PROC_CHILDREN,
   which many kernels lack) leads to the child;
2. pipe holders: processes holding the write end of the call's output pipes.
   These are the grandchildren that hang a call: orphaned when their parent
   exited, reparented to init, and so no longer descendants.  A process that
   also holds the read end is a fork() of this interpreter, never the child's
   work, and is left alone.  They are looked for in this process's session
   first (descendants keep it unless they call setsid()); run() widens the
   search to every process only if the pipes are still open after that.

Every process found is frozen with SIGSTOP before the next scan, so the tree
cannot grow behind the walk; the walk repeats until it finds nothing new, then
the signal goes to all of them.  Each process is addressed through a pidfd
opened while its start time still matched the scan (pid plus start time name
one process), so a recycled pid is never signalled.  Not found: a descendant
that both left the tree (a daemon's double fork) and let go of the pipes; it
cannot hang a call.
"""
from __future__ import annotations

import os
import signal
from typing import Dict, Iterable, List, Optional, Set, Tuple

__all__ = ["kill_tree"]

_Stat = Tuple[int, int, int]     # (ppid, session id, start time in clock ticks)


def _read(path: str) -> Optional[bytes]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)


def _stat(pid: int) -> Optional[_Stat]:
    data = _read(f"/proc/{pid}/stat")
    if not data:
        return None
    # comm (field 2) may hold spaces and ')': split after the last ')'.
    rest = data[data.rindex(b")") + 2:].split()
    # field 4 ppid, field 6 session, field 22 starttime
    return int(rest[1]), int(rest[3]), int(rest[19])


def _pids() -> Iterable[int]:
    for name in os.listdir("/proc"):
        if name.isdigit():
            yield int(name)


def _all_stats() -> Dict[int, _Stat]:
    out = {}
    for pid in _pids():
        st = _stat(pid)
        if st is not None:
            out[pid] = st
    return out


def _descendants(roots: Set[int], stats: Dict[int, _Stat]) -> Set[int]:
    children: Dict[int, List[int]] = {}
    for pid, (ppid, _, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    seen: Set[int] = set()
    todo = list(roots)
    while todo:
        for c in children.get(todo.pop(), ()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def _pipe_writers(inodes: Set[int], skip: Set[int], pids: Iterable[int]) -> Set[int]:
    """Processes holding a write end of one of the pipes, but no read end."""
    links = {f"pipe:[{ino}]" for ino in inodes}
    found = set()
    for pid in pids:
        if pid in skip:
            continue
        base = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(base)
        except OSError:
            continue
        writes = reads = False
        for fd in fds:
            try:
                if os.readlink(f"{base}/{fd}") not in links:
                    continue
            except OSError:
                continue
            info = _read(f"/proc/{pid}/fdinfo/{fd}") or b""
            flags = 0
            for line in info.splitlines():
                if line.startswith(b"flags:"):
                    flags = int(line.split()[1], 8)
            if flags & os.O_ACCMODE == os.O_RDONLY:
                reads = True
            else:
                writes = True
        if writes and not reads:
            found.add(pid)
    return found


def _send(pidfd: int, sig: int) -> bool:
    try:
        signal.pidfd_send_signal(pidfd, sig)
        return True
    except ProcessLookupError:
        return False                  # already gone
    except PermissionError:
        return False                  # e.g. a set-uid descendant: not ours to kill


def kill_tree(root_pid: Optional[int], root_pidfd: Optional[int],
              sig: int = signal.SIGKILL, pipe_inodes: Iterable[int] = (),
              all_sessions: bool = False) -> int:
    """Signal the child (root_pidfd), its descendants (found from root_pid,
    which must not be reaped yet) and the holders of the output pipes.

    Pipe holders are looked for in this process's session (where the child
    and, unless they called setsid(), all its descendants live), or in every
    process with all_sessions=True, which reads every fd link on the system
    (slow with processes holding many thousands of fds).
    Returns how many processes were signalled besides the child itself.
    """
    me = os.getpid()
    my_sid = os.getsid(0)
    inodes = set(pipe_inodes)
    held: Dict[int, int] = {}                 # pid -> our pidfd for it
    skip = {me} if root_pid is None else {me, root_pid}
    roots = set() if root_pid is None else {root_pid}

    def grab(pid: int, expect: Optional[_Stat]) -> None:
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            return                            # already gone
        now = _stat(pid)
        if now is None or expect is None or now[2] != expect[2]:
            os.close(fd)                      # the pid was recycled
            return
        held[pid] = fd
        _send(fd, signal.SIGSTOP)

    try:
        if root_pidfd is not None:
            _send(root_pidfd, signal.SIGSTOP)
        while True:
            # Freeze descendants until a scan finds no new one ...
            for _ in range(1000):
                stats = _all_stats()
                new = _descendants(roots | set(held), stats) - set(held) - skip
                if not new:
                    break
                for pid in new:
                    grab(pid, stats.get(pid))
            # ... then the pipe holders outside the tree, and their trees.
            if not inodes:
                break
            if all_sessions:
                where: Iterable[int] = _pids()
            else:
                stats = _all_stats()
                where = [p for p, st in stats.items() if st[1] == my_sid]
            stray = _pipe_writers(inodes, skip, where) - set(held)
            if not stray:
                break
            for pid in stray:
                grab(pid, _stat(pid))
        signalled = 0
        for fd in ([root_pidfd] if root_pidfd is not None else []) + list(held.values()):
            ok = _send(fd, sig)
            if sig != signal.SIGKILL:
                _send(fd, signal.SIGCONT)     # a stopped process must see sig
            if ok and fd != root_pidfd:
                signalled += 1
        return signalled
    finally:
        for fd in held.values():
            os.close(fd)

"""Output capture and the blocking I/O pumps.

RunIO is run()'s: pump, reap and capture in C (python/src/run_io.c), each a
single call made without the GIL, so a call costs a few Python->C
transitions instead of a Python poll/read loop whose every syscall releases
and retakes the GIL (costly with many threads running calls at once).

Capture and PumpCore are the Python ones (_pump.py, re-exported here):
Pump drives PumpCore with poll() for Process.communicate(), spawnkit.aio
drives it from the event loop.  Capture and the C capture keep the same
bytes; the tests compare run() with aio.run() on the limits.
"""
from __future__ import annotations

import errno
import os
from typing import List, Optional, Tuple

from ._errors import lost_status_error
from ._ffi import ffi, lib
from ._pump import CHUNK, Capture, Pump, PumpCore  # noqa: F401

__all__ = ["Capture", "PumpCore", "Pump", "RunIO", "wait_pidfd", "deadline_ns", "CHUNK",
           "EOF", "DEADLINE", "IDLE"]

assert CHUNK == lib.SK_RUNIO_CHUNK

EOF = lib.SK_RUNIO_EOF                 # RunIO.pump(): all pipes done; wait: reaped
DEADLINE = lib.SK_RUNIO_DEADLINE       # the deadline passed
IDLE = lib.SK_RUNIO_IDLE               # no output for idle_ns
_INTR = lib.SK_RUNIO_INTR              # a signal: run its handler, call again
NONE = -1                              # no deadline / no idle timeout
_FOREVER = 1e9                         # seconds treated as no timeout at all


def deadline_ns(seconds: Optional[float], now_ns: int = 0) -> int:
    """now_ns + seconds in ns for the C calls (NONE for None or forever);
    never negative, which would mean NONE."""
    if seconds is None or seconds > _FOREVER:
        return NONE
    return now_ns + max(0, int(seconds * 1e9))


def _error(rc: int) -> Exception:
    """The exception for a -errno from run_io.c."""
    if rc == -errno.ENOMEM:
        return MemoryError("spawnkit: out of memory capturing output")
    return OSError(-rc, os.strerror(-rc))


class RunIO:
    """One run() call's pipes, driven in C.  Owns the fds given to it once
    constructed: it closes stdin when the input is written (or at once for
    no input), an output pipe at EOF, and what is left in close()."""

    __slots__ = ("_p",)

    def __init__(self, stdin_fd: Optional[int], data: Optional[bytes],
                 out_fd: Optional[int], err_fd: Optional[int],
                 limit: Optional[int]) -> None:
        pp = ffi.new("struct sk_runio **")
        rc = lib.sk_runio_new(-1 if stdin_fd is None else stdin_fd,
                              data if data else ffi.NULL, len(data) if data else 0,
                              -1 if out_fd is None else out_fd,
                              -1 if err_fd is None else err_fd,
                              -1 if limit is None else limit, pp)
        if rc < 0:
            raise _error(rc)
        self._p = pp[0]

    def pump(self, deadline: int = NONE, idle: int = NONE) -> int:
        """EOF, DEADLINE (absolute monotonic ns) or IDLE (ns without output);
        callable again, e.g. to drain after a kill."""
        while True:
            rc = lib.sk_runio_pump(self._p, deadline, idle)
            if rc != _INTR:      # the loop's back edge runs signal handlers
                break
        if rc < 0:
            raise _error(rc)
        return int(rc)

    def watch_child(self, pidfd: int) -> None:
        """Let pump() reap the child as soon as it returns after the child
        ended (before a Python SIGCHLD handler could take the status)."""
        lib.sk_runio_watch_child(self._p, pidfd)

    def child_status(self) -> Optional[int]:
        """The returncode if pump() reaped the child, else None."""
        st = ffi.new("int *")
        return int(st[0]) if lib.sk_runio_child_status(self._p, st) == 1 else None

    def pipe_inodes(self) -> List[int]:
        """Inodes of the output pipes (to find the processes holding them)."""
        return [i for i in (lib.sk_runio_pipe_ino(self._p, 1),
                            lib.sk_runio_pipe_ino(self._p, 2)) if i]

    def outputs(self) -> List[Tuple[bytes, int]]:
        """[(stdout kept bytes, dropped), (stderr ...)], after the last pump."""
        out = ffi.new("struct sk_runio_output[2]")
        rc = lib.sk_runio_outputs(self._p, out)
        if rc < 0:
            raise _error(rc)
        return [(ffi.unpack(o.data, o.len) if o.len else b"", o.dropped) for o in out]

    def close(self) -> None:
        """Close every fd still open and free the C state; idempotent."""
        p, self._p = self._p, ffi.NULL
        lib.sk_runio_free(p)


def wait_pidfd(pidfd: int, deadline: int = NONE, pid: int = 0) -> Optional[int]:
    """Reap the child behind pidfd: its returncode as subprocess gives it,
    or None if the deadline (absolute monotonic ns) passed first.  A child
    reaped behind our back (SIGCHLD ignored, a stray waitpid(-1)) still
    gives its status where the kernel keeps it on the pidfd (Linux 6.15);
    elsewhere ChildProcessError, never a made-up 0."""
    status = ffi.new("int *")
    while True:
        rc = lib.sk_runio_wait(pidfd, deadline, status)
        if rc != _INTR:
            break
    if rc == EOF:
        return int(status[0])
    if rc == DEADLINE:
        return None
    if rc == -errno.ECHILD:
        raise lost_status_error(pid)
    raise _error(rc)

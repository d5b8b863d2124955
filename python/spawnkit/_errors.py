"""Exceptions, and turning the library's -errno returns into them.

libspawnkit reports a failure as a -errno return value, not through errno;
here that number becomes the OSError subclass Python itself picks for it
(OSError(ENOENT, ...) is a FileNotFoundError), so callers catch the same
types as with subprocess.  The one exception is ESTALE, which becomes
StaleTemplateError (an OSError with errno ESTALE all the same).
"""
from __future__ import annotations

import errno
import os
import subprocess
from typing import Optional, Union

__all__ = ["StaleTemplateError", "TimeoutExpired", "NoOutputTimeoutExpired",
           "error_from_errno", "lost_status_error"]


class StaleTemplateError(OSError):
    """ESTALE: the template's executable was replaced (renamed over, rewritten).

    The template cache handles this by making a new template; it is raised
    only from an explicit Template, or when the file keeps changing.
    """

    def __init__(self, filename: Optional[Union[str, bytes]] = None) -> None:
        super().__init__(errno.ESTALE, os.strerror(errno.ESTALE), filename)


class TimeoutExpired(subprocess.TimeoutExpired):
    """run(timeout=...) elapsed: subprocess.TimeoutExpired (code catching
    that works) plus what the output limit did to the output so far.

    output/stderr are the output so far as run() shows it (joined, with the
    truncation marker when bytes were dropped); stdout_head/stdout_tail are
    the bytes (or text) kept from the start and the end, stdout_dropped how
    many bytes between them were not kept; the same for stderr.
    """

    def __init__(self, cmd: object, timeout: float, output: object = None,
                 stderr: object = None, *, stdout_head: object = None,
                 stdout_tail: object = None, stdout_dropped: int = 0,
                 stderr_head: object = None, stderr_tail: object = None,
                 stderr_dropped: int = 0) -> None:
        super().__init__(cmd, timeout, output, stderr)  # type: ignore[arg-type]
        self.stdout_head = stdout_head
        self.stdout_tail = stdout_tail
        self.stdout_dropped = stdout_dropped
        self.stderr_head = stderr_head
        self.stderr_tail = stderr_tail
        self.stderr_dropped = stderr_dropped

    def _what(self) -> str:
        return super().__str__()

    def __str__(self) -> str:
        if not (self.stdout_dropped or self.stderr_dropped):
            return self._what()
        return (f"{self._what()} ({self.stdout_dropped} bytes of stdout and "
                f"{self.stderr_dropped} of stderr dropped by the output limit)")


class NoOutputTimeoutExpired(TimeoutExpired):
    """run(no_output_timeout=...) elapsed without any output from the child.

    A subclass of subprocess.TimeoutExpired, so code catching that works.
    """

    def _what(self) -> str:
        return f"Command '{self.cmd}' produced no output for {self.timeout} seconds"


def error_from_errno(err: int, filename: Optional[Union[str, bytes]] = None) -> OSError:
    """The exception for a positive errno value (a -errno return negated)."""
    if err == errno.ESTALE:
        return StaleTemplateError(filename)
    if filename is None:
        return OSError(err, os.strerror(err))
    return OSError(err, os.strerror(err), filename)


def lost_status_error(pid: int) -> ChildProcessError:
    """The child was reaped by another waiter and the kernel kept no status
    on its pidfd (before Linux 6.15): say so rather than report a made-up
    exit code (subprocess reports 0 here)."""
    return ChildProcessError(
        errno.ECHILD,
        f"exit status of child {pid} was taken by another waiter (a SIGCHLD "
        "handler's waitpid(-1), or SIGCHLD ignored) and this kernel does not "
        "keep it on the pidfd")

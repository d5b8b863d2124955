"""Exceptions, and turning the library's -errno returns into them.

libspawnkit returns -errno and never touches errno; here that number becomes
the OSError subclass Python itself would raise for it (OSError(ENOENT, ...)
is a FileNotFoundError), so callers catch the same types as with subprocess.
"""
from __future__ import annotations

import errno
import os
import subprocess
from typing import Optional, Union

__all__ = ["StaleTemplateError", "NoOutputTimeoutExpired", "error_from_errno",
           "lost_status_error"]


class StaleTemplateError(OSError):
    """ESTALE: the template's executable was replaced (renamed over, rewritten).

    The template cache handles this by making a new template; it is raised
    only from an explicit Template, or when the file keeps changing.
    """

    def __init__(self, filename: Optional[Union[str, bytes]] = None) -> None:
        super().__init__(errno.ESTALE, os.strerror(errno.ESTALE), filename)


class NoOutputTimeoutExpired(subprocess.TimeoutExpired):
    """run(no_output_timeout=...) elapsed without any output from the child.

    A subclass of subprocess.TimeoutExpired, so code catching that works.
    """

    def __str__(self) -> str:
        return (f"Command '{self.cmd}' produced no output for "
                f"{self.timeout} seconds")


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

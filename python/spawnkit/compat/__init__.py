"""Drop-in routing of the subprocess module through spawnkit.

    import spawnkit
    spawnkit.patch_subprocess()      # Popen, run, call, check_output, asyncio
    ...
    spawnkit.compat.stats()          # {"routed": n, "fallback": m, "reasons": {...}}
    spawnkit.unpatch_subprocess()

patch_subprocess() replaces subprocess.Popen._execute_child, the one method
that starts a child; everything else (argument checks, pipes, text mode,
communicate, wait, asyncio's transports) stays stock code.  Calls with an
option spawnkit cannot honour exactly go to stock's _execute_child and are
counted in stats()["reasons"].  spawnkit.compat.subprocess is the same
routing as a module, for code that would rather import it than patch.
"""
from __future__ import annotations

import subprocess as _subprocess
import threading as _threading

from . import _route
from ._stats import dump_at_exit, reset_stats, stats

__all__ = ["patch_subprocess", "unpatch_subprocess", "is_patched", "stats",
           "reset_stats", "dump_at_exit"]

_lock = _threading.Lock()


def is_patched() -> bool:
    """True while subprocess.Popen starts children through spawnkit."""
    return _subprocess.Popen.__dict__.get("_execute_child") is _route.execute_child


def patch_subprocess() -> None:
    """Route subprocess.Popen (and so run, call, check_call, check_output,
    getoutput and asyncio's subprocess functions) through spawnkit.
    Idempotent; undo with unpatch_subprocess()."""
    with _lock:
        if not is_patched():
            _subprocess.Popen._execute_child = _route.execute_child  # type: ignore[assignment]


def unpatch_subprocess() -> None:
    """Give subprocess.Popen its own _execute_child back (idempotent)."""
    with _lock:
        if is_patched():
            _subprocess.Popen._execute_child = _route._STOCK  # type: ignore[assignment]

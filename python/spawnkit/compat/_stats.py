"""Counters for the subprocess drop-in: how many Popen calls spawnkit
started (routed) and how many it handed to stock subprocess (fallback),
with a reason for each fallback.

Counts are per process: a fork()ed child starts from zero, so a stats file
written at its exit never repeats its parent's calls.
"""
from __future__ import annotations

import atexit
import json
import os
import threading
from typing import Any, Dict

_lock = threading.Lock()
_routed = 0
_fallback = 0
_reasons: Dict[str, int] = {}


def count_routed() -> None:
    global _routed
    with _lock:
        _routed += 1


def count_fallback(reason: str) -> None:
    global _fallback
    with _lock:
        _fallback += 1
        _reasons[reason] = _reasons.get(reason, 0) + 1


def stats() -> Dict[str, Any]:
    """{"routed": n, "fallback": m, "reasons": {reason: count}} for this process."""
    with _lock:
        return {"routed": _routed, "fallback": _fallback, "reasons": dict(_reasons)}


def reset_stats() -> None:
    global _routed, _fallback
    with _lock:
        _routed = _fallback = 0
        _reasons.clear()


def _after_fork() -> None:
    global _lock
    _lock = threading.Lock()       # another thread may have held it at fork()
    reset_stats()


os.register_at_fork(after_in_child=_after_fork)

_dump_dir = None


def _dump() -> None:
    s = stats()
    if _dump_dir is None or not (s["routed"] or s["fallback"]):
        return
    path = os.path.join(_dump_dir, f"{os.getpid()}.json")
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(s, f)
    except OSError:
        pass                       # the directory went away: nothing to report


def dump_at_exit(directory: str) -> None:
    """At interpreter exit, write stats() to DIRECTORY/<pid>.json (if any
    Popen call was made), so a test driver can add up every interpreter."""
    global _dump_dir
    if _dump_dir is None:
        atexit.register(_dump)
    _dump_dir = directory

"""Which implementation `import spawnkit` gives: the compiled binding, or
the portable fallback (_fallback.py) when the binding cannot work here.

The C library decides whether it can (spawnkit_backend() is -ENOSYS where
pidfd_open is missing or refused, or for SPAWNKIT_BACKEND=fallback); this
module only adds the case it cannot see: no compiled binding at all (macOS,
or an install without a C compiler).  Decided once, at import.
"""
from __future__ import annotations

import errno
import os
from typing import Optional

__all__ = ["fallback_reason"]


def _why_fallback() -> Optional[str]:
    forced = os.environ.get("SPAWNKIT_BACKEND", "")
    if forced == "fallback":
        return "SPAWNKIT_BACKEND=fallback"
    try:
        from ._spawnkit import lib  # type: ignore[import-not-found]
    except ImportError as e:
        return f"no compiled binding ({e})"
    # Forcing "kernel" where there is none stays an error (backend() raises).
    if lib.spawnkit_backend() == -errno.ENOSYS and forced != "kernel":
        return "no pidfds here (pidfd_open is missing or refused)"
    return None


#: None when the binding is in use; else why the fallback is.
fallback_reason: Optional[str] = _why_fallback()

"""warm_stats() and warm_shutdown(): the library's warm-template counters.

The warm client (which calls fit, the key, the interpreters' lifecycle) is
in libspawnkit (src/warm/); run(), spawn() and aio.run() reach it with
warm=True.  See docs/warm.md.
"""
from __future__ import annotations

from typing import Any, Dict

from ._ffi import ffi, lib

__all__ = ["warm_stats", "warm_shutdown"]


def warm_stats() -> Dict[str, Any]:
    """Counts since this process started: calls started warm, calls that ran
    cold (with the reason of each), warm interpreters started, restarted
    (replacing one of the same key) and shut down."""
    st = ffi.new("struct spawnkit_warm_stats *")
    lib.spawnkit_warm_stats(st)
    reasons = {}
    for i in range(1, lib.SPAWNKIT_WARM_NR_REASONS):
        if st.reasons[i]:
            reasons[ffi.string(lib.spawnkit_warm_reason_name(i)).decode()] = st.reasons[i]
    return {"warm_spawns": st.warm_spawns, "cold_fallbacks": st.cold_fallbacks,
            "reasons": reasons, "started": st.started, "restarted": st.restarted,
            "shut_down": st.shut_down}


def warm_shutdown() -> None:
    """Stop and reap every warm interpreter of this process now (they also
    stop by themselves when idle and when this process exits)."""
    lib.spawnkit_warm_shutdown()

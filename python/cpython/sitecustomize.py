"""Loaded by every interpreter started with this directory on PYTHONPATH
(see run.py): routes subprocess through spawnkit and, when
SPAWNKIT_COMPAT_STATS_DIR is set, writes each interpreter's routed/fallback
counts there at exit.  SPAWNKIT_COMPAT_OFF=1 loads nothing (the stock run)."""
import os

if os.environ.get("SPAWNKIT_COMPAT_OFF") != "1":
    import spawnkit.compat
    spawnkit.compat.patch_subprocess()
    _dir = os.environ.get("SPAWNKIT_COMPAT_STATS_DIR")
    if _dir:
        spawnkit.compat.dump_at_exit(_dir)

"""A cgroup2 directory the tests may make children in: the cgroup2 mount
(from /proc/self/mountinfo) joined with this process's own cgroup (the
"0::" line of /proc/self/cgroup), as tests/spawn/cgroup_util.h finds it."""
from __future__ import annotations

import os
import time
from typing import Optional


def _cgroup2_mount() -> Optional[str]:
    with open("/proc/self/mountinfo") as f:
        for line in f:
            if " - cgroup2 " in line:
                return line.split()[4]
    return None


def _own_cgroup() -> Optional[str]:
    with open("/proc/self/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].strip()
    return None


def make_test_cgroup(name: str) -> Optional[str]:
    """A fresh cgroup "<ours>/<name>", or None where none can be made."""
    mnt, own = _cgroup2_mount(), _own_cgroup()
    if mnt is None or own is None:
        return None
    path = os.path.join(mnt + ("" if own == "/" else own), name)
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        pass
    except OSError:
        return None
    if not os.access(os.path.join(path, "cgroup.procs"), os.W_OK):
        return None
    return path


def remove_test_cgroup(path: str) -> None:
    """rmdir once its processes are gone (a killed process takes a moment)."""
    for _ in range(500):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)

"""run()'s option checks: each new option is validated once, here, with a
TypeError for a value of the wrong type and a ValueError for one out of
range, before anything is started.  Pure Python (no binding), so the
portable fallback checks the same way."""
from __future__ import annotations

import errno
import math
import os
import resource
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, Union

__all__ = ["RlimitsArg", "check_bool", "check_callback", "cgroup_fd", "milliseconds",
           "nice", "pass_fds", "pty_size", "rlimits", "sched_policy", "stdio_fd", "umask"]

#: Milliseconds treated as no limit at all (about 11.5 days).
_FOREVER_MS = 10 ** 9

RlimitsArg = Mapping[Union[str, int], Union[int, Tuple[int, int]]]

# RLIMIT_* by name and by number, as this platform's resource module has them.
_RLIMIT_NAMES: Dict[str, int] = {n: getattr(resource, n) for n in dir(resource)
                                 if n.startswith("RLIMIT_")}
_RLIMIT_NUMBERS = set(_RLIMIT_NAMES.values())
_RLIM_INFINITY = (1 << 64) - 1          # the kernel's RLIM64_INFINITY


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_bool(name: str, v: object) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"{name} must be True or False, not {v!r}")
    return v


def milliseconds(name: str, v: Optional[float], negative_is_zero: bool) -> int:
    """Seconds (int or float) as whole milliseconds, rounded up; -1 for None
    or a time too long to matter.  A negative time is 0 where subprocess
    takes it as already expired (timeouts), else a ValueError."""
    if v is None:
        return -1
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{name} must be a number of seconds or None, not {v!r}")
    if math.isnan(v):
        raise ValueError(f"{name} must not be NaN")
    if v < 0:
        if not negative_is_zero:
            raise ValueError(f"{name} must be >= 0, not {v!r}")
        return 0
    if v * 1000 >= _FOREVER_MS:
        return -1
    return math.ceil(v * 1000)


def stdio_fd(spec: Any) -> int:
    """The fd of a stdin/stdout/stderr argument that is an fd or a file
    (PIPE, DEVNULL and STDOUT are the caller's to handle first)."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec < 0:
            raise ValueError(f"invalid file descriptor {spec}")
        return spec
    if hasattr(spec, "fileno"):
        return int(spec.fileno())
    raise TypeError(f"invalid stdio spec {spec!r}: use PIPE, DEVNULL, STDOUT, an fd or a file")


def pass_fds(fds: Iterable[int]) -> List[int]:
    """The fds above 2 of pass_fds= (0-2 are the child's anyway), each
    checked open here, so EBADF names no program."""
    passed = []
    for fd in fds:
        if not _is_int(fd) or fd < 0:
            raise ValueError(f"invalid fd in pass_fds: {fd!r}")
        if fd > 2:
            os.fstat(fd)
            passed.append(fd)
    return passed


def check_callback(name: str, fn: object) -> Optional[Callable[[Any], object]]:
    if fn is not None and not callable(fn):
        raise TypeError(f"{name} must be callable or None, not {fn!r}")
    return fn  # type: ignore[return-value,unused-ignore]


def _rlimit_value(name: str, v: object) -> int:
    if not _is_int(v):
        raise TypeError(f"rlimits[{name}]: a limit must be an int, not {v!r}")
    assert isinstance(v, int)
    if v == resource.RLIM_INFINITY:
        return _RLIM_INFINITY
    if not 0 <= v < _RLIM_INFINITY:
        raise ValueError(f"rlimits[{name}]: {v} is not a limit "
                         "(>= 0, or resource.RLIM_INFINITY)")
    return v


def rlimits(value: Optional[RlimitsArg]) -> List[Tuple[int, int, int]]:
    """[(RLIMIT_* number, soft, hard)] of rlimits={name or number: (soft,
    hard) or both}; the kernel's infinity for resource.RLIM_INFINITY."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        raise TypeError(f"rlimits must be a mapping of RLIMIT_* to limits, not {value!r}")
    out = []
    for key, lim in value.items():
        if isinstance(key, str):
            if key not in _RLIMIT_NAMES:
                raise ValueError(f"rlimits: unknown resource {key!r} (RLIMIT_NOFILE, ...)")
            res = _RLIMIT_NAMES[key]
        elif _is_int(key):
            if key not in _RLIMIT_NUMBERS:
                raise ValueError(f"rlimits: unknown resource number {key!r}")
            res = key
        else:
            raise TypeError(f"rlimits: a resource is a name or a resource.RLIMIT_* "
                            f"number, not {key!r}")
        if isinstance(lim, tuple):
            if len(lim) != 2:
                raise ValueError(f"rlimits[{key!r}] must be (soft, hard), not {lim!r}")
            soft, hard = _rlimit_value(repr(key), lim[0]), _rlimit_value(repr(key), lim[1])
        else:
            soft = hard = _rlimit_value(repr(key), lim)
        if soft > hard:
            raise ValueError(f"rlimits[{key!r}]: soft limit {soft} above hard limit {hard}")
        out.append((res, soft, hard))
    return out


def nice(value: Optional[int]) -> Optional[int]:
    """An increment of the child's nice value, as nice -n takes it, in the
    library's range (spawnkit_action_nice(3))."""
    if value is None:
        return None
    if not _is_int(value):
        raise TypeError(f"nice must be an int (an increment, as nice -n takes it) or None, not {value!r}")
    if not -39 <= value <= 39:
        raise ValueError(f"nice must be within -39..39, not {value}")
    return value


# The policies anyone may set (the library's SCHED_POLICY action takes no
# other), by the kernel's numbers: os has no SCHED_BATCH/SCHED_IDLE where
# the platform lacks them (the portable fallback then refuses the option).
_SCHED_POLICIES = {getattr(os, "SCHED_OTHER", 0): "os.SCHED_OTHER",
                   getattr(os, "SCHED_BATCH", 3): "os.SCHED_BATCH",
                   getattr(os, "SCHED_IDLE", 5): "os.SCHED_IDLE"}


def sched_policy(value: Optional[int]) -> Optional[int]:
    """The child's scheduling policy, one the library sets without privilege
    (spawnkit_action_sched_policy(3)); None keeps the caller's."""
    if value is None:
        return None
    if not _is_int(value):
        raise TypeError(f"sched_policy must be an int (os.SCHED_OTHER, os.SCHED_BATCH or "
                        f"os.SCHED_IDLE) or None, not {value!r}")
    if value not in _SCHED_POLICIES:
        raise ValueError(f"sched_policy must be {', '.join(_SCHED_POLICIES.values())}, not {value}")
    return value


def umask(value: Optional[int]) -> Optional[int]:
    if value is None:
        return None
    if not _is_int(value):
        raise TypeError(f"umask must be an int (0o022, ...) or None, not {value!r}")
    if not 0 <= value <= 0o777:
        raise ValueError(f"umask must be within 0..0o777, not {value:#o}")
    return value


def pty_size(value: object) -> Tuple[int, int]:
    """(rows, cols) of pty_size=; None: 24 x 80."""
    if value is None:
        return 24, 80
    if not isinstance(value, tuple) or len(value) != 2:
        raise TypeError(f"pty_size must be (rows, cols), not {value!r}")
    rows, cols = value
    if not (_is_int(rows) and _is_int(cols)):
        raise TypeError(f"pty_size must be two ints (rows, cols), not {value!r}")
    if not (0 < rows <= 0xFFFF and 0 < cols <= 0xFFFF):
        raise ValueError(f"pty_size must be within 1..65535 each, not {value!r}")
    return rows, cols


def _check_cgroup_dir(fd: int, shown: object) -> None:
    """A cgroup2 directory we may move a child into: it has
    cgroup.controllers (v2 only) and a cgroup.procs we can write."""
    try:
        os.stat("cgroup.controllers", dir_fd=fd)
    except (FileNotFoundError, NotADirectoryError):
        raise ValueError(f"cgroup={shown!r} is not a cgroup2 directory") from None
    try:
        os.close(os.open("cgroup.procs", os.O_WRONLY | os.O_CLOEXEC, dir_fd=fd))
    except PermissionError:
        raise PermissionError(errno.EACCES, f"cgroup={shown!r}: cgroup.procs is not "
                              "writable by this process") from None


def cgroup_fd(value: Union[None, int, str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
              ) -> Tuple[int, bool]:
    """(fd of the cgroup2 directory, whether it is ours to close); (-1, False)
    for None.  A path is opened here; an fd is the caller's."""
    if value is None:
        return -1, False
    if isinstance(value, bool):
        raise TypeError(f"cgroup must be a path or a directory fd, not {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"cgroup: invalid file descriptor {value}")
        os.fstat(value)                              # EBADF here, naming no program
        _check_cgroup_dir(value, value)
        return value, False
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"cgroup must be a path or a directory fd, not {value!r}")
    fd = os.open(value, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _check_cgroup_dir(fd, value)
    except BaseException:
        os.close(fd)
        raise
    return fd, True

"""Every new run() option with a bad value: a TypeError for the wrong type,
a ValueError (or the OSError the value deserves) for one out of range,
raised before anything starts."""
from __future__ import annotations

import os
import resource
from typing import Any, Dict, List, Tuple, Type

import pytest

import spawnkit
from conftest import children_of

pytestmark = pytest.mark.native

BAD: List[Tuple[str, Dict[str, Any], Type[BaseException], str]] = [
    ("new_session not a bool", {"new_session": 1}, TypeError, "new_session"),
    ("new_session a string", {"new_session": "yes"}, TypeError, "new_session"),
    ("wait_delay a string", {"wait_delay": "1"}, TypeError, "wait_delay"),
    ("wait_delay a bool", {"wait_delay": True}, TypeError, "wait_delay"),
    ("wait_delay negative", {"wait_delay": -1}, ValueError, "wait_delay"),
    ("wait_delay nan", {"wait_delay": float("nan")}, ValueError, "wait_delay"),
    ("timeout a string", {"timeout": "1"}, TypeError, "timeout"),
    ("timeout nan", {"timeout": float("nan")}, ValueError, "timeout"),
    ("no_output_timeout a list", {"no_output_timeout": [1]}, TypeError, "no_output_timeout"),
    ("no_output_timeout nan", {"no_output_timeout": float("nan")}, ValueError,
     "no_output_timeout"),
    ("no_output_timeout without a pipe", {"no_output_timeout": 1, "capture_output": False},
     ValueError, "no_output_timeout"),
    ("kill_grace a string", {"kill_grace": "1"}, TypeError, "kill_grace"),
    ("kill_grace negative", {"kill_grace": -1}, ValueError, "kill_grace"),
    ("output_limit a float", {"output_limit": 1.5}, TypeError, "output_limit"),
    ("output_limit a bool", {"output_limit": True}, TypeError, "output_limit"),
    ("output_limit negative", {"output_limit": -1}, ValueError, "output_limit"),
    ("truncation_marker not a bool", {"truncation_marker": None}, TypeError,
     "truncation_marker"),
    ("capture_output not a bool", {"capture_output": "no"}, TypeError, "capture_output"),
    ("on_stdout not callable", {"on_stdout": 3}, TypeError, "on_stdout"),
    ("on_stderr not callable", {"on_stderr": "print"}, TypeError, "on_stderr"),
    ("on_stdout without a pipe", {"on_stdout": print, "capture_output": False}, ValueError,
     "on_stdout"),
    ("on_stderr with stderr=STDOUT", {"on_stderr": print, "stderr": spawnkit.STDOUT},
     ValueError, "on_stdout"),
    ("rlimits not a mapping", {"rlimits": [("RLIMIT_NOFILE", 5)]}, TypeError, "rlimits"),
    ("rlimits unknown name", {"rlimits": {"RLIMIT_NOPE": 5}}, ValueError, "RLIMIT_NOPE"),
    ("rlimits unknown number", {"rlimits": {999: 5}}, ValueError, "999"),
    ("rlimits key a float", {"rlimits": {1.0: 5}}, TypeError, "resource"),
    ("rlimits value a string", {"rlimits": {"RLIMIT_NOFILE": "5"}}, TypeError, "int"),
    ("rlimits value a bool", {"rlimits": {"RLIMIT_NOFILE": True}}, TypeError, "int"),
    ("rlimits negative", {"rlimits": {"RLIMIT_NOFILE": -5}}, ValueError, "limit"),
    ("rlimits 3-tuple", {"rlimits": {"RLIMIT_NOFILE": (1, 2, 3)}}, ValueError, "soft, hard"),
    ("rlimits soft above hard", {"rlimits": {resource.RLIMIT_NOFILE: (20, 10)}}, ValueError,
     "above"),
    ("umask a string", {"umask": "022"}, TypeError, "umask"),
    ("umask a bool", {"umask": False}, TypeError, "umask"),
    ("umask too big", {"umask": 0o1000}, ValueError, "umask"),
    ("umask negative", {"umask": -1}, ValueError, "umask"),
    ("nice a string", {"nice": "5"}, TypeError, "nice"),
    ("nice a bool", {"nice": True}, TypeError, "nice"),
    ("nice a float", {"nice": 1.0}, TypeError, "nice"),
    ("nice too big", {"nice": 40}, ValueError, "nice"),
    ("nice too small", {"nice": -40}, ValueError, "nice"),
    ("sched_policy a string", {"sched_policy": "idle"}, TypeError, "sched_policy"),
    ("sched_policy a bool", {"sched_policy": True}, TypeError, "sched_policy"),
    ("sched_policy a float", {"sched_policy": 5.0}, TypeError, "sched_policy"),
    ("sched_policy SCHED_FIFO", {"sched_policy": 1}, ValueError, "sched_policy"),
    ("sched_policy SCHED_RR", {"sched_policy": 2}, ValueError, "sched_policy"),
    ("sched_policy SCHED_DEADLINE", {"sched_policy": 6}, ValueError, "sched_policy"),
    ("sched_policy with reset-on-fork", {"sched_policy": 5 | 0x40000000}, ValueError,
     "sched_policy"),
    ("sched_policy negative", {"sched_policy": -1}, ValueError, "sched_policy"),
    ("cgroup a float", {"cgroup": 1.5}, TypeError, "cgroup"),
    ("cgroup a bool", {"cgroup": True}, TypeError, "cgroup"),
    ("cgroup negative fd", {"cgroup": -3}, ValueError, "cgroup"),
    ("cgroup not a cgroup2 dir", {"cgroup": "/tmp"}, ValueError, "not a cgroup2"),
    ("cgroup missing", {"cgroup": "/nonexistent-spawnkit-cgroup"}, FileNotFoundError,
     "nonexistent-spawnkit-cgroup"),
    ("cgroup a file", {"cgroup": "/etc/hostname"}, NotADirectoryError, "hostname"),
    ("warm not a bool", {"warm": 1}, TypeError, "warm"),
    ("preload without warm", {"preload": ["json"]}, ValueError, "preload"),
]


@pytest.mark.parametrize("kw,exc,words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_value_is_refused_before_anything_starts(kw: Dict[str, Any],
                                                     exc: Type[BaseException],
                                                     words: str) -> None:
    before = set(children_of(os.getpid()))
    with pytest.raises(exc, match=words):
        spawnkit.run(["true"], **kw)
    assert set(children_of(os.getpid())) <= before


def test_cgroup_fd_that_is_not_open_is_ebadf() -> None:
    fd = os.open("/dev/null", os.O_RDONLY)
    os.close(fd)
    with pytest.raises(OSError) as ei:
        spawnkit.run(["true"], cgroup=fd)
    assert ei.value.errno == 9                      # EBADF


def test_good_values_of_every_new_option_are_taken() -> None:
    r = spawnkit.run(["true"], new_session=False, wait_delay=0, timeout=30,
                     no_output_timeout=30, output_limit=0, truncation_marker=False,
                     on_stdout=lambda b: None, on_stderr=lambda b: None,
                     rlimits={"RLIMIT_NOFILE": 64, resource.RLIMIT_CORE: (0, 0)},
                     umask=0o077, kill_grace=0)
    assert r.returncode == 0

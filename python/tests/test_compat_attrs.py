"""The drop-in's process attributes: start_new_session, process_group and
umask are routed through spawnkit's SETSID, SETPGID and UMASK actions.

Each call runs once under stock subprocess and once routed (through
patch_subprocess() and through spawnkit.compat.subprocess), and the child
reports its own session, process group and umask: the reports must be
equal, say what the option asks for, and the routed calls must be counted
as routed.  Bad values raise what stock raises."""
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any, Dict, Optional, Tuple

import pytest

import spawnkit.compat as compat
from spawnkit.compat import subprocess as sks

pytestmark = pytest.mark.native

# The child's view of itself, relative to its parent (pids differ per run).
CHILD = ("import json, os, sys\n"
         "m = os.umask(0)\n"
         "pid, ppid = os.getpid(), int(sys.argv[1])\n"
         "print(json.dumps({'sid_is_own': os.getsid(0) == pid,\n"
         "                  'pgid_is_own': os.getpgid(0) == pid,\n"
         "                  'sid_is_parents': os.getsid(0) == os.getsid(ppid),\n"
         "                  'pgid': {os.getpgid(ppid): 'parents', pid: 'own'}.get(os.getpgid(0),\n"
         "                                                                  os.getpgid(0)),\n"
         "                  'umask': oct(m)}))\n")

# How a call is made: stock, patched subprocess, or the compat module.
Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def _stock(*a: Any, **kw: Any) -> "subprocess.CompletedProcess[str]":
    compat.unpatch_subprocess()
    r: "subprocess.CompletedProcess[str]" = subprocess.run(*a, **kw)
    return r


def _patched(*a: Any, **kw: Any) -> "subprocess.CompletedProcess[str]":
    compat.patch_subprocess()
    try:
        r: "subprocess.CompletedProcess[str]" = subprocess.run(*a, **kw)
    finally:
        compat.unpatch_subprocess()
    return r


def _module(*a: Any, **kw: Any) -> "subprocess.CompletedProcess[str]":
    compat.unpatch_subprocess()
    r: "subprocess.CompletedProcess[str]" = sks.run(*a, **kw)
    return r


ROUTES: Dict[str, Runner] = {"patch": _patched, "module": _module}


@pytest.fixture(autouse=True)
def clean() -> Iterator[None]:
    compat.unpatch_subprocess()
    compat.reset_stats()
    yield
    compat.unpatch_subprocess()


@pytest.fixture
def leader() -> Iterator[int]:
    """A process leading a group of its own in our session (a group a
    child can join with process_group=N)."""
    p = subprocess.Popen(["sleep", "60"], process_group=0)
    try:
        yield p.pid
    finally:
        p.kill()
        p.wait()


def _report(run: Runner, **kw: Any) -> Dict[str, Any]:
    r = run([sys.executable, "-c", CHILD, str(os.getpid())], capture_output=True,
            text=True, check=True, **kw)
    rep: Dict[str, Any] = json.loads(r.stdout)
    return rep


def _own(pgid: Any, leader: int) -> Any:
    return "leader" if pgid == leader else pgid


# option -> what the child must report (None: the default's value)
CASES: Dict[str, Tuple[Dict[str, Any], Dict[str, Any]]] = {
    "start_new_session": ({"start_new_session": True},
                          {"sid_is_own": True, "pgid_is_own": True, "sid_is_parents": False,
                           "pgid": "own"}),
    "start_new_session_false": ({"start_new_session": False}, {}),
    "process_group_0": ({"process_group": 0},
                        {"pgid_is_own": True, "sid_is_own": False, "sid_is_parents": True,
                         "pgid": "own"}),
    "process_group_negative": ({"process_group": -5}, {}),
    "process_group_leader": ({"process_group": "LEADER"}, {"pgid": "leader"}),
    "umask": ({"umask": 0o27}, {"umask": "0o27"}),
    "umask_0": ({"umask": 0}, {"umask": "0o0"}),
    "umask_high_bits": ({"umask": 0o7077}, {"umask": "0o77"}),   # umask(2) keeps 0777
    "umask_negative": ({"umask": -1}, {}),
    "all": ({"start_new_session": True, "umask": 0o2, "cwd": "/"},
            {"sid_is_own": True, "pgid_is_own": True, "sid_is_parents": False,
             "pgid": "own", "umask": "0o2"}),
}

DEFAULT = {"sid_is_own": False, "pgid_is_own": False, "sid_is_parents": True,
           "pgid": "parents", "umask": oct(os.umask(os.umask(0o22)))}


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_routed_attribute_is_the_childs(name: str, route: str, leader: int) -> None:
    kw, want = CASES[name]
    if kw.get("process_group") == "LEADER":
        kw = dict(kw, process_group=leader)
    stock = _report(_stock, **kw)
    compat.reset_stats()
    ours = _report(ROUTES[route], **kw)
    assert compat.stats() == {"routed": 1, "fallback": 0, "reasons": {}}
    stock["pgid"], ours["pgid"] = _own(stock["pgid"], leader), _own(ours["pgid"], leader)
    assert ours == stock
    assert ours == dict(DEFAULT, **want)


def test_session_child_is_killed_with_its_group() -> None:
    """A routed start_new_session child leads its group: killpg reaches its
    own children too (what the option is used for)."""
    compat.patch_subprocess()
    p = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE,
                         start_new_session=True, text=True)
    assert p.stdout is not None
    grandchild = int(p.stdout.readline())
    assert os.getpgid(grandchild) == p.pid
    os.killpg(p.pid, signal.SIGKILL)
    assert p.wait() == -signal.SIGKILL
    p.stdout.close()
    assert compat.stats()["routed"] == 1


# ---- bad values: what stock raises, where it raises it --------------------

def _err(run: Callable[[], object]) -> Optional[Tuple[type, Any, Any, str]]:
    try:
        run()
    except BaseException as e:  # noqa: B902 - comparing whatever stock raises
        return (type(e), getattr(e, "errno", None), getattr(e, "filename", None), str(e))
    return None


def _no_such_group() -> int:
    """A process group id no process has (setpgid to it: EPERM)."""
    with open("/proc/sys/kernel/pid_max") as f:
        n = int(f.read()) - 1
    while os.path.exists(f"/proc/{n}"):
        n -= 1
    return n


BAD: Dict[str, Dict[str, Any]] = {
    "setpgid_after_setsid": {"start_new_session": True, "process_group": 0},  # EPERM
    "no_such_group": {"process_group": _no_such_group()},                    # EPERM
    "umask_overflow": {"umask": 1 << 40},
    "umask_type": {"umask": "022"},
    "umask_none": {"umask": None},
    "process_group_overflow": {"process_group": 1 << 40},
    "process_group_underflow": {"process_group": -(1 << 40)},
    "process_group_type": {"process_group": 1.5},
}


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_values_raise_what_stock_raises(name: str, route: str) -> None:
    kw = BAD[name]
    for argv in (["true"], ["/bin/true"]):          # fork_exec's and posix_spawn's paths
        stock = _err(lambda: _stock(argv, **kw))
        ours = _err(lambda: ROUTES[route](argv, **kw))
        assert stock is not None, (name, argv)
        assert ours == stock, (name, argv)
    s = compat.stats()
    assert s["routed"] == 0 and s["fallback"] == 2, s


def test_odd_truth_value_goes_to_stock() -> None:
    """start_new_session that is no bool or int is left to stock (counted):
    3.11's _posixsubprocess wants an int (TypeError), later ones its truth;
    either way the outcome is stock's."""
    def outcome(run: Runner) -> Any:
        got: Dict[str, Any] = {}
        err = _err(lambda: got.update(_report(run, start_new_session="yes")))
        return err or got
    stock = outcome(_stock)
    compat.reset_stats()
    assert outcome(_patched) == stock
    assert compat.stats() == {"routed": 0, "fallback": 1,
                              "reasons": {"start_new_session-value": 1}}


@pytest.mark.parametrize("kw", [{"start_new_session": True}, {"process_group": 0},
                                {"umask": 0o22}, {"process_group": -2}])
def test_env_source_as_stock(kw: Dict[str, Any]) -> None:
    """With close_fds=False and an absolute program stock would posix_spawn
    (passing os.environ), but these options make it fork_exec (passing the
    C environ): after a C setenv the child sees the variable, routed too."""
    import ctypes
    libc = ctypes.CDLL(None)
    libc.setenv(b"SK_C_ONLY", b"1", 1)
    code = "import os; print('SK_C_ONLY' in os.environ)"
    try:
        got = [run([sys.executable, "-c", code], close_fds=False, capture_output=True,
                   text=True, check=True, **kw).stdout for run in (_stock, _patched, _module)]
    finally:
        libc.unsetenv(b"SK_C_ONLY")
    assert got == ["True\n"] * 3
    assert compat.stats() == {"routed": 2, "fallback": 0, "reasons": {}}


def test_posix_spawn_condition_follows_closefrom(monkeypatch: pytest.MonkeyPatch) -> None:
    """3.13's stock also posix_spawns with close_fds=True where it can close
    fds there (_HAVE_POSIX_SPAWN_CLOSEFROM): the drop-in's mirror of that
    condition (which environ the child gets) follows the flag."""
    from spawnkit.compat import _route
    a = {"close_fds": True, "pass_fds": (), "cwd": None, "p2cread": -1,
         "c2pwrite": -1, "errwrite": -1}
    monkeypatch.setattr(subprocess, "_USE_POSIX_SPAWN", True)
    monkeypatch.setattr(subprocess, "_HAVE_POSIX_SPAWN_CLOSEFROM", False, raising=False)
    assert not _route._stock_would_posix_spawn(a, "/bin/true", (-1, False, -1))
    monkeypatch.setattr(subprocess, "_HAVE_POSIX_SPAWN_CLOSEFROM", True, raising=False)
    assert _route._stock_would_posix_spawn(a, "/bin/true", (-1, False, -1))
    for attrs in ((0, False, -1), (-1, True, -1), (-1, False, 0)):
        assert not _route._stock_would_posix_spawn(a, "/bin/true", attrs)
    assert not _route._stock_would_posix_spawn(a, "true", (-1, False, -1))

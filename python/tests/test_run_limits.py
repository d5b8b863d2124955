"""rlimits=, umask=, nice=, sched_policy= and cgroup= take effect in the
child (library spawn actions, spawnkit_action_setrlimit/_umask/_nice/
_sched_policy and CLONE_INTO_CGROUP), and only there."""
from __future__ import annotations

import os
import resource
import time

import pytest

import spawnkit
from cgroup_util import make_test_cgroup, remove_test_cgroup

pytestmark = pytest.mark.native


def test_rlimit_by_name_both_limits_from_one_int() -> None:
    r = spawnkit.run(["sh", "-c", "ulimit -Sn; ulimit -Hn"], rlimits={"RLIMIT_NOFILE": 37})
    assert r.stdout.split() == [b"37", b"37"]
    assert resource.getrlimit(resource.RLIMIT_NOFILE) != (37, 37)     # ours untouched


def test_rlimit_by_number_soft_and_hard() -> None:
    r = spawnkit.run(["sh", "-c", "ulimit -Sn; ulimit -Hn"],
                     rlimits={resource.RLIMIT_NOFILE: (21, 42)})
    assert r.stdout.split() == [b"21", b"42"]


def test_rlimit_infinity_and_several_at_once() -> None:
    hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
    r = spawnkit.run(["sh", "-c", "ulimit -Sc; ulimit -Sn"],
                     rlimits={"RLIMIT_CORE": (0, hard), "RLIMIT_NOFILE": 50})
    assert r.stdout.split() == [b"0", b"50"]
    if hard == resource.RLIM_INFINITY:
        r = spawnkit.run(["sh", "-c", "ulimit -Hc"],
                         rlimits={"RLIMIT_CORE": (0, resource.RLIM_INFINITY)})
        assert r.stdout.strip() == b"unlimited"


def test_rlimit_that_stops_the_child_is_seen_by_it(tmp_path: "os.PathLike[str]") -> None:
    # RLIMIT_FSIZE of 10 bytes: no file the child writes grows past 10
    path = os.path.join(os.fspath(tmp_path), "f")
    r = spawnkit.run(["sh", "-c", 'head -c 100 /dev/zero > "$0"; wc -c < "$0"', path],
                     rlimits={"RLIMIT_FSIZE": 10})
    assert r.stdout.strip() == b"10"
    r = spawnkit.run(["sh", "-c", 'head -c 100 /dev/zero > "$0"; wc -c < "$0"', path])
    assert r.stdout.strip() == b"100"                    # the control


def test_raising_a_hard_limit_is_refused_as_an_oserror() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if os.geteuid() == 0 or hard == resource.RLIM_INFINITY:
        pytest.skip("root (or an infinite hard limit) may raise it")
    with pytest.raises(PermissionError):
        spawnkit.run(["true"], rlimits={"RLIMIT_NOFILE": (soft, hard + 1)})


def test_umask_takes_effect_in_the_child_only() -> None:
    ours = os.umask(0o022)
    os.umask(ours)
    for mask in (0o077, 0o000, 0o027):
        r = spawnkit.run(["sh", "-c", "umask"], umask=mask)
        assert int(r.stdout, 8) == mask
    assert os.umask(ours) == ours


def test_nice_raises_the_childs_value_and_its_childrens_clamped_at_19() -> None:
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    want = min(19, ours + 3)
    assert want != ours                         # room above ours to see it
    r = spawnkit.run(["sh", "-c", "nice; sh -c nice"], nice=3)
    assert r.stdout.split() == [str(want).encode()] * 2
    assert spawnkit.run(["nice"], nice=39).stdout == b"19\n"
    assert spawnkit.run(["nice"], nice=0).stdout == f"{ours}\n".encode()
    assert os.getpriority(os.PRIO_PROCESS, 0) == ours


def _policy_of(out: bytes) -> "list[int]":
    """The "policy" lines of /proc/PID/sched files in out."""
    return [int(line.split(b":")[1]) for line in out.splitlines() if line.startswith(b"policy")]


@pytest.mark.skipif(not os.path.exists("/proc/self/sched"), reason="no /proc/PID/sched")
def test_sched_policy_is_the_childs_and_its_childrens_nice_kept() -> None:
    ours = os.sched_getscheduler(0)
    probe = ["sh", "-c", "cat /proc/$$/sched; sh -c 'cat /proc/$$/sched'; nice"]
    for pol in (os.SCHED_IDLE, os.SCHED_BATCH, os.SCHED_OTHER):
        r = spawnkit.run(probe, sched_policy=pol, nice=2)
        assert _policy_of(r.stdout) == [pol, pol]
        assert r.stdout.splitlines()[-1] == str(min(19, os.getpriority(os.PRIO_PROCESS, 0) + 2)).encode()
    assert _policy_of(spawnkit.run(probe).stdout) == [ours, ours]
    assert os.sched_getscheduler(0) == ours


def test_umask_shapes_a_created_file(tmp_path: "os.PathLike[str]") -> None:
    path = os.path.join(os.fspath(tmp_path), "f")
    spawnkit.run(["sh", "-c", f"echo x > {path}"], umask=0o077)
    assert os.stat(path).st_mode & 0o777 == 0o600


# A fresh cgroup per run: on some kernels (seen on 6.18.44) a cgroup that
# was ever written cgroup.kill kills every later CLONE_INTO_CGROUP child at
# birth (its kill_seq is compared with the parent cgroup's), and run()
# kills the cgroup at the end of every run.
@pytest.mark.parametrize("as_fd", [False, True], ids=["path", "fd"])
def test_cgroup_places_the_child_and_leaves_nothing_inside(as_fd: bool) -> None:
    cg = make_test_cgroup(f"spawnkit-py-{os.getpid()}-place-{int(as_fd)}")
    if cg is None:
        pytest.skip("no writable cgroup2 here")
    try:
        fd = os.open(cg, os.O_RDONLY | os.O_DIRECTORY)
        try:
            # an escapee: a session of its own, its parent gone; only the
            # cgroup still knows it
            r = spawnkit.run(["sh", "-c", "setsid sleep 100 >/dev/null 2>&1 & cat /proc/self/cgroup"],
                             cgroup=fd if as_fd else cg, timeout=60)
            assert r.returncode == 0
            assert r.stdout.decode().strip().endswith("::/" + os.path.relpath(
                cg, _mount_of(cg)))
            os.fstat(fd)                                  # the caller's fd stays open
        finally:
            os.close(fd)
        assert _empties(cg)                               # the escapee is gone
    finally:
        remove_test_cgroup(cg)


def _empties(cg: str) -> bool:
    """True once cgroup.procs lists nobody (a killed process takes a
    moment to go)."""
    for _ in range(500):
        with open(os.path.join(cg, "cgroup.procs")) as f:
            if not f.read():
                return True
        time.sleep(0.01)
    return False


def _mount_of(path: str) -> str:
    with open("/proc/self/mountinfo") as f:
        for line in f:
            if " - cgroup2 " in line and path.startswith(line.split()[4]):
                return line.split()[4]
    raise AssertionError("no cgroup2 mount")

"""The portable fallback (spawnkit/_fallback.py): chosen when asked for or
when there are no pidfds, and run() with the binding's semantics on top of
subprocess.  These run in every suite run: they call the fallback directly."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import spawnkit
from spawnkit import _fallback
from conftest import is_dead, keyboard_interrupt_after, wait_dead


def test_backend_is_what_this_run_expects() -> None:
    # `make test-fallback` runs the suite forced and under seccomp filters
    # and says which backend it must find; a plain run finds the binding's.
    want = os.environ.get("SPAWNKIT_EXPECT_BACKEND")
    if want:
        assert spawnkit.backend() == want
    else:
        assert spawnkit.backend() in ("user", "kernel")
        assert spawnkit.fallback_reason is None


def test_forced_by_the_environment() -> None:
    code = "import spawnkit; print(spawnkit.backend(), spawnkit.run(['echo', 'x']).stdout)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "SPAWNKIT_BACKEND": "fallback"}, check=True)
    assert out.stdout == "fallback b'x\\n'\n"


def test_no_templates() -> None:
    with pytest.raises(OSError) as e:
        _fallback.Template("/bin/true")
    assert e.value.errno == 38


def test_result_and_errors_match_run() -> None:
    r = _fallback.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert isinstance(r, spawnkit.CompletedProcess)
    assert (r.returncode, r.stdout, r.stderr, r.truncated) == (3, b"out\n", b"err\n", False)
    with pytest.raises(FileNotFoundError):
        _fallback.run(["/nonexistent/program"])
    with pytest.raises(subprocess.CalledProcessError):
        _fallback.run(["false"], check=True)
    assert _fallback.run(["cat"], input="é\r\n", text=True).stdout == "é\n"
    assert _fallback.run(["sh", "-c", "readlink /proc/self/fd/0"]).stdout == b"/dev/null\n"


def test_timeout_kills_the_process_group() -> None:
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as e:
        _fallback.run(["sh", "-c", "sleep 60 & echo $!; wait"], timeout=0.5)
    assert time.monotonic() - t0 < 10
    grandchild = int(e.value.output)
    assert wait_dead([grandchild])


def test_timeout_kills_an_orphan_that_left_the_session() -> None:
    with pytest.raises(subprocess.TimeoutExpired) as e:
        _fallback.run(["sh", "-c", "setsid sleep 60 & echo $!; sleep 60"], timeout=0.5,
                      kill_grace=5)
    assert wait_dead([int(e.value.output)])


def test_no_output_timeout() -> None:
    with pytest.raises(spawnkit.NoOutputTimeoutExpired):
        _fallback.run(["sh", "-c", "echo a; sleep 60"], no_output_timeout=0.3)


def test_output_limit_keeps_head_and_tail() -> None:
    r = _fallback.run(["sh", "-c", "printf 'HEAD'; head -c 100000 /dev/zero; printf 'TAIL'"],
                      output_limit=8)
    assert r.stdout == b"HEADTAIL" and r.stdout_dropped == 100000 and r.truncated


def test_interrupt_leaves_nothing_behind() -> None:
    with keyboard_interrupt_after(0.3), pytest.raises(KeyboardInterrupt):
        _fallback.run(["sh", "-c", "sleep 60 & echo $! > /dev/null; sleep 60"])


def test_spawn_is_a_popen_with_kill_tree() -> None:
    p = _fallback.spawn(["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE)
    assert p.stdout is not None
    grandchild = int(p.stdout.readline())
    assert isinstance(p, subprocess.Popen) and p.pidfd is None
    p.kill_tree()
    assert p.wait() == -signal.SIGKILL
    assert wait_dead([grandchild]) and is_dead(p.pid)
    p.stdout.close()


def test_imports_without_any_compiled_binding(tmp_path: Path) -> None:
    # As on macOS: the package without its extension module still imports,
    # says why, and runs commands.
    import shutil
    pkg = os.path.dirname(spawnkit.__file__)
    shutil.copytree(pkg, tmp_path / "spawnkit",
                    ignore=shutil.ignore_patterns("_spawnkit*", "__pycache__"))
    code = ("import spawnkit, spawnkit.aio, asyncio\n"
            "assert spawnkit.__file__.startswith(%r)\n"
            "print(spawnkit.backend(), spawnkit.fallback_reason.startswith('no compiled binding'))\n"
            "print(spawnkit.run(['echo', 'x']).stdout, asyncio.run(spawnkit.aio.run(['echo', 'y'])).stdout)\n"
            % str(tmp_path))
    env = {k: v for k, v in os.environ.items() if k != "SPAWNKIT_BACKEND"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "fallback True\nb'x\\n' b'y\\n'\n"


def test_drop_in_leaves_everything_to_stock_in_the_fallback() -> None:
    code = ("import json, subprocess, spawnkit\n"
            "spawnkit.patch_subprocess()\n"
            "out = subprocess.run(['echo', 'x'], capture_output=True).stdout\n"
            "print(spawnkit.backend(), out, json.dumps(spawnkit.compat.stats()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "SPAWNKIT_BACKEND": "fallback"})
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("fallback b'x\\n' "
                          '{"routed": 0, "fallback": 1, "reasons": {"backend:fallback": 1}}\n')


def test_new_run_options_in_the_fallback() -> None:
    # the same options, checked the same way, where there is no library
    got: "list[str]" = []
    r = _fallback.run(["sh", "-c", "umask; ulimit -n; printf 'h\\303'; printf '\\251'"],
                      umask=0o027, rlimits={"RLIMIT_NOFILE": 33}, encoding="utf-8",
                      on_stdout=got.append)
    assert r.stdout == "0027\n33\nhé" == "".join(got)
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    r = _fallback.run(["sh", "-c", "nice; sh -c nice"], nice=3)
    assert r.stdout.split() == [str(min(19, ours + 3)).encode()] * 2
    assert _fallback.run(["nice"], nice=39).stdout == b"19\n"
    with pytest.raises(ValueError, match="nice"):
        _fallback.run(["true"], nice=40)
    r = _fallback.run(["sh", "-c", "sed -n 's/^policy *: *//p' /proc/$$/sched"],
                      sched_policy=os.SCHED_IDLE)
    assert r.stdout.split() == [str(os.SCHED_IDLE).encode()]
    with pytest.raises(ValueError, match="sched_policy"):
        _fallback.run(["true"], sched_policy=1)
    r = _fallback.run(["sh", "-c", "sleep 100 & echo $!; exit 4"], wait_delay=0.3, timeout=60)
    assert r.returncode == 4 and wait_dead([int(r.stdout)])
    r = _fallback.run(["sh", "-c", "sleep 100 >/dev/null 2>&1 & echo $!"], timeout=60)
    assert wait_dead([int(r.stdout)])                 # its session's group, killed after
    with pytest.raises(OSError) as e:
        _fallback.run(["true"], cgroup="/sys/fs/cgroup")
    assert e.value.errno == 95                        # EOPNOTSUPP
    with pytest.raises(OSError) as e:
        _fallback.run(["true"], pty=True)
    assert e.value.errno == 95
    bads: "list[dict[str, Any]]" = [
        {"umask": "x"}, {"rlimits": {"RLIMIT_NOPE": 1}}, {"wait_delay": -1},
        {"new_session": 1}, {"on_stdout": 3}, {"truncation_marker": None}, {"pty": 1},
        {"pty_size": (24, 80)}, {"pty": True, "pty_size": (0, 1)}]
    for bad in bads:
        with pytest.raises((TypeError, ValueError)):
            _fallback.run(["true"], **bad)

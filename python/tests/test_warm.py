"""Warm templates (warm=True): results as cold, bad tools and bad warm
interpreters contained, lifecycle and counters.  The byte-for-byte corpus is
tests/warm/equivalence.py (make test-warm); these are the behaviours around it."""
import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import spawnkit
import spawnkit.aio

# Warm interpreters are templates: not there in the portable fallback.
pytestmark = pytest.mark.native
from conftest import children_of, in_threads, wait_dead

PY = os.path.realpath(sys.executable)


@pytest.fixture(autouse=True)
def warm_clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for k in list(os.environ):
        if k.startswith("SPAWNKIT_WARM"):
            monkeypatch.delenv(k)
    yield
    spawnkit.warm_shutdown()


def delta(before: dict[str, Any], key: str | None, reason: str | None = None) -> int:
    """How far the counter `key`, or the count of cold runs for `reason`,
    moved since `before` (a warm_stats())."""
    after = spawnkit.warm_stats()
    if reason:
        n: int = after["reasons"].get(reason, 0) - before["reasons"].get(reason, 0)
    else:
        assert key is not None
        n = after[key] - before[key]
    return n


def warm_pids() -> list[int]:
    """Our children that are warm interpreters (their cmdline holds the bootstrap)."""
    out = []
    for pid in children_of(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"spawnkit warm interpreter" in f.read():
                    out.append(pid)
        except OSError:
            pass
    return out


def test_warm_equals_cold_and_is_counted() -> None:
    code = "import sys, os; print(sys.argv, os.getcwd(), os.environ.get('W')); sys.exit(3)"
    cold = spawnkit.run([PY, "-c", code, "a"], env={"W": "1"}, cwd="/tmp")
    st = spawnkit.warm_stats()
    warm = spawnkit.run([PY, "-c", code, "a"], env={"W": "1"}, cwd="/tmp", warm=True)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert delta(st, "warm_spawns") == 1
    assert len(warm_pids()) == 1


def test_tool_is_the_callers_child() -> None:
    r = spawnkit.run([PY, "-c", "import os; print(os.getppid())"], warm=True)
    assert int(r.stdout) == os.getpid()


def test_not_python_runs_cold_with_reason() -> None:
    st = spawnkit.warm_stats()
    r = spawnkit.run(["/bin/echo", "hi"], warm=True)
    assert r.stdout == b"hi\n"
    assert delta(st, None, "not-python") == 1 and delta(st, "warm_spawns") == 0


def test_shell_script_and_tty_run_cold(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("#!/bin/sh\necho shebang\n")
    script.chmod(0o755)
    st = spawnkit.run([str(script)], warm=True)
    assert st.stdout == b"shebang\n"
    import pty
    master, slave = pty.openpty()
    try:
        before = spawnkit.warm_stats()
        r = spawnkit.run([PY, "-c", "import sys; print(sys.stdout.isatty())"],
                         stdout=slave, warm=True)
        assert r.returncode == 0 and delta(before, None, "tty") == 1
        assert os.read(master, 100).strip() == b"True"
    finally:
        os.close(master)
        os.close(slave)


def test_timeout_kills_hanging_tool_and_interpreter_survives() -> None:
    spawnkit.run([PY, "-c", "pass"], warm=True)
    (interp,) = warm_pids()
    with pytest.raises(subprocess.TimeoutExpired):
        spawnkit.run([PY, "-c", "import time; time.sleep(60)"], timeout=0.5, warm=True)
    st = spawnkit.warm_stats()
    r = spawnkit.run([PY, "-c", "print('next')"], warm=True)
    assert r.stdout == b"next\n" and delta(st, "warm_spawns") == 1
    assert warm_pids() == [interp]


def test_crash_flood_fork_affect_only_their_call() -> None:
    st = spawnkit.warm_stats()
    r = spawnkit.run([PY, "-c", "import ctypes; ctypes.string_at(0)"], warm=True)
    assert r.returncode == -signal.SIGSEGV
    r = spawnkit.run([PY, "-c", "import os; os.write(1, b'x' * (1 << 22))"],
                     output_limit=1000, warm=True)
    assert r.returncode == 0 and r.stdout_dropped == (1 << 22) - 1000
    with pytest.raises(subprocess.TimeoutExpired):
        spawnkit.run([PY, "-c", "import os, time\nif os.fork() == 0: time.sleep(60)\ntime.sleep(60)"],
                     timeout=0.5, warm=True)
    r = spawnkit.run([PY, "-c", "import os; os.setsid(); os.umask(0); print('ok')"], warm=True)
    assert r.stdout == b"ok\n"
    assert delta(st, "warm_spawns") == 4 and delta(st, "cold_fallbacks") == 0
    assert len(warm_pids()) == 1


def test_dead_interpreter_is_replaced() -> None:
    spawnkit.run([PY, "-c", "pass"], warm=True)
    (interp,) = warm_pids()
    os.kill(interp, signal.SIGKILL)
    assert wait_dead([interp])
    st = spawnkit.warm_stats()
    r = spawnkit.run([PY, "-c", "print(7)"], warm=True)
    assert r.stdout == b"7\n"
    assert delta(st, "shut_down") == 1 and delta(st, "started") == 1
    assert warm_pids() and interp not in warm_pids()


def test_hung_interpreter_call_runs_cold(monkeypatch: pytest.MonkeyPatch) -> None:
    spawnkit.run([PY, "-c", "pass"], warm=True)
    (interp,) = warm_pids()
    os.kill(interp, signal.SIGSTOP)
    monkeypatch.setenv("SPAWNKIT_WARM_TIMEOUT", "0.5")
    st = spawnkit.warm_stats()
    r = spawnkit.run([PY, "-c", "print('cold anyway')"], warm=True)
    assert r.stdout == b"cold anyway\n"
    assert delta(st, None, "failed") == 1 and delta(st, "shut_down") == 1
    assert wait_dead([interp]) and not warm_pids()


def test_invalidated_by_a_new_pth_then_restarted(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    vpy = str(venv / "bin" / "python")
    code = "import sys; print([p for p in sys.path if 'extra' in p])"
    assert spawnkit.run([vpy, "-c", code], warm=True).stdout == b"[]\n"
    site = spawnkit.run([vpy, "-c", "import site; print(site.getsitepackages()[0])"],
                        warm=True).stdout.decode().strip()
    extra = tmp_path / "extra"
    extra.mkdir()
    with open(os.path.join(site, "x.pth"), "w") as f:
        f.write(str(extra) + "\n")
    st = spawnkit.warm_stats()
    assert spawnkit.run([vpy, "-c", code], warm=True).stdout == f"[{str(extra)!r}]\n".encode()
    assert delta(st, None, "invalidated") == 1
    assert spawnkit.run([vpy, "-c", code], warm=True).stdout == f"[{str(extra)!r}]\n".encode()
    assert delta(st, "restarted") == 1 and delta(st, "warm_spawns") == 1


def test_idle_shutdown_and_periodic_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPAWNKIT_WARM_IDLE", "0.3")
    spawnkit.run([PY, "-c", "pass"], warm=True)
    (interp,) = warm_pids()
    assert wait_dead([interp])
    st = spawnkit.warm_stats()
    assert spawnkit.run([PY, "-c", "print(1)"], warm=True).stdout == b"1\n"
    assert delta(st, "shut_down") == 1 and delta(st, "started") == 1
    monkeypatch.setenv("SPAWNKIT_WARM_IDLE", "60")
    monkeypatch.setenv("SPAWNKIT_WARM_MAX_CALLS", "2")
    st = spawnkit.warm_stats()
    for _ in range(5):
        assert spawnkit.run([PY, "-c", "print(2)"], warm=True).stdout == b"2\n"
    assert delta(st, "warm_spawns") == 5 and delta(st, "restarted") >= 2


def test_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPAWNKIT_WARM", "0")
    st = spawnkit.warm_stats()
    assert spawnkit.run([PY, "-c", "print(1)"], warm=True).stdout == b"1\n"
    assert delta(st, None, "disabled") == 1 and not warm_pids()


def test_pass_fds_and_nothing_else(tmp_path: Path) -> None:
    r, w = os.pipe()
    try:
        out = spawnkit.run([PY, "-c", "import os; os.write(int(os.environ['FD']), b'via fd');"
                            "print(sorted(int(x) for x in os.listdir('/proc/self/fd')))"],
                           pass_fds=[w], env={"FD": str(w)}, warm=True)
        os.close(w)
        w = -1
        assert os.read(r, 100) == b"via fd"
        fds = eval(out.stdout)
        assert fds[:3] == [0, 1, 2] and len(fds) == 5   # 0-2, the passed fd, listdir's own
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def test_spawn_and_aio() -> None:
    p = spawnkit.spawn([PY, "-c", "import sys; print(sys.stdin.read().upper())"],
                       stdin=spawnkit.PIPE, stdout=spawnkit.PIPE, warm=True)
    out, _ = p.communicate(b"abc")
    assert out == b"ABC\n" and p.returncode == 0

    async def main() -> list[spawnkit.CompletedProcess[Any]]:
        return await asyncio.gather(*[spawnkit.aio.run([PY, "-c", f"print({i})"], warm=True)
                                      for i in range(5)])
    res = asyncio.run(main())
    assert [r.stdout for r in res] == [f"{i}\n".encode() for i in range(5)]


def test_threads_share_one_interpreter() -> None:
    st = spawnkit.warm_stats()
    errors = []

    def work(n: int) -> None:
        for i in range(4):
            r = spawnkit.run([PY, "-c", "import sys; print(sys.argv[1])", f"{n}-{i}"], warm=True)
            if r.stdout != f"{n}-{i}\n".encode():
                errors.append(r)
    in_threads(work, [(n,) for n in range(6)])
    assert not errors
    assert delta(st, "warm_spawns") == 24 and len(warm_pids()) == 1


def test_preload_is_visible_and_keyed() -> None:
    code = "import sys; print('json' in sys.modules, 'decimal' in sys.modules)"
    cold = spawnkit.run([PY, "-S", "-c", code])
    assert spawnkit.run([PY, "-S", "-c", code], warm=True).stdout == cold.stdout
    st = spawnkit.warm_stats()
    r = spawnkit.run([PY, "-S", "-c", code], warm=True, preload=["json", "decimal"])
    assert r.stdout == b"True True\n" and delta(st, "started") == 1
    assert spawnkit.run([PY, "-S", "-c", code], warm=True).stdout == cold.stdout
    st = spawnkit.warm_stats()
    r = spawnkit.run([PY, "-c", "pass"], warm=True, preload=["no_such_module_xyz"])
    assert r.returncode == 0 and delta(st, None, "unsupported") == 1


def test_tool_cpu_is_in_callers_rusage_children() -> None:
    import resource
    spawnkit.run([PY, "-c", "pass"], warm=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = spawnkit.run([PY, "-c", "import time\nt = time.process_time()\n"
                      "while time.process_time() - t < 0.3: pass"], warm=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert r.returncode == 0
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert used >= 0.25, used


def test_fresh_random_and_thread_identity_per_call() -> None:
    code = ("import os, random, tempfile, threading; print(random.random(), tempfile.mktemp(), "
            "threading.main_thread() is threading.current_thread(), "
            "threading.get_native_id() == os.getpid())")
    for pre in (None, ["random", "threading", "tempfile"]):
        outs = [spawnkit.run([PY, "-c", code], warm=True, preload=pre).stdout for _ in range(3)]
        assert len(set(outs)) == 3, outs
        assert all(o.split()[-2:] == [b"True", b"True"] for o in outs), outs


@pytest.mark.parametrize("thread", [False, True])
def test_interpreter_ends_with_its_caller(thread: bool) -> None:
    # A caller that exits without warm_shutdown(): its warm interpreter sees
    # end of file on the socketpair (and PR_SET_PDEATHSIG when started from
    # the main thread) and exits; nothing is left running.
    code = f"""
import os, sys, threading, spawnkit
def call():
    spawnkit.run([{PY!r}, "-c", "pass"], warm=True)
if {thread!r}:
    t = threading.Thread(target=call); t.start(); t.join()
else:
    call()
kids = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            st = open(f"/proc/{{pid}}/stat").read()
            cmd = open(f"/proc/{{pid}}/cmdline", "rb").read()
        except OSError:
            continue
        if int(st[st.rindex(")") + 2:].split()[1]) == os.getpid() and b"spawnkit warm interpreter" in cmd:
            kids.append(pid)
print(" ".join(kids))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    pids = [int(p) for p in r.stdout.split()]
    assert len(pids) == 1, r
    assert wait_dead(pids, timeout=10)


# sys.getallocatedblocks() across `import json`: running json's module bodies
# allocates hundreds of blocks (600 or more); the import cache's restore of
# the recorded modules a few dozen (docs/warm.md, "The import cache").  With
# this venv's interpreter and Debian's (whose start-up has no re loaded).
BLOCKS = ("import sys\n{pre}\nb = sys.getallocatedblocks()\nimport json\n"
          "print(sys.getallocatedblocks() - b, json.dumps([1]))")
CACHE_PYS = sorted({PY} | ({os.path.realpath("/usr/bin/python3")}
                           if os.path.exists("/usr/bin/python3") else set()))


def import_blocks(py: str, cwd: Path, pre: str = "", warm: bool = True) -> int:
    r = spawnkit.run([py, "-c", BLOCKS.format(pre=pre)], warm=warm, cwd=str(cwd),
                     capture_output=True)
    assert r.returncode == 0, r.stderr
    n, out = r.stdout.split()
    assert out == b"[1]"
    return int(n)


@pytest.mark.parametrize("py", CACHE_PYS)
def test_import_cache_restores_json_without_running_it(py: str, tmp_path: Path) -> None:
    assert import_blocks(py, tmp_path, warm=False) > 300
    before = spawnkit.warm_stats()
    assert import_blocks(py, tmp_path) < 150
    assert delta(before, "warm_spawns") == 1
    # re imported (and a pattern compiled) first: json on top of it, from
    # the cache still (recorded after re's closure, or re loaded at start)
    assert import_blocks(py, tmp_path, "import re; re.compile('x+')") < 150


@pytest.mark.parametrize("py", CACHE_PYS)
def test_import_cache_not_used_when_the_cold_import_could_differ(
        py: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a module of json's closure imported by the tool first
    assert import_blocks(py, tmp_path, "import _json") > 300
    # json shadowed by a json.py in front of sys.path (here the cwd, -c)
    (tmp_path / "json.py").write_text("print('shadow')\ndef dumps(o): return repr(o)\n")
    r = spawnkit.run([py, "-c", "import json; print(json.dumps([1]))"], warm=True,
                     cwd=str(tmp_path), capture_output=True)
    assert r.stdout == b"shadow\n[1]\n"
    # turned off: the warm interpreter records nothing
    monkeypatch.setenv("SPAWNKIT_WARM_IMPORT_CACHE", "0")
    spawnkit.warm_shutdown()
    other = tmp_path / "other"
    other.mkdir()
    assert import_blocks(py, other) > 300

"""run() starts each child in a session of its own (new_session=True, the
default): under a real controlling terminal a child that opens /dev/tty
fails at once instead of waiting on a prompt, and what a successful call
left running in its session (background jobs) is dead when run() returns.
new_session=False is the control for both."""
from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from typing import List, Tuple

import pytest

import spawnkit
from conftest import is_dead, wait_dead

pytestmark = pytest.mark.native


def _in_a_terminal(argv: List[str], new_session: bool) -> Tuple[str, float]:
    """Run argv with spawnkit.run() in a forked child whose controlling
    terminal is a fresh pty; (outcome, seconds) as that child saw them."""
    r, w = os.pipe()
    pid, master = pty.fork()
    if pid == 0:                                  # the pty is our terminal now
        os.close(r)
        try:
            t0 = time.monotonic()
            try:
                res = spawnkit.run(argv, timeout=5, new_session=new_session)
                what = f"exit {res.returncode}"
            except subprocess.TimeoutExpired:
                what = "timeout"
            os.write(w, f"{what} {time.monotonic() - t0:.3f}".encode())
        finally:
            os._exit(0)
    os.close(w)
    out = b""
    try:
        while True:                               # drain the pty, read the answer
            ready, _, _ = select.select([r, master], [], [], 30)
            if not ready:
                break
            if master in ready:
                try:
                    os.read(master, 4096)
                except OSError:
                    pass
            if r in ready:
                chunk = os.read(r, 4096)
                if not chunk:
                    break
                out += chunk
    finally:
        os.close(r)
        os.waitpid(pid, 0)
        os.close(master)
    what, secs = out.decode().rsplit(" ", 1)
    return what, float(secs)


def test_dev_tty_fails_fast_under_a_real_controlling_terminal() -> None:
    # as ssh, git and sudo prompt: read a line from /dev/tty
    what, secs = _in_a_terminal(["sh", "-c", "read line </dev/tty"], new_session=True)
    assert what.startswith("exit ") and what != "exit 0"     # ENXIO: no terminal
    assert secs < 4                                           # not the 5 s timeout


def test_dev_tty_blocks_in_the_callers_session_the_control() -> None:
    what, secs = _in_a_terminal(["sh", "-c", "read line </dev/tty"], new_session=False)
    assert what == "timeout" and secs >= 5


def _pid_and_sid(stat: bytes) -> Tuple[int, int]:
    rest = stat[stat.rindex(b")") + 2:].split()
    return int(stat.split()[0]), int(rest[3])


def test_child_leads_its_own_session_by_default() -> None:
    pid, sid = _pid_and_sid(spawnkit.run(["cat", "/proc/self/stat"]).stdout)
    assert sid == pid
    pid, sid = _pid_and_sid(spawnkit.run(["cat", "/proc/self/stat"], new_session=False).stdout)
    assert sid == os.getsid(0) != pid


def test_background_job_of_a_successful_call_is_dead_afterwards() -> None:
    r = spawnkit.run(["sh", "-c", "sleep 100 >/dev/null 2>&1 & echo $!; echo started >&2"],
                     timeout=30)
    assert r.returncode == 0 and r.stderr == b"started\n"
    assert wait_dead([int(r.stdout)])


def test_background_job_survives_without_a_session_the_control() -> None:
    r = spawnkit.run(["sh", "-c", "sleep 100 >/dev/null 2>&1 & echo $!"], timeout=30,
                     new_session=False)
    bg = int(r.stdout)
    try:
        time.sleep(0.2)
        assert not is_dead(bg)
    finally:
        os.kill(bg, signal.SIGKILL)


def test_background_job_holding_the_pipe_is_killed_after_the_wait_delay() -> None:
    # Go's WaitDelay: the child's real status, the holder killed
    t0 = time.monotonic()
    r = spawnkit.run(["sh", "-c", "sleep 100 & echo $!; exit 7"], wait_delay=0.3, timeout=60)
    took = time.monotonic() - t0
    assert r.returncode == 7
    assert 0.3 <= took < 30
    assert wait_dead([int(r.stdout)])


def test_warm_calls_keep_the_callers_session_unless_asked() -> None:
    # a warm interpreter cannot start a session: warm=True defaults to
    # new_session=False; new_session=True runs the call cold, counted
    code = "import os; print(os.getpid(), os.getsid(0))"
    try:
        before = spawnkit.warm_stats()
        r = spawnkit.run([sys.executable, "-c", code], warm=True)
        pid, sid = map(int, r.stdout.split())
        assert sid == os.getsid(0) != pid
        assert spawnkit.warm_stats()["warm_spawns"] == before["warm_spawns"] + 1
        before = spawnkit.warm_stats()
        r = spawnkit.run([sys.executable, "-c", code], warm=True, new_session=True)
        pid, sid = map(int, r.stdout.split())
        assert sid == pid
        after = spawnkit.warm_stats()
        assert after["cold_fallbacks"] == before["cold_fallbacks"] + 1
        assert after["warm_spawns"] == before["warm_spawns"]
    finally:
        spawnkit.warm_shutdown()                    # the warm interpreter and its fds

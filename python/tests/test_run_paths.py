"""run()'s paths through the library's pump (spawnkit_run(3)): both streams
at once, large input with large output, bounded memory, children that close
their output early, timeouts that drain, signals during the run, no fd
left behind, many threads."""
import os
import resource
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, List

import pytest

import spawnkit
from spawnkit import NoOutputTimeoutExpired
from conftest import keyboard_interrupt_after, wait_dead
from test_output_limit import kept_ref

pytestmark = pytest.mark.native


# ---- through run() -----------------------------------------------------------

def test_run_large_output_on_both_streams_at_once(tmp_path: Path) -> None:
    a, b = os.urandom(5 << 20), os.urandom(4 << 20)
    (tmp_path / "a").write_bytes(a)
    (tmp_path / "b").write_bytes(b)
    # both written concurrently: a reader of one pipe at a time deadlocks
    r = spawnkit.run(["sh", "-c", "cat a & cat b >&2; wait"], cwd=tmp_path, timeout=60,
                     output_limit=None)
    assert (r.returncode, r.stdout, r.stderr) == (0, a, b)


def test_run_large_input_with_large_output_on_both_streams() -> None:
    data = os.urandom(6 << 20)
    r = spawnkit.run(["tee", "/dev/stderr"], input=data, timeout=60, output_limit=None)
    assert (r.returncode, r.stdout, r.stderr) == (0, data, data)


def test_run_bounded_memory_with_a_limit() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = spawnkit.run(["head", "-c", str(300 << 20), "/dev/zero"], output_limit=4096,
                     timeout=60, truncation_marker=False)
    assert r.stdout == bytes(4096) and r.stdout_dropped == (300 << 20) - 4096
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 50 << 10          # kept 4 KiB, not 300 MiB


def test_run_child_closes_its_output_early_but_keeps_running() -> None:
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo bye; echo err >&2; exec >&- 2>&-; sleep 100"],
                     timeout=0.5)
    assert time.monotonic() - t0 < 30
    assert (ei.value.output, ei.value.stderr) == (b"bye\n", b"err\n")


def test_run_child_closes_stdout_only_then_idle_fires() -> None:
    with pytest.raises(NoOutputTimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo a; exec >&-; sleep 100"], no_output_timeout=0.3)
    assert ei.value.output == b"a\n"


def test_run_endless_output_times_out_and_drains() -> None:
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["yes"], timeout=0.3, output_limit=1001, truncation_marker=False)
    assert time.monotonic() - t0 < 30
    out = ei.value.output
    assert len(out) == 1001
    assert out[:501] == b"y\n" * 250 + b"y"                   # head: 501 bytes
    assert out[501:] in (b"y\n" * 250, b"\ny" * 250)          # tail: 500 bytes


def test_run_timeout_keeps_all_output_of_the_killed_tree() -> None:
    # the grandchild wrote more than a pipe holds, then hangs holding it
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "(head -c 100000 /dev/zero; sleep 100) & "
                      "echo $! >&2; wait"], timeout=0.5)
    assert ei.value.output == bytes(100000)
    assert wait_dead([int(ei.value.stderr or b"")])


def test_run_input_to_a_child_that_exits_without_reading() -> None:
    r = spawnkit.run(["sh", "-c", "echo done"], input=os.urandom(4 << 20), timeout=30)
    assert (r.returncode, r.stdout) == (0, b"done\n")


def test_run_wait_respects_the_deadline_when_the_pipes_close_first() -> None:
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        spawnkit.run(["sh", "-c", "exec >/dev/null 2>&1; sleep 100"], timeout=0.3)
    took = time.monotonic() - t0
    assert 0.29 <= took < 30


def test_run_huge_and_infinite_timeouts_mean_no_timeout() -> None:
    assert spawnkit.run(["echo", "x"], timeout=float("inf")).stdout == b"x\n"
    assert spawnkit.run(["echo", "x"], timeout=1e300,
                        no_output_timeout=float("inf")).stdout == b"x\n"


def test_run_zero_and_negative_timeout_expire() -> None:
    for t in (0, -1):
        with pytest.raises(subprocess.TimeoutExpired):
            spawnkit.run(["sleep", "5"], timeout=t)


# ---- no fd left behind, threads ----------------------------------------------

def test_no_fd_leak_after_many_runs_of_every_outcome() -> None:
    for prog in ("sleep", "cat", "sh", "printf", "true"):    # cache the templates
        spawnkit.run([prog], timeout=5)
    before = sorted(os.listdir("/proc/self/fd"), key=int)
    for i in range(30):
        assert spawnkit.run(["cat"], input=b"%d" % i).stdout == b"%d" % i
        spawnkit.run(["sh", "-c", "echo x"], output_limit=1)
        with pytest.raises(subprocess.TimeoutExpired):
            spawnkit.run(["sleep", "5"], timeout=0.01)
        with pytest.raises(NoOutputTimeoutExpired):
            spawnkit.run(["sleep", "5"], no_output_timeout=0.01)
        with pytest.raises(FileNotFoundError):
            spawnkit.run(["no-such-program-spawnkit"])
        with pytest.raises(subprocess.CalledProcessError):
            spawnkit.run(["sh", "-c", "exit 1"], check=True)
        with pytest.raises(UnicodeDecodeError):
            spawnkit.run(["printf", "\\377"], text=True)
        spawnkit.run(["true"], input=b"z" * (1 << 20))
    assert sorted(os.listdir("/proc/self/fd"), key=int) == before


def test_keyboard_interrupt_during_the_reap_leaves_nothing() -> None:
    # the child has closed its pipes: the interrupt lands in the wait for it
    spawnkit.run(["sh", "-c", "true"])    # cache the template
    before = sorted(os.listdir("/proc/self/fd"), key=int)
    with keyboard_interrupt_after(0.3), pytest.raises(KeyboardInterrupt):
        spawnkit.run(["sh", "-c", "exec >&- 2>&-; sleep 100"])
    assert sorted(os.listdir("/proc/self/fd"), key=int) == before


def test_32_threads_x_50_runs() -> None:
    errors: List[Any] = []
    results: dict[tuple[int, int], bool] = {}

    def worker(t: int) -> None:
        try:
            for i in range(50):
                tag = b"%d-%d" % (t, i)
                kind = i % 4
                r: Any                   # bytes or text by kind
                if kind == 0:
                    r = spawnkit.run(["echo", tag])
                    ok = (r.stdout, r.stderr) == (tag + b"\n", b"")
                elif kind == 1:
                    r = spawnkit.run(["cat"], input=tag * 1000)
                    ok = r.stdout == tag * 1000
                elif kind == 2:
                    r = spawnkit.run(["sh", "-c", 'echo "$1"; echo "$1" >&2; exit 3',
                                      "sh", tag], output_limit=5, truncation_marker=False)
                    want = kept_ref(tag + b"\n", 5)[0]
                    ok = (r.returncode, r.stdout, r.stderr) == (3, want, want)
                else:
                    r = spawnkit.run(["printf", "%s", tag], text=True)
                    ok = r.stdout == tag.decode()
                if not ok or (kind != 2 and r.returncode != 0):
                    errors.append((t, i, r))
                results[(t, i)] = True
        except BaseException as e:       # reported below, not lost in the thread
            errors.append((t, repr(e)))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(32)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:5]
    assert len(results) == 32 * 50

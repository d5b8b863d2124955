"""run(): agent defaults, tree-killing timeouts, output limits, no leaks."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

import spawnkit
from spawnkit import DEVNULL, PIPE, STDOUT, NoOutputTimeoutExpired
from cgroup_util import make_test_cgroup, remove_test_cgroup
from conftest import is_dead, keyboard_interrupt_after, need, wait_dead


def pids_in(text: str) -> list[int]:
    return [int(x) for x in text.split()]


def test_captures_by_default() -> None:
    r = spawnkit.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert isinstance(r, subprocess.CompletedProcess)
    assert (r.args, r.returncode, r.stdout, r.stderr) == (
        ["sh", "-c", "echo out; echo err >&2; exit 3"], 3, b"out\n", b"err\n")
    assert r.stdout_dropped == 0 and r.stderr_dropped == 0 and not r.truncated


def test_stdin_is_devnull_by_default() -> None:
    # `cat` would wait forever on an inherited terminal or pipe
    r = spawnkit.run(["sh", "-c", "cat; readlink /proc/self/fd/0"], timeout=10)
    assert r.stdout == b"/dev/null\n"


def test_input_bytes_and_text() -> None:
    assert spawnkit.run(["cat"], input=b"abc").stdout == b"abc"
    r = spawnkit.run(["cat"], input="héllo\r\nx", text=True)
    assert r.stdout == "héllo\nx"                      # universal newlines
    r = spawnkit.run(["cat"], input="é", encoding="latin-1")
    assert r.stdout == "é"


def test_large_input_and_output_do_not_deadlock() -> None:
    data = os.urandom(3 << 20)
    r = spawnkit.run(["cat"], input=data, timeout=30, output_limit=None)
    assert r.stdout == data


def test_input_child_that_never_reads() -> None:
    r = spawnkit.run(["true"], input=b"x" * (1 << 20), timeout=10)
    assert r.returncode == 0


def test_input_errors() -> None:
    with pytest.raises(ValueError):
        spawnkit.run(["cat"], input=b"x", stdin=DEVNULL)
    with pytest.raises(TypeError):
        spawnkit.run(["cat"], input="text without text=True")


def test_capture_output_false_inherits(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with open(out, "wb") as f:
        r = spawnkit.run(["echo", "hi"], capture_output=False, stdout=f)
    assert r.stdout is None and r.stderr is None
    assert out.read_bytes() == b"hi\n"
    r = spawnkit.run(["true"], capture_output=False)
    assert r.stdout is None and r.returncode == 0


def test_stderr_stdout() -> None:
    r = spawnkit.run(["sh", "-c", "echo a; echo b >&2"], stderr=STDOUT)
    assert r.stdout == b"a\nb\n" and r.stderr is None


def test_check_raises_calledprocesserror() -> None:
    with pytest.raises(subprocess.CalledProcessError) as ei:
        spawnkit.run(["sh", "-c", "echo o; echo e >&2; exit 9"], check=True)
    e = ei.value
    assert (e.returncode, e.output, e.stderr) == (9, b"o\n", b"e\n")
    assert spawnkit.run(["true"], check=True).returncode == 0


def test_signal_death_is_negative() -> None:
    assert spawnkit.run(["sh", "-c", "kill -TERM $$"]).returncode == -signal.SIGTERM


def test_missing_program() -> None:
    with pytest.raises(FileNotFoundError) as ei:
        spawnkit.run(["no-such-program-spawnkit"])
    assert ei.value.filename == "no-such-program-spawnkit"


def test_cwd_and_env(tmp_path: Path) -> None:
    r = spawnkit.run(["sh", "-c", "pwd; echo $X"], cwd=tmp_path, env={"X": "y", "PATH": "/usr/bin:/bin"})
    assert r.stdout == os.fsencode(str(tmp_path)) + b"\ny\n"


def test_timeout_kills_grandchildren() -> None:
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "sleep 100 & echo $!; sleep 100 & echo $!; wait"], timeout=0.5)
    took = time.monotonic() - t0
    e = ei.value
    assert e.timeout == 0.5 and e.cmd[0] == "sh"
    pids = pids_in(e.output.decode())
    assert len(pids) == 2
    assert wait_dead(pids)
    assert took < 60            # returned at all (not after the sleeps)


def test_timeout_kills_orphan_holding_the_pipes() -> None:
    # The outer sh exits at once; the orphan (reparented away from our
    # child, so no longer its descendant) keeps stdout open and would hang
    # subprocess.run for 100 s even past its timeout.
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "sh -c 'echo $$; exec sleep 100' &"], timeout=0.5)
    pids = pids_in(ei.value.output.decode())
    assert len(pids) == 1
    assert wait_dead(pids)


@pytest.mark.native  # cgroup= is CLONE_INTO_CGROUP: the fallback refuses it
def test_timeout_kills_orphan_that_left_the_session_through_its_cgroup() -> None:
    # Only a cgroup still knows a process that started a session of its own
    # and whose parent exited (docs/run.md, "What only a cgroup catches").
    need("setsid")
    cg = make_test_cgroup(f"spawnkit-py-{os.getpid()}-orphan")
    if cg is None:
        pytest.skip("no writable cgroup2 here")
    try:
        with pytest.raises(subprocess.TimeoutExpired) as ei:
            spawnkit.run(["sh", "-c", "setsid sh -c 'echo $$; exec sleep 100' &"], timeout=1,
                         cgroup=cg)
        pids = pids_in(ei.value.output.decode())
        assert len(pids) == 1
        assert wait_dead(pids)
    finally:
        remove_test_cgroup(cg)


def test_timeout_after_pipes_closed() -> None:
    # the child closes its output and keeps running: the wait times out
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo bye; exec >/dev/null 2>&1; sleep 100"], timeout=0.5)
    assert ei.value.output == b"bye\n"


def test_timeout_output_is_text_in_text_mode() -> None:
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo partial; sleep 100"], timeout=0.3, text=True)
    # text mode: str, though typeshed says bytes
    assert ei.value.output == "partial\n" and ei.value.stderr == ""  # type: ignore[comparison-overlap]


def test_no_output_timeout() -> None:
    with pytest.raises(NoOutputTimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo a; sleep 100 & echo $!; wait"], no_output_timeout=0.3)
    e = ei.value
    assert isinstance(e, subprocess.TimeoutExpired) and e.timeout == 0.3
    lines = e.output.split()
    assert lines[0] == b"a"
    assert wait_dead([int(lines[1])])
    assert "no output" in str(e)


def test_no_output_timeout_resets_on_output() -> None:
    r = spawnkit.run(["sh", "-c", "for i in 1 2 3 4 5 6; do echo $i; sleep 0.1; done"],
                     no_output_timeout=2, timeout=30)
    assert r.stdout.split() == [b"1", b"2", b"3", b"4", b"5", b"6"]


def test_no_output_timeout_needs_a_pipe() -> None:
    with pytest.raises(ValueError):
        spawnkit.run(["true"], capture_output=False, no_output_timeout=1)


def test_timeout_not_hit() -> None:
    assert spawnkit.run(["true"], timeout=10).returncode == 0


def test_output_limit_keeps_head_and_tail(tmp_path: Path) -> None:
    data = bytes(range(256)) * 400                   # 102400 bytes
    f = tmp_path / "data"
    f.write_bytes(data)
    r = spawnkit.run(["cat", str(f)], output_limit=1000, truncation_marker=False)
    assert r.stdout == data[:500] + data[-500:]
    assert (r.stdout_head, r.stdout_tail) == (data[:500], data[-500:])
    assert r.stdout_dropped == len(data) - 1000 and r.truncated
    assert "stdout_dropped=101400" in repr(r)
    r = spawnkit.run(["cat", str(f)], output_limit=7, truncation_marker=False)
    assert r.stdout == data[:4] + data[-3:] and r.stdout_dropped == len(data) - 7
    r = spawnkit.run(["cat", str(f)], output_limit=0)
    assert r.stdout_head == r.stdout_tail == b"" and r.stdout_dropped == len(data)


def test_output_limit_per_stream_and_under_limit() -> None:
    r = spawnkit.run(["sh", "-c", "seq 1 10000 >&2; echo small"], output_limit=100,
                     truncation_marker=False)
    assert r.stdout == b"small\n" and r.stdout_dropped == 0
    assert r.stderr.startswith(b"1\n2\n3\n") and r.stderr.endswith(b"9999\n10000\n")
    assert len(r.stderr) == 100 and r.stderr_dropped > 0


def test_default_limit_is_1_mib_per_stream() -> None:
    r = spawnkit.run(["head", "-c", str(3 << 20), "/dev/zero"], truncation_marker=False)
    assert r.stdout == bytes(1 << 20) and r.stdout_dropped == 2 << 20
    r = spawnkit.run(["head", "-c", str(1 << 20), "/dev/zero"])
    assert r.stdout == bytes(1 << 20) and r.stdout_dropped == 0
    r = spawnkit.run(["head", "-c", str(3 << 20), "/dev/zero"], output_limit=None)
    assert r.stdout == bytes(3 << 20) and r.stdout_dropped == 0


def test_output_limit_in_text_mode_and_on_timeout() -> None:
    r = spawnkit.run(["sh", "-c", "printf 'ééééééééééé'"], output_limit=5, text=True)
    assert r.stdout_dropped > 0 and isinstance(r.stdout, str)
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "seq 1 100000; sleep 100"], output_limit=10, timeout=1,
                     truncation_marker=False)
    assert ei.value.output == b"1\n2\n3" + b"0000\n"     # 5 head + 5 tail bytes


def test_output_limit_validation() -> None:
    with pytest.raises(ValueError):
        spawnkit.run(["true"], output_limit=-1)


def test_no_fd_leaks_into_the_child() -> None:
    extra = os.open("/dev/null", os.O_RDONLY)
    os.set_inheritable(extra, True)
    try:
        r = spawnkit.run(["sh", "-c", "ls /proc/$$/fd"])
    finally:
        os.close(extra)
    assert r.stdout.split() == [b"0", b"1", b"2"]


def test_no_fd_leaks_in_the_parent() -> None:
    spawnkit.run(["sleep", "0"])              # caches the template (one fd)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        spawnkit.run(["true"])
        with pytest.raises(subprocess.TimeoutExpired):
            spawnkit.run(["sleep", "5"], timeout=0.01)
        with pytest.raises(FileNotFoundError):
            spawnkit.run(["no-such-program-spawnkit"])
    assert len(os.listdir("/proc/self/fd")) == before


def test_pass_fds_through_run() -> None:
    r, w = os.pipe()
    try:
        out = spawnkit.run(["sh", "-c", f"echo hi >/dev/fd/{w}; echo ok"], pass_fds=[w])
        assert out.stdout == b"ok\n"
        assert os.read(r, 10) == b"hi\n"
    finally:
        os.close(r)
        os.close(w)


def test_keyboard_interrupt_kills_the_tree() -> None:
    # an exception inside the wait (here from a signal handler) leaves
    # nothing behind
    with keyboard_interrupt_after(0.3), pytest.raises(KeyboardInterrupt):
        spawnkit.run(["sh", "-c", "sleep 100 & sleep 100"])


def test_result_is_a_completedprocess() -> None:
    r = spawnkit.run(["true"])
    r.check_returncode()
    assert isinstance(r, spawnkit.CompletedProcess)

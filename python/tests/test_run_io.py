"""run_io.c, the C pump/wait/capture behind spawnkit.run(), driven directly
through spawnkit._io.RunIO / wait_pidfd on pipes of the test's own, then
through run() for the paths that need a real child."""
import errno
import os
import resource
import signal
import subprocess
import threading
import time
from typing import Any, List

import pytest

import spawnkit
from spawnkit import NoOutputTimeoutExpired
from spawnkit._ffi import ffi, lib
from spawnkit._io import DEADLINE, EOF, IDLE, NONE, RunIO, deadline_ns, wait_pidfd
from conftest import wait_dead
from test_output_limit import kept_ref

# The compiled binding itself: not there in the portable fallback.
pytestmark = pytest.mark.native


def pipe():
    return os.pipe2(os.O_CLOEXEC)


def fd_is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError as e:
        assert e.errno == errno.EBADF
        return False


def soon(seconds):
    return deadline_ns(seconds, time.monotonic_ns())


# ---- the pump's return paths -------------------------------------------------

def test_pump_eof_closes_the_output_and_keeps_every_byte():
    r, w = pipe()
    io = RunIO(None, None, r, None, None)
    try:
        os.write(w, b"hello ")
        os.write(w, b"world")
        os.close(w)
        assert io.pump() == EOF
        assert not fd_is_open(r)                   # closed by the pump at EOF
        assert io.outputs() == [(b"hello world", 0), (b"", 0)]
    finally:
        io.close()


def test_pump_deadline_then_called_again_drains_to_eof():
    r, w = pipe()
    io = RunIO(None, None, None, r, None)
    try:
        os.write(w, b"before")
        t0 = time.monotonic()
        assert io.pump(soon(0.2)) == DEADLINE
        assert 0.19 <= time.monotonic() - t0 < 5
        os.write(w, b" after")                     # as a killed tree's last words
        os.close(w)
        assert io.pump(soon(5)) == EOF
        assert io.outputs() == [(b"", 0), (b"before after", 0)]
    finally:
        io.close()


def test_pump_deadline_in_the_past_returns_at_once():
    r, w = pipe()
    io = RunIO(None, None, r, None, None)
    try:
        t0 = time.monotonic()
        assert io.pump(0) == DEADLINE
        assert time.monotonic() - t0 < 0.5
    finally:
        io.close()
        os.close(w)


def test_pump_idle_fires_without_output_and_resets_on_output():
    r, w = pipe()
    io = RunIO(None, None, r, None, None)
    try:
        t0 = time.monotonic()
        assert io.pump(NONE, 150_000_000) == IDLE
        assert 0.14 <= time.monotonic() - t0 < 5

    finally:
        io.close()
        os.close(w)

    def talk():
        for _ in range(6):
            time.sleep(0.05)
            os.write(w, b"x")
    r, w = pipe()
    io = RunIO(None, None, r, None, None)       # idle is counted from here
    t = threading.Thread(target=talk)
    try:
        t0 = time.monotonic()
        t.start()
        # output every 50 ms keeps a 150 ms idle timer from firing
        assert io.pump(NONE, 150_000_000) == IDLE
        assert time.monotonic() - t0 >= 0.3 + 0.14
        assert io.outputs()[0] == (b"x" * 6, 0)
    finally:
        t.join()
        io.close()
        os.close(w)


def test_pump_deadline_before_idle_says_deadline():
    r, w = pipe()
    io = RunIO(None, None, r, None, None)
    try:
        assert io.pump(soon(0.05), 10_000_000_000) == DEADLINE
        assert io.pump(soon(10), 50_000_000) == IDLE
    finally:
        io.close()
        os.close(w)


def test_idle_timer_does_not_run_for_stdin_alone():
    # as _io.Pump: with every output at EOF only the deadline ends the wait
    r, w = pipe()
    io = RunIO(w, b"z" * (1 << 20), None, None, None)     # more than a pipe holds
    try:
        assert io.pump(soon(0.3), 10_000_000) == DEADLINE
    finally:
        io.close()
        os.close(r)


def test_signal_during_pump_runs_the_handler_and_the_pump_goes_on():
    r, w = pipe()
    io = RunIO(None, None, r, None, None)
    seen = []
    old = signal.signal(signal.SIGALRM, lambda *a: seen.append(time.monotonic()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        t0 = time.monotonic()
        assert io.pump(soon(0.3)) == DEADLINE
        assert len(seen) == 1 and seen[0] - t0 < 0.25   # ran while the pump waited
        assert time.monotonic() - t0 >= 0.29
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        io.close()
        os.close(w)


# ---- stdin -------------------------------------------------------------------

def test_input_is_written_in_chunks_and_stdin_closed_when_done():
    r, w = pipe()
    data = os.urandom(300_000)                    # several pipe-fulls
    io = RunIO(w, data, None, None, None)
    got = bytearray()
    try:
        os.set_blocking(r, False)
        while True:
            code = io.pump(soon(0.01))
            while True:                           # the test plays the child
                try:
                    chunk = os.read(r, 1 << 20)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                got += chunk
            if code == EOF:
                break
        assert os.read(r, 1) == b""               # EOF: the pump closed stdin
        assert bytes(got) == data
        assert not fd_is_open(w)
    finally:
        io.close()
        os.close(r)


def test_empty_input_closes_stdin_at_once():
    r, w = pipe()
    io = RunIO(w, b"", None, None, None)
    try:
        assert not fd_is_open(w)
        assert os.read(r, 1) == b""
        assert io.pump() == EOF
    finally:
        io.close()
        os.close(r)


def test_reader_gone_ends_the_input_as_subprocess_does():
    r, w = pipe()
    io = RunIO(w, b"y" * (1 << 20), None, None, None)
    try:
        assert io.pump(soon(0.05)) == DEADLINE       # the pipe is full
        os.close(r)                                  # the child closed stdin
        assert io.pump(soon(5)) == EOF               # EPIPE/POLLERR: not an error
        assert not fd_is_open(w)
    finally:
        io.close()


# ---- errors, errno, ownership ------------------------------------------------

def test_new_fails_without_taking_the_fds():
    r, w = pipe()
    bad = 999
    assert not fd_is_open(bad)
    try:
        with pytest.raises(OSError) as ei:
            RunIO(bad, b"data", r, None, None)       # fcntl(bad) fails
        assert ei.value.errno == errno.EBADF
        assert fd_is_open(r)                         # still the caller's
        with pytest.raises(OSError) as ei:
            RunIO(None, None, r, None, -2)
        assert ei.value.errno == errno.EINVAL
        with pytest.raises(OSError) as ei:
            RunIO(None, b"input without a pipe", r, None, None)
        assert ei.value.errno == errno.EINVAL
        assert fd_is_open(r) and fd_is_open(w)
    finally:
        os.close(r)
        os.close(w)


def test_c_calls_leave_errno_alone():
    pp = ffi.new("struct sk_runio **")
    ffi.errno = 4242
    assert lib.sk_runio_new(999, b"x", 1, -1, -1, -1, pp) == -errno.EBADF
    assert ffi.errno == 4242
    st = ffi.new("int *")
    assert lib.sk_runio_wait(999, 0, st) == -errno.EBADF
    assert ffi.errno == 4242
    assert lib.sk_runio_wait(999, -1, st) == -errno.EBADF
    assert ffi.errno == 4242
    r, w = pipe()
    assert lib.sk_runio_new(-1, ffi.NULL, 0, r, -1, 10, pp) == 0
    assert lib.sk_runio_pipe_ino(pp[0], 1) == os.fstat(r).st_ino
    assert ffi.errno == 4242
    os.write(w, b"a" * 100)
    os.close(w)
    assert lib.sk_runio_pump(pp[0], -1, -1) == EOF
    assert ffi.errno == 4242
    assert lib.sk_runio_pipe_ino(pp[0], 1) == 0              # at EOF: closed
    assert ffi.errno == 4242
    out = ffi.new("struct sk_runio_output[2]")
    assert lib.sk_runio_outputs(pp[0], out) == 0
    assert (ffi.unpack(out[0].data, out[0].len), out[0].dropped) == (b"a" * 10, 90)
    # no pumping once the output is joined: it would mix head and tail
    assert lib.sk_runio_pump(pp[0], -1, -1) == -errno.EINVAL
    lib.sk_runio_free(pp[0])
    assert ffi.errno == 4242


def test_pipe_inodes_of_the_pipes_still_open():
    r1, w1 = pipe()
    r2, w2 = pipe()
    want = [os.fstat(r1).st_ino, os.fstat(r2).st_ino]
    io = RunIO(None, None, r1, r2, None)
    try:
        assert io.pipe_inodes() == want
        os.close(w1)
        assert io.pump(soon(0.05)) == DEADLINE       # stdout at EOF, stderr open
        assert io.pipe_inodes() == want[1:]
    finally:
        io.close()
        os.close(w2)


def test_read_error_is_an_oserror():
    r, w = pipe()
    io = RunIO(None, None, r, None, None)
    try:
        os.close(r)                    # behind its back: poll says POLLNVAL
        with pytest.raises(OSError) as ei:
            io.pump(soon(5))
        assert ei.value.errno == errno.EBADF
    finally:
        io.close()                     # closes r again: EBADF, ignored
        os.close(w)


def test_close_is_idempotent_and_closes_what_is_open():
    r1, w1 = pipe()
    r2, w2 = pipe()
    r3, w3 = pipe()
    io = RunIO(w3, b"in", r1, r2, 5)
    io.close()
    io.close()
    for fd in (r1, r2, w3):
        assert not fd_is_open(fd)
    for fd in (w1, w2, r3):
        os.close(fd)


# ---- wait --------------------------------------------------------------------

def test_wait_paths():
    p = spawnkit.spawn(["sleep", "10"])
    assert p.pidfd is not None
    assert wait_pidfd(p.pidfd, soon(0.1)) is None          # deadline: not reaped
    assert p.poll() is None
    p.kill()
    assert wait_pidfd(p.pidfd) == -signal.SIGKILL
    os.close(p.pidfd)
    p.pidfd, p.returncode = None, -signal.SIGKILL

    p = spawnkit.spawn(["sh", "-c", "exit 7"])
    assert p.pidfd is not None
    os.waitid(os.P_PIDFD, p.pidfd, os.WEXITED | os.WNOWAIT)  # has exited
    assert wait_pidfd(p.pidfd, 0) == 7        # deadline passed: still looks once
    os.close(p.pidfd)
    p.pidfd, p.returncode = None, 7


def test_wait_for_a_child_reaped_behind_our_back_says_0():
    p = spawnkit.spawn(["true"])
    assert p.pidfd is not None
    os.waitid(os.P_PIDFD, p.pidfd, os.WEXITED)            # a stray reaper
    assert wait_pidfd(p.pidfd) == 0
    assert wait_pidfd(p.pidfd, soon(1)) == 0
    assert p.wait() == 0                       # Process says the same


# ---- through run() -----------------------------------------------------------

def test_run_large_output_on_both_streams_at_once(tmp_path):
    a, b = os.urandom(5 << 20), os.urandom(4 << 20)
    (tmp_path / "a").write_bytes(a)
    (tmp_path / "b").write_bytes(b)
    # both written concurrently: a reader of one pipe at a time deadlocks
    r = spawnkit.run(["sh", "-c", "cat a & cat b >&2; wait"], cwd=tmp_path, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, a, b)


def test_run_large_input_with_large_output_on_both_streams():
    data = os.urandom(6 << 20)
    r = spawnkit.run(["tee", "/dev/stderr"], input=data, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, data, data)


def test_run_bounded_memory_with_a_limit():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = spawnkit.run(["head", "-c", str(300 << 20), "/dev/zero"], output_limit=4096,
                     timeout=60)
    assert r.stdout == bytes(4096) and r.stdout_dropped == (300 << 20) - 4096
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 50 << 10          # kept 4 KiB, not 300 MiB


def test_run_child_closes_its_output_early_but_keeps_running():
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo bye; echo err >&2; exec >&- 2>&-; sleep 100"],
                     timeout=0.5)
    assert time.monotonic() - t0 < 30
    assert (ei.value.output, ei.value.stderr) == (b"bye\n", b"err\n")


def test_run_child_closes_stdout_only_then_idle_fires():
    with pytest.raises(NoOutputTimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo a; exec >&-; sleep 100"], no_output_timeout=0.3)
    assert ei.value.output == b"a\n"


def test_run_endless_output_times_out_and_drains():
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["yes"], timeout=0.3, output_limit=1001)
    assert time.monotonic() - t0 < 30
    out = ei.value.output
    assert len(out) == 1001
    assert out[:501] == b"y\n" * 250 + b"y"                   # head: 501 bytes
    assert out[501:] in (b"y\n" * 250, b"\ny" * 250)          # tail: 500 bytes


def test_run_timeout_keeps_all_output_of_the_killed_tree():
    # the grandchild wrote more than a pipe holds, then hangs holding it
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "(head -c 100000 /dev/zero; sleep 100) & "
                      "echo $! >&2; wait"], timeout=0.5)
    assert ei.value.output == bytes(100000)
    assert wait_dead([int(ei.value.stderr or b"")])


def test_run_input_to_a_child_that_exits_without_reading():
    r = spawnkit.run(["sh", "-c", "echo done"], input=os.urandom(4 << 20), timeout=30)
    assert (r.returncode, r.stdout) == (0, b"done\n")


def test_run_wait_respects_the_deadline_when_the_pipes_close_first():
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        spawnkit.run(["sh", "-c", "exec >/dev/null 2>&1; sleep 100"], timeout=0.3)
    took = time.monotonic() - t0
    assert 0.29 <= took < 30


def test_run_huge_and_infinite_timeouts_mean_no_timeout():
    assert spawnkit.run(["echo", "x"], timeout=float("inf")).stdout == b"x\n"
    assert spawnkit.run(["echo", "x"], timeout=1e300,
                        no_output_timeout=float("inf")).stdout == b"x\n"


def test_run_zero_and_negative_timeout_expire():
    for t in (0, -1):
        with pytest.raises(subprocess.TimeoutExpired):
            spawnkit.run(["sleep", "5"], timeout=t)


# ---- no fd left behind, threads ----------------------------------------------

def test_no_fd_leak_after_many_runs_of_every_outcome():
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


def test_keyboard_interrupt_during_the_reap_leaves_nothing():
    # the child has closed its pipes: the interrupt lands in sk_runio_wait
    def boom(*_):
        raise KeyboardInterrupt

    before = sorted(os.listdir("/proc/self/fd"), key=int)
    old = signal.signal(signal.SIGALRM, boom)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            spawnkit.run(["sh", "-c", "exec >&- 2>&-; sleep 100"])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert sorted(os.listdir("/proc/self/fd"), key=int) == before


def test_32_threads_x_50_runs():
    errors: List[Any] = []
    results = {}

    def worker(t):
        try:
            for i in range(50):
                tag = b"%d-%d" % (t, i)
                kind = i % 4
                if kind == 0:
                    r = spawnkit.run(["echo", tag])
                    ok = (r.stdout, r.stderr) == (tag + b"\n", b"")
                elif kind == 1:
                    r = spawnkit.run(["cat"], input=tag * 1000)
                    ok = r.stdout == tag * 1000
                elif kind == 2:
                    r = spawnkit.run(["sh", "-c", 'echo "$1"; echo "$1" >&2; exit 3',
                                      "sh", tag], output_limit=5)
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

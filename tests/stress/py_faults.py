"""py_faults - the Python binding under limits and hostile events, each
compared with subprocess/asyncio: EMFILE, EAGAIN at RLIMIT_NPROC, a small
RLIMIT_AS, signals, timeouts and cancellation mid-run, a SIGCHLD handler that
reaps everything, the executable replaced or deleted, the uid changed.
"""
import asyncio
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_harness import (PROBE, Skip, Snap, children, drop_to_nobody, expect,  # noqa: E402
                        lowest_free_fd, main, outcome, scaled, scenario, set_nofile)

import spawnkit  # noqa: E402
from spawnkit import aio  # noqa: E402

ARGS = [PROBE, "--quiet", "--exit", "4"]


def sk() -> int:
    return spawnkit.run(ARGS, timeout=60).returncode


def sp() -> int:
    return subprocess.run(ARGS, capture_output=True, timeout=60).returncode


@scenario()
def emfile() -> str:
    sk()
    s = Snap()
    old = set_nofile(lowest_free_fd())
    got, ref = outcome(sk), outcome(sp)
    set_nofile(old[0])
    expect(got == ref == "OSError(24)", f"spawnkit {got}, subprocess {ref}")
    expect(sk() == 4, "no recovery once the limit is lifted")
    return s.check(f"at the fd limit: spawnkit {got}, subprocess {ref}")


@scenario()
def eagain_rlimit_nproc() -> str:
    drop_to_nobody()
    resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
    got, ref = outcome(sk), outcome(sp)
    expect(got == ref == "BlockingIOError(11)", f"spawnkit {got}, subprocess {ref}")
    expect(children() == 0, "a child was left")
    return f"RLIMIT_NPROC reached: spawnkit {got}, subprocess {ref}"


@scenario()
def enomem_rlimit_as() -> str:
    """A little room above what is mapped: each run works or raises
    MemoryError/OSError(ENOMEM); never a crash or a wrong status."""
    sk()
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    old = resource.getrlimit(resource.RLIMIT_AS)
    seen = {}
    for room in (64 << 20, 8 << 20, 1 << 20):
        for fn, who in ((sk, "spawnkit"), (sp, "subprocess")):
            resource.setrlimit(resource.RLIMIT_AS, (vm + room, old[1]))
            try:
                r = outcome(fn)
            finally:
                resource.setrlimit(resource.RLIMIT_AS, old)
            seen.setdefault(who, []).append(r)
    ok = {"returned 4", "MemoryError(None)", "OSError(12)", "BlockingIOError(11)"}
    bad = [r for r in seen["spawnkit"] if r not in ok]
    expect(not bad, f"spawnkit {seen['spawnkit']} (subprocess {seen['subprocess']})")
    expect(sk() == 4, "no recovery")
    return f"mapped+64M/8M/1M: spawnkit {seen['spawnkit']}, subprocess {seen['subprocess']}"


@scenario(timeout=120)
def signals_mid_run() -> str:
    """An interval timer's handler runs every millisecond during the runs."""
    hits = [0]

    def on_alarm(sig, frame):
        hits[0] += 1
    signal.signal(signal.SIGALRM, on_alarm)
    n = scaled(20)
    sk()
    s = Snap()
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
    try:
        wrong = [i for i in range(n)
                 if spawnkit.run([PROBE, "--quiet", "--exit", str(i % 50)]).returncode != i % 50]
        ref_wrong = sum(subprocess.run([PROBE, "--quiet", "--exit", "3"]).returncode != 3
                        for _ in range(n))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    expect(not wrong, f"{len(wrong)} of {n} wrong under {hits[0]} SIGALRMs")
    return s.check(f"{n} runs under {hits[0]} SIGALRM handlers (subprocess {ref_wrong} wrong)")


@scenario()
def timeout_mid_run() -> str:
    """timeout= kills the tree and returns promptly (subprocess.run waits
    for a grandchild that keeps the pipe; shown, not required)."""
    spawnkit.run(["sh", "-c", ":"])
    s = Snap()
    t0 = time.monotonic()
    try:
        spawnkit.run(["sh", "-c", "sleep 30 & sleep 30"], timeout=0.2)
        raise AssertionError("no TimeoutExpired")
    except subprocess.TimeoutExpired:
        secs = time.monotonic() - t0
    expect(secs < 5, f"TimeoutExpired after {secs:.2f} s")
    time.sleep(0.1)
    return s.check(f"TimeoutExpired after {secs:.3f} s for a 0.2 s timeout")


@scenario()
def keyboard_interrupt_mid_run() -> str:
    """SIGINT while run() waits: KeyboardInterrupt as subprocess.run, and the
    child is killed and reaped (subprocess.run does the same)."""
    spawnkit.run(["sleep", "0"])
    s = Snap()
    res, left = {}, {}
    def interrupt_once_started() -> None:
        # SIGINT while run() waits on a started child, not while it is still
        # starting one (on a loaded machine that can take a while)
        end = time.monotonic() + 30
        while children() == 0 and time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGINT)

    for who, fn in (("spawnkit", spawnkit.run), ("subprocess", subprocess.run)):
        threading.Thread(target=interrupt_once_started).start()
        res[who] = outcome(lambda: fn(["sleep", "20"], timeout=30))
        time.sleep(0.3)
        left[who] = children()
        if who == "spawnkit":
            detail = s.check(f"SIGINT mid-run: {res}")
    expect(res["spawnkit"] == res["subprocess"] == "KeyboardInterrupt(None)", str(res))
    return f"{detail}; subprocess.run left {left['subprocess'] - left['spawnkit']} " \
           "unreaped (by design: reaped later)"


@scenario()
def asyncio_cancel_mid_run() -> str:
    """Cancelling aio.run() kills and reaps the child (asyncio's own
    subprocess leaves it running: shown)."""
    async def cancel_one(make):
        task = asyncio.ensure_future(make())
        await asyncio.sleep(0.2)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"
        return "finished"

    async def ref_make():
        p = await asyncio.create_subprocess_exec("sleep", "1")
        ref_pid.append(p.pid)
        await p.wait()

    ref_pid = []
    asyncio.run(aio.run(["sleep", "0"]))
    s = Snap()
    got = asyncio.run(cancel_one(lambda: aio.run(["sleep", "20"])))
    ref = asyncio.run(cancel_one(ref_make))
    time.sleep(0.1)
    ref_alive = bool(ref_pid) and os.path.exists(f"/proc/{ref_pid[0]}")
    if ref_pid:
        try:
            os.kill(ref_pid[0], signal.SIGKILL)
            os.waitpid(ref_pid[0], 0)
        except (ProcessLookupError, ChildProcessError):
            pass
    expect(got == "cancelled", f"aio.run {got}")
    return s.check(f"aio.run {got}, child gone (asyncio subprocess: {ref}, child "
                   f"{'left running' if ref_alive else 'gone'})")


@scenario(timeout=120)
def sigchld_handler_reaps() -> str:
    """A SIGCHLD handler reaping with waitpid(-1): an exit status of 5 is
    reported as 5, or the loss is said (an exception or a warning); never a
    made-up 0.  subprocess's count of wrong statuses is shown."""
    def reap(sig, frame):
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
    signal.signal(signal.SIGCHLD, reap)
    n = scaled(50)
    tally = {"5": 0, "0": 0, "other": 0, "said": 0}
    ref0 = 0
    for _ in range(n):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                rc = spawnkit.run([PROBE, "--quiet", "--exit", "5"]).returncode
                key = "said" if w else "5" if rc == 5 else "0" if rc == 0 else "other"
            except (OSError, RuntimeError, ChildProcessError):
                key = "said"
        tally[key] += 1
        ref0 += subprocess.run([PROBE, "--quiet", "--exit", "5"]).returncode != 5
    expect(tally["0"] == 0 and tally["other"] == 0,
           f"{tally['0']} of {n} reported 0 with no warning ({tally}); subprocess {ref0} wrong")
    return f"{n} runs: {tally['5']} got 5, {tally['said']} said the status was lost; " \
           f"subprocess wrong {ref0}"


def _copy_probe(d: str) -> str:
    p = os.path.join(d, "prog")
    shutil.copy2(PROBE, p)
    return p


@scenario()
def executable_replaced() -> str:
    d = tempfile.mkdtemp(prefix="skstress.")
    try:
        p = _copy_probe(d)
        first = spawnkit.run([p, "--quiet", "--exit", "4"]).returncode
        new = os.path.join(d, "new")
        with open(new, "w") as f:
            f.write("#!/bin/sh\nexit 9\n")
        os.chmod(new, 0o755)
        os.rename(new, p)                     # a package upgrade
        got = outcome(lambda: spawnkit.run([p]).returncode)
        ref = outcome(lambda: subprocess.run([p]).returncode)
        expect(first == 4 and got == ref == "returned 9", f"spawnkit {got}, subprocess {ref}")
        return f"replaced under the cache: spawnkit {got}, subprocess {ref}"
    finally:
        shutil.rmtree(d, ignore_errors=True)


@scenario()
def executable_deleted() -> str:
    d = tempfile.mkdtemp(prefix="skstress.")
    try:
        p = _copy_probe(d)
        spawnkit.run([p, "--quiet"])
        os.unlink(p)
        got = outcome(lambda: spawnkit.run([p]).returncode)
        ref = outcome(lambda: subprocess.run([p]).returncode)
        expect(got == ref == "FileNotFoundError(2)", f"spawnkit {got}, subprocess {ref}")
        return f"deleted under the cache: spawnkit {got}, subprocess {ref}"
    finally:
        shutil.rmtree(d, ignore_errors=True)


@scenario()
def credentials_changed() -> str:
    """A service that drops privileges after start-up: its cached programs
    still run (the templates are made again), as with subprocess."""
    if os.geteuid() != 0:
        raise Skip("needs root to change uid")
    expect(sk() == 4, "before")
    drop_to_nobody()
    got, ref = outcome(sk), outcome(sp)
    expect(got == ref == "returned 4", f"after dropping to uid 65534: spawnkit {got}, "
           f"subprocess {ref}")
    return f"after dropping to uid 65534: spawnkit {got}, subprocess {ref}"


if __name__ == "__main__":
    main()

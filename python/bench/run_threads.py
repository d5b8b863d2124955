"""Caller-side cost of run() from a thread pool: spawnkit vs subprocess.

    $(scripts/venv.sh) python/bench/run_threads.py [--calls 2000] [--reps 3] [--threads 1,16]

The agent-tools benchmark calls spawnkit.run() from up to 16 threads per
worker process; there the GIL hand-offs of a Python-level I/O loop cost CPU.
This measures just that: N calls of `/bin/echo hello` with captured output,
spread over T threads (each thread makes N/T calls), for subprocess.run and
spawnkit.run, methods and thread counts interleaved in every repetition (the
order alternates between repetitions).  Every call's output is checked.

Printed per call, min and median over the repetitions: wall time, and this
process's own CPU time (os.times() user+system: the library and the
interpreter; the children's CPU is excluded).  python/bench/parent_cpu.py
does the same for sequential and asyncio calls; `make bench` is the real
measurement.
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, List, Tuple

import spawnkit

ARGV = ["/bin/echo", "hello"]
EXPECT = b"hello\n"


def call_subprocess() -> bool:
    r = subprocess.run(ARGV, capture_output=True, stdin=subprocess.DEVNULL)
    return r.returncode == 0 and r.stdout == EXPECT and r.stderr == b""


def call_spawnkit() -> bool:
    r = spawnkit.run(ARGV, capture_output=True)
    return r.returncode == 0 and r.stdout == EXPECT and r.stderr == b""


METHODS = {"subprocess": call_subprocess, "spawnkit": call_spawnkit}


def self_cpu() -> float:
    t = os.times()
    return t.user + t.system            # children_user/children_system excluded


def measure(call: Callable[[], bool], calls: int,
            nthreads: int) -> Tuple[float, float, int]:
    """(wall s, own CPU s, failed calls) for `calls` calls on `nthreads` threads."""
    per = [calls // nthreads + (1 if i < calls % nthreads else 0) for i in range(nthreads)]
    failed = [0] * nthreads
    go = threading.Event()

    def worker(i: int) -> None:
        go.wait()
        bad = 0
        for _ in range(per[i]):
            try:
                if not call():
                    bad += 1
            except Exception:
                bad += 1
        failed[i] = bad

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(nthreads)]
    for t in threads:
        t.start()
    c0, t0 = self_cpu(), time.perf_counter()
    go.set()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, self_cpu() - c0, sum(failed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000, help="calls per method, thread count and rep")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", default="1,16", help="comma-separated thread counts")
    a = ap.parse_args()
    counts = [int(x) for x in a.threads.split(",")]
    if a.calls < 1 or a.reps < 1 or any(t < 1 for t in counts):
        ap.error("--calls, --reps and every thread count must be >= 1")

    for call in METHODS.values():                      # warm caches and templates
        for _ in range(20):
            assert call(), "warm-up call failed"
    load0 = os.getloadavg()
    res: Dict[Tuple[int, str], Tuple[List[float], List[float]]] = {
        (t, m): ([], []) for t in counts for m in METHODS}
    failures = 0
    for rep in range(a.reps):
        names = list(METHODS) if rep % 2 == 0 else list(reversed(METHODS))
        for t in counts:
            for m in names:
                wall, cpu, bad = measure(METHODS[m], a.calls, t)
                failures += bad
                res[(t, m)][0].append(wall / a.calls * 1e6)
                res[(t, m)][1].append(cpu / a.calls * 1e6)
    load1 = os.getloadavg()

    print(f"python {platform.python_version()} ({sys.executable}), spawnkit backend "
          f"{spawnkit.backend()}, {os.cpu_count()} CPUs, `{' '.join(ARGV)}` captured, "
          f"{a.calls} calls x {a.reps} reps per row")
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    print(f"{'threads':>7s} {'method':10s} {'wall us/call min/med':>21s} "
          f"{'self CPU us/call min/med':>25s}  all CPU samples")
    for t in counts:
        for m in METHODS:
            w, c = res[(t, m)]
            print(f"{t:7d} {m:10s} {min(w):10.0f} {statistics.median(w):10.0f} "
                  f"{min(c):12.0f} {statistics.median(c):12.0f}  "
                  + " ".join(f"{x:.0f}" for x in c))
        sub, sk = res[(t, "subprocess")], res[(t, "spawnkit")]
        print(f"{t:7d} {'ratio':10s} {statistics.median(sk[0]) / statistics.median(sub[0]):21.2f} "
              f"{statistics.median(sk[1]) / statistics.median(sub[1]):25.2f}  (spawnkit/subprocess, medians)")
    if failures:
        sys.exit(f"{failures} calls failed or returned wrong output: figures invalid")


if __name__ == "__main__":
    main()

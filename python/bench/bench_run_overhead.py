"""spawnkit.run(argv) against subprocess.run(argv), interleaved, per call.

    $(scripts/venv.sh) python/bench/bench_run_overhead.py [--calls 200]
        [--reps 7] [--argv /bin/true]

Each repetition times `--calls` calls of each side back to back, the order
flipping between repetitions so warm-up and drift hit both alike.  Both
are called as a user would: `spawnkit.run(argv)` (its defaults: output
captured, stdin /dev/null, a new session, the tree killed after) and
`subprocess.run(argv)` (its defaults: nothing captured).  Every call's
returncode and output are checked, so a call that failed cannot look
fast.  Prints per side the min, median and spread (max - min, as a share
of the median) of the per-call wall time over the repetitions, then the
spawnkit/subprocess ratio of the medians and of the mins, and the load
average, which says how much to trust them.  Then the median CPU time per
call, the caller's and its children's (getrusage): less disturbed by other
load than the wall time, as waiting for a CPU is not in it, though it
misses what the wall time holds besides work (wake-up latency).  Exit status 1 if the median
ratio is above --max-ratio (issue 11 asks for <= 0.95).  A smoke-size
default; the figures worth quoting come from a quiet machine.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import spawnkit


def _spawnkit_call(argv: Sequence[str], expect: bytes) -> Callable[[], None]:
    def call() -> None:
        r = spawnkit.run(argv)
        if r.returncode != 0 or r.stdout != expect or r.stderr != b"":
            raise SystemExit(f"spawnkit.run: bad result {r!r}")
    return call


def _subprocess_call(argv: Sequence[str], expect: bytes) -> Callable[[], None]:
    # stdout is not captured (subprocess's default): only the status can
    # be checked here; the expected output was checked once below
    def call() -> None:
        r = subprocess.run(argv)
        if r.returncode != 0:
            raise SystemExit(f"subprocess.run: bad result {r!r}")
    return call


def _cpu() -> Tuple[float, float]:
    """CPU seconds used so far: this process's, its reaped children's."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _per_call(fn: Callable[[], None], calls: int,
              cpu: Optional[List[List[float]]] = None) -> float:
    c0 = _cpu()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    wall = (time.perf_counter() - t0) / calls
    if cpu is not None:
        c1 = _cpu()
        cpu[0].append((c1[0] - c0[0]) / calls)
        cpu[1].append((c1[1] - c0[1]) / calls)
    return wall


def _line(name: str, xs: List[float]) -> str:
    med = statistics.median(xs)
    return (f"{name:<16} min {min(xs) * 1e6:8.1f} us  median {med * 1e6:8.1f} us  "
            f"spread {(max(xs) - min(xs)) / med * 100:5.1f} %")


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--argv", nargs="+", default=["/bin/true"])
    ap.add_argument("--max-ratio", type=float, default=None,
                    help="fail (exit 1) if the median ratio is above this")
    o = ap.parse_args()
    if o.calls < 1 or o.reps < 1:
        ap.error("--calls and --reps must be >= 1")
    expect = subprocess.run(o.argv, capture_output=True, stdin=subprocess.DEVNULL,
                            check=True).stdout
    sides: Dict[str, Callable[[], None]] = {
        "spawnkit.run": _spawnkit_call(o.argv, expect),
        "subprocess.run": _subprocess_call(o.argv, expect),
    }
    for fn in sides.values():             # warm up: templates cached, code paths hot
        _per_call(fn, max(1, o.calls // 10))
    times: Dict[str, List[float]] = {k: [] for k in sides}
    cpus: Dict[str, List[List[float]]] = {k: [[], []] for k in sides}
    order = list(sides)
    for rep in range(o.reps):
        for name in (order if rep % 2 == 0 else order[::-1]):
            times[name].append(_per_call(sides[name], o.calls, cpus[name]))
    load = os.getloadavg()
    print(f"argv {o.argv}, {o.calls} calls x {o.reps} reps per side, interleaved; "
          f"python {platform.python_version()}, backend {spawnkit.backend()}, "
          f"{os.cpu_count()} cpus, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for name in sides:
        print(_line(name, times[name]))
    med = statistics.median(times["spawnkit.run"]) / statistics.median(times["subprocess.run"])
    mn = min(times["spawnkit.run"]) / min(times["subprocess.run"])
    print(f"ratio spawnkit/subprocess: median {med:.3f}  min {mn:.3f}")
    for name in sides:
        me, kids = (statistics.median(c) * 1e6 for c in cpus[name])
        print(f"{name:<16} cpu per call: caller {me:6.1f} us  children {kids:6.1f} us  "
              f"sum {me + kids:6.1f} us")
    cpu_sum = {k: sum(statistics.median(c) for c in cpus[k]) for k in sides}
    print(f"ratio of the cpu sums: {cpu_sum['spawnkit.run'] / cpu_sum['subprocess.run']:.3f}")
    if o.max_ratio is not None and med > o.max_ratio:
        print(f"median ratio {med:.3f} above {o.max_ratio}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

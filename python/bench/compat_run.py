"""subprocess.run with and without spawnkit.patch_subprocess(), interleaved.

    $(scripts/find-python.sh) python/bench/compat_run.py [--calls 200] [--reps 5]
        [--heap-mib 0] [--argv /bin/echo hello]

The drop-in changes nothing in the caller's code, so this times exactly the
caller's code: `subprocess.run(argv, capture_output=True)`, N calls per
repetition, stock and patched alternating inside every repetition (the order
flips between repetitions, so drift and warm-up hit both sides alike).
--heap-mib touches that much memory first: a parent with a large heap is
where a fork-based start costs most (stock uses vfork where it can, and
falls back to fork for some options).  Every call's output is checked, and
every patched call must have been routed (spawnkit.compat.stats()).

Prints per call the min and median over repetitions of wall time and of
this process's own CPU time (time.process_time(): user+system of the
parent, children excluded), and the stock/patched ratio of the medians.
A smoke-size default; the figures worth quoting come from a quiet machine.
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import spawnkit
import spawnkit.compat as compat


def one_batch(argv, expect, calls):
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(calls):
        r = subprocess.run(argv, capture_output=True)
        if r.returncode != 0 or r.stdout != expect:
            raise SystemExit(f"bad result: {r!r}")
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    return wall / calls, cpu / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--heap-mib", type=int, default=0)
    ap.add_argument("--argv", nargs="+", default=["/bin/echo", "hello"])
    o = ap.parse_args()
    ballast = bytearray(o.heap_mib << 20)
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1                      # touch every page
    expect = subprocess.run(o.argv, capture_output=True, check=True).stdout

    res = {"stock": [], "patched": []}
    for rep in range(o.reps):
        order = ["stock", "patched"] if rep % 2 == 0 else ["patched", "stock"]
        for side in order:
            if side == "patched":
                compat.patch_subprocess()
                compat.reset_stats()
            else:
                compat.unpatch_subprocess()
            res[side].append(one_batch(o.argv, expect, o.calls))
            if side == "patched":
                s = compat.stats()
                if s["routed"] != o.calls or s["fallback"]:
                    raise SystemExit(f"not every patched call was routed: {s}")
    compat.unpatch_subprocess()

    print(f"# subprocess.run({o.argv!r}, capture_output=True): {o.calls} calls x "
          f"{o.reps} reps, heap {o.heap_mib} MiB, python {platform.python_version()}, "
          f"spawnkit backend {spawnkit.backend()}, load {os.getloadavg()[0]:.2f}")
    print(f"{'':8} {'wall us/call':>22} {'cpu us/call':>22}")
    print(f"{'':8} {'min':>10} {'median':>11} {'min':>10} {'median':>11}")
    med = {}
    for side in ("stock", "patched"):
        walls = [w * 1e6 for w, _ in res[side]]
        cpus = [c * 1e6 for _, c in res[side]]
        med[side] = (statistics.median(walls), statistics.median(cpus))
        print(f"{side:8} {min(walls):10.1f} {med[side][0]:11.1f} "
              f"{min(cpus):10.1f} {med[side][1]:11.1f}")
    print(f"stock/patched (medians): wall {med['stock'][0] / med['patched'][0]:.2f}x, "
          f"cpu {med['stock'][1] / max(med['patched'][1], 1e-9):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

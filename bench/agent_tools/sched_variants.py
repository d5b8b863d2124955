#!/usr/bin/env python3
"""sched_variants.py - which scheduling attribute keeps register's loop on the CPU.

A diagnostic behind register's childNice (docs/node-register.md, "The
tools' nice value").  node_agent.py's register trial at one resident
size, in variants that differ only in scheduling attributes set through
sched_exec.c (built here with cc), interleaved and repeated:

  as-is       every tool started through `sched_exec 0 0` (nothing changed)
  tool-slice  the tools' EEVDF slice 30 ms (sched_setattr's sched_runtime)
  loop-slice  the harness (its loop thread) at a 0.1 ms slice, the tools
              back at the default slice
  both        the two slices together
  nice-N      the tools N nice values up (--nice, 10 by default; repeatable)
  batch-nice-N  the same, the tools SCHED_BATCH
  idle        the tools SCHED_IDLE (register's childPolicy 'idle')
  nice-N-loop-Mms, idle-loop-Mms
              those with the harness at an M ms slice (--loop-slice, 8 by
              default; repeatable), which its tools inherit (the wrapper
              does not reset it): register-idle's pair, childPolicy
              'idle' with loopSliceMs M, and the same for nice
  idle-tools-Mms  the tools SCHED_IDLE with an M ms slice of their own, the
              harness at the default
  idle-loop-Mms-own  the harness at an M ms slice that its tools do not
              inherit (theirs reset to the default): exactly register-idle

Every variant starts its tools through the wrapper, so each pays the same
extra exec.  Reported per variant: the loop's p99 per repetition, the run-
queue wait in the slowest 1 % of its ticks (--trace), calls/s, load.

Exit status: 0 done; 1 a run failed; 2 bad usage, no cc, or a missing tool.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import node_agent  # noqa: E402
from agent_tools import BenchFailure, prepare_tools  # noqa: E402

TOOL_SLICE_NS = 30_000_000
LOOP_SLICE_NS = 100_000


def default_slice_ns() -> int:
    """This kernel's default slice (ours: we set none), from /proc."""
    try:
        with open("/proc/self/sched") as f:
            for line in f:
                if line.startswith("se.slice"):
                    return int(line.split(":")[1])
    except OSError:
        pass
    return 0        # the kernel's default, as sched_exec reads 0


DEFAULT_SLICE_NS = default_slice_ns()


def variants(nices: list[int], loop_ms: list[float]) -> dict[str, tuple[list[str], str]]:
    """name: (the harness's sched_exec arguments or [], the tools' ones)."""
    v = {"as-is": ([], "0 0"), "tool-slice": ([], f"{TOOL_SLICE_NS} 0"),
         "loop-slice": ([str(LOOP_SLICE_NS), "0"], "0 0"),
         "both": ([str(LOOP_SLICE_NS), "0"], f"{TOOL_SLICE_NS} 0")}
    v.update({f"nice-{n}": ([], f"0 {n}") for n in nices})
    v.update({f"batch-nice-{n}": ([], f"batch:0 {n}") for n in nices})
    v["idle"] = ([], "idle:0 0")
    for m in loop_ms:
        loop = [str(round(m * 1e6)), "0"]
        v.update({f"nice-{n}-loop-{m:g}ms": (loop, f"0 {n}") for n in nices})
        v[f"idle-loop-{m:g}ms"] = (loop, "idle:0 0")
        v[f"idle-tools-{m:g}ms"] = ([], f"idle:{round(m * 1e6)} 0")
        v[f"idle-loop-{m:g}ms-own"] = (loop, f"idle:{DEFAULT_SLICE_NS} 0")
    return v


def run_all(ours: argparse.Namespace, a: argparse.Namespace, vs: dict[str, tuple[list[str], str]],
            names: list[str], exe: Path, plan: Path, res: dict[str, list[dict]]) -> None:
    """Every variant per repetition, the order reversed every other one."""
    for rep in range(ours.reps):
        order = names if rep % 2 == 0 else names[::-1]
        for n in order:
            loop, tools = vs[n]
            t = node_agent.run_trial(a, "register", ours.resident, plan,
                                     prefix=(str(exe), *loop) if loop else (),
                                     worker_args=("--wrap", f"{exe} {tools}"))
            top = t["trace"]["tick_top1"]
            t.update(load=os.getloadavg()[0], runq=top["runq_ms"] / max(1, top["n"]))
            res[n].append(t)
            print(f"  rep {rep + 1} {n:<18} {t['calls_per_s']:7.1f} calls/s  loop p99 {t['p99_ms']:7.2f} ms"
                  f"  slowest ticks' run-queue wait {t['runq']:6.1f} ms  (load {t['load']:.1f})",
                  file=sys.stderr, flush=True)


def report(ours: argparse.Namespace, names: list[str], res: dict[str, list[dict]]) -> None:
    """Per variant, each repetition's loop p99 and slowest ticks' wait."""
    print(f"\nregister at {ours.resident} MiB, {ours.calls} calls, {ours.reps} reps; load average (1 min) "
          f"{min(t['load'] for ts in res.values() for t in ts):.1f}-"
          f"{max(t['load'] for ts in res.values() for t in ts):.1f}\n")
    w = max(10, *(len(n) for n in names))
    print(f"{'variant':<{w}} | {'loop p99 ms per rep':<24} | {'run-queue wait ms per rep':<26} | calls/s (median)")
    for n in names:
        ts = res[n]
        p99 = " / ".join(f"{t['p99_ms']:.1f}" for t in ts)
        runq = " / ".join(f"{t['runq']:.0f}" for t in ts)
        print(f"{n:<{w}} | {p99:<24} | {runq:<26} | {statistics.median(t['calls_per_s'] for t in ts):.0f}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="sched_variants.py", description=__doc__.split("\n\n")[1])
    p.add_argument("--calls", type=int, default=160)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--resident", type=int, default=2048, help="MiB held by the harness")
    p.add_argument("--nice", type=int, action="append", help="a nice-N variant (default: 10)")
    p.add_argument("--loop-slice", type=float, action="append",
                   help="the harness's slice in ms of the *-loop-Mms variants (default: 8)")
    p.add_argument("--only", help="comma-separated variant names to run")
    p.add_argument("--cc", default=shutil.which("cc") or "cc")
    ours = p.parse_args(argv)
    a = node_agent.parse_args(["--calls", str(ours.calls), "--trace"])
    if not prepare_tools("sched_variants"):
        return 2
    vs = variants(ours.nice or [10], ours.loop_slice or [8.0])
    names = ours.only.split(",") if ours.only else list(vs)
    if any(n not in vs for n in names):
        p.error(f"--only: variants are {', '.join(vs)}")
    res: dict[str, list[dict]] = {n: [] for n in names}
    try:
        with node_agent.planned(a, "sched-variants") as (root, plan):
            exe = root / "sched_exec"
            cc = subprocess.run([ours.cc, "-O2", "-o", str(exe), str(HERE / "sched_exec.c")],
                                capture_output=True, text=True)
            if cc.returncode:
                print(f"sched_variants: cannot build sched_exec: {cc.stderr.strip()}", file=sys.stderr)
                return 2
            run_all(ours, a, vs, names, exe, plan, res)
    except BenchFailure as e:
        print(f"sched_variants: FAILED: {e}", file=sys.stderr)
        return 1
    report(ours, names, res)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

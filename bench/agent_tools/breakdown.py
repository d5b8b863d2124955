#!/usr/bin/env python3
"""breakdown.py - where the time of one tool call goes, per tool and backend.

The agent-tools table measures throughput with 16 calls in flight; on a
machine with fewer cores than that, throughput is (cores / CPU per call), so
what decides the table is CPU per call, split here into:

  parent  CPU of the calling process: the backend's Python code, the spawn
          itself (vfork-style start until exec), reading the pipes, reaping
  child   CPU of the tool (exec, dynamic loading, the work, exit)

and the wall latency of a call made alone.  Calls run one at a time, with no
agent runtime, backends alternated call by call, every output verified.

  breakdown.py [--rounds N] [--backends subprocess,spawnkit-user] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import shutil
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import backends  # noqa: E402
import workload  # noqa: E402
from agent_tools import tool_environment  # noqa: E402


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5, help="passes over every distinct call (default 5)")
    p.add_argument("--backends", default="subprocess,spawnkit-user")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--seed", type=int, default=20260518)
    a = p.parse_args(argv)
    names = [b.strip() for b in a.backends.split(",")]
    tool_environment()
    for b in names:
        why = backends.unavailable_reason(b)
        if why:
            print(f"breakdown: {b} unavailable: {why}", file=sys.stderr)
            return 2
    # The runners set SPAWNKIT_BACKEND for themselves; one process can hold
    # only one spawnkit backend, so at most one spawnkit-* per run.
    if sum(b.startswith("spawnkit") for b in names) > 1:
        print("breakdown: one spawnkit backend per run", file=sys.stderr)
        return 2
    runners = {b: backends.make_runner(b) for b in names}

    root = Path(tempfile.mkdtemp(prefix="spawnkit-breakdown-"))
    try:
        w = workload.build(root, a.seed, sys.executable)
        acc = {(b, t): {"wall": [], "parent": [], "child": []} for b in names for t in workload.TOOLS}
        for rnd in range(a.rounds):
            for tool in workload.TOOLS:
                for call in w.variants[tool]:
                    order = names if rnd % 2 == 0 else names[::-1]
                    for b in order:
                        p0, c0, t0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
                        rc, out, err = runners[b](call.argv, call.cwd)
                        t1, p1, c1 = time.perf_counter(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
                        bad = call.check(rc, out, err)
                        if bad:
                            print(f"breakdown: {b}: {' '.join(call.argv)}: {bad}", file=sys.stderr)
                            return 1
                        if rnd:      # the first round only warms caches and templates
                            d = acc[(b, tool)]
                            d["wall"].append(t1 - t0)
                            d["parent"].append(p1 - p0)
                            d["child"].append(c1 - c0)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    out = {}
    print(f"per call, ms: mean wall / parent CPU / child CPU  ({a.rounds - 1} rounds x "
          f"{workload.VARIANTS_PER_TOOL} variants per tool, one call at a time)")
    print(f"{'tool':<13}" + "".join(f"{b:>30}" for b in names))
    tot = {b: [0.0, 0.0, 0.0] for b in names}
    for tool in workload.TOOLS:
        cells = []
        for b in names:
            d = acc[(b, tool)]
            m = [1e3 * statistics.fmean(d[k]) for k in ("wall", "parent", "child")]
            out[f"{b}/{tool}"] = dict(zip(("wall_ms", "parent_cpu_ms", "child_cpu_ms"), m))
            for i in range(3):
                tot[b][i] += m[i] / len(workload.TOOLS)
            cells.append(f"{m[0]:9.2f} / {m[1]:6.3f} / {m[2]:6.2f}")
        print(f"{tool:<13}" + "".join(f"{c:>30}" for c in cells))
    print(f"{'mix mean':<13}" + "".join(f"{tot[b][0]:9.2f} / {tot[b][1]:6.3f} / {tot[b][2]:6.2f}".rjust(30)
                                         for b in names))
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

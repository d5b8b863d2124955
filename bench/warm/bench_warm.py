#!/usr/bin/env python3
"""bench_warm.py - cold vs warm Python tool calls (make bench-warm).

    bench_warm.py [--calls N] [--json PATH] PYTHON [PYTHON ...]

For each interpreter and each script (count_defs.py of the agent-tools mix,
a small json/re script, `-c pass`), N calls cold and N warm, interleaved
(cold, warm, cold, warm, ...), through spawnkit.run(warm=False/True), the
json/re script also with the warm interpreter's import cache off
(SPAWNKIT_WARM_IMPORT_CACHE=0, the figure before the cache); every
warm result must equal the cold one.  Per call: wall time (median and min, and the
ratio warm/cold of the medians and of the mins; the load average at the
start and the end, as the host may be shared), CPU of the tool (RUSAGE_CHILDREN), and for
warm the warm interpreter's own CPU too (start-up and every fork: it is
reaped with warm_shutdown() after the series, which moves its CPU into
RUSAGE_CHILDREN), and the caller's own CPU (RUSAGE_SELF).  The goals of
issue 13 are checked on the json/re script, without and with preload=json,re
(preloaded modules are visible in the tool's sys.modules: opt-in): warm <=
1/3 of cold wall time on Debian's /usr/bin/python3, <= 1/5 on the others.
"""
import argparse
import json
import os
import resource
import statistics
import sys
import time

import spawnkit

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
COUNT_DEFS = os.path.join(REPO, "bench", "agent_tools", "programs", "count_defs.py")
JSON_RE = os.path.join(HERE, "small_json_re.py")
# (name, argv after the interpreter, preload for the warm calls, import cache)
SCRIPTS = [("count_defs", [COUNT_DEFS, COUNT_DEFS], None, True),
           ("json_re", [JSON_RE, COUNT_DEFS], None, True),
           ("json_re import cache off", [JSON_RE, COUNT_DEFS], None, False),
           ("json_re preload=json,re", [JSON_RE, COUNT_DEFS], ["json", "re"], True),
           ("-c pass", ["-c", "pass"], None, True)]


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def series(py, args, n, preload=None, import_cache=True):
    """n cold and n warm calls, interleaved; per-call figures of each."""
    spawnkit.warm_shutdown()
    os.environ["SPAWNKIT_WARM_IMPORT_CACHE"] = "1" if import_cache else "0"   # read at start
    spawnkit.run([py] + args, warm=True, preload=preload)  # starts the interpreter (its CPU still counted)
    out = {"cold": {"wall": [], "tool": 0.0, "caller": 0.0},
           "warm": {"wall": [], "tool": 0.0, "caller": 0.0}}
    ref = None
    w0 = spawnkit.warm_stats()["warm_spawns"]
    for i in range(2 * n):
        kind = "cold" if i % 2 == 0 else "warm"
        c0, s0, t0 = cpu(resource.RUSAGE_CHILDREN), cpu(resource.RUSAGE_SELF), time.perf_counter()
        r = spawnkit.run([py] + args, warm=(kind == "warm"),
                         **({"preload": preload} if kind == "warm" else {}))
        t1, c1, s1 = time.perf_counter(), cpu(resource.RUSAGE_CHILDREN), cpu(resource.RUSAGE_SELF)
        got = (r.returncode, r.stdout, r.stderr)
        if ref is None:
            ref = got
        if got != ref or r.returncode != 0:
            raise SystemExit(f"bench_warm: {kind} call of {args} gave {got!r}, expected {ref!r}")
        d = out[kind]
        d["wall"].append(t1 - t0)
        d["tool"] += c1 - c0
        d["caller"] += s1 - s0
    if spawnkit.warm_stats()["warm_spawns"] - w0 != n:
        raise SystemExit(f"bench_warm: not every warm call of {args} started warm: {spawnkit.warm_stats()}")
    c0 = cpu(resource.RUSAGE_CHILDREN)
    spawnkit.warm_shutdown()                      # reap it: its own CPU, start-up included
    interp = cpu(resource.RUSAGE_CHILDREN) - c0
    res = {}
    for kind in ("cold", "warm"):
        d = out[kind]
        res[kind] = {"wall_ms_median": 1e3 * statistics.median(d["wall"]),
                     "wall_ms_min": 1e3 * min(d["wall"]),
                     "tool_cpu_ms": 1e3 * d["tool"] / n, "caller_cpu_ms": 1e3 * d["caller"] / n}
    res["warm"]["interp_cpu_ms"] = 1e3 * interp / n
    res["warm"]["cpu_ms"] = res["warm"]["tool_cpu_ms"] + res["warm"]["interp_cpu_ms"]
    res["cold"]["cpu_ms"] = res["cold"]["tool_cpu_ms"]
    res["wall_ratio"] = res["warm"]["wall_ms_median"] / res["cold"]["wall_ms_median"]
    # min over min: on a shared host, the least disturbed call of each kind
    res["wall_ratio_min"] = res["warm"]["wall_ms_min"] / res["cold"]["wall_ms_min"]
    res["cpu_ratio"] = res["warm"]["cpu_ms"] / res["cold"]["cpu_ms"]
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    p.add_argument("--calls", type=int, default=200, help="calls per kind per series (default 200)")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("pythons", nargs="+")
    a = p.parse_args()
    results = {"date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
               "loadavg_at_start": open("/proc/loadavg").read().split()[:3],
               "calls": a.calls, "series": []}
    print(f"bench-warm: {a.calls} cold + {a.calls} warm calls per row, interleaved; load average "
          f"{' '.join(results['loadavg_at_start'])}")
    print("| interpreter | script | cold wall ms median (min) | warm wall ms median (min) | "
          "warm/cold wall median (min) | cold CPU ms/call | "
          "warm CPU ms/call (tool + warm interpreter) | caller CPU ms/call cold / warm |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    failed = []
    for py in a.pythons:
        real = os.path.realpath(py)
        for name, args, preload, ic in SCRIPTS:
            r = series(real, args, a.calls, preload, ic)
            r.update(interpreter=py, realpath=real, script=name)
            results["series"].append(r)
            c, w = r["cold"], r["warm"]
            print(f"| {py} | {name} | {c['wall_ms_median']:.2f} ({c['wall_ms_min']:.2f}) | "
                  f"{w['wall_ms_median']:.2f} ({w['wall_ms_min']:.2f}) | "
                  f"{r['wall_ratio']:.3f} ({r['wall_ratio_min']:.3f}) | {c['cpu_ms']:.2f} | {w['cpu_ms']:.2f} "
                  f"({w['tool_cpu_ms']:.2f} + {w['interp_cpu_ms']:.2f}) | "
                  f"{c['caller_cpu_ms']:.2f} / {w['caller_cpu_ms']:.2f} |", flush=True)
            if name.startswith("json_re") and ic:
                goal = 1 / 3 if real.startswith("/usr/bin/") else 1 / 5
                ok = r["wall_ratio"] <= goal
                r["goal"] = {"max_wall_ratio": goal, "met": ok}
                if not ok:
                    failed.append(f"{py}: {name} warm/cold wall {r['wall_ratio']:.3f} > {goal:.3f}")
    results["loadavg_at_end"] = open("/proc/loadavg").read().split()[:3]
    print(f"load average at the end {' '.join(results['loadavg_at_end'])}")
    for f in failed:
        print("goal not met:", f)
    if not failed:
        print("goals met: json_re warm/cold wall <= 1/3 (Debian) and <= 1/5 (others)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
        print("json:", a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

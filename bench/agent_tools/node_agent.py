#!/usr/bin/env python3
"""node_agent.py - the agent-tools mix from a Node.js agent runtime.

The same 16-tool mix as agent_tools.py (workload.py: the same calls, the
same verified outputs), driven from a Node harness (node/bench/agent-worker.js)
that holds a realistic resident size and keeps 16 calls in flight through
child_process.execFile, as an agent CLI's tool runner does.  Four ways:

  stock          child_process as Node ships it (libuv forks the whole parent)
  register       the same code under `node -r spawnkit/register` (defaults)
  register-nice  the same with SPAWNKIT_REGISTER_CHILD_NICE=N (--nice, 10 by
                 default; 0 leaves this mode out): register's opt-in that
                 starts the tools N nice values above the harness
  register-idle  the same with SPAWNKIT_REGISTER_CHILD_POLICY=idle,
                 SPAWNKIT_REGISTER_CHILD_SLICE_MS=M (--idle-tool-slice, 8
                 by default) and SPAWNKIT_REGISTER_LOOP_SLICE_MS=N
                 (--idle-slice, 8 by default; 0 keeps a default slice;
                 --no-idle leaves this mode out): register's opt-ins that
                 start the tools SCHED_IDLE with a long slice of their own
                 and give the loop thread a longer slice
--modes picks some of them (stock is the speed-ups' reference).

For each resident size (512 MiB and 2 GiB by default) and repetition, all
run back to back, their order rotating.  Reported: calls/s and the
event loop's p99 delay (perf_hooks.monitorEventLoopDelay), median over the
repetitions with min-max, and the ratio of medians to stock; then, per
mode, the tool-call latency (execFile to its callback), the time execFile
itself holds the loop (the synchronous start) and the loop delay, each as
p50/p90/p99/max (median over the repetitions).  The issue's goals: at
2 GiB >= 5x the calls/s of stock and p99 <= 5 ms; at 512 MiB >= 2x; each
register mode is held to them.

Exit status: 0 done; 1 a call returned a wrong result or a run failed (or
register did not route every call); 2 bad usage or a missing tool.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import toolinfo  # noqa: E402
import workload  # noqa: E402
from agent_tools import BenchFailure, prepare_tools, preflight  # noqa: E402

WORKER = REPO / "node" / "bench" / "agent-worker.js"
REGISTER = REPO / "node" / "register.js"
GOALS = {2048: (5.0, 5.0), 512: (2.0, None)}   # MiB: (min speed-up, max register p99 ms)
NICE_ENV = "SPAWNKIT_REGISTER_CHILD_NICE"    # node/lib/register/options.js
POLICY_ENV = "SPAWNKIT_REGISTER_CHILD_POLICY"
SLICE_ENV = "SPAWNKIT_REGISTER_LOOP_SLICE_MS"
CHILD_SLICE_ENV = "SPAWNKIT_REGISTER_CHILD_SLICE_MS"
REGISTER_ENVS = (NICE_ENV, POLICY_ENV, SLICE_ENV, CHILD_SLICE_ENV)
ALL_MODES = ("stock", "register", "register-nice", "register-idle")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="node_agent.py", description=__doc__.split("\n\n")[1])
    p.add_argument("--calls", type=int, default=480, help="calls per run (default 480: 30 per tool)")
    p.add_argument("--reps", type=int, default=3, help="repetitions (default 3)")
    p.add_argument("--resident", default="512,2048", help="MiB held by the harness, comma-separated")
    p.add_argument("--in-flight", type=int, default=16)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nice", type=int, default=10,
                   help="the register-nice mode's SPAWNKIT_REGISTER_CHILD_NICE (default 10; 0: no such mode)")
    p.add_argument("--idle-slice", type=float, default=8.0,
                   help="the register-idle mode's SPAWNKIT_REGISTER_LOOP_SLICE_MS (default 8; 0: the "
                        "loop's default slice, the tools still SCHED_IDLE)")
    p.add_argument("--idle-tool-slice", type=float, default=8.0,
                   help="the register-idle mode's SPAWNKIT_REGISTER_CHILD_SLICE_MS (default 8; 0: the "
                        "tools' default slice)")
    p.add_argument("--no-idle", action="store_true", help="leave the register-idle mode out")
    p.add_argument("--modes", default=None,
                   help=f"comma-separated, of {','.join(ALL_MODES)} (default: all that --nice and "
                        "--no-idle leave in); without stock there are no speed-ups")
    p.add_argument("--child-nice", type=int, default=None,
                   help="diagnostic: renice every tool to N right after its start, in both modes "
                        "(how much of the loop delay is the tools' competition for the CPU)")
    p.add_argument("--trace", action="store_true",
                   help="diagnostic: split the loop's slowest ticks into its own CPU time, run-queue "
                        "wait and blocked time (the loop thread's schedstat; node/bench/loop-trace.js)")
    p.add_argument("--trivial", action="store_true",
                   help="diagnostic: every tool replaced by cat of its expected output (the same starts "
                        "and bytes, no tool CPU)")
    p.add_argument("--node", default=shutil.which("node") or "node")
    p.add_argument("--json", default=str(REPO / "bench" / "results" / "node_agent.json"))
    p.add_argument("--plot", default=str(REPO / "bench" / "results" / "node_agent.png"))
    return p.parse_args(argv)


def write_plan(w: workload.Workload, n: int, seed: int, path: Path) -> None:
    calls = [{"tool": c.tool, "argv": list(c.argv), "cwd": c.cwd, "returncode": c.returncode,
              "unordered": c.unordered, "stdout": base64.b64encode(c.stdout).decode()}
             for c in w.plan(n, seed)]
    path.write_text(json.dumps({"calls": calls}))


@contextlib.contextmanager
def planned(a: argparse.Namespace, name: str) -> Iterator[tuple[Path, Path]]:
    """A scratch directory with the workload's tree and a plan of a.calls
    calls (what every trial runs), removed afterwards: (directory, plan)."""
    root = Path(tempfile.mkdtemp(prefix=f"spawnkit-{name}-"))
    try:
        w = workload.build(root / "tree", a.seed, sys.executable)
        preflight(w)
        plan = root / "plan.json"
        write_plan(w, a.calls, a.seed, plan)
        yield root, plan
    finally:
        shutil.rmtree(root, ignore_errors=True)


def modes(a: argparse.Namespace) -> list[str]:
    ms = ["stock", "register"] + (["register-nice"] if a.nice else []) + ([] if a.no_idle else ["register-idle"])
    if a.modes is None:
        return ms
    want = [m for m in a.modes.split(",") if m]
    bad = [m for m in want if m not in ms]
    if bad or not want:
        raise SystemExit(f"node_agent.py: --modes: {','.join(bad) or 'none'} not among {','.join(ms)}")
    return [m for m in ms if m in want]


def register_env(a: argparse.Namespace, mode: str) -> dict[str, str]:
    """The environment a trial of mode runs with: register's settings for
    its mode only, none inherited from ours."""
    env = {k: v for k, v in os.environ.items() if k not in REGISTER_ENVS}
    if mode == "register-nice":
        env[NICE_ENV] = str(a.nice)
    if mode == "register-idle":
        env[POLICY_ENV] = "idle"
        env[SLICE_ENV] = f"{a.idle_slice:g}"
        env[CHILD_SLICE_ENV] = f"{a.idle_tool_slice:g}"
    return env


def check_options(a: argparse.Namespace, mode: str, got: dict) -> None:
    """register's settings as the harness reported them are its mode's."""
    want = {"childNice": a.nice if mode == "register-nice" else 0,
            "childPolicy": "idle" if mode == "register-idle" else None,
            "loopSliceMs": a.idle_slice if mode == "register-idle" else 0,
            "childSliceMs": a.idle_tool_slice if mode == "register-idle" else 0}
    for k, v in want.items():
        if got.get(k) != v:
            raise BenchFailure(f"{mode}: register's {k} is {got.get(k)!r}, not {v!r}")


def run_trial(a: argparse.Namespace, mode: str, resident: int, plan: Path,
              prefix: tuple[str, ...] = (), worker_args: tuple[str, ...] = ()) -> dict:
    """One trial; prefix: a command the harness runs under, worker_args:
    more options of agent-worker.js (sched_variants.py uses both)."""
    pre = ["-r", str(REGISTER)] if mode.startswith("register") else []
    env = register_env(a, mode)
    cmd = [*prefix, a.node, *pre, str(WORKER), "--plan", str(plan), "--resident", str(resident),
           "--in-flight", str(a.in_flight), *worker_args]
    if a.child_nice is not None:
        cmd += ["--child-nice", str(a.child_nice)]
    cmd += ["--trace"] * a.trace + ["--trivial"] * a.trivial
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise BenchFailure(f"{mode} at {resident} MiB: {r.stderr.strip()[-2000:]}")
    t = json.loads(r.stdout)
    if mode != "stock" and (t["stats"] is None or t["stats"]["fallback"]):
        raise BenchFailure(f"register did not route every call: {t['stats']}")
    if mode != "stock":
        check_options(a, mode, t["register_options"])
    for k in QUANTILE_SETS:
        for q in QUANTILES:
            t[f"{k}_{q}"] = t[k][q]
    return t


QUANTILE_SETS = ("call_ms", "start_hold_ms", "loop_ms")
QUANTILES = ("p50", "p90", "p99", "max")


def latency_table(rows: list[dict], ms: list[str]) -> list[str]:
    """Per resident size and mode: each quantile's median over the reps."""
    head = " ".join(f"{q:>7}" for q in QUANTILES)
    out = [f"{'resident':>9} {'mode':<13} | tool-call latency ms {head} | start holds loop ms {head}"
           f" | loop delay ms {head}"]
    for r in rows:
        for mode in ms:
            cells = [" ".join(f"{r[mode][f'{k}_{q}']['median']:7.1f}" for q in QUANTILES)
                     for k in QUANTILE_SETS]
            out.append(f"{r['resident']:>6} MiB {mode:<13} | {'':20} {cells[0]} | {'':19} {cells[1]}"
                       f" | {'':13} {cells[2]}")
    return out


def trace_table(trials: list[dict], sizes: list[int], ms: list[str]) -> list[str]:
    """--trace: per resident size and mode (median over the reps), the
    slowest 1 % of the loop's 1 ms ticks, i.e. what its p99 is made of,
    as ms per tick: the loop thread on a CPU, runnable but waiting for one,
    and the rest (asleep or blocked), with GC pauses inside; then the
    share of the whole run the loop spent waiting for a CPU; and in those
    ticks, the starts (execFile's synchronous part) per tick with their
    time, and the completion callbacks per tick."""
    out = [f"{'resident':>9} {'mode':<13} | slowest 1 % of ticks, ms each: {'delay':>7} {'loop CPU':>8}"
           f" {'run queue':>9} {'blocked':>7} {'GC':>5} | starts {'n':>4} {'ms':>5} | done {'n':>4}"
           f" | whole run: {'run queue':>9} {'loop CPU':>8}"]
    for size in sizes:
        for mode in ms:
            tr = [t["trace"] for t in trials if t["resident"] == size and t["mode"] == mode and t.get("trace")]
            if not tr:
                continue

            def med(f):
                return statistics.median(f(x) for x in tr)

            top = lambda x, k: x["tick_top1"][k] / max(1, x["tick_top1"]["n"])  # noqa: E731
            share = lambda x, k: 100 * x["all"][k] / max(1e-9, x["all"]["wall_ms"])  # noqa: E731
            out.append(f"{size:>6} MiB {mode:<13} | {'':31} {med(lambda x: top(x, 'wall_ms')):7.1f}"
                       f" {med(lambda x: top(x, 'cpu_ms')):8.1f} {med(lambda x: top(x, 'runq_ms')):9.1f}"
                       f" {med(lambda x: top(x, 'other_ms')):7.1f} {med(lambda x: top(x, 'gc_ms')):5.1f}"
                       f" | {'':6} {med(lambda x: top(x, 'starts_n')):4.1f} {med(lambda x: top(x, 'starts_ms')):5.1f}"
                       f" | {'':4} {med(lambda x: top(x, 'dones_n')):4.1f}"
                       f" | {'':11} {med(lambda x: share(x, 'runq_ms')):8.0f}% {med(lambda x: share(x, 'cpu_ms')):7.0f}%")
    return out


def summary(ts: list[dict], key: str) -> dict:
    xs = [t[key] for t in ts]
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}


def table(rows: list[dict], ms: list[str]) -> list[str]:
    """A line per resident size and mode: calls/s, its ratio to stock's,
    the loop's p99 delay, and the issue's goals for the register modes."""
    out = [f"{'resident':>9} {'mode':<13} {'calls/s':>20} {'speed-up':>9} {'loop p99 ms':>20}  goals"]
    cell = lambda d, f: f"{d['median']:{f}} ({d['min']:{f}}-{d['max']:{f}})"  # noqa: E731
    for r in rows:
        want_x, want_p99 = GOALS.get(r["resident"], (None, None))
        for mode in ms:
            g = r[mode]
            x = r["speedup"].get(mode)
            goals = []
            if mode != "stock" and want_x:
                goals.append(f">={want_x:g}x " + ("not measured (no stock)" if x is None else
                                                 "met" if x >= want_x else "MISSED"))
            if mode != "stock" and want_p99:
                goals.append(f"p99<={want_p99:g} ms {'met' if g['p99_ms']['median'] <= want_p99 else 'MISSED'}")
            xs = "-" if x is None else f"{x:.1f}x"
            out.append(f"{r['resident']:>6} MiB {mode:<13} {cell(g['calls_per_s'], '.0f'):>20}"
                       f" {xs:>9} {cell(g['p99_ms'], '.1f'):>20}  " + ", ".join(goals))
    return out


def mode_label(a: argparse.Namespace, mode: str) -> str:
    """How the plot's legend names a mode."""
    return {"stock": "child_process", "register": "-r spawnkit/register",
            "register-nice": f"-r spawnkit/register, {NICE_ENV}={a.nice}",
            "register-idle": f"-r spawnkit/register, {POLICY_ENV}=idle, "
                             f"{CHILD_SLICE_ENV}={a.idle_tool_slice:g}, {SLICE_ENV}={a.idle_slice:g}"}[mode]


def plot(rows: list[dict], ms: list[str], a: argparse.Namespace, path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    labels = [f"{r['resident']} MiB" for r in rows]
    for ax, key, ylabel in ((axes[0], "calls_per_s", "tool calls/s"),
                            (axes[1], "p99_ms", "event loop delay p99, ms")):
        w = 0.8 / len(ms)
        for i, mode in enumerate(ms):
            xs = [x + (i - (len(ms) - 1) / 2) * w for x in range(len(rows))]
            med = [r[mode][key]["median"] for r in rows]
            lo = [r[mode][key]["median"] - r[mode][key]["min"] for r in rows]
            hi = [r[mode][key]["max"] - r[mode][key]["median"] for r in rows]
            bars = ax.bar(xs, med, w, yerr=[lo, hi], capsize=3, label=mode_label(a, mode))
            ax.bar_label(bars, fmt="%.1f" if key == "p99_ms" else "%.0f", fontsize=7, padding=2)
        ax.set_xticks(range(len(rows)), labels)
        ax.set_xlabel("resident size of the Node harness")
        ax.set_ylabel(f"{ylabel} (median; bars: min-max)")
        ax.grid(axis="y", alpha=0.3)
    axes[1].set_yscale("log")    # stock's seconds and register's milliseconds, both readable
    if any(r["resident"] in GOALS and GOALS[r["resident"]][1] for r in rows):
        axes[1].axhline(5.0, color="gray", linestyle=":", linewidth=1)
    fig.suptitle(title, fontsize=9)
    # one legend for both, below them: the register modes' names are long
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06 * ((len(ms) + 1) // 2), 1, 1))
    fig.savefig(path, dpi=120)


def run_all(a: argparse.Namespace, sizes: list[int], ms: list[str], plan: Path, trials: list[dict]) -> None:
    """Every trial, the modes' order rotating, into trials."""
    for rep in range(a.reps):
        for si, size in enumerate(sizes):
            k = (rep + si) % len(ms)
            for mode in ms[k:] + ms[:k]:
                t = run_trial(a, mode, size, plan)
                t.update(rep=rep, resident=size, mode=mode, load=os.getloadavg()[0])
                trials.append(t)
                print(f"  rep {rep + 1} {size:>5} MiB {mode:<13} {t['calls_per_s']:8.1f} calls/s"
                      f"  loop p99 {t['p99_ms']:7.2f} ms  call p50/p99/max {t['call_ms_p50']:.0f}/"
                      f"{t['call_ms_p99']:.0f}/{t['call_ms_max']:.0f} ms  start p99 {t['start_hold_ms_p99']:.2f} ms"
                      f"  ({t['calls']} calls verified, load {os.getloadavg()[0]:.1f})",
                      file=sys.stderr, flush=True)


def report(a: argparse.Namespace, sizes: list[int], ms: list[str], trials: list[dict]) -> None:
    """The tables, the plot and the JSON."""
    rows = []
    for size in sizes:
        row: dict = {"resident": size}
        for mode in ms:
            ts = [t for t in trials if t["resident"] == size and t["mode"] == mode]
            keys = ["calls_per_s", "p99_ms", "p50_ms", "max_ms", "parent_cpu_ms_per_call"]
            keys += [f"{k}_{q}" for k in QUANTILE_SETS for q in QUANTILES]
            row[mode] = {k: summary(ts, k) for k in keys}
        row["speedup"] = ({m: row[m]["calls_per_s"]["median"] / row["stock"]["calls_per_s"]["median"] for m in ms}
                          if "stock" in ms else {})
        rows.append(row)
    node_version = subprocess.run([a.node, "--version"], capture_output=True, text=True).stdout.strip()
    h = toolinfo.host()
    print()
    niced = f", register-nice: {NICE_ENV}={a.nice}" if "register-nice" in ms else ""
    niced += (f", register-idle: {POLICY_ENV}=idle {CHILD_SLICE_ENV}={a.idle_tool_slice:g} "
              f"{SLICE_ENV}={a.idle_slice:g}"
              if "register-idle" in ms else "")
    niced += "" if a.child_nice is None else f", tools reniced to {a.child_nice} (diagnostic)"
    niced += ", tools replaced by cat (diagnostic)" if a.trivial else ""
    print(f"Node agent benchmark: {a.calls} calls of the agent-tools mix per run, {a.in_flight} in flight "
          f"(child_process.execFile), {a.reps} repetitions, node {node_version}, Linux {h['kernel']}, "
          f"{h['cpus']} CPUs{niced}; load average (1 min) {min(t['load'] for t in trials):.1f}-"
          f"{max(t['load'] for t in trials):.1f} during the trials; median (min-max)")
    print()
    for line in table(rows, ms):
        print(line)
    print()
    for line in latency_table(rows, ms):
        print(line)
    if a.trace:
        print()
        for line in trace_table(trials, sizes, ms):
            print(line)
    title = (f"agent-tools mix from a Node harness, {a.calls} calls, {a.in_flight} in flight, {a.reps} reps, "
             f"node {node_version}, Linux {h['kernel']}")
    Path(a.plot).parent.mkdir(parents=True, exist_ok=True)
    plot(rows, ms, a, a.plot, title)
    print(f"\nplot: {a.plot}")
    Path(a.json).write_text(json.dumps({"host": h, "node": node_version, "calls": a.calls, "reps": a.reps,
                                        "modes": ms, "register_nice": a.nice,
                                        "register_idle": None if a.no_idle else {
                                            "child_policy": "idle", "child_slice_ms": a.idle_tool_slice,
                                            "loop_slice_ms": a.idle_slice},
                                        "child_nice": a.child_nice, "trivial": a.trivial,
                                        "in_flight": a.in_flight, "summary": rows, "trials": trials}, indent=1) + "\n")
    print(f"json: {a.json}")


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    if not prepare_tools("node_agent"):
        return 2
    sizes = [int(x) for x in a.resident.split(",") if x]
    ms = modes(a)
    trials: list[dict] = []
    try:
        with planned(a, "node-agent") as (_, plan):
            run_all(a, sizes, ms, plan, trials)
    except BenchFailure as e:
        print(f"node_agent: FAILED: {e}", file=sys.stderr)
        return 1
    report(a, sizes, ms, trials)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""loop_sched.py - who holds the CPU while the Node agent's event loop waits.

A diagnostic for node_agent.py's loop delay: one trial of the Node harness
(node/bench/agent-worker.js, with --trace) under `perf sched record -a`,
then, from the scheduler's own events, every interval in which the loop
thread (the harness's main thread) was runnable but not running, and what
ran on each CPU meanwhile:

  tools         the harness's children and their descendants (the tools)
  children before exec   the same, from their start to their exec (the
                spawn's child side: its actions at the parent's weight)
  node threads  the harness's other threads (V8's GC and compiler helpers,
                libuv's pool)
  other         everything else on the machine (other jobs, kernel threads)
  idle          no task (a wake-up not yet served)

and the loop thread's own on-CPU time.  Also counted: how often the loop
thread lost the CPU to a child it had just started (a preemption by the
new task at clone time), and the run-queue wait that followed.

  loop_sched.py --mode register --resident 2048 --calls 160 [--trivial] [--sites]

--sites also records call chains and says where the loop thread was when
it lost the CPU while runnable (the system call or interrupt, and the
user-space function that made it), with how long it then waited: a switch
inside a system call is where the kernel honoured a pending reschedule
(a cond_resched in munmap, say), not necessarily what asked for it.

Needs perf with sched tracepoints (root or perf_event_paranoid <= -1).
Exit status: 0 done, 1 the trial failed, 2 perf unavailable.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import workload  # noqa: E402
from agent_tools import preflight, prepare_tools  # noqa: E402
from node_agent import REGISTER, WORKER, write_plan  # noqa: E402

EV = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>[\d.]+):\s+sched:(?P<ev>\w+):\s*(?P<rest>.*)$")
KV = re.compile(r"(\w+)=(\S+)")
NEW_CHILD_WINDOW = 0.0005   # s: a switch to a child this soon after its creation is a clone-time preemption


def parse_args(argv):
    p = argparse.ArgumentParser(prog="loop_sched.py", description=__doc__.split("\n\n")[1])
    p.add_argument("--mode", choices=("stock", "register"), default="register")
    p.add_argument("--resident", type=int, default=2048)
    p.add_argument("--calls", type=int, default=160)
    p.add_argument("--in-flight", type=int, default=16)
    p.add_argument("--trivial", action="store_true", help="the tools replaced by cat of their output")
    p.add_argument("--node", default=shutil.which("node") or "node")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default=None, help="write the attribution here too")
    p.add_argument("--sites", action="store_true",
                   help="with call chains: where the loop thread was switched out while runnable")
    return p.parse_args(argv)


def events(perf_data: Path):
    out = subprocess.run(["perf", "sched", "script", "-i", str(perf_data)], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = EV.match(line)
        if m:
            yield float(m["ts"]), int(m["cpu"]), int(m["tid"]), m["ev"], dict(KV.findall(m["rest"]))


SWITCH = re.compile(r"^\s*.+?\s+\d+\s+\[\d+\]\s+(?P<ts>[\d.]+):\s+sched:sched_switch:.*prev_pid=(?P<prev>\d+) "
                    r".*prev_state=(?P<state>\S+) ==> next_comm=(?P<next>.+?) next_pid=(?P<np>\d+)")


def site_of(frames: list[str]) -> str:
    """A switch-out's call chain (innermost first, "SYMBOL (DSO)") as
    'how: where': inside which system call, on the way back from one, or
    at an interrupt; and the first user-space function named above it."""
    sys_ = next((f.split()[0][len("__x64_sys_"):] for f in frames if f.startswith("__x64_sys_")), None)
    irq = any(f.startswith(("asm_sysvec", "irqentry", "asm_common_interrupt")) for f in frames)
    user = next((f.split(" (")[0] for f in frames if "kernel" not in f and not f.startswith("[unknown]")), "?")
    if sys_:
        how = f"in {sys_}()"
    elif irq:
        how = "interrupt"
    else:
        how = "syscall return" if any(f.startswith("do_syscall_64") for f in frames) else "kernel"
    return f"{how}: {user}"


def switch_sites(perf_data: Path, main: int, window: tuple[float, float]) -> dict:
    """Every time the loop thread was switched out while runnable inside
    the window: where (site_of), and how long until it ran again."""
    out = subprocess.run(["perf", "script", "-i", str(perf_data), "-F", "comm,tid,cpu,time,event,trace,ip,sym,dso"],
                         capture_output=True, text=True).stdout
    pending = None
    agg: dict[str, list] = collections.defaultdict(lambda: [0, 0.0, 0])
    longest = []
    for blk in out.split("\n\n"):
        lines = blk.strip("\n").split("\n")
        m = SWITCH.match(lines[0]) if lines and lines[0] else None
        if not m:
            continue
        ts = float(m["ts"])
        if int(m["np"]) == main and pending:
            wait = ts - pending[0]
            a = agg[pending[1]]
            a[0] += 1
            a[1] += wait
            a[2] += wait > 0.003
            longest.append((wait, pending[1], pending[2]))
            pending = None
        if int(m["prev"]) == main and window[0] <= ts <= window[1]:
            frames = [ln.strip().split(" ", 1)[1] if " " in ln.strip() else ln.strip() for ln in lines[1:]]
            pending = (ts, site_of(frames), m["next"]) if m["state"].startswith("R") else None
    longest.sort(reverse=True)
    return {"switches": sum(a[0] for a in agg.values()),
            "wait_ms": round(sum(a[1] for a in agg.values()) * 1e3, 1),
            "by_site": [{"site": k, "n": a[0], "wait_ms": round(a[1] * 1e3, 1), "over_3ms": a[2]}
                        for k, a in sorted(agg.items(), key=lambda kv: -kv[1][1])],
            "longest": [{"wait_ms": round(w * 1e3, 2), "site": site, "next": nxt} for w, site, nxt in longest[:10]]}


def overlap(a: float, b: float, spans: list[tuple[float, float]]) -> float:
    return sum(max(0.0, min(b, hi) - max(a, lo)) for lo, hi in spans)


def attribute(evs, main: int, threads: set[int], window: tuple[float, float],
              slow: list[tuple[float, float]]) -> dict:
    """The loop thread's run-queue intervals inside window (the measured
    run, not the warm-up) and what ran on every CPU meanwhile; the same
    inside the slow ticks (the loop delays that make the p99)."""
    tools: set[int] = set()
    born: dict[int, float] = {}
    execd: set[int] = set()     # tools past their exec (the rest are still being started)
    running: dict[int, tuple[int, float]] = {}      # cpu -> (tid, since)
    occ: list[tuple[int, float, float, int]] = []  # (cpu, from, to, tid)
    waits: list[tuple[float, float, bool]] = []    # (from, to, began with a clone-time preemption)
    oncpu = 0.0
    runnable_since = None
    by_child = False
    preempted_by_child = 0
    first = last = None
    for ts, cpu, tid, ev, kv in evs:
        if ts > window[1]:
            break
        first = ts if first is None else first
        last = ts
        if ev == "sched_process_fork":
            parent, child = int(kv["pid"]), int(kv["child_pid"])
            if (parent == main or parent in tools) and child not in threads:
                tools.add(child)
                born[child] = ts
        elif ev == "sched_process_exec":
            execd.add(int(kv.get("pid", tid)))
        elif ev == "sched_waking" and int(kv["pid"]) == main and runnable_since is None:
            runnable_since, by_child = ts, False
        elif ev == "sched_switch":
            prev, nxt = int(kv["prev_pid"]), int(kv["next_pid"])
            if cpu in running:
                t, since = running[cpu]
                occ.append((cpu, since, ts, t))
            if cpu in running and running[cpu][0] in tools and running[cpu][0] not in execd:
                _, since, _, t = occ.pop()
                occ.append((cpu, since, ts, -t))    # a child not yet exec'd: negative tid
            running[cpu] = (nxt, ts)
            if prev == main:
                if kv["prev_state"].startswith("R"):
                    runnable_since = ts
                    by_child = nxt in tools and ts - born.get(nxt, -1.0) < NEW_CHILD_WINDOW
                    preempted_by_child += by_child
            if nxt == main:
                if runnable_since is not None and runnable_since >= window[0]:
                    waits.append((runnable_since, ts, by_child))
                runnable_since = None
    for cpu, (t, since) in running.items():
        occ.append((cpu, since, last, t))

    def cat(tid: int) -> str:
        if tid == 0:
            return "idle"
        if tid == main:
            return "loop"
        if tid < 0:
            return "children before exec"
        if tid in threads:
            return "node threads"
        return "tools" if tid in tools else "other"

    # CPU time of each category inside the waits (both CPUs), by a sweep
    occ.sort(key=lambda o: o[1])
    ws = sorted(waits)
    held = collections.Counter()
    held_child = collections.Counter()
    held_slow = collections.Counter()
    slow_oncpu = 0.0
    j = 0
    for cpu, a, b, tid in occ:
        if tid == main:
            oncpu += max(0.0, min(b, window[1]) - max(a, window[0]))
            slow_oncpu += overlap(a, b, slow)
        while j < len(ws) and ws[j][1] <= a:
            j += 1
        k = j
        while k < len(ws) and ws[k][0] < b:
            lo, hi = max(a, ws[k][0]), min(b, ws[k][1])
            if hi > lo:
                held[cat(tid)] += hi - lo
                held_slow[cat(tid)] += overlap(lo, hi, slow)
                if ws[k][2]:
                    held_child[cat(tid)] += hi - lo
            k += 1
    lengths = sorted((b - a) * 1e3 for a, b, _ in waits)

    def q(p):
        return lengths[min(len(lengths) - 1, max(0, int(p / 100 * len(lengths) + 0.999) - 1))] if lengths else 0.0

    ms = lambda x: round(x * 1e3, 1)  # noqa: E731
    return {
        "span_ms": ms(window[1] - window[0]),
        "loop_on_cpu_ms": ms(oncpu),
        "waits": len(waits), "wait_ms": ms(sum(b - a for a, b, _ in waits)),
        "wait_p50_ms": round(q(50), 2), "wait_p90_ms": round(q(90), 2), "wait_p99_ms": round(q(99), 2),
        "wait_max_ms": round(lengths[-1], 2) if lengths else 0.0,
        "cpu_during_waits_ms": {k: ms(v) for k, v in held.most_common()},
        "preempted_by_new_child": preempted_by_child,
        "wait_after_child_preemption_ms": ms(sum(b - a for a, b, c in waits if c)),
        "cpu_during_those_ms": {k: ms(v) for k, v in held_child.most_common()},
        "tools_seen": len(tools),
        # the slowest 1 % of the loop's ticks: its time on the CPU, its
        # run-queue wait, and what the CPUs ran while it waited
        "slow_ticks": len(slow), "slow_wall_ms": ms(sum(b - a for a, b in slow)),
        "slow_loop_on_cpu_ms": ms(slow_oncpu),
        "slow_wait_ms": ms(sum(overlap(a, b, slow) for a, b, _ in waits)),
        "slow_cpu_during_waits_ms": {k: ms(v) for k, v in held_slow.most_common()},
    }


def main(argv) -> int:
    a = parse_args(argv)
    if not shutil.which("perf"):
        print("loop_sched: no perf", file=sys.stderr)
        return 2
    if not prepare_tools("loop_sched"):
        return 2
    root = Path(tempfile.mkdtemp(prefix="spawnkit-loop-sched-"))
    try:
        w = workload.build(root / "tree", a.seed, sys.executable)
        preflight(w)
        plan = root / "plan.json"
        write_plan(w, a.calls, a.seed, plan)
        pre = ["-r", str(REGISTER)] if a.mode == "register" else []
        cmd = [a.node, *pre, str(WORKER), "--plan", str(plan), "--resident", str(a.resident),
               "--in-flight", str(a.in_flight), "--trace"] + (["--trivial"] if a.trivial else [])
        data = root / "perf.data"
        # the worker prints its JSON (with its thread ids) on stdout
        rec = ["perf", "sched", "record", "-k", "CLOCK_MONOTONIC", "-e", "sched:sched_process_exec", "-a"]
        rec += ["-g"] * a.sites
        r = subprocess.run([*rec, "-o", str(data), "--", *cmd],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"loop_sched: trial failed: {r.stderr.strip()[-2000:]}", file=sys.stderr)
            return 1
        t = json.loads(r.stdout)
        tr = t["trace"]
        res = attribute(events(data), tr["main_tid"], set(tr["threads"]) - {tr["main_tid"]},
                        tuple(tr["window_s"]), [tuple(x) for x in tr["slow_ticks_s"]])
        if a.sites:
            res["switch_sites"] = switch_sites(data, tr["main_tid"], tuple(tr["window_s"]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    res.update(mode=a.mode, resident=a.resident, calls=a.calls, trivial=a.trivial,
               load=os.getloadavg(), calls_per_s=round(t["calls_per_s"], 1),
               loop_ms={k: round(v, 2) for k, v in t["loop_ms"].items()},
               start_hold_ms={k: round(v, 2) for k, v in t["start_hold_ms"].items()},
               trace={k: v for k, v in tr.items() if k not in ("threads", "window_s", "main_tid", "slow_ticks_s")})
    print(json.dumps(res, indent=1))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

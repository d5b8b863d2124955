#!/usr/bin/env python3
"""agent_tools.py - the agent-tools benchmark (docs/agent-tools-bench.md).

Tool calls per second of an AutoGen Core agent harness running the
"agent-tools" mix (16 tools, direct argv and shell wrappers, over a generated
source tree, sample files and a git repository with changes), with 16 calls
in flight split over worker processes, for each way of starting a process:

  subprocess       subprocess.run(argv, capture_output=True), as users do today
  spawnkit-user    spawnkit.run(...) on the user-space template backend
  spawnkit-kernel  spawnkit.run(...) on the kernel's spawn templates, only
                   when the kernel has them (the library probes its calls)
  spawnkit-warm    spawnkit.run(..., warm=True): the user backend, with
                   python-small forked from a warm interpreter (docs/warm.md)

Each run is made in two tool environments, reported side by side, so that
skipping injected set-up is never sold as a spawn gain:

  configured       the environment as this machine sets it (e.g. its
                   NODE_EXTRA_CA_CERTS), python-small on the configured python3
  clean            no NODE_EXTRA_CA_CERTS, python-small on Debian's
                   /usr/bin/python3 (no site .pth that imports certifi)

Backends are interleaved (each repetition runs every split, and in each split
every backend, in an order rotated per repetition), every call's output is
checked against a value computed from the generated files, and the table
gives median, min and max over the repetitions.

Exit status: 0 done; 1 a call returned a wrong result or a worker failed;
2 bad usage or a missing tool; 3 done, but a spawnkit backend that should be
measured was unavailable (its column says why).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import backends  # noqa: E402
import report  # noqa: E402
import toolinfo  # noqa: E402
import workload  # noqa: E402

DEFAULT_SPLITS = "1x16,2x8,4x4,8x2"
DEFAULT_PLOT = REPO / "bench" / "results" / "agent_tools.png"
READY_TIMEOUT_S = 300
TRIAL_TIMEOUT_S = 1800


class BenchFailure(Exception):
    """A wrong result or a failed worker: the run is invalid, not slow."""


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="agent_tools.py", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=6144, help="tool calls per run (default 6144)")
    p.add_argument("--splits", default=DEFAULT_SPLITS,
                   help=f"workers x in-flight per worker, comma-separated (default {DEFAULT_SPLITS})")
    p.add_argument("--backends", default="auto",
                   help="comma-separated from: " + ", ".join(backends.ALL) +
                        "; auto = subprocess, spawnkit-user, and spawnkit-kernel when the kernel has it")
    p.add_argument("--reps", type=int, default=5, help="repetitions (default 5)")
    p.add_argument("--envs", default="configured,clean",
                   help="tool environments, comma-separated: configured, clean (default both)")
    p.add_argument("--json", nargs="?", const="", default=None, metavar="PATH",
                   help="also write the results as JSON (default: beside the plot)")
    p.add_argument("--plot", default=str(DEFAULT_PLOT), help=f"PNG path (default {DEFAULT_PLOT})")
    p.add_argument("--seed", type=int, default=20260518, help="workload seed")
    p.add_argument("--workdir", help="generate the workload here (must not exist; removed afterwards)")
    a = p.parse_args(argv)
    if a.calls < 1 or a.reps < 1:
        p.error("--calls and --reps must be positive")
    try:
        a.split_list = []
        for s in a.splits.split(","):
            w, k = (int(x) for x in s.strip().split("x"))
            if w < 1 or k < 1:
                raise ValueError
            a.split_list.append((f"{w}x{k}", w, k))
    except ValueError:
        p.error(f"--splits: expected a list like {DEFAULT_SPLITS}, got {a.splits!r}")
    if a.backends != "auto":
        a.backend_list = [b.strip() for b in a.backends.split(",") if b.strip()]
        bad = [b for b in a.backend_list if b not in backends.ALL]
        if bad or not a.backend_list:
            p.error(f"--backends: unknown {', '.join(bad) or '(empty)'}; known: {', '.join(backends.ALL)}")
    a.env_list = [e.strip() for e in a.envs.split(",") if e.strip()]
    if not a.env_list or any(e not in ENVS for e in a.env_list):
        p.error(f"--envs: known: {', '.join(ENVS)}")
    return a


# Tool environments: (variables unset in the workers, python-small's interpreter).
CLEAN_PYTHON = "/usr/bin/python3"
ENVS = {
    "configured": ((), None),
    "clean": (("NODE_EXTRA_CA_CERTS",), CLEAN_PYTHON),
}


def tool_environment() -> None:
    """One environment for every call of every backend: the C locale (so ls,
    sort and grep behave the same everywhere) and no user or system config
    that changes a tool's output."""
    os.environ["LC_ALL"] = "C"
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
    for var in ("RIPGREP_CONFIG_PATH", "BASH_ENV", "ENV", "CDPATH", "GREP_COLORS", "GIT_DIR",
                "GIT_WORK_TREE", "GIT_INDEX_FILE", "NODE_OPTIONS", "SPAWNKIT_BACKEND"):
        os.environ.pop(var, None)


def prepare_tools(prog: str) -> bool:
    """The tool environment set and every tool of the mix on PATH; False,
    said on stderr under prog's name, if one is missing (exit status 2)."""
    tool_environment()
    try:
        toolinfo.check_all()
    except toolinfo.MissingTool as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return False
    return True


def choose_backends(a: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """(backends to measure, {backend: why it cannot be measured})."""
    if a.backends == "auto":
        wanted = ["subprocess", "spawnkit-user"]
        if backends.kernel_has_templates():
            wanted.append("spawnkit-kernel")
        wanted.append("spawnkit-warm")
    else:
        wanted = a.backend_list
    unavailable = {}
    for b in wanted:
        why = backends.unavailable_reason(b)
        if why:
            unavailable[b] = why
    if "subprocess" not in wanted:
        wanted.insert(0, "subprocess")   # the baseline every delta is against
    return wanted, unavailable


def preflight(w: workload.Workload) -> None:
    """Every distinct call once, sequentially, with plain subprocess: a wrong
    expectation is a workload or environment problem, reported before any
    timing starts.  (It also warms the page cache equally for all backends.)"""
    import subprocess
    for tool, calls in w.variants.items():
        for c in calls:
            r = subprocess.run(c.argv, cwd=c.cwd, capture_output=True, stdin=subprocess.DEVNULL)
            err = c.check(r.returncode, r.stdout, r.stderr)
            if err:
                raise BenchFailure(f"preflight: {tool}: {' '.join(c.argv)} (cwd {c.cwd}): {err}")


class Progress:
    """A tqdm bar over all calls of all trials on a terminal; one line per
    trial otherwise (logs and CI)."""

    def __init__(self, total: int) -> None:
        from tqdm import tqdm
        self.tty = sys.stderr.isatty()
        self.bar = tqdm(total=total, unit="call", dynamic_ncols=True, disable=not self.tty,
                        mininterval=0.3, smoothing=0.05)

    def label(self, text: str) -> None:
        self.bar.set_description(text, refresh=False)

    def advance(self, n: int) -> None:
        if n:
            self.bar.update(n)

    def trial_done(self, text: str) -> None:
        if self.tty:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        self.bar.close()


def run_trial(ctx: Any, w: workload.Workload, plan: list[workload.Call], backend: str,
              n_workers: int, in_flight: int, progress: Progress,
              unset: tuple[str, ...] = ()) -> dict[str, Any]:
    """Start n_workers worker processes, release them together, and return
    the wall time until the last finishes its share."""
    import harness
    warmup = [w.variants[t][0] for t in workload.TOOLS]
    go = ctx.Event()
    counts = ctx.RawArray("q", n_workers)
    procs, conns = [], []
    try:
        for i in range(n_workers):
            parent, child = ctx.Pipe(duplex=False)
            p = ctx.Process(target=harness.worker_main, name=f"agent-tools-worker-{i}",
                            args=(child, go, backend, in_flight, plan[i::n_workers], warmup, counts, i,
                                  unset))
            p.start()
            child.close()
            procs.append(p)
            conns.append(parent)
        for i, c in enumerate(conns):
            if not c.poll(READY_TIMEOUT_S):
                raise BenchFailure(f"worker {i} ({backend}) not ready after {READY_TIMEOUT_S} s")
            kind, payload = c.recv()
            if kind != "ready":
                raise BenchFailure(f"worker {i} ({backend}) failed while starting: {payload}")
        t_go = time.monotonic()
        go.set()
        results: dict[int, dict[str, Any]] = {}
        shown = 0
        pending = dict(enumerate(conns))
        while pending:
            for c in mp.connection.wait(list(pending.values()), timeout=0.3):
                i = next(k for k, v in pending.items() if v is c)
                try:
                    kind, payload = c.recv()
                except EOFError:
                    raise BenchFailure(f"worker {i} ({backend}) died (exit code {procs[i].exitcode})")
                if kind != "done":
                    raise BenchFailure(f"worker {i} ({backend}, {n_workers}x{in_flight}): {payload}")
                results[i] = payload
                del pending[i]
            now = sum(counts)
            progress.advance(now - shown)
            shown = now
            if time.monotonic() - t_go > TRIAL_TIMEOUT_S:
                raise BenchFailure(f"trial {backend} {n_workers}x{in_flight} exceeded {TRIAL_TIMEOUT_S} s")
        for p in procs:
            p.join()
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join()
        for c in conns:
            c.close()
    done = sum(r["calls"] for r in results.values())
    if done != len(plan):
        raise BenchFailure(f"{backend}: {done} calls verified, {len(plan)} planned")
    wall = max(r["t1"] for r in results.values()) - t_go
    per_tool: dict[str, list[int]] = {}
    for r in results.values():
        for tool, (n, ns) in r["per_tool"].items():
            acc = per_tool.setdefault(tool, [0, 0])
            acc[0] += n
            acc[1] += ns
    # python-small must really have started warm in the warm column (a call
    # that fell back cold is correct but would measure the cold path)
    warm = sum(r["warm_spawns"] for r in results.values())
    python_calls = sum(1 for c in plan if c.tool == "python-small")
    cpu_self = sum(r["cpu"]["self_s"] for r in results.values())
    cpu_children = sum(r["cpu"]["children_s"] for r in results.values())
    return {"wall_s": wall, "calls": done, "calls_per_s": done / wall,
            "worker_cpu_ms_per_call": 1e3 * cpu_self / done, "tool_cpu_ms_per_call": 1e3 * cpu_children / done,
            "cpu_ms_per_call": 1e3 * (cpu_self + cpu_children) / done,
            "latency_ms_per_tool": {t: ns / n / 1e6 for t, (n, ns) in sorted(per_tool.items())},
            "warm_spawns": warm, "python_small_calls": python_calls}


def print_header(a: argparse.Namespace, measured: list[str], unavailable: dict[str, str]) -> dict[str, Any]:
    h = toolinfo.host()
    meta: dict[str, Any] = {
        "host": h, "autogen_core": toolinfo.autogen_version(), "spawnkit_revision": toolinfo.repo_revision(str(REPO)),
        "calls": a.calls, "reps": a.reps, "splits": [s for s, _, _ in a.split_list], "seed": a.seed,
        "command": " ".join([os.path.relpath(sys.argv[0], os.getcwd())] + sys.argv[1:]),
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "kernel_spawn_templates": backends.kernel_has_templates(),
    }
    print("agent-tools benchmark (AutoGen Core harness)")
    print(f"  host: Linux {h['kernel']}, {h['cpus']} CPUs ({h['cpu']}), load average {h['loadavg_at_start']}")
    print(f"  interpreter: {h['python']} (Python {h['python_version']}); autogen-core {meta['autogen_core']}")
    print(f"  spawnkit: revision {meta['spawnkit_revision']}; kernel spawn templates: "
          f"{'present' if meta['kernel_spawn_templates'] else 'absent (ENOSYS)'}")
    print(f"  run: {a.calls} calls x {len(a.split_list)} splits x {a.reps} reps; backends: "
          + ", ".join(b + (" (unavailable)" if b in unavailable else "") for b in measured))
    print("  tools:")
    meta["tools"] = {}
    for name, path, ver in toolinfo.tools():
        print(f"    {name:<6} {path:<28} {ver}")
        meta["tools"][name] = {"path": path, "version": ver}
    print(f"    {'python':<6} {sys.executable:<28} Python {h['python_version']} (the python-small tool)")
    for b, why in unavailable.items():
        print(f"  NOTE: {b} is not measured: {why}")
    sys.stdout.flush()
    return meta


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    if not prepare_tools("agent_tools"):
        return 2
    measured, unavailable = choose_backends(a)
    if a.backends != "auto" and unavailable:
        for b, why in unavailable.items():
            print(f"agent_tools: backend {b} requested but unavailable: {why}", file=sys.stderr)
        return 2
    runnable = [b for b in measured if b not in unavailable]
    meta = print_header(a, measured, unavailable)

    # SIGTERM (a CI timeout, kill) cleans up like Ctrl-C does.
    signal.signal(signal.SIGTERM, _interrupt)
    if a.workdir:
        root = Path(a.workdir)
        root.mkdir(parents=True)
    else:
        root = Path(tempfile.mkdtemp(prefix="spawnkit-agent-tools-"))
    trials: list[dict[str, Any]] = []
    try:
        ctx = mp.get_context("forkserver")
        # Workers fork from a server that has imported the harness (AutoGen
        # Core and all): start-up is untimed anyway, this only makes it quick.
        ctx.set_forkserver_preload(["harness"])
        setups = []
        for env in a.env_list:
            unset, py = ENVS[env]
            py = py if py and os.path.exists(py) else sys.executable
            w = workload.build(root / env, a.seed, py)
            preflight(w)
            setups.append((env, unset, w, w.plan(a.calls, a.seed)))
        meta["envs"] = {env: {"unset": list(unset), "python_small": w.python}
                        for env, unset, w, _ in setups}
        for env, unset, w, _ in setups:
            print(f"  env {env}: unset {', '.join(unset) or 'nothing'}; python-small on {w.python}")
        progress = Progress(a.reps * len(a.split_list) * len(runnable) *
                            sum(len(p) for _, _, _, p in setups))
        try:
            for rep in range(a.reps):
                for si, (split, n_workers, in_flight) in enumerate(a.split_list):
                    for env, unset, w, plan in setups:
                        r = (rep + si) % len(runnable)
                        for backend in runnable[r:] + runnable[:r]:
                            progress.label(f"rep {rep + 1}/{a.reps} {split} {env} {backend}")
                            t = run_trial(ctx, w, plan, backend, n_workers, in_flight, progress, unset)
                            t.update(rep=rep, split=split, backend=backend, workers=n_workers,
                                     in_flight=in_flight, env=env)
                            trials.append(t)
                            progress.trial_done(f"  rep {rep + 1} {split:>5} {env:<10} {backend:<16} "
                                                f"{t['calls_per_s']:8.2f} calls/s  {t['wall_s']:6.2f} s  "
                                                f"{t['cpu_ms_per_call']:6.2f} ms CPU/call  "
                                                f"({t['calls']} calls verified"
                                                + (f"; python-small warm {t['warm_spawns']}/"
                                                   f"{t['python_small_calls']}" if backend == "spawnkit-warm"
                                                   else "") + ")")
        finally:
            progress.close()
    except BenchFailure as e:
        print(f"\nagent_tools: FAILED: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nagent_tools: interrupted", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(root, ignore_errors=True)

    splits = [s for s, _, _ in a.split_list]
    summaries: dict[str, Any] = {}
    all_verdicts: list[str] = []
    plot_path = Path(a.plot)
    plot_path.parent.mkdir(parents=True, exist_ok=True)
    h = meta["host"]
    for env in a.env_list:
        et = [t for t in trials if t["env"] == env]
        rows = report.summarize(et, splits, measured)
        summaries[env] = rows
        print()
        print(f"== tool environment: {env} (unset: {', '.join(ENVS[env][0]) or 'nothing'}; "
              f"python-small on {meta['envs'][env]['python_small']})")
        print(f"{a.calls} calls of the agent-tools mix per run, 16 in flight; calls/s: median over "
              f"{a.reps} repetitions (min-max); CPU ms/call: worker + tools (rusage), median; "
              f"delta: median of the per-repetition ratios (min..max)")
        print()
        print(report.table(rows, measured, unavailable))
        print()
        for line in report.verdicts(rows, measured):
            print(f"[{env}] {line}")
            all_verdicts.append(f"[{env}] {line}")
        print()
        print("mean latency of one call as the agent sees it, ms (median over all trials of a backend):")
        for b in runnable:
            lat: dict[str, list[float]] = {}
            for t in et:
                if t["backend"] == b:
                    for tool, ms in t["latency_ms_per_tool"].items():
                        lat.setdefault(tool, []).append(ms)
            print(f"  {b:<16} " + " ".join(f"{tool}={sorted(v)[len(v) // 2]:.1f}" for tool, v in lat.items()))
        print("CPU per call, ms (median over trials): the worker process (harness, start, reap) / "
              "the tools (warm interpreters included) / both")
        for b in runnable:
            ts = [t for t in et if t["backend"] == b]
            if not ts:
                continue
            own = sorted(t["worker_cpu_ms_per_call"] for t in ts)[len(ts) // 2]
            tool = sorted(t["tool_cpu_ms_per_call"] for t in ts)[len(ts) // 2]
            both = sorted(t["cpu_ms_per_call"] for t in ts)[len(ts) // 2]
            print(f"  {b:<16} {own:.3f} / {tool:.3f} / {both:.3f}")
        path = plot_path if env == a.env_list[0] else plot_path.with_name(
            f"{plot_path.stem}-{env}{plot_path.suffix}")
        report.plot(rows, measured, str(path),
                    f"agent-tools ({env} env), AutoGen Core, {a.calls} calls, {a.reps} reps, "
                    f"Linux {h['kernel']}, {h['cpus']} CPUs, Python {h['python_version']}")
        print(f"\nplot: {path}")
    for b, why in unavailable.items():
        print(f"\n{b}: not measured: {why}")
    if a.json is not None:
        json_path = Path(a.json) if a.json else plot_path.with_suffix(".json")
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps({"meta": meta, "unavailable": unavailable,
                                         "summary": summaries, "verdicts": all_verdicts,
                                         "trials": trials}, indent=1) + "\n")
        print(f"json: {json_path}")
    return 3 if unavailable and a.backends == "auto" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

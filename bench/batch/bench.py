#!/usr/bin/env python3
"""bench.py - the batch benchmark: per-entry cost and mdu vs du vs diskus.

    bench.py --build B --tree DIR --out OUTDIR [--reps N]

1. per_entry (C): ns per entry vs batch length for a plain syscall loop and
   each batch backend available here (interleaved, repeated).
2. mdu on each available backend, on one thread (-j1: what the batch alone
   gives) and on one per online CPU (the default), GNU `du -sb`, and diskus
   (multi-threaded, from crates.io) on DIR, warm cache (one untimed run of
   each first), methods interleaved in a rotating order, REPS repetitions;
   every run's total is checked against du's (a wrong total fails the
   benchmark).  Ratios are du's time over the method's, as medians of the
   per-repetition ratios (each repetition runs every method once, close in
   time) and as min over min.

Writes OUTDIR/per_entry.csv, OUTDIR/mdu.csv, OUTDIR/batch.md (the tables,
also printed) and OUTDIR/batch.png.
"""
import argparse
import csv
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time


def per_entry(build, out, reps):
    exe = os.path.join(out, "per_entry")
    with open(os.path.join(out, "per_entry.csv"), "w") as f:
        subprocess.run([exe, str(reps)], stdout=f, check=True)
    rows = list(csv.DictReader(open(os.path.join(out, "per_entry.csv"))))
    data = {}
    for r in rows:
        data.setdefault((r["method"], int(r["length"])), []).append(float(r["ns_per_entry"]))
    return data


def mdu_methods(build, diskus):
    mdu = os.path.join(build, "bin", "mdu")
    methods = [("du -sb", ["du", "-sb"], {})]
    ncpu = os.cpu_count() or 1
    for be in ("emulator", "uring", "kernel"):
        env = dict(os.environ, SPAWNKIT_BATCH_BACKEND=be)
        probe = subprocess.run([mdu, "-b", os.path.dirname(os.path.abspath(__file__))],
                               env=env, capture_output=True)
        if probe.returncode == 0:
            methods.append(("mdu %s -j1" % be, [mdu, "-b", "-j1"], env))
            if ncpu > 1:
                methods.append(("mdu %s -j%d" % (be, ncpu), [mdu, "-b", "-j%d" % ncpu], env))
    if diskus:
        methods.append(("diskus", [diskus, "-b", "--directories", "included"], {}))
    return methods


def total_of(stdout):
    return int(stdout.split()[0])


def bench_mdu(build, tree, reps, diskus):
    methods = mdu_methods(build, diskus)
    times = {name: [] for name, _, _ in methods}
    cpus = {name: [] for name, _, _ in methods}
    want = None
    for rep in range(-1, reps):  # rep -1: warm the cache, untimed
        order = methods[rep % len(methods):] + methods[:rep % len(methods)]
        for name, argv, env in order:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run(argv + [tree], env=env or None, capture_output=True, text=True)
            dt = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            if p.returncode != 0:
                sys.exit("%s failed: %s" % (name, p.stderr))
            got = total_of(p.stdout)
            if want is None:
                want = got
            if got != want:
                sys.exit("%s total %d != %d" % (name, got, want))
            if rep >= 0:
                times[name].append(dt)
                cpus[name].append(cpu)
    return methods, times, cpus, want


def plot(pe, times, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    for m in ("loop", "emulator", "uring", "kernel"):
        xs = sorted(l for (mm, l) in pe if mm == m)
        if not xs:
            continue
        a.plot(xs, [statistics.median(pe[(m, l)]) for l in xs], marker="o", label=m + " (median)")
        a.fill_between(xs, [min(pe[(m, l)]) for l in xs], [max(pe[(m, l)]) for l in xs], alpha=0.15)
    a.set_xscale("log", base=2)
    a.set_yscale("log")
    a.set_xlabel("entries per batch")
    a.set_ylabel("ns per entry (write 8 B to /dev/null)")
    a.set_title("per-entry cost (band: min..max)")
    a.legend()
    names = list(times)
    b.bar(names, [statistics.median(times[n]) for n in names], color="tab:blue", label="median")
    b.scatter([n for n in names for _ in times[n]], [t for n in names for t in times[n]],
              color="black", s=8, zorder=3, label="each run")
    b.set_ylabel("seconds")
    b.set_title("disk usage of the 200k-file tree (warm cache)")
    b.tick_params(axis="x", rotation=30)
    b.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "batch.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--diskus", default=shutil.which("diskus") or os.path.expanduser("~/.cargo/bin/diskus"))
    args = ap.parse_args()
    diskus = args.diskus if args.diskus and os.access(args.diskus, os.X_OK) else None

    lines = []
    load_before = " ".join(open("/proc/loadavg").read().split()[0:3])
    pe = per_entry(args.build, args.out, args.reps)
    methods = [m for m in ("loop", "emulator", "uring", "kernel") if (m, 1) in pe]
    lines.append("## Per-entry cost, ns (min / median of %d), write(/dev/null, 8 B)\n" % args.reps)
    lines.append("| entries | " + " | ".join(methods) + " |")
    lines.append("|---:|" + "---:|" * len(methods))
    for l in sorted({l for (_, l) in pe}):
        cells = ["%.0f / %.0f" % (min(pe[(m, l)]), statistics.median(pe[(m, l)])) for m in methods]
        lines.append("| %d | %s |" % (l, " | ".join(cells)))

    mlist, times, cpus, total = bench_mdu(args.build, args.tree, args.reps, diskus)
    with open(os.path.join(args.out, "mdu.csv"), "w") as f:
        f.write("method,rep,seconds,cpu_seconds\n")
        for n, ts in times.items():
            for i, t in enumerate(ts):
                f.write("%s,%d,%.4f,%.4f\n" % (n, i, t, cpus[n][i]))
    nfiles = sum(len(fs) + len(ds) for _, ds, fs in os.walk(args.tree))
    du_min = min(times["du -sb"])
    lines.append("")
    lines.append("## Disk usage of %s (%d entries, total %d bytes, equal for every method), "
                 "warm cache, %d runs, %d online CPUs, load average before: %s"
                 % (args.tree, nfiles, total, args.reps, os.cpu_count() or 1, load_before))
    lines.append("")
    cpu_min = min(cpus["du -sb"])
    lines.append("| method | wall min s | wall median s | wall max s | du/this (median of "
                 "per-rep ratios) | du/this ratio range | du/this (min/min) "
                 "| CPU (user+sys) min s | CPU median s | du/this CPU (min) |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, ts in times.items():
        ratios = [d / t for d, t in zip(times["du -sb"], ts)]
        lines.append("| %s | %.3f | %.3f | %.3f | %.2fx | %.2f-%.2fx | %.2fx | %.3f | %.3f | %.2fx |" % (
            n, min(ts), statistics.median(ts), max(ts), statistics.median(ratios),
            min(ratios), max(ratios), du_min / min(ts), min(cpus[n]),
            statistics.median(cpus[n]), cpu_min / min(cpus[n])))
    lines.append("")
    lines.append("load average at the end: %s" % " ".join(open("/proc/loadavg").read().split()[0:3]))
    if not diskus:
        lines.append("\n(diskus not installed: `cargo install diskus`)")
    text = "\n".join(lines) + "\n"
    open(os.path.join(args.out, "batch.md"), "w").write(text)
    print(text)
    plot(pe, times, args.out)
    print("plot: %s" % os.path.join(args.out, "batch.png"))


if __name__ == "__main__":
    main()

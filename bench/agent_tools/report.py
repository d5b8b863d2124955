"""Summaries of the trials: the table, the JSON and the plot.

Statistics, per split and backend over the repetitions: calls/s median with
min and max; wall seconds median.  The delta of a backend against
`subprocess` is taken per repetition (both ran in the same repetition, next
to each other) and summarised by its median and range, which is steadier
than a ratio of medians on a shared, noisy machine, and by how many of the
pairs the backend won.  Over all splits together, a one-sided sign test
says how likely that many wins would be if the backend were no faster than
subprocess (each pair a coin toss): the verdict line.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

BASELINE = "subprocess"


def summarize(trials: list[dict[str, Any]], splits: list[str], backends: list[str]) -> list[dict[str, Any]]:
    rows = []
    for split in splits:
        row: dict[str, Any] = {"split": split, "backends": {}, "delta_pct": {}}
        for b in backends:
            ts = [t for t in trials if t["split"] == split and t["backend"] == b]
            if not ts:
                continue
            rates = [t["calls_per_s"] for t in ts]
            walls = [t["wall_s"] for t in ts]
            cpus = [t["cpu_ms_per_call"] for t in ts if "cpu_ms_per_call" in t]
            med = statistics.median(rates)
            row["backends"][b] = {
                "calls_per_s_median": med, "calls_per_s_min": min(rates), "calls_per_s_max": max(rates),
                "spread_pct": 100.0 * (max(rates) - min(rates)) / med,
                "wall_s_median": statistics.median(walls), "wall_s_min": min(walls), "reps": len(ts),
                "cpu_ms_median": statistics.median(cpus) if cpus else None,
            }
        base = {t["rep"]: t["calls_per_s"] for t in trials if t["split"] == split and t["backend"] == BASELINE}
        base_cpu = {t["rep"]: t.get("cpu_ms_per_call") for t in trials
                    if t["split"] == split and t["backend"] == BASELINE}
        for b in backends:
            if b == BASELINE:
                continue
            paired = [100.0 * (t["calls_per_s"] / base[t["rep"]] - 1.0)
                      for t in trials if t["split"] == split and t["backend"] == b and t["rep"] in base]
            if paired:
                row["delta_pct"][b] = {"median": statistics.median(paired), "min": min(paired),
                                       "max": max(paired), "per_rep": paired,
                                       "wins": sum(1 for d in paired if d > 0)}
            cpu_paired = [100.0 * (t["cpu_ms_per_call"] / base_cpu[t["rep"]] - 1.0)
                          for t in trials if t["split"] == split and t["backend"] == b
                          and base_cpu.get(t["rep"]) and "cpu_ms_per_call" in t]
            if cpu_paired:
                row.setdefault("cpu_delta_pct", {})[b] = {
                    "median": statistics.median(cpu_paired), "per_rep": cpu_paired,
                    "wins": sum(1 for d in cpu_paired if d < 0)}
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], backends: list[str], unavailable: dict[str, str]) -> str:
    """The reference table's columns, with the spread of each figure."""
    cols = [b for b in backends]
    others = [b for b in cols if b != BASELINE]
    head = ["workers x in-flight"] + [f"{b} calls/s" for b in cols] + ["time s", "CPU ms/call"] + \
           [("delta" if len(others) == 1 else f"delta {b}") for b in others]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row["split"]]
        times = []
        for b in cols:
            s = row["backends"].get(b)
            if s is None:
                cells.append("unavailable" if b in unavailable else "-")
                times.append("-")
            else:
                cells.append(f"{s['calls_per_s_median']:.2f} ({s['calls_per_s_min']:.1f}-{s['calls_per_s_max']:.1f})")
                times.append(f"{s['wall_s_median']:.2f}")
        cells.append(" / ".join(times))
        cells.append(" / ".join("-" if row["backends"].get(b, {}).get("cpu_ms_median") is None
                                else f"{row['backends'][b]['cpu_ms_median']:.2f}" for b in cols))
        for b in others:
            d = row["delta_pct"].get(b)
            cells.append("n/a" if d is None else
                         f"{d['median']:+.2f} % ({d['min']:+.1f}..{d['max']:+.1f}), "
                         f"faster in {d['wins']}/{len(d['per_rep'])}")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def sign_test_p(wins: int, n: int) -> float:
    """P(at least `wins` heads in n fair coin tosses): one-sided sign test."""
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2 ** n


def verdicts(rows: list[dict[str, Any]], backends: list[str]) -> list[str]:
    """One line per backend: its paired deltas over every split pooled."""
    out = []
    for b in backends:
        if b == BASELINE:
            continue
        pooled = [d for r in rows if b in r["delta_pct"] for d in r["delta_pct"][b]["per_rep"]]
        if not pooled:
            continue
        wins = sum(1 for d in pooled if d > 0)
        out.append(f"{b} vs {BASELINE}, every split pooled: faster in {wins} of {len(pooled)} "
                   f"paired trials (one-sided sign test p = {sign_test_p(wins, len(pooled)):.2g}); "
                   f"median delta {statistics.median(pooled):+.2f} %, "
                   f"mean {statistics.fmean(pooled):+.2f} %")
        cpu = [d for r in rows if b in r.get("cpu_delta_pct", {}) for d in r["cpu_delta_pct"][b]["per_rep"]]
        if cpu:
            less = sum(1 for d in cpu if d < 0)
            out.append(f"{b} vs {BASELINE}, CPU per call (worker + tools), every split pooled: lower in "
                       f"{less} of {len(cpu)} paired trials (one-sided sign test p = "
                       f"{sign_test_p(less, len(cpu)):.2g}); median delta {statistics.median(cpu):+.2f} %")
    return out


def plot(rows: list[dict[str, Any]], backends: list[str], path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [b for b in backends if any(b in r["backends"] for r in rows)]
    others = [b for b in shown if b != BASELINE]
    fig, (ax, axd) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    splits = [r["split"] for r in rows]
    width = 0.8 / max(1, len(shown))
    for i, b in enumerate(shown):
        xs, med, lo, hi = [], [], [], []
        for x, r in enumerate(rows):
            s = r["backends"].get(b)
            if s:
                xs.append(x + (i - (len(shown) - 1) / 2) * width)
                med.append(s["calls_per_s_median"])
                lo.append(s["calls_per_s_median"] - s["calls_per_s_min"])
                hi.append(s["calls_per_s_max"] - s["calls_per_s_median"])
        bars = ax.bar(xs, med, width, yerr=[lo, hi], capsize=3, label=b)
        ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=2)
    ax.set_xticks(range(len(splits)), splits)
    ax.set_xlabel("workers x in-flight per worker (16 calls in flight)")
    ax.set_ylabel("tool calls/s (median; bars: min-max)")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)   # room for the labels and legend
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)

    for i, b in enumerate(others):
        xs, med, lo, hi = [], [], [], []
        for x, r in enumerate(rows):
            d = r["delta_pct"].get(b)
            if d:
                xs.append(x + (i - (len(others) - 1) / 2) * 0.35)
                med.append(d["median"])
                lo.append(d["median"] - d["min"])
                hi.append(d["max"] - d["median"])
        axd.errorbar(xs, med, yerr=[lo, hi], fmt="o", capsize=4, label=f"{b} vs subprocess")
    axd.axhline(0, color="black", linewidth=0.8)
    axd.set_xticks(range(len(splits)), splits)
    axd.set_xlim(-0.5, len(splits) - 0.5)
    axd.set_ylabel("delta calls/s, % (paired per repetition)")
    axd.grid(axis="y", alpha=0.3)
    if others:
        axd.legend(loc="best", fontsize=8)
    else:
        axd.text(0.5, 0.5, "no spawnkit backend available", ha="center", transform=axd.transAxes)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

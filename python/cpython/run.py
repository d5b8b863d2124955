"""Run CPython's own subprocess tests with spawnkit's subprocess patch in
every interpreter they start, and report how many Popen calls it routed.

    python cpython/run.py --python PY --site DIR [--stock] [--min-share 0.8]
                          [TEST ...]

PY is the interpreter whose test package runs (its `-m test`, regrtest);
DIR holds spawnkit built for PY (pip install --target).  Both go on
PYTHONPATH, with this directory first, so its sitecustomize.py patches
subprocess in the test process and in every Python child that inherits the
environment (children started with env={}, -I or -E cannot load it).  Each
interpreter writes its routed/fallback counts at exit; they are added up
here.  --stock runs the same tests without the patch, for comparison.

Prints regrtest's counts and one line
    cpython-compat: PY tests: run=N failures=F skipped=S; popen: routed=R fallback=B share=X%
Exits non-zero if the tests failed, or (patched) the routed share is below
--min-share.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TESTS = ["test_subprocess", "test_asyncio.test_subprocess"]


def add_up(stats_dir):
    routed = fallback = 0
    reasons = {}
    for name in os.listdir(stats_dir):
        with open(os.path.join(stats_dir, name), encoding="utf-8") as f:
            s = json.load(f)
        routed += s["routed"]
        fallback += s["fallback"]
        for k, v in s["reasons"].items():
            reasons[k] = reasons.get(k, 0) + v
    return routed, fallback, reasons


def unittest_counts(out):
    """Add up unittest's per-file summaries: (text, matched-anything)."""
    n = {"run": 0, "failures": 0, "errors": 0, "skipped": 0}
    runs = re.findall(r"^Ran (\d+) tests? in", out, re.M)
    for r in runs:
        n["run"] += int(r)
    for detail in re.findall(r"^(?:OK|FAILED)(?: \((.*)\))?$", out, re.M):
        for part in filter(None, (x.strip() for x in detail.split(","))):
            k, _, v = part.partition("=")
            if k in n:
                n[k] += int(v)
    return " ".join(f"{k}={v}" for k, v in n.items()), bool(runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", required=True)
    ap.add_argument("--site", required=True, help="spawnkit built for --python")
    ap.add_argument("--stock", action="store_true", help="run without the patch")
    ap.add_argument("--min-share", type=float, default=0.8)
    ap.add_argument("--log", help="write regrtest's full output here")
    ap.add_argument("tests", nargs="*", default=DEFAULT_TESTS)
    o = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="sk-cpython-") as tmp:
        stats_dir = os.path.join(tmp, "stats")
        os.mkdir(stats_dir)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([HERE, os.path.abspath(o.site)])
        env["SPAWNKIT_COMPAT_STATS_DIR"] = stats_dir
        if o.stock:
            env["SPAWNKIT_COMPAT_OFF"] = "1"
        # -u all: the cpu/walltime tests too; -j0 would spread the files
        # over worker processes, which only costs more on 2 cores.
        # -v: unittest's own "Ran N tests" / "OK (skipped=S)" lines, which
        # every regrtest version prints (its summary line differs by version).
        cmd = [o.python, "-m", "test", "-v", "-u", "all", *o.tests]
        r = subprocess.run(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out = r.stdout.decode(errors="replace")
        if o.log:
            with open(o.log, "w", encoding="utf-8") as f:
                f.write(out)
        routed, fallback, reasons = add_up(stats_dir)

    counts, m = unittest_counts(out)
    res = re.search(r"== Tests result: (.*) ==", out)
    print(f"cpython-compat: regrtest: {res.group(1) if res else '(no result line)'}")
    total = routed + fallback
    share = routed / total if total else 0.0
    mode = "stock" if o.stock else "patched"
    popen = ("patch off" if o.stock else
             f"routed={routed} fallback={fallback} share={100 * share:.1f}%")
    print(f"cpython-compat: {o.python} ({mode}) tests: {counts}; popen: {popen}")
    if fallback:
        print("cpython-compat: fallback reasons: " +
              ", ".join(f"{k}={v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
    ok = r.returncode == 0 and m is not None
    if not o.stock and share < o.min_share:
        print(f"cpython-compat: routed share {100 * share:.1f}% is below "
              f"{100 * o.min_share:.0f}%", file=sys.stderr)
        ok = False
    if not o.stock and total == 0:
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

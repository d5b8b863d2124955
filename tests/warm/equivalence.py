#!/usr/bin/env python3
"""The warm-template equivalence suite (make test-warm).

    equivalence.py PYTHON [PYTHON ...]

Runs every case of the corpus (tests/warm/corpus) with each target
interpreter, cold and warm alternately (cold, warm, cold, warm), through
spawnkit.run(warm=False/True), and requires byte-identical stdout, stderr and
exit status between every warm run and the cold runs; the cold runs must
agree with each other (else the case itself is not deterministic).  A case
that must start warm is checked to have started warm (warm_stats()), one
that must run cold to have run cold for its documented reason.  Then one
probe per documented difference (docs/warm.md) checks that the difference
is exactly the documented one.  Prints one line per failure and a summary;
exit status 1 on any failure.
"""
import os
import signal
import subprocess
import sys
import tempfile

import spawnkit

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
ROUNDS = 2

BASE_ENV = {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "SPAWNKIT_WARM", "NODE_EXTRA"))}
BASE_ENV.update(EQ_VAR="v1", EQ_CALLER=str(os.getpid()))


def C(p):
    return os.path.join(CORPUS, p)


# (name, argv after the interpreter, options, expected: "warm" or a reason)
def cases():
    out = []

    def add(name, args, expect="warm", **kw):
        out.append((name, args, kw, expect))

    # argv forms
    add("script", [C("state.py"), "a", "b c"])
    add("script-relative", ["state.py", "x"], cwd=CORPUS)
    add("script-dotdot", ["../pkg/../state.py"], cwd=C("pkg"))
    add("code", ["-c", "import sys, os; print(sys.argv, sys.path[0], __name__, list(globals())); "
                       "print(sorted(sys.modules))", "arg1"])
    add("code-state", ["-c", open(C("state.py")).read(), "z"], cwd=CORPUS)
    add("module", ["-m", "mainmod", "0", "m"], cwd=CORPUS)
    add("module-exit", ["-m", "mainmod", "4"], cwd=CORPUS)
    add("module-missing", ["-m", "no_such_module_xyz"], cwd=CORPUS)
    add("module-stdlib", ["-m", "json.tool"], input=b'{"b": 1, "a": [1, 2]}')
    add("dashdash", ["--", C("state.py"), "-x"])
    # imports of sibling modules and packages
    add("imports", [C("imports.py")])
    add("imports-cwd", ["imports.py"], cwd=CORPUS)
    # stdin
    add("stdin-pipe", [C("stdin_echo.py")], input=b"hello\nworld\n" * 1000)
    add("stdin-devnull", [C("stdin_echo.py")])
    # env and cwd per call
    add("env", [C("state.py")], env={"EQ_VAR": "other", "EQ_NEW": "\u00e9t\u00e9"})
    add("env-empty-value", [C("state.py")], env={"EQ_VAR": ""})
    add("cwd", [C("state.py")], cwd="/tmp")
    # exit paths and tracebacks
    for how in ("int", "str", "none", "big", "neg", "true", "oexit", "raise", "kbint",
                "sigterm", "abort", "atexit", "closed_stdout", "excepthook", "normal"):
        add("exit-" + how, [C("exits.py"), how])
    add("syntax-error", [C("syntax.py")])
    add("code-traceback", ["-c", "def f():\n    1/0\nf()"])
    add("code-exit", ["-c", "import sys; sys.exit('from -c')"])
    add("warnings", [C("warnings_.py")])
    add("warnings-error", ["-W", "error", C("warnings_.py")])
    add("warnings-default", ["-Wdefault", C("warnings_.py")])
    # signals
    add("signal-ignored", [C("selfsig.py")], ignore=signal.SIGUSR1)
    add("signal-default", [C("selfsig.py")])
    # large output, merged streams
    add("bigout", [C("bigout.py")])
    add("bigout-merged", [C("bigout.py")], stderr=spawnkit.STDOUT)
    # threads, subprocess, multiprocessing, fork inside the tool
    add("threads", [C("threads.py")])
    add("children", [C("children.py")], cwd=CORPUS)
    # locale and encodings
    add("enc-default", [C("encoding.py"), "\u00e9"])
    add("enc-lc-all-c", [C("encoding.py")], env={"LC_ALL": "C"})
    add("enc-lc-ctype-c", [C("encoding.py")], env={"LC_CTYPE": "C", "LANG": "", "LC_ALL": ""})
    add("enc-ioencoding", [C("encoding.py")], env={"PYTHONIOENCODING": "latin-1:replace"})
    add("enc-utf8-off", ["-X", "utf8=0", C("encoding.py")], env={"LC_ALL": "C"})
    add("state-lc-ctype-c", [C("state.py")], env={"LC_CTYPE": "C", "LANG": "", "LC_ALL": ""})
    # flags
    for flags in (["-I"], ["-S"], ["-u"], ["-B"], ["-E"], ["-O"], ["-OO"], ["-b"], ["-IS"],
                  ["-X", "utf8"], ["-Xutf8"], ["-s", "-B"], ["-q"], ["-P"] if sys.version_info >= (3, 11) else ["-R"]):
        add("flags" + "".join(flags), flags + [C("state.py")])
    add("flags-u-bigout", ["-u", C("bigout.py")], stderr=spawnkit.STDOUT)
    add("flags-Sc", ["-Sc", "import sys; print(sys.argv, sorted(sys.modules))", "q"])
    add("flags-I-code", ["-I", "-c", "import sys; print(sys.path, sys.flags.isolated)"])
    # nothing leaks between calls: the second run of each pair sees a fresh state
    add("mutate", [C("mutate.py")])
    # the import cache (docs/warm.md): sys.modules in the cold order after
    # each import, whichever comes first; a dependency imported by the tool
    # first; module state; reload; shadowing by the script's directory, by
    # sys.path, by PYTHONPATH; flags
    for order in ("json,re", "re,json", "enum,json", "collections,re", "functools", "os,json",
                  "argparse,json", "logging,re,json"):
        add("ic-order-" + order, [C("ic_order.py"), order])
    add("ic-state", [C("ic_state.py")])
    add("ic-reload", [C("ic_reload.py")])
    add("ic-threads", [C("ic_threads.py")])
    add("ic-shadow-script-dir", [C("shadow/use_re.py")])
    add("ic-shadow-sys-path", [C("ic_syspath.py")])
    add("ic-shadow-pythonpath", [C("ic_order.py"), "json,re"], env={"PYTHONPATH": C("shadow_json")})
    add("ic-shadow-pythonpath-c", [C("ic_order.py"), "re,json"], env={"PYTHONPATH": C("shadow_c")})
    add("ic-shadow-cwd-c", ["-c", "import re, sys; print(re.__file__.rsplit('/', 2)[-2:], "
                                  "list(sys.modules)[-3:])"], cwd=C("shadow"))
    add("ic-module-json-tool", ["-m", "json.tool", "--sort-keys"], input=b'{"b": [1], "a": "x"}')
    for flags in (["-I"], ["-S"], ["-E"], ["-s"], ["-B"], ["-OO"], ["-X", "frozen_modules=off"]):
        add("ic-flags" + "".join(flags), flags + [C("ic_order.py"), "json,re"])
    # forms that must run cold, with the reason counted
    # (their output has addresses and times: cold twice, so only the reason)
    add("cold-verbose", ["-v", "-c", "pass"], expect="args", compare=False)
    add("cold-importtime", ["-X", "importtime", "-c", "pass"], expect="args", compare=False)
    add("cold-interactive", ["-i", "-c", "print(1)"], expect="args")
    add("cold-stdin-script", ["-"], expect="args", input=b"print('from stdin')")
    add("cold-missing-script", [C("no_such_script.py")], expect="script")
    add("cold-directory", [CORPUS], expect="script")
    add("cold-faulthandler", [C("state.py")], expect="env", env={"PYTHONFAULTHANDLER": "1"})
    return out


def run(py, args, kw, warm):
    opts = dict(kw)
    env = dict(BASE_ENV)
    env.update(opts.pop("env", {}))
    env = {k: v for k, v in env.items() if not (k in ("LANG", "LC_ALL") and v == "")}
    ignore = opts.pop("ignore", None)
    old = signal.signal(ignore, signal.SIG_IGN) if ignore else None
    try:
        # Both in the caller's session: a warm call runs there (run()'s
        # default with warm=True; a new session would start it cold), so a
        # cold call in a session of its own would differ by that alone.
        opts.setdefault("new_session", False)
        return spawnkit.run([py] + args, env=env, warm=warm, timeout=120, **opts)
    finally:
        if ignore:
            signal.signal(ignore, old)


def diff(a, b):
    for what in ("returncode", "stdout", "stderr"):
        x, y = getattr(a, what), getattr(b, what)
        if x != y:
            if isinstance(x, bytes):
                i = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
                return "%s differs at byte %d: cold %r / warm %r" % (what, i, x[max(0, i - 60):i + 60],
                                                                    y[max(0, i - 60):i + 60])
            return "%s: cold %r, warm %r" % (what, x, y)
    return None


def check_case(py, name, args, kw, expect):
    fails = []
    kw = dict(kw)
    compare = kw.pop("compare", True)
    colds, warms = [], []
    for _ in range(ROUNDS):
        colds.append(run(py, args, kw, False))
        before = spawnkit.warm_stats()
        warms.append(run(py, args, kw, True))
        after = spawnkit.warm_stats()
        if expect == "warm":
            if after["warm_spawns"] != before["warm_spawns"] + 1:
                fails.append("did not start warm (%r)" % (after["reasons"],))
        else:
            got = after["reasons"].get(expect, 0) - before["reasons"].get(expect, 0)
            if got != 1 or after["warm_spawns"] != before["warm_spawns"]:
                fails.append("expected cold for %r, stats %r -> %r" % (expect, before, after))
    if not compare:
        return fails
    d = diff(colds[0], colds[1])
    if d:
        fails.append("cold runs disagree (case not deterministic): " + d)
    for w in warms:
        d = diff(colds[0], w)
        if d:
            fails.append(d)
    return fails


def probes(py):
    """One probe per documented difference: exactly it, and nothing else."""
    fails = []
    args = [C("probe_diff.py"), "probe_arg"]
    cold = [run(py, args, {}, False) for _ in range(2)]
    warm = [run(py, args, {}, True) for _ in range(2)]

    def lines(r):
        return dict(l.split(" ", 1) for l in r.stdout.decode().splitlines() if " " in l and
                    not l.startswith("finalised"))
    c0, c1, w0, w1 = (lines(r) for r in cold + warm)
    expect_warm = {"frame_back_none": "False", "freeze_count_zero": "False",
                   "cmdline_has_c": "True False", "environ_has_var": "False",
                   "find_and_load_wrapped": "True", "json_classes_before_import": "True",
                   "audit_last_import": "json"}
    expect_cold = {"frame_back_none": "True", "freeze_count_zero": "True",
                   "cmdline_has_c": "False True", "environ_has_var": "True",
                   "find_and_load_wrapped": "False", "json_classes_before_import": "False",
                   "audit_last_import": "json.encoder"}
    for k, v in expect_cold.items():
        if c0.get(k) != v:
            fails.append("probe %s: cold %r, expected %r" % (k, c0.get(k), v))
        if w0.get(k) != expect_warm[k]:
            fails.append("probe %s: warm %r, expected %r" % (k, w0.get(k), expect_warm[k]))
    # hash seed: shared by the children of one warm interpreter, random cold
    if w0["hash"] != w1["hash"]:
        fails.append("probe hash: two warm children of one interpreter differ")
    if c0["hash"] == c1["hash"]:
        fails.append("probe hash: two cold starts agree (PYTHONHASHSEED set?)")
    # ... and equal to cold with PYTHONHASHSEED set
    hs = {"env": {"PYTHONHASHSEED": "123"}}
    if lines(run(py, args, hs, False))["hash"] != lines(run(py, args, hs, True))["hash"]:
        fails.append("probe hash: PYTHONHASHSEED=123 cold and warm differ")
    # process_time starts near zero warm, after start-up's CPU cold
    if not int(w0["cpu_ms"]) < int(c0["cpu_ms"]):
        fails.append("probe cpu: warm %s ms not below cold %s ms" % (w0["cpu_ms"], c0["cpu_ms"]))
    # objects of imported modules are not finalised at exit (warm)
    if b"finalised at exit" not in cold[0].stdout or b"finalised at exit" in warm[0].stdout:
        fails.append("probe finalise: cold %r warm %r" % (cold[0].stdout[-40:], warm[0].stdout[-40:]))
    # nothing else differs
    for k in set(c0) | set(w0):
        if k in expect_cold or k in ("hash", "cpu_ms"):
            continue
        if c0.get(k) != w0.get(k):
            fails.append("probe: undocumented difference in %s: %r / %r" % (k, c0.get(k), w0.get(k)))
    if cold[0].stderr != warm[0].stderr or cold[0].returncode != warm[0].returncode:
        fails.append("probe: stderr or status differ")
    return fails


def main():
    targets = sys.argv[1:]
    if not targets:
        print(__doc__)
        return 2
    total = failed = 0
    for py in targets:
        rp = os.path.realpath(py)
        if not os.path.exists(rp):
            print("equivalence: FAIL %s: no such interpreter" % py)
            failed += 1
            continue
        for name, args, kw, expect in cases():
            total += 1
            fails = check_case(py, name, args, kw, expect)
            if fails:
                failed += 1
                for f in fails:
                    print("FAIL %s [%s] %s" % (py, name, f[:600]))
        # a script reached through a symlink: __file__ is the link,
        # sys.path[0] the real directory (its sibling imports must resolve)
        with tempfile.TemporaryDirectory(prefix="spawnkit-warm-link-") as tmp:
            os.symlink(C("imports.py"), os.path.join(tmp, "link.py"))
            total += 1
            fails = check_case(py, "symlinked-script", [os.path.join(tmp, "link.py")], {}, "warm")
            fails += check_case(py, "symlinked-relative", ["link.py"], {"cwd": tmp}, "warm")
            if fails:
                failed += 1
                for f in fails:
                    print("FAIL %s [symlink] %s" % (py, f[:600]))
        # the same interpreter through a venv (argv[0] and sys.prefix differ)
        with tempfile.TemporaryDirectory(prefix="spawnkit-warm-venv-") as tmp:
            made = subprocess.run([rp, "-m", "venv", "--without-pip", tmp], capture_output=True)
            vpy = os.path.join(tmp, "bin", "python")
            for name, args, kw, expect in [("venv-script", [C("state.py")], {}, "warm"),
                                           ("venv-code", ["-c", "import sys; print(sys.prefix == sys.base_prefix, sys.path)"], {}, "warm")]:
                total += 1
                fails = (["venv not made: %r" % made.stderr[-300:]] if made.returncode
                         else check_case(vpy, name, args, kw, expect))
                if fails:
                    failed += 1
                    for f in fails:
                        print("FAIL %s [%s] %s" % (py, name, f[:600]))
        total += 1
        fails = probes(py)
        if fails:
            failed += 1
            for f in fails:
                print("FAIL %s [probes] %s" % (py, f))
        st = spawnkit.warm_stats()
        print("equivalence: %s done; warm_stats %r" % (py, st))
    print("equivalence: %d cases x %d rounds (cold+warm) over %d interpreters: %d passed, %d failed"
          % (total, ROUNDS, len(targets), total - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

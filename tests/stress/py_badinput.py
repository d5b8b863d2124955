"""py_badinput - bad arguments to spawnkit.run(), each compared with what
subprocess.run() raises for the same call: NUL bytes, empty names, E2BIG
argv and environments, invalid fds, bad cwd, odd PATH entries, wrong types.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_harness import PROBE, Snap, expect, main, scenario  # noqa: E402

import spawnkit  # noqa: E402


def result(fn):
    """('returned', code) or ('raised', exception)."""
    try:
        return ("returned", fn())
    except Exception as e:  # noqa: B902 - the outcome is the subject
        return ("raised", e)


def same(got, ref) -> bool:
    """The same return code, or an exception of the reference's class (or a
    subclass of it) with the same errno."""
    if got[0] != ref[0]:
        return False
    if got[0] == "returned":
        return got[1] == ref[1]
    return isinstance(got[1], type(ref[1])) and \
        getattr(got[1], "errno", None) == getattr(ref[1], "errno", None)


def show(r) -> str:
    return f"returned {r[1]}" if r[0] == "returned" else \
        f"{type(r[1]).__name__}({getattr(r[1], 'errno', None)})"


def compare(cases, rss_slack_kb: int = 16384) -> str:
    """cases: (label, argv, kwargs for both); each outcome must be subprocess's."""
    spawnkit.run([PROBE, "--quiet"])
    s = Snap()
    wrong, n = [], 0
    for label, args, kw in cases:
        got = result(lambda: spawnkit.run(args, **kw).returncode)
        cap = {} if "stdout" in kw or "stderr" in kw else {"capture_output": True}
        ref = result(lambda: subprocess.run(args, **cap, **kw).returncode)
        n += 1
        if not same(got, ref):
            wrong.append(f"{label}: spawnkit {show(got)}, subprocess {show(ref)}")
    expect(not wrong, "; ".join(wrong))
    spawnkit.template_cache.clear()       # one fd per program that ran
    return s.check(f"{n} cases as subprocess", rss_slack_kb)


@scenario()
def nul_bytes() -> str:
    return compare([
        ("NUL in argv[0]", ["pro\0be"], {}),
        ("NUL in an argument", [PROBE, "a\0b"], {}),
        ("NUL in env name", [PROBE, "--quiet"], {"env": {"A\0B": "1"}}),
        ("NUL in env value", [PROBE, "--quiet"], {"env": {"A": "1\0"}}),
        ("NUL in cwd", [PROBE, "--quiet"], {"cwd": "/tm\0p"}),
        ("NUL in executable", [PROBE, "--quiet"], {"executable": PROBE + "\0"}),
    ])


@scenario()
def empty_names() -> str:
    return compare([
        ("empty program", [""], {}),
        ("empty argv", [], {}),
        ("empty executable", [PROBE], {"executable": ""}),
        ("'=' in env name", [PROBE, "--quiet"], {"env": {"A=B": "1"}}),
    ])


@scenario()
def e2big() -> str:
    return compare([
        ("one 200 KiB argument", [PROBE, "x" * (200 << 10)], {}),
        ("4 MB of arguments", [PROBE] + ["y" * 100] * 40000, {}),
        ("one 200 KiB variable", [PROBE, "--quiet"], {"env": {"BIG": "z" * (200 << 10)}}),
        ("500 KB of arguments fits", [PROBE, "--quiet"] + ["w" * 100] * 5000, {}),
    ], rss_slack_kb=65536)    # the interpreter keeps the arenas of 4 MB of bytes


@scenario()
def invalid_fds() -> str:
    closed = 900                          # far above anything open here
    expect(not os.path.exists(f"/proc/self/fd/{closed}"), "fd 900 is open")
    return compare([
        ("stdout a closed fd", [PROBE, "--quiet"], {"stdout": closed, "stderr": None}),
        ("stdin a closed fd", [PROBE, "--quiet"], {"stdin": closed}),
        ("pass_fds a closed fd", [PROBE, "--quiet"], {"pass_fds": (closed,)}),
    ])


@scenario()
def bad_cwd() -> str:
    d = tempfile.mkdtemp(prefix="skstress.")
    f = os.path.join(d, "file")
    open(f, "w").close()
    locked = os.path.join(d, "locked")
    os.mkdir(locked, 0)
    try:
        return compare([
            ("missing cwd", [PROBE, "--quiet"], {"cwd": "/nonexistent/dir"}),
            ("cwd a file", [PROBE, "--quiet"], {"cwd": f}),
            ("cwd empty", [PROBE, "--quiet"], {"cwd": ""}),
            ("cwd mode 000 (root passes)", [PROBE, "--quiet"], {"cwd": locked}),
        ])
    finally:
        shutil.rmtree(d, ignore_errors=True)


@scenario()
def path_lookups() -> str:
    """PATH entries holding a directory of the program's name, a
    non-executable file, and a relative entry resolved against cwd=."""
    d = tempfile.mkdtemp(prefix="skstress.")
    try:
        os.makedirs(os.path.join(d, "dirs", "tool"))
        os.makedirs(os.path.join(d, "noexec"))
        open(os.path.join(d, "noexec", "tool"), "w").close()
        os.makedirs(os.path.join(d, "work", "bin"))
        shutil.copy2(PROBE, os.path.join(d, "work", "bin", "tool"))
        env = dict(os.environ)
        return compare([
            ("a directory named so", ["tool"], {"env": {**env, "PATH": d + "/dirs"}}),
            ("a file not executable", ["tool"], {"env": {**env, "PATH": d + "/noexec"}}),
            ("relative entry with cwd=", ["tool", "--quiet"],
             {"env": {**env, "PATH": "bin"}, "cwd": os.path.join(d, "work")}),
            ("empty entry with cwd=", ["tool", "--quiet"],
             {"env": {**env, "PATH": ":/nonexistent"}, "cwd": os.path.join(d, "work", "bin")}),
            ("not found", ["no-such-tool-here"], {"env": {**env, "PATH": d}}),
        ])
    finally:
        shutil.rmtree(d, ignore_errors=True)


@scenario()
def wrong_types() -> str:
    return compare([
        ("argv an int", 5, {}),
        ("an argument None", [PROBE, None], {}),
        ("env value an int", [PROBE, "--quiet"], {"env": {"A": 1}}),
        ("timeout negative", [PROBE, "--quiet"], {"timeout": -1}),
    ])


if __name__ == "__main__":
    main()

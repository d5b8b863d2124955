"""spawnkit.patch_subprocess(): every Popen option either routed through
spawnkit with the child seeing exactly what stock subprocess gives it, or
handed to stock with its reason counted; errors equal to stock's; unpatch
restoring subprocess object for object.

Each behaviour test starts the same call once with stock subprocess and once
patched, and compares what the child reports about itself (its fds and what
they point at, cwd, environment, argv, signal dispositions and mask)."""
import asyncio
import errno
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Dict, List, Tuple
from unittest import mock

import pytest

import spawnkit
import spawnkit.compat as compat
from spawnkit.compat import _route
from conftest import in_threads

# Routing through spawn templates needs the binding; in the portable
# fallback every call goes to stock (test_fallback.py checks that).
pytestmark = pytest.mark.native

PROBE = r"""
import json, os, sys
fds = {}
for n in sorted(os.listdir("/proc/self/fd"), key=int):
    try:
        fds[n] = os.readlink("/proc/self/fd/" + n)
    except OSError:
        pass
with open(sys.argv[1], "w") as f:
    json.dump({"fds": fds, "cwd": os.getcwd(), "env": dict(os.environ),
               "argv": sys.argv[2:]}, f)
"""


@pytest.fixture
def patched() -> Iterator[None]:
    compat.unpatch_subprocess()
    compat.patch_subprocess()
    compat.reset_stats()
    yield
    compat.unpatch_subprocess()


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    return tmp_path


# run(argv_prefix, outfile): starts the probe one way or another.
Starter = Callable[[List[str], str], object]
# What the probe reports about itself (fds, cwd, env, argv).
Report = Dict[str, Any]


def _norm(obj: Any) -> Any:
    """Pipe and socket inode numbers differ run to run: blank them."""
    return json.loads(re.sub(r"(pipe|socket|anon_inode):\[?\d+\]?", r"\1", json.dumps(obj)))


def probe(tmp: Path, name: str, run: Starter) -> Report:
    """run(argv_prefix, outfile) starts the probe; returns its report."""
    out = tmp / f"{name}.json"
    run([sys.executable, "-c", PROBE, str(out)], str(out))
    with open(out) as f:
        report: Report = _norm(json.load(f))
    return report


def stock_and_patched(tmp: Path, run: Starter) -> Tuple[Report, Report, Dict[str, Any]]:
    """The probe's report under stock subprocess and patched, and the stats
    delta of the patched run."""
    compat.unpatch_subprocess()
    a = probe(tmp, "stock", run)
    compat.patch_subprocess()
    compat.reset_stats()
    b = probe(tmp, "patched", run)
    s = compat.stats()
    a["argv"] = [x.replace("stock", "patched") for x in a["argv"]]
    return a, b, s


def assert_routed(s: Dict[str, Any], n: int = 1) -> None:
    assert s == {"routed": n, "fallback": 0, "reasons": {}}


def assert_fallback(s: Dict[str, Any], reason: str, n: int = 1) -> None:
    assert s == {"routed": 0, "fallback": n, "reasons": {reason: n}}


# ---- routed: the child sees what stock gives it ---------------------------

def _popen_wait(**kw: Any) -> Starter:
    def run(argv: List[str], out: str) -> None:
        with subprocess.Popen(argv, **kw) as p:
            pass
        assert p.returncode == 0
    return run


ROUTED: Dict[str, Dict[str, Any]] = {
    "plain": {},
    "close_fds_false": {"close_fds": False},
    "stdout_pipe": {"stdout": subprocess.PIPE},
    "all_pipes": {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE,
                  "stderr": subprocess.PIPE},
    "devnull": {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL,
                "stderr": subprocess.DEVNULL},
    "stderr_stdout": {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT},
    "stderr_stdout_inherited": {"stderr": subprocess.STDOUT},
    "stdout_to_fd_2": {"stdout": 2},
    "stderr_to_fd_1_under_pipe": {"stdout": subprocess.PIPE, "stderr": 1},
    "stdout_to_fd_0": {"stdin": subprocess.DEVNULL, "stdout": 0},
    "stdin_from_fd_1": {"stdin": 1},
    "swap_out_err": {"stdout": 2, "stderr": 1},
    "rotate_low_fds": {"stdin": 2, "stdout": 0, "stderr": 1},
    "restore_signals_false": {"restore_signals": False},
    "text": {"stdout": subprocess.PIPE, "text": True},
    "pipesize": {"stdout": subprocess.PIPE, "pipesize": 1 << 16},
    "bufsize": {"stdin": subprocess.PIPE, "bufsize": 0},
}


@pytest.mark.parametrize("name", sorted(ROUTED))
def test_routed_child_sees_what_stock_gives(tmp: Path, patched: None, name: str) -> None:
    kw = ROUTED[name]
    ours = {fd: _norm(os.readlink(f"/proc/self/fd/{fd}")) for fd in (0, 1, 2)}
    a, b, s = stock_and_patched(tmp, _popen_wait(**kw))
    assert a == b
    for target, key in enumerate(("stdin", "stdout", "stderr")):
        src = kw.get(key)
        if isinstance(src, int) and src >= 0:        # a raw fd: the child has its file
            assert b["fds"][str(target)] == ours[src], (key, src)
    assert_routed(s)


def test_cwd_str_bytes_path(tmp: Path, patched: None) -> None:
    d = tmp / "work dir"
    d.mkdir()
    for cwd in (str(d), os.fsencode(d), d):
        a, b, s = stock_and_patched(tmp, _popen_wait(cwd=cwd))
        assert a == b and b["cwd"] == str(d)
        assert_routed(s)


def test_env_mapping(tmp: Path, patched: None) -> None:
    env = {"A": "1", b"B": b"two", "EMPTY": "", "PATH": os.environ["PATH"]}
    a, b, s = stock_and_patched(tmp, _popen_wait(env=env))
    assert a == b
    assert {k: b["env"][k] for k in ("A", "B", "EMPTY")} == {"A": "1", "B": "two", "EMPTY": ""}
    assert_routed(s)


def test_file_objects_and_raw_fds(tmp: Path, patched: None) -> None:
    def run(argv: List[str], out: str) -> None:
        with open(tmp / "in", "wb") as f:
            f.write(b"x")
        with open(tmp / "in", "rb") as fin, open(tmp / "log", "ab") as flog:
            fd = os.open(tmp / "raw", os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                subprocess.run(argv, stdin=fin, stdout=flog, stderr=fd, check=True)
            finally:
                os.close(fd)
    a, b, s = stock_and_patched(tmp, run)
    assert a == b
    assert b["fds"]["0"].endswith("/in") and b["fds"]["1"].endswith("/log")
    assert b["fds"]["2"].endswith("/raw")
    assert_routed(s)


def test_close_fds_and_pass_fds(tmp: Path, patched: None) -> None:
    r, w = os.pipe()
    os.set_inheritable(r, True)        # inheritable: only close_fds=False keeps it
    try:
        kws: List[Dict[str, Any]] = [{}, {"close_fds": False}, {"pass_fds": [w]}, {"pass_fds": (w, r)}]
        for kw in kws:
            a, b, s = stock_and_patched(tmp, _popen_wait(**kw))
            assert a == b, kw
            assert (str(r) in b["fds"]) == (kw.get("close_fds") is False or r in kw.get("pass_fds", ())), kw
            assert (str(w) in b["fds"]) == (w in kw.get("pass_fds", ())), kw
            assert_routed(s)
    finally:
        os.close(r)
        os.close(w)


def test_pass_fds_not_open(tmp: Path, patched: None) -> None:
    """Stock ignores a pass_fds entry that is not open (and still closes
    every other fd): so do we."""
    r, w = os.pipe()
    os.set_inheritable(r, True)
    os.close(w)
    try:
        a, b, s = stock_and_patched(tmp, _popen_wait(pass_fds=[w]))
    finally:
        os.close(r)
    assert a == b and str(r) not in b["fds"] and str(w) not in b["fds"]
    assert_routed(s)


def test_close_fds_false_env_source(tmp: Path, patched: None) -> None:
    """close_fds=False with an absolute program: stock's posix_spawn path
    passes os.environ, not the C environ; they differ after a C setenv."""
    import ctypes
    libc = ctypes.CDLL(None)
    libc.setenv(b"SK_C_ONLY", b"1", 1)
    try:
        for kw in ({"close_fds": False}, {}):
            a, b, s = stock_and_patched(tmp, _popen_wait(**kw))
            assert a == b, kw
            assert ("SK_C_ONLY" in b["env"]) == (kw == {}), kw
            assert_routed(s)
    finally:
        libc.unsetenv(b"SK_C_ONLY")


def test_cloexec_stdio_source_is_inherited(tmp: Path, patched: None) -> None:
    """stdout=1 where our fd 1 is O_CLOEXEC: stock makes it inheritable."""
    saved = os.dup(1)
    try:
        fd = os.open(tmp / "out", os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.dup2(fd, 1, inheritable=False)
        os.close(fd)
        a, b, s = stock_and_patched(tmp, _popen_wait(stdout=1))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    assert a == b and b["fds"]["1"].endswith("/out")
    assert_routed(s)


def test_shell_and_executable(tmp: Path, patched: None) -> None:
    def run(argv: List[str], out: str) -> None:
        cmd = " ".join(f"'{x}'" for x in argv) + ' "$0" "$1"'
        subprocess.run([cmd, "zero", "one"], shell=True, check=True)
    a, b, s = stock_and_patched(tmp, run)
    assert a == b and b["argv"] == ["zero", "one"]
    assert_routed(s)

    # executable= runs one program under another argv[0]
    def run2(argv: List[str], out: str) -> None:
        subprocess.run(["fancy-name", "-c", 'exec "$@"', "sh"] + argv,
                       executable="/bin/sh", check=True)
    a, b, s = stock_and_patched(tmp, run2)
    assert a == b
    assert_routed(s)


def test_path_lookup_uses_env_path_and_cwd(tmp: Path, patched: None) -> None:
    bindir = tmp / "bin"
    bindir.mkdir()
    tool = bindir / "sk-probe-tool"
    tool.write_text(f"#!{sys.executable}\n{PROBE}")
    tool.chmod(0o755)
    env = dict(os.environ, PATH=f"/nonexistent:{bindir}")
    for kw, prog in (({"env": env}, "sk-probe-tool"), ({"cwd": bindir}, "./sk-probe-tool")):
        a, b, s = stock_and_patched(tmp, lambda argv, out: subprocess.run(
            [prog, out], check=True, **kw))
        assert a == b
        assert_routed(s)


def _sig_status(**kw: Any) -> bytes:
    out: bytes = subprocess.run(["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"],
                                stdout=subprocess.PIPE, check=True, **kw).stdout
    return out


@pytest.mark.parametrize("restore", [True, False])
def test_signals_match_stock(patched: None, restore: bool) -> None:
    """SIGPIPE/SIGXFSZ reset (restore_signals), other ignored signals and
    the calling thread's blocked mask inherited, as stock."""
    old_usr2 = signal.signal(signal.SIGUSR2, signal.SIG_IGN)
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    try:
        compat.unpatch_subprocess()
        a = _sig_status(restore_signals=restore)
        compat.patch_subprocess()
        compat.reset_stats()
        b = _sig_status(restore_signals=restore)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        signal.signal(signal.SIGUSR2, old_usr2)
    assert a == b
    assert_routed(compat.stats())


def test_run_call_check_output_timeout_kill(patched: None) -> None:
    assert subprocess.call(["true"]) == 0
    assert subprocess.check_call(["true"]) == 0
    assert subprocess.check_output(["echo", "hi"]) == b"hi\n"
    assert subprocess.getoutput("echo a; echo b >&2") == "a\nb"
    with pytest.raises(subprocess.CalledProcessError) as ei:
        subprocess.run(["false"], check=True)
    assert ei.value.returncode == 1
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(["sleep", "5"], timeout=0.2)
    p = subprocess.Popen(["sleep", "5"])
    p.kill()
    assert p.wait() == -signal.SIGKILL
    assert compat.stats()["routed"] == 7 and compat.stats()["fallback"] == 0


def test_asyncio_exec_and_shell(patched: None) -> None:
    async def main() -> Tuple[bytes, int | None, bytes, int | None]:
        p = await asyncio.create_subprocess_exec(
            "cat", stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        out, _ = await p.communicate(b"ping")
        q = await asyncio.create_subprocess_shell("echo $((2+3))", stdout=subprocess.PIPE)
        out2, _ = await q.communicate()
        return out, p.returncode, out2, q.returncode
    assert asyncio.run(main()) == (b"ping", 0, b"5\n", 0)
    assert_routed(compat.stats(), 2)


# ---- fallback: same behaviour as stock, reason counted -------------------

FALLBACK: Dict[str, Tuple[Dict[str, Any], str]] = {
    "preexec_fn": ({"preexec_fn": lambda: None}, "preexec_fn"),
    "user": ({"user": os.getuid()}, "user"),
    "group": ({"group": os.getgid()}, "group"),
    "extra_groups": ({"extra_groups": os.getgroups()}, "extra_groups"),
}


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_fallback_option_is_honoured_by_stock(tmp: Path, patched: None, name: str) -> None:
    kw, reason = FALLBACK[name]
    a, b, s = stock_and_patched(tmp, _popen_wait(**kw))
    assert a == b
    assert_fallback(s, reason)


def test_fallback_keeps_the_routable_options(patched: None) -> None:
    """A call that goes to stock for one option still gets the others."""
    out = subprocess.run([sys.executable, "-c",
                          "import os; print(os.getsid(0) == os.getpid(), oct(os.umask(0)))"],
                         start_new_session=True, umask=0o27, preexec_fn=lambda: None,
                         capture_output=True, text=True)
    assert out.stdout.split() == ["True", "0o27"]
    assert compat.stats()["reasons"] == {"preexec_fn": 1}


def test_instrumented_stock_internals_are_used(patched: None) -> None:
    """Code that replaced subprocess._fork_exec sees it called (stock runs)."""
    with mock.patch("subprocess._fork_exec", side_effect=RuntimeError("seen")):
        with pytest.raises(RuntimeError, match="seen"):
            subprocess.Popen(["true"])
    assert_fallback(compat.stats(), "stock-internals-replaced")


# ---- errors: the same exception stock raises ----------------------------

def _err(fn: Callable[[], object]) -> Tuple[type, Any, Any, str] | None:
    try:
        fn()
    except BaseException as e:  # noqa: B902 - comparing whatever stock raises
        return (type(e), getattr(e, "errno", None), getattr(e, "filename", None), str(e))
    return None


def _bad_cases(tmp: Path) -> Dict[str, Callable[[], object]]:
    d = tmp / "dir"
    d.mkdir(exist_ok=True)
    noexec = tmp / "noexec"
    noexec.write_text("#!/bin/sh\n")
    garbage = tmp / "garbage"
    garbage.write_bytes(b"\x7fELF garbage")
    garbage.chmod(0o755)
    afile = tmp / "afile"
    afile.write_text("")
    closed = os.open(os.devnull, os.O_RDONLY)
    os.close(closed)
    P = subprocess.Popen
    return {
        "missing": lambda: P(["sk-no-such-program"]),
        "missing_bytes": lambda: P([b"sk-no-such-program"]),
        "missing_path": lambda: P([str(tmp / "nope")]),
        "missing_executable": lambda: P(["true"], executable="sk-no-such"),
        "missing_shell_exe": lambda: P("true", shell=True, executable="/nonexistent/sh"),
        "enotdir_in_path": lambda: P(["prog"], env={"PATH": str(afile)}),
        "directory": lambda: P([str(d)]),
        "not_executable": lambda: P([str(noexec)]),
        "exec_format": lambda: P([str(garbage)]),
        "cwd_missing": lambda: P(["true"], cwd=tmp / "nope"),
        "cwd_file": lambda: P(["true"], cwd=str(afile)),
        "cwd_and_program_missing": lambda: P(["sk-nope"], cwd=tmp / "nope"),
        "env_equals": lambda: P(["true"], env={"A=B": "1"}),
        "env_nul": lambda: P(["true"], env={"A": "1\0"}),
        "arg_nul": lambda: P(["echo", "a\0b"]),
        "arg_type": lambda: P(["echo", 3]),  # type: ignore[list-item]
        "empty_args": lambda: P([]),
        "pathlike_shell": lambda: P(pathlib.Path("/bin/true"), shell=True),
        "stdout_closed_fd": lambda: P(["true"], stdout=closed),
        "text_conflict": lambda: P(["true"], text=True, universal_newlines=False),
        "startupinfo": lambda: P(["true"], startupinfo=object()),
        "bufsize_type": lambda: P(["true"], bufsize="x"),  # type: ignore[call-overload]
        "run_input_and_stdin": lambda: subprocess.run(["true"], input=b"", stdin=subprocess.PIPE),
    }


def test_errors_match_stock(tmp: Path, patched: None) -> None:
    names = sorted(_bad_cases(tmp))
    compat.unpatch_subprocess()
    stock = {n: _err(_bad_cases(tmp)[n]) for n in names}
    compat.patch_subprocess()
    ours = {n: _err(_bad_cases(tmp)[n]) for n in names}
    for n in names:
        assert stock[n] is not None, n
        assert ours[n] == stock[n], n
    s = compat.stats()
    # "no such program" is answered without stock; the rest are stock's own.
    assert s["routed"] >= 6 and s["routed"] + s["fallback"] <= len(names)


# ---- the patch itself -----------------------------------------------------

def _snapshot() -> Tuple[Dict[str, Dict[str, Any]], Dict[str, Any]]:
    import asyncio.base_subprocess as bs
    mods = (subprocess, asyncio, bs, asyncio.subprocess)
    return ({m.__name__: dict(vars(m)) for m in mods},
            dict(vars(subprocess.Popen)))


def test_unpatch_restores_everything() -> None:
    compat.unpatch_subprocess()
    before = _snapshot()
    compat.patch_subprocess()
    compat.patch_subprocess()           # idempotent
    assert compat.is_patched()
    assert subprocess.Popen._execute_child is _route.execute_child  # type: ignore[attr-defined]
    assert spawnkit.patch_subprocess is compat.patch_subprocess
    spawnkit.unpatch_subprocess()
    spawnkit.unpatch_subprocess()
    assert not compat.is_patched()
    after = _snapshot()
    assert after[1].keys() == before[1].keys()
    assert all(after[1][k] is before[1][k] for k in before[1])
    for mod, d in before[0].items():
        assert all(after[0][mod].get(k) is v for k, v in d.items()), mod
    compat.reset_stats()
    subprocess.run(["true"])
    assert compat.stats() == {"routed": 0, "fallback": 0, "reasons": {}}


def test_stats_shape_reset_and_fork(patched: None) -> None:
    subprocess.run(["true"])
    subprocess.run(["true"], preexec_fn=lambda: None)
    s = compat.stats()
    assert s == {"routed": 1, "fallback": 1, "reasons": {"preexec_fn": 1}}
    s["routed"] = 99                       # a copy: ours is untouched
    assert compat.stats()["routed"] == 1
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                           # a forked child counts from zero
        os.write(w, json.dumps(compat.stats()).encode())
        os._exit(0)
    os.close(w)
    got = json.loads(os.read(r, 4096))
    os.close(r)
    os.waitpid(pid, 0)
    assert got == {"routed": 0, "fallback": 0, "reasons": {}}
    compat.reset_stats()
    assert compat.stats() == {"routed": 0, "fallback": 0, "reasons": {}}


def test_dump_at_exit(tmp: Path) -> None:
    code = ("import subprocess, spawnkit.compat as c; c.patch_subprocess(); "
            f"c.dump_at_exit({str(tmp)!r}); subprocess.run(['true']); "
            "subprocess.run(['true'], preexec_fn=lambda: None)")
    p = subprocess.run([sys.executable, "-c", code])
    assert p.returncode == 0
    with open(tmp / f"{_only_json(tmp)}") as f:
        assert json.load(f) == {"routed": 1, "fallback": 1, "reasons": {"preexec_fn": 1}}


def _only_json(d: Path) -> str:
    names = [n for n in os.listdir(d) if n.endswith(".json")]
    assert len(names) == 1, names
    return names[0]


def test_compat_subprocess_module_without_patching(tmp: Path) -> None:
    from spawnkit.compat import subprocess as sks
    compat.unpatch_subprocess()
    compat.reset_stats()
    assert set(sks.__all__) == set(subprocess.__all__)
    assert sks.PIPE is subprocess.PIPE and sks.CalledProcessError is subprocess.CalledProcessError
    assert sks.run(["echo", "x"], capture_output=True).stdout == b"x\n"
    assert sks.check_output("echo $((1+1))", shell=True, text=True) == "2\n"
    assert sks.call(["true"]) == 0 and sks.check_call(["true"]) == 0
    assert sks.getstatusoutput("exit 3") == (3, "")
    with sks.Popen(["true"]) as p:
        assert isinstance(p, subprocess.Popen)
    with pytest.raises(sks.CalledProcessError):
        sks.check_call(["false"])
    with pytest.raises(FileNotFoundError):
        sks.run(["sk-no-such-program"])
    assert not compat.is_patched()
    subprocess.run(["true"])               # stock: not counted
    assert compat.stats() == {"routed": 8, "fallback": 0, "reasons": {}}


_audit_log: List[Any] = []
_audit_on: List[Any] = []


def _audit_hook(event: str, args: Tuple[Any, ...]) -> None:
    if _audit_on and event == "subprocess.Popen":
        _audit_log.append(repr(args))


def test_audit_events_match_stock(tmp: Path, patched: None) -> None:
    """One "subprocess.Popen" audit event per call, with stock's arguments,
    whether the call is routed, fails, or falls back."""
    if not _audit_on:
        sys.addaudithook(_audit_hook)      # hooks cannot be removed: gated
    noexec = tmp / "noexec"
    noexec.write_text("")

    def calls() -> None:
        subprocess.run(["true"], cwd=str(tmp), env={"A": "1", "PATH": os.environ["PATH"]})
        subprocess.run("exit 0", shell=True)
        subprocess.run(["true"], start_new_session=True, umask=0o22)
        subprocess.run(["true"], preexec_fn=lambda: None)
        for argv in (["sk-no-such-program"], [str(noexec)]):
            with pytest.raises(OSError):
                subprocess.run(argv)

    logs = []
    for patch in (False, True):
        (compat.patch_subprocess if patch else compat.unpatch_subprocess)()
        _audit_log.clear()
        _audit_on.append(1)
        try:
            calls()
        finally:
            _audit_on.clear()
        logs.append(list(_audit_log))
    assert len(logs[0]) == 6 and logs[0] == logs[1]


def test_template_cache_is_bounded(tmp: Path, patched: None,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Programs run once (temporary scripts) cannot pile up template fds."""
    monkeypatch.setattr(_route, "CACHE_BOUND", 2)
    spawnkit.template_cache.clear()
    for i in range(5):
        script = tmp / f"s{i}"
        script.write_text(f"#!/bin/sh\nexit {i}\n")
        script.chmod(0o755)
        assert subprocess.run([str(script)]).returncode == i
        assert len(spawnkit.template_cache) <= 2
    assert_routed(compat.stats(), 5)


def test_backend_unusable_means_stock(tmp: Path) -> None:
    """Where spawnkit cannot start children (here: the kernel backend forced
    on a kernel without it), every call goes to stock, with the reason."""
    code = ("import subprocess, json, spawnkit.compat as c; c.patch_subprocess(); "
            "r = subprocess.run(['echo', 'ok'], capture_output=True); "
            "print(json.dumps([r.stdout.decode(), c.stats()]))")
    env = dict(os.environ, SPAWNKIT_BACKEND="kernel")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    got = json.loads(out)
    if spawnkit.kernel_has_spawn_template():
        assert got == ["ok\n", {"routed": 1, "fallback": 0, "reasons": {}}]
    else:
        assert got == ["ok\n", {"routed": 0, "fallback": 1, "reasons": {"backend:OSError": 1}}]


def test_threads_share_no_fds(patched: None) -> None:
    """Concurrent calls from many threads, half with close_fds=False: every
    output arrives intact and no child holds another call's pipe (it would
    keep that call's reader waiting)."""
    code = ("import os, sys\n"
            "links = []\n"
            "for n in os.listdir('/proc/self/fd'):\n"
            "    try: links.append(os.readlink('/proc/self/fd/' + n) if int(n) > 2 else '')\n"
            "    except OSError: pass\n"
            "print(sys.argv[1], *[x for x in links if x.startswith('pipe:')])")
    ours = set()                       # pipes this process lets children inherit
    for n in os.listdir("/proc/self/fd"):
        try:
            if os.get_inheritable(int(n)):
                ours.add(os.readlink(f"/proc/self/fd/{n}"))
        except OSError:
            pass
    errors = []

    def worker(t: int) -> None:
        for i in range(6):
            tag = f"{t}-{i}"
            try:
                out = subprocess.run([sys.executable, "-c", code, tag], capture_output=True,
                                     text=True, timeout=60, close_fds=bool(i % 2)).stdout
                name, *pipes = out.split()
                if name != tag or set(pipes) - ours:
                    errors.append(out)
            except Exception as e:                   # noqa: BLE001 - reported below
                errors.append(repr(e))

    in_threads(worker, [(t,) for t in range(8)])
    assert errors == []
    assert_routed(compat.stats(), 48)

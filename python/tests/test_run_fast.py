"""run(argv) with no options takes a path of its own (spawnkit._run's
_run_defaults): a prepared argv per command and the template it last ran
from.  These check that the shortcut changes nothing a caller can see: the
result, the errors, a template the cache has closed, threads and fork
(test_template.py's cache tests cover a replaced or deleted executable
through run(argv), this path)."""
from __future__ import annotations

import inspect
import os
import select
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from typing import Callable, List, Tuple

import pytest

import spawnkit
from spawnkit import StaleTemplateError, template_cache
from spawnkit import _run as run_mod

from conftest import copy_true, in_threads, rename_new_copy_over

pytestmark = pytest.mark.skipif(spawnkit.backend() == "fallback",
                                reason="the compiled binding's run() path")


def _copy(tmp_path: Path, src: str, name: str = "tool") -> str:
    path = str(tmp_path / name)
    shutil.copy(src, path)
    return path


def test_same_result_as_with_an_option() -> None:
    argv = ["sh", "-c", "echo out; echo err >&2; exit 3"]
    fast = spawnkit.run(argv)
    slow = spawnkit.run(argv, check=False)      # any option: the checked path
    for r in (fast, slow):
        assert (r.args, r.returncode, r.stdout, r.stderr) == (argv, 3, b"out\n", b"err\n")
        assert (r.stdout_head, r.stdout_tail, r.stdout_dropped) == (b"out\n", b"", 0)
        assert (r.stderr_head, r.stderr_tail, r.stderr_dropped) == (b"err\n", b"", 0)
    assert type(fast) is type(slow) is spawnkit.CompletedProcess


def test_silent_result_is_the_checked_paths() -> None:
    # the default path makes a silent command's result without
    # CompletedProcess.__init__: the same attributes, in the same order
    for argv in (["/bin/true"], ["/bin/false"], ["/bin/sh", "-c", "exit 255"],
                 ["/bin/sh", "-c", "kill -9 $$"]):
        fast = spawnkit.run(argv)
        slow = spawnkit.run(argv, check=False)
        assert list(vars(fast).items()) == list(vars(slow).items())
        assert repr(fast) == repr(slow) and not fast.truncated
        assert type(fast) is spawnkit.CompletedProcess


def test_defaults_are_the_documented_ones(tmp_path: Path) -> None:
    # stdin /dev/null, a new session, SIGPIPE back to default
    r = spawnkit.run(["sh", "-c", "readlink /proc/self/fd/0; "
                      "[ \"$(cut -d' ' -f6 /proc/$$/stat)\" = $$ ] && echo own-session; "
                      "grep SigIgn /proc/self/status"])
    out = r.stdout.decode().splitlines()
    assert out[0] == "/dev/null" and out[1] == "own-session"
    ignored = int(out[2].split()[1], 16)
    assert not ignored & (1 << 12), "SIGPIPE still ignored in the child"


def test_truncation_marker_and_limit() -> None:
    r = spawnkit.run(["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x"])
    assert r.stdout_dropped == 3000000 - (1 << 20)
    assert b"bytes omitted" in r.stdout
    assert r.stdout_head is not None and r.stdout_tail is not None
    assert len(r.stdout_head) + len(r.stdout_tail) == 1 << 20


@pytest.mark.parametrize("argv", [
    "/bin/true",                          # a single str
    [b"/bin/true"],                       # bytes
    [Path("/bin/true")],                  # PathLike
    ("/bin/true",),                       # a tuple
])
def test_other_argv_forms(argv: object) -> None:
    assert spawnkit.run(argv).returncode == 0   # type: ignore[call-overload]


def test_errors_match_the_checked_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as e1:
        spawnkit.run([str(tmp_path / "missing")])
    with pytest.raises(FileNotFoundError) as e2:
        spawnkit.run([str(tmp_path / "missing")], check=False)
    assert e1.value.filename == e2.value.filename == str(tmp_path / "missing")
    with pytest.raises(PermissionError):
        spawnkit.run([str(tmp_path)])           # a directory
    with pytest.raises(ValueError, match="embedded null byte"):
        spawnkit.run(["/bin/echo", "a\0b"])
    with pytest.raises(ValueError):
        spawnkit.run([])
    with pytest.raises(TypeError, match="expected str, bytes or os.PathLike object, not list"):
        spawnkit.run([["/bin/true"]])           # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"run\(\) got an unexpected keyword argument 'tiemout'"):
        spawnkit.run(["/bin/true"], tiemout=1)  # type: ignore[call-overload]


def test_signature_shows_every_option() -> None:
    params = inspect.signature(spawnkit.run).parameters
    for name in ("timeout", "output_limit", "new_session", "rlimits", "pty", "warm"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY


def test_template_closed_by_the_cache_is_taken_again(tmp_path: Path) -> None:
    path = _copy(tmp_path, "/bin/true")
    assert spawnkit.run([path]).returncode == 0
    held = template_cache.get(path)
    template_cache.clear()                      # closes the one the argv holds
    assert held.closed
    assert spawnkit.run([path]).returncode == 0
    assert path in template_cache and not template_cache.get(path).closed
    template_cache.discard(path)
    assert spawnkit.run([path]).returncode == 0
    template_cache.discard(path)


def test_path_search_is_made_on_each_call(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _copy(a, "/bin/true", "sk-fast-tool")
    _copy(b, "/bin/false", "sk-fast-tool")
    monkeypatch.setenv("PATH", f"{a}:{b}")
    assert spawnkit.run(["sk-fast-tool"]).returncode == 0
    monkeypatch.setenv("PATH", f"{b}:{a}")
    assert spawnkit.run(["sk-fast-tool"]).returncode == 1
    for d in (a, b):
        template_cache.discard(str(d / "sk-fast-tool"))


def test_many_argvs_bound_the_prepared_ones() -> None:
    for i in range(run_mod._ARGVS_MAX * 2):
        assert spawnkit.run(["/bin/echo", str(i)]).stdout == f"{i}\n".encode()
    assert len(run_mod._ARGVS) <= run_mod._ARGVS_MAX


def _runs_under(disturb: Callable[[], object], path: str, threads: int,
                calls: int) -> Tuple[List[int], List[BaseException]]:
    """run([path]) `calls` times in each of `threads` threads while another
    thread calls disturb() over and over: the exit codes and the errors."""
    stop = threading.Event()
    errors: List[BaseException] = []
    codes: List[int] = []

    def disturber() -> None:
        while not stop.is_set():
            disturb()

    def runner() -> None:
        try:
            for _ in range(calls):
                codes.append(spawnkit.run([path]).returncode)
        except BaseException as e:             # recorded and asserted below
            errors.append(e)

    d = threading.Thread(target=disturber)
    d.start()
    try:
        in_threads(runner, [()] * threads)
    finally:
        stop.set()
        d.join()
    template_cache.discard(path)
    return codes, errors


def test_threads_with_the_cache_cleared_under_them(tmp_path: Path) -> None:
    codes, errors = _runs_under(template_cache.clear, copy_true(tmp_path), 4, 30)
    assert not errors, errors
    assert codes == [0] * 120


def test_threads_with_the_executable_replaced_under_them(tmp_path: Path) -> None:
    path = copy_true(tmp_path)

    def replace() -> None:
        # cp in another process: a write fd of ours would reach children
        # forked meanwhile, and exec of the file then says ETXTBSY
        subprocess.run(["cp", "/bin/true", path + ".new"], check=True)
        os.rename(path + ".new", path)

    codes, errors = _runs_under(replace, path, 3, 20)
    # replaced more often than a call can remake: StaleTemplateError at worst
    assert all(isinstance(e, StaleTemplateError) for e in errors), errors
    assert set(codes) <= {0} and len(codes) + len(errors) == 60


def test_forked_child_runs_from_the_inherited_entry(tmp_path: Path) -> None:
    path = _copy(tmp_path, "/bin/echo")
    assert spawnkit.run([path, "parent"]).stdout == b"parent\n"
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                               # pragma: no cover (the child)
        try:
            os.close(r)
            out = spawnkit.run([path, "parent"]).stdout
            os.write(w, out)
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        got = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert got == b"parent\n"
    template_cache.discard(path)


def test_the_template_fd_does_not_reach_the_child(tmp_path: Path) -> None:
    assert spawnkit.run(["/bin/true"]).returncode == 0
    fd = template_cache.get("/bin/true").fd
    r = spawnkit.run(["sh", "-c", "ls /proc/self/fd"])
    fds = {int(x) for x in r.stdout.split()}
    assert fds <= {0, 1, 2, 3}                 # 3: ls's own directory fd
    assert fd > 2


def test_fork_while_a_template_is_held(tmp_path: Path) -> None:
    """A hold on a template at fork() (another thread in the middle of a
    spawn) is no lock: the child's run() goes on from the template."""
    path = _copy(tmp_path, "/bin/true")
    assert spawnkit.run([path]).returncode == 0
    t = template_cache.get(path)
    r, w = os.pipe()
    t._acquire()                               # as another thread's spawn would
    try:
        pid = os.fork()
        if pid == 0:                           # pragma: no cover (the child)
            try:
                os.close(r)
                os.write(w, b"%d" % spawnkit.run([path]).returncode)
            finally:
                os._exit(0)
    finally:
        t._release()
    os.close(w)
    try:
        ready = select.select([r], [], [], 60)[0]
        if not ready:
            os.kill(pid, signal.SIGKILL)
        got = os.read(r, 16) if ready else b"timed out"
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    assert got == b"0"
    template_cache.discard(path)


def test_silent_result_holds_no_memory() -> None:
    """run(argv) frees no result for a command that printed nothing: it
    relies on the library leaving head and tail NULL then (run.h)."""
    from spawnkit._ffi import ffi, lib
    o = ffi.new("struct spawnkit_run_opts *")
    lib.spawnkit_run_opts_init(o)
    argv = [ffi.new("char[]", b"/bin/true"), ffi.NULL]
    o.argv = ffi.new("char *[]", argv)
    res = ffi.new("struct spawnkit_run_result *")
    assert lib.spawnkit_run(o, res) == 0 and res.status == 0
    for i in range(3):
        out = res.out[i]
        assert out.total == 0 and out.head == ffi.NULL and out.tail == ffi.NULL
    lib.spawnkit_run_result_free(res)

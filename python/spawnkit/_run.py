"""run(): subprocess.run() with the defaults an agent runtime wants.

- stdin is /dev/null unless `input` is given (a tool never waits on a tty);
- stdout and stderr are captured by default;
- a timeout (or no_output_timeout) kills the whole tree, including orphaned
  grandchildren still holding the pipes, then drains the pipes for at most
  kill_grace seconds, so a call always returns;
- output_limit keeps the head and the tail of each stream and reports how
  many bytes were dropped between them;
- no fd above 2 reaches the child (spawn templates close them).
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._io import (DEADLINE, EOF, IDLE, NONE, _FOREVER, Capture, Pump, RunIO,
                  deadline_ns, wait_pidfd)
from ._process import Argv, Process, _spawn_raw
from ._results import (KILL_GRACE, CompletedProcess, _decode, _encode_input,  # noqa: F401
                       _result, _text_params, _timeout_error, run_params)
from ._template import StrOrBytesPath
from ._tree import kill_tree

__all__ = ["CompletedProcess", "run", "KILL_GRACE"]

_WHY = {EOF: "eof", DEADLINE: "timeout", IDLE: "idle"}
_DRAIN_FIRST_NS = 50_000_000     # drain before searching every session for holders


def _kill_and_drain(pid: int, pidfd: int, io: RunIO, grace: float) -> None:
    """Kill the tree, then read what is left for at most `grace` seconds.
    Pipe holders are searched in our session first; only if the pipes are
    still open a moment later is every process on the system searched."""
    end = time.monotonic_ns() + int(max(0.0, min(grace, _FOREVER)) * 1e9)
    inodes = io.pipe_inodes()
    kill_tree(_unreaped(pid, io), pidfd, signal.SIGKILL, inodes)
    if io.pump(min(end, time.monotonic_ns() + _DRAIN_FIRST_NS)) != EOF:
        kill_tree(_unreaped(pid, io), pidfd, signal.SIGKILL, inodes, all_sessions=True)
        io.pump(end)


def _unreaped(pid: int, io: Optional[RunIO]) -> Optional[int]:
    """pid for kill_tree()'s descendant search, or None once the pump has
    reaped the child (the pid may belong to another process by then)."""
    return pid if io is None or io.child_status() is None else None


def _reap(pidfd: int, deadline: int, pid: int, io: RunIO) -> Optional[int]:
    """The returncode: what the pump reaped, else wait_pidfd()."""
    rc = io.child_status()
    return rc if rc is not None else wait_pidfd(pidfd, deadline, pid)


def run(args: Argv, *, input: Union[None, bytes, str] = None,
        timeout: Optional[float] = None, no_output_timeout: Optional[float] = None,
        capture_output: bool = True, output_limit: Optional[int] = None,
        stdin: Any = None, stdout: Any = None, stderr: Any = None,
        cwd: Union[None, StrOrBytesPath, int] = None,
        env: Optional[Mapping[Any, Any]] = None, check: bool = False,
        text: Optional[bool] = None, encoding: Optional[str] = None,
        errors: Optional[str] = None, universal_newlines: Optional[bool] = None,
        executable: Optional[StrOrBytesPath] = None,
        pass_fds: Sequence[int] = (), inherit_fds: bool = False,
        signal_mask: Optional[Iterable[int]] = None,
        default_signals: Iterable[int] = (), restore_signals: bool = True,
        kill_grace: float = KILL_GRACE, warm: bool = False,
        preload: Optional[Sequence[str]] = None) -> CompletedProcess:
    """Run a command and return a CompletedProcess (see module docstring).

    Differences from subprocess.run(): capture_output defaults to True and
    stdin to DEVNULL; on timeout the whole tree is killed; output_limit;
    no_output_timeout raises NoOutputTimeoutExpired (a TimeoutExpired); there
    is no shell=True (pass ["sh", "-c", cmd]).  Exceptions otherwise match:
    FileNotFoundError/PermissionError/OSError for a program that cannot
    start, TimeoutExpired with the output so far, CalledProcessError if check.
    warm=True starts a Python call from a warm interpreter when it fits
    (docs/warm.md); the result is the same, only faster.  preload: modules
    the warm interpreter imports once (then visible in sys.modules: opt-in).
    """
    stdin, stdout, stderr, data, tp = run_params(
        input, stdin, stdout, stderr, capture_output, no_output_timeout,
        output_limit, text, encoding, errors, universal_newlines)

    pid, pidfd, fds = _spawn_raw(
        args, stdin=stdin, stdout=stdout, stderr=stderr, executable=executable,
        cwd=cwd, env=env, pass_fds=pass_fds, inherit_fds=inherit_fds,
        signal_mask=signal_mask, default_signals=default_signals,
        restore_signals=restore_signals, warm=warm, preload=preload)
    # The I/O, the wait and the reap are C calls without the GIL (RunIO,
    # wait_pidfd).  Ownership: the pidfd is run()'s (closed in `finally`);
    # the pipe ends are run()'s until RunIO takes them, then RunIO's.
    io: Optional[RunIO] = None
    returncode: Optional[int] = None
    try:
        deadline = deadline_ns(timeout, time.monotonic_ns())
        io = RunIO(fds[0], data, fds[1], fds[2], output_limit)
        io.watch_child(pidfd)
        code = io.pump(deadline, deadline_ns(no_output_timeout))
        if code == EOF:
            returncode = _reap(pidfd, deadline, pid, io)
            if returncode is None:
                code = DEADLINE                  # pipes closed, child still running
        if code != EOF:
            _kill_and_drain(pid, pidfd, io, kill_grace)
            returncode = _reap(pidfd, NONE, pid, io)
        kept = io.outputs()
    except BaseException:
        if returncode is None:                   # interrupted: leave nothing behind
            inodes = (io.pipe_inodes() if io is not None
                      else [os.fstat(fd).st_ino for fd in fds[1:] if fd is not None])
            kill_tree(_unreaped(pid, io), pidfd, signal.SIGKILL, inodes)
            if _unreaped(pid, io) is not None:
                try:
                    wait_pidfd(pidfd)
                except ChildProcessError:
                    pass                         # already reaped elsewhere
        raise
    finally:
        os.close(pidfd)
        if io is not None:
            io.close()
        else:
            for fd in fds:
                if fd is not None:
                    os.close(fd)

    assert returncode is not None                # reaped on every path that gets here
    return _result(args, _WHY[code], returncode,
                   [None if fds[i] is None else kept[i - 1] for i in (1, 2)],
                   tp, check, timeout, no_output_timeout)


def communicate(proc: Process, input: Any, timeout: Optional[float]) -> Tuple[Any, Any]:
    """Process.communicate(): write input, read both pipes to EOF, wait."""
    tp = proc._text_params
    if proc._comm is None:
        data = _encode_input(input, tp)
        stdin_fd = None
        close_fn = None
        if proc.stdin is not None:
            stdin_f = proc.stdin
            try:
                stdin_f.flush()
            except BrokenPipeError:
                pass
            stdin_fd = stdin_f.fileno()

            def close_fn(fd: int) -> None:
                try:
                    stdin_f.close()
                except BrokenPipeError:
                    pass
        streams = [f for f in (proc.stdout, proc.stderr) if f is not None]
        captures = {f.fileno(): Capture() for f in streams}
        proc._comm = (Pump(stdin_fd, data, captures, close_fn), captures)
    pump, captures = proc._comm
    deadline = None if timeout is None else time.monotonic() + timeout
    if pump.run(deadline) != "eof":
        raise subprocess.TimeoutExpired(proc.args, timeout)  # type: ignore[arg-type]
    proc.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
    outs: List[Any] = []
    for f in (proc.stdout, proc.stderr):
        if f is None:
            outs.append(None)
            continue
        kept, _ = captures[f.fileno()].value()
        f.close()
        outs.append(_decode(kept, 0, tp))
    return outs[0], outs[1]

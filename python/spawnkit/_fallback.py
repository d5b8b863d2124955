"""The portable fallback: spawnkit's API over the subprocess module.

`import spawnkit` gives this where the compiled binding cannot work: not
Linux (macOS), a kernel without pidfds (before 5.3), a seccomp policy that
refuses clone3/pidfd_open, or SPAWNKIT_BACKEND=fallback (see _choose.py).
backend() then says "fallback".

run() keeps its API and its semantics: stdin /dev/null, output captured,
head+tail output_limit, no_output_timeout, and a timeout that kills the
whole tree and then drains the pipes for at most kill_grace seconds.  The
tree is found differently: the child starts in a new session (its own
process group), so a timeout is killpg(); then, where /proc exists, the
processes still holding the output pipes (orphans that called setsid()) are
killed too, by pid.  spawn() returns a subprocess.Popen with kill_tree().
What is slower or weaker than the binding: a fork/exec start instead of a
template, pid (not pidfd) signalling, and no Template objects.
"""
from __future__ import annotations

import errno
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
from typing import (Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set,
                    Tuple, Union)

from . import _runopts as opt
from ._options import SpawnOptions
from ._pump import Capture, Pump
from ._results import (DEFAULT_OUTPUT_LIMIT, KILL_GRACE, CompletedProcess, _incremental, _result,
                       run_params)

__all__ = ["Process", "Template", "TemplateCache", "backend", "kernel_has_spawn_template",
           "run", "spawn", "template_cache", "warm_shutdown", "warm_stats", "which"]

_DRAIN_FIRST = 0.05        # seconds of draining before searching for pipe holders
_RLIM64_INFINITY = (1 << 64) - 1
_HAVE_PROC = os.path.isdir("/proc/self/fd")


def backend() -> str:
    """Always "fallback" here (the binding says "user" or "kernel")."""
    return "fallback"


def kernel_has_spawn_template() -> bool:
    return False


def which(name: Any, path: Any = None) -> str:
    """The binding's which(): absolute path of a command over PATH (or
    `path`); FileNotFoundError, or PermissionError when only
    non-executable files of that name exist."""
    s = os.fsdecode(name)
    if "/" in s:
        return os.path.abspath(s)
    p = os.fsdecode(path) if path is not None else os.environ.get("PATH", os.defpath)
    found = shutil.which(s, path=p)
    if found is not None:
        return os.path.abspath(found)
    denied = any(os.path.exists(os.path.join(d or ".", s)) for d in p.split(os.pathsep))
    err = errno.EACCES if denied else errno.ENOENT
    raise (PermissionError if denied else FileNotFoundError)(err, os.strerror(err), s)


class Template:
    """Templates need the compiled binding: making one raises OSError(ENOSYS)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSYS, "spawnkit: no spawn templates in the fallback backend")


class TemplateCache:
    """The fallback keeps no templates; get() raises OSError(ENOSYS)."""

    def __init__(self) -> None:
        self._map: Dict[Any, Any] = {}                      # always empty, as the binding's

    def get(self, path: Any) -> Template:
        return Template(path)

    def clear(self) -> None:
        pass

    def __len__(self) -> int:
        return 0


template_cache = TemplateCache()


def warm_stats() -> Dict[str, Any]:
    """No warm interpreters here (they are templates): all zero."""
    return {"warm_spawns": 0, "cold_fallbacks": 0, "reasons": {}, "started": 0,
            "restarted": 0, "shut_down": 0}


def warm_shutdown() -> None:
    pass


def _preexec(signal_mask: Optional[Iterable[int]], default_signals: Iterable[int],
             limits: Sequence[Tuple[int, int, int]] = (),
             nice: Optional[int] = None,
             policy: Optional[int] = None) -> Optional[Callable[[], None]]:
    """The child-side setup subprocess has no argument for (signals,
    rlimits, nice, policy); None (no preexec_fn, the fast path) when there
    is none."""
    defaults = list(default_signals)
    if signal_mask is None and not defaults and not limits and not nice and policy is None:
        return None
    mask = None if signal_mask is None else set(signal_mask)

    def setup() -> None:
        for s in defaults:
            signal.signal(s, signal.SIG_DFL)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for res, soft, hard in limits:
            inf = resource.RLIM_INFINITY
            resource.setrlimit(res, (inf if soft == _RLIM64_INFINITY else soft,
                                     inf if hard == _RLIM64_INFINITY else hard))
        if nice:        # as the library's NICE action: clamped to -20..19
            value = min(19, max(-20, os.getpriority(os.PRIO_PROCESS, 0) + nice))
            os.setpriority(os.PRIO_PROCESS, 0, value)
        if policy is not None:  # as the library's SCHED_POLICY action: nice kept
            os.sched_setscheduler(0, policy, os.sched_param(0))
    return setup


def _cwd_path(cwd: Any) -> Any:
    """A directory fd (the binding accepts one) as a path subprocess takes."""
    if isinstance(cwd, int) and not isinstance(cwd, bool):
        return f"/proc/self/fd/{cwd}" if _HAVE_PROC and sys.platform.startswith("linux") \
            else f"/dev/fd/{cwd}"
    return cwd


class Process(subprocess.Popen[bytes]):
    """A started child (subprocess.Popen) in its own session, with the
    binding's kill_tree().  pidfd is always None here."""

    pidfd = None
    _pipe_inodes: Optional[List[int]] = None      # set by spawnkit.aio

    def kill_tree(self, sig: int = signal.SIGKILL, *, all_sessions: bool = True) -> int:
        """Signal the child's process group, then (all_sessions, and where
        /proc exists) every process still holding its output pipes.
        Returns how many pipe holders were signalled."""
        holders: Set[int] = set()
        if all_sessions:
            inodes = self._pipe_inodes
            if inodes is None:
                inodes = [os.fstat(f.fileno()).st_ino for f in (self.stdout, self.stderr)
                          if f is not None and not f.closed]
            holders = _holders(inodes)
        _killpg(self.pid, sig)
        return sum(_kill(pid, sig) for pid in holders)


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _holders(inodes: Sequence[int]) -> Set[int]:
    """The processes that hold a write end of these pipes and no read end
    (a fork of this interpreter holds both): orphans that may have left the
    child's process group.  Found by pid in /proc, without it nothing.  The
    fallback's own search: there is no library here (spawnkit_kill_tree(3)
    is the binding's policy)."""
    if not inodes or not _HAVE_PROC:
        return set()
    links = {f"pipe:[{ino}]" for ino in inodes}
    me = os.getpid()
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        modes = set()
        try:
            fds = os.listdir(f"/proc/{name}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{name}/fd/{fd}") not in links:
                    continue
                with open(f"/proc/{name}/fdinfo/{fd}", "rb") as f:
                    info = f.read()
            except OSError:
                continue
            for line in info.splitlines():
                if line.startswith(b"flags:"):
                    modes.add(int(line.split()[1], 8) & os.O_ACCMODE == os.O_RDONLY)
        if modes == {False}:
            found.add(int(name))
    return found


class EmptyArgvError(ValueError, IndexError):
    """argv is empty: a ValueError, and an IndexError as subprocess raises."""


def _popen(args: Any, *, executable: Any, stdin: Any, stdout: Any, stderr: Any,
           cwd: Any, env: Optional[Mapping[Any, Any]], pass_fds: Sequence[int],
           inherit_fds: bool, signal_mask: Optional[Iterable[int]],
           default_signals: Iterable[int], restore_signals: bool,
           new_session: bool = True, limits: Sequence[Tuple[int, int, int]] = (),
           umask: int = -1, nice: Optional[int] = None,
           policy: Optional[int] = None) -> Process:
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]                              # a program name, as the binding takes it
    if not args:
        raise EmptyArgvError("args must not be empty")
    return Process(list(args), executable=executable, stdin=stdin, stdout=stdout,
                   stderr=stderr, cwd=_cwd_path(cwd), env=env, pass_fds=tuple(pass_fds),
                   close_fds=not inherit_fds, restore_signals=restore_signals,
                   preexec_fn=_preexec(signal_mask, default_signals, limits, nice, policy),
                   start_new_session=new_session, umask=umask)


def spawn(args: Any, *, executable: Any = None, stdin: Any = None, stdout: Any = None,
          stderr: Any = None, cwd: Any = None, env: Optional[Mapping[Any, Any]] = None,
          pass_fds: Sequence[int] = (), inherit_fds: bool = False,
          signal_mask: Optional[Iterable[int]] = None, default_signals: Iterable[int] = (),
          restore_signals: bool = True, text: bool = False, encoding: Optional[str] = None,
          errors: Optional[str] = None, template: Any = None, warm: bool = False,
          preload: Any = (), new_session: bool = True) -> Process:
    """The binding's spawn() over subprocess.Popen (the child gets its own
    session whatever new_session says, so kill_tree() can reach its process
    group)."""
    if template is not None:
        raise OSError(errno.ENOSYS, "spawnkit: no spawn templates in the fallback backend")
    proc = _popen(args, executable=executable, stdin=stdin, stdout=stdout, stderr=stderr,
                  cwd=cwd, env=env, pass_fds=pass_fds, inherit_fds=inherit_fds,
                  signal_mask=signal_mask, default_signals=default_signals,
                  restore_signals=restore_signals)
    if text or encoding or errors:
        import io
        for name in ("stdin", "stdout", "stderr"):
            f = getattr(proc, name)
            if f is not None:
                setattr(proc, name, io.TextIOWrapper(f, encoding=encoding, errors=errors,
                                                     write_through=name == "stdin"))
    return proc


# spawnkit.aio's hooks: _spawn_raw() starts a child and hands over our pipe
# ends as raw fds, as the binding's does; _adopt() then returns its Popen.
_started: Dict[int, Process] = {}
# spawn()'s defaults for its child options (SpawnOptions).
_SPAWN_DEFAULTS = {k: v for k, v in (spawn.__kwdefaults__ or {}).items()
                   if k in SpawnOptions.__annotations__}


def _spawn_raw(args: Any, **kw: Any) -> Tuple[int, None, List[Optional[int]]]:
    kw = {**_SPAWN_DEFAULTS, **kw}                # aio.spawn() passes what it was given
    kw.pop("warm", None)                          # warm only changes speed: cold here
    kw.pop("preload", None)
    kw.pop("new_session", None)                   # every child here has a session of its own
    if kw.pop("template", None) is not None:
        raise OSError(errno.ENOSYS, "spawnkit: no spawn templates in the fallback backend")
    proc = _popen(args, **kw)
    fds: List[Optional[int]] = []
    for name in ("stdin", "stdout", "stderr"):
        f = getattr(proc, name)
        if f is None:
            fds.append(None)
            continue
        fds.append(os.dup(f.fileno()))
        f.close()
        setattr(proc, name, None)
    _started[proc.pid] = proc
    return proc.pid, None, fds


def _adopt(args: Any, pid: int, pidfd: None, fds: Any, new_session: bool = True) -> Process:
    return _started.pop(pid)


class _RunPump(Pump):
    """Pump with run()'s clocks: a deadline, an idle timeout that output
    resets, and the wait delay (the pipes' time after the child exited,
    found by polling it: there is no pidfd here)."""

    def pump(self, deadline: Optional[float], idle: Optional[float] = None,
             proc: Optional[subprocess.Popen[bytes]] = None,
             wait_delay: Optional[float] = None) -> str:
        """"eof", "timeout", "idle" or "delay"; deadline is time.monotonic()."""
        last = time.monotonic()
        exited: Optional[float] = None
        while not self.done():
            now = time.monotonic()
            waits: List[float] = []
            if proc is not None and wait_delay is not None:
                if exited is None and proc.poll() is not None:
                    exited = now
                if exited is not None and now - exited >= wait_delay:
                    return "delay"
                waits.append(0.05 if exited is None else exited + wait_delay - now)
            if deadline is not None:
                if now >= deadline:
                    return "timeout"
                waits.append(deadline - now)
            if idle is not None:
                if now - last >= idle:
                    return "idle"
                waits.append(last + idle - now)
            wait_ms = -1 if not waits else max(1, int(min(waits) * 1000 + 0.999))
            for fd, ev in self.poller.poll(wait_ms):
                if fd == self.stdin_fd:
                    if ev & select.POLLOUT:
                        self.write_some()
                    else:                          # POLLERR: the reader is gone
                        self.close_stdin()
                elif fd in self.open_reads and self.read_some(fd):
                    last = time.monotonic()
        return "eof"


class _StreamCapture(Capture):
    """Capture that also hands each chunk to on_stdout/on_stderr (decoded
    incrementally in text mode)."""

    def __init__(self, limit: Optional[int], fn: Callable[[Any], object],
                 tp: Optional[Tuple[str, str]]) -> None:
        super().__init__(limit)
        self.fn = fn
        self.decoder = None if tp is None else _incremental(tp)

    def feed(self, data: bytes) -> None:
        super().feed(data)
        chunk: Any = data if self.decoder is None else self.decoder.decode(data)
        if chunk:
            self.fn(chunk)

    def flush(self) -> None:
        if self.decoder is not None:
            rest = self.decoder.decode(b"", True)
            if rest:
                self.fn(rest)


def _kill_and_drain(proc: Process, pump: _RunPump, grace: float) -> None:
    """Kill the group, drain for at most `grace` seconds; pipe holders that
    left the group are searched for only if the pipes stay open a moment."""
    end = time.monotonic() + max(0.0, min(grace, 1e9))
    proc.kill_tree(signal.SIGKILL, all_sessions=False)
    if pump.pump(min(end, time.monotonic() + _DRAIN_FIRST)) != "eof":
        proc.kill_tree(signal.SIGKILL)
        pump.pump(end)


def run(args: Any, *, input: Union[None, bytes, str] = None,
        timeout: Optional[float] = None, no_output_timeout: Optional[float] = None,
        capture_output: bool = True, output_limit: Optional[int] = DEFAULT_OUTPUT_LIMIT,
        stdin: Any = None, stdout: Any = None, stderr: Any = None, cwd: Any = None,
        env: Optional[Mapping[Any, Any]] = None, check: bool = False,
        text: Optional[bool] = None, encoding: Optional[str] = None,
        errors: Optional[str] = None, universal_newlines: Optional[bool] = None,
        executable: Any = None, pass_fds: Sequence[int] = (), inherit_fds: bool = False,
        signal_mask: Optional[Iterable[int]] = None, default_signals: Iterable[int] = (),
        restore_signals: bool = True, kill_grace: float = KILL_GRACE, warm: bool = False,
        preload: Any = (), wait_delay: Optional[float] = None, truncation_marker: bool = True,
        new_session: Optional[bool] = None, on_stdout: Optional[Callable[[Any], object]] = None,
        on_stderr: Optional[Callable[[Any], object]] = None, rlimits: Any = None,
        umask: Optional[int] = None, nice: Optional[int] = None,
        sched_policy: Optional[int] = None, cgroup: Any = None,
        pty: bool = False, pty_size: Any = None) -> CompletedProcess[Any]:
    """spawnkit.run() (see _run.py) over subprocess.Popen, with the same
    options checked the same way.  warm and preload change only the speed
    of a call, never its result: here every call is cold.  What differs:
    no truncation marker (the library joins with one; here head and tail
    are joined as they are), and cgroup= and pty=True raise
    OSError(EOPNOTSUPP), as sched_policy= does where os has no
    sched_setscheduler (macOS)."""
    stdin, stdout, stderr, data, tp = run_params(
        input, stdin, stdout, stderr, capture_output, no_output_timeout,
        output_limit, text, encoding, errors, universal_newlines)
    opt.milliseconds("timeout", timeout, True)
    opt.milliseconds("no_output_timeout", no_output_timeout, True)
    opt.milliseconds("wait_delay", wait_delay, False)
    opt.milliseconds("kill_grace", kill_grace, False)
    opt.check_bool("truncation_marker", truncation_marker)
    session = opt.check_bool("new_session", new_session) if new_session is not None else True
    fns = {1: opt.check_callback("on_stdout", on_stdout),
           2: opt.check_callback("on_stderr", on_stderr)}
    limits = opt.rlimits(rlimits)
    mask = opt.umask(umask)
    inc = opt.nice(nice)
    policy = opt.sched_policy(sched_policy)
    if policy is not None and not hasattr(os, "sched_setscheduler"):
        raise OSError(errno.EOPNOTSUPP, "sched_policy= needs sched_setscheduler(2), "
                      "which this platform does not have")
    if opt.check_bool("pty", pty) or pty_size is not None:
        opt.pty_size(pty_size)
        if not pty:
            raise ValueError("pty_size needs pty=True")
        raise OSError(errno.EOPNOTSUPP, "pty=True needs the compiled binding "
                      "(SPAWNKIT_RUN_PTY); the portable fallback has none")
    if cgroup is not None:
        raise OSError(errno.EOPNOTSUPP, "cgroup= needs the compiled binding "
                      "(CLONE_INTO_CGROUP); the portable fallback has none")
    if fns[2] is not None and stderr == subprocess.STDOUT:
        raise ValueError("with stderr=STDOUT the output comes to on_stdout")
    for i, spec in ((1, stdout), (2, stderr)):
        if fns[i] is not None and spec != subprocess.PIPE:
            name = ("on_stdout", "on_stderr")[i - 1]
            raise ValueError(f"{name} needs {name[3:]} captured (PIPE)")
    start = time.monotonic()
    proc = _popen(args, executable=executable, stdin=stdin, stdout=stdout, stderr=stderr,
                  cwd=cwd, env=env, pass_fds=pass_fds, inherit_fds=inherit_fds,
                  signal_mask=signal_mask, default_signals=default_signals,
                  restore_signals=restore_signals, new_session=session, limits=limits,
                  umask=-1 if mask is None else mask, nice=inc, policy=policy)
    streams = [proc.stdout, proc.stderr]
    out_fds = [None if f is None else f.fileno() for f in streams]
    captures: Dict[int, Capture] = {}
    for i, fd in ((1, out_fds[0]), (2, out_fds[1])):
        if fd is not None:
            fn = fns[i]
            captures[fd] = (Capture(output_limit) if fn is None
                            else _StreamCapture(output_limit, fn, tp))
    proc._pipe_inodes = [os.fstat(fd).st_ino for fd in captures]
    stdin_f = proc.stdin

    def close_stdin(fd: int) -> None:
        try:
            stdin_f.close()                        # type: ignore[union-attr]
        except BrokenPipeError:
            pass

    returncode: Optional[int] = None
    try:
        pump = _RunPump(None if stdin_f is None else stdin_f.fileno(), data, captures,
                        close_stdin)
        deadline = None if timeout is None or timeout > 1e9 else start + max(0.0, timeout)
        why = pump.pump(deadline, no_output_timeout, proc, wait_delay)
        if why == "delay":                         # the child's status, holders killed
            _kill_and_drain(proc, pump, kill_grace)
            returncode = proc.wait()
            why = "eof"
        elif why == "eof":
            try:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                returncode = proc.wait(left)
            except subprocess.TimeoutExpired:
                why = "timeout"                    # pipes closed, child still running
        if why != "eof":
            _kill_and_drain(proc, pump, kill_grace)
            returncode = proc.wait()
    except BaseException:
        if returncode is None:                     # interrupted: leave nothing behind
            proc.kill_tree(signal.SIGKILL)
            proc.wait()
        raise
    finally:
        for f in (stdin_f, proc.stdout, proc.stderr):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
    assert returncode is not None                  # both branches above waited
    if session:
        _killpg(proc.pid, signal.SIGKILL)          # what the call left running (its group
                                                   # keeps the number while it has members)
    for c in captures.values():
        if isinstance(c, _StreamCapture):
            c.flush()
    kept = [None if fd is None else captures[fd].parts() for fd in out_fds]
    return _result(args, why, returncode, kept, tp, check, timeout, no_output_timeout)

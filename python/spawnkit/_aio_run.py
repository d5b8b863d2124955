"""aio.run(): run() on the event loop, pipes and pidfd watched by the loop.

The pipes are pumped by PumpCore (_pump.py) driven from loop.add_reader/
add_writer callbacks: no transports, no tasks, a few callbacks per call, so
hundreds of calls can be in flight on one loop.  The child's end is its
pidfd becoming readable.
"""
from __future__ import annotations

import asyncio
import codecs
import io
import os
import signal
import subprocess
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from ._choose import fallback_reason
from ._options import ChildOptions, RunOptions, check_keywords
from ._pump import Capture, PumpCore
from ._results import CompletedProcess, _result, run_params

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._process import Argv
if fallback_reason is None:
    from ._process import Process as _SyncProcess
    from ._process import _spawn_raw
    from ._run import run as _sync_run
else:
    from ._fallback import _adopt as _SyncProcess  # type: ignore[assignment]
    from ._fallback import _spawn_raw  # type: ignore[assignment]
    from ._fallback import run as _sync_run  # type: ignore[no-redef]

__all__ = ["run", "seconds", "sweep_session", "TextStream"]

_POLL_MAX = 0.05       # the longest sleep between exit polls without a pidfd
#: The defaults of the options run() and aio.run() share are run()'s
#: (output_limit included: 1 MiB, as in Node's run()), so they cannot drift.
_DEFAULTS: Dict[str, Any] = {k: v for k, v in (_sync_run.__kwdefaults__ or {}).items()
                             if k in RunOptions.__annotations__}
OnOutput = Optional[Callable[[Any], object]]


class TextStream:
    """Incremental decoding of one output stream: a character split between
    reads waits for its last bytes; "\\r\\n" and "\\r" become "\\n" as in
    run()'s text mode."""

    def __init__(self, tp: Tuple[str, str]) -> None:
        inner = codecs.getincrementaldecoder(tp[0])(tp[1])
        self.dec = io.IncrementalNewlineDecoder(inner, translate=True)

    def decode(self, data: bytes, final: bool = False) -> str:
        return self.dec.decode(data, final)


class _Tee(Capture):
    """A Capture that also hands each chunk to on_stdout/on_stderr (decoded
    in text mode).  The callback's first exception is kept in `error` and
    stop() called; no chunk is handed over after it."""

    __slots__ = ("fn", "text", "error", "stop")

    def __init__(self, limit: Optional[int], fn: Callable[[Any], object],
                 tp: Optional[Tuple[str, str]]) -> None:
        super().__init__(limit)
        self.fn = fn
        self.text = None if tp is None else TextStream(tp)
        self.error: Optional[BaseException] = None
        self.stop: Callable[[], None] = lambda: None

    def _hand(self, data: bytes, final: bool = False) -> None:
        if self.error is not None:
            return
        try:
            chunk: Any = data if self.text is None else self.text.decode(data, final)
            if chunk:
                self.fn(chunk)
        except BaseException as e:
            self.error = e
            self.stop()

    def feed(self, data: bytes) -> None:
        super().feed(data)
        self._hand(data)

    def flush(self) -> None:
        """The text the decoder still holds, at the end of the run."""
        if self.text is not None:
            self._hand(b"", True)


def _check_callbacks(stdout: Any, stderr: Any, callbacks: Sequence[OnOutput]) -> None:
    """on_stdout/on_stderr: callables, for streams that are pipes of ours."""
    for spec, fn, name in ((stdout, callbacks[0], "on_stdout"),
                           (stderr, callbacks[1], "on_stderr")):
        if fn is None:
            continue
        if not callable(fn):
            raise TypeError(f"{name} must be callable or None, not {fn!r}")
        if spec == subprocess.STDOUT:
            raise ValueError("with stderr=STDOUT the output comes to on_stdout")
        if spec != subprocess.PIPE:
            raise ValueError(f"{name} needs {name[3:]} captured (PIPE)")


class _Pump(PumpCore):
    """The event-loop twin of _pump.Pump: PumpCore driven by loop.add_reader/
    add_writer, reporting "eof", "timeout", "idle" or (asked to watch the
    child) "exited".  Owns no fds; remove() detaches it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stdin_fd: Optional[int],
                 data: Optional[bytes], captures: Dict[int, Capture]) -> None:
        super().__init__(stdin_fd, data, captures)
        for c in captures.values():
            if isinstance(c, _Tee):
                c.stop = lambda: self._wake("stopped")
        self.loop = loop
        self.last_output = loop.time()
        self.waiter: Optional[asyncio.Future[str]] = None
        for fd in captures:
            os.set_blocking(fd, False)
            loop.add_reader(fd, self._on_read, fd)
        if stdin_fd is not None:
            if self.data:
                os.set_blocking(stdin_fd, False)
                loop.add_writer(stdin_fd, self.write_some)
            else:
                self.close_stdin()

    def _unwatch(self, fd: int, output: bool) -> None:
        if output:
            self.loop.remove_reader(fd)
        else:
            self.loop.remove_writer(fd)

    def _stream_ended(self) -> None:
        if self.done():
            self._wake("eof")

    def _wake(self, why: str) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(why)

    def _on_read(self, fd: int) -> None:
        if self.read_some(fd):
            self.last_output = self.loop.time()

    def stopped(self) -> Optional[BaseException]:
        """The first exception an output callback raised, if any."""
        for c in self.captures.values():
            if isinstance(c, _Tee) and c.error is not None:
                return c.error
        return None

    def _check_idle(self, idle: float) -> None:
        due = self.last_output + idle
        if self.loop.time() >= due:
            self._wake("idle")
        elif self.waiter is not None and not self.waiter.done():
            self.loop.call_at(due, self._check_idle, idle)

    def _poll_exit(self, proc: _SyncProcess, delay: float) -> None:
        if proc.poll() is not None:
            self._wake("exited")
        elif self.waiter is not None and not self.waiter.done():
            self.loop.call_later(delay, self._poll_exit, proc, min(delay * 2, _POLL_MAX))

    async def run(self, deadline: Optional[float] = None, idle: Optional[float] = None,
                  child: Optional[_SyncProcess] = None) -> str:
        """Pump until the pipes end, `deadline` (loop time), `idle` seconds
        without output, or (child given) the child's exit."""
        if self.done():
            return "eof"
        self.waiter = self.loop.create_future()
        timers = []
        if deadline is not None:
            timers.append(self.loop.call_at(deadline, self._wake, "timeout"))
        if idle is not None and self.open_reads:
            timers.append(self.loop.call_at(self.last_output + idle, self._check_idle, idle))
        pidfd = None if child is None else child.pidfd
        if pidfd is not None:
            self.loop.add_reader(pidfd, self._wake, "exited")
        elif child is not None:
            self._poll_exit(child, 0.0005)
        try:
            return await self.waiter
        finally:
            for t in timers:
                t.cancel()
            if pidfd is not None:
                self.loop.remove_reader(pidfd)
            self.waiter = None

    def remove(self) -> None:
        """Stop watching every fd (before the caller closes them)."""
        for fd in self.open_reads:
            self.loop.remove_reader(fd)
        self.open_reads = set()
        self.close_stdin()


async def _exited(loop: asyncio.AbstractEventLoop, proc: _SyncProcess,
                  deadline: Optional[float]) -> bool:
    """Wait until the child has ended (without reaping it): pidfd readable."""
    fd = proc.pidfd
    if fd is None:
        return await _polled_exit(loop, proc, deadline)
    if proc._exited(0):
        return True
    fut: asyncio.Future[bool] = loop.create_future()

    def settle(value: bool) -> None:
        if not fut.done():
            fut.set_result(value)

    loop.add_reader(fd, settle, True)
    timer = loop.call_at(deadline, settle, False) if deadline is not None else None
    try:
        return await fut
    finally:
        loop.remove_reader(fd)
        if timer is not None:
            timer.cancel()


async def _polled_exit(loop: asyncio.AbstractEventLoop, proc: _SyncProcess,
                       deadline: Optional[float]) -> bool:
    """_exited() without a pidfd: a reaped child (the binding's), or the
    fallback's Popen child, polled with a growing sleep (reaps it)."""
    delay = 0.0005
    while proc.poll() is None:
        left = None if deadline is None else deadline - loop.time()
        if left is not None and left <= 0:
            return False
        await asyncio.sleep(delay if left is None else min(delay, left))
        delay = min(delay * 2, _POLL_MAX)
    return True


async def _reap(loop: asyncio.AbstractEventLoop, proc: _SyncProcess) -> int:
    await _exited(loop, proc, None)
    return proc.wait()              # the child has exited: does not block


async def _kill_and_drain(loop: asyncio.AbstractEventLoop, proc: _SyncProcess,
                          pump: _Pump, grace: float) -> None:
    end = loop.time() + grace
    proc.kill_tree(signal.SIGKILL)
    await pump.run(min(end, loop.time() + 0.05))
    if not pump.done():
        proc.kill_tree(signal.SIGKILL, all_sessions=True)
        await pump.run(end)


def seconds(name: str, value: Optional[float], low: float = float("-inf"),
            low_ok: bool = True) -> Optional[float]:
    """An option in seconds (None allowed), checked with a clear error:
    a number, not NaN, > low (>= low when low_ok)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise TypeError(f"{name} must be a number of seconds or None, not {value!r}")
    if value < low or (value == low and not low_ok):
        raise ValueError(f"{name} must be {'>=' if low_ok else '>'} {low:g}, not {value!r}")
    return float(value)


def sweep_session(proc: Any, killed: bool = False) -> None:
    """After a new-session child ended: kill what is left of its session
    (background jobs), as spawnkit_run() does.  The common case costs one
    kill(2): a /proc walk only when the child's process group still has
    members, or `killed` says a kill already ran (a stray may remain)."""
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        if not killed:
            return
    except PermissionError:
        pass                          # a member we may not signal: still there
    proc.kill_tree(signal.SIGKILL)


async def run(args: Argv, *, text: Optional[bool] = None, encoding: Optional[str] = None,
              errors: Optional[str] = None, universal_newlines: Optional[bool] = None,
              on_stdout: OnOutput = None, on_stderr: OnOutput = None,
              **options: Unpack[RunOptions]) -> CompletedProcess[Any]:
    """spawnkit.run() for asyncio: same arguments, result and exceptions.
    Cancelling the task kills the child's whole tree.  warm: as run().
    The options (RunOptions) and their defaults are run()'s, output_limit
    included (1 MiB; None keeps all the output); rlimits, umask, nice,
    sched_policy, cgroup, pty and truncation_marker are run()'s alone.

    new_session: the child starts in a session of its own (the default,
    except with warm=True: a warm interpreter cannot start one), and what is
    left of that session is killed once the child has ended.
    wait_delay: once the child has ended, wait at most this long for the
    pipes to close, then kill whatever still holds them, and return the
    child's own status (Go's exec.Cmd.WaitDelay); None waits for them.
    on_stdout/on_stderr: called on the loop with each chunk as it comes
    (bytes, or str in text mode, never splitting a character); an exception
    raised there stops the call, kills the tree and is raised from run()."""
    check_keywords("run", options, RunOptions)
    o: Dict[str, Any] = {**_DEFAULTS, **options}
    input, timeout, no_output_timeout = o["input"], o["timeout"], o["no_output_timeout"]
    output_limit, kill_grace, check = o["output_limit"], o["kill_grace"], o["check"]
    wait_delay = seconds("wait_delay", o["wait_delay"], 0)
    new_session = o["new_session"]
    if new_session is None:
        new_session = not o["warm"]
    if not isinstance(new_session, bool):
        raise TypeError(f"new_session must be True, False or None, not {new_session!r}")
    loop = asyncio.get_running_loop()
    stdin, stdout, stderr, data, tp = run_params(
        input, o["stdin"], o["stdout"], o["stderr"], o["capture_output"], no_output_timeout,
        output_limit, text, encoding, errors, universal_newlines)
    _check_callbacks(stdout, stderr, (on_stdout, on_stderr))
    pid, pidfd, fds = _spawn_raw(args, stdin=stdin, stdout=stdout, stderr=stderr,
                                 new_session=new_session,
                                 **{k: o[k] for k in ChildOptions.__annotations__})
    proc = _SyncProcess(args, pid, pidfd, [None, None, None], new_session=new_session)
    # Our pipe ends' inodes: their holders belong to the tree a timeout kills.
    proc._pipe_inodes = [os.fstat(fd).st_ino for fd in fds[1:] if fd is not None]
    captures: Dict[int, Capture] = {}
    for fd, fn in zip(fds[1:], (on_stdout, on_stderr)):
        if fd is not None:
            captures[fd] = Capture(output_limit) if fn is None else _Tee(output_limit, fn, tp)
    deadline = None if timeout is None else loop.time() + timeout
    pump = None
    killed = False
    try:
        pump = _Pump(loop, fds[0], data, captures)
        fds[0] = None                            # the pump closes stdin now
        why = await pump.run(deadline, no_output_timeout,
                             proc if wait_delay is not None else None)
        if why == "exited":
            assert wait_delay is not None
            end = loop.time() + wait_delay
            why = await pump.run(end if deadline is None else min(end, deadline),
                                 no_output_timeout)
            if why == "timeout" and (deadline is None or loop.time() < deadline):
                await _kill_and_drain(loop, proc, pump, kill_grace)   # the delay is up
                killed, why = True, "eof"
        if why == "eof" and not await _exited(loop, proc, deadline):
            why = "timeout"
        if why == "stopped" or pump.stopped() is not None:
            await _kill_and_drain(loop, proc, pump, kill_grace)
            killed, why = True, "stopped"
        elif why != "eof":
            await _kill_and_drain(loop, proc, pump, kill_grace)
            killed = True
        returncode = await _reap(loop, proc)
        if new_session:
            sweep_session(proc, killed)
        error = pump.stopped()
        if error is not None:
            raise error
        for c in captures.values():
            if isinstance(c, _Tee):
                c.flush()
                if c.error is not None:
                    raise c.error
    except BaseException:
        if proc.returncode is None:              # cancelled: leave nothing behind
            proc.kill_tree(signal.SIGKILL)
            try:
                proc.wait()
            except ChildProcessError:
                pass                             # already reaped elsewhere
        raise
    finally:
        if pump is not None:
            pump.remove()
        for fd in fds:
            if fd is not None:
                os.close(fd)
    kept: List[Any] = [None if fd is None else captures[fd].value() for fd in fds[1:]]
    return _result(args, why, returncode, kept, tp, check, timeout, no_output_timeout)

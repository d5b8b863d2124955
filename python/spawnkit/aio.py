"""asyncio versions of run() and spawn(), driven by pidfds in the event loop.

A child's end is seen by watching its pidfd with loop.add_reader() (a pidfd
becomes readable when the process exits), and its pipes the same way: no
thread per child, no SIGCHLD handler, no child watcher, so hundreds of calls
can be in flight on one loop.  Each call uses three fds while it runs (two
output pipes and the pidfd): raise RLIMIT_NOFILE for thousands of calls.

The spawn itself is one short blocking call (vfork-style: it returns once the
child has exec'd), made from the loop thread.
"""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._choose import fallback_reason
from ._pump import Capture, PumpCore
from ._results import (KILL_GRACE, CompletedProcess, run_params, _decode, _encode_input,
                       _result)

if TYPE_CHECKING:
    from ._process import Argv, FileSpec
    from ._template import StrOrBytesPath, Template
if fallback_reason is None:
    from ._process import Process as _SyncProcess
    from ._process import _spawn_raw
else:
    # The portable fallback: Popen children without a pidfd, whose exit
    # _exited() polls for (see _fallback.py).
    from ._fallback import _adopt as _SyncProcess  # type: ignore[assignment]
    from ._fallback import _spawn_raw  # type: ignore[assignment]

__all__ = ["run", "spawn", "Process"]


class _Pump(PumpCore):
    """The event-loop twin of _io.Pump: PumpCore driven by loop.add_reader/
    add_writer, reporting "eof", "timeout" or "idle".  Owns no fds;
    remove() detaches it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stdin_fd: Optional[int],
                 data: Optional[bytes], captures: Dict[int, Capture]) -> None:
        super().__init__(stdin_fd, data, captures)
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

    def _check_idle(self, idle: float) -> None:
        due = self.last_output + idle
        if self.loop.time() >= due:
            self._wake("idle")
        elif self.waiter is not None and not self.waiter.done():
            self.loop.call_at(due, self._check_idle, idle)

    async def run(self, deadline: Optional[float] = None, idle: Optional[float] = None) -> str:
        if self.done():
            return "eof"
        self.waiter = self.loop.create_future()
        timers = []
        if deadline is not None:
            timers.append(self.loop.call_at(deadline, self._wake, "timeout"))
        if idle is not None and self.open_reads:
            timers.append(self.loop.call_at(self.last_output + idle, self._check_idle, idle))
        try:
            return await self.waiter
        finally:
            for t in timers:
                t.cancel()
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
        delay = min(delay * 2, 0.05)
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


async def run(args: Argv, *, input: Union[None, bytes, str] = None,
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
              preload: Optional[Sequence[str]] = None) -> CompletedProcess[Any]:
    """spawnkit.run() for asyncio: same arguments, result and exceptions.
    Cancelling the task kills the child's whole tree.  warm: as run()."""
    loop = asyncio.get_running_loop()
    stdin, stdout, stderr, data, tp = run_params(
        input, stdin, stdout, stderr, capture_output, no_output_timeout,
        output_limit, text, encoding, errors, universal_newlines)
    pid, pidfd, fds = _spawn_raw(
        args, stdin=stdin, stdout=stdout, stderr=stderr, executable=executable,
        cwd=cwd, env=env, pass_fds=pass_fds, inherit_fds=inherit_fds,
        signal_mask=signal_mask, default_signals=default_signals,
        restore_signals=restore_signals, warm=warm, preload=preload)
    proc = _SyncProcess(args, pid, pidfd, [None, None, None])
    # Our pipe ends' inodes: their holders belong to the tree a timeout kills.
    proc._pipe_inodes = [os.fstat(fd).st_ino for fd in fds[1:] if fd is not None]
    captures = {fd: Capture(output_limit) for fd in fds[1:] if fd is not None}
    deadline = None if timeout is None else loop.time() + timeout
    pump = None
    try:
        pump = _Pump(loop, fds[0], data, captures)
        fds[0] = None                            # the pump closes stdin now
        why = await pump.run(deadline, no_output_timeout)
        if why == "eof" and not await _exited(loop, proc, deadline):
            why = "timeout"
        if why != "eof":
            await _kill_and_drain(loop, proc, pump, kill_grace)
        returncode = await _reap(loop, proc)
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
    kept = [None if fd is None else captures[fd].value() for fd in fds[1:]]
    return _result(args, why, returncode, kept, tp, check, timeout, no_output_timeout)


class Process:
    """A child started by aio.spawn(): Popen-like, with async wait() and
    communicate().  stdin/stdout/stderr given as PIPE are raw fds of ours
    (stdin_fd, stdout_fd, stderr_fd), used by communicate()."""

    def __init__(self, proc: _SyncProcess, fds: Sequence[Optional[int]],
                 tp: Optional[Tuple[str, str]]) -> None:
        self._proc = proc
        self._fds = list(fds)
        self._tp = tp
        self._pump: Optional[_Pump] = None

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def pidfd(self) -> Optional[int]:
        return self._proc.pidfd

    @property
    def returncode(self) -> Optional[int]:
        return self._proc.returncode

    @property
    def args(self) -> Any:
        return self._proc.args

    @property
    def stdin_fd(self) -> Optional[int]:
        return self._fds[0]

    @property
    def stdout_fd(self) -> Optional[int]:
        return self._fds[1]

    @property
    def stderr_fd(self) -> Optional[int]:
        return self._fds[2]

    def poll(self) -> Optional[int]:
        return self._proc.poll()

    def send_signal(self, sig: int) -> None:
        self._proc.send_signal(sig)

    def terminate(self) -> None:
        self._proc.terminate()

    def kill(self) -> None:
        self._proc.kill()

    def kill_tree(self, sig: int = signal.SIGKILL, *, all_sessions: bool = False) -> int:
        return self._proc.kill_tree(sig, all_sessions=all_sessions)

    async def wait(self, timeout: Optional[float] = None) -> int:
        """Wait for the child to end (pidfd in the event loop); raises
        subprocess.TimeoutExpired, leaving the child running."""
        loop = asyncio.get_running_loop()
        if self._proc.returncode is not None:
            return self._proc.returncode
        deadline = None if timeout is None else loop.time() + timeout
        if not await _exited(loop, self._proc, deadline):
            raise subprocess.TimeoutExpired(self.args, timeout)  # type: ignore[arg-type]
        return self._proc.wait()

    async def communicate(self, input: Union[None, bytes, str] = None,
                          timeout: Optional[float] = None) -> Tuple[Any, Any]:
        """As Popen.communicate(); after a TimeoutExpired, call again to go on."""
        loop = asyncio.get_running_loop()
        if self._pump is None:
            captures = {fd: Capture() for fd in self._fds[1:] if fd is not None}
            self._pump = _Pump(loop, self._fds[0], _encode_input(input, self._tp), captures)
            self._fds[0] = None
        deadline = None if timeout is None else loop.time() + timeout
        if await self._pump.run(deadline) != "eof":
            raise subprocess.TimeoutExpired(self.args, timeout)  # type: ignore[arg-type]
        await self.wait(None if deadline is None else max(0.0, deadline - loop.time()))
        outs: List[Any] = []
        for i in (1, 2):
            fd = self._fds[i]
            if fd is None:
                outs.append(None)
                continue
            kept, _ = self._pump.captures[fd].value()
            os.close(fd)
            self._fds[i] = None
            outs.append(_decode(kept, 0, self._tp))
        return outs[0], outs[1]

    def close(self) -> None:
        """Close our pipe ends (not the child)."""
        if self._pump is not None:
            self._pump.remove()
        for i, fd in enumerate(self._fds):
            if fd is not None:
                os.close(fd)
                self._fds[i] = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<spawnkit.aio.Process pid={self.pid} returncode={self.returncode}>"


async def spawn(args: Argv, *, executable: Optional[StrOrBytesPath] = None,
                stdin: FileSpec = None, stdout: FileSpec = None, stderr: FileSpec = None,
                cwd: Union[None, StrOrBytesPath, int] = None,
                env: Optional[Mapping[Any, Any]] = None,
                pass_fds: Sequence[int] = (), inherit_fds: bool = False,
                signal_mask: Optional[Iterable[int]] = None,
                default_signals: Iterable[int] = (), restore_signals: bool = True,
                text: bool = False, encoding: Optional[str] = None,
                errors: Optional[str] = None,
                template: Optional[Template] = None, warm: bool = False,
                preload: Optional[Sequence[str]] = None) -> Process:
    """spawnkit.spawn() for asyncio: same options, returns an aio.Process."""
    pid, pidfd, fds = _spawn_raw(args, executable=executable, stdin=stdin, stdout=stdout,
                                 stderr=stderr, cwd=cwd, env=env, pass_fds=pass_fds,
                                 inherit_fds=inherit_fds, signal_mask=signal_mask,
                                 default_signals=default_signals,
                                 restore_signals=restore_signals, template=template,
                                 warm=warm, preload=preload)
    proc = _SyncProcess(args, pid, pidfd, [None, None, None])
    proc._pipe_inodes = [os.fstat(fd).st_ino for fd in fds[1:] if fd is not None]
    tp = None
    if text or encoding or errors:
        import locale
        tp = (encoding or locale.getpreferredencoding(False), errors or "strict")
    return Process(proc, fds, tp)

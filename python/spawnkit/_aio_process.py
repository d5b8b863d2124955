"""aio.Process and aio.spawn(): a child with asyncio streams over its pipes.

The streams are the loop's own pipe transports (connect_read_pipe and
connect_write_pipe over our pipe ends) with a StreamReader or StreamWriter
on top, as asyncio.subprocess builds them.  The child's end is its pidfd
becoming readable, watched with loop.add_reader() from the spawn on: no
SIGCHLD handler, no child watcher, no thread.  The watcher reaps the child
as soon as it ends, so returncode is set without a wait(), as in
asyncio.subprocess.  Without a pidfd (the portable fallback) the exit is
polled instead.
"""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from typing import IO, TYPE_CHECKING, Any, List, Optional, Sequence, Tuple, Union

from ._choose import fallback_reason
from ._options import SpawnOptions, check_keywords
from ._results import _decode, _encode_input, _text_params

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._process import Argv
if fallback_reason is None:
    from ._process import Process as _SyncProcess
    from ._process import _spawn_raw
else:
    # The portable fallback: Popen children without a pidfd, whose exit
    # is polled for (see _fallback.py).
    from ._fallback import _adopt as _SyncProcess  # type: ignore[assignment]
    from ._fallback import _spawn_raw  # type: ignore[assignment]

__all__ = ["Process", "spawn", "STREAM_LIMIT"]

#: StreamReader's default limit (readline's longest line; the reader
#: pauses its pipe when twice this much is buffered), as asyncio's.
STREAM_LIMIT = 2 ** 16


class _WriteProtocol(asyncio.streams.FlowControlMixin):
    """stdin's protocol: drain() flow control, and wait_closed()."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self.closed: asyncio.Future[None] = loop.create_future()

    def connection_lost(self, exc: Optional[Exception]) -> None:
        super().connection_lost(exc)
        if not self.closed.done():
            self.closed.set_result(None)

    def _get_close_waiter(self, stream: asyncio.StreamWriter) -> asyncio.Future[None]:
        return self.closed


class _ReadProtocol(asyncio.StreamReaderProtocol):
    """stdout's and stderr's: StreamReaderProtocol, plus a future set once
    the transport has closed our pipe end."""

    def __init__(self, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(reader, loop=loop)
        self.closed: asyncio.Future[None] = loop.create_future()

    def connection_lost(self, exc: Optional[Exception]) -> None:
        super().connection_lost(exc)
        if not self.closed.done():
            self.closed.set_result(None)


class _ExitWatch:
    """The child's end as a future of the loop that spawned it; the child
    is reaped (returncode set) before the future is resolved.  Every reap of
    an aio.Process goes through here, so the pidfd is never closed while
    the loop still watches it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, proc: _SyncProcess) -> None:
        self.loop = loop
        self.proc = proc
        self.ended: asyncio.Future[None] = loop.create_future()
        self.fd = proc.pidfd
        self.poller: Optional[asyncio.Task[None]] = None
        if self.fd is not None:
            loop.add_reader(self.fd, self.check)
        else:
            self.poller = loop.create_task(self._poll())

    def check(self) -> bool:
        """Reap the child if it has ended; True once it has."""
        if self.ended.done():
            return True
        if self.fd is not None:
            if not self.proc._exited(0):
                return False
            self.loop.remove_reader(self.fd)
            self.fd = None
        try:
            if self.proc.poll() is None:
                return False
        except OSError:
            pass                      # no status to be had: wait() raises why
        self.ended.set_result(None)
        return True

    async def _poll(self) -> None:
        delay = 0.0005
        while not self.check():
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)

    def stop(self) -> None:
        """Stop watching (the loop is going away); the child is left to the
        synchronous Process's reaping."""
        if self.fd is not None and not self.loop.is_closed():
            self.loop.remove_reader(self.fd)
        self.fd = None
        if self.poller is not None:
            self.poller.cancel()


class Process:
    """A child started by aio.spawn(), shaped like asyncio.subprocess.Process.

    stdin is an asyncio.StreamWriter, stdout and stderr are
    asyncio.StreamReaders (for each given as PIPE, else None); they carry
    bytes, whatever `text` says (text applies to communicate()).
    stdin_fd/stdout_fd/stderr_fd are the pipe ends under them (None once
    closed), for code that needs the numbers; reading or writing them
    directly would race the streams.  The Process belongs to the event loop
    that spawned it."""

    stdin: Optional[asyncio.StreamWriter]
    stdout: Optional[asyncio.StreamReader]
    stderr: Optional[asyncio.StreamReader]

    def __init__(self, proc: _SyncProcess, loop: asyncio.AbstractEventLoop,
                 tp: Optional[Tuple[str, str]]) -> None:
        self._proc = proc
        self._loop = loop
        self._tp = tp
        self._watch = _ExitWatch(loop, proc)
        self._transports: List[Optional[asyncio.BaseTransport]] = [None, None, None]
        self._closed: List[asyncio.Future[None]] = []
        self._fds: List[Optional[int]] = [None, None, None]
        self._comm: Optional[asyncio.Future[Tuple[Any, Any]]] = None
        self.stdin = self.stdout = self.stderr = None

    async def _connect(self, fds: Sequence[Optional[int]], limit: int) -> None:
        """Put the streams on our pipe ends.  Each fd is handed over to a
        transport, which closes it; on an error every fd not handed over yet
        is closed here."""
        loop = self._loop
        pipes: List[Optional[IO[bytes]]] = [None, None, None]
        try:
            for i, fd in enumerate(fds):
                if fd is None:
                    continue
                pipe: IO[bytes] = open(fd, "wb" if i == 0 else "rb", buffering=0)
                pipes[i] = pipe
                self._fds[i] = fd
                if i == 0:
                    wt, wp = await loop.connect_write_pipe(lambda: _WriteProtocol(loop), pipe)
                    self.stdin = asyncio.StreamWriter(wt, wp, None, loop)
                    self._transports[0] = wt
                    self._closed.append(wp.closed)
                    continue
                reader = asyncio.StreamReader(limit=limit, loop=loop)
                rp = _ReadProtocol(reader, loop)
                rt, _ = await loop.connect_read_pipe(lambda: rp, pipe)
                self._transports[i] = rt
                self._closed.append(rp.closed)
                if i == 1:
                    self.stdout = reader
                else:
                    self.stderr = reader
        except BaseException:
            for i, fd in enumerate(fds):
                p = pipes[i]
                if self._transports[i] is not None:
                    continue                  # the transport's (close() below)
                if p is not None:
                    p.close()
                elif fd is not None:
                    os.close(fd)
            self.close()
            raise

    # ---- what the child is ----

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def pidfd(self) -> Optional[int]:
        """The pidfd until the child is reaped (None in the fallback)."""
        return self._proc.pidfd

    @property
    def returncode(self) -> Optional[int]:
        """The exit status once the child has ended (negative: the signal),
        set by the loop as soon as it ends, as asyncio.subprocess does."""
        return self._proc.returncode

    @property
    def args(self) -> Any:
        return self._proc.args

    def _fd(self, i: int) -> Optional[int]:
        t = self._transports[i]
        return None if t is None or t.is_closing() else self._fds[i]

    @property
    def stdin_fd(self) -> Optional[int]:
        return self._fd(0)

    @property
    def stdout_fd(self) -> Optional[int]:
        return self._fd(1)

    @property
    def stderr_fd(self) -> Optional[int]:
        return self._fd(2)

    def poll(self) -> Optional[int]:
        """The returncode if the child has ended (reaping it), else None."""
        self._watch.check()
        return self._proc.returncode

    # ---- signals ----

    def send_signal(self, sig: int) -> None:
        """Signal the child (through its pidfd); nothing once it is reaped."""
        self._proc.send_signal(sig)

    def terminate(self) -> None:
        self._proc.terminate()

    def kill(self) -> None:
        self._proc.kill()

    def kill_tree(self, sig: int = signal.SIGKILL, *, all_sessions: bool = False) -> int:
        """Signal the child and what it started: spawnkit.Process.kill_tree()
        (with new_session=True: its whole session, also after it ended)."""
        return self._proc.kill_tree(sig, all_sessions=all_sessions)

    # ---- waiting ----

    async def _ended(self, timeout: Optional[float]) -> bool:
        if asyncio.get_running_loop() is not self._loop:
            raise RuntimeError("an aio.Process is used from the event loop that spawned it")
        if self._watch.ended.done():
            return True
        done, _ = await asyncio.wait({self._watch.ended}, timeout=timeout)
        return bool(done)

    async def wait(self, timeout: Optional[float] = None) -> int:
        """Wait for the child to end and return its returncode; raises
        subprocess.TimeoutExpired after `timeout` seconds, leaving the child
        running.  Waiters share one pidfd watch; a cancelled wait() leaves
        the others and the child alone."""
        if not await self._ended(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)  # type: ignore[arg-type]
        return self._proc.wait()        # reaped: returns it, or the lost-status error

    async def _feed(self, data: Optional[bytes]) -> None:
        stdin = self.stdin
        assert stdin is not None
        try:
            if data:
                stdin.write(data)
                await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass                        # the child stopped reading: as subprocess
        stdin.close()

    async def _communicate(self, data: Optional[bytes]) -> Tuple[Any, Any]:
        async def nothing() -> None:
            return None
        parts = await asyncio.gather(
            self._feed(data) if self.stdin is not None else nothing(),
            self.stdout.read() if self.stdout is not None else nothing(),
            self.stderr.read() if self.stderr is not None else nothing())
        await self.wait()
        return _decode(parts[1], 0, self._tp), _decode(parts[2], 0, self._tp)

    async def communicate(self, input: Union[None, bytes, str] = None,
                          timeout: Optional[float] = None) -> Tuple[Any, Any]:
        """Write input (then close stdin), read stdout and stderr to EOF,
        wait; returns (stdout, stderr), str with text/encoding/errors.
        The three run at once, so no pipe can fill up and stall the
        others.  On TimeoutExpired the work goes on in the background: call
        again (input is taken only by the first call)."""
        if self._comm is None:
            data = _encode_input(input, self._tp)
            self._comm = self._loop.create_task(self._communicate(data))
        if not self._comm.done():
            done, _ = await asyncio.wait({self._comm}, timeout=timeout)
            if not done:
                raise subprocess.TimeoutExpired(self.args, timeout)  # type: ignore[arg-type]
        return self._comm.result()

    # ---- closing ----

    def close(self) -> None:
        """Close the streams (our pipe ends; the transports close the fds
        on the loop's next turn: await wait_closed() for that).  The child
        is not touched; the loop reaps it when it ends."""
        for t in self._transports:
            if t is not None and not t.is_closing():
                t.close()
        if self._comm is not None and not self._comm.done():
            self._comm.cancel()

    async def wait_closed(self) -> None:
        """Wait until every pipe end of ours is closed (after close(), or
        after each stream reached its end)."""
        await asyncio.gather(*self._closed)

    def __del__(self) -> None:
        try:
            if not self._loop.is_closed():
                self.close()
            else:
                self._watch.stop()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<spawnkit.aio.Process pid={self.pid} returncode={self.returncode}>"


async def spawn(args: Argv, *, text: bool = False, encoding: Optional[str] = None,
                errors: Optional[str] = None, limit: int = STREAM_LIMIT,
                **options: Unpack[SpawnOptions]) -> Process:
    """spawnkit.spawn() for asyncio: the same options (new_session too),
    returning an aio.Process whose PIPE streams are asyncio streams.
    limit: the StreamReaders' limit, as asyncio.create_subprocess_exec's."""
    check_keywords("spawn", options, SpawnOptions)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise ValueError(f"limit must be a positive int, not {limit!r}")
    if options.get("stdout") == subprocess.STDOUT:
        raise ValueError("STDOUT is only valid for stderr")   # the fallback's Popen takes it
    loop = asyncio.get_running_loop()
    tp = _text_params(text, encoding, errors, None)
    pid, pidfd, fds = _spawn_raw(args, **options)
    new_session = options.get("new_session", False)
    proc = _SyncProcess(args, pid, pidfd, [None, None, None], new_session=new_session)
    proc._pipe_inodes = [os.fstat(fd).st_ino for fd in fds[1:] if fd is not None]
    p = Process(proc, loop, tp)
    try:
        await p._connect(fds, limit)
    except BaseException:
        p.kill_tree()                   # the loop reaps it (the pidfd watch)
        raise
    return p

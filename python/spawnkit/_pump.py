"""The pure-Python output capture and pipe pumps: Capture keeps a stream
(head and tail under a limit), PumpCore moves bytes between a child's pipes
and Captures, Pump drives PumpCore with poll().  Used by
Process.communicate() (pipes of a Process the caller drives, which the
library's spawnkit_run() does not serve), spawnkit.aio and the portable
fallback (_fallback.py, where there is no library at all), so nothing here
needs the compiled binding.  spawnkit.run() does not use it: its pump,
capture and limits are the library's (spawnkit_run(3))."""
from __future__ import annotations

import os
import select
import time
from typing import Callable, Dict, List, Optional, Tuple

__all__ = ["CHUNK", "Capture", "PumpCore", "Pump"]

CHUNK = 65536            # one read; also the largest write of input per wakeup


class Capture:
    """Collects one output stream; with a limit keeps the first and the last
    bytes (half each) and counts what was dropped between them."""

    __slots__ = ("limit", "chunks", "head", "tail", "head_max", "tail_max", "total")

    def __init__(self, limit: Optional[int] = None) -> None:
        if limit is not None and limit < 0:
            raise ValueError("output_limit must be >= 0")
        self.limit = limit
        self.total = 0
        self.chunks: List[bytes] = []
        self.head = bytearray()
        self.tail = bytearray()
        self.head_max = 0 if limit is None else (limit + 1) // 2
        self.tail_max = 0 if limit is None else limit // 2

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        if self.limit is None:
            self.chunks.append(data)
            return
        room = self.head_max - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.tail_max:
            self.tail += data
            # Trim lazily (amortised O(1) per byte) to at most 2x the tail.
            if len(self.tail) > 2 * self.tail_max + CHUNK:
                del self.tail[:len(self.tail) - self.tail_max]

    def parts(self) -> Tuple[bytes, bytes, int]:
        """(head, tail, number of bytes dropped between them)."""
        if self.limit is None:
            return b"".join(self.chunks), b"", 0
        if len(self.tail) > self.tail_max:
            del self.tail[:len(self.tail) - self.tail_max]
        head, tail = bytes(self.head), bytes(self.tail)
        return head, tail, self.total - len(head) - len(tail)

    def value(self) -> Tuple[bytes, int]:
        """(kept bytes, number of bytes dropped from the middle)."""
        head, tail, dropped = self.parts()
        return head + tail, dropped


class PumpCore:
    """What a pump does with its fds, whatever watches them: write the input
    to the child's stdin a chunk at a time, read each output pipe into its
    Capture, and know when everything is done.  Owns no fds: stdin is closed
    through close_fn.  A subclass watches the fds (poll, an event loop) and
    calls write_some() / read_some(); it stops watching an fd in
    _unwatch(fd, output) (output: an output pipe, else stdin), and may react
    to the end of either in _stream_ended()."""

    def __init__(self, stdin_fd: Optional[int], data: Optional[bytes],
                 captures: Dict[int, Capture],
                 close_fn: Optional[Callable[[int], None]] = None) -> None:
        self.close_fn = close_fn or os.close
        self.captures = captures
        self.open_reads = set(captures)
        self.stdin_fd = stdin_fd
        self.data = memoryview(data) if data else None
        self.offset = 0

    def _unwatch(self, fd: int, output: bool) -> None:
        raise NotImplementedError

    def _stream_ended(self) -> None:
        pass

    def done(self) -> bool:
        return not self.open_reads and self.stdin_fd is None

    def close_stdin(self) -> None:
        fd, self.stdin_fd = self.stdin_fd, None
        if fd is not None:
            self._unwatch(fd, False)
            self.close_fn(fd)
            self._stream_ended()

    def write_some(self) -> None:
        """One non-blocking write; stdin closes when all is written or the
        child stopped reading (as subprocess: that is not an error)."""
        assert self.data is not None and self.stdin_fd is not None
        try:
            self.offset += os.write(self.stdin_fd, self.data[self.offset:self.offset + CHUNK])
        except BlockingIOError:
            return
        except (BrokenPipeError, ConnectionResetError):
            self.offset = len(self.data)
        if self.offset >= len(self.data):
            self.close_stdin()

    def read_some(self, fd: int) -> bool:
        """One read of output fd; True if it brought bytes."""
        try:
            data = os.read(fd, CHUNK)
        except BlockingIOError:
            return False
        if data:
            self.captures[fd].feed(data)
            return True
        self._unwatch(fd, True)
        self.open_reads.discard(fd)
        self._stream_ended()
        return False


class Pump(PumpCore):
    """Process.communicate()'s: PumpCore driven by poll() until EOF or a
    deadline."""

    def __init__(self, stdin_fd: Optional[int], data: Optional[bytes],
                 captures: Dict[int, Capture],
                 close_fn: Optional[Callable[[int], None]] = None) -> None:
        super().__init__(stdin_fd, data, captures, close_fn)
        self.poller = select.poll()
        for fd in captures:
            self.poller.register(fd, select.POLLIN)
        if stdin_fd is not None:
            if self.data:
                os.set_blocking(stdin_fd, False)
                self.poller.register(stdin_fd, select.POLLOUT)
            else:
                self.close_stdin()

    def _unwatch(self, fd: int, output: bool) -> None:
        try:
            self.poller.unregister(fd)
        except KeyError:
            pass

    def run(self, deadline: Optional[float] = None) -> str:
        """Pump until "eof" (all pipes done) or "timeout" (time.monotonic())."""
        while not self.done():
            wait_ms = -1
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return "timeout"
                wait_ms = max(1, int(left * 1000 + 0.999))
            for fd, ev in self.poller.poll(wait_ms):
                if fd == self.stdin_fd:
                    if ev & select.POLLOUT:
                        self.write_some()
                    else:                      # POLLERR: reader gone
                        self.close_stdin()
                elif fd in self.open_reads:
                    self.read_some(fd)
        return "eof"

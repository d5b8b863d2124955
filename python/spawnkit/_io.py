"""Output capture with a head+tail limit, and the blocking I/O pump of run().

Both are independent of how the child was started; spawnkit.aio drives the
same Capture objects from the event loop instead of Pump.
"""
from __future__ import annotations

import os
import select
import time
from typing import Callable, Dict, List, Optional, Tuple

__all__ = ["Capture", "Pump", "CHUNK"]

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

    def value(self) -> Tuple[bytes, int]:
        """(kept bytes, number of bytes dropped from the middle)."""
        if self.limit is None:
            return b"".join(self.chunks), 0
        if len(self.tail) > self.tail_max:
            del self.tail[:len(self.tail) - self.tail_max]
        kept = bytes(self.head) + bytes(self.tail)
        return kept, self.total - len(kept)


class Pump:
    """Writes `input` to the child's stdin and reads its output pipes until
    EOF, a deadline, or a stretch without output.  Owns no fds: the caller
    closes them (done() says which reached EOF)."""

    def __init__(self, stdin_fd: Optional[int], data: Optional[bytes],
                 captures: Dict[int, Capture],
                 close_fn: Optional[Callable[[int], None]] = None) -> None:
        self.close_fn = close_fn or os.close
        self.captures = captures
        self.open_reads = set(captures)
        self.stdin_fd = stdin_fd
        self.data = memoryview(data) if data else None
        self.offset = 0
        self.last_output = time.monotonic()
        self.poller = select.poll()
        for fd in captures:
            self.poller.register(fd, select.POLLIN)
        if stdin_fd is not None:
            if self.data:
                os.set_blocking(stdin_fd, False)
                self.poller.register(stdin_fd, select.POLLOUT)
            else:
                self.close_stdin()

    def close_stdin(self) -> None:
        fd, self.stdin_fd = self.stdin_fd, None
        if fd is not None:
            try:
                self.poller.unregister(fd)
            except KeyError:
                pass
            self.close_fn(fd)

    def done(self) -> bool:
        return not self.open_reads and self.stdin_fd is None

    def _write(self) -> None:
        assert self.data is not None and self.stdin_fd is not None
        try:
            self.offset += os.write(self.stdin_fd, self.data[self.offset:self.offset + CHUNK])
        except BlockingIOError:
            return
        except BrokenPipeError:
            self.offset = len(self.data)      # the child closed stdin: as subprocess
        if self.offset >= len(self.data):
            self.close_stdin()

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, CHUNK)
        except BlockingIOError:
            return
        if data:
            self.captures[fd].feed(data)
            self.last_output = time.monotonic()
        else:
            self.poller.unregister(fd)
            self.open_reads.discard(fd)

    def run(self, deadline: Optional[float] = None,
            idle: Optional[float] = None) -> str:
        """Pump until "eof" (all pipes done), "timeout" or "idle"."""
        while not self.done():
            wait_ms = -1
            now = time.monotonic()
            reason = None
            if deadline is not None:
                left = deadline - now
                reason = "timeout"
            if idle is not None and self.open_reads:
                idle_left = self.last_output + idle - now
                if deadline is None or idle_left < left:
                    left, reason = idle_left, "idle"
            if reason is not None:
                if left <= 0:
                    return reason
                wait_ms = max(1, int(left * 1000 + 0.999))
            for fd, ev in self.poller.poll(wait_ms):
                if fd == self.stdin_fd:
                    if ev & select.POLLOUT:
                        self._write()
                    else:                      # POLLERR: reader gone
                        self.close_stdin()
                elif fd in self.open_reads:
                    self._read(fd)
        return "eof"

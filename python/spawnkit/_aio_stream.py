"""aio.stream(): a child's output as it comes, as an async iterator.

    async for chunk in aio.stream(["make", "-j2"], timeout=600):
        print(chunk.fd, chunk.data)          # 1 (stdout) or 2 (stderr), bytes

Each item is a Chunk: `fd` says which stream (1 stdout, 2 stderr), `data`
is what one read brought (bytes; str with text/encoding/errors, decoded
incrementally, so a multi-byte character split between two reads comes
whole in the later chunk, and newlines translated as run() does).  Chunks
of one stream keep their order; between stdout and stderr they come in the
order the loop read them.

The child runs in a session of its own by default (new_session).
Once it has ended and its pipes are closed, whatever is left of its session
is killed (background jobs), and the iterator ends; check=True then raises
CalledProcessError for a non-zero status.  A background job that keeps the
pipes open keeps the iterator going, as with subprocess, unless wait_delay
says how long to wait for it.  A timeout, a no_output_timeout, an
exception, or a consumer that stops iterating (break, aclose(), a cancelled
task) kills the whole tree, reaps the child and closes every pipe before
the error or the close goes on.  After a `break` the iterator is closed
when it is collected (at once in CPython) by a task the loop starts;
`await agen.aclose()` (or contextlib.aclosing) closes it right there.
Output waits in the pipe while the consumer works on a chunk (about
2 x chunk_size is buffered per stream), so a slow consumer slows the child
down instead of growing memory.
"""
from __future__ import annotations

import asyncio
import codecs
import io
import math
import signal
import subprocess
from typing import (TYPE_CHECKING, Any, AsyncGenerator, Dict, Generic, List, Literal,
                    Optional, Set, Tuple, TypeVar, Union, overload)

from ._aio_process import spawn
from ._options import ChildOptions
from ._aio_run import TextStream, seconds, sweep_session
from ._errors import NoOutputTimeoutExpired
from ._pump import CHUNK
from ._results import KILL_GRACE, _encode_input, _text_params

if TYPE_CHECKING:
    from ._process import Argv

__all__ = ["Chunk", "stream"]

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT

T = TypeVar("T", bytes, str)


class Chunk(Generic[T]):
    """One read of a child's output: `fd` 1 (stdout) or 2 (stderr), and
    `data`, bytes or (text mode) str, never empty."""

    __slots__ = ("fd", "data")

    def __init__(self, fd: int, data: T) -> None:
        self.fd = fd
        self.data: T = data

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Chunk) and self.fd == other.fd
                and self.data == other.data)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Chunk(fd={self.fd}, data={self.data!r})"


if TYPE_CHECKING:
    from typing_extensions import Unpack

    class StreamOptions(ChildOptions, total=False):
        """stream()'s keyword options besides text, encoding and errors."""
        input: Union[None, bytes, str]
        stdin: Any
        stdout: Any
        stderr: Any
        timeout: Optional[float]
        no_output_timeout: Optional[float]
        check: bool
        new_session: Optional[bool]
        wait_delay: Optional[float]
        chunk_size: int
        kill_grace: float

#: The defaults of stream()'s own options; the child options
#: (ChildOptions) go to spawn() as given, where its defaults apply.
_DEFAULTS: Dict[str, Any] = dict(
    input=None, stdin=None, stdout=PIPE, stderr=PIPE, timeout=None,
    no_output_timeout=None, check=False, new_session=None, wait_delay=None,
    chunk_size=CHUNK, kill_grace=KILL_GRACE)
_CHILD = ChildOptions.__annotations__
_KNOWN = set(_DEFAULTS) | set(_CHILD)


# The chunks' type follows the text options, as subprocess's outputs do.
@overload
def stream(args: Argv, *, text: Literal[True], encoding: Optional[str] = ...,
           errors: Optional[str] = ...,
           **options: Unpack[StreamOptions]) -> AsyncGenerator[Chunk[str], None]: ...
@overload
def stream(args: Argv, *, text: Optional[bool] = ..., encoding: str,
           errors: Optional[str] = ...,
           **options: Unpack[StreamOptions]) -> AsyncGenerator[Chunk[str], None]: ...
@overload
def stream(args: Argv, *, text: Optional[bool] = ..., encoding: Optional[str] = ...,
           errors: str,
           **options: Unpack[StreamOptions]) -> AsyncGenerator[Chunk[str], None]: ...
@overload
def stream(args: Argv, *, text: Literal[False, None] = ..., encoding: None = ...,
           errors: None = ...,
           **options: Unpack[StreamOptions]) -> AsyncGenerator[Chunk[bytes], None]: ...


def stream(args: Argv, *, text: Optional[bool] = None, encoding: Optional[str] = None,
           errors: Optional[str] = None,
           **options: Unpack[StreamOptions]) -> AsyncGenerator[Chunk[Any], None]:
    """Start `args` and iterate over its output as Chunks (see the module
    docstring).  The options are run()'s where they mean the same, and
    spawn()'s cwd, env, executable, pass_fds, inherit_fds, signal_mask,
    default_signals, restore_signals, warm and preload:

    input: bytes (str in text mode) written to stdin, which is /dev/null
        otherwise, unless stdin= gives a file, an fd or None (inherit).
    stdout, stderr: PIPE (streamed, the default), DEVNULL, None (inherit),
        a file or an fd; stderr=STDOUT merges it into stdout (every chunk
        then has fd 1).  At least one must be PIPE.
    timeout: seconds from the start; then the tree is killed and
        subprocess.TimeoutExpired is raised (its output is None: the output
        was yielded).  no_output_timeout: seconds without any output, then
        the same with NoOutputTimeoutExpired.
    check: CalledProcessError (output None) for a non-zero exit status.
    new_session: setsid() in the child; what is left of its session is
        killed once the child and the pipes have ended.  Default: True,
        except with warm=True (a warm interpreter cannot start a session).
    wait_delay: once the child has ended, wait at most this long for the
        pipes to close, then kill whatever holds them (a background job
        writing to them), read what is left and end normally with the
        child's own status.  None (default): wait for the pipes, as
        subprocess does; only timeout ends a call that a grandchild keeps
        open.
    chunk_size: the largest chunk; about twice that is buffered per stream.
    kill_grace: after killing the tree, how long to wait for the child to
        die before leaving it to the loop to reap.

    Bad options raise here, before anything starts; the child starts at the
    first iteration.
    """
    unknown = sorted(set(options) - _KNOWN)
    if unknown:
        raise TypeError(f"stream() got an unexpected keyword argument {unknown[0]!r}")
    o: Dict[str, Any] = {**_DEFAULTS, **options}
    input, stdin, stdout, stderr = o["input"], o["stdin"], o["stdout"], o["stderr"]
    if input is not None and stdin is not None:
        raise ValueError("stdin and input arguments may not both be used.")
    if stdout == STDOUT:
        raise ValueError("STDOUT is only valid for stderr")
    if PIPE not in (stdout, stderr):
        raise ValueError("stream() needs stdout or stderr as PIPE: nothing to stream")
    if o["new_session"] is None:
        o["new_session"] = not o.get("warm", False)
    if not isinstance(o["new_session"], bool):
        raise TypeError(f"new_session must be True, False or None, not {o['new_session']!r}")
    chunk_size = o["chunk_size"]
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
        raise ValueError(f"chunk_size must be a positive int, not {chunk_size!r}")
    secs = seconds("timeout", o["timeout"])
    idle = seconds("no_output_timeout", o["no_output_timeout"], 0, low_ok=False)
    delay = seconds("wait_delay", o["wait_delay"], 0)
    grace = seconds("kill_grace", o["kill_grace"], 0)
    if grace is None:
        raise TypeError("kill_grace must be a number of seconds, not None")
    tp = _text_params(text, encoding, errors, None)
    if tp is not None:
        TextStream(tp)                          # an unknown encoding: LookupError now
    data = _encode_input(input, tp)
    spawn_kw = {k: v for k, v in options.items() if k in _CHILD}
    spawn_kw.update(stdin=PIPE if input is not None else (DEVNULL if stdin is None else stdin),
                    stdout=stdout, stderr=stderr, new_session=o["new_session"],
                    limit=chunk_size)
    return _stream(args, spawn_kw, data, tp, secs, idle, delay, o["check"],
                   o["new_session"], chunk_size, grace)


async def _stream(args: Argv, spawn_kw: Dict[str, Any], data: Optional[bytes],
                  tp: Optional[Tuple[str, str]], timeout: Optional[float],
                  idle: Optional[float], wait_delay: Optional[float], check: bool,
                  new_session: bool, chunk_size: int,
                  grace: float) -> AsyncGenerator[Chunk[Any], None]:
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    p = await spawn(args, **spawn_kw)
    readers = {fd: r for fd, r in ((1, p.stdout), (2, p.stderr)) if r is not None}
    texts = {fd: TextStream(tp) for fd in readers} if tp is not None else {}
    reads: Dict[asyncio.Future[bytes], int] = {}
    feeder = loop.create_task(p._feed(data)) if p.stdin is not None else None
    ended = p._watch.ended
    exit_at: Optional[float] = None    # when the child was seen to end (wait_delay)
    killed_at: Optional[float] = None  # when the wait delay's kill was sent
    finished = False
    last = loop.time()
    try:
        while readers:
            for fd, r in readers.items():
                if fd not in reads.values():
                    reads[loop.create_task(r.read(chunk_size))] = fd
            waits: Set[asyncio.Future[Any]] = set(reads)
            ends = [math.inf]          # loop times at which something is due
            if deadline is not None:
                ends.append(deadline)
            if idle is not None:
                ends.append(last + idle)
            if wait_delay is not None and exit_at is None:
                waits.add(ended)
            elif exit_at is not None and wait_delay is not None and killed_at is None:
                ends.append(exit_at + wait_delay)
            if killed_at is not None:
                ends.append(killed_at + grace)
            due = min(ends)
            done, _ = await asyncio.wait(
                waits, return_when=asyncio.FIRST_COMPLETED,
                timeout=None if due == math.inf else max(0.0, due - loop.time()))
            now = loop.time()
            got = sorted((reads.pop(t), t.result()) for t in done if t in reads)
            if deadline is not None and now >= deadline:
                raise subprocess.TimeoutExpired(args, timeout)  # type: ignore[arg-type]
            if not got and idle is not None and now - last >= idle:
                raise NoOutputTimeoutExpired(args, idle)
            if exit_at is None and ended.done():
                exit_at = now
            if (wait_delay is not None and exit_at is not None and killed_at is None
                    and now >= exit_at + wait_delay):
                p.kill_tree()          # the delay is up: whatever holds the pipes
                killed_at = now
            if killed_at is not None and not got and now >= killed_at + grace:
                break                  # something we could not kill holds a pipe
            for fd, chunk in got:
                if chunk:
                    last = now
                out: Union[bytes, str] = chunk
                if fd in texts:
                    out = texts[fd].decode(chunk, final=not chunk)
                if not chunk:
                    del readers[fd]
                if out:
                    yield Chunk(fd, out)
        # Every pipe is at its end: the child's status, within the deadline.
        left = None if deadline is None else max(0.0, deadline - loop.time())
        if not await p._ended(left):
            raise subprocess.TimeoutExpired(args, timeout)  # type: ignore[arg-type]
        returncode = await p.wait()
        if new_session:
            sweep_session(p, killed_at is not None)
        finished = True
        if check and returncode:
            raise subprocess.CalledProcessError(returncode, args)
    finally:
        pending: List[asyncio.Future[Any]] = list(reads)
        if feeder is not None:
            pending.append(feeder)
        for t in pending:
            t.cancel()
        if not finished:
            p.kill_tree(signal.SIGKILL)
        await asyncio.gather(*pending, return_exceptions=True)
        if not finished:
            await p._ended(grace)      # else the loop's pidfd watch reaps it later
        p.close()
        await p.wait_closed()

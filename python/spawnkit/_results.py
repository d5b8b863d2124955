"""run()'s result type and the argument rules and results it shares with
aio.run() and the portable fallback (_fallback.py): pure Python, no
compiled binding."""
from __future__ import annotations

import codecs
import io
import locale
import subprocess
from typing import Any, List, Optional, Sequence, Tuple, TypeVar, Union

from ._errors import NoOutputTimeoutExpired, TimeoutExpired

__all__ = ["CompletedProcess", "DEFAULT_OUTPUT_LIMIT", "KILL_GRACE", "run_params",
           "_result", "_decode", "_encode_input", "_incremental", "_text_params",
           "_timeout_error"]

DEVNULL = subprocess.DEVNULL
PIPE = subprocess.PIPE

#: Seconds the portable fallback and aio.run() keep reading after killing
#: a tree, then give up the pipes (the library's run drains for 2 seconds).
KILL_GRACE = 1.0

#: Bytes of each output stream run() keeps by default: half from the start,
#: half from the end (SPAWNKIT_RUN_DEFAULT_CAP, the library's default).
DEFAULT_OUTPUT_LIMIT = 1 << 20

_T = TypeVar("_T", str, bytes)
TextParams = Optional[Tuple[str, str]]          # (encoding, errors), None for bytes


class CompletedProcess(subprocess.CompletedProcess[_T]):
    """subprocess.CompletedProcess plus what the output limit kept.

    stdout is what run() shows: all of it, or, when bytes were dropped,
    the head and the tail joined around a "[... N bytes omitted ...]"
    marker (unless truncation_marker=False).  stdout_head and stdout_tail
    are the bytes (text) kept from the start and from the end, and
    stdout_dropped how many bytes between them were not kept.  The same
    for stderr.  None for a stream that was not captured.
    """

    stdout_head: Optional[_T]
    stdout_tail: Optional[_T]
    stderr_head: Optional[_T]
    stderr_tail: Optional[_T]

    def __init__(self, args: Any, returncode: int, stdout: Optional[_T] = None,
                 stderr: Optional[_T] = None, stdout_dropped: int = 0,
                 stderr_dropped: int = 0, *, stdout_head: Optional[_T] = None,
                 stdout_tail: Optional[_T] = None, stderr_head: Optional[_T] = None,
                 stderr_tail: Optional[_T] = None) -> None:
        super().__init__(args, returncode, stdout, stderr)  # type: ignore[arg-type,unused-ignore]
        self.stdout_dropped = stdout_dropped
        self.stderr_dropped = stderr_dropped
        # Without a head and a tail given (nothing dropped), the whole
        # output is the head.
        self.stdout_head = stdout if stdout_head is None else stdout_head
        self.stdout_tail = stdout[:0] if stdout_tail is None and stdout is not None else stdout_tail
        self.stderr_head = stderr if stderr_head is None else stderr_head
        self.stderr_tail = stderr[:0] if stderr_tail is None and stderr is not None else stderr_tail

    @property
    def truncated(self) -> bool:
        return bool(self.stdout_dropped or self.stderr_dropped)

    def __repr__(self) -> str:
        r = super().__repr__()
        if self.truncated:
            r = r[:-1] + (f", stdout_dropped={self.stdout_dropped}"
                          f", stderr_dropped={self.stderr_dropped})")
        return r


def _text_params(text: Optional[bool], encoding: Optional[str],
                 errors: Optional[str], universal_newlines: Optional[bool]) -> TextParams:
    if not (text or encoding or errors or universal_newlines):
        return None
    return encoding or locale.getpreferredencoding(False), errors or "strict"


def _decode(data: Optional[bytes], dropped: int, tp: TextParams) -> Any:
    if data is None or tp is None:
        return data
    # A cut in the middle may split a character: then decode leniently.
    errs = "replace" if dropped else tp[1]
    return data.decode(tp[0], errs).replace("\r\n", "\n").replace("\r", "\n")


def _incremental(tp: Tuple[str, str]) -> Any:
    """A decoder for streamed text (on_stdout/on_stderr): no character split
    across chunks, and universal newlines as run()'s stdout has them."""
    return io.IncrementalNewlineDecoder(codecs.getincrementaldecoder(tp[0])(tp[1]), True)


def _encode_input(input: Any, tp: TextParams) -> Optional[bytes]:
    if input is None:
        return None
    if isinstance(input, str):
        if tp is None:
            raise TypeError("input must be bytes unless text/encoding is set")
        return input.encode(tp[0], tp[1])
    return bytes(input)


# One stream's capture: (kept bytes, dropped), or (head, tail, dropped).
Kept = Union[Tuple[bytes, int], Tuple[bytes, bytes, int]]


def _parts(k: Kept) -> Tuple[bytes, bytes, bytes, int]:
    """(shown, head, tail, dropped) of a capture, joined without a marker."""
    if len(k) == 2:
        return k[0], k[0], b"", k[1]
    return k[0] + k[1], k[0], k[1], k[2]


def _timeout_error(kind: str, args: Any, timeout: float, out: Any, err: Any,
                   **parts: Any) -> subprocess.TimeoutExpired:
    cls = NoOutputTimeoutExpired if kind == "idle" else TimeoutExpired
    return cls(args, timeout, output=out, stderr=err, **parts)


def run_params(input: Any, stdin: Any, stdout: Any, stderr: Any, capture_output: bool,
               no_output_timeout: Optional[float], output_limit: Optional[int],
               text: Optional[bool], encoding: Optional[str], errors: Optional[str],
               universal_newlines: Optional[bool]) -> Tuple[Any, Any, Any, Optional[bytes], Any]:
    """run()'s argument rules, shared with aio.run():
    (stdin, stdout, stderr, input bytes, text params)."""
    if input is not None and stdin is not None:
        raise ValueError("stdin and input arguments may not both be used.")
    tp = _text_params(text, encoding, errors, universal_newlines)
    data = _encode_input(input, tp)
    stdin = PIPE if input is not None else (DEVNULL if stdin is None else stdin)
    if capture_output:
        stdout = PIPE if stdout is None else stdout
        stderr = PIPE if stderr is None else stderr
    if no_output_timeout is not None and PIPE not in (stdout, stderr):
        raise ValueError("no_output_timeout needs stdout or stderr captured")
    if output_limit is not None and (isinstance(output_limit, bool)
                                     or not isinstance(output_limit, int)):
        raise TypeError(f"output_limit must be an int or None, not {output_limit!r}")
    if output_limit is not None and output_limit < 0:
        raise ValueError("output_limit must be >= 0")
    return stdin, stdout, stderr, data, tp


def _result(args: Any, why: str, returncode: int,
            kept: Sequence[Optional[Kept]], tp: TextParams, check: bool,
            timeout: Optional[float], no_output_timeout: Optional[float]) -> CompletedProcess[Any]:
    """aio.run()'s and the fallback's result from each output stream's
    capture (None: not captured), or their TimeoutExpired/CalledProcessError.
    Head and tail are joined without a marker here (the marker is the
    library's, spawnkit_run_output_join(3))."""
    outs: List[Any] = [None, None]
    heads: List[Any] = [None, None]
    tails: List[Any] = [None, None]
    drops = [0, 0]
    for i, k in enumerate(kept):
        if k is not None:
            shown, head, tail, drops[i] = _parts(k)
            outs[i] = _decode(shown, drops[i], tp)
            heads[i] = _decode(head, drops[i], tp)
            tails[i] = _decode(tail, drops[i], tp)
    parts = dict(stdout_head=heads[0], stdout_tail=tails[0], stdout_dropped=drops[0],
                 stderr_head=heads[1], stderr_tail=tails[1], stderr_dropped=drops[1])
    if why != "eof":
        raise _timeout_error(why, args, no_output_timeout if why == "idle" else timeout,  # type: ignore[arg-type]
                             outs[0], outs[1], **parts)
    if check and returncode:
        raise subprocess.CalledProcessError(returncode, args, outs[0], outs[1])
    return CompletedProcess(args, returncode, outs[0], outs[1], **parts)

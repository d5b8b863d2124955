"""run()'s arguments and results, shared by run(), aio.run() and the
portable fallback (_fallback.py): pure Python, no compiled binding."""
from __future__ import annotations

import locale
import subprocess
from typing import Any, List, Optional, Sequence, Tuple

from ._errors import NoOutputTimeoutExpired

__all__ = ["CompletedProcess", "KILL_GRACE", "run_params", "_result", "_decode",
           "_encode_input", "_text_params", "_timeout_error"]

DEVNULL = subprocess.DEVNULL
PIPE = subprocess.PIPE


#: Seconds run() keeps reading after killing a tree, then gives up the pipes.
KILL_GRACE = 1.0


class CompletedProcess(subprocess.CompletedProcess[Any]):
    """subprocess.CompletedProcess plus how much output_limit dropped."""

    def __init__(self, args: Any, returncode: int, stdout: Any = None,
                 stderr: Any = None, stdout_dropped: int = 0,
                 stderr_dropped: int = 0) -> None:
        super().__init__(args, returncode, stdout, stderr)
        #: Bytes dropped from the middle of stdout / stderr by output_limit.
        self.stdout_dropped = stdout_dropped
        self.stderr_dropped = stderr_dropped

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
                 errors: Optional[str], universal_newlines: Optional[bool]) -> Optional[Tuple[str, str]]:
    if not (text or encoding or errors or universal_newlines):
        return None
    return encoding or locale.getpreferredencoding(False), errors or "strict"


def _decode(data: Optional[bytes], dropped: int, tp: Optional[Tuple[str, str]]) -> Any:
    if data is None or tp is None:
        return data
    # A cut in the middle may split a character: then decode leniently.
    errs = "replace" if dropped else tp[1]
    return data.decode(tp[0], errs).replace("\r\n", "\n").replace("\r", "\n")


def _encode_input(input: Any, tp: Optional[Tuple[str, str]]) -> Optional[bytes]:
    if input is None:
        return None
    if isinstance(input, str):
        if tp is None:
            raise TypeError("input must be bytes unless text/encoding is set")
        return input.encode(tp[0], tp[1])
    return bytes(input)


def _timeout_error(kind: str, args: Any, timeout: float, out: Any, err: Any) -> subprocess.TimeoutExpired:
    cls = NoOutputTimeoutExpired if kind == "idle" else subprocess.TimeoutExpired
    return cls(args, timeout, output=out, stderr=err)


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
    if output_limit is not None and output_limit < 0:
        raise ValueError("output_limit must be >= 0")
    return stdin, stdout, stderr, data, tp


def _result(args: Any, why: str, returncode: int,
            kept: Sequence[Optional[Tuple[bytes, int]]], tp: Any, check: bool,
            timeout: Optional[float], no_output_timeout: Optional[float]) -> CompletedProcess:
    """run()'s and aio.run()'s result from (kept bytes, dropped) per output
    stream (None: not captured), or their TimeoutExpired/CalledProcessError."""
    outs: List[Any] = [None, None]
    drops = [0, 0]
    for i, k in enumerate(kept):
        if k is not None:
            drops[i] = k[1]
            outs[i] = _decode(k[0], k[1], tp)
    if why != "eof":
        raise _timeout_error(why, args, no_output_timeout if why == "idle" else timeout,  # type: ignore[arg-type]
                             outs[0], outs[1])
    if check and returncode:
        raise subprocess.CalledProcessError(returncode, args, outs[0], outs[1])
    return CompletedProcess(args, returncode, outs[0], outs[1], drops[0], drops[1])

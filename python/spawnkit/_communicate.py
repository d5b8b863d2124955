"""Process.communicate(): write the input, read both pipes to EOF, wait.
The pipes are a Process's the caller drives, which the library's
spawnkit_run() does not serve; the pump is _pump.Pump's, uncapped."""
from __future__ import annotations

import subprocess
import time
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from ._pump import Capture, Pump
from ._results import _decode, _encode_input

if TYPE_CHECKING:
    from ._process import Process

__all__ = ["communicate"]


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

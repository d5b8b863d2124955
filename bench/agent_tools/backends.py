"""How a tool call is started: one small adapter per backend.

Every adapter exposes the same blocking call, run(argv, cwd) ->
(returncode, stdout, stderr), made exactly as a user of that API makes it
today; the harness around it (agent runtime, thread pool, verification) is
identical for all of them, so the only thing that differs between columns of
the table is the call itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Callable, Sequence

RunFn = Callable[[Sequence[str], str], "tuple[int, bytes, bytes]"]

# The name the table uses for each backend, in column order.
ALL = ("subprocess", "spawnkit-user", "spawnkit-kernel", "spawnkit-warm")


def _subprocess_run(argv: Sequence[str], cwd: str) -> tuple[int, bytes, bytes]:
    # What agent runtimes write today: capture both streams, bytes out.
    r = subprocess.run(argv, cwd=cwd, capture_output=True)
    return r.returncode, r.stdout, r.stderr


def _spawnkit_runner(kind: str, warm: bool = False) -> RunFn:
    # libspawnkit reads SPAWNKIT_BACKEND when it makes a template, so it is
    # set before the first call; templates are then cached per executable by
    # spawnkit.run itself (one per tool in this mix).
    os.environ["SPAWNKIT_BACKEND"] = kind
    import spawnkit

    def run(argv: Sequence[str], cwd: str) -> tuple[int, bytes, bytes]:
        r = spawnkit.run(argv, cwd=cwd, capture_output=True, warm=warm)
        return r.returncode, r.stdout, r.stderr

    return run


def make_runner(name: str) -> RunFn:
    """The run function of backend `name` (called in the worker process)."""
    if name == "subprocess":
        return _subprocess_run
    if name == "spawnkit-user":
        return _spawnkit_runner("user")
    if name == "spawnkit-kernel":
        return _spawnkit_runner("kernel")
    if name == "spawnkit-warm":
        # the user backend, and python-small from a warm interpreter
        # (docs/warm.md); every other tool of the mix runs as spawnkit-user
        return _spawnkit_runner("user", warm=True)
    raise ValueError(f"unknown backend {name!r} (known: {', '.join(ALL)})")


_PROBE = """
import os, sys
sys.path.insert(0, {here!r})
import backends
run = backends.make_runner({name!r})
rc, out, err = run(["echo", "probe"], "/")
assert (rc, out, err) == (0, b"probe\\n", b""), (rc, out, err)
"""


def kernel_has_templates() -> bool:
    """Whether this kernel has spawn templates: the library's own probe (it
    calls them with arguments only this ABI refuses as it expects; ENOSYS
    or anything else: absent), in a child interpreter as below."""
    r = subprocess.run([sys.executable, "-c",
                        "import spawnkit, sys; sys.exit(0 if spawnkit.kernel_has_spawn_template() else 1)"],
                       capture_output=True, stdin=subprocess.DEVNULL)
    return r.returncode == 0


def unavailable_reason(name: str) -> str | None:
    """None if backend `name` works here, else why not (one line).

    Probed in a child interpreter so the benchmark's own process never
    imports spawnkit or carries its environment setting."""
    if name == "subprocess":
        return None
    if name == "spawnkit-warm":
        try:
            import spawnkit
            if not hasattr(spawnkit, "warm_stats"):
                return "this spawnkit package has no warm templates"
        except ImportError:
            pass                      # the probe below says why
    if name not in ALL:
        return f"unknown backend (known: {', '.join(ALL)})"
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, "-c", _PROBE.format(here=here, name=name)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if r.returncode == 0:
        return None
    lines = [l for l in r.stderr.strip().splitlines() if l.strip()]
    last = lines[-1] if lines else f"probe exited {r.returncode}"
    if "No module named 'spawnkit'" in last:
        return "the spawnkit Python package is not installed (make -C python install, or pip install ./python)"
    if name == "spawnkit-kernel" and ("ENOSYS" in last or "not implemented" in last):
        return "this kernel has no spawn templates (ENOSYS)"
    return f"spawnkit probe failed: {last}"

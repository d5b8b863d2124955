"""run(pty=True, pty_size=(rows, cols)): the child runs on a new pty that is
its controlling terminal (the library's SPAWNKIT_RUN_PTY): /dev/tty opens,
isatty is true, the window has the size asked for, the input is typed
ahead, and the output (stdout and stderr together, as a terminal has one)
comes back as stdout.  Bad values are refused before anything starts."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Type

import pytest

import spawnkit

pytestmark = pytest.mark.native

if not os.path.exists("/dev/ptmx"):
    pytest.skip("no /dev/ptmx here", allow_module_level=True)


def test_child_has_a_controlling_terminal() -> None:
    r = spawnkit.run(["sh", "-c", "test -t 0 && test -t 1 && echo tty; echo via >/dev/tty"],
                     pty=True, timeout=30)
    assert r.returncode == 0
    assert r.stdout == b"tty\r\nvia\r\n"              # ONLCR: a terminal's newlines
    assert r.stderr == b""                            # one output: the terminal's


def test_without_a_pty_there_is_no_terminal_the_control() -> None:
    r = spawnkit.run(["sh", "-c", "test -t 0 || echo notty; echo x >/dev/tty"], timeout=30)
    assert r.stdout == b"notty\n" and r.returncode != 0


def test_window_size() -> None:
    r = spawnkit.run(["stty", "size"], pty=True, pty_size=(30, 100), text=True, timeout=30)
    assert r.stdout == "30 100\n"                     # text mode: \r\n read as \n
    r = spawnkit.run(["stty", "size"], pty=True, text=True, timeout=30)
    assert r.stdout == "24 80\n"


def test_input_is_typed_ahead_and_ended() -> None:
    r = spawnkit.run(["sh", "-c", "read a; echo got:$a"], pty=True, input=b"hello\n",
                     timeout=30)
    assert r.stdout.endswith(b"got:hello\r\n")
    assert b"hello" in r.stdout.split(b"got:")[0]     # echoed as typed


def test_streams_and_marker_work_on_the_pty() -> None:
    got: List[bytes] = []
    r = spawnkit.run(["seq", "1", "20000"], pty=True, on_stdout=got.append,
                     output_limit=20, timeout=60)
    assert b"".join(got).endswith(b"20000\r\n")
    assert r.stdout_dropped > 0 and b"bytes omitted" in r.stdout


BAD: List[Any] = [
    ("pty not a bool", {"pty": 1}, TypeError, "pty"),
    ("pty_size without pty", {"pty_size": (24, 80)}, ValueError, "pty_size"),
    ("pty_size one number", {"pty": True, "pty_size": 24}, TypeError, "pty_size"),
    ("pty_size strings", {"pty": True, "pty_size": ("24", "80")}, TypeError, "pty_size"),
    ("pty_size zero", {"pty": True, "pty_size": (0, 80)}, ValueError, "pty_size"),
    ("pty_size too big", {"pty": True, "pty_size": (24, 70000)}, ValueError, "pty_size"),
    ("pty with stdout", {"pty": True, "stdout": spawnkit.DEVNULL}, ValueError, "pty"),
    ("pty with stdin", {"pty": True, "stdin": spawnkit.DEVNULL}, ValueError, "pty"),
    ("pty without capture", {"pty": True, "capture_output": False}, ValueError, "pty"),
    ("pty without a session", {"pty": True, "new_session": False}, ValueError, "new_session"),
]


@pytest.mark.parametrize("kw,exc,words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_pty_value_is_refused(kw: Dict[str, Any], exc: Type[BaseException],
                                  words: str) -> None:
    with pytest.raises(exc, match=words):
        spawnkit.run(["true"], **kw)

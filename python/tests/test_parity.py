"""Behaviour parity with subprocess.run on a table of cases.

Each case runs under subprocess.run(stdin=DEVNULL, capture_output=True) and
spawnkit.run() with the same arguments; the results must match: stdout,
stderr, returncode, or the exception type, errno and filename.
"""
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import spawnkit

HERE = os.path.dirname(os.path.abspath(__file__))


def script(tmp_path: Path, name: str, body: str, mode: int = 0o755) -> str:
    p = tmp_path / name
    p.write_text(body)
    p.chmod(mode)
    return str(p)


# A case: its name, and how to make (argv, keyword arguments) in a tmp_path.
Case = tuple[str, Callable[[Path], tuple[list[str], dict[str, Any]]]]
CASES: list[Case] = [
    ("echo", lambda t: (["echo", "hello", "world"], {})),
    ("true", lambda t: (["true"], {})),
    ("false", lambda t: (["false"], {})),
    ("exit code", lambda t: (["sh", "-c", "exit 42"], {})),
    ("stderr", lambda t: (["sh", "-c", "echo e1 >&2; echo o1; echo e2 >&2"], {})),
    ("killed by signal", lambda t: (["sh", "-c", "kill -KILL $$"], {})),
    ("sigterm", lambda t: (["sh", "-c", "kill -TERM $$"], {})),
    ("sigpipe", lambda t: (["sh", "-c", "yes | head -n 2; kill -PIPE $$"], {})),
    ("input", lambda t: (["cat"], {"input": b"some input\n"})),
    ("input text", lambda t: (["cat"], {"input": "a\r\nb\rc", "text": True})),
    ("text output", lambda t: (["printf", "x\\r\\ny"], {"text": True})),
    ("encoding", lambda t: (["printf", "\\351"], {"encoding": "latin-1"})),
    ("bad utf-8 strict", lambda t: (["printf", "\\377"], {"text": True})),
    ("bad utf-8 replace", lambda t: (["printf", "\\377"], {"text": True, "errors": "replace"})),
    ("stdin is devnull", lambda t: (["cat"], {})),
    ("env", lambda t: (["env"], {"env": {"ONLY": "this"}})),
    ("env path lookup", lambda t: (["tool"], {"env": {"PATH": os.path.dirname(
        script(t, "tool", "#!/bin/sh\necho tool ran\n"))}})),
    ("cwd", lambda t: (["pwd"], {"cwd": str(t)})),
    ("relative program with cwd", lambda t: (
        ["./rel"], {"cwd": os.path.dirname(script(t, "rel", "#!/bin/sh\necho rel\n"))})),
    ("executable", lambda t: (["argv0-name", "-c", "echo run"], {"executable": "/bin/sh"})),
    ("check ok", lambda t: (["true"], {"check": True})),
    ("check fails", lambda t: (["sh", "-c", "echo o; echo e >&2; exit 3"], {"check": True})),
    ("missing program", lambda t: (["no-such-program-spawnkit"], {})),
    ("missing absolute", lambda t: (["/nonexistent/x"], {})),
    ("missing relative", lambda t: (["./nonexistent"], {})),
    ("directory", lambda t: ([str(t)], {})),
    ("not executable", lambda t: ([script(t, "noexec", "#!/bin/sh\n", 0o644)], {})),
    ("exec format", lambda t: ([script(t, "garbage", "\x7fELFnot really")], {})),
    ("missing cwd", lambda t: (["true"], {"cwd": str(t / "missing")})),
    ("cwd is a file", lambda t: (["true"], {"cwd": script(t, "f", "x", 0o644)})),
    ("bad env name", lambda t: (["true"], {"env": {"A=B": "1"}})),
    ("nul in argv", lambda t: (["echo", "a\0b"], {})),
    ("empty argv", lambda t: ([], {})),
    ("large output", lambda t: (["seq", "1", "200000"], {})),
    ("stderr to stdout", lambda t: (["sh", "-c", "echo a; echo b >&2"], {"stderr": subprocess.STDOUT})),
    ("timeout", lambda t: (["sleep", "5"], {"timeout": 0.2})),
]


def outcome(fn: Callable[..., Any], argv: list[str], kw: dict[str, Any]) -> tuple[object, ...]:
    try:
        r = fn(argv, **kw)
    except subprocess.TimeoutExpired as e:
        return ("TimeoutExpired", e.cmd, e.timeout)
    except subprocess.CalledProcessError as e:
        return ("CalledProcessError", e.returncode, e.cmd, e.output, e.stderr)
    except OSError as e:
        return (type(e).__name__, e.errno, e.filename)
    except IndexError:                  # subprocess's answer to an empty argv
        return ("IndexError",)
    except (ValueError, TypeError) as e:
        return (type(e).__name__, str(e))
    return ("ok", r.returncode, r.stdout, r.stderr)


@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_same_as_subprocess(tmp_path: Path, name: str,
                            make: Callable[[Path], tuple[list[str], dict[str, Any]]]) -> None:
    argv, kw = make(tmp_path)
    sub_kw = dict(kw, capture_output=True)
    if "input" not in sub_kw:
        sub_kw["stdin"] = subprocess.DEVNULL
    if sub_kw.get("stderr") is subprocess.STDOUT:
        sub_kw.pop("capture_output")
        sub_kw["stdout"] = subprocess.PIPE
    expected = outcome(subprocess.run, argv, sub_kw)
    got = outcome(spawnkit.run, argv, kw)
    assert got == expected


def test_empty_argv_is_both_valueerror_and_indexerror() -> None:
    with pytest.raises(IndexError):
        subprocess.run([])
    with pytest.raises(IndexError):
        spawnkit.run([])
    with pytest.raises(ValueError):
        spawnkit.run([])

"""The calls docs/python.md shows, as a program that runs and type-checks.

    python examples/tool_calls.py [DIR]

Runs a few tool calls the way an agent runtime makes them, over DIR
(default: this directory): one bounded call, the subprocess-style errors,
a Popen-style pipe, many calls on one asyncio loop, and an explicit
template.  `make -C python test` type-checks it (mypy --strict) and
tests/test_examples.py runs it.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import List

import spawnkit
from spawnkit import aio


def one_call(root: str) -> int:
    """One tool call as an agent makes it: bounded time and output."""
    r = spawnkit.run(["ls", "-1", root], timeout=30, output_limit=256 * 1024)
    print("ls:", r.returncode, len(r.stdout.splitlines()), "names,",
          r.stdout_dropped, "bytes dropped")
    return r.returncode


def errors(root: str) -> List[str]:
    """subprocess-style errors, each caught by the class subprocess raises."""
    seen = []
    try:
        spawnkit.run(["spawnkit-no-such-tool"], cwd=root)
    except FileNotFoundError:
        seen.append("FileNotFoundError")
    try:
        spawnkit.run(["sh", "-c", "exit 3"], check=True, timeout=10)
    except subprocess.CalledProcessError as e:
        seen.append(f"CalledProcessError({e.returncode})")
    try:
        spawnkit.run(["sleep", "10"], timeout=0.2)
    except subprocess.TimeoutExpired:
        seen.append("TimeoutExpired")
    try:
        spawnkit.run(["sleep", "10"], no_output_timeout=0.2)
    except spawnkit.NoOutputTimeoutExpired:
        seen.append("NoOutputTimeoutExpired")
    print("errors:", ", ".join(seen))
    return seen


def popen_style() -> bytes:
    with spawnkit.spawn(["sort"], stdin=spawnkit.PIPE, stdout=spawnkit.PIPE) as p:
        out, _ = p.communicate(b"b\na\n")
    print("sort:", out)
    return bytes(out)


async def many(files: List[str]) -> List[int]:
    """Many calls on one asyncio loop."""
    results = await asyncio.gather(*(aio.run(["wc", "-c", f]) for f in files))
    return [r.returncode for r in results]


def explicit_template() -> bytes:
    """An explicit template: ESTALE is then the caller's to handle."""
    with spawnkit.Template(sys.executable) as t:
        p = t.spawn([sys.executable, "-c", "print(1)"], stdout=spawnkit.PIPE)
        out, _ = p.communicate()
    return bytes(out)


def main(argv: List[str]) -> int:
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    files = [os.path.join(root, n) for n in sorted(os.listdir(root))
             if os.path.isfile(os.path.join(root, n))]
    ok = one_call(root) == 0
    ok &= len(errors(root)) == 4
    ok &= popen_style() == b"a\nb\n"
    ok &= asyncio.run(many(files)) == [0] * len(files)
    ok &= explicit_template() == b"1\n"
    print("all as expected" if ok else "something differed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Streaming a tool's output on asyncio, as python/README.md shows it.

    python examples/aio_streaming.py

A build-like command streamed line by line as it runs (text mode: each
chunk is str, tagged with the fd it came from), a consumer that stops early
(the tool's whole tree is killed and reaped), and an interactive child
driven through aio.Process's asyncio streams.  `make -C python test`
type-checks it (mypy --strict: the chunk types follow `text`) and
tests/test_examples.py runs it.
"""
from __future__ import annotations

import asyncio
import os
from typing import AsyncGenerator, List

from spawnkit import PIPE, aio

BUILD = "for i in 1 2 3; do echo step $i; sleep 0.05; done; echo warning >&2"


async def show_progress() -> List[str]:
    lines: List[str] = []
    async for chunk in aio.stream(["sh", "-c", BUILD], text=True, timeout=60):
        text: str = chunk.data                 # str: text=True
        where = "err" if chunk.fd == 2 else "out"
        for line in text.splitlines():
            print(f"[{where}] {line}")
            lines.append(line)
    return lines


async def stop_early() -> bool:
    """Read until the first match, then stop: the rest of the tree goes."""
    agen: AsyncGenerator[aio.Chunk[bytes], None] = aio.stream(
        ["sh", "-c", "sleep 60 & echo $!; yes found"])
    try:
        first = await agen.__anext__()         # bytes: no text option
        pid = int(first.data.split()[0])
        async for chunk in agen:
            if b"found" in chunk.data:
                break
    finally:
        await agen.aclose()                    # kills and reaps the tree now
    for _ in range(200):                       # a SIGKILLed process dies promptly
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return True                    # a zombie of init's: dead
        await asyncio.sleep(0.01)
    return False


async def interactive() -> bytes:
    p = await aio.spawn(["cat"], stdin=PIPE, stdout=PIPE)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(b"ping\n")
    await p.stdin.drain()
    reply = await p.stdout.readline()
    p.stdin.close()
    await p.wait()
    return reply


async def main() -> None:
    lines = await show_progress()
    assert lines[:3] == ["step 1", "step 2", "step 3"] and "warning" in lines
    assert await stop_early()
    assert await interactive() == b"ping\n"
    print("all as expected")


if __name__ == "__main__":
    asyncio.run(main())

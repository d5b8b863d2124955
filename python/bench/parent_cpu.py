"""Parent-side cost per call: spawnkit vs subprocess and asyncio.

    python3 python/bench/parent_cpu.py [--calls 300] [--reps 5] [--inflight 16]

For each method, N calls of `echo <i>` run with captured output (sync: one
after another; async: at most --inflight at once on one loop, 0 = all).  Methods are interleaved
in every repetition; every call's output is checked.  Printed per call: this
process's CPU time (user+sys, getrusage(RUSAGE_SELF): what the library and
the interpreter cost, children excluded) and wall time, as min / median /
max over the repetitions.  Wall time depends on the host's load; CPU time
much less.  The agent-tools benchmark (make bench) is the real measurement.
"""
import argparse
import asyncio
import platform
import resource
import statistics
import subprocess
import sys
import time
from typing import Awaitable, Callable, Dict, List, Tuple

import spawnkit
from spawnkit import aio


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def expect(i: int) -> bytes:
    return b"%d\n" % i


def sync_subprocess(n: int) -> None:
    for i in range(n):
        r = subprocess.run(["echo", str(i)], capture_output=True, stdin=subprocess.DEVNULL)
        assert r.returncode == 0 and r.stdout == expect(i)


def sync_spawnkit(n: int) -> None:
    for i in range(n):
        r = spawnkit.run(["echo", str(i)])
        assert r.returncode == 0 and r.stdout == expect(i)


async def _asyncio_one(i: int) -> None:
    p = await asyncio.create_subprocess_exec(
        "echo", str(i), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, _ = await p.communicate()
    assert p.returncode == 0 and out == expect(i)


async def _aio_one(i: int) -> None:
    r = await aio.run(["echo", str(i)])
    assert r.returncode == 0 and r.stdout == expect(i)


INFLIGHT = 16


def _gather(one: Callable[[int], Awaitable[None]], n: int) -> None:
    async def main() -> None:
        sem = asyncio.Semaphore(INFLIGHT or n)

        async def limited(i: int) -> None:
            async with sem:
                await one(i)
        await asyncio.gather(*(limited(i) for i in range(n)))
    asyncio.run(main())


def async_asyncio(n: int) -> None:
    _gather(_asyncio_one, n)


def async_spawnkit(n: int) -> None:
    _gather(_aio_one, n)


METHODS = [sync_subprocess, sync_spawnkit, async_asyncio, async_spawnkit]


def main() -> None:
    global INFLIGHT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--inflight", type=int, default=INFLIGHT)
    a = ap.parse_args()
    INFLIGHT = a.inflight
    res: Dict[str, Tuple[List[float], List[float]]] = {m.__name__: ([], []) for m in METHODS}
    for _ in range(a.reps):
        for m in METHODS:
            c0, t0 = cpu(), time.perf_counter()
            m(a.calls)
            res[m.__name__][0].append((cpu() - c0) / a.calls * 1e6)
            res[m.__name__][1].append((time.perf_counter() - t0) / a.calls * 1e6)
    print(f"python {platform.python_version()} ({sys.executable}), spawnkit backend "
          f"{spawnkit.backend()}, {a.calls} calls x {a.reps} reps, async in flight "
          f"{a.inflight or a.calls}, per call in us")
    print(f"{'method':16s} {'parent CPU min/med/max':>26s} {'wall min/med/max':>24s}")
    for name, (c, w) in res.items():
        print(f"{name:16s} {min(c):8.0f} {statistics.median(c):8.0f} {max(c):8.0f} "
              f"{min(w):7.0f} {statistics.median(w):7.0f} {max(w):7.0f}")


if __name__ == "__main__":
    main()

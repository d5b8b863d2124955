"""spawnkit.aio: pidfd-driven run/spawn on asyncio, hundreds at once."""
import asyncio
import resource
import signal
import subprocess
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

import spawnkit
from spawnkit import PIPE, NoOutputTimeoutExpired, aio
from conftest import arun, wait_dead


def test_run_basic() -> None:
    r = arun(aio.run(["sh", "-c", "echo out; echo err >&2; exit 2"]))
    assert (r.returncode, r.stdout, r.stderr) == (2, b"out\n", b"err\n")


def test_run_input_text_check() -> None:
    r = arun(aio.run(["cat"], input="x\r\ny", text=True))
    assert r.stdout == "x\ny"
    with pytest.raises(subprocess.CalledProcessError) as ei:
        arun(aio.run(["sh", "-c", "exit 4"], check=True))
    assert ei.value.returncode == 4


def test_run_large_input() -> None:
    # 2 MiB in and out: no deadlock between the feed and the pump, and
    # with output_limit=None every byte comes back
    data = b"z" * (2 << 20)
    assert arun(aio.run(["cat"], input=data, output_limit=None)).stdout == data


def test_run_missing_program() -> None:
    with pytest.raises(FileNotFoundError):
        arun(aio.run(["no-such-program-spawnkit"]))


def test_run_timeout_kills_tree() -> None:
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        arun(aio.run(["sh", "-c", "sleep 100 & echo $!; sleep 100 & echo $!; wait"], timeout=0.5))
    pids = [int(x) for x in ei.value.output.split()]
    assert len(pids) == 2 and wait_dead(pids)


def test_run_timeout_with_orphan_holding_pipe() -> None:
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        arun(aio.run(["sh", "-c", "sh -c 'echo $$; exec sleep 100' &"], timeout=0.5))
    pids = [int(x) for x in ei.value.output.split()]
    assert len(pids) == 1 and wait_dead(pids)


def test_run_no_output_timeout_and_limit() -> None:
    with pytest.raises(NoOutputTimeoutExpired) as ei:
        arun(aio.run(["sh", "-c", "echo a; sleep 100"], no_output_timeout=0.3))
    assert ei.value.output == b"a\n"
    r = arun(aio.run(["seq", "1", "100000"], output_limit=10))
    assert r.stdout == b"1\n2\n3" + b"0000\n" and r.stdout_dropped > 0


def test_run_timeout_after_pipes_closed() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        arun(aio.run(["sh", "-c", "exec >/dev/null 2>&1; sleep 100"], timeout=0.3))


def test_cancel_kills_the_tree(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    async def main() -> None:
        task = asyncio.ensure_future(
            aio.run(["sh", "-c", f"sleep 100 & echo $! > {pidfile}; sleep 100"]))
        while not pidfile.exists() or not pidfile.read_text().strip():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    arun(main())
    assert wait_dead([int(pidfile.read_text())])


def test_500_concurrent_calls_no_threads_no_sigchld() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 4096
    if soft < need:                       # 3 fds per call in flight
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    threads_seen: list[int] = []

    async def main() -> list[spawnkit.CompletedProcess[Any]]:
        async def watch() -> None:
            while True:
                threads_seen.append(threading.active_count())
                await asyncio.sleep(0.01)
        w = asyncio.ensure_future(watch())
        rs = await asyncio.gather(*[aio.run(["echo", str(i)]) for i in range(500)])
        w.cancel()
        return rs

    try:
        rs = arun(main())
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert [r.stdout for r in rs] == [b"%d\n" % i for i in range(500)]
    assert all(r.returncode == 0 for r in rs)
    assert max(threads_seen) == 1               # no thread per child
    assert signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL


def test_concurrent_mixed_outcomes() -> None:
    async def main() -> list[spawnkit.CompletedProcess[Any] | BaseException]:
        calls: list[Coroutine[Any, Any, spawnkit.CompletedProcess[Any]]] = []
        for i in range(60):
            if i % 3 == 0:
                calls.append(aio.run(["sh", "-c", f"exit {i % 7}"]))
            elif i % 3 == 1:
                calls.append(aio.run(["sh", "-c", "sleep 100"], timeout=0.2))
            else:
                calls.append(aio.run(["cat"], input=b"%d" % i))
        return await asyncio.gather(*calls, return_exceptions=True)
    rs = arun(main())
    for i, r in enumerate(rs):
        if i % 3 == 0:
            assert isinstance(r, spawnkit.CompletedProcess) and r.returncode == i % 7
        elif i % 3 == 1:
            assert isinstance(r, subprocess.TimeoutExpired)
        else:
            assert isinstance(r, spawnkit.CompletedProcess) and r.stdout == b"%d" % i


@pytest.mark.native  # a pidfd
def test_spawn_wait_and_communicate() -> None:
    async def main() -> None:
        p = await aio.spawn(["sh", "-c", "cat; echo done >&2"], stdin=PIPE, stdout=PIPE, stderr=PIPE)
        assert p.pid > 0 and p.pidfd is not None and p.stdout_fd is not None
        out, err = await p.communicate(b"in")
        assert (out, err, p.returncode) == (b"in", b"done\n", 0)
        p.close()

        p = await aio.spawn(["sleep", "10"])
        with pytest.raises(subprocess.TimeoutExpired):
            await p.wait(timeout=0.05)
        assert p.poll() is None
        p.terminate()
        assert await p.wait() == -signal.SIGTERM
        assert await p.wait() == -signal.SIGTERM

        p = await aio.spawn(["sh", "-c", "echo x; sleep 0.3; echo y"], stdout=PIPE, text=True)
        with pytest.raises(subprocess.TimeoutExpired):
            await p.communicate(timeout=0.05)
        assert await p.communicate() == ("x\ny\n", None)
        p.close()

        p = await aio.spawn(["sh", "-c", "sleep 100 & echo $!; wait"], stdout=PIPE)
        await asyncio.sleep(0.1)
        assert p.kill_tree() >= 1
        assert await p.wait() == -signal.SIGKILL
        p.close()
        p.kill()                                   # after the end: harmless
        assert "returncode=-9" in repr(p)
    arun(main())


def test_many_waits_share_one_loop() -> None:
    async def main() -> None:
        ps = [await aio.spawn(["sh", "-c", f"sleep 0.{i % 5}; exit {i % 5}"]) for i in range(100)]
        codes = await asyncio.gather(*[p.wait() for p in ps])
        assert codes == [i % 5 for i in range(100)]
    arun(main())

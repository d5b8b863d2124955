"""aio.stream(): output chunks tagged with their fd, decoded incrementally,
and a tree that is always killed and reaped, whatever the consumer does."""
import asyncio
import os
import signal
import subprocess
import time
from typing import Any, Dict, List, Tuple, Type

import pytest

import spawnkit
from spawnkit import DEVNULL, PIPE, STDOUT, NoOutputTimeoutExpired, aio
from spawnkit.aio import Chunk
from conftest import children_of, is_dead, wait_dead


def arun(coro):
    return asyncio.run(coro)


def fds():
    """Our open fds, without the executables' fds the template cache keeps."""
    cached = {str(t.fd) for t in list(spawnkit.template_cache._map.values()) if not t.closed}
    return sorted(set(os.listdir("/proc/self/fd")) - cached, key=int)


async def collect(agen):
    return [c async for c in agen]


async def adead(pids, timeout=5.0):
    """wait_dead() that lets the loop run (an aclose task may be pending)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(is_dead(p) for p in pids):
            return True
        await asyncio.sleep(0.01)
    return all(is_dead(p) for p in pids)


def test_fd_tags_and_order_follow_the_child():
    # The child writes its next line only after the test has seen the last
    # one (it reads a line from a pipe of ours first): the order is the
    # child's, and each chunk carries the fd it came from.
    script = "echo o1; read x; echo e1 >&2; read x; echo o2; read x; echo e2 >&2"
    r, w = os.pipe()

    async def main():
        got = []
        try:
            async for chunk in aio.stream(["sh", "-c", script], stdin=r):
                got.append(chunk)
                os.write(w, b"\n")
        finally:
            os.close(r)
            os.close(w)
        return got
    assert arun(main()) == [Chunk(1, b"o1\n"), Chunk(2, b"e1\n"),
                            Chunk(1, b"o2\n"), Chunk(2, b"e2\n")]


def test_merged_stderr_and_single_stream():
    async def main():
        merged = await collect(aio.stream(["sh", "-c", "echo a; echo b >&2"], stderr=STDOUT))
        only_err = await collect(aio.stream(["sh", "-c", "echo a; echo b >&2"],
                                            stdout=DEVNULL))
        return merged, only_err
    merged, only_err = arun(main())
    assert {c.fd for c in merged} == {1}
    assert b"".join(c.data for c in merged) == b"a\nb\n"
    assert only_err == [Chunk(2, b"b\n")]


def test_text_decoding_never_splits_a_character():
    text = "héllo € 𝄞 ok\r\nnext\rlast\r\n"
    data = text.encode()

    async def main():
        # one byte per read: every multi-byte character and "\r\n" is split
        small = await collect(aio.stream(["cat"], input=data, chunk_size=1, text=True,
                                         encoding="utf-8"))
        raw = await collect(aio.stream(["cat"], input=data, chunk_size=1))
        return small, raw
    small, raw = arun(main())
    assert "".join(c.data for c in small) == "héllo € 𝄞 ok\nnext\nlast\n"
    assert all(isinstance(c.data, str) and c.data and "\ufffd" not in c.data for c in small)
    assert "€" in [c.data for c in small] and "𝄞" in [c.data for c in small]
    assert len(raw) == len(data) and b"".join(c.data for c in raw) == data


def test_text_character_split_between_two_writes():
    # The two writes are separate reads: the first byte of "€" alone gives
    # nothing yet, the rest completes it.
    async def main():
        return await collect(aio.stream(
            ["sh", "-c", r"printf '\342'; sleep 0.2; printf '\202\254\n'"], text=True,
            encoding="utf-8"))
    assert arun(main()) == [Chunk(1, "€\n")]


def test_text_truncated_character_at_eof_is_an_error_under_strict():
    async def main():
        return await collect(aio.stream(["printf", r"ok\342"], text=True, encoding="utf-8"))
    with pytest.raises(UnicodeDecodeError):
        arun(main())


def test_early_break_kills_the_tree():
    async def main():
        before = fds()
        chunks = []
        async for chunk in aio.stream(["sh", "-c", "sleep 100 & echo $$ $!; sleep 100"]):
            chunks.append(chunk)
            break
        pids = [int(x) for x in chunks[0].data.split()]
        # the loop closes the abandoned iterator on its next turns
        assert await adead(pids)
        for _ in range(100):
            if fds() == before and not children_of(os.getpid()):
                break
            await asyncio.sleep(0.01)
        assert fds() == before
        assert children_of(os.getpid()) == []         # the child was reaped
    arun(main())


def test_aclose_kills_and_reaps_at_once():
    async def main():
        before = fds()
        agen = aio.stream(["sh", "-c", "sleep 100 & echo $$ $!; sleep 100"])
        first = await agen.__anext__()
        await agen.aclose()
        pids = [int(x) for x in first.data.split()]
        assert is_dead(pids[0])                        # reaped before aclose returned
        assert children_of(os.getpid()) == []
        assert fds() == before
        return pids
    assert wait_dead(arun(main()))


def test_cancelled_consumer_kills_the_tree():
    async def main():
        seen = asyncio.get_running_loop().create_future()

        async def consume():
            async for chunk in aio.stream(["sh", "-c", "sleep 100 & echo $$ $!; sleep 100"]):
                seen.set_result(chunk)
        task = asyncio.ensure_future(consume())
        chunk = await seen
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return [int(x) for x in chunk.data.split()]
    assert wait_dead(arun(main()))


def test_timeout_kills_the_tree_after_the_output_so_far():
    got = []

    async def main():
        async for chunk in aio.stream(["sh", "-c", "sleep 100 & echo $$ $!; wait"],
                                      timeout=0.5):
            got.append(chunk)
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        arun(main())
    assert time.monotonic() - t0 < 10
    assert not isinstance(ei.value, NoOutputTimeoutExpired) and ei.value.timeout == 0.5
    assert len(got) == 1 and wait_dead([int(x) for x in got[0].data.split()])


def test_no_output_timeout():
    async def quiet():
        return await collect(aio.stream(["sh", "-c", "echo a; exec sleep 100"],
                                        no_output_timeout=0.3))
    with pytest.raises(NoOutputTimeoutExpired):
        arun(quiet())

    async def chatty():   # output every 0.1 s: never 1 s without any
        return await collect(aio.stream(
            ["sh", "-c", "for i in 1 2 3 4 5 6; do echo $i; sleep 0.1; done"],
            no_output_timeout=1))
    assert b"".join(c.data for c in arun(chatty())) == b"1\n2\n3\n4\n5\n6\n"


def test_check_raises_after_the_output():
    got = []

    async def main():
        async for chunk in aio.stream(["sh", "-c", "echo out; exit 3"], check=True):
            got.append(chunk)
    with pytest.raises(subprocess.CalledProcessError) as ei:
        arun(main())
    assert ei.value.returncode == 3 and got == [Chunk(1, b"out\n")]
    # without check a failing child just ends the iteration
    assert arun(collect(aio.stream(["sh", "-c", "exit 3"]))) == []


async def background_job(new_session):
    chunks = await collect(aio.stream(["sh", "-c", "sleep 100 >/dev/null 2>&1 & echo $!"],
                                      new_session=new_session))
    return int(chunks[0].data)


def test_background_job_dies_with_the_session():
    assert wait_dead([arun(background_job(True))])


@pytest.mark.native  # the fallback's children always have a session of their own
def test_background_job_outlives_the_call_without_a_session():
    bg = arun(background_job(False))
    try:
        assert not is_dead(bg) and os.getsid(bg) == os.getsid(0)
    finally:
        os.kill(bg, signal.SIGKILL)


def test_wait_delay_ends_a_call_a_background_job_holds_open():
    async def main():
        t0 = time.monotonic()
        chunks = await collect(aio.stream(["sh", "-c", "sleep 100 & echo $!; exit 4"],
                                          wait_delay=0.2, timeout=30))
        return chunks, time.monotonic() - t0
    chunks, took = arun(main())
    assert took < 10                                   # not the timeout
    assert wait_dead([int(chunks[0].data)])


def test_1mib_stdin_100mb_output_bounded_memory():
    data = os.urandom(1 << 20)

    def rss(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
        raise AssertionError(field)

    async def main():
        n = 0
        first = b""
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")                               # reset the peak (VmHWM)
        base = rss("VmRSS:")
        async for chunk in aio.stream(["sh", "-c", "cat; head -c 100000000 /dev/zero"],
                                      input=data, timeout=120):
            if len(first) < len(data):
                first += chunk.data
            n += len(chunk.data)
        return n, first, rss("VmHWM:") - base
    n, first, grown = arun(main())
    assert n == len(data) + 100_000_000 and first[:len(data)] == data
    assert grown < 48 << 20, f"peak RSS grew by {grown >> 20} MiB"


BAD: List[Tuple[Dict[str, Any], Type[Exception], str]] = [
    (dict(timeout="1"), TypeError, "timeout"),
    (dict(timeout=float("nan")), TypeError, "timeout"),
    (dict(no_output_timeout=0), ValueError, "no_output_timeout"),
    (dict(wait_delay=-1), ValueError, "wait_delay"),
    (dict(kill_grace=-0.5), ValueError, "kill_grace"),
    (dict(chunk_size=0), ValueError, "chunk_size"),
    (dict(chunk_size=True), ValueError, "chunk_size"),
    (dict(input=b"x", stdin=DEVNULL), ValueError, "stdin and input"),
    (dict(stdout=STDOUT), ValueError, "STDOUT"),
    (dict(stdout=DEVNULL, stderr=DEVNULL), ValueError, "PIPE"),
    (dict(input="text without text=True"), TypeError, "input"),
    (dict(text=True, encoding="no-such-codec"), LookupError, "no-such-codec"),
    (dict(new_session="yes"), TypeError, "new_session"),
    (dict(tiemout=1), TypeError, "unexpected keyword argument 'tiemout'"),
]


@pytest.mark.parametrize("kw,exc,match", BAD, ids=[",".join(k) for k, _, _ in BAD])
def test_bad_options_raise_before_anything_starts(kw, exc, match):
    with pytest.raises(exc, match=match):
        aio.stream(["true"], **kw)
    assert children_of(os.getpid()) == []


def test_missing_program_raises_at_first_iteration():
    agen = aio.stream(["no-such-program-spawnkit"])
    with pytest.raises(FileNotFoundError):
        arun(collect(agen))


def test_no_fd_leak_and_no_zombie_on_every_ending():
    async def main():
        before = fds()
        await collect(aio.stream(["sh", "-c", "echo a; echo b >&2"], input=b"in"))
        with pytest.raises(subprocess.TimeoutExpired):
            await collect(aio.stream(["sleep", "100"], timeout=0.1))
        with pytest.raises(subprocess.CalledProcessError):
            await collect(aio.stream(["false"], check=True))
        agen = aio.stream(["yes"])
        await agen.__anext__()
        await agen.aclose()
        assert fds() == before
        assert children_of(os.getpid()) == []
    arun(main())

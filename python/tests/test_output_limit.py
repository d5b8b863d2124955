"""output_limit: the library's capture behind run() (spawnkit_run(3)) and
the Python Capture of aio.run() and the fallback (spawnkit/_pump.py) must
keep the same bytes.  Each case runs through both and is compared with
kept_ref(), the rule written out.  run() is called with
truncation_marker=False where its stdout is compared byte for byte (the
marker is tested in test_run_truncation.py)."""
import asyncio
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import pytest

import spawnkit
from spawnkit import aio
from spawnkit._pump import Capture


def kept_ref(data: bytes, limit: Optional[int]) -> tuple[bytes, int]:
    """(kept bytes, dropped): the first (limit+1)//2 bytes and the last
    limit//2 of the rest; everything when limit is None."""
    if limit is None:
        return data, 0
    head = data[:(limit + 1) // 2]
    rest = data[len(head):]
    tail = rest[max(0, len(rest) - limit // 2):] if limit // 2 else b""
    return head + tail, len(data) - len(head) - len(tail)


def test_kept_ref_itself() -> None:
    assert kept_ref(b"abcdefghij", None) == (b"abcdefghij", 0)
    assert kept_ref(b"abcdefghij", 0) == (b"", 10)
    assert kept_ref(b"abcdefghij", 1) == (b"a", 9)
    assert kept_ref(b"abcdefghij", 4) == (b"abij", 6)
    assert kept_ref(b"abcdefghij", 5) == (b"abcij", 5)
    assert kept_ref(b"abcdefghij", 9) == (b"abcdeghij", 1)
    assert kept_ref(b"abcdefghij", 10) == (b"abcdefghij", 0)
    assert kept_ref(b"abcdefghij", 11) == (b"abcdefghij", 0)
    assert kept_ref(b"abc", 5) == (b"abc", 0)


def limits_for(n: int) -> list[Optional[int]]:
    base = [None, 0, 1, 2, 3, 7, n - 1, n, n + 1, 2 * n + 1]
    if n > 200_000:
        base += [65535, 65536, 65537, 131073, 200001]
    return sorted({x for x in base if x is None or x >= 0}, key=lambda x: -1 if x is None else x)


SIZES = [0, 1, 5, 1000, 300_000]
CASES = [(n, lim) for n in SIZES for lim in limits_for(n)]


@pytest.fixture(scope="module")
def data_files(tmp_path_factory: pytest.TempPathFactory
               ) -> dict[int, tuple[Path, bytes, bytes]]:
    d = tmp_path_factory.mktemp("limits")
    files: dict[int, tuple[Path, bytes, bytes]] = {}
    for n in SIZES:
        out, err = os.urandom(n), os.urandom(n)
        (d / f"out{n}").write_bytes(out)
        (d / f"err{n}").write_bytes(err)
        files[n] = (d, out, err)
    return files


def outcome(r: spawnkit.CompletedProcess[Any]) -> tuple[object, ...]:
    return (r.returncode, r.stdout, r.stderr, r.stdout_dropped, r.stderr_dropped)


@pytest.mark.parametrize("n,limit", CASES, ids=[f"{n}-{lim}" for n, lim in CASES])
def test_run_and_aio_run_keep_the_same_bytes(
        data_files: dict[int, tuple[Path, bytes, bytes]], n: int,
        limit: Optional[int]) -> None:
    d, out, err = data_files[n]
    # writes of 1000 bytes on stdout and of 70000 (> one read) on stderr, at once
    argv = ["sh", "-c", f"dd if=out{n} bs=1000 status=none & "
                        f"dd if=err{n} bs=70000 status=none >&2; wait"]
    r_c = spawnkit.run(argv, cwd=d, output_limit=limit, timeout=60, truncation_marker=False)
    r_py = asyncio.run(aio.run(argv, cwd=d, output_limit=limit, timeout=60))
    (ko, do), (ke, de) = kept_ref(out, limit), kept_ref(err, limit)
    assert outcome(r_c) == (0, ko, ke, do, de)
    assert outcome(r_py) == outcome(r_c)
    assert r_c.truncated == bool(do or de)
    assert r_c.stdout_head is not None and r_c.stdout_tail is not None
    assert r_c.stderr_head is not None and r_c.stderr_tail is not None
    assert r_c.stdout_head + r_c.stdout_tail == ko
    assert r_c.stderr_head + r_c.stderr_tail == ke


@pytest.mark.parametrize("limit", [0, 1, 10, 11, 1 << 20])
def test_same_bytes_on_timeout(limit: int) -> None:
    argv = ["sh", "-c", "seq 1 100000; seq 1 5000 >&2; sleep 100"]
    got: list[tuple[object, object]] = []
    for call in (lambda: spawnkit.run(argv, output_limit=limit, timeout=1,
                                      truncation_marker=False),
                 lambda: asyncio.run(aio.run(argv, output_limit=limit, timeout=1))):
        with pytest.raises(subprocess.TimeoutExpired) as ei:
            call()
        got.append((ei.value.output, ei.value.stderr))
    want_out = kept_ref(b"".join(b"%d\n" % i for i in range(1, 100001)), limit)[0]
    want_err = kept_ref(b"".join(b"%d\n" % i for i in range(1, 5001)), limit)[0]
    assert got[0] == got[1] == (want_out, want_err)


def text_outcome(call: Callable[[], spawnkit.CompletedProcess[str]]
                 ) -> object:
    try:
        r = call()
    except UnicodeDecodeError:
        return "UnicodeDecodeError"
    return r.stdout, r.stdout_dropped


@pytest.mark.parametrize("limit", [None, 0, 3, 4, 5, 100])
def test_same_text_in_text_mode(limit: Optional[int]) -> None:
    argv = ["sh", "-c", "printf 'h\\351llo w\\303\\266rld\\r\\nend'"]
    got_c = text_outcome(lambda: spawnkit.run(argv, output_limit=limit, encoding="utf-8",
                                              truncation_marker=False))
    got_py = text_outcome(lambda: asyncio.run(aio.run(argv, output_limit=limit,
                                                      encoding="utf-8")))
    kept, dropped = kept_ref(b"h\xe9llo w\xc3\xb6rld\r\nend", limit)
    if dropped:       # a cut may split a character: decoded with "replace"
        want: object = (kept.decode("utf-8", "replace").replace("\r\n", "\n"), dropped)
    else:             # whole: strict, as subprocess (\351 is not UTF-8)
        want = "UnicodeDecodeError"
    assert got_c == got_py == want


# Chunk sequences fed to the Python capture as given.
CHUNKINGS = [[], [1], [5], [3, 3, 3], [1] * 13, [4, 20], [11], [12], [2, 9, 1],
             [6, 1, 6], [70000, 70000, 3], [65536, 1], [200000]]
LIMITS = [None, 0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 25, 100, 65535, 65537, 131073]


@pytest.mark.parametrize("chunks", CHUNKINGS, ids=[f"{len(c)}x{sum(c)}" for c in CHUNKINGS])
def test_python_capture_chunk_by_chunk_keeps_the_rule(chunks: list[int]) -> None:
    payload = os.urandom(sum(chunks))
    for limit in LIMITS:
        cap = Capture(limit)
        at = 0
        for c in chunks:
            cap.feed(payload[at:at + c])
            at += c
        head, tail, dropped = cap.parts()
        assert cap.value() == (head + tail, dropped) == kept_ref(payload, limit), (limit, chunks)

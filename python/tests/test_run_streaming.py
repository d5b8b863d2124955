"""run(on_stdout=..., on_stderr=...): chunks as they come, from the
library's pump; text decoded incrementally (a character split between two
reads comes whole); an exception raised in a callback stops the run, kills
the tree and is raised from run(); 1 MiB in and 100 MB out stream without a
deadlock and without growing memory."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import List

import pytest

import spawnkit
from conftest import wait_dead

pytestmark = pytest.mark.native


def test_chunks_come_as_bytes_per_stream_while_the_child_runs() -> None:
    out: List[bytes] = []
    err: List[bytes] = []
    stamps: List[float] = []

    def on_out(b: bytes) -> None:
        out.append(b)
        stamps.append(time.monotonic())

    r = spawnkit.run(["sh", "-c", "echo one; echo e >&2; sleep 0.5; echo two"],
                     on_stdout=on_out, on_stderr=err.append, timeout=30)
    assert b"".join(out) == b"one\ntwo\n" == r.stdout
    assert b"".join(err) == b"e\n" == r.stderr
    assert len(stamps) == 2 and stamps[1] - stamps[0] >= 0.4   # streamed, not at the end


def test_text_chunks_never_split_a_character() -> None:
    # "é" (2 bytes) and "€" (3 bytes) written one byte at a time: each read
    # may end inside a character
    got: List[str] = []
    script = "for b in '\\303' '\\251' '\\342' '\\202' '\\254' 'x\\r\\n'; do printf \"$b\"; sleep 0.05; done"
    r = spawnkit.run(["sh", "-c", script], text=True, encoding="utf-8", on_stdout=got.append)
    assert all("\ufffd" not in g for g in got)
    assert "".join(got) == "é€x\n" == r.stdout


def test_text_chunks_end_with_what_the_decoder_held() -> None:
    got: List[str] = []
    r = spawnkit.run(["printf", "ab\\303"], encoding="utf-8", errors="replace",
                     on_stdout=got.append)
    assert "".join(got) == "ab\ufffd" == r.stdout


def test_stderr_into_stdout_streams_to_on_stdout() -> None:
    got: List[bytes] = []
    spawnkit.run(["sh", "-c", "echo a; echo b >&2"], stderr=spawnkit.STDOUT,
                 on_stdout=got.append)
    assert b"".join(got) == b"a\nb\n"


class Boom(Exception):
    pass


def test_exception_in_a_callback_stops_the_run_and_is_raised_after() -> None:
    def on_out(b: bytes) -> None:
        raise Boom(b)

    t0 = time.monotonic()
    with pytest.raises(Boom) as ei:
        spawnkit.run(["sh", "-c", "sleep 100 >/dev/null & echo $!; exec sleep 100"],
                     on_stdout=on_out, timeout=60)
    assert time.monotonic() - t0 < 30                 # stopped, not timed out
    assert wait_dead([int(ei.value.args[0])])         # and the tree is dead


def test_keyboard_interrupt_in_a_callback_is_not_lost() -> None:
    def on_err(b: bytes) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        spawnkit.run(["sh", "-c", "echo x >&2; exec sleep 100"], on_stderr=on_err, timeout=60)


# Run in a fresh interpreter: ru_maxrss is a high-water mark, which an
# earlier test of this process could already have raised past the bound.
STREAM_100MB = """
import os, resource, sys
import spawnkit
data = os.urandom(1 << 20)
seen = [0]
def count(b):
    seen[0] += len(b)
# the child reads its input only after writing 100 MB: a pump that wrote
# all input before reading would deadlock
script = "head -c 100000000 /dev/zero; cat >/dev/null; echo done >&2"
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = spawnkit.run(["sh", "-c", script], input=data, on_stdout=count, timeout=120,
                 output_limit=int(sys.argv[1]) if sys.argv[1] != "None" else None)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(r.returncode, r.stderr.decode().strip(), seen[0], r.stdout_dropped, grown)
"""


def _stream_100mb(limit: str) -> List[str]:
    out = subprocess.run([sys.executable, "-c", STREAM_100MB, limit], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_1_mib_in_100_mb_out_streams_without_deadlock_or_growth() -> None:
    rc, err, seen, dropped, grown_kib = _stream_100mb(str(1 << 20))
    assert (rc, err, int(seen)) == ("0", "done", 100_000_000)
    assert int(dropped) == 100_000_000 - (1 << 20)          # the default 1 MiB kept
    assert int(grown_kib) < 32 << 10                         # 32 MiB, for 100 MB streamed


def test_unlimited_capture_does_grow_the_control() -> None:
    rc, err, seen, dropped, grown_kib = _stream_100mb("None")
    assert (rc, int(dropped)) == ("0", 0)
    assert int(grown_kib) > 90_000                           # the 100 MB are kept


def test_timeout_still_applies_to_a_streaming_run() -> None:
    got: List[bytes] = []
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "echo a; exec sleep 100"], on_stdout=got.append, timeout=0.5)
    assert got == [b"a\n"] and ei.value.output == b"a\n"

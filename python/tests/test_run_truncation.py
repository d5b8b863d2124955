"""The truncation marker: when the output limit dropped bytes, stdout shows
"[... N bytes omitted ...]" between head and tail (the library's
spawnkit_run_output_join(3)): at the exact cut in bytes mode, on a line of
its own in text mode, never splitting a multi-byte character; N plus the
bytes shown is what the child wrote.  truncation_marker=False joins head
and tail as they are.  TimeoutExpired carries the same."""
from __future__ import annotations

import re
import subprocess

import pytest

import spawnkit

pytestmark = pytest.mark.native

SEQ = b"".join(b"%d\n" % i for i in range(1, 100001))


def _marker_count(shown: bytes) -> int:
    m = re.search(rb"\[\.\.\. (\d+) bytes omitted \.\.\.\]", shown)
    assert m is not None, shown
    return int(m.group(1))


def test_bytes_mode_marker_at_the_exact_cut() -> None:
    r = spawnkit.run(["seq", "1", "100000"], output_limit=20)
    assert (r.stdout_head, r.stdout_tail) == (SEQ[:10], SEQ[-10:])
    assert r.stdout_dropped == len(SEQ) - 20
    n = r.stdout_dropped
    assert r.stdout == SEQ[:10] + b"[... %d bytes omitted ...]" % n + SEQ[-10:]


def test_text_mode_marker_is_a_line_of_its_own_at_line_boundaries() -> None:
    r = spawnkit.run(["seq", "1", "100000"], output_limit=20, text=True)
    lines = r.stdout.split("\n")
    # head "1\n2\n3\n4\n5\n" ends a line and is kept whole; tail
    # "99\n100000\n" starts inside "99999": that partial line goes, so no
    # piece of a number is shown as if it were output
    assert lines[:5] == ["1", "2", "3", "4", "5"]
    assert re.fullmatch(r"\[\.\.\. \d+ bytes omitted \.\.\.\]", lines[5])
    assert lines[6:] == ["100000", ""]
    n = _marker_count(r.stdout.encode())
    assert n + len(b"1\n2\n3\n4\n5\n") + len(b"100000\n") == len(SEQ)   # N is exact
    assert r.stdout_dropped == len(SEQ) - 20                              # not kept


def test_text_mode_multibyte_character_at_the_cut_is_not_split() -> None:
    # 'é' is 2 bytes: a 5-byte head ends inside the third one, and there is
    # no newline to cut at
    r = spawnkit.run(["sh", "-c", "printf 'ééééééééééé'"], output_limit=10, text=True)
    assert "\ufffd" not in r.stdout
    assert r.stdout == "éé\n[... 14 bytes omitted ...]\néé"   # 4 + 14 + 4 = 22 bytes
    assert (r.stdout_head, r.stdout_dropped) == ("éé\ufffd", 12)  # the raw 5-byte head


def test_no_marker_when_nothing_was_dropped() -> None:
    r = spawnkit.run(["seq", "1", "5"], output_limit=100, text=True)
    assert r.stdout == "1\n2\n3\n4\n5\n" and r.stdout_dropped == 0


def test_truncation_marker_false_joins_head_and_tail() -> None:
    r = spawnkit.run(["seq", "1", "100000"], output_limit=20, truncation_marker=False)
    assert r.stdout == SEQ[:10] + SEQ[-10:]
    r2 = spawnkit.run(["seq", "1", "100000"], output_limit=20, truncation_marker=False,
                      text=True)
    assert r2.stdout == (SEQ[:10] + SEQ[-10:]).decode()


def test_stderr_gets_its_own_marker() -> None:
    r = spawnkit.run(["sh", "-c", "seq 1 100000 >&2"], output_limit=20)
    assert r.stdout == b"" and r.stderr_dropped == len(SEQ) - 20
    assert _marker_count(r.stderr) == r.stderr_dropped


def test_timeout_expired_carries_the_dropped_counts_and_the_parts() -> None:
    with pytest.raises(spawnkit.TimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "seq 1 100000; seq 1 100000 >&2; exec sleep 100"],
                     output_limit=20, timeout=1)
    e = ei.value
    assert isinstance(e, subprocess.TimeoutExpired)
    assert e.stdout_dropped == e.stderr_dropped == len(SEQ) - 20
    assert (e.stdout_head, e.stdout_tail) == (SEQ[:10], SEQ[-10:])
    assert (e.stderr_head, e.stderr_tail) == (SEQ[:10], SEQ[-10:])
    assert isinstance(e.output, bytes) and _marker_count(e.output) == e.stdout_dropped
    assert "dropped by the output limit" in str(e)


def test_no_output_timeout_carries_them_too() -> None:
    with pytest.raises(spawnkit.NoOutputTimeoutExpired) as ei:
        spawnkit.run(["sh", "-c", "seq 1 100000; exec sleep 100"], output_limit=20,
                     no_output_timeout=0.5, text=True)
    assert ei.value.stdout_dropped == len(SEQ) - 20
    assert ei.value.stdout_head == "1\n2\n3\n4\n5\n"

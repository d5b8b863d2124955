"""aio.run(on_stdout=, on_stderr=): output handed over as it comes, the
same chunks run()'s callbacks get, and a callback that raises stops the call."""
import asyncio
import subprocess
import time
from typing import List

import pytest

from spawnkit import DEVNULL, STDOUT, aio
from conftest import wait_dead


def arun(coro):
    return asyncio.run(coro)


def test_callbacks_see_all_output_as_it_comes(tmp_path):
    # The child writes "b" only once the callback has seen "a" (it creates
    # the flag file): callbacks run during the call, not after it.
    flag = tmp_path / "seen-a"
    out: List[bytes] = []
    err: List[bytes] = []

    def on_out(chunk):
        out.append(chunk)
        flag.touch()

    script = f"echo a; while [ ! -e {flag} ]; do sleep 0.01; done; echo b; echo e >&2"
    r = arun(aio.run(["sh", "-c", script], on_stdout=on_out, on_stderr=err.append,
                     timeout=60))
    assert b"".join(out) == r.stdout == b"a\nb\n" and b"".join(err) == r.stderr == b"e\n"
    assert all(isinstance(c, bytes) for c in out + err)


def test_text_callbacks_never_split_a_character():
    got: List[str] = []
    r = arun(aio.run(["sh", "-c", r"printf 'x\342'; sleep 0.2; printf '\202\254\r\n'"],
                     text=True, encoding="utf-8", on_stdout=got.append))
    assert "".join(got) == r.stdout == "x€\n"
    assert all("\ufffd" not in c for c in got) and "x" in got


def test_callback_exception_stops_and_kills_the_tree():
    class Enough(Exception):
        pass

    pids: List[int] = []

    def on_out(chunk):
        pids.extend(int(x) for x in chunk.split())
        raise Enough()

    t0 = time.monotonic()
    with pytest.raises(Enough):
        arun(aio.run(["sh", "-c", "sleep 100 & echo $$ $!; wait"], on_stdout=on_out,
                     timeout=60))
    assert time.monotonic() - t0 < 30                            # not the timeout
    assert len(pids) == 2 and wait_dead(pids)


@pytest.mark.parametrize("kw,exc,match", [
    (dict(on_stdout=1), TypeError, "on_stdout"),
    (dict(on_stdout=print, stdout=DEVNULL), ValueError, "on_stdout needs stdout"),
    (dict(on_stderr=print, stderr=STDOUT), ValueError, "on_stdout"),
    (dict(on_stderr=print, capture_output=False), ValueError, "on_stderr needs stderr"),
    (dict(new_session="yes"), TypeError, "new_session"),
])
def test_bad_callback_options(kw, exc, match):
    with pytest.raises(exc, match=match):
        arun(aio.run(["true"], **kw))


def test_merged_stderr_goes_to_on_stdout():
    got: List[bytes] = []
    r = arun(aio.run(["sh", "-c", "echo a; echo b >&2"], stderr=STDOUT, on_stdout=got.append))
    assert b"".join(got) == r.stdout == b"a\nb\n"


def test_callbacks_with_a_timeout_still_raise_the_timeout():
    got: List[bytes] = []
    with pytest.raises(subprocess.TimeoutExpired):
        arun(aio.run(["sh", "-c", "echo a; exec sleep 100"], on_stdout=got.append,
                     timeout=0.5))
    assert got == [b"a\n"]

"""aio.run() and aio.stream() sessions: a child of its own session by
default, no controlling terminal, nothing of it left after the call, and
wait_delay for a background job that holds the pipes."""
import asyncio
import os
import subprocess
import sys
import textwrap
import time

import pytest

import spawnkit
from spawnkit import aio
from conftest import is_dead, need, wait_dead


def arun(coro):
    return asyncio.run(coro)


SELF_STAT = ["sh", "-c", "exec cut -d' ' -f1,6 /proc/self/stat"]    # pid, session


def test_run_child_leads_a_new_session_by_default():
    pid, sid = arun(aio.run(SELF_STAT)).stdout.split()
    assert pid == sid


@pytest.mark.native  # the fallback's children always have a session of their own
def test_run_new_session_false_shares_ours():
    pid, sid = arun(aio.run(SELF_STAT, new_session=False)).stdout.split()
    assert int(sid) == os.getsid(0)


@pytest.mark.native  # warm starts need the binding
def test_run_warm_defaults_to_our_session_as_run_does():
    # A warm interpreter cannot start a session: warm=True calls default to
    # new_session=False (spawnkit.run()'s rule); new_session=True runs cold.
    code = "import os; print(os.getsid(0))"
    try:
        warm = arun(aio.run([sys.executable, "-c", code], warm=True))
        cold = arun(aio.run([sys.executable, "-c", code], warm=True, new_session=True))
    finally:
        spawnkit.warm_shutdown()
    assert int(warm.stdout) == os.getsid(0)
    assert int(cold.stdout) != os.getsid(0)


def test_run_background_job_dead_after_a_successful_call():
    r = arun(aio.run(["sh", "-c", "sleep 100 >/dev/null 2>&1 & echo $!"]))
    assert r.returncode == 0
    assert wait_dead([int(r.stdout)])


def test_run_wait_delay_returns_the_childs_status():
    t0 = time.monotonic()
    r = arun(aio.run(["sh", "-c", "sleep 100 & echo $!; exit 3"], wait_delay=0.2, timeout=30))
    assert time.monotonic() - t0 < 10                 # not the timeout
    assert r.returncode == 3                           # the child's own, not a kill
    assert wait_dead([int(r.stdout)])


def test_run_without_wait_delay_a_held_pipe_runs_into_the_timeout():
    with pytest.raises(subprocess.TimeoutExpired) as ei:
        arun(aio.run(["sh", "-c", "sleep 100 & echo $!"], timeout=0.5))
    assert wait_dead([int(ei.value.output)])


@pytest.mark.parametrize("value,exc", [(-1, ValueError), ("1", TypeError),
                                       (float("nan"), TypeError)])
def test_run_bad_wait_delay(value, exc):
    with pytest.raises(exc, match="wait_delay"):
        arun(aio.run(["true"], wait_delay=value))


HELPER = textwrap.dedent("""
    import asyncio, sys
    from spawnkit import aio
    TRY_TTY = ["sh", "-c",
               "if true 3</dev/tty 2>/dev/null; then echo opened; else echo failed; fi"]

    async def main(new_session):
        r = await aio.run(TRY_TTY, timeout=20, new_session=new_session)
        chunks = [c.data async for c in aio.stream(TRY_TTY, timeout=20,
                                                    new_session=new_session) if c.fd == 1]
        return r.stdout.decode().strip(), b"".join(chunks).decode().strip()
    print("RESULT", *asyncio.run(main(sys.argv[1] == "1")))
""")


@pytest.mark.native  # new_session=False has no effect in the fallback
@pytest.mark.parametrize("new_session,expect", [(True, "failed"), (False, "opened")])
def test_dev_tty_under_a_real_terminal(tmp_path, new_session, expect):
    # script(1) gives the helper a controlling terminal, as an agent run in a
    # terminal has one; a child in a new session has none, so opening
    # /dev/tty fails at once (ENXIO) instead of waiting on a prompt.
    need("script")
    helper = tmp_path / "helper.py"
    helper.write_text(HELPER)
    cmd = f"{sys.executable} {helper} {int(new_session)}"
    r = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=120)
    line = [ln for ln in r.stdout.decode().splitlines() if ln.startswith("RESULT")]
    assert line, r.stdout + r.stderr
    assert line[0].split()[1:] == [expect, expect]


def test_stream_cancelled_call_leaves_no_session_member():
    async def main():
        agen = aio.stream(["sh", "-c", "sleep 100 & echo $!; wait"])
        first = await agen.__anext__()
        await agen.aclose()
        return int(first.data)
    bg = arun(main())
    assert wait_dead([bg]) and is_dead(bg)

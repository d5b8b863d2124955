"""A child another waiter reaps first (issue 12, #8).

Before: a SIGCHLD handler reaping with waitpid(-1), or SIGCHLD ignored, made
spawnkit report exit 0 for a child that exited 5.  Now the status comes
from the pidfd where the kernel keeps it (Linux 6.15, PIDFD_INFO_EXIT), and
elsewhere run()/wait() raise ChildProcessError: never a made-up 0.
"""
import asyncio
from collections.abc import Callable, Iterator
from types import FrameType
import os
import signal
import subprocess
import sys
import time

import pytest

import spawnkit
import spawnkit.aio

# Exit statuses kept through the pidfd when someone else reaps: the
# fallback is stock subprocess, which reports 0 there as stock does.
pytestmark = pytest.mark.native


def _kernel_keeps_status() -> bool:
    """Whether the kernel keeps a reaped child's status on its pidfd."""
    import fcntl
    import struct
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    fd = os.pidfd_open(pid)
    os.waitpid(pid, 0)
    buf = bytearray(struct.pack("QQ11Ii", 1 << 3, 0, *([0] * 11), 0))
    req = (3 << 30) | (64 << 16) | (0xFF << 8) | 11      # _IOWR(0xFF, 11, 64 bytes)
    try:
        fcntl.ioctl(fd, req, buf)
    except OSError:
        return False
    finally:
        os.close(fd)
    mask, *_rest, code = struct.unpack("QQ11Ii", buf)
    return bool(mask & (1 << 3)) and code == 3 << 8


KEEPS = _kernel_keeps_status()


def _expect_5_or_lost(fn: Callable[[], int | None]) -> None:
    """fn() returns a returncode: 5, or ChildProcessError where the kernel
    keeps no status; never 0."""
    if KEEPS:
        assert fn() == 5
    else:
        with pytest.raises(ChildProcessError):
            fn()


@pytest.fixture
def sigchld() -> Iterator[None]:
    old = signal.getsignal(signal.SIGCHLD)
    yield
    signal.signal(signal.SIGCHLD, old)


def _reap_everything(signum: int, frame: FrameType | None) -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def test_run_with_a_reaping_sigchld_handler(sigchld: None) -> None:
    signal.signal(signal.SIGCHLD, _reap_everything)
    for _ in range(30):
        _expect_5_or_lost(lambda: spawnkit.run(["sh", "-c", "exit 5"]).returncode)


def test_run_with_sigchld_ignored(sigchld: None) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    for _ in range(10):
        _expect_5_or_lost(lambda: spawnkit.run(["sh", "-c", "exit 5"]).returncode)


def test_process_wait_after_waitpid_elsewhere() -> None:
    p = spawnkit.spawn(["sh", "-c", "exit 5"])
    os.waitpid(p.pid, 0)                       # another part of the program
    _expect_5_or_lost(p.wait)
    if KEEPS:
        assert p.poll() == 5
    else:
        with pytest.raises(ChildProcessError):
            p.poll()                          # asked again: the same answer


def test_process_poll_after_waitpid_elsewhere() -> None:
    p = spawnkit.spawn(["sh", "-c", "exit 5"])
    os.waitpid(p.pid, 0)

    def poll() -> int:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            rc = p.poll()
            if rc is not None:
                return rc
            time.sleep(0.01)
        raise AssertionError("poll() never saw the end")
    _expect_5_or_lost(poll)


def test_killed_child_status_survives_waitpid_elsewhere() -> None:
    p = spawnkit.spawn(["sleep", "30"])
    p.kill()
    os.waitpid(p.pid, 0)
    if KEEPS:
        assert p.wait() == -signal.SIGKILL
    else:
        with pytest.raises(ChildProcessError):
            p.wait()


def test_aio_run_with_sigchld_ignored(sigchld: None) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)

    async def main() -> int:
        return (await spawnkit.aio.run(["sh", "-c", "exit 5"])).returncode
    _expect_5_or_lost(lambda: asyncio.run(main()))


def test_subprocess_reference_makes_up_zero(sigchld: None) -> None:
    """What the issue compares with: subprocess reports 0 when SIGCHLD is
    ignored (the status is gone before it waits)."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    assert subprocess.run([sys.executable, "-c", "import sys; sys.exit(5)"]).returncode == 0

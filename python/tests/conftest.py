"""Shared fixtures: every test must leave no fd, child or zombie behind."""
import contextlib
import os
import signal
import shutil
import asyncio
import threading
import time
from collections.abc import Callable, Collection, Coroutine, Iterable, Iterator
from types import FrameType
from typing import Any, TypeVar

import pytest

import spawnkit


def _our_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def children_of(pid: int) -> list[int]:
    """Pids whose parent is `pid` (living or zombie)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        rest = data[data.rindex(b")") + 2:].split()
        if int(rest[1]) == pid:
            out.append(int(name))
    return out


def proc_state(pid: int) -> str | None:
    """The state letter of a process, or None if it no longer exists."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rindex(b")") + 2:].split()[0].decode()


def is_dead(pid: int) -> bool:
    return proc_state(pid) in (None, "Z", "X")


def wait_dead(pids: Collection[int], timeout: float = 5.0) -> bool:
    """True once every pid is gone or a zombie (killed processes need a
    moment to be torn down); the caller asserts the result."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(is_dead(p) for p in pids):
            return True
        time.sleep(0.01)
    return all(is_dead(p) for p in pids)


def copy_true(dirpath: "str | os.PathLike[str]", name: str = "tool") -> str:
    dst = os.path.join(dirpath, name)
    shutil.copy2("/bin/true", dst)
    return dst


def rename_new_copy_over(path: str, src: str = "/bin/true") -> None:
    """What a package manager does: write a new file, rename it over."""
    tmp = path + ".new"
    shutil.copy2(src, tmp)
    os.rename(tmp, path)


def closed_fd() -> int:
    """An fd number that was open a moment ago and is closed now."""
    r, w = os.pipe()
    os.close(r)
    os.close(w)
    return r


def in_threads(fn: Callable[..., object], args: Iterable[tuple[Any, ...]]) -> None:
    """fn(*a) for every a, each in a thread of its own, every thread started
    before any is waited for."""
    threads = [threading.Thread(target=fn, args=a) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


T = TypeVar("T")


@contextlib.contextmanager
def keyboard_interrupt_after(seconds: float) -> Iterator[None]:
    """KeyboardInterrupt raised by a SIGALRM handler `seconds` from now, so
    it lands inside whatever wait the body is in; the timer and the old
    handler are restored on the way out."""
    def boom(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, boom)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def arun(coro: Coroutine[Any, Any, T]) -> T:
    """Run one coroutine to its end on a fresh event loop (the aio tests)."""
    return asyncio.run(coro)


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"test needs {tool!r} on PATH (see scripts/deps)")
    return path


# Without any compiled binding (macOS, an install without a C compiler) the
# modules that import it cannot even be collected.
try:
    import spawnkit._spawnkit  # type: ignore[import-not-found]  # noqa: F401
    collect_ignore: list[str] = []
except ImportError:
    collect_ignore = ["test_binding.py", "test_template.py",
                      "test_output_limit.py",
                      "test_template_cache_bound.py"]
# Probes pidfd_open at import (all its tests are native anyway).
if spawnkit.fallback_reason is not None:
    collect_ignore.append("test_lost_status.py")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "native: needs the compiled binding (pidfds, templates, the C "
        "pump); deselected, never passed, when spawnkit.backend() is \"fallback\"")


    config.addinivalue_line(
        "markers", "threads: starts threads; deselected under SPAWNKIT_TEST_NO_THREADS=1 "
        "(a seccomp filter refusing clone3 with EPERM stops glibc starting any)")


def pytest_collection_modifyitems(config: pytest.Config,
                                   items: list[pytest.Item]) -> None:
    """In the portable fallback (macOS, no pidfds, SPAWNKIT_BACKEND=fallback)
    run every test that holds for both backends; the `native` ones are
    deselected and show as such in the summary line."""
    drop = set()
    if spawnkit.fallback_reason is not None:
        drop.add("native")
    if os.environ.get("SPAWNKIT_TEST_NO_THREADS") == "1":
        drop.add("threads")
    gone = [it for it in items if any(it.get_closest_marker(m) for m in drop)]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = [it for it in items if it not in gone]


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Fail a test that leaks an fd of ours or leaves a child unreaped."""
    spawnkit.run(["true"])
    if spawnkit.fallback_reason is None:
        from spawnkit._process import _devnull
        _devnull()                   # the /dev/null fd spawn() opens once and keeps
    before = _our_fds()
    yield
    # fds: give a finalizer a chance, then compare
    after = _our_fds()
    if after != before:
        import gc
        gc.collect()
        after = _our_fds()
    # Templates cached by the test keep their executable's fd: not a leak.
    cached = {str(t.fd) for t in list(spawnkit.template_cache._map.values())
              if not t.closed}
    leaked = sorted(after - before - cached, key=int)
    links = {}
    for fd in leaked:
        try:
            links[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass
    assert not links, f"fds leaked by the test: {links}"
    kids = [p for p in children_of(os.getpid()) if proc_state(p) is not None]
    assert not kids, f"children left behind: {[(p, proc_state(p)) for p in kids]}"

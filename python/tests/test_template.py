"""Template: from a path, an fd, a command name; lifetime; the cache; ESTALE."""
import errno
import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path
from typing import List, Union

import pytest

import spawnkit
from spawnkit import StaleTemplateError, Template, template_cache
from conftest import closed_fd, copy_true, in_threads, rename_new_copy_over

# The compiled binding itself: not there in the portable fallback.
pytestmark = pytest.mark.native


def test_from_absolute_path() -> None:
    with Template("/bin/sh") as t:
        assert t.path == "/bin/sh"
        assert t.backend in ("user", "kernel")
        assert t.fd >= 0
        p = t.spawn(["sh", "-c", "exit 5"])
        assert p.wait() == 5
    assert t.closed


def test_from_relative_path_is_made_absolute(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    copy_true(tmp_path)
    monkeypatch.chdir(tmp_path)
    with Template("./tool") as t:
        assert t.path == os.path.join(str(tmp_path), "tool")


def test_from_command_name_resolved_over_path() -> None:
    with Template("sh") as t:
        assert t.path == shutil.which("sh")
        assert t.path is not None and os.path.isabs(t.path)


def test_from_fd() -> None:
    fd = os.open("/bin/sh", os.O_RDONLY | os.O_CLOEXEC)
    try:
        with Template(fd=fd) as t:
            assert t.path is None
            assert t.spawn(["sh", "-c", "exit 3"]).wait() == 3
        os.fstat(fd)                     # the fd was not taken over
    finally:
        os.close(fd)


def test_from_fd_classmethod() -> None:
    fd = os.open("/bin/true", os.O_RDONLY | os.O_CLOEXEC)
    try:
        with Template.from_fd(fd) as t:
            assert t.spawn(["true"]).wait() == 0
    finally:
        os.close(fd)


def test_bad_fd_is_ebadf() -> None:
    with pytest.raises(OSError) as ei:
        Template(fd=closed_fd())
    assert ei.value.errno == errno.EBADF


def test_argument_errors() -> None:
    with pytest.raises(TypeError):
        Template()
    with pytest.raises(TypeError):
        Template("/bin/true", fd=0)
    with pytest.raises(TypeError):
        Template(fd="3")  # type: ignore[arg-type]


def test_missing_file_is_filenotfound() -> None:
    with pytest.raises(FileNotFoundError) as ei:
        Template("/nonexistent/tool")
    assert ei.value.filename == "/nonexistent/tool"
    with pytest.raises(FileNotFoundError):
        Template("no-such-command-spawnkit")


def test_not_executable_is_permission_error(tmp_path: Path) -> None:
    f = tmp_path / "data"
    f.write_bytes(b"#!/bin/sh\n")
    f.chmod(0o644)
    with pytest.raises(PermissionError):
        Template(str(f))


def test_directory_is_permission_error(tmp_path: Path) -> None:
    with pytest.raises(PermissionError):
        Template(str(tmp_path))


def test_closed_template_refuses_to_spawn() -> None:
    t = Template("/bin/true")
    t.close()
    t.close()                                 # idempotent
    with pytest.raises(ValueError):
        t.spawn(["true"])
    assert "closed" in repr(t)


def test_close_while_other_threads_spawn_never_crashes() -> None:
    t = Template("/bin/true")
    results: List[Union[int, str]] = []

    def worker() -> None:
        for _ in range(30):
            try:
                results.append(t.spawn(["true"]).wait())
            except ValueError:
                results.append("closed")

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for th in threads:
        th.start()
    t.close()
    for th in threads:
        th.join()
    assert len(results) == 120
    assert set(results) <= {0, "closed"}
    assert t._ptr is None                     # destroyed once nobody used it


def test_explicit_template_reports_estale(tmp_path: Path) -> None:
    path = copy_true(tmp_path)
    with Template(path) as t:
        assert t.spawn(["tool"]).wait() == 0
        rename_new_copy_over(path)
        with pytest.raises(StaleTemplateError) as ei:
            t.spawn(["tool"])
        e = ei.value
        assert isinstance(e, OSError) and e.errno == errno.ESTALE


def test_cache_recreates_stale_template_transparently(tmp_path: Path) -> None:
    path = copy_true(tmp_path)
    assert spawnkit.run([path]).returncode == 0
    first = template_cache.get(path)
    rename_new_copy_over(path, "/bin/false")
    # The cached template is stale; run() makes a new one and runs the new file.
    assert spawnkit.run([path]).returncode == 1
    second = template_cache.get(path)
    assert second is not first and first.closed
    assert spawnkit.run([path]).returncode == 1     # from the new one now
    template_cache.discard(path)
    assert path not in template_cache


def test_cache_stale_then_deleted_is_filenotfound(tmp_path: Path) -> None:
    path = copy_true(tmp_path)
    assert spawnkit.run([path]).returncode == 0
    os.unlink(path)
    with pytest.raises(FileNotFoundError):
        spawnkit.run([path])
    template_cache.discard(path)


def test_cache_estale_under_concurrent_renames(tmp_path: Path) -> None:
    path = copy_true(tmp_path)
    stop = threading.Event()
    errors = []
    codes = []

    def renamer() -> None:
        # The new copy is written by another process (cp): written from a
        # thread of ours, its write fd would be inherited for an instant by
        # children forked from the other threads, and an exec of it in that
        # instant fails with ETXTBSY (the classic fork/exec race, the same
        # with subprocess).
        while not stop.is_set():
            subprocess.run(["cp", "/bin/true", path + ".new"], check=True)
            os.rename(path + ".new", path)

    def runner() -> None:
        try:
            for _ in range(25):
                codes.append(spawnkit.run([path]).returncode)
        except Exception as e:           # recorded and asserted below
            errors.append(e)

    r = threading.Thread(target=renamer)
    r.start()
    in_threads(runner, [()] * 4)
    stop.set()
    r.join()
    template_cache.discard(path)
    # A file replaced more often than spawns can retry may still surface as
    # StaleTemplateError; anything else (or a crash) is a bug.
    assert all(isinstance(e, StaleTemplateError) for e in errors), errors
    assert codes and set(codes) == {0}
    assert len(codes) + len(errors) == 100


def test_cache_same_object_per_path() -> None:
    a = template_cache.get("/bin/true")
    assert template_cache.get(b"/bin/true") is a
    assert "/bin/true" in template_cache and len(template_cache) >= 1


def test_cache_is_thread_safe_on_first_use(tmp_path: Path) -> None:
    path = copy_true(tmp_path)
    got = []
    barrier = threading.Barrier(8)

    def get() -> None:
        barrier.wait()
        got.append(template_cache.get(path))

    in_threads(get, [()] * 8)
    assert len({id(t) for t in got}) == 1
    template_cache.discard(path)


def test_which(tmp_path: Path) -> None:
    assert spawnkit.which("sh") == shutil.which("sh")
    tool = copy_true(tmp_path)
    assert spawnkit.which("tool", path=f"/nonexistent:{tmp_path}") == tool
    assert spawnkit.which("./x") == os.path.abspath("./x")
    with pytest.raises(FileNotFoundError):
        spawnkit.which("tool", path="/nonexistent")
    os.chmod(tool, 0o644)
    with pytest.raises(PermissionError):
        spawnkit.which("tool", path=str(tmp_path))


def test_which_skips_non_executable_for_a_later_match(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "tool").write_bytes(b"x")
    (a / "tool").chmod(stat.S_IRUSR)
    tool = copy_true(str(b))
    assert spawnkit.which("tool", path=f"{a}:{b}") == tool


def test_backend_and_kernel_probe() -> None:
    assert spawnkit.backend() in ("user", "kernel")
    assert isinstance(spawnkit.kernel_has_spawn_template(), bool)


def test_forced_user_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPAWNKIT_BACKEND", "user")
    assert spawnkit.backend() == "user"
    with Template("/bin/true") as t:
        assert t.backend == "user"


def test_forced_kernel_backend_without_kernel_is_enosys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPAWNKIT_BACKEND", "kernel")
    if spawnkit.kernel_has_spawn_template():
        assert spawnkit.backend() == "kernel"
    else:
        with pytest.raises(OSError) as ei:
            spawnkit.backend()
        assert ei.value.errno == errno.ENOSYS


def test_unknown_backend_name_is_einval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPAWNKIT_BACKEND", "bogus")
    with pytest.raises(OSError) as ei:
        spawnkit.backend()
    assert ei.value.errno == errno.EINVAL


def test_template_fd_is_always_cloexec() -> None:
    import fcntl
    with Template("/bin/true") as t:
        assert fcntl.fcntl(t.fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    with pytest.raises(TypeError):
        Template("/bin/true", cloexec=False)  # type: ignore[call-arg]
    with Template("/bin/true") as t:
        # cleared by hand, it is still not inherited: "every fd above 2"
        # is closed in children
        fcntl.fcntl(t.fd, fcntl.F_SETFD, 0)
        p = spawnkit.spawn(["sh", "-c", "echo ready; sleep 10"], stdout=spawnkit.PIPE)
        assert p.stdout is not None
        try:
            assert p.stdout.readline() == b"ready\n"
            assert str(t.fd) not in os.listdir(f"/proc/{p.pid}/fd")
        finally:
            p.kill()
            p.wait()
            p.stdout.close()

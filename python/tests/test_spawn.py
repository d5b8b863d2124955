"""spawn() and Process: every option, signals, waiting, pidfds."""
import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import spawnkit
from spawnkit import DEVNULL, PIPE, STDOUT
from conftest import closed_fd, in_threads, is_dead, wait_dead


def sig_mask_of(pid: int, field: str) -> int:
    """A signal mask line of /proc/<pid>/status as an int (SigBlk, SigIgn)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1], 16)
    raise AssertionError(field)


def bit(sig: int) -> int:
    return 1 << (int(sig) - 1)


@pytest.mark.native  # a pidfd, or the /proc tree walk
def test_pid_pidfd_wait_returncode() -> None:
    p = spawnkit.spawn(["sh", "-c", "exit 4"])
    assert p.pid > 0 and isinstance(p.pidfd, int)
    assert p.wait() == 4 and p.returncode == 4
    assert p.pidfd is None                         # closed once reaped
    assert p.wait() == 4 and p.poll() == 4


def test_poll_and_wait_timeout() -> None:
    p = spawnkit.spawn(["sleep", "10"])
    try:
        assert p.poll() is None
        with pytest.raises(subprocess.TimeoutExpired):
            p.wait(timeout=0.05)
        assert p.returncode is None
    finally:
        p.kill()
        assert p.wait() == -signal.SIGKILL


def test_send_signal_terminate_kill() -> None:
    p = spawnkit.spawn(["sleep", "10"])
    p.send_signal(signal.SIGTERM)
    assert p.wait() == -signal.SIGTERM
    p.send_signal(signal.SIGTERM)                  # after reaping: a no-op
    p = spawnkit.spawn(["sleep", "10"])
    p.terminate()
    assert p.wait() == -signal.SIGTERM
    p = spawnkit.spawn(["sleep", "10"])
    p.kill()
    assert p.wait() == -signal.SIGKILL


@pytest.mark.native  # a pidfd, or the /proc tree walk
def test_signal_to_exited_unreaped_child_is_harmless() -> None:
    p = spawnkit.spawn(["true"])
    while not p._exited(0):
        time.sleep(0.001)
    p.send_signal(signal.SIGKILL)                  # a zombie: nothing happens
    assert p.wait() == 0


def test_stdout_stderr_pipe_and_communicate() -> None:
    p = spawnkit.spawn(["sh", "-c", "cat; echo err >&2"], stdin=PIPE, stdout=PIPE, stderr=PIPE)
    out, err = p.communicate(b"data")
    assert (out, err, p.returncode) == (b"data", b"err\n", 0)


def test_communicate_timeout_then_continue() -> None:
    p = spawnkit.spawn(["sh", "-c", "echo first; sleep 0.3; echo second"], stdout=PIPE)
    with pytest.raises(subprocess.TimeoutExpired):
        p.communicate(timeout=0.05)
    out, err = p.communicate()
    assert out == b"first\nsecond\n" and err is None and p.returncode == 0


def test_text_mode_files() -> None:
    p = spawnkit.spawn(["cat"], stdin=PIPE, stdout=PIPE, text=True)
    assert p.stdin is not None
    p.stdin.write("héllo\n")
    p.stdin.close()
    assert p.stdout is not None
    assert p.stdout.read() == "héllo\n"
    p.stdout.close()
    assert p.wait() == 0


def test_stderr_to_stdout() -> None:
    p = spawnkit.spawn(["sh", "-c", "echo a; echo b >&2"], stdout=PIPE, stderr=STDOUT)
    out, err = p.communicate()
    assert out == b"a\nb\n" and err is None


@pytest.mark.native  # the binding's own argument checks
def test_stdout_stdout_rejected_for_stdin() -> None:
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], stdin=STDOUT)


def test_devnull() -> None:
    p = spawnkit.spawn(["sh", "-c", "cat; echo x; echo y >&2"], stdin=DEVNULL,
                       stdout=DEVNULL, stderr=DEVNULL)
    assert p.wait() == 0


def test_fd_and_file_object(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with open(out, "wb") as f:
        p = spawnkit.spawn(["sh", "-c", "echo to-file; echo to-fd >&2"], stdout=f,
                           stderr=f.fileno())
        assert p.wait() == 0
    assert sorted(out.read_bytes().splitlines()) == [b"to-fd", b"to-file"]
    with open(out, "rb") as f:
        p = spawnkit.spawn(["cat"], stdin=f, stdout=PIPE)
        data, _ = p.communicate()
    assert sorted(data.splitlines()) == [b"to-fd", b"to-file"]


def test_swapped_low_fds() -> None:
    # stdout to the parent's fd 2 and stderr to the parent's fd 1: each
    # source must be read before the other action overwrites it.
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    saved1, saved2 = os.dup(1), os.dup(2)
    try:
        os.dup2(w1, 1)
        os.dup2(w2, 2)
        p = spawnkit.spawn(["sh", "-c", "echo OUT; echo ERR >&2"], stdout=2, stderr=1)
        p.wait()
    finally:
        os.dup2(saved1, 1)
        os.dup2(saved2, 2)
        for fd in (saved1, saved2, w1, w2):
            os.close(fd)
    got1, got2 = os.read(r1, 100), os.read(r2, 100)
    os.close(r1)
    os.close(r2)
    assert (got1, got2) == (b"ERR\n", b"OUT\n")


@pytest.mark.native  # the binding's own argument checks
def test_bad_stdio_spec() -> None:
    with pytest.raises(TypeError):
        spawnkit.spawn(["true"], stdout="nope")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], stdout=-7)


def test_cwd_path_and_dirfd(tmp_path: Path) -> None:
    p = spawnkit.spawn(["pwd"], stdout=PIPE, cwd=tmp_path)
    assert p.communicate()[0] == os.fsencode(str(tmp_path)) + b"\n"
    dfd = os.open(str(tmp_path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        p = spawnkit.spawn(["pwd"], stdout=PIPE, cwd=dfd)
        assert p.communicate()[0] == os.fsencode(str(tmp_path)) + b"\n"
        os.fstat(dfd)                               # still ours, still open
    finally:
        os.close(dfd)


@pytest.mark.native  # the binding's own argument checks
def test_cwd_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as ei:
        spawnkit.spawn(["true"], cwd=tmp_path / "missing")
    assert ei.value.filename == str(tmp_path / "missing")
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(NotADirectoryError):
        spawnkit.spawn(["true"], cwd=f)
    fd = os.open(str(f), os.O_RDONLY)
    try:
        with pytest.raises(NotADirectoryError):
            spawnkit.spawn(["true"], cwd=fd)
    finally:
        os.close(fd)
    with pytest.raises(OSError) as ei_bad:
        spawnkit.spawn(["true"], cwd=closed_fd())
    assert ei_bad.value.errno == errno.EBADF


@pytest.mark.native  # subprocess resolves and passes fds otherwise
def test_relative_program_resolved_against_cwd(tmp_path: Path) -> None:
    sub = tmp_path / "bin"
    sub.mkdir()
    (sub / "hello").write_text("#!/bin/sh\necho hello from $0\n")
    (sub / "hello").chmod(0o755)
    p = spawnkit.spawn(["./bin/hello"], stdout=PIPE, cwd=tmp_path)
    # A script sees the template's absolute path as $0 (subprocess: as written).
    assert p.communicate()[0] == b"hello from %s/bin/hello\n" % os.fsencode(str(tmp_path))


def test_env_replaces_environment() -> None:
    p = spawnkit.spawn(["/usr/bin/env"], env={"A": "1", b"B": b"2"}, stdout=PIPE)
    assert sorted(p.communicate()[0].splitlines()) == [b"A=1", b"B=2"]


def test_env_none_inherits_current_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPAWNKIT_TEST_VAR", "visible")
    p = spawnkit.spawn(["sh", "-c", "echo $SPAWNKIT_TEST_VAR"], stdout=PIPE)
    assert p.communicate()[0] == b"visible\n"


def test_env_path_is_used_for_lookup(tmp_path: Path) -> None:
    (tmp_path / "only-here").write_text("#!/bin/sh\necho found\n")
    (tmp_path / "only-here").chmod(0o755)
    p = spawnkit.spawn(["only-here"], env={"PATH": str(tmp_path)}, stdout=PIPE)
    assert p.communicate()[0] == b"found\n"


@pytest.mark.native  # the binding's own argument checks
def test_env_and_argv_validation() -> None:
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], env={"A=B": "1"})
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], env={"": "1"})
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], env={"A": "x\0y"})
    with pytest.raises(ValueError):
        spawnkit.spawn(["echo", "a\0b"])
    with pytest.raises(ValueError):
        spawnkit.spawn([])
    with pytest.raises(IndexError):              # as subprocess raises
        spawnkit.spawn([])


def test_string_args_is_a_program_name() -> None:
    assert spawnkit.spawn("true").wait() == 0


def test_executable_overrides_argv0() -> None:
    p = spawnkit.spawn(["my-name", "-c", 'echo "$0"'], executable="/bin/sh", stdout=PIPE)
    assert p.communicate()[0] == b"my-name\n"


def child_fds(p: spawnkit.Process) -> list[int]:
    return sorted(int(x) for x in os.listdir(f"/proc/{p.pid}/fd"))


def settled(**kw: Any) -> spawnkit.Process:
    """A child whose fds can be listed: sh says "ready" once it runs its
    script, so the dynamic loader's transient fds are gone (and without a
    redirection, for which dash saves an fd for a moment)."""
    p = spawnkit.spawn(["sh", "-c", "echo ready; sleep 10"], stdout=PIPE, **kw)
    assert p.stdout is not None
    assert p.stdout.readline() == b"ready\n"
    return p


def finish(p: spawnkit.Process) -> None:
    p.kill_tree()
    p.wait()
    assert p.stdout is not None
    p.stdout.close()


def test_no_fd_above_2_leaks_into_child() -> None:
    inheritable = os.open("/dev/null", os.O_RDONLY)
    os.set_inheritable(inheritable, True)              # even a non-CLOEXEC fd
    r, w = os.pipe()
    try:
        p = settled(stdin=DEVNULL, stderr=PIPE)
        try:
            assert child_fds(p) == [0, 1, 2]
        finally:
            finish(p)
            assert p.stderr is not None
            p.stderr.close()

    finally:
        for fd in (inheritable, r, w):
            os.close(fd)


def test_pass_fds_same_number() -> None:
    r, w = os.pipe()
    high = os.dup2(w, 57, inheritable=False)
    try:
        # (dash takes single-digit fds only after >&: name them via /dev/fd)
        p = spawnkit.spawn(["sh", "-c", "echo via-57 >/dev/fd/57; echo via-w >/dev/fd/%d" % w],
                           pass_fds=[57, w], stderr=DEVNULL)
        assert p.wait() == 0
        os.close(w)
        os.close(high)
        w = high = -1
        data = b""
        while True:
            chunk = os.read(r, 100)
            if not chunk:
                break
            data += chunk
        assert data == b"via-57\nvia-w\n"
    finally:
        for fd in (r, w, high):
            if fd >= 0:
                os.close(fd)


def test_pass_fds_only_those_fds() -> None:
    a = os.open("/dev/null", os.O_RDONLY)
    b = os.open("/dev/null", os.O_RDONLY)
    try:
        p = settled(pass_fds=[b])
        try:
            assert child_fds(p) == [0, 1, 2, b]
        finally:
            finish(p)
    finally:
        os.close(a)
        os.close(b)


@pytest.mark.native  # the binding's own argument checks
def test_pass_fds_errors() -> None:
    with pytest.raises(OSError) as ei:
        spawnkit.spawn(["true"], pass_fds=[closed_fd()])
    assert ei.value.errno == errno.EBADF
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], pass_fds=[-1])


def test_pass_fds_with_cwd(tmp_path: Path) -> None:
    # cwd's dir fd is used by an action after pass_fds' closing ranges
    # are built: it must still be open when FCHDIR runs.
    fd = os.open("/dev/null", os.O_RDONLY)
    try:
        p = spawnkit.spawn(["pwd"], cwd=tmp_path, pass_fds=[fd], stdout=PIPE)
        assert p.communicate()[0] == os.fsencode(str(tmp_path)) + b"\n"
    finally:
        os.close(fd)


def test_inherit_fds_keeps_inheritable_fds_only() -> None:
    inh = os.open("/dev/null", os.O_RDONLY)
    os.set_inheritable(inh, True)
    cloexec = os.open("/dev/null", os.O_RDONLY)
    try:
        p = settled(inherit_fds=True)
        try:
            fds = child_fds(p)
            assert inh in fds and cloexec not in fds
        finally:
            finish(p)
    finally:
        os.close(inh)
        os.close(cloexec)


@pytest.mark.native  # subprocess resolves and passes fds otherwise
def test_pass_fds_with_inherit_fds() -> None:
    passed = os.open("/dev/null", os.O_RDONLY)            # FD_CLOEXEC, passed
    inh = os.open("/dev/null", os.O_RDONLY)
    os.set_inheritable(inh, True)
    try:
        p = settled(pass_fds=[passed], inherit_fds=True)
        try:
            fds = child_fds(p)
            assert passed in fds and inh in fds
        finally:
            finish(p)
    finally:
        os.close(passed)
        os.close(inh)


def test_signal_mask() -> None:
    p = spawnkit.spawn(["sleep", "10"], signal_mask=[signal.SIGUSR1, signal.SIGTERM])
    try:
        assert sig_mask_of(p.pid, "SigBlk") == bit(signal.SIGUSR1) | bit(signal.SIGTERM)
    finally:
        p.kill()
        p.wait()
    p = spawnkit.spawn(["sleep", "10"], signal_mask=[])
    try:
        assert sig_mask_of(p.pid, "SigBlk") == 0
    finally:
        p.kill()
        p.wait()


def test_signal_mask_inherited_by_default() -> None:
    old = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])
    try:
        p = spawnkit.spawn(["sleep", "10"])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    try:
        assert sig_mask_of(p.pid, "SigBlk") & bit(signal.SIGUSR2)
    finally:
        p.kill()
        p.wait()


@pytest.mark.native  # the binding's own argument checks
def test_invalid_signal_number() -> None:
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], signal_mask=[0])
    with pytest.raises(ValueError):
        spawnkit.spawn(["true"], default_signals=[65])


def test_default_signals_and_restore_signals() -> None:
    old = signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    try:
        kept = spawnkit.spawn(["sleep", "10"])
        reset = spawnkit.spawn(["sleep", "10"], default_signals=[signal.SIGUSR1])
        raw = spawnkit.spawn(["sleep", "10"], restore_signals=False)
    finally:
        signal.signal(signal.SIGUSR1, old)
    try:
        # ignored dispositions survive exec unless reset
        assert sig_mask_of(kept.pid, "SigIgn") & bit(signal.SIGUSR1)
        assert not sig_mask_of(reset.pid, "SigIgn") & bit(signal.SIGUSR1)
        # Python ignores SIGPIPE; restore_signals (default) resets it
        assert not sig_mask_of(kept.pid, "SigIgn") & bit(signal.SIGPIPE)
        assert sig_mask_of(raw.pid, "SigIgn") & bit(signal.SIGPIPE)
    finally:
        for p in (kept, reset, raw):
            p.kill()
            p.wait()


def test_sigpipe_kills_writer_as_with_subprocess() -> None:
    # `yes` writing into a closed pipe dies of SIGPIPE, not of EPIPE.
    p = spawnkit.spawn(["yes"], stdout=PIPE)
    assert p.stdout is not None
    p.stdout.read(10)
    p.stdout.close()
    assert p.wait() == -signal.SIGPIPE


def test_context_manager_waits_and_closes() -> None:
    with spawnkit.spawn(["sh", "-c", "echo hi"], stdout=PIPE) as p:
        assert p.stdout is not None
        assert p.stdout.read() == b"hi\n"
    assert p.returncode == 0 and p.stdout.closed


@pytest.mark.native  # a pidfd, or the /proc tree walk
def test_kill_tree_kills_descendants() -> None:
    p = spawnkit.spawn(["sh", "-c", "sleep 100 & echo $!; sleep 100 & echo $!; wait"],
                       stdout=PIPE)
    assert p.stdout is not None
    pids = [int(p.stdout.readline()), int(p.stdout.readline())]
    assert not any(is_dead(x) for x in pids)
    n = p.kill_tree()
    assert n >= 2
    assert p.wait() == -signal.SIGKILL
    assert wait_dead(pids)
    p.stdout.close()


def test_kill_tree_with_sigterm_leaves_nothing_stopped() -> None:
    p = spawnkit.spawn(["sh", "-c", "sleep 100 & echo $!; wait"], stdout=PIPE)
    assert p.stdout is not None
    gpid = int(p.stdout.readline())
    p.kill_tree(signal.SIGTERM)
    assert p.wait() == -signal.SIGTERM
    assert wait_dead([gpid])
    p.stdout.close()


def _descendants_of(pid: int) -> set[int]:
    """Living processes whose parent chain (by /proc ppid) leads to pid."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and not is_dead(int(name)):
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            parent[int(name)] = int(data[data.rindex(b")") + 2:].split()[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in found:
                found.add(c)
                todo.append(c)
    return found


def test_kill_tree_stops_a_forking_loop() -> None:
    p = spawnkit.spawn(["sh", "-c", "while :; do sleep 100 & done"])
    time.sleep(0.2)
    p.kill_tree()
    p.wait()
    # nothing started by the loop survives: no process still has sh as
    # ancestor (the library stops the tree before the walk)
    assert not _descendants_of(p.pid)


@pytest.mark.native  # the fallback's own walk also finds the job by the pipe it holds
def test_kill_tree_after_the_reap_signals_nothing_by_pid() -> None:
    # The child is reaped: its pid may be another process's now, so nothing
    # is signalled by it.  Its orphan is outside the tree (run() puts each
    # child in a session of its own so such orphans die; see test_run.py).
    p = spawnkit.spawn(["sh", "-c", "sleep 100 & echo $!"], stdout=PIPE)
    assert p.stdout is not None
    orphan = int(p.stdout.readline())
    try:
        assert p.wait() == 0
        assert p.kill_tree() == 0
        assert not is_dead(orphan)
    finally:
        os.kill(orphan, signal.SIGKILL)
        p.stdout.close()


def test_fallback_pipe_holder_search_leaves_a_fork_of_ours_alone() -> None:
    # The portable fallback (no library) finds orphans by the pipes they
    # hold; a fork of this interpreter holds both ends and is not one.
    from spawnkit._fallback import _holders
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                   # holds both pipe ends
        try:
            time.sleep(30)
        finally:
            os._exit(0)
    try:
        child = spawnkit.spawn(["sleep", "30"], stdout=w)
        try:
            found = _holders([os.fstat(r).st_ino])
            assert child.pid in found and pid not in found
        finally:
            child.kill()
            child.wait()
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r)
        os.close(w)


def test_dropped_running_process_is_reaped_later() -> None:
    p = spawnkit.spawn(["sleep", "0.1"])
    pid = p.pid
    del p
    time.sleep(0.2)
    spawnkit.spawn(["true"]).wait()                # reaps the dropped one
    assert is_dead(pid)
    from spawnkit._process import _active
    assert not any(q.pid == pid for q in _active)


@pytest.mark.native  # a pidfd, or the /proc tree walk
def test_repr() -> None:
    p = spawnkit.spawn(["true"])
    p.wait()
    assert "returncode=0" in repr(p)


@pytest.mark.threads
def test_spawn_from_many_threads() -> None:
    outs = []

    def go(i: int) -> None:
        p = spawnkit.spawn(["echo", str(i)], stdout=PIPE)
        outs.append((i, p.communicate()[0]))

    in_threads(go, [(i,) for i in range(32)])
    assert sorted(outs) == [(i, b"%d\n" % i) for i in range(32)]


def test_interpreter_is_a_venv_over_the_real_one() -> None:
    # the suite runs in a virtual environment (python/Makefile refuses
    # anything else: nothing is installed into the system interpreter),
    # over a real interpreter, not a pyenv shim script
    assert sys.prefix != sys.base_prefix
    with open(os.path.realpath(sys.executable), "rb") as f:
        assert f.read(2) != b"#!"

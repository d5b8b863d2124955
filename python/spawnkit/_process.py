"""spawn() and Process: subprocess.Popen's shape over a spawn template.

What the child gets is described by template actions, run in order in the
child before exec: DUP2 for stdin/stdout/stderr and pass_fds, FCHDIR for cwd,
SIGMASK/SIGDEFAULT for signals.  Every other fd above 2 is closed by the
library (unless inherit_fds), so nothing leaks into the child.
"""
from __future__ import annotations

import errno
import fcntl
import io
import locale
import os
import select
import signal
import subprocess
import threading
from typing import (IO, TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence,
                    Set, Tuple, Union)

from ._errors import StaleTemplateError, error_from_errno, lost_status_error
from ._ffi import ffi, lib
from ._cache import REMAKES, template_cache
from ._template import StrOrBytesPath, Template, _search_path
from ._options import SpawnOptions, check_keywords
from ._runopts import pass_fds as check_pass_fds
from ._runopts import stdio_fd
from ._tree import kill_tree as _kill_tree

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["PIPE", "STDOUT", "DEVNULL", "Process", "spawn"]

PIPE = subprocess.PIPE
STDOUT = subprocess.STDOUT
DEVNULL = subprocess.DEVNULL

#: Signals reset to SIG_DFL in the child by default, as subprocess's
#: restore_signals=True does (Python itself ignores SIGPIPE and SIGXFSZ).
RESTORED_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)

_DUP2 = lib.SPAWN_TEMPLATE_ACTION_DUP2
_FCHDIR = lib.SPAWN_TEMPLATE_ACTION_FCHDIR
_SIGMASK = lib.SPAWN_TEMPLATE_ACTION_SIGMASK
_SIGDEFAULT = lib.SPAWN_TEMPLATE_ACTION_SIGDEFAULT
_CLOSE_RANGE = lib.SPAWN_TEMPLATE_ACTION_CLOSE_RANGE
# setsid() in the child, before every other action: a session (and process
# group) of its own, which kill_tree() then signals whole.  An extension
# action: a kernel-backend template hands such a spawn to the user backend.
_SETSID_ACTION = (lib.SPAWN_TEMPLATE_ACTION_SETSID, 0, 0, 0, 0)
_KILL_GROUP = lib.SPAWNKIT_KILL_GROUP
_KILL_REAPED = lib.SPAWNKIT_KILL_REAPED

FileSpec = Union[None, int, IO[Any]]
Argv = Union[StrOrBytesPath, Sequence[StrOrBytesPath]]

# ---- shared, immutable parent-side resources --------------------------------

_devnull_fd = -1
_devnull_lock = threading.Lock()


def _devnull() -> int:
    """One /dev/null fd per process (O_CLOEXEC, above 2), dup2'd into children."""
    global _devnull_fd
    if _devnull_fd < 0:
        with _devnull_lock:
            if _devnull_fd < 0:
                fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
                if fd < 3:
                    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
                    os.close(fd)
                    fd = high
                _devnull_fd = fd
    return _devnull_fd


_sigsets: Dict[int, Any] = {}  # mask -> (address, keepalive); entries never change
_sigsets_lock = threading.Lock()


def _sigset_arg(signals: Iterable[int]) -> int:
    """Address of a spawn_template_sigset for these signals (kernel layout:
    bit n-1 for signal n), cached per mask so spawns share them."""
    mask = 0
    for s in signals:
        n = int(s)
        if not 1 <= n <= 64:
            raise ValueError(f"invalid signal number {n}")
        mask |= 1 << (n - 1)
    hit = _sigsets.get(mask)
    if hit is None:
        with _sigsets_lock:
            bits = ffi.new("uint64_t *", mask)
            st = ffi.new("struct spawn_template_sigset *")
            st.sigset = int(ffi.cast("uintptr_t", bits))
            st.sigsetsize = 8
            hit = (int(ffi.cast("uintptr_t", st)), (bits, st))
            _sigsets[mask] = hit
    return hit[0]


def _pass_fds_actions(fds: List[int]) -> List[Tuple[int, int, int, int, int]]:
    """spawnkit_actions_pass_fds() as action tuples."""
    room = 3 * len(fds) + 1
    arr = ffi.new("struct spawn_template_action[]", room)
    fdarr = ffi.new("int[]", fds)
    n = lib.spawnkit_actions_pass_fds(arr, room, fdarr, len(fds))
    if n < 0:
        raise error_from_errno(-n)
    return [(a.type, a.flags, a.fd, a.newfd, a.arg) for a in (arr[i] for i in range(n))]


def _low_fd_safe(fd: int) -> int:
    """Move a new fd of ours above 2 (only when the parent closed its stdio),
    so it can never collide with the child's 0, 1, 2."""
    if fd > 2:
        return fd
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.close(fd)
    return high


def _check_bytes(b: bytes) -> bytes:
    if b"\0" in b:
        raise ValueError("embedded null byte")        # as subprocess says it
    return b


def _envp(env: Optional[Mapping[Any, Any]]):  # type: ignore[no-untyped-def]
    """The child's envp: the C environ itself for env=None (as subprocess),
    else a NULL-terminated array built from the mapping."""
    if env is None:
        return lib.environ, None
    items = []
    for k, v in env.items():
        kb, vb = os.fsencode(k), os.fsencode(v)
        if b"=" in kb or not kb:
            raise ValueError("illegal environment variable name")
        items.append(ffi.new("char[]", _check_bytes(kb + b"=" + vb)))
    items.append(ffi.NULL)
    return ffi.new("char *[]", items), items


def _resolve(program: bytes, env: Optional[Mapping[Any, Any]],
             cwd_path: Optional[bytes]) -> bytes:
    """Absolute path of the program, as exec in the child would find it:
    names with "/" relative to the child's cwd, others over PATH (the PATH
    of `env` when given, as subprocess does)."""
    if b"/" in program:
        if program.startswith(b"/"):
            return program
        return os.path.abspath(os.path.join(cwd_path or b".", program))
    path_env: Optional[bytes]
    if env is None:
        path_env = os.environb.get(b"PATH")
    else:
        pv = env.get("PATH", env.get(b"PATH")) if hasattr(env, "get") else None
        path_env = os.fsencode(pv) if pv is not None else None
    if path_env is None:
        path_env = os.fsencode(os.defpath)
    return _search_path(program, path_env, cwd_path)


class _Setup:
    """Everything one spawn needs: the action array and the fds to close."""

    __slots__ = ("actions", "child_fds", "parent_fds", "inherit")

    def __init__(self) -> None:
        self.actions: List[Tuple[int, int, int, int, int]] = []
        self.child_fds: List[int] = []       # closed in the parent after spawn
        self.parent_fds: List[Optional[int]] = [None, None, None]  # our pipe ends
        self.inherit = False                 # spawn with INHERIT_FDS

    def close_child_side(self) -> None:
        fds, self.child_fds = self.child_fds, []
        for fd in fds:
            os.close(fd)

    def close_all(self) -> None:
        self.close_child_side()
        for i, fd in enumerate(self.parent_fds):
            if fd is not None:
                os.close(fd)
                self.parent_fds[i] = None


def _stdio(setup: _Setup, spec: Any, target: int, overwritten: Set[int]) -> None:
    if spec is None:
        return
    if spec == PIPE:
        r, w = os.pipe2(os.O_CLOEXEC)
        r, w = _low_fd_safe(r), _low_fd_safe(w)
        child, ours = (r, w) if target == 0 else (w, r)
        setup.child_fds.append(child)
        setup.parent_fds[target] = ours
        src = child
    elif spec == DEVNULL:
        src = _devnull()
    elif spec == STDOUT:
        if target != 2:
            raise ValueError("STDOUT is only valid for stderr")
        # dup2(1, 2) in the child: its fd 1 as the stdout action left it.
        setup.actions.append((_DUP2, 0, 1, 2, 0))
        return
    else:
        src = stdio_fd(spec)
    if src == target:
        return                                 # inherited as it is
    if src in overwritten:
        # An earlier action replaced the child's copy of this low fd: pass a
        # parent-side duplicate instead.
        src = fcntl.fcntl(src, fcntl.F_DUPFD_CLOEXEC, 3)
        setup.child_fds.append(src)
    setup.actions.append((_DUP2, 0, src, target, 0))
    overwritten.add(target)


def _build_setup(stdin: Any, stdout: Any, stderr: Any, cwd: Any,
                 pass_fds: Sequence[int], inherit_fds: bool, signal_mask: Optional[Iterable[int]],
                 default_signals: Iterable[int], restore_signals: bool) -> Tuple[_Setup, Optional[bytes]]:
    setup = _Setup()
    cwd_path: Optional[bytes] = None
    try:
        overwritten: Set[int] = set()
        for spec, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
            _stdio(setup, spec, target, overwritten)
        passed = check_pass_fds(pass_fds)
        if cwd is not None:
            if isinstance(cwd, int) and not isinstance(cwd, bool):
                dirfd = cwd
                os.fstat(dirfd)                # EBADF here, not in the child
                cwd_path = os.fsencode(os.readlink(f"/proc/self/fd/{cwd}"))
            else:
                cwd_path = os.fsencode(cwd)
                # open the path as given, so an error names it as given
                dirfd = os.open(os.fspath(cwd), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
                setup.child_fds.append(dirfd)
            setup.actions.append((_FCHDIR, 0, dirfd, 0, 0))
        defaults = list(default_signals)
        if restore_signals:
            defaults.extend(RESTORED_SIGNALS)
        if defaults:
            setup.actions.append((_SIGDEFAULT, 0, 0, 0, _sigset_arg(defaults)))
        if signal_mask is not None:
            setup.actions.append((_SIGMASK, 0, 0, 0, _sigset_arg(signal_mask)))
        if passed:
            # The library closes every fd above 2 after the actions, DUP2
            # targets included: its pass_fds helper re-dups each fd (clearing
            # FD_CLOEXEC) and closes the rest with CLOSE_RANGE, to be run with
            # INHERIT_FDS.  Last, as its closing ranges end every other fd;
            # with inherit_fds the other fds stay, so only the re-dups.
            acts = _pass_fds_actions(passed)
            if inherit_fds:
                acts = [a for a in acts if a[0] != _CLOSE_RANGE]
            setup.inherit = True
            setup.actions.extend(acts)
    except BaseException:
        setup.close_all()
        raise
    return setup, cwd_path


# ---- processes ---------------------------------------------------------------

_active: List["Process"] = []      # dropped while running: reaped later
_active_lock = threading.Lock()


def _cleanup() -> None:
    if not _active:
        return
    with _active_lock:
        for p in list(_active):
            try:
                if p.poll() is None:
                    continue
            except ChildProcessError:
                pass                          # reaped by another waiter
            _active.remove(p)


def _close_files(*files: Optional[IO[Any]]) -> None:
    """Close each file given, in order; a child that stopped reading makes
    flushing stdin fail with BrokenPipeError, which is no error here."""
    for f in files:
        if f is not None:
            try:
                f.close()
            except BrokenPipeError:
                pass


class Process:
    """A started child: subprocess.Popen's interface, driven by a pidfd.

    pidfd stays open until the child is reaped (then it is None); wait() and
    poll() reap through it (spawnkit_pidfd_wait), so another thread's
    waitpid(-1) cannot confuse pid reuse with this child; if such a waiter
    takes the status and the kernel kept none on the pidfd, wait() and
    poll() raise ChildProcessError instead of inventing one.
    """

    def __init__(self, args: Any, pid: int, pidfd: int,
                 fds: List[Optional[int]], text: bool = False,
                 encoding: Optional[str] = None, errors: Optional[str] = None,
                 new_session: bool = False) -> None:
        self.args = args
        self.pid = pid
        self.pidfd: Optional[int] = pidfd
        #: The child leads a session of its own (spawn(new_session=True)).
        self.new_session = new_session
        self.returncode: Optional[int] = None
        self._lost: Optional[ChildProcessError] = None
        self._wait_lock = threading.Lock()
        self._pipe_inodes = [os.fstat(fd).st_ino for fd in fds[1:] if fd is not None]
        self._text_params: Optional[Tuple[str, str]] = None
        if text:
            self._text_params = (encoding or locale.getpreferredencoding(False),
                                 errors or "strict")
        self._comm: Any = None          # communicate() state across timeouts
        self.stdin: Optional[IO[Any]] = None
        self.stdout: Optional[IO[Any]] = None
        self.stderr: Optional[IO[Any]] = None
        for i, fd in enumerate(fds):
            if fd is None:
                continue
            f: IO[Any] = io.open(fd, "wb" if i == 0 else "rb")
            if text:
                f = io.TextIOWrapper(f, encoding=encoding, errors=errors,
                                     write_through=(i == 0))
            setattr(self, ("stdin", "stdout", "stderr")[i], f)

    # ---- status ----

    def _reap(self, block: bool) -> None:
        if self._lost is not None:
            raise self._lost
        if self.pidfd is None:
            return
        st = ffi.new("int *")
        while True:
            # The library's wait: a child reaped behind our back (SIGCHLD
            # set to SIG_IGN, a stray waitpid(-1)) still gives its status
            # where the kernel keeps it on the pidfd (Linux 6.15).
            rc = lib.spawnkit_pidfd_wait(self.pidfd, 0 if block else os.WNOHANG, st)
            if rc != -errno.EINTR:     # else: run the handlers, wait again
                break
        if rc == 0:
            return
        if rc == -errno.ECHILD:
            # Lost for good: an error, never subprocess's made-up 0.
            self._lost = lost_status_error(self.pid)
            fd, self.pidfd = self.pidfd, None
            os.close(fd)
            raise self._lost
        if rc < 0:
            raise error_from_errno(-rc)
        self.returncode = os.waitstatus_to_exitcode(st[0])
        fd, self.pidfd = self.pidfd, None
        os.close(fd)

    def poll(self) -> Optional[int]:
        """The exit status if the child has ended (reaping it), else None."""
        if self.returncode is None and self._wait_lock.acquire(False):
            try:
                self._reap(block=False)
            finally:
                self._wait_lock.release()
        return self.returncode

    def _exited(self, timeout: Optional[float]) -> bool:
        """True once the child has ended (not reaped), waiting at most timeout."""
        fd = self.pidfd
        if fd is None:
            return True
        p = select.poll()
        p.register(fd, select.POLLIN)
        ms = -1 if timeout is None else max(0, int(timeout * 1000 + 0.999))
        return bool(p.poll(ms))

    def wait(self, timeout: Optional[float] = None) -> int:
        """Wait for the child to end; raises subprocess.TimeoutExpired."""
        if self.returncode is not None:
            return self.returncode
        if timeout is not None and not self._exited(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        with self._wait_lock:
            self._reap(block=True)
        assert self.returncode is not None
        return self.returncode

    # ---- signals ----

    def send_signal(self, sig: int) -> None:
        """Signal the child through its pidfd (never a recycled pid)."""
        fd = self.pidfd
        if self.returncode is not None or fd is None:
            return
        try:
            signal.pidfd_send_signal(fd, sig)
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def kill_tree(self, sig: int = signal.SIGKILL, *, all_sessions: bool = False) -> int:
        """Signal the child and everything it started.

        A child spawned with new_session=True: its session and process
        group, and their descendants, by the library's policy
        (spawnkit_kill_tree(3)); this works after the child was reaped too
        (then only the group and session, whose members keep the number).
        Returns a count > 0 if anything was signalled.

        Otherwise: the child, all its descendants, and any process still
        holding this child's stdout/stderr pipes (orphaned grandchildren),
        looked for in this session or, with all_sessions=True, everywhere.
        Returns how many processes besides the child were signalled.
        Works best before the child is reaped (its descendants are found
        through it); see spawnkit/_tree.py for how the tree is found."""
        alive = self.returncode is None and self.pidfd is not None
        if self.new_session:
            n = lib.spawnkit_kill_tree(self.pid, -1, sig,
                                       _KILL_GROUP | (0 if alive else _KILL_REAPED))
            if n < 0:
                raise error_from_errno(-n)
            return int(n)
        return _kill_tree(self.pid if alive else None, self.pidfd if alive else None,
                          sig, self._pipe_inodes, all_sessions)

    # ---- I/O ----

    def communicate(self, input: Optional[Union[bytes, str]] = None,
                    timeout: Optional[float] = None) -> Tuple[Any, Any]:
        """As Popen.communicate(); on timeout the child keeps running and
        a later call continues where this one stopped."""
        from ._run import communicate
        return communicate(self, input, timeout)

    def close(self) -> None:
        """Close our pipe ends (not the child); reap it if it has ended."""
        _close_files(self.stdin, self.stdout, self.stderr)
        try:
            self.poll()
        except ChildProcessError:
            pass          # a lost status is reported by wait(), not here

    def __enter__(self) -> "Process":
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            _close_files(self.stdout, self.stderr, self.stdin)   # Popen's order
        finally:
            self.wait()

    def __del__(self) -> None:
        if getattr(self, "pidfd", None) is None:
            return
        try:
            running = self.poll() is None
        except ChildProcessError:
            return                            # reaped by another waiter
        if running:
            with _active_lock:
                _active.append(self)      # keep it to reap later, as subprocess

    def __repr__(self) -> str:
        return f"<spawnkit.Process pid={self.pid} returncode={self.returncode}>"


class EmptyArgvError(ValueError, IndexError):
    """argv is empty: a ValueError, and an IndexError as subprocess raises."""


def _argv_bytes(args: Argv) -> List[bytes]:
    if isinstance(args, (str, bytes, os.PathLike)):
        seq: Sequence[StrOrBytesPath] = [args]
    else:
        seq = list(args)
    if not seq:
        raise EmptyArgvError("argv must not be empty")
    return [_check_bytes(os.fsencode(a)) for a in seq]


def _spawn_raw(args: Argv, *, executable: Optional[StrOrBytesPath] = None,
               stdin: Any = None, stdout: Any = None, stderr: Any = None,
               cwd: Any = None, env: Optional[Mapping[Any, Any]] = None,
               pass_fds: Sequence[int] = (), inherit_fds: bool = False,
               signal_mask: Optional[Iterable[int]] = None,
               default_signals: Iterable[int] = (), restore_signals: bool = True,
               template: Optional[Template] = None,
               warm: bool = False,
               preload: Optional[Sequence[str]] = None,
               new_session: bool = False) -> Tuple[int, int, List[Optional[int]]]:
    """Start the child; returns (pid, pidfd, [stdin_w, stdout_r, stderr_r]).
    new_session: the child calls setsid() before its other actions.
    warm=True: a Python call is forked from a warm interpreter when it fits
    (spawnkit_warm_spawn, in the library); otherwise it starts cold below.
    preload: modules the warm interpreter imports once (visible in the
    tool's sys.modules; part of the interpreter's key)."""
    _cleanup()
    argv_b = _argv_bytes(args)
    setup, cwd_path = _build_setup(stdin, stdout, stderr, cwd, pass_fds, inherit_fds,
                                   signal_mask, default_signals, restore_signals)
    try:
        argv_c = [ffi.new("char[]", a) for a in argv_b]
        argv_c.append(ffi.NULL)
        argv_p = ffi.new("char *[]", argv_c)
        envp, _keep = _envp(env)
        acts = [_SETSID_ACTION] + setup.actions if new_session else setup.actions
        actions = ffi.new("struct spawn_template_action[]", acts) if acts else ffi.NULL
        flags = lib.SPAWNKIT_SPAWN_INHERIT_FDS if inherit_fds or setup.inherit else 0
        pidfd_p = ffi.new("int *", -1)
        program = os.fsencode(executable) if executable is not None else argv_b[0]
        path: Optional[bytes] = None
        if template is None:
            try:
                path = _resolve(program, env, cwd_path)
            except OSError as e:
                # Name the program as the caller wrote it, as subprocess does.
                raise error_from_errno(e.errno or 0, os.fsdecode(program)) from None
        if warm and path is not None:
            pid_p = ffi.new("pid_t *", -1)
            pre = ",".join(preload).encode() if preload else ffi.NULL
            if lib.spawnkit_warm_spawn(path, argv_p, envp, actions, len(acts), flags,
                                       pre, pid_p, pidfd_p) == 0:
                setup.close_child_side()
                return pid_p[0], pidfd_p[0], setup.parent_fds
        # The cache policy (spawnkit_template_cache_max(3)): a cached
        # template that fails with ESTALE (file replaced) or EACCES
        # (credentials changed since it was made) is remade from its path,
        # at most REMAKES times; an explicit template reports the error.
        tmpl: Optional[Template] = template
        for attempt in range(REMAKES + 1):
            if path is None:
                assert tmpl is not None
                ptr = tmpl._acquire()
            else:
                try:
                    tmpl, ptr = template_cache.acquire(path, tmpl if attempt else None)
                except OSError as e:
                    raise error_from_errno(e.errno or 0, os.fsdecode(program)) from None
            try:
                pid = lib.spawnkit_spawn(ptr, argv_p, envp, actions, len(acts),
                                         flags, pidfd_p)
            finally:
                assert tmpl is not None
                tmpl._release()
            if pid >= 0:
                break
            if (-pid not in (errno.ESTALE, errno.EACCES) or path is None
                    or attempt == REMAKES):
                raise error_from_errno(-pid, os.fsdecode(program))
    except BaseException:
        setup.close_all()
        raise
    setup.close_child_side()
    return pid, pidfd_p[0], setup.parent_fds


def spawn(args: Argv, *, text: bool = False, encoding: Optional[str] = None,
          errors: Optional[str] = None, **options: Unpack[SpawnOptions]) -> Process:
    """Start `args` (argv list; args[0] is resolved over PATH unless it has
    a "/", or `executable` names the program) and return its Process.

    stdin/stdout/stderr: None (inherit), PIPE, DEVNULL, an fd, a file object,
        or STDOUT for stderr; as subprocess.
    cwd: a path or an open directory fd for the child's working directory.
    env: the child's whole environment (None: this process's).
    pass_fds: fds given to the child under the same numbers; every other fd
        above 2 is closed unless inherit_fds=True (then only FD_CLOEXEC ones).
    signal_mask: the child's blocked signals (None: inherited from this thread).
    default_signals: signals reset to SIG_DFL; restore_signals also resets
        SIGPIPE and SIGXFSZ, which Python ignores, as subprocess does.
    template: spawn from this Template instead of the process-wide cache
        (ESTALE is then raised as StaleTemplateError, not handled).
    warm: start a Python call (`python [flags] script|-c|-m ...`) from a
        warm interpreter when it fits; anything else runs cold, with the
        reason counted in warm_stats().  preload: modules the warm
        interpreter imports once (then in the tool's sys.modules: opt-in).
        See docs/warm.md.
    new_session: the child calls setsid() first (subprocess's
        start_new_session): a session and process group of its own, which
        Process.kill_tree() signals whole, and no controlling terminal
        (opening /dev/tty fails with ENXIO instead of waiting on a prompt).
        Such a spawn never runs warm.
    The options and their defaults are _spawn_raw()'s (SpawnOptions).
    """
    check_keywords("spawn", options, SpawnOptions)
    pid, pidfd, fds = _spawn_raw(args, **options)
    try:
        return Process(args, pid, pidfd, fds, text=bool(text or encoding or errors),
                       encoding=encoding, errors=errors,
                       new_session=options.get("new_session", False))
    except BaseException:
        for fd in fds:
            if fd is not None:
                os.close(fd)
        raise

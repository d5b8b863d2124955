"""run(): subprocess.run() with the defaults an agent runtime wants, as one
call of the library's spawnkit_run(3) made without the GIL.

The library does the whole run: the child starts in a session of its own
(new_session=False opts out), stdin is fed, stdout and stderr are pumped
into head+tail captures (1 MiB per stream by default), the timeout, the
no-output timeout and the wait delay apply, the child is reaped through its
pidfd, and what is left of its tree (background jobs of a successful call
included) is killed.  This module checks the options once, turns them into
a struct spawnkit_run_opts, and turns the result into a CompletedProcess:
no pump, capture, PATH search or tree kill of its own.

on_stdout/on_stderr and signal handlers run inside the call: the library
calls back into Python (cffi re-takes the GIL), and an exception raised
there (a callback's, or KeyboardInterrupt from a handler) stops the run,
kills the tree, and is raised from run() after.
"""
from __future__ import annotations

import errno
import inspect
import os
import subprocess
import threading
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional,
                    Sequence, Tuple, Union, overload)

from ._cache import REMAKES, template_cache
from ._errors import NoOutputTimeoutExpired, TimeoutExpired, error_from_errno, lost_status_error
from ._ffi import ffi, lib
from ._communicate import communicate  # noqa: F401  (Process.communicate() imports it here)
from ._process import (Argv, _argv_bytes, _envp, _pass_fds_actions,
                       _resolve, _sigset_arg)
from ._results import (DEFAULT_OUTPUT_LIMIT, KILL_GRACE, CompletedProcess, TextParams,
                       _decode, _encode_input, _incremental, _text_params)
from . import _runopts as opt
from ._template import StrOrBytesPath

if TYPE_CHECKING:
    from typing import Literal

    from typing_extensions import Unpack

    from ._options import RunOptions

    class _Options(RunOptions, total=False):
        """run()'s options besides those aio.run() takes too."""
        truncation_marker: bool
        rlimits: Optional[opt.RlimitsArg]
        umask: Optional[int]
        nice: Optional[int]
        sched_policy: Optional[int]
        cgroup: Union[None, int, StrOrBytesPath]
        pty: bool
        pty_size: Optional[Tuple[int, int]]

__all__ = ["CompletedProcess", "run", "communicate", "KILL_GRACE", "DEFAULT_OUTPUT_LIMIT"]

_PIPE, _DEVNULL, _STDOUT = subprocess.PIPE, subprocess.DEVNULL, subprocess.STDOUT
_M_PIPE = lib.SPAWNKIT_RUN_PIPE
_M_DEVNULL = lib.SPAWNKIT_RUN_DEVNULL
_M_INHERIT = lib.SPAWNKIT_RUN_INHERIT
_M_FD = lib.SPAWNKIT_RUN_FD
_M_STDOUT = lib.SPAWNKIT_RUN_STDOUT
_TIMED_OUT = lib.SPAWNKIT_RUN_TIMED_OUT
_NO_OUTPUT = lib.SPAWNKIT_RUN_NO_OUTPUT
_JOIN_BYTES = lib.SPAWNKIT_JOIN_MARKER
_JOIN_TEXT = lib.SPAWNKIT_JOIN_MARKER | lib.SPAWNKIT_JOIN_LINES
_REMAKE_ERRNOS = (errno.ESTALE, errno.EACCES)
_UNLIMITED = (1 << 64) - 1 if ffi.sizeof("size_t") == 8 else (1 << 32) - 1

_SIGDEFAULT = lib.SPAWN_TEMPLATE_ACTION_SIGDEFAULT
_SIGMASK = lib.SPAWN_TEMPLATE_ACTION_SIGMASK
# restore_signals=True: SIGPIPE and SIGXFSZ (RESTORED_SIGNALS) back to
# SIG_DFL, by the library's own action (no checked copy of ours at spawn)
_RESTORE = lib.SPAWNKIT_RUN_RESTORE_SIGNALS

# run()'s defaults as one struct, copied for each call: the library's
# (spawnkit_run_opts_init), stdin /dev/null, signals restored, and
# on_signal, so a signal handler runs (and may raise) during the run.
_OPTS_P = ffi.typeof("struct spawnkit_run_opts *")
_RESULT_P = ffi.typeof("struct spawnkit_run_result *")
_BASE = ffi.new(_OPTS_P)
lib.spawnkit_run_opts_init(_BASE)
_BASE.std_mode[0] = _M_DEVNULL
_BASE.flags = _RESTORE
_BASE.on_signal = lib._sk_run_on_signal
_NOTHING = (b"", b"", b"", 0)
_STREAMS = ("stdout", "stderr")


class _Call:
    """The output callbacks of one run (with their decoders in text mode),
    reached from the library's on_output through a handle."""

    __slots__ = ("fns", "decoders")

    def __init__(self) -> None:
        self.fns: List[Optional[Callable[[Any], object]]] = [None, None, None]
        self.decoders: List[Optional[Any]] = [None, None, None]

    def flush(self) -> None:
        """The text a decoder still holds at the end (a final partial
        character becomes U+FFFD or an error, per errors=)."""
        for fd in (1, 2):
            dec, fn = self.decoders[fd], self.fns[fd]
            if dec is not None and fn is not None:
                rest = dec.decode(b"", True)
                if rest:
                    fn(rest)


class _Pending(threading.local):
    """The first exception raised in a callback of the run on this thread
    (a user's on_stdout/on_stderr, a signal handler): the callback returns
    non-zero so the library stops the run, and run() raises it after."""

    exc: Optional[BaseException] = None


_pending = _Pending()


def _callback_error(exc_type: Any, exc: BaseException, tb: Any) -> int:
    """cffi's onerror: an exception raised before a callback's own try (a
    signal handler runs as the callback is entered)."""
    if _pending.exc is None:
        _pending.exc = exc
    return 1                                 # stop the run


@ffi.def_extern(onerror=_callback_error)  # type: ignore[misc,untyped-decorator,unused-ignore]
def _sk_run_on_output(ctx: Any, fd: int, data: Any, n: int) -> int:
    call: _Call = ffi.from_handle(ctx)
    fn = call.fns[fd]
    if fn is None:
        return 0
    try:
        chunk: Any = ffi.unpack(ffi.cast("char *", data), n)
        dec = call.decoders[fd]
        if dec is not None:
            chunk = dec.decode(chunk)
            if not chunk:
                return 0
        fn(chunk)
    except BaseException as e:
        return _callback_error(type(e), e, None)
    return 0


def _run_handlers() -> None:
    """Returning here from a loop's back edge makes the interpreter run the
    signal handlers that are pending (they run only in the main thread)."""
    for _ in range(1):
        pass


@ffi.def_extern(onerror=_callback_error)  # type: ignore[misc,untyped-decorator,unused-ignore]
def _sk_run_on_signal(ctx: Any) -> int:
    try:
        _run_handlers()
    except BaseException as e:
        return _callback_error(type(e), e, None)
    return 0


def _stdio_mode(spec: Any, i: int) -> Tuple[int, int]:
    """(std_mode, std_fd) of a stdin/stdout/stderr argument."""
    if spec == _PIPE:
        return _M_PIPE, -1
    if spec is None:
        return _M_INHERIT, -1
    if spec == _DEVNULL:
        return _M_DEVNULL, -1
    if spec == _STDOUT:
        if i != 2:
            raise ValueError("STDOUT is only valid for stderr")
        return _M_STDOUT, -1
    fd = opt.stdio_fd(spec)
    return (_M_INHERIT, -1) if fd == i else (_M_FD, fd)


def _output(out: Any, join: int) -> Tuple[bytes, bytes, bytes, int]:
    """(shown, head, tail, dropped) of one stream of a result (out: a
    pointer to its struct spawnkit_run_output)."""
    hl, tl, dropped = out.head_len, out.tail_len, int(out.dropped)
    if not hl and not tl and not dropped:
        return _NOTHING
    head = ffi.unpack(out.head, hl) if hl else b""
    tail = ffi.unpack(out.tail, tl) if tl else b""
    if not dropped or not join:
        return head + tail, head, tail, dropped
    n = lib.spawnkit_run_output_join(out, join, ffi.NULL, 0)
    if n < 0:
        raise error_from_errno(-n)
    buf = ffi.new("char[]", n + 1)
    lib.spawnkit_run_output_join(out, join, buf, n + 1)
    return ffi.unpack(buf, n), head, tail, dropped


def _actions(o: Any, keep: List[Any], signal_mask: Optional[Iterable[int]],
             default_signals: Iterable[int], restore_signals: bool,
             pass_fds: Sequence[int], inherit_fds: bool,
             limits: List[Tuple[int, int, int]], mask: Optional[int],
             nice: Optional[int] = None, policy: Optional[int] = None) -> bool:
    """Put the extra actions into o; True if fds are passed (INHERIT_FDS)."""
    defaults = list(default_signals)
    if not restore_signals:
        o.flags &= ~_RESTORE
    if (not defaults and signal_mask is None and not pass_fds and not limits and mask is None
            and not nice and policy is None):
        return inherit_fds
    acts: List[Tuple[int, int, int, int, int]] = []
    if defaults:
        acts.append((_SIGDEFAULT, 0, 0, 0, _sigset_arg(defaults)))
    if signal_mask is not None:
        acts.append((_SIGMASK, 0, 0, 0, _sigset_arg(signal_mask)))
    passed = opt.pass_fds(pass_fds)
    if passed:
        pa = _pass_fds_actions(passed)
        if inherit_fds:
            pa = [a for a in pa if a[0] != lib.SPAWN_TEMPLATE_ACTION_CLOSE_RANGE]
        acts.extend(pa)
    n = len(acts) + len(limits) + (mask is not None) + bool(nice) + (policy is not None)
    arr = ffi.new("struct spawn_template_action[]", n)
    for i, a in enumerate(acts):
        arr[i] = a
    i = len(acts)
    for res, soft, hard in limits:
        rl = ffi.new("struct spawn_template_rlimit *", (soft, hard))
        keep.append(rl)
        lib.spawnkit_action_setrlimit(arr + i, res, rl)
        i += 1
    if mask is not None:
        lib.spawnkit_action_umask(arr + i, mask)
        i += 1
    if nice:
        lib.spawnkit_action_nice(arr + i, nice)
        i += 1
    if policy is not None:
        lib.spawnkit_action_sched_policy(arr + i, policy)
    keep.append(arr)
    o.actions = arr
    o.nr_actions = n
    return inherit_fds or bool(passed)


def _cwd(cwd: Any, keep_fds: List[int]) -> Tuple[int, Optional[bytes]]:
    """(the child's cwd fd, its path for the PATH search)."""
    if cwd is None:
        return -1, None
    if isinstance(cwd, int) and not isinstance(cwd, bool):
        os.fstat(cwd)                                # EBADF here, not in the child
        return cwd, os.fsencode(os.readlink(f"/proc/self/fd/{cwd}"))
    # opened as given, so an error names it as given
    fd = os.open(os.fspath(cwd), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    keep_fds.append(fd)
    return fd, os.fsencode(cwd)


def _spawnkit_run(o: Any, res: Any, program: bytes, path: bytes,
                  failed: Optional[Any] = None) -> Any:
    """spawnkit_run() from the cached template for path; a template that
    fails with ESTALE (file replaced) or EACCES (credentials changed) is
    remade, at most REMAKES times, as spawn() does (`failed`: one that has
    failed so already).  Returns the template the run was made from."""
    tmpl = failed
    for attempt in range(REMAKES + 1):
        try:
            tmpl, ptr = template_cache.acquire(path, tmpl)
        except OSError as e:
            raise error_from_errno(e.errno or 0, os.fsdecode(program)) from None
        o.tmpl = ptr
        try:
            rc = lib.spawnkit_run(o, res)
        finally:
            tmpl._release()
        if rc == 0:
            return tmpl
        if -rc not in _REMAKE_ERRNOS or attempt == REMAKES:
            raise error_from_errno(-rc, os.fsdecode(program))


@overload
def run(args: Argv, *, text: Literal[True], encoding: Optional[str] = None,
        errors: Optional[str] = None, universal_newlines: Optional[bool] = None,
        on_stdout: Optional[Callable[[str], object]] = None,
        on_stderr: Optional[Callable[[str], object]] = None,
        **kwargs: Unpack[_Options]) -> CompletedProcess[str]: ...


@overload
def run(args: Argv, *, text: Optional[bool] = None, encoding: str,
        errors: Optional[str] = None, universal_newlines: Optional[bool] = None,
        on_stdout: Optional[Callable[[str], object]] = None,
        on_stderr: Optional[Callable[[str], object]] = None,
        **kwargs: Unpack[_Options]) -> CompletedProcess[str]: ...


@overload
def run(args: Argv, *, text: Optional[bool] = None, encoding: Optional[str] = None,
        errors: str, universal_newlines: Optional[bool] = None,
        on_stdout: Optional[Callable[[str], object]] = None,
        on_stderr: Optional[Callable[[str], object]] = None,
        **kwargs: Unpack[_Options]) -> CompletedProcess[str]: ...


@overload
def run(args: Argv, *, text: Optional[bool] = None, encoding: Optional[str] = None,
        errors: Optional[str] = None, universal_newlines: Literal[True],
        on_stdout: Optional[Callable[[str], object]] = None,
        on_stderr: Optional[Callable[[str], object]] = None,
        **kwargs: Unpack[_Options]) -> CompletedProcess[str]: ...


@overload
def run(args: Argv, *, text: Literal[False, None] = None, encoding: None = None,
        errors: None = None, universal_newlines: Literal[False, None] = None,
        on_stdout: Optional[Callable[[bytes], object]] = None,
        on_stderr: Optional[Callable[[bytes], object]] = None,
        **kwargs: Unpack[_Options]) -> CompletedProcess[bytes]: ...


@overload
def run(args: Argv, *, text: Optional[bool] = None, encoding: Optional[str] = None,
        errors: Optional[str] = None, universal_newlines: Optional[bool] = None,
        on_stdout: Optional[Callable[[Any], object]] = None,
        on_stderr: Optional[Callable[[Any], object]] = None,
        **kwargs: Unpack[_Options]) -> CompletedProcess[Any]: ...


def run(args: Argv, **options: Any) -> CompletedProcess[Any]:
    """Run a command to its end and return a CompletedProcess.

    As subprocess.run(), except: stdin is /dev/null and stdout/stderr are
    captured by default; the child starts in a new session (no controlling
    terminal: /dev/tty fails at once instead of waiting on a prompt), and
    whatever is left of it after it exits (background jobs) or on a timeout
    is killed; there is no shell=True (pass ["sh", "-c", cmd]).

    timeout: seconds for the whole run (TimeoutExpired, a
        subprocess.TimeoutExpired); no_output_timeout: seconds without any
        output (NoOutputTimeoutExpired); wait_delay: once the child has
        exited, seconds its pipes may stay open (held by a background job)
        before their holders are killed, as Go's exec.Cmd.WaitDelay; the
        child's own status is returned.  None: no limit.
    output_limit: bytes kept per stream, half from the start and half from
        the end (default 1 MiB; None keeps everything); stdout then shows
        "[... N bytes omitted ...]" where bytes were dropped (at line
        boundaries in text mode) unless truncation_marker=False.  The kept
        parts are stdout_head/stdout_tail, the count stdout_dropped.
    on_stdout/on_stderr: called with each chunk as it comes (bytes, or str
        in text mode, never splitting a character); an exception raised
        there stops the run, kills the tree and is raised from run().
    new_session: False keeps the child in the caller's session and process
        group (default True; warm=True calls default to False, as a warm
        interpreter cannot start a session; pass True to run them cold).
    rlimits: {"RLIMIT_NOFILE" or resource.RLIMIT_NOFILE: (soft, hard) or
        both}; umask: the child's umask; nice: added to the child's nice
        value as nice -n does (-39..39; the child and all it starts keep
        it; a negative one needs CAP_SYS_NICE, else PermissionError);
        sched_policy: the child's scheduling policy, os.SCHED_OTHER,
        os.SCHED_BATCH or os.SCHED_IDLE (its nice value kept; SCHED_IDLE
        sticks to it and all it starts, and gives way to every normal task
        of its session or cgroup); cgroup: a writable cgroup2 directory (path or fd) the child starts
        in, killed whole at the end.
    pty: the child runs on a new pty, its controlling terminal, of
        pty_size=(rows, cols) (default 24 x 80); input is typed ahead, and
        its output (stderr too: a terminal has one) is stdout, with "\r\n"
        in bytes mode; stdin/stdout/stderr= and new_session=False do not
        apply then.
    warm/preload: start a Python call from a warm interpreter when it fits
        (docs/warm.md); the result is the same, only faster.
    kill_grace is accepted for the portable fallback and aio.run(); the
        library drains for at most 2 seconds after a kill.
    Exceptions otherwise match subprocess: FileNotFoundError/PermissionError
    /OSError for a program that cannot start, CalledProcessError if check.
    """
    if options:
        return _run_options(args, **options)
    return _run_defaults(args)


def _run_options(args: Argv, *, input: Union[None, bytes, str] = None,
                 timeout: Optional[float] = None, no_output_timeout: Optional[float] = None,
                 wait_delay: Optional[float] = None,
                 capture_output: bool = True, output_limit: Optional[int] = DEFAULT_OUTPUT_LIMIT,
                 truncation_marker: bool = True,
                 stdin: Any = None, stdout: Any = None, stderr: Any = None,
                 cwd: Union[None, StrOrBytesPath, int] = None,
                 env: Optional[Mapping[Any, Any]] = None, check: bool = False,
                 text: Optional[bool] = None, encoding: Optional[str] = None,
                 errors: Optional[str] = None, universal_newlines: Optional[bool] = None,
                 executable: Optional[StrOrBytesPath] = None,
                 pass_fds: Sequence[int] = (), inherit_fds: bool = False,
                 signal_mask: Optional[Iterable[int]] = None,
                 default_signals: Iterable[int] = (), restore_signals: bool = True,
                 kill_grace: float = KILL_GRACE, new_session: Optional[bool] = None,
                 on_stdout: Optional[Callable[[Any], object]] = None,
                 on_stderr: Optional[Callable[[Any], object]] = None,
                 rlimits: Optional[opt.RlimitsArg] = None, umask: Optional[int] = None,
                 nice: Optional[int] = None, sched_policy: Optional[int] = None,
                 cgroup: Union[None, int, StrOrBytesPath] = None,
                 pty: bool = False, pty_size: Optional[Tuple[int, int]] = None,
                 warm: bool = False, preload: Optional[Sequence[str]] = None
                 ) -> CompletedProcess[Any]:
    """run() with options: every one checked, then one spawnkit_run()."""
    if input is not None and stdin is not None:
        raise ValueError("stdin and input arguments may not both be used.")
    tp = _text_params(text, encoding, errors, universal_newlines) if (
        text or encoding or errors or universal_newlines) else None
    # The defaults are in _BASE; only what differs is set (each cffi field
    # store costs about as much as a small function call).
    o = ffi.new(_OPTS_P, _BASE[0])
    keep: List[Any] = []
    close_fds: List[int] = []
    call: Optional[_Call] = None
    try:
        # ---- what the child gets ----
        argv_b = _argv_bytes(args)
        if input is not None:
            data = _encode_input(input, tp)
            o.std_mode[0] = _M_PIPE
            if data:
                buf = ffi.from_buffer(data)
                keep.append(buf)
                o.input = buf
                o.input_len = len(data)
        elif stdin is not None:
            o.std_mode[0], o.std_fd[0] = _stdio_mode(stdin, 0)
        if pty is not False:
            if opt.check_bool("pty", pty):
                if stdin is not None or stdout is not None or stderr is not None or (
                        capture_output is not True):
                    raise ValueError("pty=True: the pty is the child's stdin, stdout and "
                                     "stderr (no stdin=, stdout=, stderr=, capture_output=)")
                o.flags |= lib.SPAWNKIT_RUN_PTY
                o.std_mode[0] = _M_PIPE
                o.pty_rows, o.pty_cols = opt.pty_size(pty_size)
        elif pty_size is not None:
            raise ValueError("pty_size needs pty=True")
        if capture_output is not True:
            if capture_output is not False:
                raise TypeError(f"capture_output must be True or False, not {capture_output!r}")
            o.std_mode[1] = o.std_mode[2] = _M_INHERIT
        if stdout is not None:
            o.std_mode[1], o.std_fd[1] = _stdio_mode(stdout, 1)
        if stderr is not None:
            o.std_mode[2], o.std_fd[2] = _stdio_mode(stderr, 2)
        piped1, piped2 = o.std_mode[1] == _M_PIPE, o.std_mode[2] == _M_PIPE
        if output_limit != DEFAULT_OUTPUT_LIMIT:
            if output_limit is None:
                o.head[1] = o.head[2] = _UNLIMITED
                o.tail[1] = o.tail[2] = 0
            elif isinstance(output_limit, bool) or not isinstance(output_limit, int):
                raise TypeError(f"output_limit must be an int or None, not {output_limit!r}")
            elif output_limit < 0:
                raise ValueError("output_limit must be >= 0")
            else:
                o.head[1] = o.head[2] = (output_limit + 1) // 2
                o.tail[1] = o.tail[2] = output_limit // 2
        if truncation_marker is True:
            join = _JOIN_TEXT if tp else _JOIN_BYTES
        else:
            opt.check_bool("truncation_marker", truncation_marker)
            join = 0

        # ---- how the run ends ----
        if timeout is not None:
            o.timeout_ms = opt.milliseconds("timeout", timeout, True)
        if no_output_timeout is not None:
            if not (piped1 or piped2):
                raise ValueError("no_output_timeout needs stdout or stderr captured")
            o.no_output_timeout_ms = opt.milliseconds("no_output_timeout",
                                                      no_output_timeout, True)
        if wait_delay is not None:
            o.wait_delay_ms = opt.milliseconds("wait_delay", wait_delay, False)
        if kill_grace is not KILL_GRACE:
            opt.milliseconds("kill_grace", kill_grace, False)
        if warm is not False:
            opt.check_bool("warm", warm)
            o.flags |= lib.SPAWNKIT_RUN_WARM
            if preload:
                pre = ffi.new("char[]", ",".join(preload).encode())
                keep.append(pre)
                o.warm_preload = pre
        elif preload:
            raise ValueError("preload needs warm=True")
        if new_session is None:
            new_session = pty or not warm
        elif new_session is not True:
            opt.check_bool("new_session", new_session)
            if pty:
                raise ValueError("pty=True needs new_session: the pty is the controlling "
                                 "terminal of the child's own session")
        if not new_session:
            o.flags |= lib.SPAWNKIT_RUN_NO_NEW_SESSION

        # ---- streamed output (signal handlers run through _BASE's on_signal) ----
        if on_stdout is not None or on_stderr is not None:
            call = _Call()
            for fd, name, fn in ((1, "on_stdout", on_stdout), (2, "on_stderr", on_stderr)):
                if opt.check_callback(name, fn) is None:
                    continue
                if fd == 2 and o.std_mode[2] == _M_STDOUT:
                    raise ValueError("with stderr=STDOUT the output comes to on_stdout")
                if not (piped1 if fd == 1 else piped2):
                    raise ValueError(f"{name} needs {name[3:]} captured (PIPE)")
                call.fns[fd] = fn
                call.decoders[fd] = None if tp is None else _incremental(tp)
            handle = ffi.new_handle(call)
            keep.append(handle)
            o.ctx = handle
            o.on_output = lib._sk_run_on_output

        # ---- the child's environment, cwd, limits, signals, fds ----
        if env is not None:
            envp, env_keep = _envp(env)
            keep.append(env_keep)
            o.envp = envp
        cwd_path = None
        if cwd is not None:
            o.cwd_fd, cwd_path = _cwd(cwd, close_fds)
        if cgroup is not None:
            o.cgroup_fd, owned = opt.cgroup_fd(cgroup)
            if owned:
                close_fds.append(o.cgroup_fd)
        if (restore_signals is not True or default_signals or signal_mask is not None
                or pass_fds or inherit_fds is not False or rlimits is not None
                or umask is not None or nice is not None or sched_policy is not None):
            if _actions(o, keep, signal_mask, default_signals,
                        opt.check_bool("restore_signals", restore_signals), pass_fds,
                        opt.check_bool("inherit_fds", inherit_fds),
                        opt.rlimits(rlimits), opt.umask(umask), opt.nice(nice),
                        opt.sched_policy(sched_policy)):
                o.flags |= lib.SPAWNKIT_RUN_INHERIT_FDS
        argv_c = [ffi.new("char[]", a) for a in argv_b]
        argv_c.append(ffi.NULL)
        keep.append(argv_c)
        argv_p = ffi.new("char *[]", argv_c)
        o.argv = argv_p

        # ---- the run ----
        program = os.fsencode(executable) if executable is not None else argv_b[0]
        try:
            path = _resolve(program, env, cwd_path)
        except OSError as e:
            # Name the program as the caller wrote it, as subprocess does.
            raise error_from_errno(e.errno or 0, os.fsdecode(program)) from None
        res = ffi.new(_RESULT_P)
        try:
            _spawnkit_run(o, res, program, path)
        finally:
            exc = _pending.exc
            if exc is not None:
                _pending.exc = None
    finally:
        for fd in close_fds:
            os.close(fd)
    try:
        if exc is not None:
            raise exc
        if call is not None:
            call.flush()
        status = res.status
        why = res.why
        out1 = _output(res.out + 1, join) if piped1 else None
        out2 = _output(res.out + 2, join) if piped2 else None
    finally:
        lib.spawnkit_run_result_free(res)
    if status == -1:
        raise lost_status_error(res.pid)
    return _completed(args, os.waitstatus_to_exitcode(status), why, out1, out2, tp, check,
                      timeout, no_output_timeout)


def _completed(args: Any, returncode: int, why: int,
               out1: Optional[Tuple[bytes, bytes, bytes, int]],
               out2: Optional[Tuple[bytes, bytes, bytes, int]], tp: TextParams,
               check: bool, timeout: Optional[float],
               no_output_timeout: Optional[float]) -> CompletedProcess[Any]:
    """The CompletedProcess, or the TimeoutExpired/CalledProcessError."""
    shown: List[Any] = [None, None]
    parts: Dict[str, Any] = {}
    for i, out in ((0, out1), (1, out2)):
        if out is None:
            continue
        name = _STREAMS[i]
        if tp is None:
            shown[i] = out[0]
            parts[name + "_head"], parts[name + "_tail"] = out[1], out[2]
        else:
            shown[i] = _decode(out[0], out[3], tp)
            parts[name + "_head"] = _decode(out[1], out[3], tp)
            parts[name + "_tail"] = _decode(out[2], out[3], tp)
        parts[name + "_dropped"] = out[3]
    if why & _TIMED_OUT:
        raise TimeoutExpired(args, timeout, shown[0], shown[1], **parts)  # type: ignore[arg-type]
    if why & _NO_OUTPUT:
        raise NoOutputTimeoutExpired(args, no_output_timeout, shown[0], shown[1],  # type: ignore[arg-type]
                                     **parts)
    if check and returncode:
        raise subprocess.CalledProcessError(returncode, args, shown[0], shown[1])
    return CompletedProcess(args, returncode, shown[0], shown[1], **parts)


# run()'s TypeErrors (an unknown keyword) name run(), as subprocess.run's do.
_run_options.__name__ = _run_options.__qualname__ = "run"


# The signature help() and inspect show, and the defaults aio.run() takes
# from run.__kwdefaults__: _run_options' (every option).  run() itself has
# no keyword-only parameters, so the call never reads them.
setattr(run, "__signature__", inspect.signature(_run_options))
setattr(run, "__kwdefaults__", _run_options.__kwdefaults__)


class _Argv:
    """A prepared argv (a tuple of str) of run(argv) with every option at
    its default: its char *[] with the strings it points to, the program's
    bytes, and for an absolute program the template it last ran from (None
    until then, or after it failed: then the cache is asked)."""

    __slots__ = ("argv_p", "strings", "program", "tmpl", "spares")

    def __init__(self, argv_b: List[bytes]) -> None:
        self.strings: List[Any] = [ffi.new("char[]", a) for a in argv_b]
        self.strings.append(ffi.NULL)
        self.argv_p = ffi.new("char *[]", self.strings)
        self.program = argv_b[0]
        self.tmpl: Optional[Any] = None
        # opts and result structs of finished runs of this argv (o.argv set)
        self.spares: List[Tuple[Any, Any]] = []


# An agent runs the same few commands again and again.  Entries are shared
# by threads (each call holds the one it uses); the dict is emptied when full.
_ARGVS: Dict[Tuple[str, ...], _Argv] = {}
_ARGVS_MAX = 64

# The opts and result structs of finished default runs of an argv, kept
# in its entry for the next ones: two allocations (and the copy of _BASE)
# fewer a call, which after each exec, with cold caches, cost ~7 us of the
# parent's CPU, and o.argv already set.  A call takes a pair off
# (list.pop is atomic under the GIL), so concurrent and nested runs (a
# signal handler's) never share one; the library sets tmpl, the only
# other field a default run changes (_sk_run_held), and the pair goes
# back once its result is read and freed (one that raised is left to the
# collector).
_SPARE_MAX = 4
_HELD_CLOSED = lib._SK_RUN_CLOSED
_HELD_NOISY = lib._SK_RUN_NOISY
_HELD_QUIET = lib._SK_RUN_QUIET
_run_held = lib._sk_run_held


def _argv_entry(key: Tuple[str, ...]) -> _Argv:
    entry = _Argv(_argv_bytes(key))         # EmptyArgvError, embedded NUL: ValueError
    if len(_ARGVS) >= _ARGVS_MAX:
        _ARGVS.clear()
    _ARGVS[key] = entry
    return entry


def _run_defaults(args: Argv) -> CompletedProcess[bytes]:
    """run(args) with no options: what _run_options() does for its defaults
    (stdin /dev/null, both outputs captured with the 1 MiB limit and the
    marker, a new session, SIGPIPE and SIGXFSZ restored, the caller's
    environment), without checking options there are none of.

    The program is resolved on each call, as there.  An absolute program
    runs from the template its entry holds, taken from the template cache
    once: a template the cache has closed since (evicted, idle, cleared),
    or one that fails with ESTALE or EACCES, sends the call to the cache,
    which remakes it as for any run()."""
    seq: Any = args
    kind = type(seq)
    if kind is not list and kind is not tuple:
        return _run_options(args)
    key: Tuple[str, ...] = tuple(seq)
    try:
        entry = _ARGVS.get(key)
    except TypeError:                       # an unhashable element: not an argv
        return _run_options(args)
    if entry is None:
        if not key or any(type(a) is not str for a in key):
            return _run_options(args)
        entry = _argv_entry(key)
    spares = entry.spares
    try:
        o, res = spares.pop()               # a pair a finished call gave back
    except IndexError:
        o, res = ffi.new(_OPTS_P, _BASE[0]), ffi.new(_RESULT_P)
        o.argv = entry.argv_p
    tmpl = entry.tmpl
    # The run from the entry's template, held in C for it, and the common
    # end read there too: the returncode (+ _HELD_QUIET) of a run with no
    # stop (a callback's exception comes with SPAWNKIT_RUN_STOPPED in
    # `why`), no output (nothing allocated: run.h) and a status.
    # _HELD_CLOSED: not run from the entry's template (none yet, or the
    # cache has closed it since).
    got = _HELD_CLOSED if tmpl is None else _run_held(tmpl._hold, o, res)
    if got >= _HELD_QUIET - 128:            # -signal down to -127 at most
        rcode = got - _HELD_QUIET
    elif got == _HELD_NOISY:                # the C call found it not quiet
        return _finish_defaults(args, o, res, spares)
    else:
        _run_from_cache(entry, o, res, None if got == _HELD_CLOSED else got)
        status = lib._sk_run_quiet_status(res)
        if status < 0:
            return _finish_defaults(args, o, res, spares)
        rcode = os.waitstatus_to_exitcode(status)
    if len(spares) < _SPARE_MAX:
        spares.append((o, res))
    # made without CompletedProcess.__init__, whose attributes it sets as
    # that would (test_run_fast checks)
    r = _new_result(CompletedProcess)
    d = _QUIET.copy()                       # a copy is faster than a literal
    d["args"] = args
    d["returncode"] = rcode
    r.__dict__ = d
    return r


_new_result = object.__new__
# A silent run's attributes, in __init__'s order; args and returncode set
# per call.
_QUIET: Dict[str, Any] = {
    "args": None, "returncode": 0, "stdout": b"", "stderr": b"",
    "stdout_dropped": 0, "stderr_dropped": 0, "stdout_head": b"",
    "stdout_tail": b"", "stderr_head": b"", "stderr_tail": b""}


def _run_from_cache(entry: _Argv, o: Any, res: Any, rc: Optional[int]) -> None:
    """The default run when the entry's template did not make it: none
    yet, closed (rc None), replaced or no longer ours to run (ESTALE,
    EACCES), from the cache, which remakes it; any other error raised."""
    program = entry.program
    try:
        if rc is None or -rc in _REMAKE_ERRNOS:
            if program[:1] == b"/":
                entry.tmpl = _spawnkit_run(o, res, program, program, entry.tmpl)
            else:
                try:
                    path = _resolve(program, None, None)
                except OSError as e:
                    raise error_from_errno(e.errno or 0, os.fsdecode(program)) from None
                _spawnkit_run(o, res, program, path)
        elif rc:
            raise error_from_errno(-rc, os.fsdecode(program))
    except BaseException:
        exc = _pending.exc
        if exc is not None:
            _pending.exc = None
        raise


def _finish_defaults(args: Any, o: Any, res: Any,
                     spares: List[Tuple[Any, Any]]) -> CompletedProcess[bytes]:
    """The result of a default run that was stopped, printed something or
    lost its status."""
    exc = _pending.exc
    if exc is not None:
        _pending.exc = None
    silent = False
    try:
        if exc is not None:
            raise exc
        status = res.status
        # no timeout, wait delay or stop fd here: `why` can say nothing but
        # STOPPED, and a stop comes with the exception raised above
        outs = res.out
        silent = not (outs[1].total or outs[2].total)
        if silent:      # nothing read, nothing allocated (run.h: NULL if none)
            out1 = out2 = _NOTHING
        else:
            out1 = _output(outs + 1, _JOIN_BYTES)
            out2 = _output(outs + 2, _JOIN_BYTES)
    finally:
        if not silent:
            lib.spawnkit_run_result_free(res)
    if status == -1:
        raise lost_status_error(res.pid)
    if len(spares) < _SPARE_MAX:
        spares.append((o, res))
    return CompletedProcess(args, os.waitstatus_to_exitcode(status), out1[0], out2[0],
                            out1[3], out2[3], stdout_head=out1[1], stdout_tail=out1[2],
                            stderr_head=out2[1], stderr_tail=out2[2])

"""subprocess.Popen._execute_child over spawnkit templates.

Popen.__init__ stays stock: it checks the arguments, makes the pipes and
file objects and then calls _execute_child(), the one place a child is
started.  execute_child() below replaces it.  It starts the child from a
spawn template when every option can be honoured exactly, and otherwise
calls stock's _execute_child, counting the reason (see _stats.py).

Exactness rules, mirroring what _posixsubprocess does in its child:
- stdio: dup2 p2cread/c2pwrite/errwrite onto 0/1/2 in that order; a source
  that is 0..2 and would already be overwritten is duplicated above 2 first;
  a source equal to its target is made inheritable (it may be O_CLOEXEC).
- close_fds: every fd above 2 closed, except pass_fds (made inheritable);
  close_fds=False keeps every inheritable fd (SPAWNKIT_SPAWN_INHERIT_FDS).
- cwd: chdir before the program is looked up; restore_signals: SIGPIPE and
  SIGXFSZ back to SIG_DFL; env: the mapping as given, else C environ.
- umask (>= 0): UMASK with the value's low nine bits, as umask(2) keeps;
  start_new_session: SETSID; process_group (>= 0): SETPGID, 0 included.
  In _posixsubprocess's order: chdir, umask, signals, setsid, setpgid (so
  start_new_session with process_group=0 fails with EPERM, as stock).  A
  negative umask or process_group is no call at all, as in stock.
- The program is looked up as exec in the child would: `executable` or
  args[0], with a "/" relative to the child's cwd, else over
  os.get_exec_path(env).
Anything spawnkit has no action for (preexec_fn, user/group/extra_groups)
goes to stock, and so does a value stock rejects in its own way (a umask or
process_group that is no C int).  So does a call whose preparation fails,
or whose spawn fails for a reason other than "no such program" (setsid or
setpgid refused, say): stock then raises its own error, or succeeds.  The
preparation has no side effect stock could notice, and a child whose
action failed is reaped before it could exec, so handing over is safe.
"""
from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
import subprocess
import sys
from typing import Any, Dict, List, Optional, Tuple

from . import _stats

# Names of stock _execute_child's parameters (they grew over versions).
_STOCK = subprocess.Popen.__dict__["_execute_child"]
_NAMES = _STOCK.__code__.co_varnames[1:_STOCK.__code__.co_argcount]
_STOCK_FORK_EXEC = getattr(subprocess, "_fork_exec", None)

try:  # the compiled binding; without it every call goes to stock
    from .._ffi import ffi, lib
    from .._errors import StaleTemplateError
    from .._process import _low_fd_safe, _pass_fds_actions, _sigset_arg
    from .._cache import REMAKES, template_cache
    from .._template import backend
    _BINDING: Optional[str] = None
except Exception as e:  # pragma: no cover - exercised by a forced fallback
    _BINDING = f"no-binding:{type(e).__name__}"

#: Templates kept at most (each holds its executable's fd): past this the
#: cache is emptied, so programs run once (temporary scripts) cannot pile up
#: fds, or keep deleted files' space, for the process's life.  (The cache
#: also bounds itself: spawnkit_template_cache_max(3), LRU and idle.)
CACHE_BOUND = 256
_backend_reason: List[Optional[str]] = []     # computed once: [reason or None]


def _no_backend() -> Optional[str]:
    """Why spawnkit cannot start children here (None if it can)."""
    if not _backend_reason:
        from .._choose import fallback_reason
        try:
            # The package's own choice first: its portable fallback (no
            # binding, no pidfds, SPAWNKIT_BACKEND=fallback) leaves all to stock.
            name = "fallback" if fallback_reason is not None else backend()
            _backend_reason.append(None if name in ("user", "kernel") else f"backend:{name}")
        except Exception as e:
            _backend_reason.append(f"backend:{type(e).__name__}")
    return _backend_reason[0]


# The signals stock's restore_signals resets (_Py_RestoreSignals).
_RESTORED = [s for s in (getattr(signal, n, None)
                         for n in ("SIGPIPE", "SIGXFZ", "SIGXFSZ")) if s is not None]


class _Fallback(Exception):
    """Hand this call to stock subprocess, for the reason given."""


class _NoProgram(Exception):
    """exec would fail with ENOENT/ENOTDIR: raise that, as stock does."""


def _unsupported(a: Dict[str, Any]) -> Optional[str]:
    """The first option spawnkit has no exact action for, or None."""
    if _BINDING is not None:
        return _BINDING
    if _no_backend() is not None:
        return _no_backend()
    if getattr(subprocess, "_fork_exec", None) is not _STOCK_FORK_EXEC:
        return "stock-internals-replaced"     # someone instruments stock: let it run
    if a.get("preexec_fn") is not None:
        return "preexec_fn"
    for name in ("uid", "gid", "gids"):
        if a.get(name) is not None:
            return {"uid": "user", "gid": "group", "gids": "extra_groups"}[name]
    return None


_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


def _c_int(a: Dict[str, Any], name: str) -> int:
    """Stock's int option (-1: not given; absent before its Python version).
    A value _posixsubprocess would not take as a C int (TypeError,
    OverflowError there) goes to stock, which raises it its way."""
    v = a.get(name, -1)
    if not isinstance(v, int) or not _INT_MIN <= v <= _INT_MAX:
        raise _Fallback(name + "-value")
    return v


def _attrs(a: Dict[str, Any]) -> Tuple[int, bool, int]:
    """(umask, start_new_session, process_group) as stock's child uses them:
    umask and process_group < 0 mean no call."""
    um = _c_int(a, "umask")
    pg = _c_int(a, "process_group")
    sns = a.get("start_new_session", False)
    if sns is not None and not isinstance(sns, int):
        raise _Fallback("start_new_session-value")   # whatever its truth says: stock's
    return um, bool(sns), pg


def _fd_flags(fd: int) -> int:
    try:
        return fcntl.fcntl(fd, fcntl.F_GETFD)
    except OSError:
        raise _Fallback("bad-fd") from None   # stock's child reports EBADF


def _argv(args: Any, shell: bool) -> List[Any]:
    if isinstance(args, (str, bytes)):
        args = [args]
    elif isinstance(args, os.PathLike):
        if shell:
            raise _Fallback("bad-args")       # stock raises the TypeError
        args = [args]
    else:
        args = list(args)
    if shell:
        args = ["/bin/sh", "-c"] + args
    return list(args)


def _cbytes(x: Any) -> bytes:
    b = os.fsencode(x)
    if b"\0" in b:
        raise _Fallback("bad-args")           # stock raises "embedded null byte"
    return b


def _lookup(exe: bytes, env: Any, cwd: Optional[bytes]) -> Tuple[Optional[bytes], int]:
    """(path, 0) of the file exec would run, or (None, errno) as stock's
    child would report it: the first error other than ENOENT/ENOTDIR, else
    the last one."""
    if os.path.dirname(exe):
        cands = [exe]
    else:
        cands = [os.path.join(os.fsencode(d), exe) for d in os.get_exec_path(env)]
    saved = last = errno.ENOENT
    saved_set = False
    for c in cands:
        full = c if c.startswith(b"/") else os.path.join(cwd or os.getcwdb(), c)
        try:
            st = os.stat(full)
        except OSError as e:
            err = e.errno or errno.ENOENT
        else:
            if stat.S_ISREG(st.st_mode) and os.access(full, os.X_OK):
                return os.path.abspath(full), 0
            err = errno.EACCES
        last = err
        if err not in (errno.ENOENT, errno.ENOTDIR) and not saved_set:
            saved, saved_set = err, True
    return None, (saved if saved_set else last)


class _Plan:
    """One spawn's C arguments, and the parent-side fds to close after it."""

    def __init__(self) -> None:
        self.actions: List[Tuple[int, int, int, int, int]] = []
        self.temp_fds: List[int] = []
        self.keep: List[Any] = []

    def high_dup(self, fd: int) -> int:
        new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        self.temp_fds.append(new)
        return new

    def close(self) -> None:
        fds, self.temp_fds = self.temp_fds, []
        for fd in fds:
            os.close(fd)


def _stdio(plan: _Plan, fds: Tuple[int, int, int]) -> None:
    """DUP2 actions putting p2cread, c2pwrite, errwrite on 0, 1, 2."""
    replaced = set()                   # child fds an earlier action changed
    for target, src in enumerate(fds):
        if src == -1:
            continue
        if src < 0:
            raise _Fallback("bad-fd")
        flags = _fd_flags(src)
        if src == target:
            if flags & fcntl.FD_CLOEXEC:    # stock makes it inheritable
                plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_DUP2, 0,
                                     plan.high_dup(src), target, 0))
            continue
        if src in replaced:
            src = plan.high_dup(src)
        plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_DUP2, 0, src, target, 0))
        replaced.add(target)


def _stock_would_posix_spawn(a: Dict[str, Any], executable: Any,
                             attrs: Tuple[int, bool, int]) -> bool:
    """Stock's condition for os.posix_spawn(), which passes os.environ
    rather than the C environ when env is None (they differ if C code
    called setenv()).  3.13 takes close_fds=True there too, where
    posix_spawn can close them (_HAVE_POSIX_SPAWN_CLOSEFROM)."""
    um, sns, pg = attrs
    return bool(getattr(subprocess, "_USE_POSIX_SPAWN", False)
                and os.path.dirname(executable)
                and (not a["close_fds"]
                     or getattr(subprocess, "_HAVE_POSIX_SPAWN_CLOSEFROM", False))
                and not a["pass_fds"] and a["cwd"] is None
                and all(fd == -1 or fd > 2
                        for fd in (a["p2cread"], a["c2pwrite"], a["errwrite"]))
                and not sns and pg == -1 and um < 0)


def _envp(plan: _Plan, env: Any) -> Any:
    if env is None:
        return lib.environ
    items = []
    for k, v in env.items():
        kb = os.fsencode(k)
        if b"=" in kb:
            raise _Fallback("bad-env")        # stock's ValueError
        items.append(ffi.new("char[]", _cbytes(kb) + b"=" + _cbytes(v)))
    items.append(ffi.NULL)
    plan.keep.append(items)
    return ffi.new("char *[]", items)


def _prepare(a: Dict[str, Any], plan: _Plan) -> Tuple[Any, ...]:
    attrs = um, sns, pg = _attrs(a)
    shell = a["shell"]
    args = _argv(a["args"], shell)
    if not args:
        raise _Fallback("bad-args")
    executable = a["executable"]
    if shell and executable:
        args[0] = executable
    if executable is None:
        executable = args[0]
    argv_b = [_cbytes(x) for x in args]
    exe_b = _cbytes(executable)

    _stdio(plan, (a["p2cread"], a["c2pwrite"], a["errwrite"]))
    cwd = a["cwd"]
    cwd_b: Optional[bytes] = None
    if cwd is not None:
        if isinstance(cwd, int):
            raise _Fallback("bad-cwd")        # stock wants a path
        cwd_b = _cbytes(cwd)
        try:
            dirfd = os.open(cwd_b, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            raise _Fallback("cwd-error") from None   # stock names it its way
        plan.temp_fds.append(dirfd)
        dirfd = _low_fd_safe(dirfd)
        plan.temp_fds[-1] = dirfd
        if not os.access(cwd_b, os.X_OK):
            raise _Fallback("cwd-error")
        plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_FCHDIR, 0, dirfd, 0, 0))
        cwd_b = os.path.abspath(cwd_b)
    if um >= 0:
        plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_UMASK, 0, um & 0o777, 0, 0))
    if a["restore_signals"]:
        plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_SIGDEFAULT, 0, 0, 0,
                             _sigset_arg(_RESTORED)))
    if sns:
        plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_SETSID, 0, 0, 0, 0))
    if pg >= 0:
        plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_SETPGID, 0, pg, 0, 0))
    pass_fds = sorted(set(int(fd) for fd in a["pass_fds"]))
    high = []
    for fd in pass_fds:
        if fd < 0:
            raise _Fallback("bad-fd")
        try:
            fl = fcntl.fcntl(fd, fcntl.F_GETFD)
        except OSError:
            continue              # not open: stock's child lacks it too
        if fd > 2:
            high.append(fd)
        elif fl & fcntl.FD_CLOEXEC:
            plan.actions.append((lib.SPAWN_TEMPLATE_ACTION_DUP2, 0,
                                 plan.high_dup(fd), fd, 0))
    flags = 0
    if high:
        # re-dup each (clearing FD_CLOEXEC), close the rest: INHERIT_FDS
        plan.actions.extend(_pass_fds_actions(high))
        flags = lib.SPAWNKIT_SPAWN_INHERIT_FDS
    elif not a["close_fds"] and not pass_fds:
        flags = lib.SPAWNKIT_SPAWN_INHERIT_FDS
    env = a["env"]
    if env is None and _stock_would_posix_spawn(a, executable, attrs):
        env = os.environ
    envp = _envp(plan, env)

    audit = ("subprocess.Popen", executable, args, cwd, a["env"])
    path, err = _lookup(exe_b, a["env"], cwd_b)
    if path is None:
        if err in (errno.ENOENT, errno.ENOTDIR):
            # Exactly what stock's child reports; no need to start one.
            raise _NoProgram(OSError(err, os.strerror(err), executable), audit)
        raise _Fallback("exec-error:" + errno.errorcode.get(err, str(err)))
    argv_c = [ffi.new("char[]", x) for x in argv_b] + [ffi.NULL]
    plan.keep.append(argv_c)
    argv_p = ffi.new("char *[]", argv_c)
    acts = (ffi.new("struct spawn_template_action[]", plan.actions)
            if plan.actions else ffi.NULL)
    return audit, path, argv_p, envp, acts, flags


def _spawn(audit: Tuple[Any, ...], path: bytes, argv_p: Any, envp: Any, acts: Any,
           n: int, flags: int) -> int:
    if len(template_cache) >= CACHE_BOUND and path not in template_cache:
        template_cache.clear()       # closes are deferred past in-flight spawns
    # The one cache policy (spawnkit_template_cache_max(3)), as spawn():
    # a template that fails with ESTALE (file replaced) or EACCES
    # (credentials changed since it was made) is remade at most REMAKES
    # times; the cache also remakes one closed under us.
    tmpl = None
    err = errno.ESTALE
    for attempt in range(REMAKES + 1):
        try:
            tmpl, ptr = template_cache.acquire(path, tmpl)
        except OSError as e:
            if attempt == 0:
                raise _Fallback("template-error:" +
                                errno.errorcode.get(e.errno or 0, "?")) from None
            break
        try:
            if attempt == 0:
                # Audited as late as possible: a fallback before here leaves
                # it to stock.  (A spawn that fails below and is handed over
                # is audited twice.)
                sys.audit(*audit)
            pid = lib.spawnkit_spawn(ptr, argv_p, envp, acts, n, flags, ffi.NULL)
        finally:
            tmpl._release()
        if pid >= 0:
            return int(pid)
        err = -pid
        if err not in (errno.ESTALE, errno.EACCES):
            break
    raise _Fallback("spawn-error:" + errno.errorcode.get(err, str(err)))


def execute_child(self: Any, *args: Any, **kwargs: Any) -> None:
    """Popen._execute_child: spawnkit when exact, else stock (counted)."""
    a = dict(zip(_NAMES, args))
    a.update(kwargs)
    reason = _unsupported(a)
    if reason is None:
        plan = _Plan()
        try:
            audit, path, argv_p, envp, acts, flags = _prepare(a, plan)
            pid = _spawn(audit, path, argv_p, envp, acts, len(plan.actions), flags)
        except _Fallback as f:
            reason = str(f)
        except _NoProgram as e:
            _stats.count_routed()
            sys.audit(*e.args[1])
            raise e.args[0] from None
        except (OSError, TypeError, ValueError) as e:
            reason = "prepare-error:" + type(e).__name__   # stock says it its way
        finally:
            plan.close()
        if reason is None:
            self.pid = pid
            self._child_created = True
            _stats.count_routed()
            self._close_pipe_fds(a["p2cread"], a["p2cwrite"], a["c2pread"],
                                 a["c2pwrite"], a["errread"], a["errwrite"])
            return
    _stats.count_fallback(reason)
    _STOCK(self, *args, **kwargs)

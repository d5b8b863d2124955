"""Templates (one executable, made once, spawned many times) and their cache.

A Template owns a `struct spawnkit_template *`.  Spawns from many threads may
use one template at once (the C library allows it, and cffi drops the GIL for
the call), so close() only marks the template closed and the C object is
destroyed when the last in-flight spawn has returned: closing can never free
memory another thread is using.
"""
from __future__ import annotations

import errno
import os
import threading
from typing import TYPE_CHECKING, Any, Optional, Union

from ._errors import error_from_errno
from ._ffi import ffi, lib

if TYPE_CHECKING:                     # _process imports this module
    from ._process import Argv, Process

__all__ = ["Template", "which", "backend", "kernel_has_spawn_template"]

StrOrBytesPath = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def backend() -> str:
    """The backend a template made now would use: "user" or "kernel".

    SPAWNKIT_BACKEND=user|kernel in the environment forces one; forcing
    "kernel" where the kernel lacks the calls raises OSError(ENOSYS).
    """
    rc = lib.spawnkit_backend()
    if rc < 0:
        raise error_from_errno(-rc)
    return str(ffi.string(lib.spawnkit_backend_name(rc)).decode())


def kernel_has_spawn_template() -> bool:
    """True if the running kernel advertises the spawn-template system calls."""
    return bool(lib.spawnkit_kernel_has_spawn_template() == 1)


def _search_path(name: bytes, path_env: Optional[bytes], cwd: Optional[bytes]) -> bytes:
    """execvp's search, done in the parent by the library
    (spawnkit_pathsearch_cwd(3)): the first executable regular file named
    `name` in the PATH directories; PermissionError if only matches that
    cannot be executed exist (not executable, or a directory: execvp's
    EACCES), else FileNotFoundError.  Relative PATH elements (an empty one
    is ".") name directories under the child's working directory `cwd`, as
    for execvp in the child.
    """
    if not name:
        # subprocess tries "dir/" for each PATH entry and execve says
        # EACCES for a directory: the same error, without the search.
        raise error_from_errno(errno.EACCES, "")
    if path_env is None:
        path_env = os.fsencode(os.defpath)
    if b"\0" in path_env or b"\0" in (cwd or b""):
        raise ValueError("embedded null byte")
    out = ffi.new("char[]", 4096)
    rc = lib.spawnkit_pathsearch_cwd(name, path_env, cwd or ffi.NULL, out, 4096)
    if rc < 0:
        raise error_from_errno(-rc, os.fsdecode(name))
    return os.path.abspath(bytes(ffi.string(out)))


def which(name: StrOrBytesPath, path: Optional[StrOrBytesPath] = None) -> str:
    """Resolve a command name over PATH (or `path`) to an absolute path.

    Names containing "/" are returned made absolute, unchecked.  Raises
    FileNotFoundError, or PermissionError when only non-executable files of
    that name exist.
    """
    nb = os.fsencode(name)
    if b"/" in nb:
        return os.fsdecode(os.path.abspath(nb))
    pb = os.fsencode(path) if path is not None else os.environb.get(b"PATH")
    return os.fsdecode(_search_path(nb, pb, None))


class Template:
    """A spawn template for one executable.

    Template("/usr/bin/git")  from a path (made absolute against the cwd);
    Template("git")           a command name, resolved over $PATH now;
    Template(fd=3)            from an open fd of the executable (not taken over).

    Use as a context manager or call close(); spawning from a closed template
    raises ValueError.  The template's own fd is close-on-exec: no exec'd
    program could use it.
    """

    __slots__ = ("_ptr", "_lock", "_users", "_closing", "path", "__weakref__")

    def __init__(self, program: Optional[StrOrBytesPath] = None, *,
                 fd: Optional[int] = None) -> None:
        self._ptr = None
        self._lock = threading.Lock()
        self._users = 0
        self._closing = False
        flags = 0
        tp = ffi.new("struct spawnkit_template **")
        if (program is None) == (fd is None):
            raise TypeError("Template() takes exactly one of program or fd=")
        if fd is not None:
            if not isinstance(fd, int) or isinstance(fd, bool):
                raise TypeError("fd must be an int")
            rc = lib.spawnkit_template_create_fd(fd, flags, tp)
            filename: Optional[bytes] = None
        else:
            assert program is not None
            filename = os.fsencode(which(program))
            if b"\0" in filename:
                raise ValueError("embedded null byte")
            rc = lib.spawnkit_template_create(filename, flags, tp)
        if rc < 0:
            raise error_from_errno(-rc, os.fsdecode(filename) if filename else None)
        self._ptr = tp[0]
        cpath = lib.spawnkit_template_path(self._ptr)
        #: Absolute path the template was made from (None if made from an fd).
        self.path: Optional[str] = os.fsdecode(ffi.string(cpath)) if cpath != ffi.NULL else None

    @classmethod
    def from_fd(cls, fd: int) -> "Template":
        return cls(fd=fd)

    @property
    def fd(self) -> int:
        """The kernel template fd (kernel backend) or the pinned exec fd (user)."""
        ptr = self._acquire()
        try:
            return int(lib.spawnkit_template_fd(ptr))
        finally:
            self._release()

    @property
    def backend(self) -> str:
        ptr = self._acquire()
        try:
            return str(ffi.string(lib.spawnkit_backend_name(
                lib.spawnkit_template_backend(ptr))).decode())
        finally:
            self._release()

    @property
    def closed(self) -> bool:
        return self._closing or self._ptr is None

    def spawn(self, args: "Argv", **kwargs: Any) -> "Process":
        """Start a child from this template; see spawnkit.spawn() for options.

        Raises StaleTemplateError if the executable was replaced: make a new
        Template (the template cache behind spawnkit.spawn() does that itself).
        """
        from ._process import spawn
        return spawn(args, template=self, **kwargs)

    # ---- lifetime: in-flight spawns keep the C object alive -------------

    # Once or twice per spawn: the lock taken by hand, which costs a third
    # of a `with` statement here.
    def _acquire(self) -> Any:
        lock = self._lock
        lock.acquire()
        try:
            if self._closing or self._ptr is None:
                raise ValueError("spawn template is closed")
            self._users += 1
            return self._ptr
        finally:
            lock.release()

    def _release(self) -> None:
        lock = self._lock
        lock.acquire()
        try:
            self._users -= 1
            if self._users == 0 and self._closing:
                self._destroy()
        finally:
            lock.release()

    def _run(self, o: Any, res: Any) -> Optional[int]:
        """lib.spawnkit_run(o, res) from this template, held for the call
        (for run()'s default path: _acquire() without its exception).
        None if the template is closed."""
        lock = self._lock
        lock.acquire()
        try:
            if self._closing or self._ptr is None:
                return None
            self._users += 1
            o.tmpl = self._ptr
        finally:
            lock.release()
        try:
            rc: int = lib.spawnkit_run(o, res)
            return rc
        finally:
            self._release()

    def _after_fork(self) -> None:
        """In a forked child: a new lock (one another thread held at the
        fork is held for good there)."""
        self._lock = threading.Lock()

    def _destroy(self) -> None:
        ptr, self._ptr = self._ptr, None
        if ptr is not None:
            lib.spawnkit_template_destroy(ptr)

    def close(self) -> None:
        """Release the template (deferred until in-flight spawns return)."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            if self._users == 0:
                self._destroy()

    def __enter__(self) -> "Template":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_ptr", None) is not None:
            self._destroy()

    def __repr__(self) -> str:
        state = "closed" if self.closed else self.backend
        return f"<spawnkit.Template {self.path!r} {state}>"


def __getattr__(name: str) -> Any:
    """The cache lived here before _cache.py: code that imports
    template_cache or TemplateCache from this module keeps working (looked
    up on use, since _cache.py imports this module)."""
    if name in ("TemplateCache", "template_cache"):
        from . import _cache
        return getattr(_cache, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

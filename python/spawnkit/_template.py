"""Templates (one executable, made once, spawned many times) and their cache.

A Template owns a `struct spawnkit_template *`.  Spawns from many threads may
use one template at once (the C library allows it, and cffi drops the GIL for
the call), so close() only marks the template closed and the C object is
destroyed when the last in-flight spawn has returned: closing can never free
memory another thread is using.  The pointer, the count of spawns in flight
and the closed mark live in C (struct _sk_hold, spawnkit_build.py), counted
with atomics, so run(argv)'s fast path takes its hold, runs and lets go in
one call without the GIL (_sk_run_held).
"""
from __future__ import annotations

import errno
import os
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
    """True if the running kernel has the spawn-template system calls: the
    library's probe of them (once per process) answered as this ABI does."""
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

    __slots__ = ("_hold", "path", "__weakref__")

    def __init__(self, program: Optional[StrOrBytesPath] = None, *,
                 fd: Optional[int] = None) -> None:
        self._hold: Any = ffi.new("struct _sk_hold *")
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
        self._hold.ptr = tp[0]
        cpath = lib.spawnkit_template_path(tp[0])
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
        return bool(lib._sk_hold_closed(self._hold))

    @property
    def _ptr(self) -> Any:
        """The C template, None once freed (a closed one stays until the
        spawns in flight from it have returned)."""
        ptr = self._hold.ptr
        return None if ptr == ffi.NULL else ptr

    def spawn(self, args: "Argv", **kwargs: Any) -> "Process":
        """Start a child from this template; see spawnkit.spawn() for options.

        Raises StaleTemplateError if the executable was replaced: make a new
        Template (the template cache behind spawnkit.spawn() does that itself).
        """
        from ._process import spawn
        return spawn(args, template=self, **kwargs)

    # ---- lifetime: in-flight spawns keep the C object alive -------------

    def _acquire(self) -> Any:
        hold = self._hold
        if lib._sk_hold_take(hold):
            raise ValueError("spawn template is closed")
        return hold.ptr

    def _release(self) -> None:
        if lib._sk_hold_drop(self._hold):
            self._destroy()

    def _destroy(self) -> None:
        lib._sk_hold_free(self._hold)

    def close(self) -> None:
        """Release the template (deferred until in-flight spawns return)."""
        if lib._sk_hold_close(self._hold):
            self._destroy()

    def __enter__(self) -> "Template":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        hold = getattr(self, "_hold", None)
        if hold is not None and hold.ptr != ffi.NULL:
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

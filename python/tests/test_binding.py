"""The 1:1 cffi layer: ABI layout, constants and -errno conventions."""
import pytest
import errno
import os

from spawnkit._ffi import ffi, lib

# The compiled binding itself: not there in the portable fallback.
pytestmark = pytest.mark.native


def test_struct_sizes_match_the_kernel_abi() -> None:
    assert ffi.sizeof("struct spawn_template_action") == 24
    assert ffi.sizeof("struct spawn_template_open") == 24
    assert ffi.offsetof("struct spawn_template_open", "how_size") == 16
    assert ffi.sizeof("struct spawnkit_open") == 48
    assert ffi.sizeof("struct spawn_template_sigset") == 16
    assert ffi.sizeof("struct spawn_template_create_args") == lib.SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0 == 24
    assert ffi.sizeof("struct spawn_template_spawn_args") == lib.SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0 == 48
    assert ffi.offsetof("struct spawn_template_action", "arg") == 16
    assert ffi.offsetof("struct spawn_template_create_args", "execfd") == 16


def test_action_constants() -> None:
    assert [lib.SPAWN_TEMPLATE_ACTION_CLOSE, lib.SPAWN_TEMPLATE_ACTION_DUP2,
            lib.SPAWN_TEMPLATE_ACTION_FCHDIR, lib.SPAWN_TEMPLATE_ACTION_OPEN,
            lib.SPAWN_TEMPLATE_ACTION_CLOSE_RANGE, lib.SPAWN_TEMPLATE_ACTION_SIGMASK,
            lib.SPAWN_TEMPLATE_ACTION_SIGDEFAULT] == list(range(7))
    assert lib.SPAWN_TEMPLATE_CREATE_FLAGS == 0
    assert lib.SPAWN_TEMPLATE_SPAWN_INHERIT_FDS == 1
    assert lib.SPAWN_TEMPLATE_ACTIONS_MAX == 256


def test_backend_name() -> None:
    assert ffi.string(lib.spawnkit_backend_name(lib.SPAWNKIT_BACKEND_USER)) == b"user"
    assert ffi.string(lib.spawnkit_backend_name(lib.SPAWNKIT_BACKEND_KERNEL)) == b"kernel"
    assert ffi.string(lib.spawnkit_backend_name(99)) == b"unknown"


def test_create_relative_path_is_einval_without_touching_errno() -> None:
    tp = ffi.new("struct spawnkit_template **")
    ffi.errno = 0
    assert lib.spawnkit_template_create(b"bin/true", 0, tp) == -errno.EINVAL
    assert ffi.errno == 0


def test_raw_create_spawn_destroy() -> None:
    tp = ffi.new("struct spawnkit_template **")
    assert lib.spawnkit_template_create(b"/bin/sh", 0, tp) == 0
    t = tp[0]
    try:
        assert ffi.string(lib.spawnkit_template_path(t)) == b"/bin/sh"
        assert lib.spawnkit_template_fd(t) >= 0
        args = [ffi.new("char[]", b"sh"), ffi.new("char[]", b"-c"),
                ffi.new("char[]", b"exit 7"), ffi.NULL]
        pidfd = ffi.new("int *", -1)
        pid = lib.spawnkit_spawn(t, ffi.new("char *[]", args), ffi.NULL, ffi.NULL, 0, 0, pidfd)
        assert pid > 0 and pidfd[0] >= 0
        si = os.waitid(os.P_PIDFD, pidfd[0], os.WEXITED)
        os.close(pidfd[0])
        assert si is not None
        assert (si.si_pid, si.si_code, si.si_status) == (pid, os.CLD_EXITED, 7)
    finally:
        lib.spawnkit_template_destroy(t)


def test_spawn_bad_flags_is_einval() -> None:
    tp = ffi.new("struct spawnkit_template **")
    # no create flag exists: bit 0 (v1's CLOEXEC) is EINVAL too
    assert lib.spawnkit_template_create(b"/bin/true", 1, tp) == -errno.EINVAL
    assert lib.spawnkit_template_create(b"/bin/true", 0, tp) == 0
    try:
        argv = ffi.new("char *[]", [ffi.new("char[]", b"true"), ffi.NULL])
        assert lib.spawnkit_spawn(tp[0], argv, ffi.NULL, ffi.NULL, 0, 1 << 30, ffi.NULL) == -errno.EINVAL
    finally:
        lib.spawnkit_template_destroy(tp[0])


def test_pathsearch_is_bound() -> None:
    # include/spawnkit/batch.h declares spawnkit_pathsearch: the build binds it.
    assert hasattr(lib, "spawnkit_pathsearch")
    out = ffi.new("char[]", 4096)
    n = lib.spawnkit_pathsearch(b"sh", b"/nonexistent:/bin", out, 4096)
    assert n == len(b"/bin/sh") and ffi.string(out) == b"/bin/sh"
    assert lib.spawnkit_pathsearch(b"no-such-tool-x", b"/bin", out, 4096) == -errno.ENOENT

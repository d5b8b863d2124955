"""Build spawnkit: make libspawnkit.a first, then the cffi extension over it.

All metadata is in pyproject.toml; this file adds two steps:
- build_ext builds (or checks) libspawnkit.a before compiling the binding:
  from the checkout around python/, or from the library sources the sdist
  carries in libsrc/ (so `pip install spawnkit-*.tar.gz` needs no checkout);
- sdist copies those sources (the top Makefile, src/, include/) into libsrc/
  of the archive.
The wheel is abi3 (cffi compiles against the limited API): one wheel for
CPython 3.9 and later.
"""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spawnkit_build as sb  # noqa: E402


class BuildExtWithLib(build_ext):
    """Build (or check) libspawnkit.a before compiling the binding."""

    def run(self):
        if not os.environ.get("SPAWNKIT_LIB_DIR"):
            if not os.path.exists(os.path.join(sb.ROOT, "Makefile")):
                raise SystemExit(
                    f"spawnkit: no library sources at {sb.ROOT} (build from a spawnkit "
                    "checkout or its sdist, set SPAWNKIT_ROOT to a checkout, or "
                    "SPAWNKIT_LIB_DIR to a dir with libspawnkit.a)")
            # The Makefile's own rule; a no-op when the archive is up to date.
            # From libsrc/ (an sdist) without liburing: the binding does not
            # use io_uring batches, and the wheel then needs only libc.
            extra = ["URING_CPPFLAGS=", "LIBS=-lpthread"] if sb.VENDORED else []
            subprocess.run(["make", "-s", "-C", sb.ROOT, "build/libspawnkit.a"] + extra,
                           check=True)
        if not os.path.exists(sb.STATIC_LIB):
            raise SystemExit(f"spawnkit: {sb.STATIC_LIB} is missing")
        super().run()


class SdistWithLibSources(sdist):
    """Put the C library's sources into the archive, under libsrc/."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        top = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        if sb.VENDORED or not os.path.exists(os.path.join(top, "Makefile")):
            top = sb.ROOT                        # an sdist of an sdist: copy it on
        dest = os.path.join(base_dir, sb.LIBSRC)
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(os.path.join(top, "Makefile"), dest)
        for d in ("src", "include"):
            shutil.copytree(os.path.join(top, d), os.path.join(dest, d), dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.o", "*.a", "*.so"))


# The binding is Linux code.  Elsewhere (macOS), or with SPAWNKIT_NO_BINDING=1,
# the package installs as pure Python and runs on its portable fallback.
BINDING = sys.platform.startswith("linux") and os.environ.get("SPAWNKIT_NO_BINDING") != "1"
if not BINDING:
    print("spawnkit: building without the compiled binding; the package will use "
          "its portable fallback (backend() == 'fallback')", file=sys.stderr)

setup(
    cffi_modules=["spawnkit_build.py:ffibuilder"] if BINDING else [],
    cmdclass={"build_ext": BuildExtWithLib, "sdist": SdistWithLibSources},
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)

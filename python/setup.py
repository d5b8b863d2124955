"""Build spawnkit: make libspawnkit.a first, then the cffi extension over it.

All metadata is in pyproject.toml; this file only adds the library build
step, which cffi's build_ext hook runs before compiling the binding.
"""
import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spawnkit_build as sb  # noqa: E402


class BuildExtWithLib(build_ext):
    """Build (or check) libspawnkit.a before compiling the binding."""

    def run(self):
        if not os.environ.get("SPAWNKIT_LIB_DIR"):
            if not os.path.exists(os.path.join(sb.ROOT, "Makefile")):
                raise SystemExit(
                    f"spawnkit: no source tree at {sb.ROOT} (set SPAWNKIT_ROOT to a "
                    "spawnkit checkout, or SPAWNKIT_LIB_DIR to a dir with libspawnkit.a)")
            # The Makefile's own rule; a no-op when the archive is up to date.
            subprocess.run(["make", "-s", "-C", sb.ROOT, "build/libspawnkit.a"], check=True)
        if not os.path.exists(sb.STATIC_LIB):
            raise SystemExit(f"spawnkit: {sb.STATIC_LIB} is missing")
        super().run()


setup(
    cffi_modules=["spawnkit_build.py:ffibuilder"],
    cmdclass={"build_ext": BuildExtWithLib},
)

"""run_io.c built with AddressSanitizer and UBSan (LeakSanitizer at exit),
driven by run_io_check.c: out-of-bounds, use-after-free, undefined behaviour
and leaks in the C capture and pump fail this test."""
import os
import shutil
import subprocess

import pytest

# The compiled binding itself: not there in the portable fallback.
pytestmark = pytest.mark.native

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src")
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# run_io.c reaps with the library's spawnkit_pidfd_wait (wait.o alone is
# pulled from the archive); the library is built before the binding.
LIB_DIR = os.path.abspath(os.environ.get("SPAWNKIT_LIB_DIR") or os.path.join(ROOT, "build"))


def test_run_io_under_sanitizers(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("test needs a C compiler (the binding needs one to build)")
    exe = tmp_path / "run_io_check"
    build = subprocess.run(
        [cc, "-std=gnu11", "-g", "-O1", "-Wall", "-Wextra", "-Werror",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-fno-omit-frame-pointer", "-I", SRC, "-I", os.path.join(ROOT, "include"),
         "-o", str(exe),
         os.path.join(HERE, "run_io_check.c"), os.path.join(SRC, "run_io.c"),
         os.path.join(LIB_DIR, "libspawnkit.a"), "-lpthread"],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1")
    r = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "run_io_check: 0 failures" in r.stdout

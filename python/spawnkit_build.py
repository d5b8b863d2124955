"""cffi API-mode builder for spawnkit._spawnkit, the 1:1 layer over libspawnkit.

API mode (as PyNaCl does it): cffi writes a C extension that #includes
<spawnkit/spawnkit.h> and is compiled by the C compiler, so struct layouts and
constants are checked against the real header, calls release the GIL, and no
reference counting is written by hand.  The extension links the static
libspawnkit.a, so an installed wheel has no run-time dependency on an
installed libspawnkit.

Where the library comes from (see setup.py, which builds it first):
  SPAWNKIT_ROOT     the spawnkit source tree (default: libsrc/ in an sdist,
                    else the parent of python/)
  SPAWNKIT_LIB_DIR  a directory holding a prebuilt libspawnkit.a (default:
                    <root>/build, built by `make -C <root> build/libspawnkit.a`)
"""
import os
import shutil
import subprocess
import sys

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
# An sdist carries the library's sources in libsrc/ (setup.py puts them there).
LIBSRC = "libsrc"
VENDORED = (not os.environ.get("SPAWNKIT_ROOT")
            and os.path.exists(os.path.join(HERE, LIBSRC, "Makefile")))
ROOT = os.path.abspath(os.environ.get("SPAWNKIT_ROOT")
                       or os.path.join(HERE, LIBSRC if VENDORED else ".."))
INCLUDE_DIR = os.path.join(ROOT, "include")
LIB_DIR = os.path.abspath(os.environ.get("SPAWNKIT_LIB_DIR") or os.path.join(ROOT, "build"))
STATIC_LIB = os.path.join(LIB_DIR, "libspawnkit.a")
# run()'s GIL-free pipe pump and reap (python/src/run_io.c), compiled into the
# same extension.  Relative to this directory, where setup.py runs.
RUN_IO_DIR = "src"
RUN_IO_SOURCES = [os.path.join(RUN_IO_DIR, "run_io.c")]
RUN_IO_HEADER = os.path.join(RUN_IO_DIR, "run_io.h")


def _uring_link_args():
    """libspawnkit.a uses liburing when the Makefile found it (same test as
    the Makefile); link liburing's static archive so the wheel does not need
    liburing at run time, or -luring if there is no archive."""
    pkg = shutil.which("pkg-config")
    if VENDORED or not pkg or subprocess.run([pkg, "--exists", "liburing"]).returncode != 0:
        return [], []
    libdir = subprocess.run([pkg, "--variable=libdir", "liburing"],
                            capture_output=True, text=True).stdout.strip()
    archive = os.path.join(libdir, "liburing.a")
    if os.path.exists(archive):
        return [archive], []
    return [], ["uring"]


# The cdef is generated from the headers at every build (cdefgen.py): the
# public API as include/spawnkit declares it, then run_io.h.  Nothing is
# copied by hand, so the two cannot drift; tests/test_cdef.py checks the
# result against the symbols libspawnkit.so exports.
sys.path.insert(0, HERE)
from cdefgen import cdef_of_headers  # noqa: E402

PUBLIC_HEADERS = [os.path.join(INCLUDE_DIR, "spawnkit", h) for h in
                  ("spawn_template.h", "spawnkit.h", "batch_abi.h", "batch.h", "warm.h",
                   "run.h")]
RUN_IO_H = os.path.join(HERE, "src", "run_io.h")
CDEF = cdef_of_headers(PUBLIC_HEADERS + [RUN_IO_H])

SOURCE = r"""
#define _GNU_SOURCE 1
#include <unistd.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/batch.h>
#include <spawnkit/warm.h>
#include <spawnkit/run.h>
#include "run_io.h"
"""

ffibuilder = FFI()
ffibuilder.cdef(CDEF)

_uring_objects, _uring_libs = _uring_link_args()
ffibuilder.set_source(
    "spawnkit._spawnkit",
    SOURCE,
    sources=RUN_IO_SOURCES,
    # the archive too: a rebuilt library relinks the binding
    depends=[RUN_IO_HEADER, STATIC_LIB],
    include_dirs=[INCLUDE_DIR, RUN_IO_DIR],
    # The archive goes on the link line as an object list, so only the
    # members the binding uses are linked, and statically.
    extra_objects=[STATIC_LIB] + _uring_objects,
    libraries=["pthread"] + _uring_libs,
    extra_compile_args=["-std=gnu11"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)

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
# public API as include/spawnkit declares it.  Nothing is copied by hand, so
# the two cannot drift; tests/test_cdef.py checks the result against the
# symbols libspawnkit.so exports.  CALLBACKS are the binding's own: run()'s
# on_output and on_signal, Python functions (spawnkit/_run.py,
# @ffi.def_extern) that spawnkit_run() calls with the GIL re-taken.
sys.path.insert(0, HERE)
from cdefgen import cdef_of_headers  # noqa: E402

PUBLIC_HEADERS = [os.path.join(INCLUDE_DIR, "spawnkit", h) for h in
                  ("spawn_template.h", "spawnkit.h", "batch_abi.h", "batch.h", "warm.h",
                   "run.h")]
CALLBACKS = """
extern "Python" int _sk_run_on_output(void *, int, const void *, size_t);
extern "Python" int _sk_run_on_signal(void *);
"""
# HELPERS too: C the binding reads results through where one call costs
# less than several field reads from Python (each makes a cdata object).
HELPERS = """
int _sk_run_quiet_status(const struct spawnkit_run_result *);
"""
CDEF = cdef_of_headers(PUBLIC_HEADERS) + CALLBACKS + HELPERS

SOURCE = r"""
#define _GNU_SOURCE 1
#include <unistd.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/batch.h>
#include <spawnkit/warm.h>
#include <spawnkit/run.h>

/* run(argv)'s common end in one call (spawnkit/_run.py): the wait status
 * of a run that was not stopped, printed nothing (so holds no memory)
 * and kept its status; -1 for any other, read field by field there. */
static int _sk_run_quiet_status(const struct spawnkit_run_result *r)
{
	if (r->why || r->out[1].total || r->out[2].total || r->status == -1)
		return -1;
	return r->status;
}
"""

ffibuilder = FFI()
ffibuilder.cdef(CDEF)

_uring_objects, _uring_libs = _uring_link_args()
ffibuilder.set_source(
    "spawnkit._spawnkit",
    SOURCE,
    # the archive too: a rebuilt library relinks the binding
    depends=[STATIC_LIB],
    include_dirs=[INCLUDE_DIR],
    # The archive goes on the link line as an object list, so only the
    # members the binding uses are linked, and statically.
    extra_objects=[STATIC_LIB] + _uring_objects,
    libraries=["pthread"] + _uring_libs,
    extra_compile_args=["-std=gnu11"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)

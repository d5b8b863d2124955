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
struct _sk_hold { struct spawnkit_template *ptr; ...; };
int _sk_hold_take(struct _sk_hold *);
int _sk_hold_drop(struct _sk_hold *);
int _sk_hold_close(struct _sk_hold *);
int _sk_hold_closed(const struct _sk_hold *);
void _sk_hold_free(struct _sk_hold *);
#define _SK_RUN_CLOSED ...
#define _SK_RUN_NOISY ...
#define _SK_RUN_QUIET ...
int _sk_run_held(struct _sk_hold *, struct spawnkit_run_opts *,
                 struct spawnkit_run_result *);
"""
CDEF = cdef_of_headers(PUBLIC_HEADERS) + CALLBACKS + HELPERS

SOURCE = r"""
#define _GNU_SOURCE 1
#include <unistd.h>
#include <sys/wait.h>
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

/*
 * A Template's C object and its lifetime (spawnkit/_template.py): in one
 * word, the spawns in flight from it and whether it was closed, so close()
 * from any thread frees it only once the last of them has returned, and
 * exactly once (whoever sees the word go to "closed, nobody in flight").
 */
#define _SK_HOLD_CLOSED 0x80000000u

struct _sk_hold {
	struct spawnkit_template *ptr;
	unsigned int state;		/* spawns in flight | _SK_HOLD_CLOSED */
};

/* A hold for one spawn: 0, or -1 if the template is closed. */
static int _sk_hold_take(struct _sk_hold *h)
{
	unsigned int s = __atomic_load_n(&h->state, __ATOMIC_RELAXED);

	do {
		if ((s & _SK_HOLD_CLOSED) || !h->ptr)
			return -1;
	} while (!__atomic_compare_exchange_n(&h->state, &s, s + 1, 1,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return 0;
}

/* 1: that was the last hold on a closed template: the caller frees it. */
static int _sk_hold_drop(struct _sk_hold *h)
{
	return __atomic_sub_fetch(&h->state, 1, __ATOMIC_ACQ_REL) == _SK_HOLD_CLOSED;
}

/* Mark it closed; 1: nothing in flight, the caller frees it now (else the
 * last _sk_hold_drop says so); 0 also when it was closed already. */
static int _sk_hold_close(struct _sk_hold *h)
{
	return __atomic_fetch_or(&h->state, _SK_HOLD_CLOSED, __ATOMIC_ACQ_REL) == 0;
}

static int _sk_hold_closed(const struct _sk_hold *h)
{
	return (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) & _SK_HOLD_CLOSED) || !h->ptr;
}

static void _sk_hold_free(struct _sk_hold *h)
{
	struct spawnkit_template *t = h->ptr;

	h->ptr = NULL;
	__atomic_or_fetch(&h->state, _SK_HOLD_CLOSED, __ATOMIC_RELEASE);
	spawnkit_template_destroy(t);
}

#define _SK_RUN_CLOSED (-0x10000)	/* the template was closed: nothing ran */
#define _SK_RUN_NOISY (-0x10001)	/* it ran: read the result field by field */
#define _SK_RUN_QUIET 0x10000		/* + the returncode of a quiet run */

/*
 * run(argv)'s default path in one call without the GIL: hold the
 * template, spawnkit_run() from it, let go (freeing it if it was closed
 * meanwhile and this was the last hold), and return, for a quiet run
 * (_sk_run_quiet_status), _SK_RUN_QUIET + its returncode (the exit code,
 * or -signal, as os.waitstatus_to_exitcode() gives it); else
 * _SK_RUN_NOISY, _SK_RUN_CLOSED or spawnkit_run's -errno.  Everything
 * Python did around the run before, each step a call or a lock of its
 * own, after the child's exit with cold caches.
 */
static int _sk_run_held(struct _sk_hold *h, struct spawnkit_run_opts *o,
			struct spawnkit_run_result *r)
{
	int rc;

	if (_sk_hold_take(h))
		return _SK_RUN_CLOSED;
	o->tmpl = h->ptr;
	rc = spawnkit_run(o, r);
	if (_sk_hold_drop(h))
		_sk_hold_free(h);
	if (rc)
		return rc;
	if (_sk_run_quiet_status(r) < 0)
		return _SK_RUN_NOISY;
	if (WIFEXITED(r->status))
		return _SK_RUN_QUIET + WEXITSTATUS(r->status);
	if (WIFSIGNALED(r->status))
		return _SK_RUN_QUIET - WTERMSIG(r->status);
	return _SK_RUN_NOISY;	/* no other status ends a run (WEXITED only) */
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

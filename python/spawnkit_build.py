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
BATCH_H = os.path.join(INCLUDE_DIR, "spawnkit", "batch.h")
# run()'s GIL-free pipe pump and reap (python/src/run_io.c), compiled into the
# same extension.  Relative to this directory, where setup.py runs.
RUN_IO_DIR = "src"
RUN_IO_SOURCES = [os.path.join(RUN_IO_DIR, "run_io.c")]
RUN_IO_HEADER = os.path.join(RUN_IO_DIR, "run_io.h")


def _has_pathsearch() -> bool:
    """spawnkit_pathsearch() and _cwd() live in batch.h once the batch
    library has them."""
    try:
        with open(BATCH_H) as f:
            return "spawnkit_pathsearch_cwd" in f.read()
    except OSError:
        return False


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


CDEF = r"""
typedef int... pid_t;
struct open_how { uint64_t flags; uint64_t mode; uint64_t resolve; };
struct spawn_template_action {
    uint32_t type; uint32_t flags; int32_t fd; int32_t newfd; uint64_t arg;
};
struct spawn_template_open { uint64_t path; struct open_how how; };
struct spawn_template_sigset { uint64_t sigset; uint64_t sigsetsize; };
struct spawn_template_create_args {
    uint64_t flags; int32_t execfd; uint32_t exec_flags; uint64_t filename;
    uint64_t actions; uint64_t actions_len; uint64_t reserved[4];
};
struct spawn_template_spawn_args {
    uint64_t flags; uint64_t pidfd; uint64_t argv; uint64_t envp;
    uint64_t actions; uint64_t actions_len; uint64_t reserved[4];
};

#define SPAWN_TEMPLATE_CREATE_CLOEXEC ...
#define SPAWN_TEMPLATE_SPAWN_INHERIT_FDS ...
#define SPAWN_TEMPLATE_SPAWN_REPORT_ERRNO ...
#define SPAWN_TEMPLATE_ACTION_CLOSE ...
#define SPAWN_TEMPLATE_ACTION_DUP2 ...
#define SPAWN_TEMPLATE_ACTION_FCHDIR ...
#define SPAWN_TEMPLATE_ACTION_OPEN ...
#define SPAWN_TEMPLATE_ACTION_CLOSE_RANGE ...
#define SPAWN_TEMPLATE_ACTION_SIGMASK ...
#define SPAWN_TEMPLATE_ACTION_SIGDEFAULT ...
#define SPAWN_TEMPLATE_ACTIONS_MAX ...
#define SPAWN_TEMPLATE_FD_MAX ...
#define SPAWN_TEMPLATE_CREATE_ARGS_SIZE_VER0 ...
#define SPAWN_TEMPLATE_SPAWN_ARGS_SIZE_VER0 ...

#define SPAWNKIT_VERSION_MAJOR ...
#define SPAWNKIT_VERSION_MINOR ...
#define SPAWNKIT_BACKEND_USER ...
#define SPAWNKIT_BACKEND_KERNEL ...
#define SPAWNKIT_SPAWN_INHERIT_FDS ...
#define SPAWNKIT_SPAWN_EXIT_STATUS ...
#define SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC ...
#define SPAWNKIT_STALE_RETRIES ...

struct spawnkit_template;

int spawnkit_backend(void);
const char *spawnkit_backend_name(int backend);
int spawnkit_kernel_has_spawn_template(void);
int spawnkit_template_create(const char *path, uint64_t flags,
                             struct spawnkit_template **tp);
int spawnkit_template_create_fd(int execfd, uint64_t flags,
                                struct spawnkit_template **tp);
int spawnkit_template_create_args(const struct spawn_template_create_args *args,
                                  size_t size, struct spawnkit_template **tp);
void spawnkit_template_destroy(struct spawnkit_template *t);
int spawnkit_template_backend(const struct spawnkit_template *t);
const char *spawnkit_template_path(const struct spawnkit_template *t);
int spawnkit_template_fd(const struct spawnkit_template *t);
pid_t spawnkit_spawn(struct spawnkit_template *t, char *const argv[],
                     char *const envp[],
                     const struct spawn_template_action *actions,
                     unsigned int nr_actions, unsigned int flags, int *pidfd);
int spawnkit_pidfd_wait(int pidfd, int options, int *wstatus);
int spawnkit_template_cache_max(void);
pid_t spawnkit_spawn_args(struct spawnkit_template *t,
                          struct spawn_template_spawn_args *args, size_t size);
int spawnkit_sys_spawn_template_create(struct spawn_template_create_args *args,
                                       size_t size);
pid_t spawnkit_sys_spawn_template_spawn(int template_fd,
                                        struct spawn_template_spawn_args *args,
                                        size_t size);

int spawnkit_actions_pass_fds(struct spawn_template_action *out,
                              unsigned int room, const int *fds,
                              unsigned int nfds);

/* The header's static inline action helpers, wrapped by cffi. */
void spawnkit_action_close(struct spawn_template_action *a, int fd);
void spawnkit_action_dup2(struct spawn_template_action *a, int fd, int newfd,
                          unsigned int flags);
void spawnkit_action_fchdir(struct spawn_template_action *a, int dirfd);
void spawnkit_action_open(struct spawn_template_action *a,
                          struct spawn_template_open *o, int dirfd,
                          const char *path, uint64_t oflags, uint64_t mode,
                          int newfd);
void spawnkit_action_close_range(struct spawn_template_action *a, int first,
                                 int last, unsigned int flags);

/* The C environment: env=None passes it as is, as subprocess does. */
extern char **environ;
"""

def cdef_of_header(path: str) -> str:
    """A header of plain declarations as cffi's cdef wants it: comments and
    preprocessor lines dropped, each `#define NAME value` turned into
    `#define NAME ...` (cffi then takes the value from the compiler), so the
    declarations are written once, in the header."""
    import re
    with open(path) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*#\s*define\s+(\w+)\s+\S", line)
        if m:
            out.append(f"#define {m.group(1)} ...")
        elif not line.lstrip().startswith("#"):
            out.append(line)
    return "\n".join(out) + "\n"


RUN_IO_H = os.path.join(HERE, "src", "run_io.h")
RUN_IO_CDEF = cdef_of_header(RUN_IO_H)

# Warm templates (include/spawnkit/warm.h): the client lives in the library.
WARM_CDEF = r"""
#define SPAWNKIT_WARM_NR_REASONS ...
struct spawnkit_warm_stats {
    uint64_t warm_spawns; uint64_t cold_fallbacks; uint64_t started;
    uint64_t restarted; uint64_t shut_down; uint64_t reasons[...];
};
int spawnkit_warm_spawn(const char *path, char *const argv[], char *const envp[],
                        const struct spawn_template_action *actions,
                        unsigned int nr_actions, unsigned int flags,
                        const char *preload, pid_t *pid, int *pidfd);
void spawnkit_warm_stats(struct spawnkit_warm_stats *out);
const char *spawnkit_warm_reason_name(int reason);
void spawnkit_warm_shutdown(void);
"""

PATHSEARCH_CDEF = r"""
int spawnkit_pathsearch(const char *name, const char *path_env, char *out,
                        size_t outlen);
int spawnkit_pathsearch_cwd(const char *name, const char *path_env,
                            const char *cwd, char *out, size_t outlen);
"""

SOURCE = r"""
#define _GNU_SOURCE 1
#include <unistd.h>
#include <spawnkit/spawnkit.h>
#include <spawnkit/warm.h>
#include "run_io.h"
"""

ffibuilder = FFI()
_cdef, _source = CDEF + RUN_IO_CDEF + WARM_CDEF, SOURCE
if _has_pathsearch():
    _cdef += PATHSEARCH_CDEF
    _source += "#include <spawnkit/batch.h>\n"
ffibuilder.cdef(_cdef)

_uring_objects, _uring_libs = _uring_link_args()
ffibuilder.set_source(
    "spawnkit._spawnkit",
    _source,
    sources=RUN_IO_SOURCES,
    depends=[RUN_IO_HEADER],
    include_dirs=[INCLUDE_DIR, RUN_IO_DIR],
    # The archive goes on the link line as an object list, so only the
    # members the binding uses are linked, and statically.
    extra_objects=[STATIC_LIB] + _uring_objects,
    libraries=["pthread"] + _uring_libs,
    extra_compile_args=["-std=gnu11"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)

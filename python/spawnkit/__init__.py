"""spawnkit: spawn templates for Python.

    import spawnkit
    r = spawnkit.run(["rg", "-n", "TODO", "src"], timeout=10, text=True,
                     on_stdout=print)
    print(r.returncode, r.stdout, r.stdout_dropped)

run() is subprocess.run() with the defaults an agent runtime wants (stdin
/dev/null, output captured and streamed, a new session, a timeout that
kills the whole tree, head+tail output limits with a marker, rlimits,
umask and cgroups, no leaked fds), one call of the library's
spawnkit_run() without the GIL; spawn() returns a Popen-like Process with a
pidfd; spawnkit.aio has the asyncio versions.  Each program is started from a
cached spawn template (Template), which is remade transparently when the
executable is replaced (ESTALE) or the credentials changed (EACCES); the
cache is bounded (LRU, idle eviction, a share of RLIMIT_NOFILE).
patch_subprocess() routes existing subprocess/asyncio code through spawn
templates (spawnkit.compat).  See docs/python.md.

Where the compiled binding cannot work (macOS, a kernel without pidfds, a
seccomp policy refusing them, SPAWNKIT_BACKEND=fallback), the same API runs
on subprocess and backend() says "fallback" (see docs/packaging.md); the
drop-in then leaves every call to stock subprocess.
"""
from subprocess import DEVNULL, PIPE, STDOUT

from ._choose import fallback_reason
from ._errors import NoOutputTimeoutExpired, StaleTemplateError, TimeoutExpired
from ._results import CompletedProcess

if fallback_reason is None:
    from ._process import Process, spawn
    from ._run import run
    from ._cache import TemplateCache, template_cache
    from ._template import Template, backend, kernel_has_spawn_template, which
    from ._warm import warm_shutdown, warm_stats
else:
    from ._fallback import (Process, Template, TemplateCache, backend,  # type: ignore[assignment,no-redef,unused-ignore]
                            kernel_has_spawn_template, run, spawn, template_cache,
                            warm_shutdown, warm_stats, which)
from .compat import patch_subprocess, unpatch_subprocess

__version__ = "0.1.0"

__all__ = [
    "CompletedProcess", "DEVNULL", "NoOutputTimeoutExpired", "PIPE", "Process",
    "STDOUT", "StaleTemplateError", "Template", "TemplateCache", "TimeoutExpired", "backend",
    "fallback_reason", "kernel_has_spawn_template", "patch_subprocess", "run", "spawn",
    "template_cache", "unpatch_subprocess", "warm_shutdown", "warm_stats", "which",
]

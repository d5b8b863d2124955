"""spawnkit: spawn templates for Python.

    import spawnkit
    r = spawnkit.run(["rg", "-n", "TODO", "src"], timeout=10, output_limit=1 << 20)
    print(r.returncode, r.stdout, r.stdout_dropped)

run() is subprocess.run() with the defaults an agent runtime wants (stdin
/dev/null, output captured, a timeout that kills the whole tree, head+tail
output limits, no leaked fds); spawn() returns a Popen-like Process with a
pidfd; spawnkit.aio has the asyncio versions.  Each program is started from a
cached spawn template (Template), which is remade transparently when the
executable is replaced (ESTALE) or the credentials changed (EACCES); the
cache is bounded (LRU, idle eviction, a share of RLIMIT_NOFILE).
patch_subprocess() routes existing subprocess/asyncio code through spawn
templates (spawnkit.compat).  See docs/python.md.
"""
from ._errors import NoOutputTimeoutExpired, StaleTemplateError
from ._process import DEVNULL, PIPE, STDOUT, Process, spawn
from ._run import CompletedProcess, run
from ._cache import TemplateCache, template_cache
from ._template import Template, backend, kernel_has_spawn_template, which
from ._warm import warm_shutdown, warm_stats
from .compat import patch_subprocess, unpatch_subprocess

__version__ = "0.1.0"

__all__ = [
    "CompletedProcess", "DEVNULL", "NoOutputTimeoutExpired", "PIPE", "Process",
    "STDOUT", "StaleTemplateError", "Template", "TemplateCache", "backend",
    "kernel_has_spawn_template", "patch_subprocess", "run", "spawn",
    "template_cache", "unpatch_subprocess", "warm_shutdown", "warm_stats", "which",
]

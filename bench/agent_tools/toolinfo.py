"""What the benchmark ran on: executables of the mix, their versions, the host.

Every figure is only meaningful with the exact tools behind it (a different
rg or git changes the per-call cost), so the report names each one.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys

from workload import EXECUTABLES


class MissingTool(Exception):
    pass


def _first_line(argv: list[str]) -> str | None:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
    except OSError:
        return None
    out = (r.stdout or r.stderr).strip()
    return out.splitlines()[0].strip() if r.returncode == 0 and out else None


def _debian_package_version(path: str) -> str | None:
    """'dash 0.5.12-2' for /usr/bin/dash: for tools with no --version."""
    # usrmerge: dpkg may know the file by its /bin path.
    owner = _first_line(["dpkg-query", "-S", path]) or \
        _first_line(["dpkg-query", "-S", path.replace("/usr/bin/", "/bin/", 1)])
    if not owner or ":" not in owner:
        return None
    pkg = owner.split(":")[0].strip()
    ver = _first_line(["dpkg-query", "-W", "-f=${Version}", pkg])
    return f"{pkg} {ver} (Debian package)" if ver else None


def locate(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise MissingTool(name)
    return path


def check_all() -> None:
    """Stop with one clear message naming every missing executable."""
    missing = [n for n in EXECUTABLES if shutil.which(n) is None]
    if missing:
        pkgs = sorted({EXECUTABLES[n] for n in missing})
        raise MissingTool(
            f"missing from PATH: {', '.join(missing)}.  The agent-tools mix never runs without "
            f"one of its tools; install them (as root: scripts/install-deps.sh bench, or "
            f"apt-get install {' '.join(pkgs)}) and run again.")


def version(name: str) -> str:
    path = os.path.realpath(locate(name))
    for args in (["--version"], ["-W", "version"]):
        line = _first_line([path, *args])
        if line:
            return line
    return _debian_package_version(path) or "version unknown"


def tools() -> list[tuple[str, str, str]]:
    """(name, resolved path, version) for each executable of the mix."""
    return [(n, os.path.realpath(locate(n)), version(n)) for n in EXECUTABLES]


def host() -> dict[str, str]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
    except OSError:
        pass
    return {
        "kernel": platform.release(),
        "cpu": cpu,
        "cpus": str(os.cpu_count()),
        "loadavg_at_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "python": sys.executable,
        "python_version": platform.python_version(),
    }


def autogen_version() -> str:
    from importlib.metadata import version as dist_version
    return dist_version("autogen-core")


def repo_revision(path: str) -> str:
    rev = _first_line(["git", "-C", path, "rev-parse", "--short=12", "HEAD"]) or "unknown"
    dirty = subprocess.run(["git", "-C", path, "diff", "--quiet", "HEAD", "--", "src", "include", "python"],
                           stdin=subprocess.DEVNULL, capture_output=True).returncode
    return rev + ("+local-changes" if dirty == 1 else "")

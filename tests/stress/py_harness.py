"""py_harness - the scenario runner of the Python stress programs (py_*.py).

A program registers scenarios with @scenario and calls main().  main() runs
each scenario in a fresh interpreter (``python prog.py --one NAME``) under
its deadline, so a crash (a signal), a hang (the deadline) or a leak is
counted against that scenario alone, and prints the line tests/stress/run.sh
counts::

    STRESS <ok|wrong|leak|crash|hang|skip> py/<prog>/<name>: <detail>

A scenario returns its detail (a string) when all is well, or raises
Wrong, Leak or Skip; any other exception is a wrong result too.  Sizes
scale with STRESS_SCALE, deadlines with STRESS_TIMEOUT_SCALE.
"""
from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import traceback
from typing import Callable, Dict, List, Tuple

SCALE = max(1, int(os.environ.get("STRESS_SCALE", "1") or 1))
TIMEOUT_SCALE = max(1, int(os.environ.get("STRESS_TIMEOUT_SCALE", "1") or 1))
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, os.environ.get("B", "build"))
PROBE = os.path.join(BUILD, "tests", "helpers", "probe")

EXIT = {"ok": 0, "wrong": 10, "leak": 11, "skip": 12}
VERDICT = {v: k for k, v in EXIT.items()}

_scenarios: List[Tuple[str, Callable[[], str], int]] = []


class Wrong(Exception):
    """A result that differs from the reference or the documentation."""


class Leak(Exception):
    """Something left behind: fds, pidfds, children, memory."""


class Skip(Exception):
    """Cannot run here (says why); never counted as a pass."""


def scaled(n: int) -> int:
    return n * SCALE


def scenario(timeout: int = 60) -> Callable[[Callable[[], str]], Callable[[], str]]:
    def reg(fn: Callable[[], str]) -> Callable[[], str]:
        _scenarios.append((fn.__name__.replace("_", "-"), fn, timeout))
        return fn
    return reg


def expect(cond: bool, why: str) -> None:
    if not cond:
        raise Wrong(why)


# ---- measurements --------------------------------------------------------

def fds() -> List[int]:
    return sorted(int(f) for f in os.listdir("/proc/self/fd"))


def pidfds() -> int:
    n = 0
    for f in os.listdir("/proc/self/fd"):
        try:
            n += "pidfd" in os.readlink(f"/proc/self/fd/{f}")
        except OSError:
            pass
    return n


def children() -> int:
    n = 0
    for t in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{t}/children") as f:
                n += len(f.read().split())
        except OSError:
            pass
    return n


def rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


class Snap:
    """fds, pidfds, children and RSS now; check() compares with later."""

    def __init__(self) -> None:
        self.fds, self.pidfds, self.children, self.rss = len(fds()), pidfds(), children(), rss_kb()

    def check(self, what: str, rss_slack_kb: int = 16384) -> str:
        now = Snap()
        detail = (f"{what}: fds {self.fds}->{now.fds} pidfds {self.pidfds}->{now.pidfds} "
                  f"children {self.children}->{now.children} rss {self.rss}->{now.rss} KiB")
        if (now.fds > self.fds or now.pidfds > self.pidfds or now.children > self.children
                or now.rss - self.rss > rss_slack_kb):
            raise Leak(detail)
        return detail


def exc_id(e: BaseException) -> str:
    """An exception as the reference is compared: class and errno."""
    return f"{type(e).__name__}({getattr(e, 'errno', None)})"


def outcome(fn: Callable[[], object]) -> str:
    """What a call did: 'returned <repr>' or the exception's class and errno."""
    try:
        return f"returned {fn()!r}"
    except BaseException as e:  # noqa: B902 - the outcome is the subject
        return exc_id(e)


def drop_to_nobody() -> None:
    if os.geteuid() != 0:
        raise Skip("needs root to become an unprivileged user")
    try:
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
    except PermissionError as e:          # root without CAP_SETUID (a container)
        raise Skip(f"cannot change uid here: {e}") from e


def lowest_free_fd() -> int:
    fd = os.dup(0)
    os.close(fd)
    return fd


def set_nofile(n: int) -> Tuple[int, int]:
    old = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (n, old[1]))
    return old


# ---- runner --------------------------------------------------------------

def _one(name: str) -> None:
    fn = {n: f for n, f, _ in _scenarios}[name]
    try:
        detail, verdict = fn() or "", "ok"
    except Wrong as e:
        detail, verdict = str(e), "wrong"
    except Leak as e:
        detail, verdict = str(e), "leak"
    except Skip as e:
        detail, verdict = str(e), "skip"
    except BaseException as e:  # noqa: B902
        traceback.print_exc()
        detail, verdict = f"unexpected {type(e).__name__}: {e}", "wrong"
    sys.stdout.flush()
    os.write(int(os.environ["STRESS_DETAIL_FD"]), detail.replace("\n", " ").encode())
    os._exit(EXIT[verdict])


def main() -> None:
    prog = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        _one(sys.argv[2])
    want = set(sys.argv[1:])
    for name, _, timeout in _scenarios:
        if want and name not in want:
            continue
        r, w = os.pipe()
        deadline = timeout * TIMEOUT_SCALE
        p = subprocess.Popen([sys.executable, sys.argv[0], "--one", name],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, pass_fds=(w,),
                             env={**os.environ, "STRESS_DETAIL_FD": str(w)},
                             start_new_session=True)
        os.close(w)
        try:
            out, _ = p.communicate(timeout=deadline)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)   # the scenario and all it started
            out, _ = p.communicate()
            rc = None
        with os.fdopen(r, "rb") as f:
            detail = f.read().decode(errors="replace")
        if rc is None:
            verdict, detail = "hang", f"no result after {deadline} s"
        elif rc < 0:
            verdict, detail = "crash", f"{detail}; killed by signal {-rc}".lstrip("; ")
        else:
            verdict = VERDICT.get(rc, "wrong")
            if rc not in VERDICT:
                detail = f"{detail}; exit {rc}".lstrip("; ")
        if verdict != "ok" and out:
            sys.stdout.write("".join("    " + ln + "\n" for ln in
                                     out.decode(errors="replace").splitlines()[-30:]))
        print(f"STRESS {verdict} py/{prog}/{name}: {detail}", flush=True)


__all__ = ["BUILD", "Dict", "Leak", "PROBE", "ROOT", "SCALE", "Skip", "Snap", "Wrong",
           "children", "drop_to_nobody", "exc_id", "expect", "fds", "lowest_free_fd",
           "main", "outcome", "pidfds", "rss_kb", "scaled", "scenario", "set_nofile"]

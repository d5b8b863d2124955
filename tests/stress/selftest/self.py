"""self.py - one scenario of each bad verdict, to show the Python harness
counts them (tests/stress/harness_check.sh)."""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from py_harness import Snap, expect, main, scenario  # noqa: E402


@scenario(timeout=1)
def hang() -> str:
    time.sleep(600)
    return ""


@scenario()
def crash() -> str:
    os.kill(os.getpid(), signal.SIGSEGV)
    return ""


@scenario()
def leak() -> str:
    s = Snap()
    os.dup(0)
    return s.check("one dup")


@scenario()
def wrong() -> str:
    expect(1 + 1 == 3, "1 + 1 is not 3")
    return ""


@scenario()
def ok() -> str:
    return "nothing to see"


if __name__ == "__main__":
    main()

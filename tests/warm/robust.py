#!/usr/bin/env python3
"""A warm interpreter that dies or misbehaves (make test-warm).

    robust.py PYTHON [PYTHON ...]

For each target interpreter, the warm interpreter is made to fail at each
step of a request (the test hook SPAWNKIT_WARM_TEST_DIE, read when it
starts: killed by SIGKILL after reading the request, after cloning the tool,
after replying; a malformed reply; no reply at all), and from outside
(SIGKILL while idle, SIGSTOP so it never answers).  Every call must give the
cold result, run the tool exactly once, count the fallback's reason, and
leave no child of ours unreaped and no fd of ours open.  Prints one line per
failure and a summary; exit status 1 on any failure.
"""
import os
import signal
import sys
import tempfile
import time

import spawnkit

HERE = os.path.dirname(os.path.abspath(__file__))
# the tool appends one line per run: a call run twice (warm, then cold) shows
TOOL = "import sys; open(sys.argv[1], 'a').write('ran\\n'); print('out', sys.argv[2])"


def children():
    """(pid, state) of every process whose parent is us, zombies included."""
    out = []
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        if int(fields[1]) == me:
            out.append((int(d), fields[0]))
    return out


def fds():
    return sorted(os.listdir("/proc/self/fd"))


def interpreters():
    return [pid for pid, state in children() if state != "Z"]


class Case:
    def __init__(self, py, name):
        self.py, self.name, self.fails = py, name, []

    def check(self, cond, what):
        if not cond:
            self.fails.append(what)

    def call(self, tag, expect_warm, reason=None):
        """One warm call: the cold result, run once, counted as expected."""
        with tempfile.NamedTemporaryFile(prefix="spawnkit-robust-") as mark:
            before = spawnkit.warm_stats()
            r = spawnkit.run([self.py, "-c", TOOL, mark.name, tag], warm=True, timeout=60)
            after = spawnkit.warm_stats()
            with open(mark.name) as f:
                runs = f.read().count("ran")
        self.check((r.returncode, r.stdout, r.stderr) == (0, ("out %s\n" % tag).encode(), b""),
                   "%s: result %r %r %r" % (tag, r.returncode, r.stdout, r.stderr))
        self.check(runs == 1, "%s: the tool ran %d times" % (tag, runs))
        warm = after["warm_spawns"] - before["warm_spawns"]
        self.check(warm == (1 if expect_warm else 0), "%s: warm spawns +%d" % (tag, warm))
        if reason:
            got = after["reasons"].get(reason, 0) - before["reasons"].get(reason, 0)
            self.check(got == 1, "%s: reason %s +%d (%r)" % (tag, reason, got, after["reasons"]))


def hook_case(py, step, expect_warm):
    """The interpreter misbehaves at `step` on its first request."""
    c = Case(py, "die-" + step)
    spawnkit.warm_shutdown()
    fd0 = fds()
    os.environ["SPAWNKIT_WARM_TEST_DIE"] = step
    os.environ["SPAWNKIT_WARM_TIMEOUT"] = "1"
    try:
        c.call("first", expect_warm, None if expect_warm else "failed")
        if not expect_warm:
            # the failed interpreter is gone; the tool it cloned was reaped
            c.check(interpreters() == [], "children left: %r" % (children(),))
        c.call("second", expect_warm, None if expect_warm else "failed")
    finally:
        del os.environ["SPAWNKIT_WARM_TEST_DIE"]
        del os.environ["SPAWNKIT_WARM_TIMEOUT"]
    spawnkit.warm_shutdown()
    c.check(children() == [], "children after shutdown: %r" % (children(),))
    c.check(fds() == fd0, "fds %r -> %r" % (fd0, fds()))
    c.call("healthy", True)                # a hook-free interpreter serves again
    spawnkit.warm_shutdown()
    return c


def outside_case(py, sig):
    """The interpreter is signalled from outside while idle."""
    c = Case(py, "signal-%d" % sig)
    spawnkit.warm_shutdown()
    fd0 = fds()
    c.call("start", True)
    live = interpreters()
    c.check(len(live) == 1, "expected one warm interpreter, children %r" % (children(),))
    if len(live) == 1:
        os.kill(live[0], sig)
        if sig == signal.SIGKILL:
            while dict(children()).get(live[0]) != "Z":     # dead, not yet reaped
                time.sleep(0.01)
            # dead while idle: replaced at the next call, which runs warm
            c.call("after-kill", True)
        else:
            os.environ["SPAWNKIT_WARM_TIMEOUT"] = "1"
            try:
                c.call("after-stop", False, "failed")
            finally:
                del os.environ["SPAWNKIT_WARM_TIMEOUT"]
            c.check(interpreters() == [], "children left: %r" % (children(),))
            c.call("after-replace", True)
    spawnkit.warm_shutdown()
    c.check(children() == [], "children after shutdown: %r" % (children(),))
    c.check(fds() == fd0, "fds %r -> %r" % (fd0, fds()))
    return c


def main():
    targets = sys.argv[1:]
    if not targets:
        print(__doc__)
        return 2
    cases = []
    for py in targets:
        spawnkit.run([py, "-c", "pass"])   # the cold path's cached template: its fd stays
        # warm: the reply reached us before the interpreter died
        for step, warm in (("request", False), ("clone", False), ("garbage", False),
                           ("stall", False), ("reply", True)):
            cases.append(hook_case(py, step, warm))
        for sig in (signal.SIGKILL, signal.SIGSTOP):
            cases.append(outside_case(py, sig))
    failed = 0
    for c in cases:
        if c.fails:
            failed += 1
            for f in c.fails:
                print("FAIL %s [%s] %s" % (c.py, c.name, f))
    print("robust: %d cases over %d interpreters: %d passed, %d failed"
          % (len(cases), len(targets), len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    t0 = time.monotonic()
    rc = main()
    print("robust: %.1f s" % (time.monotonic() - t0))
    sys.exit(rc)

"""py_load - load on the Python binding, each compared with subprocess/asyncio.

threads x runs with and without a forking thread, concurrent asyncio runs,
hundreds of distinct programs under a small fd limit (the template cache),
head+tail capture of large outputs; fds, pidfds, children and RSS before and
after each.
"""
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_harness import (PROBE, Snap, expect, fds, main, scaled, scenario,  # noqa: E402
                        set_nofile)

import spawnkit  # noqa: E402
from spawnkit import aio  # noqa: E402

THREADS = 16 if int(os.environ.get("STRESS_SCALE", "1")) > 2 else 4


def probe_args(code: int):
    return [PROBE, "--quiet", "--exit", str(code)]


def load(runner, threads: int, per: int, forker: bool = False):
    """threads x per runs of runner(code) -> returncode; (wrong, secs, forks)."""
    wrong = []
    stop = threading.Event()
    forks = [0]

    def work(tid: int) -> None:
        for i in range(per):
            code = (tid * 37 + i) % 200
            rc = runner(code)
            if rc != code:
                wrong.append((tid, i, code, rc))

    def fork_loop() -> None:
        while not stop.is_set():
            pid = os.fork()
            if pid == 0:
                os._exit(3)
            _, st = os.waitpid(pid, 0)
            if os.waitstatus_to_exitcode(st) != 3:
                wrong.append(("fork", st))
            forks[0] += 1

    ft = threading.Thread(target=fork_loop) if forker else None
    if ft:
        ft.start()
    t0 = time.monotonic()
    ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    secs = time.monotonic() - t0
    stop.set()
    if ft:
        ft.join()
    return wrong, secs, forks[0]


def sk_run(code: int) -> int:
    return spawnkit.run(probe_args(code), timeout=60).returncode


def sp_run(code: int) -> int:
    return subprocess.run(probe_args(code), capture_output=True, timeout=60).returncode


def threads_case(forker: bool) -> str:
    per = scaled(25)
    load(sk_run, THREADS, 3, forker)         # warm-up: templates, thread stacks
    s = Snap()
    wrong, secs, forks = load(sk_run, THREADS, per, forker)
    expect(not wrong, f"{len(wrong)} wrong of {THREADS * per}: first {wrong[:1]}")
    detail = s.check(f"{THREADS}x{per} runs")
    ref_wrong, ref_secs, _ = load(sp_run, THREADS, per, forker)
    expect(not ref_wrong, f"subprocess itself got {len(ref_wrong)} wrong")
    return f"{detail}; {secs:.2f} s (subprocess {ref_secs:.2f} s)" + (
        f"; {forks} forks alongside" if forker else "")


@scenario(timeout=300)
def threads_x_runs() -> str:
    return threads_case(False)


@scenario(timeout=300)
def threads_x_runs_forking_thread() -> str:
    return threads_case(True)


@scenario(timeout=300)
def asyncio_concurrent() -> str:
    n = scaled(100)

    async def sk_all():
        rs = await asyncio.gather(*(aio.run(probe_args(i % 200), timeout=120)
                                    for i in range(n)))
        return [r.returncode for r in rs]

    async def ref_all():
        async def one(i):
            p = await asyncio.create_subprocess_exec(*probe_args(i % 200),
                                                     stdout=subprocess.PIPE,
                                                     stderr=subprocess.PIPE)
            await p.communicate()
            return p.returncode
        return await asyncio.gather(*(one(i) for i in range(n)))

    asyncio.run(sk_all())
    s = Snap()
    t0 = time.monotonic()
    got = asyncio.run(sk_all())
    secs = time.monotonic() - t0
    want = [i % 200 for i in range(n)]
    expect(got == want, f"{sum(a != b for a, b in zip(got, want))} of {n} wrong")
    detail = s.check(f"{n} concurrent aio.run")
    t0 = time.monotonic()
    ref = asyncio.run(ref_all())
    expect(ref == want, "asyncio subprocess itself wrong")
    return f"{detail}; {secs:.2f} s (asyncio subprocess {time.monotonic() - t0:.2f} s)"


@scenario(timeout=300)
def distinct_programs_fd_limit() -> str:
    """300 distinct program paths under RLIMIT_NOFILE 256: every run works
    (as with subprocess) and the template cache keeps no fd per path."""
    d = tempfile.mkdtemp(prefix="skstress.")
    try:
        # links of a private copy: a link changes the inode's ctime, and the
        # shared probe must not look replaced to anyone else's templates
        paths = [os.path.join(d, f"prog{i}") for i in range(300)]
        shutil.copy2(PROBE, paths[0])
        for p in paths[1:]:
            os.link(paths[0], p)
        spawnkit.run([PROBE, "--quiet"])
        base = len(fds())
        old = set_nofile(256)
        fails = []
        for i, p in enumerate(paths):
            try:
                rc = spawnkit.run([p, "--quiet", "--exit", str(i % 100)]).returncode
                if rc != i % 100:
                    fails.append((i, rc))
            except OSError as e:
                fails.append((i, e.errno))
        grown = len(fds()) - base
        ref_fails = sum(subprocess.run([p, "--quiet"]).returncode != 0 for p in paths[:20])
        set_nofile(old[0])
        expect(not fails, f"{len(fails)} of 300 failed under ulimit -n 256, first {fails[:2]} "
               f"(subprocess: {ref_fails} of 20); cache fds +{grown}")
        expect(grown <= 128, f"the cache holds {grown} fds after 300 programs "
               "(limit 256): unbounded")
        return f"300 programs under ulimit -n 256: all ran; fds +{grown} held by the cache"
    finally:
        shutil.rmtree(d, ignore_errors=True)


@scenario(timeout=600)
def large_output_head_tail() -> str:
    """Head and tail capture of a large output equal subprocess's full
    output cut the same way."""
    mb = 4 if scaled(1) < 10 else 169
    n = mb * 1024 * 1024 // 16
    script = (f"import sys\nw = sys.stdout.buffer.write\n"
              f"for i in range({n}): w(b'%015d\\n' % i)\n")
    limit = 1 << 16
    spawnkit.run([sys.executable, "-c", "pass"])      # the template, cached
    s = Snap()
    r = spawnkit.run([sys.executable, "-c", script], output_limit=limit, timeout=300)
    detail = s.check(f"{mb} MB through output_limit 64 KiB", rss_slack_kb=65536)
    ref = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=300).stdout
    head, tail = ref[:limit // 2], ref[-(limit // 2):]
    marker = b"[... %d bytes omitted ...]" % (len(ref) - limit)
    expect(r.returncode == 0 and (r.stdout_head, r.stdout_tail) == (head, tail),
           f"head/tail differ: got {len(r.stdout_head)}+{len(r.stdout_tail)} bytes, "
           f"dropped {r.stdout_dropped}")
    expect(r.stdout == head + marker + tail, "stdout is not head, marker, tail")
    expect(r.stdout_dropped == len(ref) - limit, f"dropped {r.stdout_dropped}")
    return f"{detail}; head+tail equal to subprocess's"


if __name__ == "__main__":
    main()

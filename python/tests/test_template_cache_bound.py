"""The template cache is bounded and remakes templates after a credential
change (issue 12, #2 and #6).

Before: one template (one fd) per distinct program path, for ever: under
ulimit -n 256 the 246th distinct program failed with EMFILE; and after the
process changed uid every cached program failed with EACCES for good.
"""
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import spawnkit
from spawnkit import Template, TemplateCache, template_cache
from spawnkit._ffi import lib

# The template cache: not there in the portable fallback.
pytestmark = pytest.mark.native


def _child(code: str, **kw: Any) -> str:
    """Run a Python snippet in a fresh interpreter; its stdout."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                       capture_output=True, text=True, timeout=300, **kw)
    assert r.returncode == 0, r.stdout + r.stderr
    out: str = r.stdout
    return out



def test_many_distinct_programs_under_a_small_fd_limit(tmp_path: Path) -> None:
    out = _child(f"""
        import os, resource, shutil, spawnkit
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        base = len(os.listdir("/proc/self/fd"))
        for i in range(300):
            p = os.path.join({str(tmp_path)!r}, f"tool{{i}}")
            shutil.copy("/bin/true", p)
            assert spawnkit.run([p]).returncode == 0, i
        n = len(os.listdir("/proc/self/fd"))
        print(base, n, len(spawnkit.template_cache), spawnkit.template_cache.max_size)
    """)
    base, n, cached, cap = map(int, out.split())
    assert cap == 256 // 8
    assert cached <= cap
    assert n <= base + cap + 2          # +2: run()'s shared /dev/null fd and slack


def test_max_size_follows_rlimit_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        assert TemplateCache().max_size == 32 == lib.spawnkit_template_cache_max()
        resource.setrlimit(resource.RLIMIT_NOFILE, (16, hard))
        assert TemplateCache().max_size == 4
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert TemplateCache(max_size=7).max_size == 7


def _tools(tmp_path: Path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        p = tmp_path / f"t{i}"
        p.symlink_to("/bin/true")
        paths.append(str(p))
    return paths


def test_least_recently_used_goes_first(tmp_path: Path) -> None:
    a, b, c, d = _tools(tmp_path, 4)
    cache = TemplateCache(max_size=3)
    ta, tb, tc = cache.get(a), cache.get(b), cache.get(c)
    assert cache.get(a) is ta                  # a is now the most recent
    td = cache.get(d)
    assert b not in cache and tb.closed
    assert a in cache and c in cache and d in cache and len(cache) == 3
    assert not ta.closed and not tc.closed and not td.closed
    cache.configure(max_size=1)                # shrinking applies at once
    assert len(cache) == 1 and d in cache and ta.closed and tc.closed
    cache.clear()
    assert td.closed


def test_idle_templates_are_closed(tmp_path: Path) -> None:
    a, b = _tools(tmp_path, 2)
    now = [100.0]
    cache = TemplateCache(idle_seconds=10, clock=lambda: now[0])
    ta = cache.get(a)
    now[0] += 5
    tb = cache.get(b)
    now[0] += 6                                 # a idle 11 s, b 6 s
    assert cache.get(b) is tb
    assert a not in cache and ta.closed
    now[0] += 11
    ta2 = cache.get(a)                          # b idle now; a made again
    assert ta2 is not ta and tb.closed and len(cache) == 1
    cache.clear()


def test_default_idle_time_is_the_librarys() -> None:
    assert TemplateCache().idle_seconds == lib.SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC
    with pytest.raises(ValueError):
        TemplateCache(max_size=0)


def test_eviction_while_spawning_defers_the_free(tmp_path: Path) -> None:
    a, b = _tools(tmp_path, 2)
    cache = TemplateCache(max_size=1)
    ta, ptr = cache.acquire(a)
    cache.get(b)                                # evicts a, in use
    assert ta.closed and ta._ptr is not None    # marked, not freed
    ta._release()
    assert ta._ptr is None
    cache.clear()


def test_closed_template_in_cache_is_remade(tmp_path: Path) -> None:
    (a,) = _tools(tmp_path, 1)
    cache = TemplateCache()
    t = cache.get(a)
    t.close()
    t2 = cache.get(a)
    assert t2 is not t and not t2.closed
    cache.clear()


def test_global_cache_stays_bounded_through_run(tmp_path: Path) -> None:
    paths = _tools(tmp_path, 12)
    template_cache.configure(max_size=5)
    try:
        for p in paths:
            assert spawnkit.run([p]).returncode == 0
        assert len(template_cache) <= 5
    finally:
        template_cache.configure()
        for p in paths:
            template_cache.discard(p)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to change uid")
def test_cached_templates_survive_dropping_privileges() -> None:
    out = _child("""
        import os, spawnkit
        assert spawnkit.run(["/bin/true"]).returncode == 0
        assert spawnkit.run(["sh", "-c", "exit 3"]).returncode == 3
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        # the cached templates were made as root: remade, not EACCES for good
        for _ in range(3):
            assert spawnkit.run(["/bin/true"]).returncode == 0
            assert spawnkit.run(["sh", "-c", "exit 3"]).returncode == 3
        print(spawnkit.run(["id", "-u"], text=True).stdout.strip())
    """, cwd="/")
    assert out.strip() == "65534"


def test_explicit_template_still_reports_eacces_after_a_uid_change() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to change uid")
    _child("""
        import os, spawnkit
        t = spawnkit.Template("/bin/true")
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        try:
            t.spawn(["true"])
        except PermissionError:
            pass
        else:
            raise AssertionError("an explicit template is not remade")
    """, cwd="/")


def test_drop_in_keeps_routing_after_dropping_privileges() -> None:
    """The subprocess drop-in follows the same policy: after a uid change
    its cached templates are remade (EACCES), not handed to stock."""
    if os.geteuid() != 0:
        pytest.skip("needs root to change uid")
    out = _child("""
        import os, subprocess, spawnkit
        from spawnkit import compat
        spawnkit.patch_subprocess()
        assert subprocess.run(["/bin/true"]).returncode == 0
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        assert subprocess.run(["/bin/true"]).returncode == 0
        s = compat.stats()
        print(s["routed"], s["fallback"], sorted(s["reasons"]))
    """, cwd="/")
    assert out.split() == ["2", "0", "[]"]

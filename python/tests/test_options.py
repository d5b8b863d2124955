"""The keyword lists shared by the sync and aio layers (spawnkit/_options.py):
spawn() and aio.spawn() take _spawn_raw()'s options, aio.run() takes run()'s
with run()'s defaults (output_limit included), and a keyword none of them takes
is the TypeError Python itself raises, before anything starts."""
import asyncio
import inspect
import os
from subprocess import DEVNULL
from typing import Any, Callable, Dict, List

import pytest

import spawnkit
from spawnkit import _aio_run, _options, aio


def test_spawn_options_are_spawn_raws() -> None:
    if spawnkit.fallback_reason is None:
        from spawnkit._process import _spawn_raw
        params = inspect.signature(_spawn_raw).parameters
        want = {k for k, p in params.items() if p.kind is p.KEYWORD_ONLY}
    else:
        want = {k for k in inspect.signature(spawnkit.spawn).parameters
                if k not in ("args", "text", "encoding", "errors")}
    assert set(_options.SpawnOptions.__annotations__) == want


def test_aio_run_defaults_are_runs() -> None:
    run_defaults = spawnkit.run.__kwdefaults__
    assert run_defaults is not None
    shared = set(_options.RunOptions.__annotations__)
    assert shared <= set(run_defaults)
    assert set(_aio_run._DEFAULTS) == shared
    for k in shared:
        assert _aio_run._DEFAULTS[k] == run_defaults[k], k
    assert _aio_run._DEFAULTS["output_limit"] == 1 << 20
    # what aio.run() keeps by default: run()'s 1 MiB, head and tail, and
    # the count of what it dropped
    big = 3 << 19
    r = asyncio.run(aio.run(["head", "-c", str(big), "/dev/zero"]))
    assert len(r.stdout) == 1 << 20
    assert r.stdout_dropped == big - (1 << 20)
    r = asyncio.run(aio.run(["head", "-c", str(big), "/dev/zero"], output_limit=None))
    assert len(r.stdout) == big


def _children() -> List[str]:
    with open(f"/proc/{os.getpid()}/task/{os.getpid()}/children") as f:
        return f.read().split()


async def _aio_spawn_wait(**kw: Any) -> int:
    p = await aio.spawn(["true"], **kw)
    return await p.wait()


def _spawn_wait(**kw: Any) -> int:
    with spawnkit.spawn(["true"], **kw) as p:
        pass
    return p.wait()


CALLS: Dict[str, Callable[..., Any]] = {
    "spawn": _spawn_wait,
    "aio.spawn": lambda **kw: asyncio.run(_aio_spawn_wait(**kw)),
    "aio.run": lambda **kw: asyncio.run(aio.run(["true"], **kw)).returncode,
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_unknown_keyword_is_pythons_error(name: str) -> None:
    before = _children()
    fn = name.split(".")[-1]
    with pytest.raises(TypeError, match=rf"^{fn}\(\) got an unexpected keyword argument 'bogus'$"):
        CALLS[name](bogus=1)
    if name == "aio.run":      # run()'s own options are unknown to aio.run(), as before
        with pytest.raises(TypeError, match="unexpected keyword argument 'umask'"):
            CALLS[name](umask=0o22)
    assert _children() == before


CHILD: Dict[str, Any] = {
    "cwd": "/", "env": dict(os.environ), "executable": None, "pass_fds": (),
    "inherit_fds": False, "signal_mask": None, "default_signals": (),
    "restore_signals": True, "warm": False, "preload": None}
SPAWN: Dict[str, Any] = dict(CHILD, stdin=DEVNULL, stdout=DEVNULL, stderr=DEVNULL,
                             template=None, new_session=False)
RUN: Dict[str, Any] = dict(CHILD, input=None, timeout=30, no_output_timeout=None,
                           wait_delay=None, capture_output=True, output_limit=None,
                           stdin=None, stdout=None, stderr=None, check=True, kill_grace=1.0,
                           new_session=None)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_shared_option_is_taken(name: str) -> None:
    """Every option of the shared list is taken, by name, by each caller."""
    kw, table = (RUN, _options.RunOptions) if name == "aio.run" else (SPAWN, _options.SpawnOptions)
    assert set(kw) == set(table.__annotations__)
    assert CALLS[name](**kw) == 0

"""Program lookup errs and resolves as subprocess does (issue 12, #4 #5 #9).

Each case runs subprocess first and expects spawnkit to give the same
exception type and errno, or to run the same file.
"""
import errno
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Type

import pytest

import spawnkit


def _script(path: Path, code: int) -> None:
    path.write_text(f"#!/bin/sh\nexit {code}\n")
    path.chmod(0o755)


def _subprocess_error(args: list[str], **kw: Any) -> Optional[Tuple[Type[OSError], Optional[int]]]:
    try:
        subprocess.run(args, **kw)
    except OSError as e:
        return type(e), e.errno
    return None


def test_directory_on_path_is_permission_error_as_subprocess(tmp_path: Path) -> None:
    (tmp_path / "d" / "prog").mkdir(parents=True)
    env = {"PATH": str(tmp_path / "d")}
    want = _subprocess_error(["prog"], env=env)
    assert want == (PermissionError, errno.EACCES)
    with pytest.raises(PermissionError) as ei:
        spawnkit.run(["prog"], env=env)
    assert ei.value.errno == errno.EACCES
    with pytest.raises(PermissionError):
        spawnkit.which("prog", path=env["PATH"])


def test_directory_then_program_runs_the_program(tmp_path: Path) -> None:
    (tmp_path / "d" / "prog").mkdir(parents=True)
    (tmp_path / "e").mkdir()
    _script(tmp_path / "e" / "prog", 4)
    env = {"PATH": f"{tmp_path / 'd'}:{tmp_path / 'e'}"}
    assert subprocess.run(["prog"], env=env).returncode == 4
    assert spawnkit.run(["prog"], env=env).returncode == 4


@pytest.mark.parametrize("entry", ["bin", "./bin", "sub/../bin"])
def test_relative_path_entry_is_under_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          entry: str) -> None:
    child = tmp_path / "child"
    (child / "bin").mkdir(parents=True)
    (child / "sub").mkdir()
    _script(child / "bin" / "prog", 6)
    parent = tmp_path / "parent"
    (parent / "bin").mkdir(parents=True)
    (parent / "sub").mkdir()
    _script(parent / "bin" / "prog", 9)     # the wrong one
    monkeypatch.chdir(parent)
    env = {"PATH": entry}
    assert subprocess.run(["prog"], env=env, cwd=child).returncode == 6
    assert spawnkit.run(["prog"], env=env, cwd=child).returncode == 6
    assert spawnkit.run(["prog"], env=env, cwd=str(child).encode()).returncode == 6
    fd = os.open(child, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert spawnkit.run(["prog"], env=env, cwd=fd).returncode == 6
    finally:
        os.close(fd)
    # without cwd=, our own directory
    assert spawnkit.run(["prog"], env=env).returncode == 9


def test_relative_path_entry_missing_under_cwd(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    parent = tmp_path / "parent"
    (parent / "bin").mkdir(parents=True)
    _script(parent / "bin" / "prog", 9)
    (tmp_path / "child").mkdir()
    monkeypatch.chdir(parent)
    env = {"PATH": "bin"}
    want = _subprocess_error(["prog"], env=env, cwd=tmp_path / "child")
    assert want == (FileNotFoundError, errno.ENOENT)
    with pytest.raises(FileNotFoundError):
        spawnkit.run(["prog"], env=env, cwd=tmp_path / "child")


@pytest.mark.parametrize("how", ["argv", "executable"])
def test_empty_program_name_is_permission_error_as_subprocess(how: str) -> None:
    kw: Dict[str, Any] = {"executable": ""} if how == "executable" else {}
    args = ["true"] if how == "executable" else [""]
    want = _subprocess_error(args, **kw)
    assert want == (PermissionError, errno.EACCES)
    with pytest.raises(PermissionError) as ei:
        spawnkit.run(args, **kw)
    assert ei.value.errno == errno.EACCES
    with pytest.raises(PermissionError):
        spawnkit.spawn(args, **kw)


def test_empty_program_name_async() -> None:
    import asyncio
    import spawnkit.aio

    async def main() -> None:
        with pytest.raises(PermissionError):
            await spawnkit.aio.run([""])
    asyncio.run(main())

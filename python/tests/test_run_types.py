"""run()'s static types, as mypy sees them: CompletedProcess[bytes] by
default, CompletedProcess[str] for text=True/encoding/errors/
universal_newlines, Any when text is only known at run time; a wrong
option type is an error."""
from __future__ import annotations

import os
import textwrap
from typing import List

import pytest

mypy_api = pytest.importorskip("mypy.api")

SNIPPET = """
    import spawnkit
    flag: bool = bool()
    reveal_type(spawnkit.run(["x"]))
    reveal_type(spawnkit.run(["x"], text=True))
    reveal_type(spawnkit.run(["x"], encoding="utf-8"))
    reveal_type(spawnkit.run(["x"], errors="replace"))
    reveal_type(spawnkit.run(["x"], universal_newlines=True))
    reveal_type(spawnkit.run(["x"], text=False, timeout=3))
    reveal_type(spawnkit.run(["x"], text=flag))
    reveal_type(spawnkit.run(["x"], text=True).stdout_tail)
    spawnkit.run(["x"], umask="022")
"""


@pytest.mark.threads  # mypy's API starts threads
def test_overloads_on_text(tmp_path: "os.PathLike[str]") -> None:
    path = os.path.join(os.fspath(tmp_path), "snippet.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(SNIPPET))
    out, _err, _rc = mypy_api.run(["--strict", "--no-incremental", "--cache-dir=/dev/null",
                                   "--hide-error-context", path])
    revealed: List[str] = [ln.split('Revealed type is "')[1].rstrip('"')
                           for ln in out.splitlines() if "Revealed type" in ln]
    cp = "spawnkit._results.CompletedProcess"
    assert revealed == [f"{cp}[bytes]", f"{cp}[str]", f"{cp}[str]", f"{cp}[str]",
                        f"{cp}[str]", f"{cp}[bytes]", f"{cp}[Any]", "str | None"]
    errors = [ln for ln in out.splitlines() if ": error:" in ln]
    assert len(errors) == 1 and ":12: error: No overload variant" in errors[0]   # umask="022"

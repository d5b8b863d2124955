"""The binding's cdef (generated from the headers by cdefgen.py at build
time) against the library: every function libspawnkit.so exports, every
static inline helper and every integer constant of the public headers is in
the compiled module, and nothing else named spawnkit_ is.  A header that
gains a declaration the build missed, or a stale build, fails here."""
import os
import re
import shutil
import subprocess

import pytest

from spawnkit._ffi import lib

ROOT = os.path.abspath(os.environ.get("SPAWNKIT_ROOT")
                       or os.path.join(os.path.dirname(__file__), "..", ".."))
HEADERS = [os.path.join(ROOT, "include", "spawnkit", h) for h in
           ("spawn_template.h", "spawnkit.h", "batch_abi.h", "batch.h", "warm.h",
            "run.h")]
SHARED = os.path.join(ROOT, "build", "libspawnkit.so")


def _headers() -> str:
    text = ""
    for h in HEADERS:
        with open(h) as f:
            text += f.read()
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def _exported() -> set[str]:
    """Functions the shared library exports (its dynamic symbol table)."""
    if not os.path.exists(SHARED) or not shutil.which("nm"):
        pytest.fail(f"{SHARED} or nm missing: run `make lib` first")
    out = subprocess.run(["nm", "-D", "--defined-only", SHARED], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines()
            if line.split()[1] in ("T", "W")}


def _inline_helpers() -> set[str]:
    return set(re.findall(r"static\s+inline\s[^;{]*?\b(spawnkit_\w+)\s*\(", _headers()))


def test_every_exported_function_and_helper_is_bound() -> None:
    want = _exported() | _inline_helpers()
    have = {n for n in dir(lib) if n.startswith("spawnkit_")}
    assert want, "found no exported functions"
    assert have == want


def test_every_integer_constant_is_bound() -> None:
    consts: set[str] = set()
    for m in re.finditer(r"^\s*#\s*define\s+([A-Z]\w*)[ \t]+([^\n]+)$", _headers(), re.M):
        name, value = m.groups()
        if "__" in name or '"' in value or name.endswith("_H"):
            continue
        consts.add(name)
    assert "SPAWN_TEMPLATE_ACTIONS_MAX" in consts and "BATCH_MAX_ENTRIES" in consts
    missing = {c for c in consts if not hasattr(lib, c)}
    # function-like macros (BATCH_CALL3(...)) have no value to bind
    missing = {c for c in missing if not re.search(r"#\s*define\s+%s\(" % c, _headers())}
    assert not missing

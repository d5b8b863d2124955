"""The programs in python/examples run and say that all went as expected
(make -C python test also type-checks them with mypy --strict)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


@pytest.mark.native  # the example makes a Template, which the fallback has not
def test_tool_calls_example_runs(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "b.txt").write_text("two\nlines\n")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "tool_calls.py"),
                        str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == "all as expected"
    assert "ls: 0 2 names" in r.stdout


def test_aio_streaming_example_runs() -> None:
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "aio_streaming.py")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == "all as expected"
    assert "[out] step 1" in r.stdout and "[err] warning" in r.stdout

#!/bin/sh
# find-python.sh - print the real CPython interpreter behind `python3`.
# `python3` on PATH may be a pyenv shim (a bash script costing ~100 ms per
# start); builds, tests and benchmarks use the interpreter it resolves to.
# SPAWNKIT_PYTHON overrides.
if [ -n "${SPAWNKIT_PYTHON:-}" ]; then echo "$SPAWNKIT_PYTHON"; exit 0; fi
for py in python3 /usr/bin/python3; do
	real=$("$py" -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$real" ] &&
		{ echo "$real"; exit 0; }
done
echo "find-python: no python3 found" >&2
exit 1

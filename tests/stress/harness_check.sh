#!/bin/sh
# harness_check.sh - the suite checks itself: each harness (C, Python,
# Node.js) runs tests/stress/selftest/, one scenario of each verdict, and
# must report exactly hang, crash, leak, wrong and ok for them.  Prints one
# STRESS line per harness: ok, or wrong with what it reported instead.
set -u
cd "$(dirname "$0")/../.."
PY=${PY:-$(scripts/find-python.sh)}
NODE=${NODE:-node}
want="hang crash leak wrong ok"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skstress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

check() {
	name=$1; shift
	got=$("$@" 2>/dev/null | sed -n 's/^STRESS \([a-z]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then
		echo "STRESS ok harness/$name: reports $want"
	else
		echo "STRESS wrong harness/$name: reported [$got], want [$want]"
	fi
}

if ${CC:-cc} -D_GNU_SOURCE -Iinclude -Itests/stress -o "$tmp/self" tests/stress/selftest/self.c; then
	check c "$tmp/self"
else
	echo "STRESS wrong harness/c: selftest/self.c did not build"
fi
check python "$PY" tests/stress/selftest/self.py
if command -v "$NODE" >/dev/null 2>&1; then
	check node "$NODE" tests/stress/selftest/self.js
fi

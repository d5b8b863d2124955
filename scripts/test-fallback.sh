#!/bin/sh
# test-fallback.sh [python] [node] - the binding suites on the portable
# fallback, the body of `make test-fallback`.
#
# Each suite runs three times: with SPAWNKIT_BACKEND=fallback, and under
# tests/helpers/deny_pidfd where clone3 and pidfd_open fail with ENOSYS (a
# kernel before 5.3), then with EPERM (a sandbox policy).  Every run must find
# backend() == "fallback" (SPAWNKIT_EXPECT_BACKEND, checked by a test in each
# suite); tests that need the compiled binding are deselected, not passed.
#
# EPERM for clone3 stops glibc (2.34+) from starting any thread: the Python
# run under it deselects its one threaded test (SPAWNKIT_TEST_NO_THREADS),
# and Node.js, which cannot start without threads, gets EPERM for pidfd_open
# with clone3 hidden (ENOSYS) instead, the policy real sandboxes use.
set -u
cd "$(dirname "$0")/.."
comps=${*:-python node}
deny=$PWD/build/tests/helpers/deny_pidfd
PY=${PY:-$(scripts/venv.sh)}   # spawnkit is installed there (make -C python install)
NODE=${NODE:-node}
ok=0 bad=0 bad_list=
[ -x "$deny" ] || make -s build/tests/helpers/deny_pidfd || exit 1
export SPAWNKIT_EXPECT_BACKEND=fallback

one() {
	name=$1; shift
	echo "---- fallback $name"
	if "$@"; then ok=$((ok + 1))
	else bad=$((bad + 1)); bad_list="$bad_list $name"; fi
}

# Each run its own --basetemp: pytest's shared /tmp/pytest-of-$USER is
# pruned by any other pytest running at the same time.
tmp=$(mktemp -d /tmp/spawnkit-fallback.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
runs=0
pytest_run() {
	runs=$((runs + 1))
	(cd python/tests && "$@" "$PY" -m pytest -q -p no:cacheprovider --basetemp="$tmp/$runs")
}

# node --test's spec output, cut to the failures and the closing counts.
node_run() {
	(cd node && "$@" "$NODE" --test --test-reporter=spec test/ >../build/fallback-node.out 2>&1)
	rc=$?
	grep -E '^(✖|ℹ (tests|pass|fail|skipped))' build/fallback-node.out
	return $rc
}

for c in $comps; do
	case $c in
	python)
		one python-forced pytest_run env SPAWNKIT_BACKEND=fallback
		one python-enosys pytest_run "$deny" ENOSYS --
		one python-eperm pytest_run env SPAWNKIT_TEST_NO_THREADS=1 "$deny" EPERM --
		;;
	node)
		one node-forced node_run env SPAWNKIT_BACKEND=fallback
		one node-enosys node_run "$deny" ENOSYS --
		one node-eperm node_run "$deny" clone3=ENOSYS,pidfd_open=EPERM --
		;;
	esac
done
[ -n "$bad_list" ] && echo "failed fallback runs:$bad_list"
echo "fallback runs: $ok passed, $bad failed"
[ "$bad" -eq 0 ]

#!/bin/sh
# run-all-tests.sh user|all - the body of `make test-user` and `make test`.
#
# Runs each test suite that exists in the tree, prints its own output and
# closing line, and ends with "suites: N passed, N failed".  Exit status is
# non-zero if any suite failed.  "all" adds the patched kernel under QEMU.
set -u
cd "$(dirname "$0")/.."
mode=${1:-all}
ok=0 bad=0 bad_list=

suite() {
	name=$1; shift
	echo "==== $name: $*"
	if "$@"; then ok=$((ok + 1)); else bad=$((bad + 1)); bad_list="$bad_list $name"; fi
}

# Batch backends the host has: the emulator always, io_uring when liburing is
# built in and the kernel allows it (the batch tests skip it otherwise).
suite c-suite env SPAWN_BACKENDS="user" BATCH_BACKENDS="${BATCH_BACKENDS:-emulator uring}" make -s test-c
[ -f tests/fuzz/Makefile ] && suite fuzz make -s test-fuzz
suite man-pages tests/man/check-man.sh
[ -f python/Makefile ] && suite python make -s test-python
[ -f node/Makefile ] && suite node make -s test-node
[ -f tests/warm/equivalence.py ] && suite warm make -s test-warm
[ -f scripts/test-fallback.sh ] && suite fallback make -s test-fallback
[ -f scripts/test-packages.sh ] && suite packages make -s test-packages
# Smoke-sized stress and fault suite (the full one: make test-stress).
[ -x tests/stress/run.sh ] && suite stress make -s test-stress-smoke
if [ "$mode" = all ] && [ -f kernel/Makefile ]; then
	suite kernel make -s test-kernel
fi

[ -n "$bad_list" ] && echo "failed suites:$bad_list"
echo "suites: $ok passed, $bad failed"
[ "$bad" -eq 0 ]

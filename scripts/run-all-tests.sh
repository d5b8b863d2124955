#!/bin/sh
# run-all-tests.sh user|all - the body of `make test-user` and `make test`.
#
# Runs every test suite, prints its own output and closing line, and ends
# with "suites: N passed, N failed".  Exit status is non-zero if any suite
# failed.  A suite whose directory or Makefile is missing fails (make says
# so); it is never skipped silently.  "all" adds the patched kernel under
# QEMU.
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
suite fuzz make -s test-fuzz
suite man-pages tests/man/check-man.sh
suite exports make -s test-exports
suite python make -s test-python
suite node make -s test-node
suite warm make -s test-warm
suite fallback make -s test-fallback
suite packages make -s test-packages
# Smoke-sized stress and fault suite (the full one: make test-stress).
suite stress make -s test-stress-smoke
if [ "$mode" = all ]; then
	suite kernel make -s test-kernel
fi

[ -n "$bad_list" ] && echo "failed suites:$bad_list"
echo "suites: $ok passed, $bad failed"
[ "$bad" -eq 0 ]

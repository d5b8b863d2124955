#!/bin/sh
# run-tests.sh BUILD_DIR
#
# Runs every compiled tests/<area>/t_* program, each under a timeout: the
# tests/spawn programs once per spawn backend in $SPAWN_BACKENDS (default
# "user"; SPAWNKIT_BACKEND set for each), the tests/batch programs once per
# batch backend in $BATCH_BACKENDS (default "emulator"; SPAWNKIT_BATCH_BACKEND
# set), any other area once.  It prints one line a program and prints one line a
# program and the closing line "N passed, N failed, N skipped".  Exit status 77
# is a skip (never a pass).  Afterwards the kernel log is scanned for
# BUG/WARNING/Oops/lockdep splats that appeared during the run; one fails it.
# POSIX sh so that it also runs under busybox inside the QEMU guest.
B=${1:-build}
SPAWN_BACKENDS=${SPAWN_BACKENDS:-user}
BATCH_BACKENDS=${BATCH_BACKENDS:-emulator}
TIMEOUT=${SPAWNKIT_TEST_TIMEOUT:-180}
pass=0 fail=0 skip=0 failed_list=

dmesg_lines() { dmesg 2>/dev/null | wc -l; }
before=$(dmesg_lines)

for t in "$B"/tests/*/t_*; do
	[ -x "$t" ] || continue
	area=$(basename "$(dirname "$t")")
	case $area in
	spawn) list=$SPAWN_BACKENDS var=SPAWNKIT_BACKEND;;
	batch) list=$BATCH_BACKENDS var=SPAWNKIT_BATCH_BACKEND;;
	*) list=default var=SPAWNKIT_UNUSED;;
	esac
	for be in $list; do
		name="$area/$(basename "$t")[$be]"
		out=$(env "$var=$be" timeout -s KILL "$TIMEOUT" "$t" 2>&1)
		rc=$?
		case $rc in
		0) pass=$((pass + 1)); echo "PASS $name";;
		77) skip=$((skip + 1)); echo "SKIP $name: $(echo "$out" | tail -n 1)";;
		*) fail=$((fail + 1)); failed_list="$failed_list $name"
		   echo "FAIL $name (exit $rc)"; echo "$out" | sed 's/^/    /' | tail -n 40;;
		esac
	done
done

splat=$(dmesg 2>/dev/null | tail -n +$((before + 1)) |
	grep -E 'BUG:|WARNING:|Oops|general protection|possible circular locking|lockdep|UBSAN|KASAN|scheduling while atomic' )
if [ -n "$splat" ]; then
	echo "kernel log splat during the run:"; echo "$splat" | head -n 40
	fail=$((fail + 1)); failed_list="$failed_list dmesg"
fi
[ -n "$failed_list" ] && echo "failed:$failed_list"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]

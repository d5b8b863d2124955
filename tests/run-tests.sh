#!/bin/sh
# run-tests.sh BUILD_DIR
#
# Runs every compiled tests/<area>/t_* program, each under a timeout: the
# tests/spawn programs once per spawn backend in $SPAWN_BACKENDS (default
# "user"; SPAWNKIT_BACKEND set for each), the tests/batch programs once per
# batch backend in $BATCH_BACKENDS (default "emulator"; SPAWNKIT_BATCH_BACKEND
# set), any other area once.  Each program is named cases (tests/harness.h)
# and ends with "PROG: N passed, N failed, N skipped" for its cases.  This
# prints one line a program with its case counts, the output of a failing
# one, and the closing lines "cases: N passed, N failed, N skipped" and
# "N passed, N failed, N skipped" (programs).  Exit status 77 is a skip
# (never a pass).  Afterwards the kernel log is scanned for
# BUG/WARNING/Oops/lockdep splats that appeared during the run; one fails it.
# POSIX sh so that it also runs under busybox inside the QEMU guest.
B=${1:-build}
SPAWN_BACKENDS=${SPAWN_BACKENDS:-user}
BATCH_BACKENDS=${BATCH_BACKENDS:-emulator}
TIMEOUT=${SPAWNKIT_TEST_TIMEOUT:-180}
pass=0 fail=0 skip=0 failed_list=
cpass=0 cfail=0 cskip=0

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
		# "t_x: 3 passed, 1 failed, 0 skipped" -> "3 1 0"
		counts=$(echo "$out" | sed -n 's/^t_[a-z0-9_]*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' | tail -n 1)
		set -- ${counts:-0 0 0}
		cpass=$((cpass + $1)) cfail=$((cfail + $2)) cskip=$((cskip + $3))
		if [ $rc -eq 0 ] && [ "$1" -eq 0 ]; then
			rc=1 out="$out
(no case passed)"
		fi
		case $rc in
		0) pass=$((pass + 1)); sk=
		   [ "$3" -gt 0 ] && sk=", $3 skipped"
		   echo "PASS $name ($1 cases$sk)";;
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
echo "cases: $cpass passed, $cfail failed, $cskip skipped"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]

#!/bin/sh
# fuzz.sh - each libFuzzer target of tests/fuzz for a fixed number of runs
# ($STRESS_FUZZ_RUNS, default 3000) from a fixed seed ($STRESS_SEED,
# default 1), so a run is repeatable: one STRESS line per target.  A crash,
# sanitizer report or leak is counted as such; a run past its deadline is
# a hang.  Builds the targets first (tests/fuzz/Makefile, clang).
set -u
cd "$(dirname "$0")/../.."
B=$(cd "${B:-build}" 2>/dev/null && pwd || echo "$PWD/build")
runs=${STRESS_FUZZ_RUNS:-3000}
seed=${STRESS_SEED:-1}
deadline=$((600 * ${STRESS_TIMEOUT_SCALE:-1}))
if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
	echo "STRESS skip fuzz: no clang"
	exit 0
fi
make -s -C tests/fuzz B="$B" all >/dev/null 2>"$B/fuzz-build.log" || {
	tail -n 20 "$B/fuzz-build.log"; echo "STRESS wrong fuzz/build: targets did not build"; exit 0; }
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	corpus=$(mktemp -d "${TMPDIR:-/tmp}/skstress.XXXXXX")
	log="$B/fuzz/stress-$t.log"
	start=$(date +%s)
	timeout -s KILL "$deadline" "$B/fuzz/$t" -runs="$runs" -seed="$seed" -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$B/fuzz/stress-" "$corpus" >"$log" 2>&1
	rc=$?
	rm -rf "$corpus"
	secs=$(($(date +%s) - start))
	execs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "STRESS ok fuzz/$t: ${execs:-?} runs from seed $seed in ${secs} s"
		continue
	fi
	tail -n 30 "$log" | sed 's/^/    /'
	if [ "$rc" -eq 137 ]; then
		echo "STRESS hang fuzz/$t: no end after ${deadline} s"
	elif grep -q 'LeakSanitizer' "$log"; then
		echo "STRESS leak fuzz/$t: LeakSanitizer report (log $log)"
	elif grep -Eq 'ERROR: libFuzzer: timeout' "$log"; then
		echo "STRESS hang fuzz/$t: an input ran past 10 s (log $log)"
	else
		echo "STRESS crash fuzz/$t: exit $rc: $(grep -Em1 'ERROR|SUMMARY|deadly' "$log") (log $log)"
	fi
done

#!/bin/sh
# run.sh smoke|full - the stress and fault suite (`make test-stress`; the
# smoke size runs inside `make test`).
#
# Runs harness_check.sh (each harness must count a planted hang, crash,
# leak and wrong result), then every scenario program: build/tests/stress/c_*
# (C library), tests/stress/py_*.py (Python binding, through py_harness.py), node_*.js
# (Node.js addon, through node_harness.js), fuzz.sh (each libFuzzer target for
# a fixed number of runs from a fixed seed) and mdu_du.sh (mdu against GNU du).
# Each scenario runs in a process of its own under a deadline and prints
#
#     STRESS <ok|wrong|leak|crash|hang|skip> <program>/<scenario>: <figures>
#
# A program that dies or outlives its own deadline counts as one crash or
# hang more.  The last line is the totals:
#
#     stress: N scenarios, N crashes, N hangs, N leaks, N wrong results (N skipped)
#
# and the exit status is non-zero if any of those four counts is, or if no
# scenario ran.  Environment: B (build dir, default build), PY (a Python
# with spawnkit installed), NODE, STRESS_SCALE / STRESS_FUZZ_RUNS (override
# the size), STRESS_TIMEOUT_SCALE (deadlines x N on a slow machine),
# STRESS_ONLY (a glob of program names to run, e.g. 'c_*').
set -u
cd "$(dirname "$0")/../.."
size=${1:-smoke}
B=${B:-build}
case $size in
smoke) scale=2 fuzz_runs=3000 ;;
full) scale=20 fuzz_runs=200000 ;;
*) echo "usage: $0 smoke|full" >&2; exit 2 ;;
esac
export STRESS_SCALE=${STRESS_SCALE:-$scale}
export STRESS_FUZZ_RUNS=${STRESS_FUZZ_RUNS:-$fuzz_runs}
export STRESS_TIMEOUT_SCALE=${STRESS_TIMEOUT_SCALE:-1}
export B
PY=${PY:-$(scripts/find-python.sh)}
NODE=${NODE:-node}
export PY NODE
only=${STRESS_ONLY:-*}
# A whole program's guard: far above the sum of its scenarios' deadlines.
guard=$((1800 * STRESS_TIMEOUT_SCALE))
log=$(mktemp "${TMPDIR:-/tmp}/skstress.XXXXXX")
trap 'rm -f "$log"' EXIT
start=$(date +%s)

# run NAME CMD...: one scenario program, its lines into the log.
run() {
	name=$1; shift
	case $name in $only) ;; *) return 0 ;; esac
	echo "---- $name" >&2
	out=$(mktemp "${TMPDIR:-/tmp}/skstress.XXXXXX")
	timeout -s KILL "$guard" "$@" >"$out" 2>&1
	rc=$?
	grep '^STRESS ' "$out" >>"$log"
	# the scenario lines as they came, other output indented (diagnostics)
	sed -e '/^STRESS /!s/^/    /' "$out" | tail -n 400
	if [ "$rc" -eq 137 ]; then
		echo "STRESS hang $name: the program outlived its ${guard} s guard" | tee -a "$log"
	elif [ "$rc" -gt 128 ]; then
		echo "STRESS crash $name: the program died (exit $rc)" | tee -a "$log"
	elif [ "$rc" -ne 0 ]; then
		echo "STRESS wrong $name: the program failed (exit $rc)" | tee -a "$log"
	fi
	rm -f "$out"
}

echo "stress: size $size (STRESS_SCALE=$STRESS_SCALE, fuzz runs $STRESS_FUZZ_RUNS each), python $PY"
# first the suite's own check: each harness must see a planted hang,
# crash, leak and wrong result for what they are
[ -x tests/stress/harness_check.sh ] && run harness tests/stress/harness_check.sh
for p in "$B"/tests/stress/c_*; do
	[ -x "$p" ] && run "$(basename "$p")" "$p"
done
for p in tests/stress/py_*.py; do
	[ "$(basename "$p")" = py_harness.py ] && continue
	run "$(basename "$p")" "$PY" "$p"
done
if command -v "$NODE" >/dev/null 2>&1; then
	for p in tests/stress/node_*.js; do
		[ "$(basename "$p")" = node_harness.js ] && continue
		run "$(basename "$p")" "$NODE" "$p"
	done
else
	echo "STRESS skip node: no node" >>"$log"
fi
[ -x tests/stress/fuzz.sh ] && run fuzz tests/stress/fuzz.sh
[ -x tests/stress/mdu_du.sh ] && run mdu_du tests/stress/mdu_du.sh

secs=$(($(date +%s) - start))
awk -v secs="$secs" '
	/^STRESS / { v = $2; if (v != "skip") n++; c[v]++ }
	END {
		printf "stress: %d scenarios, %d crashes, %d hangs, %d leaks, %d wrong results (%d skipped, %d s)\n",
			n, c["crash"], c["hang"], c["leak"], c["wrong"], c["skip"], secs
		bad = c["crash"] + c["hang"] + c["leak"] + c["wrong"]
		exit (bad > 0 || n == 0) ? 1 : 0
	}' "$log"

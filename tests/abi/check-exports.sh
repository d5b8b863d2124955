#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-exports.sh [BUILD_DIR] - the exported API is the documented API.
#
# Four lists of function names must be the same set:
#   - the dynamic symbols BUILD_DIR/libspawnkit.so defines (nm -D),
#   - the global: list of src/libspawnkit.map,
#   - the functions with external linkage that include/spawnkit/spawnkit.h,
#     batch.h, warm.h and run.h declare (scripts/public-functions.sh --extern),
#   - and each of them has a page man/man3/<name>.3 (as do the headers'
#     static inline helpers: tests/man/check-man.sh checks those).
# Prints one line a mismatch and "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$top/build}
so=$B/libspawnkit.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

if [ ! -f "$so" ] || ! command -v nm >/dev/null 2>&1; then
	echo "FAIL: $so or nm missing (make lib first)"
	echo "0 passed, 1 failed"
	exit 1
fi
nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "W" { sub(/@.*/, "", $3); print $3 }' |
	sort -u > "$tmp/so"
sed -n '/global:/,/local:/p' "$top/src/libspawnkit.map" |
	sed -n 's/^[ 	]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' | sort -u > "$tmp/map"
"$top/scripts/public-functions.sh" --extern "$top/include/spawnkit/spawnkit.h" \
	"$top/include/spawnkit/batch.h" "$top/include/spawnkit/warm.h" \
	"$top/include/spawnkit/run.h" > "$tmp/hdr"

same() {	# same NAME_A FILE_A NAME_B FILE_B
	if [ ! -s "$2" ]; then
		echo "FAIL $1: empty"; fail=$((fail + 1)); return
	fi
	if cmp -s "$2" "$4"; then
		pass=$((pass + 1))
	else
		echo "FAIL $1 and $3 differ:"
		comm -3 "$2" "$4" | sed "s/^\t/    only in $3: /; t; s/^/    only in $1: /"
		fail=$((fail + 1))
	fi
}
same libspawnkit.so "$tmp/so" libspawnkit.map "$tmp/map"
same libspawnkit.map "$tmp/map" headers "$tmp/hdr"
for fn in $(cat "$tmp/hdr"); do
	if [ -f "$top/man/man3/$fn.3" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL $fn: exported but no man/man3/$fn.3"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

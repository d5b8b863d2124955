#!/bin/sh
# public-functions.sh [--extern] HEADER... - the spawnkit_* functions the
# headers declare, one a line, sorted.  --extern: only those with external
# linkage (what libspawnkit.so must export), not the static inline helpers.
#
# The header goes through the C preprocessor (comments, macros and C++
# blocks gone, as a compiler sees it), then every { ... } body is cut out
# and the rest split into declarations at ';': a declaration whose first
# "name(" is spawnkit_* declares that function, however many lines it
# spans.  Used by tests/man/check-man.sh and tests/abi/check-exports.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ext=0
[ "${1:-}" = --extern ] && { ext=1; shift; }
for h in "$@"; do
	${CC:-cc} -E -P -I"$top/include" "$h"
done | tr '\n' ' ' | awk -v ext=$ext 'BEGIN { RS = "\001" } {
	depth = 0; out = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "{") { if (depth == 0) out = out ";"; depth++; continue }
		if (c == "}") { depth--; continue }
		if (depth == 0) out = out c
	}
	n = split(out, st, ";")
	for (k = 1; k <= n; k++) {
		if (!match(st[k], /(^|[ *])spawnkit_[a-z0-9_]+[ ]*\(/))
			continue
		if (ext && st[k] ~ /(^|[ ])static[ ]/)
			continue
		s = substr(st[k], RSTART, RLENGTH)
		sub(/^[ *]/, "", s); sub(/[ ]*\($/, "", s)
		print s
	}
}' | sort -u

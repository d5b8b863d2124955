#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-man.sh - render every page under man/man1 and man/man3 and fail on
# any warning.
#
# Each page goes through man(1) with groff's warnings on (what a reader's
# man would print), and through groff with every warning category enabled,
# so a bad macro, an unknown escape or a line groff cannot break is an error
# here rather than garbage in someone's terminal.  A ".so" link must name a
# page that exists, and every function a checked public header declares must
# have a page (or link) of its own name, and every program in tools/ a page
# in man1.  Needs man-db and groff-base
# (scripts/deps/man.apt).
#
# Usage: tests/man/check-man.sh [mandir]   (default: man/ of the repository)
#   MAN_HEADERS  headers under include/spawnkit whose functions must all have
#                pages (default: spawnkit.h batch.h warm.h run.h)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
mandir=${1:-$top/man}
for tool in man groff; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "check-man: $tool not found (apt-get install man-db groff-base)" >&2
		exit 2
	fi
done

pass=0
fail=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT

# man resolves ".so man3/x.3" relative to the manual's top directory.
cd "$mandir" || exit 2
for page in man1/*.1 man3/*.3; do
	[ -e "$page" ] || continue
	ok=1
	target=$(sed -n 's/^\.so[ 	]\{1,\}//p' "$page" | head -n 1)
	if [ -n "$target" ] && [ ! -f "$target" ]; then
		echo "FAIL $page: .so target $target does not exist"
		ok=0
	fi
	if ! MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$err" || [ -s "$err" ]; then
		echo "FAIL $page (man --warnings):"
		sed 's/^/    /' "$err"
		ok=0
	fi
	# Every groff warning category (-ww), text output, nothing written.
	if [ -z "$target" ]; then
		if ! groff -man -Tutf8 -ww -z "$page" 2>"$err" || [ -s "$err" ]; then
			echo "FAIL $page (groff -ww):"
			sed 's/^/    /' "$err"
			ok=0
		fi
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done

# Every declared function has a page: "type name(" at the start of a line,
# which is how the public headers declare (comments start with "/*" or " *").
for h in ${MAN_HEADERS:-spawnkit.h batch.h warm.h run.h}; do
	hdr=$top/include/spawnkit/$h
	if [ ! -f "$hdr" ]; then
		echo "FAIL $h: no such header"
		fail=$((fail + 1))
		continue
	fi
	for fn in $(grep -E '^[a-z][a-z_ *]*[ *]spawnkit_[a-z0-9_]+\(' "$hdr" |
		    sed -E 's/.*[ *](spawnkit_[a-z0-9_]+)\(.*/\1/' | sort -u); do
		if [ -f "man3/$fn.3" ]; then
			pass=$((pass + 1))
		else
			echo "FAIL $fn ($h): no page man3/$fn.3"
			fail=$((fail + 1))
		fi
	done
done

# Every installed program (tools/<name>.c) has a page man1/<name>.1.
for src in "$top"/tools/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	if [ -f "man1/$name.1" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL tools/$name.c: no page man1/$name.1"
		fail=$((fail + 1))
	fi
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]

#!/bin/sh
# mdu_du.sh - mdu against GNU du on trees made here: wide, deep (past the
# fd limit it runs under), hard links, symlinks, sparse files, several
# overlapping paths.  Each scenario compares the exact stdout and exit
# status of `du -s<opt>` and `mdu -s<opt>`; one STRESS line each.
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
MDU=$B/bin/mdu
scale=${STRESS_SCALE:-1}
if [ ! -x "$MDU" ] || ! du --version 2>/dev/null | grep -q GNU; then
	echo "STRESS skip mdu_du: needs $MDU and GNU du"
	exit 0
fi
d=$(mktemp -d "${TMPDIR:-/tmp}/skstress.XXXXXX")
trap 'rm -rf "$d"' EXIT

# same NAME LIMIT OPT PATH...: du and mdu under `ulimit -n LIMIT`
same() {
	name=$1 lim=$2 opt=$3; shift 3
	want=$(ulimit -n "$lim"; du -s"$opt" "$@" 2>/dev/null; echo "status $?")
	got=$(ulimit -n "$lim"; timeout -s KILL 120 "$MDU" -s"$opt" "$@" 2>/dev/null; echo "status $?")
	if [ "$got" = "$want" ]; then
		echo "STRESS ok mdu_du/$name: du -s$opt and mdu agree: $(echo "$got" | head -n 1 | cut -f1)"
	elif echo "$got" | grep -q '^status 137$'; then
		echo "STRESS hang mdu_du/$name: mdu killed after 120 s"
	else
		echo "STRESS wrong mdu_du/$name: du [$want] mdu [$got]"
	fi
}

# wide: dirs x files, some hard links and symlinks, one sparse file
mkdir -p "$d/wide"
i=0
while [ $i -lt $((20 * scale)) ]; do
	mkdir -p "$d/wide/d$i"
	j=0
	while [ $j -lt 25 ]; do
		head -c $((j * 97)) /dev/zero >"$d/wide/d$i/f$j"
		j=$((j + 1))
	done
	ln "$d/wide/d$i/f3" "$d/wide/d$i/hard" 2>/dev/null
	ln -s f4 "$d/wide/d$i/sym"
	i=$((i + 1))
done
truncate -s 10M "$d/wide/sparse"
# deep: a chain deeper than the fd limit it is walked under
p=$d/deep
i=0
while [ $i -lt $((60 * scale)) ]; do
	p=$p/level$i
	i=$((i + 1))
done
mkdir -p "$p" && echo leaf >"$p/leaf"

same wide-apparent 1024 b "$d/wide"
same wide-allocated 1024 B1 "$d/wide"
same deep-under-ulimit-32 32 b "$d/deep"
same overlapping-paths 1024 b "$d/wide" "$d/wide/d1" "$d"
same missing-path 1024 b "$d/nonexistent" "$d/wide/d0"

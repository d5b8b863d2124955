#!/bin/sh
# check-series.sh - does every prefix of kernel/patches build on its own?
#
# For k = 1..N: a git worktree of the pristine tree with patches 1..k
# applied (git am), built incrementally into its own output directory
# ($CACHE/linux-<ver>/build-series, with the guest config, read again
# after each patch so that an option a patch adds is on from that patch
# on), so a patch that only builds together with a later one is found.
# Prints one line per patch and exits non-zero at the first that does not
# build.
# Run after build-kernel.sh (it reuses the unpacked tree and .config).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SPAWNKIT_CACHE:-/var/cache/spawnkit}
KDIR=$(ls -d "$CACHE"/linux-* | head -n 1)
SRC=$KDIR/src
WT=$KDIR/series-check
OUT=$KDIR/build-series
JOBS=${JOBS:-2}

# The series and the guest config it was last checked with: a pass is
# remembered for exactly that pair, as build-kernel.sh remembers a build
# (make -C kernel test runs this script, so CI checks each new series once).
FRAG=$here/config/spawnkit.config
sum=$( (cat $(ls "$here"/patches/*.patch | sort); cat "$FRAG") | sha256sum | cut -c1-16)
if [ "${CHECK_SERIES_FORCE:-0}" != 1 ] &&
   [ "$(cat "$KDIR/series-check.stamp" 2>/dev/null)" = "$sum" ]; then
	echo "check-series: every prefix built before, for this series and config ($sum); CHECK_SERIES_FORCE=1 rebuilds"
	exit 0
fi
rm -f "$KDIR/series-check.stamp"

rm -rf "$WT"
git -C "$SRC" worktree prune
git -C "$SRC" worktree add -q --detach "$WT" pristine
mkdir -p "$OUT"
k=0
# Patch k goes on top of 1..k-1, so each step rebuilds only what it touches.
for p in $(ls "$here"/patches/*.patch | sort); do
	k=$((k + 1))
	git -C "$WT" -c user.name=spawnkit -c user.email=spawnkit@localhost am -q "$p"
	# The guest .config again after each patch: kconfig drops a symbol
	# its tree does not know yet, so a copy made once before patch 1
	# would leave SPAWN_TEMPLATE and BATCH_SYSCALL off at every prefix
	# and the series' own code never compiled.
	cp "$KDIR/build/.config" "$OUT/.config"
	make -s -C "$WT" O="$OUT" ARCH=x86_64 olddefconfig >/dev/null
	if make -s -C "$WT" O="$OUT" ARCH=x86_64 -j"$JOBS" bzImage >"$OUT/log" 2>&1; then
		echo "check-series: builds: 1..$k ($(basename "$p"))"
	else
		grep -E 'error' "$OUT/log" | head -n 20
		echo "check-series: FAILS at $(basename "$p")"
		exit 1
	fi
done
echo "$sum" > "$KDIR/series-check.stamp"
echo "check-series: all $k prefixes build ($sum)"

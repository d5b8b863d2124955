#!/bin/sh
# build-kernel.sh - the patched guest kernel, built in a cache outside the repo.
#
#   build-kernel.sh            prints the bzImage path on its last line
#
# Environment: SPAWNKIT_CACHE (default /var/cache/spawnkit), JOBS (default 2).
#
# Steps, each skipped when its input did not change:
#  1. apt-get install linux-source-6.12 when the tarball is missing.
#  2. Unpack it once into $CACHE/linux-<debian version>/src, git-initialise
#     that copy and tag the pristine tree (so patches are applied with `git am`
#     and a patch that does not apply is named).
#  3. When kernel/patches/*.patch changed: check out the pristine tree again
#     and `git am` the series.  Unchanged files keep their mtimes, so the
#     kernel build that follows is incremental.
#  4. When patches or kernel/config/spawnkit.config changed: tinyconfig plus
#     the fragment, olddefconfig, and a check that every symbol of the
#     fragment got the value it asks for.
#  5. make bzImage (and the UAPI headers the selftests compile against).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SPAWNKIT_CACHE:-/var/cache/spawnkit}
JOBS=${JOBS:-2}
PKG=linux-source-6.12
TARBALL=/usr/src/linux-source-6.12.tar.xz
FRAG=$here/config/spawnkit.config

log() { echo "kernel: $*" >&2; }

if [ ! -f "$TARBALL" ]; then
	log "installing $PKG with apt"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "$PKG" >/dev/null
fi
DEBVER=$(dpkg-query -W -f='${Version}' "$PKG")
log "base: Debian $PKG $DEBVER"

KDIR=$CACHE/linux-$(echo "$DEBVER" | tr '~:' '__')
SRC=$KDIR/src
OUT=$KDIR/build
mkdir -p "$KDIR"

# One build at a time per cache (CI and a developer may share a machine).
exec 9>"$KDIR/lock"
flock 9

git_k() {
	git -C "$SRC" -c user.name=spawnkit -c user.email=spawnkit@localhost \
		-c advice.detachedHead=false "$@"
}

if [ ! -f "$KDIR/unpacked.stamp" ]; then
	log "unpacking $TARBALL into $SRC"
	rm -rf "$SRC" "$KDIR/unpack.tmp"
	mkdir -p "$KDIR/unpack.tmp"
	tar -C "$KDIR/unpack.tmp" -xf "$TARBALL"
	mv "$KDIR/unpack.tmp/linux-source-6.12" "$SRC"
	rmdir "$KDIR/unpack.tmp"
	log "git-initialising the pristine tree"
	git_k init -q
	git_k config gc.auto 0
	# -f: Debian's top-level .gitignore ignores everything but debian/
	git_k add -f -A .
	git_k commit -q -m "Debian $PKG $DEBVER (pristine)"
	git_k tag -f pristine >/dev/null
	echo "$DEBVER" > "$KDIR/unpacked.stamp"
	rm -f "$KDIR/series.stamp" "$KDIR/config.stamp" "$KDIR/bzImage.stamp"
fi

series_sum=$(cat /dev/null $(ls "$here"/patches/*.patch 2>/dev/null | sort) | sha256sum | cut -c1-16)
config_sum=$(printf '%s %s' "$series_sum" "$(sha256sum < "$FRAG")" | sha256sum | cut -c1-16)

if [ "$(cat "$KDIR/series.stamp" 2>/dev/null)" != "$series_sum" ]; then
	rm -f "$KDIR/series.stamp"
	git_k am --abort >/dev/null 2>&1 || true
	# Files the old series touched get new mtimes from the checkout below
	# even when the new series leaves their content as it was; remember
	# the mtimes, to put them back on unchanged files (a touched
	# include/linux/syscalls.h alone would rebuild most of the kernel).
	old=$(git_k rev-parse -q --verify series 2>/dev/null || true)
	: > "$KDIR/mtimes"
	if [ -n "$old" ]; then
		git_k diff --name-only pristine "$old" | while read -r f; do
			[ -f "$SRC/$f" ] && printf '%s\t%s\n' "$(stat -c %y "$SRC/$f")" "$f"
		done > "$KDIR/mtimes"
	fi
	git_k checkout -q -f -B series pristine
	n=0
	for p in $(ls "$here"/patches/*.patch 2>/dev/null | sort); do
		if ! git_k am -q --whitespace=nowarn "$p" >"$KDIR/am.log" 2>&1; then
			cat "$KDIR/am.log" >&2
			git_k am --abort >/dev/null 2>&1 || true
			log "ERROR: patch does not apply: $(basename "$p")"
			exit 1
		fi
		n=$((n + 1))
	done
	if [ -n "$old" ] && [ -s "$KDIR/mtimes" ]; then
		git_k diff --name-only "$old" HEAD > "$KDIR/changed"
		while IFS='	' read -r when f; do
			grep -qxF "$f" "$KDIR/changed" || touch -d "$when" "$SRC/$f"
		done < "$KDIR/mtimes"
	fi
	log "applied $n patch(es) from kernel/patches"
	echo "$series_sum" > "$KDIR/series.stamp"
fi

if [ "$(cat "$KDIR/config.stamp" 2>/dev/null)" != "$config_sum" ]; then
	rm -f "$KDIR/config.stamp"
	mkdir -p "$OUT"
	log "config: tinyconfig + kernel/config/spawnkit.config"
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 tinyconfig >/dev/null
	(cd "$SRC" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$OUT" \
		"$OUT/.config" "$FRAG" >/dev/null)
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 olddefconfig >/dev/null
	bad=0
	for line in $(grep -E '^CONFIG_[A-Z0-9_]+=' "$FRAG"); do
		grep -qx "$line" "$OUT/.config" || { log "ERROR: config wants $line, got: $(grep "^${line%%=*}=" "$OUT/.config" || echo unset)"; bad=1; }
	done
	[ "$bad" -eq 0 ] || exit 1
	echo "$config_sum" > "$KDIR/config.stamp"
fi

if [ "$(cat "$KDIR/bzImage.stamp" 2>/dev/null)" != "$config_sum" ] || [ ! -f "$KDIR/bzImage" ]; then
	rm -f "$KDIR/bzImage.stamp"
	log "building bzImage (make -j$JOBS) in $OUT"
	start=$(date +%s)
	if ! make -s -C "$SRC" O="$OUT" ARCH=x86_64 -j"$JOBS" bzImage >"$KDIR/build.log" 2>&1; then
		grep -E 'error|Error' "$KDIR/build.log" | head -n 40 >&2
		tail -n 20 "$KDIR/build.log" >&2
		log "ERROR: kernel build failed (full log: $KDIR/build.log)"
		exit 1
	fi
	make -s -C "$SRC" O="$OUT" ARCH=x86_64 headers >/dev/null 2>&1
	cp "$OUT/arch/x86/boot/bzImage" "$KDIR/bzImage"
	echo "$config_sum" > "$KDIR/bzImage.stamp"
	log "built in $(( $(date +%s) - start )) s"
fi
echo "$DEBVER" > "$KDIR/version"
log "bzImage: $KDIR/bzImage (Debian $PKG $DEBVER, series $series_sum)"
echo "$KDIR/bzImage"

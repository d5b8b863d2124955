#!/bin/sh
# run-guest.sh test|bench GUEST_BUILD_DIR
#
# Builds (or reuses) the patched kernel, builds the series' selftests (and for
# bench the bench/kernel programs) statically against the patched UAPI
# headers, packs the initramfs and boots it (scripts/boot.sh).  Exit status:
# the guest's.  KERNEL_BZIMAGE=CACHE/linux-*/bzImage boots a kernel already
# built there (another series, to compare) instead of building this one.
set -eu
mode=$1 gb=$2
here=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "$here/.." && pwd)

bz=${KERNEL_BZIMAGE:-$(sh "$here/scripts/build-kernel.sh" | tail -n 1)}
kdir=$(dirname "$bz")
ksrc=$kdir/src
kout=$kdir/build
CC=${CC:-gcc}
KCFLAGS="-static -O2 -g -Wall -isystem $kout/usr/include"

# The library's copies of the UAPI headers match the patched kernel's.
sh "$here/scripts/check-uapi.sh" "$kout/usr/include"

# The series' selftests, one static program per .c file: *_test.c are the
# tests (the guest runs each), the other files the helper programs their
# Makefile builds (TEST_GEN_FILES), next to the tests that start them.
st=$gb/selftests
rm -rf "$st"; mkdir -p "$st"
for d in spawn_template batch filesystems/lookup_perm; do
	for c in "$ksrc"/tools/testing/selftests/$d/*.c; do
		[ -f "$c" ] || continue
		$CC $KCFLAGS -I "$ksrc/tools/testing/selftests" -o "$st/$(basename "$c" .c)" "$c" -lpthread
	done
done

extra=$st
if [ "$mode" = bench ]; then
	bb=$gb/bench
	rm -rf "$bb"; mkdir -p "$bb"
	for c in "$top"/bench/kernel/*.c; do
		[ -f "$c" ] || continue
		$CC $KCFLAGS -I "$top/include" -I "$top/src" -o "$bb/$(basename "$c" .c)" "$c" \
			"$gb/libspawnkit.a" -lpthread $(pkg-config --exists liburing 2>/dev/null && echo -luring)
	done
	install -m 755 "$top/bench/kernel/run-bench.sh" "$bb/run-bench.sh"
	extra="$st $bb"
fi

initrd=$gb/initramfs-$mode.cpio
sh "$here/scripts/make-initramfs.sh" "$initrd" "$gb" $extra
echo "run-guest: kernel $bz (Debian linux-source-6.12 $(cat "$kdir/version"))"
sh "$here/scripts/boot.sh" "$bz" "$initrd" "$mode" "$gb/console-$mode.log"

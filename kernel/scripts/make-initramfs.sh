#!/bin/sh
# make-initramfs.sh OUT.cpio GUEST_BUILD_DIR [EXTRA_DIR...]
#
# Packs the guest's root filesystem as an uncompressed newc cpio:
#   /bin/busybox and a link for every applet (sh, timeout, dmesg, true, ...)
#   GNU du and rm, e2fsprogs' mke2fs, and dash as /bin/sh (dynamic, with
#   their libraries) in place of busybox's
#   /init                       kernel/guest/init
#   /spawnkit/tests/run-tests.sh
#   /spawnkit/build/tests/<area>/t_*, /spawnkit/build/bin/*  (static builds)
#   /spawnkit/<name>/...        each EXTRA_DIR copied under its base name
#                               (selftests/, bench/)
# Binaries are stripped: the archive is copied into guest RAM at every boot.
set -eu
out=$1 gbuild=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
BUSYBOX=/bin/busybox	# from busybox-static: no shared libraries in the guest
[ -x "$BUSYBOX" ] || { echo "make-initramfs: busybox-static is not installed" >&2; exit 1; }

root=$out.root
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/proc" \
	"$root/sys" "$root/dev" "$root/tmp" "$root/etc" "$root/spawnkit/build" \
	"$root/spawnkit/tests" "$root/root"
cp "$BUSYBOX" "$root/bin/busybox"
for p in $("$root/bin/busybox" --list-full); do
	[ -e "$root/$p" ] || ln -s /bin/busybox "$root/$p"
done
# GNU tools the tests compare against or rely on (t_mdu checks mdu against
# `du -sb` and `du -sB1`, which busybox's du lacks, and removes its tree of
# unreadable directories with rm -rf; the lookup_perm selftest and the
# lookup benchmark make ext4 images with mke2fs): the host's binary with the
# shared libraries ldd names, at the same paths.
for tool in ${GUEST_HOST_TOOLS:-du rm dash mke2fs}; do
	src=$(command -v "$tool") || continue
	# busybox's applet of that name, wherever $PATH would find it first
	rm -f "$root/usr/bin/$tool" "$root/bin/$tool" "$root/sbin/$tool" "$root/usr/sbin/$tool"
	cp -L "$src" "$root/usr/bin/$tool"
	for lib in $(ldd "$src" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
# /bin/sh is dash, as on Debian: busybox's sh runs its own applets before
# $PATH (its rm -rf fails on trees deeper than PATH_MAX, which t_mdu makes).
[ -x "$root/usr/bin/dash" ] && ln -sf /usr/bin/dash "$root/bin/sh"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
install -m 755 "$top/kernel/guest/init" "$root/init"
install -m 755 "$top/tests/run-tests.sh" "$root/spawnkit/tests/run-tests.sh"

copy_bins() { # SRC_DIR DEST_DIR: executables, stripped, keeping sub-folders
	(cd "$1" && find . -type f -perm -u+x) | while read -r f; do
		mkdir -p "$(dirname "$2/$f")"
		cp "$1/$f" "$2/$f"
		case $(head -c 4 "$2/$f" | od -An -c | tr -d ' ') in
		177ELF) strip -s "$2/$f" 2>/dev/null || true;;
		esac
	done
}
[ -d "$gbuild/tests" ] && copy_bins "$gbuild/tests" "$root/spawnkit/build/tests"
[ -d "$gbuild/bin" ] && copy_bins "$gbuild/bin" "$root/spawnkit/build/bin"
for d in "$@"; do
	[ -d "$d" ] && copy_bins "$d" "$root/spawnkit/$(basename "$d")"
done

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
echo "make-initramfs: $out ($(du -k "$out" | cut -f1) KiB)" >&2

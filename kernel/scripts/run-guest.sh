#!/bin/sh
# run-guest.sh test|bench GUEST_BUILD_DIR
#
# Builds (or reuses) the patched kernel, builds the series' selftests, for
# test the 32-bit compat tests (tests/compat) and for bench the bench/kernel
# programs, statically against the patched UAPI headers, packs the initramfs
# and boots it (scripts/boot.sh).  Exit status: the guest's.
# KERNEL_BZIMAGE=CACHE/linux-*/bzImage boots a kernel already built there
# (another series, to compare) instead of building this one.
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

# The spawn calls from 32-bit user space (tests/compat): one static program
# per ABI the compiler can link (gcc-multilib), with that ABI's numbers from
# the patched <asm/unistd.h>, and abi_exec, which the guest starts them
# through; the x86_64 build of the same cases is the reference they are
# compared with.  For an ABI the compiler cannot link, a stub of the same
# name prints the reason as a skip (exit 77) in the guest.
extra=$st
if [ "$mode" = test ]; then
	ct=$gb/compat
	rm -rf "$ct"; mkdir -p "$ct"
	$CC $KCFLAGS -o "$ct/abi_exec" "$top/tests/compat/abi_exec.c"
	nr_batch=$(sed -n 's/^#define __NR_batch \([0-9]*\)$/\1/p' "$kout/usr/include/asm/unistd_64.h")
	for abi in x86_64:-m64 i386:-m32 x32:-mx32; do
		name=spawn_compat_${abi%%:*} flag=${abi#*:}
		if echo 'int main(void) { return 0; }' |
			$CC $flag -static -x c -o "$ct/probe" - 2>/dev/null; then
			$CC $flag $KCFLAGS -I "$top/tests" -DNR_BATCH_X86_64="$nr_batch" \
				-o "$ct/$name" "$top/tests/compat/spawn_compat.c"
		else
			why="$CC $flag -static cannot link a program on the build host (Debian: gcc-multilib, libc6-dev-x32)"
			echo "run-guest: $name not built: $why" >&2
			printf '#!/bin/sh\necho "SKIP: %s not built: %s"\nexit 77\n' "$name" "$why" > "$ct/$name"
			chmod 755 "$ct/$name"
		fi
		rm -f "$ct/probe"
	done
	extra="$st $ct"
fi
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

#!/bin/sh
# run-bench.sh - runs inside the QEMU guest (kernel/guest/init, mode bench).
# Every figure is taken under QEMU/TCG emulation: compare ratios, not times.
set -e
cd "$(dirname "$0")"
echo "bench: kernel $(uname -r); all figures measured under QEMU/TCG emulation"
# KBENCH_ONLY=NAME (from the kernel command line): that benchmark alone
want() { [ -z "${KBENCH_ONLY:-}" ] || [ "$KBENCH_ONLY" = "$1" ]; }
want spawn && ./kbench spawn ${KBENCH_ROUNDS:-11} 40
want batch && ./kbench batch ${KBENCH_ROUNDS:-11} 1000
want wis && ./kbench wis ${KBENCH_ROUNDS:-11} 300
# KBENCH_LOOKUP_FS=ext4: the lookup benchmark on an ext4 image (mke2fs,
# loop-mounted on /e, one component below / as /tmp is), instead of tmpfs
if want lookup && [ "${KBENCH_LOOKUP_FS:-tmpfs}" = ext4 ]; then
	rm -f /tmp/kbench-ext4.img
	truncate -s 64M /tmp/kbench-ext4.img
	mke2fs -q -F -t ext4 -I 256 -N 8192 /tmp/kbench-ext4.img
	mkdir -p /e
	mount -t ext4 -o loop /tmp/kbench-ext4.img /e
	export KBENCH_LOOKUP_DIR=/e
fi
want lookup && ./kbench lookup ${KBENCH_ROUNDS:-11} 2000
true

#!/bin/sh
# run-bench.sh - runs inside the QEMU guest (kernel/guest/init, mode bench).
# Every figure is taken under QEMU/TCG emulation: compare ratios, not times.
set -e
cd "$(dirname "$0")"
echo "bench: kernel $(uname -r); all figures measured under QEMU/TCG emulation"
./kbench spawn ${KBENCH_ROUNDS:-11} 40
./kbench batch ${KBENCH_ROUNDS:-11} 1000
./kbench wis ${KBENCH_ROUNDS:-11} 300

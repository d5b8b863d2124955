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
want lookup && ./kbench lookup ${KBENCH_ROUNDS:-11} 2000
true

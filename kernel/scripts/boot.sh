#!/bin/sh
# boot.sh BZIMAGE INITRAMFS MODE LOG
#
# Boots the guest under QEMU/TCG (KVM does not work on these machines), with
# the console on the serial port captured in LOG, and a hard timeout
# ($KERNEL_GUEST_TIMEOUT seconds, default 1500): a hung guest is killed and
# fails (QEMU writes LOG.raw unbuffered while it runs: `tail -f` it).
# tsc=reliable: without ACPI there is no HPET or PM timer, and the watchdog
# would demote the (host-clocked) TCG TSC to 4 ms jiffies, which makes the
# benchmarks' timings useless.
# KERNEL_GUEST_ICOUNT=1: -icount shift=0,sleep=off, so guest time counts
# guest instructions (1 ns each) instead of host time: figures repeat from
# run to run and do not depend on the host's load.  What icount does not
# model: cache misses, branch mispredictions, TLB refills, speculation
# mitigations (a syscall's real cost on hardware); every instruction costs
# the same.  KBENCH_ROUNDS=N, KBENCH_ONLY=NAME (one benchmark: spawn,
# batch, wis or lookup) and KBENCH_LOOKUP_FS=ext4 (lookup on an ext4 image
# instead of tmpfs) are handed to the guest's benchmark driver.
# Afterwards:
#   - the console is scanned for kernel splats (BUG, WARNING, Oops, lockdep,
#     panic): any one fails the run;
#   - the guest's marker "SPAWNKIT-GUEST-DONE status=N" must be there;
#   - the guest's closing lines are printed again at the end, and the exit
#     status is the guest's.
set -u
kernel=$1 initrd=$2 mode=$3 log=$4
T=${KERNEL_GUEST_TIMEOUT:-1500}
MEM=${KERNEL_GUEST_MEM:-1G}

# TCG's TSC runs at the host's TSC rate; the guest's own calibration against
# the PIT fails on a loaded host, so hand it the host's figure.
khz=$(awk '/^cpu MHz/ { printf "%d", $4 * 1000; exit }' /proc/cpuinfo 2>/dev/null)
icount=
if [ "${KERNEL_GUEST_ICOUNT:-0}" = 1 ]; then
	# the TSC then follows the virtual clock: 1 GHz at shift 0
	icount="-icount shift=0,sleep=off"
	khz=1000000
fi
tsc=${khz:+tsc_early_khz=$khz}
rounds=${KBENCH_ROUNDS:+KBENCH_ROUNDS=$KBENCH_ROUNDS}${KBENCH_ONLY:+ KBENCH_ONLY=$KBENCH_ONLY}${KBENCH_LOOKUP_FS:+ KBENCH_LOOKUP_FS=$KBENCH_LOOKUP_FS}

echo "boot: qemu-system-x86_64 -accel tcg ${icount:+$icount }mode $mode, timeout ${T}s, console log $log"
start=$(date +%s)
# stdin from /dev/null: CI has none, and QEMU must not read the terminal.
# shellcheck disable=SC2086 # $icount is two words or none
timeout -s KILL "$T" qemu-system-x86_64 -accel tcg $icount -m "$MEM" -smp 1 \
	-nographic -no-reboot -nodefaults -serial stdio \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic tsc=reliable $tsc spawnkit.mode=$mode $rounds" \
	< /dev/null > "$log.raw" 2>&1
tr -d '\r' < "$log.raw" > "$log" && rm -f "$log.raw"
end=$(date +%s)
# Everything the guest printed after the kernel handed over to init.
sed -n '/^guest: kernel /,$p' "$log"
echo "boot: guest ran $((end - start)) s (QEMU/TCG)"

status=0
splat=$(grep -nE 'BUG:|WARNING:|Oops|general protection fault|Kernel panic|scheduling while atomic|possible circular locking|possible recursive locking|inconsistent lock state|turning off the locking correctness validator|INFO: task .* blocked|UBSAN|KASAN|Call Trace:' "$log")
if [ -n "$splat" ]; then
	echo "boot: FAIL: kernel splat on the guest console:"
	echo "$splat" | head -n 40
	status=1
fi
marker=$(grep -E '^SPAWNKIT-GUEST-DONE status=' "$log" | tail -n 1)
if [ -z "$marker" ]; then
	echo "boot: FAIL: the guest did not finish (hung and killed after ${T}s, or crashed); last console lines:"
	tail -n 30 "$log"
	status=1
elif [ "${marker#SPAWNKIT-GUEST-DONE status=}" != 0 ]; then
	status=1
fi
echo "boot: guest result:"
grep -E '^guest: (C suite|selftests|compat: |compat .* (SKIPPED|FAILED))' "$log" | sed 's/^/  /'
echo "boot: $marker"
exit $status

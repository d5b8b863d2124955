/* SPDX-License-Identifier: MIT */
/*
 * thread_slice.c - the calling thread's EEVDF slice (spawnkit_thread_set_slice).
 *
 * An event loop that starts many CPU-bound children (their policy lowered to
 * SCHED_IDLE or their nice value raised) still loses the CPU in the middle of
 * a burst of work: EEVDF reschedules a task once it has run its slice (about
 * 1.4 ms by default), and the task picked instead keeps the CPU until the
 * next tick.  A slice longer than the bursts lets them end first.  It is
 * sched_attr's sched_runtime for a fair policy (Linux 6.12 and later), and
 * is inherited across fork and exec unless SCHED_FLAG_RESET_ON_FORK is set:
 * so it is set here, always, and no thread or child of the caller's (through
 * spawnkit or anything else) gets the slice.  Reset-on-fork also gives those
 * children nice 0 if the caller's is negative, and a real-time policy never
 * reaches them; an unprivileged thread cannot clear it again.
 *
 * The policy and nice value stay as they are: sched_getattr() reads them
 * first, and that read also tells a kernel without custom slices, whose
 * sched_runtime is 0 for a fair task (6.12 and later report the slice in
 * use, never 0).  There sched_setattr() would take the runtime and ignore it;
 * -EOPNOTSUPP says so instead, nothing changed.
 */
#include <sched.h>
#include <stdint.h>

#include <spawnkit/spawnkit.h>
#include "common/sched_attr.h"
#include "common/sys.h"

SK_EXPORT int spawnkit_kernel_has_custom_slices(void)
{
	struct sk_sched_attr attr = { .size = sizeof(attr) };

	/* (a real-time or deadline thread reports no slice either way) */
	if (sk_syscall4(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) < 0)
		return 0;
	return attr.sched_runtime != 0;
}

SK_EXPORT int spawnkit_thread_set_slice(uint64_t slice_ns)
{
	struct sk_sched_attr attr = { .size = sizeof(attr) };
	long ret;

	if (slice_ns && (slice_ns < SPAWNKIT_THREAD_SLICE_MIN ||
			 slice_ns > SPAWNKIT_THREAD_SLICE_MAX))
		return -EINVAL;
	/* pid 0: the calling thread, as for sched_setattr */
	ret = sk_syscall4(SYS_sched_getattr, 0, &attr, sizeof(attr), 0);
	if (ret < 0)
		return (int)ret;
	/* Real-time and deadline threads have no slice, and the kernel leaves
	 * a SCHED_IDLE thread's as it is (sched_setattr says 0 all the same) */
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SK_SCHED_BATCH)
		return -EINVAL;
	if (!attr.sched_runtime)
		return -EOPNOTSUPP;	/* before 6.12: no custom slices */
	attr.size = sizeof(attr);
	attr.sched_flags = SK_SCHED_FLAG_RESET_ON_FORK;	/* and nothing else */
	attr.sched_priority = 0;
	attr.sched_runtime = slice_ns;	/* 0: the default slice back */
	attr.sched_deadline = attr.sched_period = 0;
	ret = sk_syscall3(SYS_sched_setattr, 0, &attr, 0);
	return ret < 0 ? (int)ret : 0;
}

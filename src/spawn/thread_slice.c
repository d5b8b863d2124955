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
	struct sk_sched_attr attr;

	/* (a real-time or deadline thread reports no slice either way) */
	if (sk_sched_getattr_self(&attr) < 0)
		return 0;
	return attr.sched_runtime != 0;
}

SK_EXPORT int spawnkit_thread_set_slice(uint64_t slice_ns)
{
	if (slice_ns && (slice_ns < SPAWNKIT_THREAD_SLICE_MIN ||
			 slice_ns > SPAWNKIT_THREAD_SLICE_MAX))
		return -EINVAL;
	/* the calling thread's policy and nice value kept, reset-on-fork and
	 * nothing else in the flags; 0: the default slice back */
	return (int)sk_sched_set_slice(slice_ns, SK_SCHED_FLAG_RESET_ON_FORK);
}

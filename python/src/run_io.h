/* run_io.h - the blocking I/O and reap of spawnkit.run(), in C.
 *
 * spawnkit.run() hands one call's pipe ends to a struct sk_runio and then
 * makes a handful of C calls (cffi releases the GIL around each): pump the
 * pipes to EOF or a deadline, wait for the child, fetch the captured bytes.
 * A Python-level poll/read loop instead costs a GIL release and reacquire per
 * syscall, which dominates when many threads run calls at once.
 *
 * Conventions as in libspawnkit: functions return >= 0 or -errno and leave
 * errno as they found it.  Times are absolute CLOCK_MONOTONIC nanoseconds
 * (Python's time.monotonic_ns()); a negative time means "none".
 *
 * Fd ownership: sk_runio_new() takes the fds it is given only when it
 * succeeds (on failure they stay the caller's).  From then on the struct
 * closes each exactly once: stdin when all input is written, the child
 * stopped reading (EPIPE, POLLERR) or there was no input; an output fd at
 * EOF; whatever is still open in sk_runio_free().  The pidfd is never the
 * struct's: sk_runio_wait() only polls and reaps through it.
 */
#ifndef SPAWNKIT_PY_RUN_IO_H
#define SPAWNKIT_PY_RUN_IO_H

#include <stddef.h>
#include <stdint.h>

/* sk_runio_pump() and sk_runio_wait() results (besides -errno). */
#define SK_RUNIO_EOF 0       /* pump: outputs at EOF, stdin closed; wait: reaped */
#define SK_RUNIO_DEADLINE 1  /* the deadline passed */
#define SK_RUNIO_IDLE 2      /* pump: no output for idle_ns */
#define SK_RUNIO_INTR 3      /* a signal interrupted the wait: let the caller run
                                its handlers (KeyboardInterrupt), then call again */

#define SK_RUNIO_CHUNK 65536 /* one read; the largest write of input per wakeup */

struct sk_runio;

/* The kept bytes of one output stream, from sk_runio_outputs(). */
struct sk_runio_output {
    const char *data;   /* head then tail, contiguous; valid until free */
    size_t len;
    uint64_t dropped;   /* bytes dropped between head and tail by the limit */
};

/* stdin_fd: our write end of the child's stdin, or -1; input/input_len its
 * data (copied; input_len 0 closes stdin at once).  out_fd/err_fd: our read
 * ends of stdout/stderr, or -1.  limit: output_limit per stream (the first
 * (limit+1)/2 and the last limit/2 bytes are kept), or -1 for no limit.
 * Errors: -EINVAL (limit < -1, or input without a stdin fd), -ENOMEM, or
 * fcntl()'s on stdin (the output fds are not checked here: a bad one is
 * the pump's EBADF). */
int sk_runio_new(int stdin_fd, const char *input, size_t input_len, int out_fd,
                 int err_fd, int64_t limit, struct sk_runio **iop);

/* poll()+read()/write() until SK_RUNIO_EOF, SK_RUNIO_DEADLINE (deadline_ns
 * passed), SK_RUNIO_IDLE (no output for idle_ns while an output is open) or
 * SK_RUNIO_INTR.  Callable again after any of them, e.g. with a short
 * deadline to drain the pipes after the tree was killed. */
int sk_runio_pump(struct sk_runio *io, int64_t deadline_ns, int64_t idle_ns);

/* Wait for the child behind pidfd to end and reap it: SK_RUNIO_EOF with
 * *status_out as subprocess reports it (exit code, or -signal), or
 * SK_RUNIO_DEADLINE (not reaped), SK_RUNIO_INTR, -ECHILD if someone else
 * reaped it and the kernel kept no status on the pidfd, -errno.  A signal
 * that interrupts the wait after the child ended (SIGCHLD) gives EOF: the
 * child is reaped before Python's handlers run, so a handler calling
 * waitpid(-1) cannot take the status. */
int sk_runio_wait(int pidfd, int64_t deadline_ns, int *status_out);

/* Let sk_runio_pump() reap the child behind pidfd (not taken over), for
 * the same reason: at EOF it then also waits for the child (until the same
 * deadline: SK_RUNIO_DEADLINE if it still runs), and on INTR it reaps the
 * child if it ended.  sk_runio_child_status() then gives 1 and the status
 * (else 0), and the child must not be waited for again, nor its pid used. */
void sk_runio_watch_child(struct sk_runio *io, int pidfd);
int sk_runio_child_status(const struct sk_runio *io, int *status_out);

/* The inode of output pipe `which` (1 stdout, 2 stderr), 0 if there is
 * none or it is at EOF: the pipe holders a timeout kills are found by it. */
uint64_t sk_runio_pipe_ino(const struct sk_runio *io, int which);

/* Fill out[0] (stdout) and out[1] (stderr); a stream without a pipe has
 * data NULL, len 0.  Call after the last pump (joins head and tail once).
 * -ENOMEM. */
int sk_runio_outputs(struct sk_runio *io, struct sk_runio_output out[2]);

/* Close every fd still open and free everything.  NULL is a no-op. */
void sk_runio_free(struct sk_runio *io);

#endif

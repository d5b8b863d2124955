/* run_io.c - spawnkit.run()'s pipe pump and reap, run without the GIL.
 *
 * See run_io.h for the contract.  The capture rules are those of
 * spawnkit/_io.py's Capture (used by spawnkit.aio); the tests run the same
 * output-limit cases through both and compare, so keep them identical:
 *   no limit: every byte is kept;
 *   limit L:  the first (L+1)/2 bytes (head) and the last L/2 bytes (tail)
 *             are kept, dropped = total - kept.
 * The pump's rules are those _io.Pump had: input is written in non-blocking
 * chunks of at most SK_RUNIO_CHUNK; EPIPE or an error event on stdin ends
 * the input (as subprocess); the pump is done when stdin is closed and both
 * outputs reached EOF; the idle timer only runs while an output is open.
 */
#define _GNU_SOURCE 1
#include "run_io.h"
#include <spawnkit/spawnkit.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NO_LIMIT ((size_t)-1)
#define MIN_ALLOC 4096

struct capture {
    int fd;              /* our read end; -1 when absent or at EOF (closed) */
    uint64_t total;      /* every byte read */
    char *head;          /* the first head_max bytes (all of them: NO_LIMIT) */
    size_t head_len, head_cap, head_max;
    char *tail;          /* the last tail_max bytes: linear until it fills */
    size_t tail_len, tail_cap, tail_max;
    size_t tail_pos;     /* next write position once it is a full ring */
};

struct sk_runio {
    int stdin_fd;        /* -1 once closed */
    int joined;          /* sk_runio_outputs() ran: no more pumping */
    size_t in_len, in_off;
    int64_t last_output_ns;
    char *scratch;       /* one read for a limited capture */
    int child_pidfd;     /* sk_runio_watch_child(), else -1 (not ours) */
    int child_reaped, child_status;
    struct capture cap[2];
    char input[];        /* our copy of the input */
};

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec ns_to_ts(int64_t ns)
{
    struct timespec ts = { ns / 1000000000, ns % 1000000000 };

    return ts;
}

/* Grow *p to hold at least `need` bytes, doubling, never beyond `max`
 * (need <= max). */
static int reserve(char **p, size_t *cap, size_t need, size_t max)
{
    size_t n;
    char *q;

    if (need <= *cap)
        return 0;
    n = *cap > (size_t)-1 / 2 ? (size_t)-1 : *cap * 2;
    if (n < MIN_ALLOC)
        n = MIN_ALLOC;
    if (n < need)
        n = need;
    if (n > max)
        n = max;
    q = realloc(*p, n);
    if (!q)
        return -ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* Keep the last tail_max bytes of everything fed here. */
static int tail_feed(struct capture *c, const char *data, size_t n)
{
    size_t first;
    int rc;

    if (n >= c->tail_max) {
        rc = reserve(&c->tail, &c->tail_cap, c->tail_max, c->tail_max);
        if (rc)
            return rc;
        memcpy(c->tail, data + n - c->tail_max, c->tail_max);
        c->tail_len = c->tail_max;
        c->tail_pos = 0;
        return 0;
    }
    if (c->tail_len < c->tail_max) {
        /* not full yet: linear, so the write position is its length */
        size_t need = c->tail_len + n < c->tail_max ? c->tail_len + n : c->tail_max;

        rc = reserve(&c->tail, &c->tail_cap, need, c->tail_max);
        if (rc)
            return rc;
        c->tail_pos = c->tail_len;
    }
    first = c->tail_max - c->tail_pos;
    if (first > n)
        first = n;
    memcpy(c->tail + c->tail_pos, data, first);
    memcpy(c->tail, data + first, n - first);
    c->tail_pos = (c->tail_pos + n) % c->tail_max;
    c->tail_len = c->tail_len + n < c->tail_max ? c->tail_len + n : c->tail_max;
    return 0;
}

static int capture_feed(struct capture *c, const char *data, size_t n)
{
    if (c->head_len < c->head_max) {
        size_t take = c->head_max - c->head_len;
        int rc;

        if (take > n)
            take = n;
        rc = reserve(&c->head, &c->head_cap, c->head_len + take, c->head_max);
        if (rc)
            return rc;
        memcpy(c->head + c->head_len, data, take);
        c->head_len += take;
        data += take;
        n -= take;
    }
    if (n && c->tail_max)
        return tail_feed(c, data, n);
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);          /* Linux: the fd is gone even on EINTR */
        *fd = -1;
    }
}

static int read_output(struct sk_runio *io, struct capture *c)
{
    size_t want = SK_RUNIO_CHUNK;
    ssize_t n;
    char *buf;
    int rc;

    if (c->head_max == NO_LIMIT) {
        /* No limit: read straight into the kept bytes.  Reads start small
         * and grow with the output, so a call printing a line (or nothing)
         * costs no 64 KiB allocation, whose heap growth and trim are
         * syscalls of their own. */
        want = c->head_len < MIN_ALLOC ? MIN_ALLOC :
               c->head_len > SK_RUNIO_CHUNK ? SK_RUNIO_CHUNK : c->head_len;
        if (c->head_len > NO_LIMIT - want)
            return -ENOMEM;
        rc = reserve(&c->head, &c->head_cap, c->head_len + want, NO_LIMIT);
        if (rc)
            return rc;
        buf = c->head + c->head_len;
    } else {
        if (!io->scratch && !(io->scratch = malloc(SK_RUNIO_CHUNK)))
            return -ENOMEM;
        buf = io->scratch;
    }
    do
        n = read(c->fd, buf, want);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN ? 0 : -errno;
    if (n == 0) {
        close_fd(&c->fd);
        return 0;
    }
    c->total += (uint64_t)n;
    io->last_output_ns = now_ns();
    if (c->head_max == NO_LIMIT) {
        c->head_len += (size_t)n;
        return 0;
    }
    return capture_feed(c, buf, (size_t)n);
}

static int write_input(struct sk_runio *io)
{
    size_t want = io->in_len - io->in_off;
    ssize_t n;

    if (want > SK_RUNIO_CHUNK)
        want = SK_RUNIO_CHUNK;
    do
        n = write(io->stdin_fd, io->input + io->in_off, want);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        if (errno == EAGAIN)
            return 0;
        if (errno != EPIPE)
            return -errno;
        io->in_off = io->in_len;     /* the child closed stdin: as subprocess */
    } else {
        io->in_off += (size_t)n;
    }
    if (io->in_off >= io->in_len)
        close_fd(&io->stdin_fd);
    return 0;
}

int sk_runio_new(int stdin_fd, const char *input, size_t input_len, int out_fd,
                 int err_fd, int64_t limit, struct sk_runio **iop)
{
    int saved = errno, outs[2] = { out_fd, err_fd }, rc = 0, i, fl;
    struct sk_runio *io;

    *iop = NULL;
    if (limit < -1 || (input_len && (stdin_fd < 0 || !input)) ||
        input_len > (size_t)-1 - sizeof(*io))
        return -EINVAL;
    io = calloc(1, sizeof(*io) + input_len);
    if (!io) {
        errno = saved;
        return -ENOMEM;
    }
    for (i = 0; i < 2; i++) {
        struct capture *c = &io->cap[i];

        c->fd = -1;
        if (limit < 0) {
            c->head_max = NO_LIMIT;
        } else {
            /* (limit+1)/2 without overflow; size_t is 64-bit on Linux/x86-64 */
            uint64_t l = (uint64_t)limit;

            c->head_max = (size_t)(l / 2 + (l & 1));
            c->tail_max = (size_t)(l / 2);
        }
    }
    if (stdin_fd >= 0 && input_len) {
        fl = fcntl(stdin_fd, F_GETFL);
        if (fl < 0 || fcntl(stdin_fd, F_SETFL, fl | O_NONBLOCK) < 0) {
            rc = -errno;
            goto fail;
        }
        memcpy(io->input, input, input_len);
    }
    /* Nothing can fail from here: the fds are ours. */
    io->stdin_fd = stdin_fd;
    io->child_pidfd = -1;
    io->in_len = input_len;
    for (i = 0; i < 2; i++)
        io->cap[i].fd = outs[i] < 0 ? -1 : outs[i];
    if (!input_len)
        close_fd(&io->stdin_fd);     /* no input: EOF for the child at once */
    io->last_output_ns = now_ns();
    *iop = io;
    errno = saved;
    return 0;
fail:
    free(io);
    errno = saved;
    return rc;
}

static int pump(struct sk_runio *io, int64_t deadline_ns, int64_t idle_ns)
{
    struct pollfd pfd[3];
    struct capture *owner[3];
    struct timespec ts;
    int64_t left, idle_left, now;
    int n, reading, rc, i, reason;

    if (io->joined)
        return -EINVAL;
    for (;;) {
        n = reading = 0;
        for (i = 0; i < 2; i++) {
            if (io->cap[i].fd >= 0) {
                pfd[n] = (struct pollfd){ io->cap[i].fd, POLLIN, 0 };
                owner[n++] = &io->cap[i];
                reading++;
            }
        }
        if (io->stdin_fd >= 0) {
            pfd[n] = (struct pollfd){ io->stdin_fd, POLLOUT, 0 };
            owner[n++] = NULL;
        }
        if (n == 0)
            return SK_RUNIO_EOF;

        reason = -1;
        left = 0;
        if (deadline_ns >= 0 || (idle_ns >= 0 && reading)) {
            now = now_ns();
            if (deadline_ns >= 0) {
                left = deadline_ns - now;
                reason = SK_RUNIO_DEADLINE;
            }
            if (idle_ns >= 0 && reading) {
                idle_left = io->last_output_ns + idle_ns - now;
                if (deadline_ns < 0 || idle_left < left) {
                    left = idle_left;
                    reason = SK_RUNIO_IDLE;
                }
            }
            if (left <= 0)
                return reason;
            ts = ns_to_ts(left);
        }
        rc = ppoll(pfd, (nfds_t)n, reason < 0 ? NULL : &ts, NULL);
        if (rc < 0)
            return errno == EINTR ? SK_RUNIO_INTR : -errno;
        for (i = 0; i < n && rc > 0; i++) {
            if (!pfd[i].revents)
                continue;
            rc--;
            if (owner[i]) {
                /* POLLIN, POLLHUP (EOF) or an error: read() tells which.
                 * POLLHUP: no writer is left, so reads cannot block: read
                 * on to EOF now rather than poll once more for it. */
                struct capture *c = owner[i];
                int r;

                do
                    r = read_output(io, c);
                while (r == 0 && c->fd >= 0 && (pfd[i].revents & POLLHUP));
                if (r < 0)
                    return r;
            } else if (pfd[i].revents & POLLOUT) {
                int r = write_input(io);

                if (r < 0)
                    return r;
            } else {
                close_fd(&io->stdin_fd);      /* POLLERR: the reader is gone */
            }
        }
    }
}

/* Reap the child now if it has ended: 1 with *status_out, else 0.  Done
 * before every return to Python that a signal may have caused: a Python
 * SIGCHLD handler calling waitpid(-1) runs right after the C call returns,
 * and would take the status first (on kernels before 6.15 it is then lost:
 * no copy is kept on the pidfd). */
static int reap_if_ended(int pidfd, int *status_out)
{
    int ws = 0;

    if (spawnkit_pidfd_wait(pidfd, WNOHANG, &ws) != 1)
        return 0;
    *status_out = WIFEXITED(ws) ? WEXITSTATUS(ws) : -WTERMSIG(ws);
    return 1;
}

void sk_runio_watch_child(struct sk_runio *io, int pidfd)
{
    io->child_pidfd = pidfd;
}

int sk_runio_child_status(const struct sk_runio *io, int *status_out)
{
    if (!io->child_reaped)
        return 0;
    *status_out = io->child_status;
    return 1;
}

static int wait_child(int pidfd, int64_t deadline_ns, int *status_out);

int sk_runio_pump(struct sk_runio *io, int64_t deadline_ns, int64_t idle_ns)
{
    int saved = errno, rc = pump(io, deadline_ns, idle_ns);

    if (io->child_pidfd >= 0 && !io->child_reaped) {
        if (rc == SK_RUNIO_EOF) {
            /* The pipes close a moment before the child ends: wait for
             * it here, not after a return to Python. */
            int r = wait_child(io->child_pidfd, deadline_ns, &io->child_status);

            if (r == SK_RUNIO_EOF)
                io->child_reaped = 1;
            else if (r == SK_RUNIO_DEADLINE || r == SK_RUNIO_INTR)
                rc = r;
            /* else (ECHILD...): EOF; the caller's wait reports it */
        } else if (rc == SK_RUNIO_INTR) {
            /* often SIGCHLD.  (Not on a deadline: the caller then kills
             * the tree by the child's pid, which must not be reaped.) */
            io->child_reaped = reap_if_ended(io->child_pidfd, &io->child_status);
        }
    }
    errno = saved;
    return rc;
}

static int wait_child(int pidfd, int64_t deadline_ns, int *status_out)
{
    int rc, ws = 0;

    if (deadline_ns >= 0) {
        /* A pidfd is readable once the child has ended; look at least once
         * even when the deadline has passed, as Popen.wait(0) does. */
        struct pollfd p = { pidfd, POLLIN, 0 };
        int64_t left = deadline_ns - now_ns();
        struct timespec ts = ns_to_ts(left > 0 ? left : 0);
        int r = ppoll(&p, 1, &ts, NULL);

        if (r < 0 && errno == EINTR)    /* SIGCHLD, likely: see above */
            return reap_if_ended(pidfd, status_out) ? SK_RUNIO_EOF : SK_RUNIO_INTR;
        if (r < 0)
            return -errno;
        if (r == 0)
            return SK_RUNIO_DEADLINE;
        if (p.revents & POLLNVAL)
            return -EBADF;
    }
    /* The library's wait: a status another waiter took is still found
     * where the kernel keeps it on the pidfd, else -ECHILD (never 0). */
    rc = spawnkit_pidfd_wait(pidfd, 0, &ws);
    if (rc == -EINTR)
        return reap_if_ended(pidfd, status_out) ? SK_RUNIO_EOF : SK_RUNIO_INTR;
    if (rc < 0)
        return rc;
    *status_out = WIFEXITED(ws) ? WEXITSTATUS(ws) : -WTERMSIG(ws);
    return SK_RUNIO_EOF;
}

int sk_runio_wait(int pidfd, int64_t deadline_ns, int *status_out)
{
    int saved = errno, rc = wait_child(pidfd, deadline_ns, status_out);

    errno = saved;
    return rc;
}

uint64_t sk_runio_pipe_ino(const struct sk_runio *io, int which)
{
    int saved = errno;
    struct stat st;
    uint64_t ino = 0;

    /* Asked only when a tree is killed, so not stored up front; a pipe at
     * EOF has no writer left to find. */
    if (which >= 1 && which <= 2 && io->cap[which - 1].fd >= 0 &&
        fstat(io->cap[which - 1].fd, &st) == 0)
        ino = (uint64_t)st.st_ino;
    errno = saved;
    return ino;
}

/* Append the tail (in order) to the head, so the kept bytes are one block. */
static int join(struct capture *c)
{
    size_t first;
    int rc;

    if (!c->tail_len)
        return 0;
    rc = reserve(&c->head, &c->head_cap, c->head_len + c->tail_len, NO_LIMIT);
    if (rc)
        return rc;
    if (c->tail_len < c->tail_max) {
        memcpy(c->head + c->head_len, c->tail, c->tail_len);   /* never wrapped */
    } else {
        first = c->tail_max - c->tail_pos;
        memcpy(c->head + c->head_len, c->tail + c->tail_pos, first);
        memcpy(c->head + c->head_len + first, c->tail, c->tail_pos);
    }
    c->head_len += c->tail_len;
    free(c->tail);
    c->tail = NULL;
    c->tail_len = c->tail_cap = c->tail_pos = 0;
    return 0;
}

int sk_runio_outputs(struct sk_runio *io, struct sk_runio_output out[2])
{
    int saved = errno, i, rc;

    for (i = 0; i < 2; i++) {
        struct capture *c = &io->cap[i];

        rc = join(c);
        if (rc) {
            errno = saved;
            return rc;
        }
        out[i].data = c->head;
        out[i].len = c->head_len;
        out[i].dropped = c->total - c->head_len;
    }
    io->joined = 1;
    errno = saved;
    return 0;
}

void sk_runio_free(struct sk_runio *io)
{
    int saved = errno, i;

    if (!io)
        return;
    close_fd(&io->stdin_fd);
    for (i = 0; i < 2; i++) {
        close_fd(&io->cap[i].fd);
        free(io->cap[i].head);
        free(io->cap[i].tail);
    }
    free(io->scratch);
    free(io);
    errno = saved;
}

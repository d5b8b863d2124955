/* run_io_check.c - run_io.c under AddressSanitizer/UBSan (and LeakSanitizer
 * at exit), built and run by test_run_io_sanitized.py.
 *
 * Random payloads go through a pipe in random write sizes (1 byte to more
 * than one read) under random output limits, one pump per write; the kept
 * bytes must be the rule's (head (L+1)/2, tail L/2).  Then input of random
 * sizes is pumped to a pipe the check drains.  Exit 0 when all match.
 */
#define _GNU_SOURCE 1
#include "run_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAYLOAD 400000

static int64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int check_capture(const char *payload, long limit, size_t total)
{
    struct sk_runio_output out[2];
    struct sk_runio *io;
    size_t off = 0, head, tail;
    int p[2], rc, ok;

    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20);    /* one write never blocks */
    rc = sk_runio_new(-1, NULL, 0, p[0], -1, limit, &io);
    if (rc) {
        fprintf(stderr, "sk_runio_new: %d\n", rc);
        return -1;
    }
    while (off < total) {
        size_t n = (size_t)(rand() % (rand() % 2 ? 100 : 90000)) + 1;

        if (n > total - off)
            n = total - off;
        if (write_all(p[1], payload + off, n) < 0)
            return -1;
        off += n;
        rc = sk_runio_pump(io, mono_ns() + 200000, -1);
        if (rc != SK_RUNIO_DEADLINE) {
            fprintf(stderr, "pump: %d, want DEADLINE\n", rc);
            return -1;
        }
    }
    close(p[1]);
    if ((rc = sk_runio_pump(io, -1, -1)) != SK_RUNIO_EOF ||
        (rc = sk_runio_outputs(io, out)) != 0) {
        fprintf(stderr, "pump/outputs: %d\n", rc);
        return -1;
    }
    head = limit < 0 ? total : (size_t)(limit + 1) / 2;
    if (head > total)
        head = total;
    tail = limit < 0 ? 0 : (size_t)limit / 2;
    if (tail > total - head)
        tail = total - head;
    ok = out[0].len == head + tail && out[0].dropped == total - head - tail &&
         (!head || !memcmp(out[0].data, payload, head)) &&
         (!tail || !memcmp(out[0].data + head, payload + total - tail, tail)) &&
         out[1].data == NULL && out[1].len == 0;
    if (!ok)
        fprintf(stderr, "capture mismatch: limit %ld total %zu kept %zu\n",
                limit, total, out[0].len);
    sk_runio_free(io);
    return ok ? 0 : -1;
}

static int check_input(const char *payload, size_t n)
{
    int in[2], o[2], rc;
    struct sk_runio *io;
    size_t got = 0;
    char *buf;
    ssize_t r;

    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(o, O_CLOEXEC) < 0)
        return -1;
    buf = malloc(n + 1);
    fcntl(in[0], F_SETFL, O_NONBLOCK);
    if (!buf || sk_runio_new(in[1], payload, n, o[0], -1, -1, &io))
        return -1;
    for (;;) {
        rc = sk_runio_pump(io, mono_ns() + 1000000, -1);
        while ((r = read(in[0], buf + got, n + 1 - got)) > 0)
            got += (size_t)r;
        if (r == 0 && o[1] >= 0) {      /* all input read: "the child" exits */
            close(o[1]);
            o[1] = -1;
        }
        if (rc == SK_RUNIO_EOF)
            break;
        if (rc != SK_RUNIO_DEADLINE) {
            fprintf(stderr, "input pump: %d\n", rc);
            return -1;
        }
    }
    rc = got == n && !memcmp(buf, payload, n) ? 0 : -1;
    if (rc)
        fprintf(stderr, "input mismatch: %zu of %zu bytes\n", got, n);
    free(buf);
    close(in[0]);
    sk_runio_free(io);
    return rc;
}

int main(void)
{
    static const long limits[] = { -1, 0, 1, 2, 3, 4, 5, 7, 8, 13, 100, 4095, 4096,
                                   4097, 65535, 65536, 65537, 131073, 300000, 1000000 };
    const int nlimits = (int)(sizeof(limits) / sizeof(limits[0]));
    char *payload = malloc(PAYLOAD);
    int i, fails = 0;

    if (!payload)
        return 2;
    srand(1);
    for (i = 0; i < PAYLOAD; i++)
        payload[i] = (char)rand();
    for (i = 0; i < 300; i++) {
        size_t total = (size_t)(rand() % (i % 3 == 0 ? PAYLOAD : 3000));

        fails += check_capture(payload, limits[rand() % nlimits], total) != 0;
    }
    for (i = 0; i < 20; i++)
        fails += check_input(payload, (size_t)(rand() % PAYLOAD)) != 0;
    free(payload);
    printf("run_io_check: %d failures\n", fails);
    return fails != 0;
}

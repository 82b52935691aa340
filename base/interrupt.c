/* base/interrupt.c: the graceful-stop flag and its self-pipe.
 *
 * The handler stores the signal number with a compare-and-swap (the first
 * signal wins, so the exit status names what the user did first) and writes
 * one byte to a non-blocking pipe that is never drained: once a signal has
 * arrived, every poll on the read end returns at once, so any number of
 * sleepers on any thread wake, now and later, without a condition variable
 * (which a handler may not touch). SA_RESTART keeps the other threads'
 * system calls (the websocket service thread's poll) from failing with
 * EINTR. On a second signal the hard hook runs and the process leaves with
 * _exit, both allowed in a handler.
 */
#define _GNU_SOURCE

#include "base/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"

static atomic_int g_sig;
static atomic_int g_count;
static int g_pipe[2] = {-1, -1};
static void (*g_hard_hook)(void);
static atomic_int g_installed;

/* The calling thread's own stop flag (a cancelled call), NULL = none. */
static _Thread_local atomic_int *t_flag;

static const int g_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void on_signal(int sig)
{
    int saved = errno;
    int expected = 0;
    atomic_compare_exchange_strong(&g_sig, &expected, sig);
    if (atomic_fetch_add(&g_count, 1) > 0) {
        /* The user insists: no more waiting for a graceful finish. */
        if (g_hard_hook)
            g_hard_hook();
        _exit(128 + sig);
    }
    if (g_pipe[1] >= 0) {
        char c = (char)sig;
        ssize_t w = write(g_pipe[1], &c, 1);
        (void)w; /* a full pipe already wakes every reader */
    }
    errno = saved;
}

int base_interrupt_install(void (*hard_hook)(void))
{
    g_hard_hook = hard_hook;
    int rc = 0;
    if (!atomic_exchange(&g_installed, 1)) {
        if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
            g_pipe[0] = g_pipe[1] = -1;
            rc = -1;
        }
    } else if (g_pipe[0] < 0) {
        rc = -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof g_sigs / sizeof g_sigs[0]; i++)
        sigaddset(&sa.sa_mask, g_sigs[i]);
    for (size_t i = 0; i < sizeof g_sigs / sizeof g_sigs[0]; i++)
        sigaction(g_sigs[i], &sa, NULL);
    return rc;
}

int base_interrupted(void)
{
    int sig = atomic_load(&g_sig);
    if (!sig && t_flag && atomic_load(t_flag))
        return SIGINT;
    return sig;
}

void base_interrupt_set_thread_flag(atomic_int *flag)
{
    t_flag = flag;
}

const char *base_signal_name(int sig)
{
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    case SIGQUIT:
        return "SIGQUIT";
    default: {
        static char buf[24];
        snprintf(buf, sizeof buf, "signal %d", sig);
        return buf;
    }
    }
}

int base_interrupt_sleep_ms(double ms)
{
    if (base_interrupted())
        return 1;
    if (ms <= 0)
        return 0;
    if (g_pipe[0] < 0 || t_flag) {
        /* No pipe, or a thread flag no signal wakes: poll every 20 ms. */
        double end = base_monotime_ms() + ms;
        for (double left = ms; left > 0; left = end - base_monotime_ms()) {
            base_sleep_ms(left < 20 ? left : 20);
            if (base_interrupted())
                return 1;
        }
        return 0;
    }
    double end = base_monotime_ms() + ms;
    for (;;) {
        double left = end - base_monotime_ms();
        if (left <= 0)
            return base_interrupted() != 0;
        struct pollfd p = {g_pipe[0], POLLIN, 0};
        int rc = poll(&p, 1, (int)(left + 0.999));
        if (rc > 0 || base_interrupted())
            return 1;
    }
}

void base_interrupt_reset(void)
{
    atomic_store(&g_sig, 0);
    atomic_store(&g_count, 0);
    if (g_pipe[0] >= 0) {
        char buf[64];
        while (read(g_pipe[0], buf, sizeof buf) > 0) {
        }
    }
}

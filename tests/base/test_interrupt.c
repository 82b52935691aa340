/* tests/base/test_interrupt.c: the graceful-stop flag (base/interrupt.h).
 *
 * flag: a raised SIGTERM is recorded instead of ending the process, named,
 *   and a sleep returns at once afterwards; reset forgets it. (A second
 *   signal would exit the process, so each case raises one.)
 * wakes: a sleeper on another thread wakes right after the signal (< 300 ms),
 *   not at the end of its sleep.
 * thread_flag: a thread's own stop flag (a cancelled MCP call) stops that
 *   thread's sleep within ~300 ms and reads as SIGINT there, while another
 *   thread without the flag sees no stop and sleeps on.
 */
#include "check.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "base/clock.h"
#include "base/interrupt.h"

static void flag(void)
{
    base_interrupt_reset();
    CHECK_EQ(base_interrupted(), 0);
    CHECK_EQ(base_interrupt_sleep_ms(30), 0);
    raise(SIGTERM);
    CHECK_EQ(base_interrupted(), SIGTERM);
    CHECK(strcmp(base_signal_name(base_interrupted()), "SIGTERM") == 0);
    double t0 = base_monotime_ms();
    CHECK_EQ(base_interrupt_sleep_ms(5000), 1);
    CHECK(base_monotime_ms() - t0 < 100);
    base_interrupt_reset();
    CHECK_EQ(base_interrupted(), 0);
}

typedef struct sleep_probe {
    _Atomic int started;
    double woke_at_ms; /* absolute monotime when the sleep returned */
    int rc;
} sleep_probe;

static void *sleeper(void *arg)
{
    sleep_probe *p = arg;
    atomic_store(&p->started, 1);
    p->rc = base_interrupt_sleep_ms(10000);
    p->woke_at_ms = base_monotime_ms();
    return NULL;
}

static void wakes(void)
{
    base_interrupt_reset();
    sleep_probe p;
    memset(&p, 0, sizeof p);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, sleeper, &p) == 0);
    while (!atomic_load(&p.started))
        base_sleep_ms(1);
    base_sleep_ms(50); /* well inside its sleep */
    double raised_at = base_monotime_ms();
    raise(SIGINT);
    pthread_join(t, NULL);
    int sig = base_interrupted();
    base_interrupt_reset();
    CHECK_EQ(sig, SIGINT);
    CHECK_EQ(p.rc, 1);
    double latency = p.woke_at_ms - raised_at;
    CHECK_MSG(latency >= 0 && latency < 300, "the sleeper woke %.0f ms after the signal",
              latency);
}

typedef struct flag_probe {
    atomic_int stop;       /* the thread's own flag */
    _Atomic int started;
    int with_flag;         /* 1: the thread sets stop as its flag */
    int rc, seen;          /* the sleep's return, base_interrupted() after it */
    double slept_ms;
} flag_probe;

static void *flag_sleeper(void *arg)
{
    flag_probe *p = arg;
    if (p->with_flag)
        base_interrupt_set_thread_flag(&p->stop);
    atomic_store(&p->started, 1);
    double t0 = base_monotime_ms();
    p->rc = base_interrupt_sleep_ms(p->with_flag ? 10000 : 400);
    p->slept_ms = base_monotime_ms() - t0;
    p->seen = base_interrupted();
    base_interrupt_set_thread_flag(NULL);
    return NULL;
}

static void thread_flag(void)
{
    base_interrupt_reset();
    flag_probe a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.with_flag = 1;
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, flag_sleeper, &a) == 0);
    CHECK(pthread_create(&tb, NULL, flag_sleeper, &b) == 0);
    while (!atomic_load(&a.started) || !atomic_load(&b.started))
        base_sleep_ms(1);
    base_sleep_ms(50);
    atomic_store(&a.stop, 1);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK_EQ(a.rc, 1);
    CHECK_EQ(a.seen, SIGINT);
    CHECK_MSG(a.slept_ms < 1000, "the flagged sleeper slept %.0f ms", a.slept_ms);
    CHECK_EQ(b.rc, 0); /* the other thread slept its full 400 ms */
    CHECK_EQ(b.seen, 0);
    CHECK_EQ(base_interrupted(), 0); /* nothing process-wide */
}

static const check_case cases[] = {
    {"flag", flag},
    {"wakes", wakes},
    {"thread_flag", thread_flag},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    if (base_interrupt_install(NULL) != 0)
        fprintf(stderr, "no self-pipe: sleeps poll\n");
    return check_main(argc, argv, cases);
}

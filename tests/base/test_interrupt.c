/* tests/base/test_interrupt.c: the graceful-stop flag (base/interrupt.h).
 *
 * flag: a raised SIGTERM is recorded instead of ending the process, named,
 *   and a sleep returns at once afterwards; reset forgets it. (A second
 *   signal would exit the process, so each case raises one.)
 * wakes: a sleeper on another thread wakes right after the signal (< 300 ms),
 *   not at the end of its sleep.
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

static const check_case cases[] = {
    {"flag", flag},
    {"wakes", wakes},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    if (base_interrupt_install(NULL) != 0)
        fprintf(stderr, "no self-pipe: sleeps poll\n");
    return check_main(argc, argv, cases);
}

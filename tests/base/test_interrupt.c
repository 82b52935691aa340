/* tests/base/test_interrupt.c: the graceful-stop flag (base/interrupt.h).
 *
 * flag: a raised SIGTERM is recorded instead of ending the process, named,
 *   and a sleep returns at once afterwards; reset forgets it. (A second
 *   signal would exit the process, so each case raises one.)
 * wakes: a sleeper on another thread wakes within ~50 ms of the signal,
 *   not at the end of its sleep.
 */
#include "check.h"

#include <pthread.h>
#include <signal.h>

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

static void *sleeper(void *arg)
{
    double *woke_ms = arg;
    double t0 = base_monotime_ms();
    base_interrupt_sleep_ms(10000);
    *woke_ms = base_monotime_ms() - t0;
    return NULL;
}

static void wakes(void)
{
    base_interrupt_reset();
    double woke = -1;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, sleeper, &woke) == 0);
    base_sleep_ms(100);
    raise(SIGINT);
    pthread_join(t, NULL);
    int sig = base_interrupted();
    base_interrupt_reset();
    CHECK_EQ(sig, SIGINT);
    CHECK_MSG(woke >= 90 && woke < 400, "the sleeper woke after %.0f ms", woke);
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

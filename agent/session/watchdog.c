/* agent/session/watchdog.c: declares a page that stopped answering "not responding".
 *
 * Design: one thread per run sleeps on a condition variable until the armed
 * attempt's deadline. Past it, the thread probes the page (Runtime.evaluate
 * "1", AGENT__PROBE_MS) outside the lock; the probe needs the renderer's
 * main thread, which is exactly what a script loop holds. No answer means
 * the page is frozen: cdp_page_fail makes every pending call on it return
 * at once, so the step fails within its timeout plus the probe instead of
 * stacking each call's own timeout. disarm waits for a running probe, so
 * the runner may switch or close the page right after it.
 */
#include "agent/session/watchdog_int.h"

#include <pthread.h>
#include <stdio.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"

#define REPROBE_MS 1000

struct agent__watchdog {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    cdp_page *page;     /* NULL: disarmed */
    double deadline_ms; /* next probe time */
    int probing;        /* a probe is running (outside the lock) */
};

static void *watch_main(void *arg)
{
    agent__watchdog *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        if (!w->page) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        double left = w->deadline_ms - base_monotime_ms();
        if (left > 0) {
            struct timespec ts;
            base_deadline_ts(&ts, (int64_t)left + 1);
            pthread_cond_timedwait(&w->cv, &w->mu, &ts);
            continue;
        }
        cdp_page *page = w->page;
        w->probing = 1;
        pthread_mutex_unlock(&w->mu);
        base_err e = BASE_OK;
        if (cdp_page_status(page, NULL, 0) == BASE_OK) {
            char err[BASE_ERRBUF_SIZE] = "";
            e = cdp_page_evaluate(page, "1", NULL, AGENT__PROBE_MS, err);
            if (e == BASE_ETIMEDOUT) {
                char why[200];
                snprintf(why, sizeof why,
                         "page not responding (its renderer answered nothing for %d ms at the "
                         "step's deadline: a script in an endless loop?)",
                         AGENT__PROBE_MS);
                cdp_page_fail(page, BASE_ETIMEDOUT, why);
            }
        }
        pthread_mutex_lock(&w->mu);
        w->probing = 0;
        pthread_cond_broadcast(&w->cv);
        if (w->page == page)
            w->deadline_ms = base_monotime_ms() + REPROBE_MS;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

base_err agent__watchdog_create(agent__watchdog **out, char *err)
{
    agent__watchdog *w = base_calloc(1, sizeof *w);
    if (!w)
        return base_errf(err, BASE_ENOMEM, "watchdog: out of memory");
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->th, NULL, watch_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        base_free(w);
        return base_errf(err, BASE_ENOMEM, "watchdog: cannot start its thread");
    }
    *out = w;
    return BASE_OK;
}

void agent__watchdog_destroy(agent__watchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    base_free(w);
}

void agent__watchdog_arm(agent__watchdog *w, cdp_page *page, double deadline_ms)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->page = page;
    w->deadline_ms = deadline_ms;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void agent__watchdog_disarm(agent__watchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->page = NULL;
    while (w->probing)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

/* cdp/many.c: many calls of one method in flight at once (cdp_call_many).
 *
 * Built on cdp_call_async: every call is queued before the first reply is
 * awaited, so Chromium answers them back to back and the caller pays about
 * one round trip instead of n. The replies are copied on the service thread
 * into the caller's slots; the caller sleeps on a condition variable of its
 * own until every callback has run (each runs exactly once: reply, error,
 * timeout or a destroyed connection).
 */
#include <pthread.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "cdp/cdp.h"

typedef struct many {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int left;
    cJSON **results;
    base_err first;
    char msg[BASE_ERRBUF_SIZE];
} many;

typedef struct many_slot {
    many *m;
    int i;
} many_slot;

static void on_reply(base_err e, const cJSON *result, const char *msg, void *user)
{
    many_slot *s = user;
    many *m = s->m;
    cJSON *copy = NULL;
    if (!e && result) {
        copy = cJSON_Duplicate(result, 1);
        if (!copy) {
            e = BASE_ENOMEM;
            msg = "out of memory";
        }
    }
    pthread_mutex_lock(&m->mu);
    m->results[s->i] = copy;
    if (e && !m->first) {
        m->first = e;
        snprintf(m->msg, sizeof m->msg, "%s", msg ? msg : "failed");
    }
    m->left--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

base_err cdp_call_many(cdp_conn *c, const char *session_id, const char *method, cJSON **params,
                       int n, cJSON **results, int timeout_ms, char *err)
{
    if (!c || !method || n < 0 || (n > 0 && (!params || !results)) || timeout_ms <= 0) {
        for (int i = 0; params && i < n; i++)
            cJSON_Delete(params[i]);
        return base_errf(err, BASE_EINVAL, "cdp: call_many needs a connection, a method, "
                                           "arrays and a timeout");
    }
    for (int i = 0; i < n; i++)
        results[i] = NULL;
    if (n == 0)
        return BASE_OK;
    many_slot *slots = base_calloc((size_t)n, sizeof *slots);
    if (!slots) {
        for (int i = 0; i < n; i++)
            cJSON_Delete(params[i]);
        return base_errf(err, BASE_ENOMEM, "cdp: %s: out of memory", method);
    }
    many m = {.left = n, .results = results};
    pthread_mutex_init(&m.mu, NULL);
    pthread_cond_init(&m.cv, NULL);
    for (int i = 0; i < n; i++) {
        slots[i] = (many_slot){&m, i};
        base_err e = cdp_call_async(c, session_id, method, params[i], timeout_ms, on_reply,
                                    &slots[i]);
        if (e) {
            /* Its callback never runs: count it here. */
            pthread_mutex_lock(&m.mu);
            if (!m.first) {
                m.first = e;
                snprintf(m.msg, sizeof m.msg, "cannot queue the call (a closed connection?)");
            }
            m.left--;
            pthread_mutex_unlock(&m.mu);
        }
    }
    /* Every queued call completes within its timeout (the connection's
     * timer), so this wait ends. */
    pthread_mutex_lock(&m.mu);
    while (m.left > 0)
        pthread_cond_wait(&m.cv, &m.mu);
    base_err first = m.first;
    pthread_mutex_unlock(&m.mu);
    pthread_cond_destroy(&m.cv);
    pthread_mutex_destroy(&m.mu);
    base_free(slots);
    if (first)
        return base_errf(err, first, "cdp: %s: %s", method, m.msg);
    return BASE_OK;
}

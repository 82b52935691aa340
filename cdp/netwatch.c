/* cdp/netwatch.c: requests in flight per page, and the main document's
 * HTTP status (cdp/netwatch.h).
 *
 * One subscription to every event of the connection, filtered to the
 * page's sessions (cdp_page_owns_session). The in-flight set is a fixed
 * table of (session, request id) pairs: ids are unique only per session,
 * and a request whose iframe session detaches never reports its end, so it
 * is dropped with the session. The table is capped; requests beyond the cap
 * are counted as started but cannot hold the page busy, which errs on the
 * side of a wait that ends rather than one that never does.
 */
#include "cdp/netwatch.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/json_get.h"
#include "base/log.h"

#define NW_MAX 1024

typedef struct nw_req {
    char sid[64];
    char id[64];
} nw_req;

struct cdp_netwatch {
    cdp_page *page;
    cdp_conn *conn;
    int sub;
    pthread_mutex_t mu;
    nw_req reqs[NW_MAX];
    int n;
    cdp_netstat st;
};

/* A string member, NULL when absent (base/json_get.h). */
#define jstr(o, k) base_json_str((o), (k), NULL)

static void ignore_reply(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)result;
    (void)user;
    if (e)
        base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "netwatch: Network.enable: %s", msg ? msg : "");
}

static int find_locked(cdp_netwatch *w, const char *sid, const char *id)
{
    for (int i = 0; i < w->n; i++) {
        if (strcmp(w->reqs[i].id, id) == 0 && strcmp(w->reqs[i].sid, sid) == 0)
            return i;
    }
    return -1;
}

static void on_request(cdp_netwatch *w, const char *sid, const cJSON *params)
{
    const char *id = jstr(params, "requestId");
    if (!id)
        return;
    const char *url = jstr(cJSON_GetObjectItemCaseSensitive(params, "request"), "url");
    pthread_mutex_lock(&w->mu);
    w->st.last_activity_us = base_monotime();
    if (url)
        snprintf(w->st.last_url, sizeof w->st.last_url, "%s", url);
    /* A redirect re-sends under the same id: one request, still in flight. */
    if (find_locked(w, sid, id) < 0) {
        w->st.started++;
        if (w->n < NW_MAX) {
            snprintf(w->reqs[w->n].sid, 64, "%s", sid);
            snprintf(w->reqs[w->n].id, 64, "%s", id);
            w->n++;
        }
    }
    w->st.inflight = w->n;
    pthread_mutex_unlock(&w->mu);
}

static void on_end(cdp_netwatch *w, const char *sid, const cJSON *params, int failed)
{
    const char *id = jstr(params, "requestId");
    if (!id)
        return;
    pthread_mutex_lock(&w->mu);
    int i = find_locked(w, sid, id);
    if (i >= 0) {
        w->reqs[i] = w->reqs[--w->n];
        if (failed)
            w->st.failed++;
        else
            w->st.finished++;
    }
    w->st.inflight = w->n;
    w->st.last_activity_us = base_monotime();
    pthread_mutex_unlock(&w->mu);
}

static void on_response(cdp_netwatch *w, const cJSON *params)
{
    const char *type = jstr(params, "type");
    const char *frame = jstr(params, "frameId");
    /* The main frame's id is the page target's id. */
    if (!type || strcmp(type, "Document") != 0 || !frame ||
        strcmp(frame, cdp_page_target_id(w->page)) != 0)
        return;
    const cJSON *resp = cJSON_GetObjectItemCaseSensitive(params, "response");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(resp, "status");
    const char *url = jstr(resp, "url");
    pthread_mutex_lock(&w->mu);
    w->st.doc_status = cJSON_IsNumber(status) ? (int)status->valuedouble : 0;
    snprintf(w->st.doc_url, sizeof w->st.doc_url, "%s", url ? url : "");
    w->st.doc_seq++;
    pthread_mutex_unlock(&w->mu);
}

static void enable_async(cdp_netwatch *w, const char *sid)
{
    cdp_call_async(w->conn, sid, "Network.enable", NULL, 10000, ignore_reply, NULL);
}

static void on_event(const char *sid, const char *method, const cJSON *params, void *user)
{
    cdp_netwatch *w = user;
    int net = strncmp(method, "Network.", 8) == 0;
    int target = strncmp(method, "Target.", 7) == 0;
    if ((!net && !target) || !sid || !cdp_page_owns_session(w->page, sid))
        return;
    if (strcmp(method, "Network.requestWillBeSent") == 0) {
        on_request(w, sid, params);
    } else if (strcmp(method, "Network.loadingFinished") == 0) {
        on_end(w, sid, params, 0);
    } else if (strcmp(method, "Network.loadingFailed") == 0) {
        on_end(w, sid, params, 1);
    } else if (strcmp(method, "Network.responseReceived") == 0) {
        on_response(w, params);
    } else if (strcmp(method, "Target.attachedToTarget") == 0) {
        /* A new out-of-process iframe: count its requests too. */
        const char *child = jstr(params, "sessionId");
        const char *type = jstr(cJSON_GetObjectItemCaseSensitive(params, "targetInfo"), "type");
        if (child && type && strcmp(type, "iframe") == 0)
            enable_async(w, child);
    } else if (strcmp(method, "Target.detachedFromTarget") == 0) {
        /* Its requests will never report an end. */
        const char *child = jstr(params, "sessionId");
        pthread_mutex_lock(&w->mu);
        for (int i = 0; child && i < w->n;) {
            if (strcmp(w->reqs[i].sid, child) == 0)
                w->reqs[i] = w->reqs[--w->n];
            else
                i++;
        }
        w->st.inflight = w->n;
        pthread_mutex_unlock(&w->mu);
    }
}

base_err cdp_netwatch_create(cdp_page *p, cdp_netwatch **out, char *err)
{
    if (!p || !out)
        return base_errf(err, BASE_EINVAL, "netwatch: needs a page");
    cdp_netwatch *w = base_calloc(1, sizeof *w);
    if (!w)
        return base_errf(err, BASE_ENOMEM, "netwatch: out of memory");
    w->page = p;
    w->conn = cdp_page_conn(p);
    pthread_mutex_init(&w->mu, NULL);
    /* Subscribe first so that no request of the enabled domain is missed. */
    w->sub = cdp_subscribe(w->conn, NULL, NULL, on_event, w);
    base_err e;
    if (w->sub < 0) {
        e = base_errf(err, BASE_ENOMEM, "netwatch: cannot subscribe to events");
        goto fail;
    }
    e = cdp_page_call(p, "Network.enable", NULL, NULL, 10000, err);
    if (e)
        goto fail;
    cdp_frame frames[64];
    int nf = cdp_page_frames(p, frames, 64);
    for (int i = 0; i < nf && i < 64; i++) {
        if (frames[i].oopif && frames[i].session[0])
            enable_async(w, frames[i].session);
    }
    *out = w;
    return BASE_OK;
fail:
    if (w->sub > 0)
        cdp_unsubscribe(w->conn, w->sub);
    pthread_mutex_destroy(&w->mu);
    base_free(w);
    return e;
}

void cdp_netwatch_destroy(cdp_netwatch *w)
{
    if (!w)
        return;
    cdp_unsubscribe(w->conn, w->sub);
    if (cdp_page_alive(w->page))
        cdp_page_call(w->page, "Network.disable", NULL, NULL, 2000, NULL);
    pthread_mutex_destroy(&w->mu);
    base_free(w);
}

void cdp_netwatch_get(cdp_netwatch *w, cdp_netstat *out)
{
    pthread_mutex_lock(&w->mu);
    *out = w->st;
    pthread_mutex_unlock(&w->mu);
}

base_err cdp_netwatch_wait_idle(cdp_netwatch *w, int idle_ms, int timeout_ms, cdp_netstat *last,
                                char *err)
{
    if (!w || idle_ms < 0 || timeout_ms < 0)
        return base_errf(err, BASE_EINVAL, "netwatch: bad wait arguments");
    int64_t t0 = base_monotime();
    int64_t deadline = t0 + (int64_t)timeout_ms * 1000;
    cdp_netstat st;
    for (;;) {
        cdp_netwatch_get(w, &st);
        int64_t now = base_monotime();
        /* Quiet since the last event, and at least idle_ms since the wait
         * began: a request a click schedules after a debounce must still
         * be seen. */
        int64_t quiet_from = st.last_activity_us > t0 ? st.last_activity_us : t0;
        if (st.inflight == 0 && now - quiet_from >= (int64_t)idle_ms * 1000) {
            if (last)
                *last = st;
            return BASE_OK;
        }
        char why[200];
        base_err pe = cdp_page_status(w->page, why, sizeof why);
        if (pe) {
            if (last)
                *last = st;
            return base_errf(err, BASE_ECLOSED, "network idle: %s", why);
        }
        if (now >= deadline) {
            if (last)
                *last = st;
            if (st.inflight > 0)
                return base_errf(err, BASE_ETIMEDOUT,
                                 "network not idle after %d ms: %d request%s in flight (latest "
                                 "%.120s)",
                                 timeout_ms, st.inflight, st.inflight == 1 ? "" : "s",
                                 st.last_url);
            return base_errf(err, BASE_ETIMEDOUT,
                             "network not idle after %d ms: requests kept starting (latest "
                             "%.120s), never quiet for %d ms",
                             timeout_ms, st.last_url, idle_ms);
        }
        int64_t left_ms = (deadline - now) / 1000;
        if (base_interrupt_sleep_ms(left_ms < 20 ? (double)(left_ms > 0 ? left_ms : 1) : 20.0)) {
            if (last)
                *last = st;
            return base_errf(err, BASE_ECANCELED, "network idle: interrupted by %s",
                             base_signal_name(base_interrupted()));
        }
    }
}

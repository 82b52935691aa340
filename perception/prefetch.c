/* perception/prefetch.c: the prefetch thread and immutable vision epochs
 * (seed 002 §4.3 "asynchronous prefetch", the producer side of Algorithm 2).
 *
 * One thread per prefetcher runs passes: fingerprint -> capture (+ decode)
 * -> provider detect -> DOM enrichment -> a new epoch. Requests coalesce: a
 * schedule() while a request is still waiting to start joins that request
 * (the newest context wins), so a burst of actions costs one pass. A request
 * made while a pass runs waits for the next pass, since the running one may
 * have captured the page before the action.
 *
 * Publication is an atomic pointer exchange of an epoch that is complete and
 * never written again. Readers pin an epoch with a reference count. The one
 * race a bare refcount cannot close — a reader has loaded the pointer but not
 * yet counted its reference when the publisher drops the old epoch — is
 * closed by a reader counter on the slot: a reader announces itself, loads,
 * counts its reference and leaves; the publisher, after the exchange, waits
 * until no reader is inside before dropping its own reference to the old
 * epoch. Readers therefore never block, and never see a freed or half-built
 * epoch.
 *
 * Ticket bookkeeping (mutex mu): `started` is the id given to the last pass
 * that began; a waiting request will run as started + 1, which is the ticket
 * schedule() returns. `completed` is the last pass that ended (published or
 * failed) and `published` the id of the current epoch.
 */
#include "perception/prefetch.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "perception/capture.h"

/* A deep copy of a perc_vision_ctx, owned by the prefetcher. */
typedef struct ctx_copy {
    perc_vision_ctx c;
    char *url, *subgoal, *previous_url;
    char **expected;
    perc_box *previous;
} ctx_copy;

struct perc_prefetch {
    cdp_page *page;
    perc_vision *v;
    perc_prefetch_opts o;
    pthread_t th;
    int th_started;
    pthread_mutex_t mu;
    pthread_cond_t work; /* a request arrived or stop */
    pthread_cond_t done; /* a pass ended */
    int stop;
    int pending;      /* a request waits to start */
    ctx_copy pctx;    /* its context */
    uint64_t started; /* id of the last pass that began */
    uint64_t completed;
    uint64_t published;
    char last_err[BASE_ERRBUF_SIZE];
    _Atomic(perc_epoch *) cur;
    atomic_int readers;
};

/* ---------- epochs ---------- */

void perc_epoch_acquire(perc_epoch *e)
{
    if (e)
        __atomic_fetch_add(&e->refs, 1, __ATOMIC_RELAXED);
}

void perc_epoch_release(perc_epoch *e)
{
    if (!e)
        return;
    if (__atomic_fetch_sub(&e->refs, 1, __ATOMIC_ACQ_REL) != 1)
        return;
    base_free(e->boxes);
    base_free(e->map);
    img_fini(&e->shot);
    base_free(e);
}

perc_epoch *perc_prefetch_current(perc_prefetch *pf)
{
    if (!pf)
        return NULL;
    atomic_fetch_add(&pf->readers, 1);
    perc_epoch *e = atomic_load(&pf->cur);
    perc_epoch_acquire(e);
    atomic_fetch_sub(&pf->readers, 1);
    return e;
}

/* Publisher side: swaps e in, waits out readers that may hold the old
 * pointer uncounted, then drops the slot's reference to the old epoch. */
static void publish(perc_prefetch *pf, perc_epoch *e)
{
    perc_epoch *old = atomic_exchange(&pf->cur, e);
    while (atomic_load(&pf->readers) != 0)
        sched_yield();
    perc_epoch_release(old);
}

/* ---------- contexts ---------- */

static void ctx_free(ctx_copy *x)
{
    base_free(x->url);
    base_free(x->subgoal);
    base_free(x->previous_url);
    for (int i = 0; x->expected && i < x->c.n_expected; i++)
        base_free(x->expected[i]);
    base_free(x->expected);
    base_free(x->previous);
    memset(x, 0, sizeof *x);
}

/* Deep-copies src (NULL: an empty context). 0, or -1 on allocation failure
 * (x is then empty). */
static int ctx_dup(ctx_copy *x, const perc_vision_ctx *src)
{
    memset(x, 0, sizeof *x);
    if (!src)
        return 0;
    int bad = 0;
    if (src->url && !(x->url = base_strdup(src->url)))
        bad = 1;
    if (src->subgoal && !(x->subgoal = base_strdup(src->subgoal)))
        bad = 1;
    if (src->previous_url && !(x->previous_url = base_strdup(src->previous_url)))
        bad = 1;
    if (src->n_expected > 0 && src->expected) {
        x->expected = base_calloc((size_t)src->n_expected, sizeof *x->expected);
        if (!x->expected)
            bad = 1;
        for (int i = 0; x->expected && i < src->n_expected; i++) {
            x->expected[i] = base_strdup(src->expected[i] ? src->expected[i] : "");
            if (!x->expected[i])
                bad = 1;
        }
        x->c.n_expected = src->n_expected;
    }
    if (src->n_previous > 0 && src->previous) {
        x->previous = base_malloc((size_t)src->n_previous * sizeof *x->previous);
        if (x->previous)
            memcpy(x->previous, src->previous, (size_t)src->n_previous * sizeof *x->previous);
        else
            bad = 1;
        x->c.n_previous = src->n_previous;
    }
    if (bad) {
        ctx_free(x);
        return -1;
    }
    x->c.url = x->url;
    x->c.subgoal = x->subgoal;
    x->c.previous_url = x->previous_url;
    x->c.expected = (const char *const *)x->expected;
    x->c.previous = x->previous;
    x->c.previous_age_ms = src->previous_age_ms;
    x->c.deadline_ms = src->deadline_ms;
    return 0;
}

/* ---------- one pass ---------- */

static base_err run_pass(perc_prefetch *pf, uint64_t id, const ctx_copy *cx, perc_epoch **out,
                         char *err)
{
    perc_epoch *e = base_calloc(1, sizeof *e);
    if (!e)
        return base_errf(err, BASE_ENOMEM, "prefetch: out of memory");
    e->id = id;
    e->refs = 1;
    base_err r = perc_fingerprint_take(pf->page, &e->fp, err);
    if (r)
        goto fail;
    snprintf(e->url, sizeof e->url, "%s", e->fp.url);
    e->taken_at_ms = base_monotime_ms();
    perc_capture_opts co;
    perc_capture_opts_init(&co);
    perc_capture_timing ct;
    memset(&ct, 0, sizeof ct);
    /* A provider that reads the DOM only (dom) needs no screenshot, unless
     * the caller keeps them for overlays: ~35 ms saved per pass. */
    if ((pf->o.keep_shot || pf->v->ops->needs_pixels) &&
        (r = perc_capture(pf->page, &co, &e->shot, &ct, err)))
        goto fail;
    e->capture_ms = ct.call_ms + ct.b64_ms;
    e->decode_ms = ct.decode_ms;

    /* The provider sees the caller's context; when the caller gave no
     * previous pass, the current epoch is it (Set-of-Marks anchoring). */
    perc_vision_ctx vc = cx->c;
    perc_epoch *prev = NULL;
    if (!vc.previous) {
        prev = perc_prefetch_current(pf);
        if (prev) {
            vc.previous = prev->boxes;
            vc.n_previous = prev->n;
            vc.previous_age_ms = e->taken_at_ms - prev->taken_at_ms;
            vc.previous_url = prev->url;
        }
    }
    if (!vc.url)
        vc.url = e->url;
    perc_detection d;
    double t0 = base_monotime_ms();
    r = perc_vision_detect(pf->v, pf->page, &e->shot, &vc, &d, err);
    e->vision_ms = base_monotime_ms() - t0;
    perc_epoch_release(prev);
    if (r)
        goto fail;
    t0 = base_monotime_ms();
    r = perc_vision_enrich(pf->page, &d, &e->map, &e->n_map, err);
    e->enrich_ms = base_monotime_ms() - t0;
    if (r) {
        perc_detection_fini(&d);
        goto fail;
    }
    e->boxes = d.boxes;
    e->n = d.n;
    snprintf(e->page_type, sizeof e->page_type, "%s", d.page_type);
    if (!pf->o.keep_shot)
        img_fini(&e->shot);
    *out = e;
    return BASE_OK;
fail:
    perc_epoch_release(e);
    return r;
}

static void *thread_main(void *arg)
{
    perc_prefetch *pf = arg;
    pthread_mutex_lock(&pf->mu);
    for (;;) {
        while (!pf->stop && !pf->pending)
            pthread_cond_wait(&pf->work, &pf->mu);
        if (pf->stop)
            break;
        ctx_copy cx = pf->pctx;
        memset(&pf->pctx, 0, sizeof pf->pctx);
        pf->pending = 0;
        uint64_t id = ++pf->started;
        pthread_mutex_unlock(&pf->mu);

        char err[BASE_ERRBUF_SIZE] = "";
        perc_epoch *e = NULL;
        base_err r = run_pass(pf, id, &cx, &e, err);
        ctx_free(&cx);
        if (r == BASE_OK)
            publish(pf, e);
        else
            base_log(BASE_LOG_PERC, BASE_LOG_WARN, "prefetch pass %llu failed: %s",
                     (unsigned long long)id, err);

        pthread_mutex_lock(&pf->mu);
        pf->completed = id;
        if (r == BASE_OK) {
            pf->published = id;
            pf->last_err[0] = '\0';
        } else {
            snprintf(pf->last_err, sizeof pf->last_err, "%s", err[0] ? err : base_strerror(r));
        }
        pthread_cond_broadcast(&pf->done);
    }
    pthread_mutex_unlock(&pf->mu);
    return NULL;
}

/* ---------- public API ---------- */

base_err perc_prefetch_create(cdp_page *page, perc_vision *v, const perc_prefetch_opts *o,
                              perc_prefetch **out, char *err)
{
    if (!page || !v || !out)
        return base_errf(err, BASE_EINVAL, "prefetch: NULL page, provider or out");
    perc_prefetch *pf = base_calloc(1, sizeof *pf);
    if (!pf)
        return base_errf(err, BASE_ENOMEM, "prefetch: out of memory");
    pf->page = page;
    pf->v = v;
    pf->o.model_width = o && o->model_width > 0 ? o->model_width : 1024;
    pf->o.keep_shot = o ? o->keep_shot : 1;
    atomic_init(&pf->cur, NULL);
    atomic_init(&pf->readers, 0);
    int mu_ok = 0, work_ok = 0, done_ok = 0;
    base_err r = BASE_OK;
    /* The gate compares fingerprints against the epochs' ones, which need
     * the mutation observer in the page. */
    if ((r = perc_fingerprint_install(page, err)))
        goto fail;
    if (pthread_mutex_init(&pf->mu, NULL) != 0) {
        r = base_errf(err, BASE_ENOMEM, "prefetch: mutex init failed");
        goto fail;
    }
    mu_ok = 1;
    if (pthread_cond_init(&pf->work, NULL) != 0) {
        r = base_errf(err, BASE_ENOMEM, "prefetch: condvar init failed");
        goto fail;
    }
    work_ok = 1;
    if (pthread_cond_init(&pf->done, NULL) != 0) {
        r = base_errf(err, BASE_ENOMEM, "prefetch: condvar init failed");
        goto fail;
    }
    done_ok = 1;
    if (pthread_create(&pf->th, NULL, thread_main, pf) != 0) {
        r = base_errf(err, BASE_ENOMEM, "prefetch: cannot start the thread");
        goto fail;
    }
    pf->th_started = 1;
    *out = pf;
    return BASE_OK;
fail:
    if (done_ok)
        pthread_cond_destroy(&pf->done);
    if (work_ok)
        pthread_cond_destroy(&pf->work);
    if (mu_ok)
        pthread_mutex_destroy(&pf->mu);
    base_free(pf);
    return r;
}

void perc_prefetch_destroy(perc_prefetch *pf)
{
    if (!pf)
        return;
    pthread_mutex_lock(&pf->mu);
    pf->stop = 1;
    pthread_cond_broadcast(&pf->work);
    pthread_cond_broadcast(&pf->done);
    pthread_mutex_unlock(&pf->mu);
    /* An in-flight vision request (a stalled endpoint, a long Retry-After)
     * is cancelled rather than waited out; the provider is usable again
     * afterwards (the runner reuses it for a new tab). */
    perc_vision_cancel(pf->v, 1);
    if (pf->th_started)
        pthread_join(pf->th, NULL);
    perc_vision_cancel(pf->v, 0);
    ctx_free(&pf->pctx);
    perc_epoch_release(atomic_exchange(&pf->cur, NULL));
    pthread_cond_destroy(&pf->done);
    pthread_cond_destroy(&pf->work);
    pthread_mutex_destroy(&pf->mu);
    base_free(pf);
}

uint64_t perc_prefetch_schedule(perc_prefetch *pf, const perc_vision_ctx *ctx)
{
    if (!pf)
        return 0;
    ctx_copy x;
    int ok = ctx_dup(&x, ctx) == 0;
    pthread_mutex_lock(&pf->mu);
    if (ok) {
        /* The newest context replaces a waiting one. */
        ctx_free(&pf->pctx);
        pf->pctx = x;
    } else {
        base_log(BASE_LOG_PERC, BASE_LOG_WARN, "prefetch: context dropped (out of memory)");
    }
    pf->pending = 1;
    uint64_t ticket = pf->started + 1;
    pthread_cond_signal(&pf->work);
    pthread_mutex_unlock(&pf->mu);
    return ticket;
}

perc_epoch *perc_prefetch_wait(perc_prefetch *pf, uint64_t ticket, int timeout_ms)
{
    if (!pf)
        return NULL;
    struct timespec ts;
    base_deadline_ts(&ts, timeout_ms > 0 ? timeout_ms : 0);
    pthread_mutex_lock(&pf->mu);
    while (pf->published < ticket && pf->completed < ticket && !pf->stop && timeout_ms > 0) {
        if (pthread_cond_timedwait(&pf->done, &pf->mu, &ts) != 0)
            break;
    }
    perc_epoch *e = NULL;
    if (pf->published >= ticket)
        e = perc_prefetch_current(pf);
    pthread_mutex_unlock(&pf->mu);
    return e;
}

void perc_prefetch_last_error(perc_prefetch *pf, char *buf, size_t n)
{
    if (!buf || n == 0)
        return;
    if (!pf) {
        buf[0] = '\0';
        return;
    }
    pthread_mutex_lock(&pf->mu);
    snprintf(buf, n, "%s", pf->last_err);
    pthread_mutex_unlock(&pf->mu);
}

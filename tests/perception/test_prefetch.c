/* tests/perception/test_prefetch.c: the prefetch thread and its epochs on a real
 * page (tests/fixtures/pages/vision/fp.html): epochs are published in
 * order with the fingerprint, boxes, selector map and screenshot of one
 * moment; schedule() coalesces requests; wait() times out and reports failed
 * passes; readers on several threads never see a torn or freed epoch while
 * passes publish (run this one under TSan too: -DFOVEA_TSAN=ON). */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"
#include "harness.h"
#include "perception/prefetch.h"
#include "slow_provider.h"
#include "vision_util.h"

static cdp_page *open_page(void)
{
    return harness_open(800, 600, 1, "/vision/fp.html");
}

static void publishes_in_order(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = open_page();
    CHECK(p);
    slow_provider *sp = slow_provider_create(0);
    CHECK(sp);
    perc_prefetch *pf = NULL;
    char err[256] = "";
    CHECK_OK(perc_prefetch_create(p, &sp->base, NULL, &pf, err));
    CHECK(perc_prefetch_current(pf) == NULL);
    uint64_t t1 = perc_prefetch_schedule(pf, NULL);
    CHECK_EQ(t1, 1);
    perc_epoch *e1 = perc_prefetch_wait(pf, t1, 15000);
    CHECK_MSG(e1 != NULL, "no epoch 1");
    CHECK_EQ(e1->id, 1);
    CHECK(e1->n > 0);
    CHECK_EQ(e1->n, e1->n_map);
    CHECK(strstr(e1->url, "/vision/fp.html") != NULL);
    CHECK_EQ(e1->shot.w, 800);
    CHECK_EQ(e1->shot.h, 600);
    CHECK(e1->capture_ms > 0 && e1->enrich_ms > 0);
    perc_fingerprint now;
    CHECK_OK(perc_fingerprint_take(p, &now, err));
    CHECK(perc_fingerprint_equal(&now, &e1->fp));

    /* A mutation, a new pass: epoch 2 sees the new button, epoch 1 is
     * unchanged (immutable) and still readable while we hold it. */
    CHECK_OK(vu_eval(p, "{const b = document.createElement('button'); b.textContent = 'Fresh';"
                        "document.body.prepend(b);}"));
    uint64_t t2 = perc_prefetch_schedule(pf, NULL);
    CHECK_EQ(t2, 2);
    perc_epoch *e2 = perc_prefetch_wait(pf, t2, 15000);
    CHECK(e2 != NULL);
    CHECK_EQ(e2->id, 2);
    CHECK_EQ(e2->n, e1->n + 1);
    int found = 0;
    for (int i = 0; i < e2->n; i++)
        found |= strcmp(e2->boxes[i].label, "Fresh") == 0;
    CHECK(found);
    CHECK(!perc_fingerprint_equal(&e1->fp, &e2->fp));
    perc_epoch *cur = perc_prefetch_current(pf);
    CHECK(cur == e2);
    perc_epoch_release(cur);
    perc_epoch_release(e1);
    perc_epoch_release(e2);
    /* Ticket 0 and an old ticket return the current epoch at once. */
    perc_epoch *e0 = perc_prefetch_wait(pf, 0, 0);
    CHECK(e0 && e0->id == 2);
    perc_epoch_release(e0);
    e0 = perc_prefetch_wait(pf, 1, 0);
    CHECK(e0 && e0->id == 2);
    perc_epoch_release(e0);
    CHECK_EQ(atomic_load(&sp->calls), 2);
    perc_prefetch_destroy(pf);
    perc_vision_destroy(&sp->base);
    cdp_page_close(p);
}

static void coalesces(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = open_page();
    CHECK(p);
    slow_provider *sp = slow_provider_create(400);
    CHECK(sp);
    perc_prefetch *pf = NULL;
    CHECK_OK(perc_prefetch_create(p, &sp->base, NULL, &pf, NULL));
    uint64_t t1 = perc_prefetch_schedule(pf, NULL);
    /* Wait until pass 1 is inside the provider, then schedule a burst: all
     * requests made while it runs join one request for pass 2. */
    for (int i = 0; i < 500 && atomic_load(&sp->calls) == 0; i++)
        base_sleep_ms(10);
    CHECK_EQ(atomic_load(&sp->calls), 1);
    const char *exp[] = {"OK"};
    perc_vision_ctx cx = {.url = "x", .subgoal = "click first", .expected = exp, .n_expected = 1};
    uint64_t a = perc_prefetch_schedule(pf, &cx);
    uint64_t b = perc_prefetch_schedule(pf, NULL);
    uint64_t c = perc_prefetch_schedule(pf, &cx);
    CHECK_EQ(a, t1 + 1);
    CHECK_EQ(b, a);
    CHECK_EQ(c, a);
    perc_epoch *e = perc_prefetch_wait(pf, c, 15000);
    CHECK(e && e->id == c);
    perc_epoch_release(e);
    base_sleep_ms(600);
    e = perc_prefetch_current(pf);
    CHECK(e && e->id == c); /* nothing more was run */
    perc_epoch_release(e);
    CHECK_EQ(atomic_load(&sp->calls), 2);
    perc_prefetch_destroy(pf);
    perc_vision_destroy(&sp->base);
    cdp_page_close(p);
}

static void timeout_and_failure(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = open_page();
    CHECK(p);
    slow_provider *sp = slow_provider_create(800);
    CHECK(sp);
    perc_prefetch *pf = NULL;
    CHECK_OK(perc_prefetch_create(p, &sp->base, NULL, &pf, NULL));
    uint64_t t = perc_prefetch_schedule(pf, NULL);
    double t0 = base_monotime_ms();
    perc_epoch *e = perc_prefetch_wait(pf, t, 100);
    double waited = base_monotime_ms() - t0;
    CHECK(e == NULL);
    CHECK_MSG(waited >= 90 && waited < 600, "waited %.0f ms", waited);
    e = perc_prefetch_wait(pf, t, 15000);
    CHECK(e && e->id == t);
    perc_epoch_release(e);

    /* A failing pass ends the wait early and leaves its error. */
    atomic_store(&sp->fail, 1);
    atomic_store(&sp->delay_ms, 50);
    t = perc_prefetch_schedule(pf, NULL);
    t0 = base_monotime_ms();
    e = perc_prefetch_wait(pf, t, 10000);
    CHECK(e == NULL);
    CHECK_MSG(base_monotime_ms() - t0 < 5000, "failure did not end the wait");
    char buf[256];
    perc_prefetch_last_error(pf, buf, sizeof buf);
    CHECK_MSG(strstr(buf, "told to fail") != NULL, "last error '%s'", buf);
    e = perc_prefetch_current(pf); /* the previous epoch stays current */
    CHECK(e && e->id == t - 1);
    perc_epoch_release(e);

    /* Destroy with a pass in flight: waits for it, no leak (ASan). */
    atomic_store(&sp->fail, 0);
    atomic_store(&sp->delay_ms, 300);
    perc_prefetch_schedule(pf, NULL);
    base_sleep_ms(50);
    perc_prefetch_destroy(pf);
    perc_vision_destroy(&sp->base);
    cdp_page_close(p);

    char err[256] = "";
    CHECK_EQ(perc_prefetch_create(NULL, NULL, NULL, &pf, err), BASE_EINVAL);
    CHECK_EQ(perc_prefetch_schedule(NULL, NULL), 0);
    CHECK(perc_prefetch_current(NULL) == NULL);
    perc_prefetch_destroy(NULL);
    perc_epoch_release(NULL);
}

/* ---------- stress: readers never see a torn epoch ---------- */

typedef struct reader_arg {
    perc_prefetch *pf;
    atomic_int *stop;
    long reads;
    int bad;
    char why[160];
} reader_arg;

static void *reader(void *arg)
{
    reader_arg *ra = arg;
    uint64_t last = 0;
    while (!atomic_load(ra->stop) && !ra->bad) {
        perc_epoch *e = perc_prefetch_current(ra->pf);
        if (!e)
            continue;
        ra->reads++;
        /* Invariants every complete epoch of the dom provider holds. */
        if (e->id < last) {
            snprintf(ra->why, sizeof ra->why, "epoch id went back %llu -> %llu",
                     (unsigned long long)last, (unsigned long long)e->id);
            ra->bad = 1;
        }
        last = e->id;
        if (e->n != e->n_map || !e->url[0] || e->shot.w != 800) {
            snprintf(ra->why, sizeof ra->why, "epoch %llu: n %d map %d",
                     (unsigned long long)e->id, e->n, e->n_map);
            ra->bad = 1;
        }
        for (int i = 0; i < e->n && !ra->bad; i++) {
            const perc_box *b = &e->boxes[i];
            if (b->id != i + 1 || b->dom_index != i || b->r.x0 != e->map[b->dom_index].r.x0) {
                snprintf(ra->why, sizeof ra->why, "epoch %llu: box %d torn",
                         (unsigned long long)e->id, i);
                ra->bad = 1;
            }
        }
        perc_epoch_release(e);
    }
    return NULL;
}

static void stress_readers(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = open_page();
    CHECK(p);
    perc_vision *v = NULL;
    CHECK_OK(perc_vision_dom_create(&v, NULL));
    perc_prefetch *pf = NULL;
    perc_prefetch_opts po = {0, 1};
    CHECK_OK(perc_prefetch_create(p, v, &po, &pf, NULL));
    atomic_int stop;
    atomic_init(&stop, 0);
    enum { NR = 4 };
    reader_arg ra[NR];
    pthread_t th[NR];
    for (int i = 0; i < NR; i++) {
        memset(&ra[i], 0, sizeof ra[i]);
        ra[i].pf = pf;
        ra[i].stop = &stop;
        CHECK(pthread_create(&th[i], NULL, reader, &ra[i]) == 0);
    }
    /* 12 passes, each after a mutation that changes the box count. */
    uint64_t last = 0;
    for (int round = 0; round < 12; round++) {
        char js[160];
        snprintf(js, sizeof js,
                 "{const b = document.createElement('button'); b.textContent = 'R%d';"
                 "document.body.prepend(b);}",
                 round);
        if (vu_eval(p, js))
            break;
        uint64_t t = perc_prefetch_schedule(pf, NULL);
        perc_epoch *e = perc_prefetch_wait(pf, t, 15000);
        if (!e)
            break;
        last = e->id;
        perc_epoch_release(e);
    }
    atomic_store(&stop, 1);
    long reads = 0;
    for (int i = 0; i < NR; i++) {
        pthread_join(th[i], NULL);
        reads += ra[i].reads;
    }
    for (int i = 0; i < NR; i++)
        CHECK_MSG(!ra[i].bad, "reader %d: %s", i, ra[i].why);
    CHECK_EQ(last, 12);
    CHECK_MSG(reads > 100, "only %ld reads", reads);
    perc_prefetch_destroy(pf);
    perc_vision_destroy(v);
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"publishes_in_order", publishes_in_order},
    {"coalesces", coalesces},
    {"timeout_and_failure", timeout_and_failure},
    {"stress_readers", stress_readers},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

/* tests/cascade/test_gate.c: the procedural/declarative gate (seed 002
 * Algorithm 2) on a real page with real prefetch passes. The slow provider
 * (slow_provider.h) is the `dom` provider answering after a delay, standing
 * in for a remote model; everything else is live Chromium. */
#include "cascade/gate.h"
#include "check.h"
#include "harness.h"
#include "perception/slow_provider.h"
#include "perception/vision_util.h"

typedef struct rig {
    cdp_page *page;
    slow_provider *sp;
    perc_prefetch *pf;
} rig;

static int rig_open(rig *r, int delay_ms)
{
    memset(r, 0, sizeof *r);
    r->page = harness_open(800, 600, 1, "/vision/fp.html");
    r->sp = slow_provider_create(delay_ms);
    if (!r->page || !r->sp)
        return -1;
    return perc_prefetch_create(r->page, &r->sp->base, NULL, &r->pf, NULL) ? -1 : 0;
}

static void rig_close(rig *r)
{
    perc_prefetch_destroy(r->pf);
    if (r->sp)
        perc_vision_destroy(&r->sp->base);
    cdp_page_close(r->page);
}

/* The first epoch, published before the test starts. */
static uint64_t first_epoch(rig *r)
{
    uint64_t t = perc_prefetch_schedule(r->pf, NULL);
    perc_epoch *e = perc_prefetch_wait(r->pf, t, 15000);
    uint64_t id = e ? e->id : 0;
    perc_epoch_release(e);
    return id;
}

static void procedural_then_churn(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    rig r;
    CHECK_OK(rig_open(&r, 0));
    uint64_t id = first_epoch(&r);
    CHECK_EQ(id, 1);
    cascade_gate_opts o;
    cascade_gate_opts_init(&o);
    CHECK_EQ(o.mutation_threshold, 25);
    CHECK_EQ(o.soft_timeout_ms, 1500);
    CHECK_EQ(o.hard_timeout_ms, 8000);
    cascade_gate_result g;
    char err[256] = "";
    CHECK_OK(cascade_gate(r.page, r.pf, id, 0, &o, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_PROCEDURAL);
    CHECK(g.epoch && g.epoch->id == 1);
    CHECK_EQ(g.vision_lag, 0);
    CHECK_EQ(g.mutation_delta, 0);
    CHECK(strstr(g.why, "procedural") != NULL);
    perc_epoch_release(g.epoch);

    /* Churn the hashes cannot see: a node added and removed 5 times
     * (10 mutations < 25) keeps the epoch; 20 more rounds cross θ. */
#define CHURN                                                                              \
    "for (let i = 0; i < %d; i++) {"                                                       \
    " const s = document.createElement('span'); document.body.append(s); s.remove(); }"
    char js[256];
    snprintf(js, sizeof js, CHURN, 5);
    CHECK_OK(vu_eval(r.page, js));
    CHECK_OK(cascade_gate(r.page, r.pf, id, 0, &o, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_PROCEDURAL);
    CHECK_EQ(g.mutation_delta, 10);
    perc_epoch_release(g.epoch);
    snprintf(js, sizeof js, CHURN, 20);
    CHECK_OK(vu_eval(r.page, js));
    CHECK_OK(cascade_gate(r.page, r.pf, id, 0, &o, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_DECLARATIVE);
    CHECK_EQ(g.mutation_delta, 50);
    CHECK_MSG(strstr(g.why, "mutation delta over threshold") && strstr(g.why, "scheduled"),
              "why: %s", g.why);
    /* The gate scheduled a pass itself and the fast provider served it. */
    CHECK(g.epoch && g.epoch->id == 2);
    CHECK_EQ(g.vision_lag, 0);
    perc_epoch_release(g.epoch);
    /* The fresh epoch matches the page again: procedural. */
    CHECK_OK(cascade_gate(r.page, r.pf, 2, 0, &o, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_PROCEDURAL);
    perc_epoch_release(g.epoch);
    CHECK_EQ(atomic_load(&r.sp->calls), 2);
    rig_close(&r);
}

static void drift_waits_for_prefetch(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    rig r;
    CHECK_OK(rig_open(&r, 200));
    CHECK_EQ(first_epoch(&r), 1);
    CHECK_OK(vu_eval(r.page, "{const b = document.createElement('button');"
                             "b.textContent = 'New'; document.body.prepend(b);}"));
    uint64_t t = perc_prefetch_schedule(r.pf, NULL);
    cascade_gate_result g;
    char err[256] = "";
    CHECK_OK(cascade_gate(r.page, r.pf, t, 0, NULL, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_DECLARATIVE);
    CHECK_EQ(g.vision_lag, 0);
    CHECK(g.epoch && g.epoch->id == t);
    CHECK_MSG(strstr(g.why, "h_dom changed") != NULL, "why: %s", g.why);
    CHECK(g.wait_ms < 1500);
    perc_epoch_release(g.epoch);
    rig_close(&r);
}

static void vision_lag_soft_and_hard(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    rig r;
    CHECK_OK(rig_open(&r, 0));
    CHECK_EQ(first_epoch(&r), 1);
    /* The provider now takes 2.5 s: longer than the soft timeout, shorter
     * than the hard one. */
    atomic_store(&r.sp->delay_ms, 2500);
    CHECK_OK(vu_eval(r.page, "document.getElementById('para').firstChild.data = 'changed'"));
    uint64_t t = perc_prefetch_schedule(r.pf, NULL);
    cascade_gate_result g;
    char err[256] = "";
    CHECK_OK(cascade_gate(r.page, r.pf, t, 0, NULL, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_DECLARATIVE);
    CHECK_EQ(g.vision_lag, 1);
    CHECK_MSG(g.wait_ms >= 1450 && g.wait_ms < 2400, "waited %.0f ms", g.wait_ms);
    CHECK(g.epoch && g.epoch->id == 1); /* proceeds on the previous epoch */
    CHECK_MSG(strstr(g.why, "[vision_lag]") && strstr(g.why, "h_text changed"), "why: %s",
              g.why);
    perc_epoch_release(g.epoch);

    /* A critical action on the next drift waits past the soft timeout. */
    CHECK_OK(vu_eval(r.page, "document.getElementById('para').firstChild.data = 'again'"));
    base_sleep_ms(1200); /* let pass t finish; the next one starts fresh */
    t = perc_prefetch_schedule(r.pf, NULL);
    CHECK_OK(cascade_gate(r.page, r.pf, t, 1, NULL, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_DECLARATIVE);
    CHECK_EQ(g.vision_lag, 0);
    CHECK(g.epoch && g.epoch->id == t);
    CHECK_MSG(g.wait_ms > 1500 && g.wait_ms < 8000, "waited %.0f ms", g.wait_ms);
    perc_epoch_release(g.epoch);
    rig_close(&r);
}

static void no_epoch_yet(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    rig r;
    CHECK_OK(rig_open(&r, 0));
    cascade_gate_result g;
    char err[256] = "";
    CHECK_OK(cascade_gate(r.page, r.pf, 0, 0, NULL, &g, err));
    CHECK_EQ(g.mode, CASCADE_GATE_DECLARATIVE);
    CHECK(g.epoch && g.epoch->id == 1);
    CHECK_MSG(strstr(g.why, "no vision epoch yet") != NULL, "why: %s", g.why);
    perc_epoch_release(g.epoch);

    cascade_gate_opts o;
    cascade_gate_opts_init(&o);
    o.soft_timeout_ms = -1;
    CHECK_EQ(cascade_gate(r.page, r.pf, 0, 0, &o, &g, err), BASE_EINVAL);
    CHECK_EQ(cascade_gate(NULL, r.pf, 0, 0, NULL, &g, NULL), BASE_EINVAL);
    CHECK_EQ(cascade_gate(r.page, NULL, 0, 0, NULL, &g, NULL), BASE_EINVAL);
    rig_close(&r);
}

static const check_case cases[] = {
    {"procedural_then_churn", procedural_then_churn},
    {"drift_waits_for_prefetch", drift_waits_for_prefetch},
    {"vision_lag_soft_and_hard", vision_lag_soft_and_hard},
    {"no_epoch_yet", no_epoch_yet},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

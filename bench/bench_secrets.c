/* bench/bench_secrets.c: what secret handling costs a run.
 *
 *   build/bench/bench_secrets [reps]
 *
 * Per type step the runner reads the field once before typing (is it
 * sensitive?) and, for a secret, once after (what did the field make of
 * it): cascade_field_read on a live page, timed against the plain CDP
 * round trip (Runtime.evaluate "0") in the same process. Per step record
 * every string goes through agent_secrets_scrub (all forms: case, %/+
 * encodings, digit groupings), timed against the exact-match agent_scrub
 * it replaced on the same strings. Per overlay of a run with secrets, the
 * page is searched for secrets shown as text (assets/js/agent_secret_rects.js
 * on the echoing welcome page), again against the plain round trip.
 * Alternating rounds; medians and p90.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_alloc.h"
#include "agent/session/agent_int.h"
#include "agent/session/secrets.h"
#include "agent/session/trace.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/stats.h"
#include "cascade/cascade.h"
#include "harness.h"

#include "agent/session/js.h"

static const char *const texts[] = {
    "type 'Card number' <- '4111111111111111'",
    "typed into <input> 'Card number' at (120,240): typed 16 chars, 0 typos corrected",
    ("http://127.0.0.1:40000/welcome.html?user=ann.lee&pass=p%40ss+w0rd%21&card=4111+1111+1111"
     "+1111&promo=SPRING-SALE"),
    "Request: ?user=ann.lee&pass=p%40ss+w0rd%21&card=4111+1111+1111+1111&promo=SPRING-SALE",
    "pass: p@ss w0rd!",
    "card: 4111 1111 1111 1111",
    "[V3] 'Card number' at (240,188)",
    "no box for 'Sign in' in 7 vision boxes (epoch 12)",
    "declarative: target not in the epoch: waited for fresh vision",
    "Signed in as ann.lee",
};
#define NT (sizeof texts / sizeof texts[0])

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    int reps = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 300;
    if (reps < 10)
        reps = 10;
    harness *h = harness_get();
    if (!h) {
        fprintf(stderr, "bench_secrets: %s\n", harness_error());
        return 1;
    }
    cdp_page *page = harness_open(1280, 800, 1, "/lifecycle/login.html");
    cascade_hand *hand = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (!page || cascade_hand_create(page, NULL, &hand, err) != BASE_OK) {
        fprintf(stderr, "bench_secrets: %s\n", err);
        return 1;
    }
    agent_secrets *sec = NULL;
    agent_secrets_create(&sec, NULL);
    agent_secrets_add(sec, "p@ss w0rd!");
    agent_secrets_add(sec, "4111111111111111");
    agent_secrets_add(sec, "4111 1111 1111 1111");
    agent_secrets_add(sec, "spring-sale");
    const char *old[] = {"p@ss w0rd!", "4111111111111111", "spring-sale"};
    double *rt = base_calloc((size_t)reps, sizeof *rt), *fr = base_calloc((size_t)reps, sizeof *fr);
    double *sn = base_calloc((size_t)reps, sizeof *sn), *so = base_calloc((size_t)reps, sizeof *so);
    cascade_target t;
    memset(&t, 0, sizeof t);
    t.xpath = "//input[@id='card']";
    for (int i = 0; i < reps; i++) {
        double t0 = base_monotime_ms();
        cJSON *v = NULL;
        cdp_page_evaluate(page, "0", &v, 5000, NULL);
        cJSON_Delete(v);
        rt[i] = base_monotime_ms() - t0;
        cascade_field_info fi;
        t0 = base_monotime_ms();
        if (cascade_field_read(hand, &t, &fi, err) != BASE_OK || !fi.found) {
            fprintf(stderr, "bench_secrets: field: %s\n", err);
            return 1;
        }
        fr[i] = base_monotime_ms() - t0;
        cascade_field_info_fini(&fi);
        char buf[NT][512];
        for (size_t k = 0; k < NT; k++)
            snprintf(buf[k], sizeof buf[k], "%s", texts[k]);
        t0 = base_monotime_ms();
        for (size_t k = 0; k < NT; k++)
            agent_secrets_scrub(sec, buf[k], sizeof buf[k]);
        sn[i] = (base_monotime_ms() - t0) * 1000.0;
        for (size_t k = 0; k < NT; k++)
            snprintf(buf[k], sizeof buf[k], "%s", texts[k]);
        t0 = base_monotime_ms();
        for (size_t k = 0; k < NT; k++)
            agent_scrub(buf[k], sizeof buf[k], old, 3);
        so[i] = (base_monotime_ms() - t0) * 1000.0;
    }
    /* The page-side search, on the page that echoes the secrets. */
    char url[512];
    harness_url(0,
                "/lifecycle/welcome.html?user=ann.lee&pass=p%40ss+w0rd%21&card=4111+1111+1111+"
                "1111&promo=SPRING-SALE",
                url, sizeof url);
    if (cdp_page_navigate(page, url, 20000, err) != BASE_OK) {
        fprintf(stderr, "bench_secrets: %s\n", err);
        return 1;
    }
    char *forms = agent_secrets_json(sec);
    size_t en = strlen((const char *)fovea_js_agent_secret_rects) + strlen(forms) + 8;
    char *expr = base_malloc(en);
    snprintf(expr, en, "(%s)(%s)", (const char *)fovea_js_agent_secret_rects, forms);
    double *rr = base_calloc((size_t)reps, sizeof *rr), *r0 = base_calloc((size_t)reps, sizeof *r0);
    double *ri = base_calloc((size_t)reps, sizeof *ri);
    int found = 0, found_iso = 0;
    for (int i = 0; i < reps; i++) {
        double t0 = base_monotime_ms();
        cJSON *v = NULL;
        cdp_page_evaluate(page, "0", &v, 5000, NULL);
        cJSON_Delete(v);
        r0[i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        v = NULL;
        cdp_page_evaluate(page, expr, &v, 5000, NULL);
        rr[i] = base_monotime_ms() - t0;
        found = cJSON_GetArraySize(v);
        cJSON_Delete(v);
        /* What the runner does: the same search in a fresh isolated world. */
        base_rect rects[64];
        t0 = base_monotime_ms();
        found_iso = agent__secret_rects(page, sec, rects, 64);
        ri[i] = base_monotime_ms() - t0;
    }
    base_summary e3 = base_summarize(ri, reps);
    base_free(ri);
    base_summary e1 = base_summarize(r0, reps), e2 = base_summarize(rr, reps);
    base_free(expr);
    base_free(forms);
    base_free(rr);
    base_free(r0);
    base_summary a = base_summarize(rt, reps), b = base_summarize(fr, reps);
    base_summary c = base_summarize(sn, reps), d = base_summarize(so, reps);
    printf("reps %d\n", reps);
    printf("cdp round trip (baseline)   median %.3f ms  p90 %.3f ms\n", a.median, a.p90);
    printf("cascade_field_read          median %.3f ms  p90 %.3f ms  ratio %.2f\n", b.median, b.p90,
           a.median > 0 ? b.median / a.median : 0);
    printf("scrub record, exact (old)   median %.1f us  p90 %.1f us\n", d.median, d.p90);
    printf("scrub record, all forms     median %.1f us  p90 %.1f us  ratio %.2f\n", c.median, c.p90,
           d.median > 0 ? c.median / d.median : 0);
    printf("cdp round trip (baseline)   median %.3f ms  p90 %.3f ms\n", e1.median, e1.p90);
    printf("secret text search (page)   median %.3f ms  p90 %.3f ms  ratio %.2f  (%d rects)\n",
           e2.median, e2.p90, e1.median > 0 ? e2.median / e1.median : 0, found);
    printf("same, isolated world (run)  median %.3f ms  p90 %.3f ms  ratio %.2f  (%d rects)\n",
           e3.median, e3.p90, e1.median > 0 ? e3.median / e1.median : 0, found_iso);
    base_free(rt);
    base_free(fr);
    base_free(sn);
    base_free(so);
    agent_secrets_destroy(sec);
    cascade_hand_destroy(hand);
    cdp_page_close(page);
    return 0;
}

/* bench/bench_click.c: click latency of the hand (cascade_click) on
 * tests/fixtures/pages/hand/bench.html, the C half of bench/run_click.sh.
 *
 *   bench_click [--reps N] [--human N] [--seed S]
 *
 * Launches Chromium (fovea's launcher, the same flags the Node half passes to
 * Playwright), serves the fixture pages on 127.0.0.1, and times:
 *   - N no-humanize clicks on button A by XPath (probe evaluate, one
 *     pipelined move+press+release, effect check: the whole tier-1 cascade);
 *   - N no-humanize clicks at a bare point;
 *   - H humanized clicks alternating between buttons A and B (Bezier path,
 *     hesitation, hold), reported against Algorithm 6's bounds.
 * Prints one JSON object on stdout. Every click must succeed and arrive
 * trusted, else the bench fails (exit 1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "serve/httpd.h"
#include "base/json_alloc.h"
#include "base/stats.h"
#include "cascade/cascade.h"
#include "cdp/browser.h"

static void stats(const char *name, double *v, int n, int last)
{
    base_summary s = base_summarize(v, n);
    printf("  \"%s\": {\"n\": %d, \"min\": %.3f, \"median\": %.3f, \"p90\": %.3f, \"max\": %.3f, "
           "\"mean\": %.3f}%s\n",
           name, n, s.min, s.median, s.p90, s.max, s.mean, last ? "" : ",");
}

static long arg_long(const char *s)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    return end && *end == '\0' && v >= 0 && v < 100000 ? v : -1;
}

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    int reps = 200, human = 30;
    unsigned long long seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = arg_long(argv[i + 1]);
        if (v < 0) {
            fprintf(stderr, "bench_click: bad value %s\n", argv[i + 1]);
            return 2;
        }
        if (!strcmp(argv[i], "--reps") && v > 0)
            reps = (int)v;
        else if (!strcmp(argv[i], "--human"))
            human = (int)v;
        else if (!strcmp(argv[i], "--seed") && v > 0)
            seed = (unsigned long long)v;
        else {
            fprintf(stderr, "usage: bench_click [--reps N] [--human N] [--seed S]\n");
            return 2;
        }
    }
    char err[256] = "";
    serve_httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.root = FOVEA_SOURCE_DIR "/tests/fixtures/pages";
    serve_httpd *srv = NULL;
    cdp_browser *b = NULL;
    cdp_page *p = NULL;
    cascade_hand *h = NULL;
    double *t_xpath = calloc((size_t)reps, sizeof(double));
    double *t_point = calloc((size_t)reps, sizeof(double));
    double *t_human = calloc((size_t)human + 1, sizeof(double));
    int rc = 1;
    if (!t_xpath || !t_point || !t_human)
        goto out;
    if (serve_httpd_start(&ho, &srv, err) || cdp_browser_launch(NULL, &b, err))
        goto out;
    cdp_page_opts po = {800, 600, 1.0, 0};
    char url[512];
    /* BENCH_PAD=N pads the page with N more elements (fields, shadow roots
     * among them), for the cost of the effect check on a large page. */
    const char *pad = getenv("BENCH_PAD");
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hand/bench.html%s%.12s", serve_httpd_port(srv),
             pad && *pad ? "?pad=" : "", pad && *pad ? pad : "");
    if (cdp_page_open(b, &po, &p, err) || cdp_page_navigate(p, url, 15000, err))
        goto out;
    cascade_opts o;
    cascade_opts_init(&o);
    o.humanize = 0;
    o.seed = seed;
    if (cascade_hand_create(p, &o, &h, err))
        goto out;
    cascade_target ta;
    memset(&ta, 0, sizeof ta);
    ta.xpath = "/html[1]/body[1]/button[1]";
    cascade_target tp;
    memset(&tp, 0, sizeof tp);
    tp.pt = (base_point){130, 100};
    tp.have_pt = 1;
    cascade_result r;
    /* Warm-up: installs the page half, JIT-compiles the page's handlers. */
    for (int i = 0; i < 10; i++)
        if (cascade_click(h, &ta, &r, err) || !r.success)
            goto fail_click;
    for (int i = 0; i < reps; i++) {
        double t0 = base_monotime_ms();
        if (cascade_click(h, &ta, &r, err) || !r.success)
            goto fail_click;
        t_xpath[i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        if (cascade_click(h, &tp, &r, err) || !r.success)
            goto fail_click;
        t_point[i] = base_monotime_ms() - t0;
    }
    cascade_hand_destroy(h);
    h = NULL;
    o.humanize = 1;
    if (cascade_hand_create(p, &o, &h, err))
        goto out;
    cascade_target tb = ta;
    tb.xpath = "/html[1]/body[1]/button[2]";
    double dist_sum = 0;
    int within = 0;
    for (int i = 0; i < human; i++) {
        base_point c0 = cascade_hand_cursor(h);
        double t0 = base_monotime_ms();
        if (cascade_click(h, i % 2 ? &ta : &tb, &r, err) || !r.success)
            goto fail_click;
        t_human[i] = base_monotime_ms() - t0;
        /* Algorithm 6 (+ Algorithm 5's waits) for this distance: sweep T =
         * clamp(1.8 d, 100, 800) with U(0,5) ms per waypoint, 2-3 wobble
         * points of 8-18 ms, hesitation in [20, 300], hold in [30, 200]; plus
         * up to 50 ms for the probe and effect evaluates around it. */
        double d = base_point_dist(c0, r.clicked_at);
        double n = fmax(ceil(d / 12), 12), T = fmin(fmax(1.8 * d, 100), 800);
        double lo = T * 0.997 + 16 + 20 + 30, hi = T * 1.003 + 5 * n + 54 + 300 + 200 + 50;
        within += t_human[i] >= lo && t_human[i] <= hi;
        dist_sum += d;
    }
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, "JSON.stringify(window.__clicks)", &v, 5000, err))
        goto out;
    printf("{\n  \"chromium\": \"%s\",\n  \"clicks\": %s,\n", cdp_browser_product(b),
           cJSON_IsString(v) ? v->valuestring : "null");
    cJSON_Delete(v);
    stats("fovea_click_xpath_nohuman_ms", t_xpath, reps, 0);
    stats("fovea_click_point_nohuman_ms", t_point, reps, 0);
    if (human > 0) {
        printf("  \"humanized_mean_distance_px\": %.1f,\n", dist_sum / human);
        printf("  \"alg6_bounds_ms\": {\"sweep\": [100, 800], \"hesitation\": [20, 300], "
               "\"hold\": [30, 200], \"wobble\": [16, 54]},\n");
        printf("  \"humanized_within_alg6_bounds\": \"%d/%d\",\n", within, human);
        stats("fovea_click_humanized_ms", t_human, human, 1);
    } else {
        printf("  \"humanized\": null\n");
    }
    printf("}\n");
    rc = 0;
    goto out;
fail_click:
    fprintf(stderr, "bench_click: click failed: %s %s\n", r.message, err);
out:
    if (rc && err[0])
        fprintf(stderr, "bench_click: %s\n", err);
    cascade_hand_destroy(h);
    cdp_page_close(p);
    cdp_browser_destroy(b);
    serve_httpd_destroy(srv);
    free(t_xpath);
    free(t_point);
    free(t_human);
    return rc;
}

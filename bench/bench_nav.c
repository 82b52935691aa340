/* bench/bench_nav.c: what the navigation guards and checks cost a hop.
 *
 *   build/bench/bench_nav [reps]
 *
 * In one process, on one headless Chromium and the fixture pages
 * (tests/fixtures/pages/nav), alternating rounds of:
 *   raw       cdp_page_navigate between two pages, nothing watching;
 *   netwatch  the same with the Network domain on (cdp_netwatch), which
 *             every session now has from its start;
 *   tool      tool_call "navigate" on a session: the guards, the hop, the
 *             HTTP status, the settle, the challenge detector, the vision
 *             pass scheduled (dom provider);
 *   detect    the challenge detector alone (one evaluate);
 * and, without a browser, agent_guard_check on a relative URL (resolve +
 * parse + site + search-engine + safe-list), 10,000 calls per round.
 * Prints median and p90 per kind, and the ratios to raw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/guard.h"
#include "agent/session/js.h"
#include "agent/session/tool.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/stats.h"
#include "cdp/netwatch.h"
#include "harness.h"

static void report(const char *what, double *v, int n, double base)
{
    base_summary s = base_summarize(v, n);
    printf("%-10s median %8.3f ms  p90 %8.3f ms", what, s.median, s.p90);
    if (base > 0)
        printf("  ratio %.2f", s.median / base);
    printf("\n");
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 30;
    if (reps < 3 || reps > 10000)
        reps = 30;
    harness *h = harness_get();
    if (!h) {
        fprintf(stderr, "bench_nav: %s\n", harness_error());
        return 1;
    }
    char u1[256], u2[256], err[BASE_ERRBUF_SIZE] = "";
    harness_url(0, "/nav/page2.html", u1, sizeof u1);
    harness_url(0, "/nav/page3.html", u2, sizeof u2);
    cdp_page *raw = harness_open(1280, 800, 1, "/nav/start.html");
    cdp_page *watched = harness_open(1280, 800, 1, "/nav/start.html");
    cdp_page *tooled = harness_open(1280, 800, 1, "/nav/start.html");
    cdp_netwatch *w = NULL;
    fovea_session *s = NULL;
    fovea_session_opts o;
    fovea_session_opts_init(&o);
    o.humanize = 0;
    o.overlays = AGENT_OVERLAYS_NONE;
    if (!raw || !watched || !tooled || cdp_netwatch_create(watched, &w, err) ||
        fovea_session_create(tooled, &o, &s, err)) {
        fprintf(stderr, "bench_nav: set-up: %s\n", err);
        return 1;
    }
    double *t_raw = base_calloc((size_t)reps, sizeof(double));
    double *t_net = base_calloc((size_t)reps, sizeof(double));
    double *t_tool = base_calloc((size_t)reps, sizeof(double));
    double *t_det = base_calloc((size_t)reps, sizeof(double));
    double *t_guard = base_calloc((size_t)reps, sizeof(double));
    if (!t_raw || !t_net || !t_tool || !t_det || !t_guard)
        return 1;
    for (int i = 0; i < reps; i++) {
        const char *u = i % 2 ? u1 : u2;
        double t0 = base_monotime_ms();
        if (cdp_page_navigate(raw, u, 10000, err))
            fprintf(stderr, "raw: %s\n", err);
        t_raw[i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        if (cdp_page_navigate(watched, u, 10000, err))
            fprintf(stderr, "netwatch: %s\n", err);
        t_net[i] = base_monotime_ms() - t0;
        char args[300];
        snprintf(args, sizeof args, "{\"url\": \"%s\"}", i % 2 ? "page2.html" : "page3.html");
        tool_result r;
        t0 = base_monotime_ms();
        if (!tool_call(s, "navigate", args, &r))
            fprintf(stderr, "tool: %s\n", r.message);
        t_tool[i] = base_monotime_ms() - t0;
        tool_result_fini(&r);
        cJSON *v = NULL;
        t0 = base_monotime_ms();
        cdp_page_evaluate(tooled, (const char *)fovea_js_nav_challenge, &v, 5000, NULL);
        t_det[i] = base_monotime_ms() - t0;
        cJSON_Delete(v);
        agent_guard_verdict gv;
        t0 = base_monotime_ms();
        for (int k = 0; k < 10000; k++)
            agent_guard_check(u1, "docs.example.org", u2, "../nav/page3.html?tab=new", &gv);
        t_guard[i] = (base_monotime_ms() - t0) / 10000.0;
    }
    base_summary b = base_summarize(t_raw, reps);
    printf("bench_nav: %d rounds, %s\n", reps, cdp_browser_product(h->browser));
    report("raw", t_raw, reps, 0);
    report("netwatch", t_net, reps, b.median);
    report("tool", t_tool, reps, b.median);
    report("detect", t_det, reps, b.median);
    base_summary g = base_summarize(t_guard, reps);
    printf("%-10s median %8.4f us per call\n", "guard", g.median * 1000.0);
    fovea_session_destroy(s);
    cdp_netwatch_destroy(w);
    cdp_page_close(raw);
    cdp_page_close(watched);
    cdp_page_close(tooled);
    base_free(t_raw);
    base_free(t_net);
    base_free(t_tool);
    base_free(t_det);
    base_free(t_guard);
    return 0;
}

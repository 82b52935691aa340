/* bench/bench_probe.c: time of the live snap probe on a 2,000-element page.
 *
 * Opens tests/fixtures/pages/probe/big.html in the harness's headless
 * Chromium and measures, over N runs after a warm-up, (a) perc_probe_box on a
 * list-row box (the whole batched evaluate: 17 lattice + candidate points,
 * stacks, candidate table, parse) and (b) the round trip of a trivial
 * Runtime.evaluate ("1") as the same-run baseline. Prints median and p90 of each, and the time of
 * the first probe of the document (which also installs the script).
 *
 *   build-x/bench/bench_probe [runs] [late]   (default 200; late: no recorder)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/json_alloc.h"
#include "base/stats.h"
#include "harness.h"
#include "perception/kit.h"
#include "perception/probe.h"

static void report(const char *what, double *v, int n)
{
    base_summary s = base_summarize(v, n);
    printf("%-34s median %7.3f ms   p90 %7.3f ms   (n=%d)\n", what, s.median, s.p90, n);
}

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200;
    if (runs < 10 || runs > 100000) {
        fprintf(stderr, "usage: bench_probe [runs >= 10] [late]\n");
        return 2;
    }
    if (!harness_get()) {
        fprintf(stderr, "bench_probe: %s\n", harness_error());
        return 1;
    }
    /* As `fovea run` and the CLI do, the page kit's listener recorder goes
     * in before the page loads; with "late" as the second argument it does
     * not (fovea attached to an open tab: listeners are asked of DOMDebugger). */
    int late = argc > 2 && strcmp(argv[2], "late") == 0;
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    if (!p)
        return 1;
    char err[256] = "";
    char url[512];
    harness_url(0, "/probe/big.html", url, sizeof url);
    if ((!late && perc_kit_install(p, err)) || cdp_page_navigate(p, url, 15000, err)) {
        fprintf(stderr, "bench_probe: %s\n", err);
        return 1;
    }
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, "document.querySelectorAll('*').length", &v, 5000, err)) {
        fprintf(stderr, "bench_probe: %s\n", err);
        return 1;
    }
    int n_el = cJSON_IsNumber(v) ? v->valueint : -1;
    cJSON_Delete(v);
    /* A row in the middle of the viewport: name, tags, a button, a link and
     * a pointer-styled chevron, like a vision box around one list item. */
    v = NULL;
    cdp_page_evaluate(p,
                      "(() => { const r = document.getElementById('r20').getBoundingClientRect();"
                      " return [r.left, r.top, r.right, r.bottom]; })()",
                      &v, 5000, err);
    if (cJSON_GetArraySize(v) != 4) {
        fprintf(stderr, "bench_probe: no row rect\n");
        return 1;
    }
    base_rect box = {
        (float)cJSON_GetArrayItem(v, 0)->valuedouble, (float)cJSON_GetArrayItem(v, 1)->valuedouble,
        (float)cJSON_GetArrayItem(v, 2)->valuedouble, (float)cJSON_GetArrayItem(v, 3)->valuedouble};
    cJSON_Delete(v);
    box.x1 = box.x0 + 640; /* the row's content, not the empty right side */

    /* A box over ten rows: every candidate point slot is used (49 points). */
    base_rect big = {box.x0, box.y0, box.x1, box.y0 + 10.0f * base_rect_h(box)};
    double *probe = base_malloc((size_t)runs * sizeof *probe);
    double *probe_big = base_malloc((size_t)runs * sizeof *probe_big);
    double *trivial = base_malloc((size_t)runs * sizeof *trivial);
    if (!probe || !probe_big || !trivial)
        return 1;
    /* The first probe of a document also installs the script (one extra
     * round trip and the compile); later ones only call it. */
    double first = base_monotime_ms();
    perc_probe fp;
    if (perc_probe_box(p, NULL, box, &fp, err)) {
        fprintf(stderr, "bench_probe: %s\n", err);
        return 1;
    }
    first = base_monotime_ms() - first;
    perc_probe_fini(&fp);
    int n_points = 0, n_cands = 0, n_points_big = 0;
    for (int i = -10; i < runs; i++) {
        double t0 = base_monotime_ms();
        if (cdp_page_evaluate(p, "1", NULL, 5000, err)) {
            fprintf(stderr, "bench_probe: %s\n", err);
            return 1;
        }
        double t1 = base_monotime_ms();
        perc_probe pp;
        if (perc_probe_box(p, NULL, box, &pp, err)) {
            fprintf(stderr, "bench_probe: %s\n", err);
            return 1;
        }
        double t2 = base_monotime_ms();
        n_points = pp.probe.n_points;
        n_cands = pp.n;
        perc_probe_fini(&pp);
        if (perc_probe_box(p, NULL, big, &pp, err)) {
            fprintf(stderr, "bench_probe: %s\n", err);
            return 1;
        }
        double t3 = base_monotime_ms();
        n_points_big = pp.probe.n_points;
        perc_probe_fini(&pp);
        if (i >= 0) {
            trivial[i] = t1 - t0;
            probe[i] = t2 - t1;
            probe_big[i] = t3 - t2;
        }
    }
    printf("page: probe/big.html, %d elements, box %.0fx%.0f px, %d points, %d candidates\n", n_el,
           (double)base_rect_w(box), (double)base_rect_h(box), n_points, n_cands);
    printf("%-34s %7.3f ms\n", "first probe (installs the script)", first);
    report("perc_probe_box (evaluate + parse)", probe, runs);
    char what[64];
    snprintf(what, sizeof what, "same, 10-row box (%d points)", n_points_big);
    report(what, probe_big, runs);
    report("trivial evaluate round trip", trivial, runs);
    base_free(probe_big);
    base_free(probe);
    base_free(trivial);
    cdp_page_close(p);
    return 0;
}

/* bench/bench_read.c: what the reading tools cost on a large page.
 *
 *   build/bench/bench_read [reps] [copies]
 *
 * The documentation fixture (tests/fixtures/pages/read/docs.html) with its
 * <main> repeated `copies` times (default 40: about 2,400 elements, 60
 * tables, 160 KB of text) is read by each page script of the reading
 * tools (assets/js/read_markdown.js, read_search.js) and by the page-text
 * script the extract/assert_text steps already use (agent_text.js, the
 * baseline: innerText plus shadow roots and frames), plus the browser's
 * accessibility tree (Accessibility.getFullAXTree, one frame) and the bare
 * CDP round trip (Runtime.evaluate "0"). Rounds alternate the readers;
 * medians and p90 in ms, and each median's ratio to the page-text script
 * measured in the same rounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/js.h"
#include "agent/session/js_read.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/stats.h"
#include "harness.h"

#define NR 6

static char *with_arg(const unsigned char *js, const char *arg)
{
    size_t n = strlen((const char *)js) + strlen(arg) + 8;
    char *e = base_malloc(n);
    if (e)
        snprintf(e, n, "(%s)(%s)", (const char *)js, arg);
    return e;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 30;
    int copies = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 40;
    if (reps < 5)
        reps = 5;
    if (copies < 1)
        copies = 1;
    harness *h = harness_get();
    if (!h) {
        fprintf(stderr, "bench_read: %s\n", harness_error());
        return 1;
    }
    cdp_page *page = harness_open(1280, 800, 1, "/read/docs.html");
    char err[BASE_ERRBUF_SIZE] = "";
    char grow[256];
    snprintf(grow, sizeof grow,
             "(() => { const m = document.querySelector('main'); const html = m.innerHTML;"
             " for (let i = 1; i < %d; i++) m.insertAdjacentHTML('beforeend', html);"
             " return [document.querySelectorAll('*').length, document.body.innerText.length]; })()",
             copies);
    cJSON *sz = NULL;
    if (!page || cdp_page_evaluate(page, grow, &sz, 20000, err) != BASE_OK) {
        fprintf(stderr, "bench_read: %s\n", err);
        return 1;
    }
    int n_el = cJSON_GetArrayItem(sz, 0)->valueint, n_text = cJSON_GetArrayItem(sz, 1)->valueint;
    cJSON_Delete(sz);
    const char *names[NR] = {"round trip (evaluate \"0\")", "page text (agent_text.js, baseline)",
                             "extract_markdown (read_markdown.js)",
                             "dom_search text (read_search.js)", "dom_search selector \"td code\"",
                             "get_accessibility_tree (CDP)"};
    char *exprs[NR] = {NULL};
    exprs[0] = base_strdup("0");
    exprs[1] = base_strdup((const char *)fovea_js_agent_text);
    exprs[2] = with_arg(fovea_js_read_markdown, "{\"max\":400000}");
    exprs[3] = with_arg(fovea_js_read_search, "{\"text\":\"remove one widget\",\"max\":80}");
    exprs[4] = with_arg(fovea_js_read_search, "{\"css\":\"td code\",\"max\":80}");
    double *t[NR];
    size_t out_len[NR] = {0};
    for (int k = 0; k < NR; k++)
        t[k] = base_calloc((size_t)reps, sizeof(double));
    for (int i = 0; i < reps; i++) {
        for (int k = 0; k < NR; k++) {
            double t0 = base_monotime_ms();
            cJSON *v = NULL;
            base_err e;
            if (k == NR - 1)
                e = cdp_page_call(page, "Accessibility.getFullAXTree", NULL, &v, 20000, err);
            else
                e = cdp_page_evaluate(page, exprs[k], &v, 20000, err);
            t[k][i] = base_monotime_ms() - t0;
            if (e) {
                fprintf(stderr, "bench_read: %s: %s\n", names[k], err);
                return 1;
            }
            char *s = cJSON_PrintUnformatted(v);
            out_len[k] = s ? strlen(s) : 0;
            cJSON_free(s);
            cJSON_Delete(v);
        }
    }
    printf("page: docs.html x%d: %d elements, %d chars of innerText; %d rounds\n", copies, n_el,
           n_text, reps);
    printf("| reader | median ms | p90 ms | vs page text | reply bytes |\n|---|---:|---:|---:|---:|\n");
    base_summary base = base_summarize(t[1], reps);
    for (int k = 0; k < NR; k++) {
        base_summary s = base_summarize(t[k], reps);
        printf("| %s | %.2f | %.2f | %.2f | %zu |\n", names[k], s.median, s.p90,
               s.median / base.median, out_len[k]);
    }
    for (int k = 0; k < NR; k++) {
        base_free(t[k]);
        base_free(exprs[k]);
    }
    cdp_page_close(page);
    return 0;
}

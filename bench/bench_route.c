/* bench/bench_route.c: what the Orchestrator costs (agent/plan/orchestrator.h).
 * Medians of N runs, in one process:
 *   route: agent_orch_route deciding a browser task and a lookup without a
 *     search URL (the classifier's regexes; no I/O), against a baseline of
 *     one strlen of the same task;
 *   search worker: model_http_get of a ~256 KiB results page from a loopback
 *     server, then agent_readable_text on it, against memcpy of the page.
 * Usage: bench_route [N=200]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan/orchestrator.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/json_alloc.h"
#include "base/stats.h"
#include "model/http_get.h"
#include "serve/httpd.h"

static char *page;
static size_t page_len;

static int handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    (void)req;
    (void)user;
    resp->status = 200;
    snprintf(resp->content_type, sizeof resp->content_type, "text/html");
    base_buf_append(&resp->body, page, page_len);
    return 1;
}

static double med(double *v, int n)
{
    return base_summarize(v, n).median;
}

int main(int argc, char **argv)
{
    base_json_alloc_install();
    int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200;
    if (n < 5)
        n = 5;
    double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b),
           *c = calloc((size_t)n, sizeof *c), *d = calloc((size_t)n, sizeof *d);
    size_t cap = 256u << 10;
    page = malloc(cap + 512);
    char *copy = malloc(cap + 512), *text = malloc(AGENT_SEARCH_TEXT_MAX + 1);
    char *full = malloc(cap + 512);
    if (!a || !b || !c || !d || !page || !copy || !text || !full)
        return 1;
    page_len = (size_t)snprintf(page, cap, "<html><head><title>Results</title><script>var x=1;"
                                           "</script></head><body><main>");
    for (int i = 0; page_len + 300 < cap; i++)
        page_len += (size_t)snprintf(page + page_len, cap + 512 - page_len,
                                     "<div class=\"r\"><h3><a href=\"/r/%d\">Result %d &amp; "
                                     "more</a></h3><p>Lisbon is the capital of Portugal; entry "
                                     "%d of the index.</p></div>\n",
                                     i, i, i);
    page_len += (size_t)snprintf(page + page_len, cap + 512 - page_len, "</main></body></html>");

    unsetenv("FOVEA_SEARCH_URL");
    unsetenv("FOVEA_ROUTE_LEARNINGS");
    agent_orch o;
    char err[BASE_ERRBUF_SIZE] = "";
    if (agent_orch_init(&o, err) != BASE_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const char *tasks[2] = {"Book the cheapest flight to Lisbon on 14 June 2026 on ryanair.com",
                            "What is the capital of Portugal?"};
    volatile size_t sink = 0;
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < n; i++) {
            double t0 = base_monotime_ms();
            agent_orch_decision dd;
            agent_orch_route(&o, tasks[t], "https://www.example.com/", &dd, err);
            a[i] = (base_monotime_ms() - t0) * 1000.0;
            agent_orch_decision_fini(&dd);
            t0 = base_monotime_ms();
            sink += strlen(tasks[t]);
            b[i] = (base_monotime_ms() - t0) * 1000.0;
        }
        printf("route %-7s  %8.1f us  (strlen baseline %.2f us)\n", t ? "lookup" : "browser",
               med(a, n), med(b, n));
    }
    agent_orch_fini(&o);

    serve_httpd_opts so;
    memset(&so, 0, sizeof so);
    so.handler = handler;
    serve_httpd *h = NULL;
    if (serve_httpd_start(&so, &h, err) != BASE_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/search?q=x", serve_httpd_port(h));
    for (int i = 0; i < n; i++) {
        double t0 = base_monotime_ms();
        char *body = NULL;
        size_t len = 0;
        err[0] = '\0';
        if (model_http_get(url, 5000, 4u << 20, &body, &len, err) != BASE_OK) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        a[i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        agent_readable_text(body, text, AGENT_SEARCH_TEXT_MAX + 1);
        b[i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        agent_readable_text(body, full, cap + 512);
        d[i] = base_monotime_ms() - t0;
        t0 = base_monotime_ms();
        memcpy(copy, body, len);
        c[i] = base_monotime_ms() - t0;
        sink += (size_t)copy[len / 2] + (size_t)text[0] + (size_t)full[0];
        base_free(body);
    }
    serve_httpd_destroy(h);
    printf("page %zu bytes: GET %.3f ms; readable text (6000-char cap) %.3f ms, whole page %.3f "
           "ms; memcpy baseline %.4f ms (whole page %.0fx memcpy)\n",
           page_len, med(a, n), med(b, n), med(d, n), med(c, n), med(d, n) / med(c, n));
    (void)sink;
    return 0;
}

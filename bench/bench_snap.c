/* bench/bench_snap.c: answer time of `fovea snap` on a 2,000-element page.
 *
 * Starts Chromium itself (not through fovea: tests/tools/svc_util.c),
 * opens tests/fixtures/pages/probe/big.html in a tab at 1280x800 (the
 * bench's own device-metrics override), starts the real `fovea snap --cdp EP
 * --target probe/big.html` process and sends it one request per line, a box
 * around one list row (640 px of it, as a vision model boxes a row) with the
 * label of a control in it ("Open" or "details"), cycling over 20 rows in view. The
 * latency of each request is measured here, in the client: from writing the
 * line to reading the whole answer line (pipe, JSON both ways, the
 * service's probe and snapper, the hit-target check).
 *
 * Same run, same tab, interleaved request by request, as baselines:
 *   - a bare Runtime.evaluate("1") round trip from this process (the floor
 *     of anything that asks the page something over CDP);
 *   - perc_snap_box in this process with the same box and label (the same
 *     work without the service's pipe and JSON).
 * Prints median and p90 (base_summarize) of each, and the ratio. When
 * bench/node_modules holds playwright-core (cd bench && npm install), the
 * same tab is then timed with Playwright's locator(...).boundingBox()
 * (bench/snap_pw.js, connectOverCDP), one element lookup per request.
 *
 *   build/bench/bench_snap [requests]      (default 300)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "serve/httpd.h"
#include "base/json_alloc.h"
#include "base/stats.h"
#include "cdp/browser.h"
#include "perception/probe.h"
#include "svc_util.h"

#define FOVEA FOVEA_BINARY_DIR "/tools/fovea"
#define ROWS 20

static void report(const char *what, double *v, int n)
{
    base_summary s = base_summarize(v, n);
    printf("%-44s median %7.3f ms   p90 %7.3f ms   (n=%d)\n", what, s.median, s.p90, n);
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double median_of(double *v, int n)
{
    return base_summarize(v, n).median;
}

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 300;
    if (runs < 10 || runs > 100000) {
        fprintf(stderr, "usage: bench_snap [requests >= 10]\n");
        return 2;
    }
    char err[256] = "";
    serve_httpd *srv = NULL;
    serve_httpd_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.root = FOVEA_SOURCE_DIR "/tests/fixtures/pages";
    if (serve_httpd_start(&ho, &srv, err)) {
        fprintf(stderr, "bench_snap: %s\n", err);
        return 1;
    }
    svc_chrome chrome;
    if (svc_chrome_start(&chrome, err)) {
        fprintf(stderr, "bench_snap: %s\n", err);
        serve_httpd_destroy(srv);
        return 1;
    }
    int rc = 1;
    cdp_browser *b = NULL;
    cdp_page *page = NULL;
    svc_proc proc = {0};
    double *svc = base_calloc((size_t)runs, sizeof *svc);
    double *inproc = base_calloc((size_t)runs, sizeof *inproc);
    double *rtt = base_calloc((size_t)runs, sizeof *rtt);
    double *served = base_calloc((size_t)runs, sizeof *served);
    double *probe = base_calloc((size_t)runs, sizeof *probe);
    base_rect box[ROWS];
    char label[ROWS][32];
    char *line = base_malloc(1 << 15);
    if (!svc || !inproc || !rtt || !served || !probe || !line)
        goto out;
    if (cdp_browser_attach(chrome.endpoint, &b, err))
        goto fail;

    /* The tab, opened and sized by this client the way another tool would. */
    char url[256], tid[64] = "", sid[64] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d/probe/big.html", serve_httpd_port(srv));
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "url", url);
    cJSON *res = NULL;
    if (cdp_call(cdp_browser_conn(b), NULL, "Target.createTarget", pa, &res, 10000, err))
        goto fail;
    snprintf(tid, sizeof tid, "%s", str_of(res, "targetId"));
    cJSON_Delete(res);
    pa = cJSON_CreateObject();
    cJSON_AddStringToObject(pa, "targetId", tid);
    cJSON_AddBoolToObject(pa, "flatten", 1);
    res = NULL;
    if (cdp_call(cdp_browser_conn(b), NULL, "Target.attachToTarget", pa, &res, 10000, err))
        goto fail;
    snprintf(sid, sizeof sid, "%s", str_of(res, "sessionId"));
    cJSON_Delete(res);
    if (!tid[0] || !sid[0]) {
        snprintf(err, sizeof err, "no target or session id from the browser");
        goto fail;
    }
    pa = cJSON_CreateObject();
    cJSON_AddNumberToObject(pa, "width", 1280);
    cJSON_AddNumberToObject(pa, "height", 800);
    cJSON_AddNumberToObject(pa, "deviceScaleFactor", 1);
    cJSON_AddBoolToObject(pa, "mobile", 0);
    if (cdp_call(cdp_browser_conn(b), sid, "Emulation.setDeviceMetricsOverride", pa, NULL, 10000,
                 err))
        goto fail;
    for (int i = 0; i < 200; i++) {
        svc_sleep_ms(20);
        if (page)
            cdp_page_close(page);
        page = NULL;
        if (cdp_page_adopt(b, tid, &page, err))
            goto fail;
        cJSON *v = NULL;
        int ready = cdp_page_evaluate(page, "document.readyState === 'complete' && "
                                            "!!document.getElementById('r179')",
                                      &v, 5000, err) == BASE_OK &&
                    cJSON_IsTrue(v);
        cJSON_Delete(v);
        if (ready && cdp_page_viewport(page)->width == 1280)
            break;
    }
    cJSON *v = NULL;
    if (cdp_page_evaluate(page,
                          "Array.from({length: 20}, (_, i) => { const r = document"
                          ".getElementById('r' + (i + 2)).getBoundingClientRect();"
                          " return [r.left, r.top, r.left + 640, r.bottom]; })",
                          &v, 5000, err) ||
        cJSON_GetArraySize(v) != ROWS) {
        cJSON_Delete(v);
        goto fail;
    }
    for (int i = 0; i < ROWS; i++) {
        const cJSON *r = cJSON_GetArrayItem(v, i);
        box[i] = (base_rect){(float)cJSON_GetArrayItem(r, 0)->valuedouble,
                             (float)cJSON_GetArrayItem(r, 1)->valuedouble,
                             (float)cJSON_GetArrayItem(r, 2)->valuedouble,
                             (float)cJSON_GetArrayItem(r, 3)->valuedouble};
        snprintf(label[i], sizeof label[i], "%s", i % 2 ? "details" : "Open");
    }
    cJSON_Delete(v);
    v = NULL;
    cdp_page_evaluate(page, "document.querySelectorAll('*').length", &v, 5000, err);
    int n_el = cJSON_IsNumber(v) ? v->valueint : -1;
    cJSON_Delete(v);

    const char *const args[] = {FOVEA, "snap", "--cdp", chrome.endpoint, "--target",
                                "probe/big.html", NULL};
    if (svc_proc_start(&proc, args, NULL)) {
        snprintf(err, sizeof err, "cannot start %s", FOVEA);
        goto fail;
    }
    int found = 0;
    double first = 0;
    /* A row's first request asks DOMDebugger about its elements (fovea
     * attached after the page's scripts ran); later ones find the answers
     * kept in fovea's world (perception/probe.c ask_listeners). */
    double cold[ROWS];
    int n_cold = 0;
    for (int i = -10; i < runs; i++) {
        int k = (i + 10) % ROWS;
        char req[256];
        snprintf(req, sizeof req,
                 "{\"id\":%d,\"box\":[%.1f,%.1f,%.1f,%.1f],\"label\":\"%s\",\"intent\":\"click\"}",
                 i, (double)box[k].x0, (double)box[k].y0, (double)box[k].x1, (double)box[k].y1,
                 label[k]);
        double t0 = base_monotime_ms();
        if (svc_proc_send(&proc, req) || svc_proc_read_line(&proc, line, 1 << 15, 30000)) {
            snprintf(err, sizeof err, "fovea snap did not answer request %d", i);
            goto fail;
        }
        double t1 = base_monotime_ms();
        if (cdp_page_evaluate(page, "1", NULL, 5000, err))
            goto fail;
        double t2 = base_monotime_ms();
        snap_intent in = {label[k], SNAP_INTENT_ANY};
        perc_snap ls;
        if (perc_snap_box(page, box[k], &in, 1, &ls, err))
            goto fail;
        double t3 = base_monotime_ms();
        cJSON *a = cJSON_Parse(line);
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(a, "ms");
        const cJSON *tot = cJSON_GetObjectItemCaseSensitive(ms, "total");
        const cJSON *pms = cJSON_GetObjectItemCaseSensitive(ms, "probe");
        if (i == -10)
            first = t1 - t0;
        else if (i < ROWS - 10)
            cold[n_cold++] = t1 - t0; /* the first request on rows 1..19 */
        if (i >= 0) {
            svc[i] = t1 - t0;
            rtt[i] = t2 - t1;
            inproc[i] = t3 - t2;
            served[i] = cJSON_IsNumber(tot) ? tot->valuedouble : 0;
            probe[i] = cJSON_IsNumber(pms) ? pms->valuedouble : 0;
            const cJSON *el = cJSON_GetObjectItemCaseSensitive(a, "element");
            const cJSON *tx = cJSON_GetObjectItemCaseSensitive(el, "text");
            found += cJSON_IsString(tx) && strcmp(tx->valuestring, label[k]) == 0;
        }
        cJSON_Delete(a);
    }
    if (svc_proc_finish(&proc, 10000) != 0)
        fprintf(stderr, "bench_snap: fovea snap did not exit cleanly\n");
    double la[3] = {0};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3)
            la[0] = -1;
        fclose(f);
    }
    printf("page: probe/big.html, %d elements, 1280x800, row boxes 640x%.0f px over %d rows; "
           "load %.2f\n",
           n_el, (double)base_rect_h(box[0]), ROWS, la[0]);
    printf("answers naming the labelled control: %d of %d\n", found, runs);
    printf("%-44s %7.3f ms\n", "first request (installs the probe script)", first);
    report("fovea snap, first request on a row", cold, n_cold);
    report("fovea snap, per request (client-measured)", svc, runs);
    report("  of which inside the service (ms.total)", served, runs);
    report("  of which the page's probe script (ms.probe)", probe, runs);
    report("perc_snap_box in-process (no pipe, no JSON)", inproc, runs);
    report("bare Runtime.evaluate('1') round trip", rtt, runs);
    printf("ratio fovea snap / in-process snap: %.2f; / bare round trip: %.1f\n",
           median_of(svc, runs) / median_of(inproc, runs),
           median_of(svc, runs) / median_of(rtt, runs));
    /* Playwright's locator on the same tab, same run (after fovea is done:
     * another process, so not interleaved), when bench/node_modules has it
     * (cd bench && npm install). */
    if (access(FOVEA_SOURCE_DIR "/bench/node_modules/playwright-core", R_OK) == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd,
                 "node '" FOVEA_SOURCE_DIR "/bench/snap_pw.js' %s probe/big.html %d 10",
                 chrome.endpoint, runs);
        FILE *pw = popen(cmd, "r");
        double pm = 0, p9 = 0;
        int got = pw && fscanf(pw, "%lf %lf", &pm, &p9) == 2;
        if (pw)
            pclose(pw);
        if (got) {
            printf("%-44s median %7.3f ms   p90 %7.3f ms   (n=%d)\n",
                   "Playwright locator(...).boundingBox()", pm, p9, runs);
            printf("ratio fovea snap / Playwright locator: %.2f\n", median_of(svc, runs) / pm);
        } else {
            printf("Playwright baseline: failed (see stderr)\n");
        }
    } else {
        printf("Playwright baseline: skipped (cd bench && npm install)\n");
    }
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "bench_snap: %s\n", err);
out:
    if (proc.pid > 0)
        svc_proc_finish(&proc, 5000);
    cdp_page_close(page);
    cdp_browser_destroy(b);
    svc_chrome_stop(&chrome);
    serve_httpd_destroy(srv);
    base_free(svc);
    base_free(inproc);
    base_free(rtt);
    base_free(served);
    base_free(probe);
    base_free(line);
    return rc;
}

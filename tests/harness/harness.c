/* tests/harness/harness.c: loopback fixture servers + one shared Chromium. */
#include "harness.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/log.h"

static harness H;
static int started, failed;

static void stop_all(void)
{
    cdp_browser_destroy(H.browser);
    H.browser = NULL;
    serve_httpd_destroy(H.srv_a);
    serve_httpd_destroy(H.srv_b);
    H.srv_a = H.srv_b = NULL;
}

void harness_shutdown(void)
{
    if (started)
        stop_all();
    started = 0;
}

harness *harness_get(void)
{
    if (started)
        return &H;
    if (failed)
        return NULL;
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.root = FOVEA_SOURCE_DIR "/tests/fixtures/pages";
    if (serve_httpd_start(&o, &H.srv_a, H.err) || serve_httpd_start(&o, &H.srv_b, H.err)) {
        failed = 1;
        stop_all();
        return NULL;
    }
    snprintf(H.origin_a, sizeof H.origin_a, "http://127.0.0.1:%d", serve_httpd_port(H.srv_a));
    snprintf(H.origin_b, sizeof H.origin_b, "http://localhost:%d", serve_httpd_port(H.srv_b));
    if (cdp_browser_launch(NULL, &H.browser, H.err)) {
        failed = 1;
        stop_all();
        return NULL;
    }
    started = 1;
    atexit(harness_shutdown);
    return &H;
}

const char *harness_error(void)
{
    return H.err[0] ? H.err : "harness not started";
}

void harness_url(int which, const char *path, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", which ? H.origin_b : H.origin_a, path);
}

cdp_page *harness_open(int w, int h, double scale, const char *path)
{
    harness *hs = harness_get();
    if (!hs)
        return NULL;
    cdp_page_opts po = {w, h, scale, 0};
    cdp_page *p = NULL;
    char err[256] = "";
    if (cdp_page_open(hs->browser, &po, &p, err)) {
        fprintf(stderr, "harness: page open failed: %s\n", err);
        return NULL;
    }
    if (path) {
        char url[512];
        harness_url(0, path, url, sizeof url);
        if (cdp_page_navigate(p, url, 15000, err)) {
            fprintf(stderr, "harness: navigate %s failed: %s\n", url, err);
            cdp_page_close(p);
            return NULL;
        }
    }
    return p;
}

base_rect harness_rect(cdp_page *p, const char *sel)
{
    char expr[512];
    snprintf(expr, sizeof expr,
             "(() => { const e = document.querySelector('%s'); if (!e) return null;"
             " const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()",
             sel);
    base_rect r = {NAN, NAN, NAN, NAN};
    cJSON *v = NULL;
    if (cdp_page_evaluate(p, expr, &v, 10000, NULL) == BASE_OK && cJSON_GetArraySize(v) == 4) {
        r.x0 = (float)cJSON_GetArrayItem(v, 0)->valuedouble;
        r.y0 = (float)cJSON_GetArrayItem(v, 1)->valuedouble;
        r.x1 = (float)cJSON_GetArrayItem(v, 2)->valuedouble;
        r.y1 = (float)cJSON_GetArrayItem(v, 3)->valuedouble;
    }
    cJSON_Delete(v);
    return r;
}

int harness_rect_near(base_rect a, base_rect b, float tol)
{
    return fabsf(a.x0 - b.x0) <= tol && fabsf(a.y0 - b.y0) <= tol && fabsf(a.x1 - b.x1) <= tol &&
           fabsf(a.y1 - b.y1) <= tol;
}

base_rect harness_grow(base_rect r, float d)
{
    return (base_rect){r.x0 - d, r.y0 - d, r.x1 + d, r.y1 + d};
}

char *harness_capture_stderr(void (*fn)(void *), void *arg)
{
    char path[] = "/tmp/fovea-stderr-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    base_log_configure("all");
    fn(arg);
    fflush(stderr);
    base_log_configure(NULL);
    dup2(saved, 2);
    close(saved);
    off_t n = lseek(fd, 0, SEEK_END);
    char *buf = n >= 0 ? base_malloc((size_t)n + 1) : NULL;
    if (buf && pread(fd, buf, (size_t)n, 0) == n)
        buf[n] = '\0';
    else if (buf) {
        base_free(buf);
        buf = NULL;
    }
    close(fd);
    unlink(path);
    return buf;
}

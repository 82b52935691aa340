/* tests/cdp/test_netwatch.c: counting a page's requests (cdp/netwatch.h)
 * against a real headless Chromium and a loopback server that answers
 * slowly, with an error status, or not at all.
 *
 * A wait for network idle lasts as long as a slow fetch and no longer; a
 * wait that times out says how many requests were in flight and which; a
 * failed request ends like a finished one; a request of an out-of-process
 * iframe counts; the main document's HTTP status (404, then 200) is read
 * from the Network domain.
 */
#include <stdlib.h>

#include "base/clock.h"
#include "serve/httpd.h"
#include "cdp/netwatch.h"
#include "check.h"
#include "harness.h"

static serve_httpd *srv;
static int port;

/* /slow?ms=N answers after N ms; /status/N answers N with a small page;
 * /framehost embeds /framed from the other host name (localhost), which
 * Chromium runs in its own process. */
static int handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    (void)user;
    if (strcmp(req->path, "/slow") == 0) {
        resp->delay_ms = strncmp(req->query, "ms=", 3) == 0 ? (int)strtol(req->query + 3, NULL, 10)
                                                            : 500;
        base_buf_append(&resp->body, "ok", 2);
        return 1;
    }
    if (strncmp(req->path, "/status/", 8) == 0) {
        resp->status = (int)strtol(req->path + 8, NULL, 10);
        snprintf(resp->content_type, sizeof resp->content_type, "text/html; charset=utf-8");
        base_buf_printf(&resp->body, "<!doctype html><title>%d</title><h1>Error %d</h1>",
                        resp->status, resp->status);
        return 1;
    }
    if (strcmp(req->path, "/framehost") == 0) {
        snprintf(resp->content_type, sizeof resp->content_type, "text/html; charset=utf-8");
        base_buf_printf(&resp->body,
                        "<!doctype html><h1>host</h1><iframe src='http://localhost:%d/framed'>"
                        "</iframe>",
                        port);
        return 1;
    }
    if (strcmp(req->path, "/framed") == 0) {
        snprintf(resp->content_type, sizeof resp->content_type, "text/html; charset=utf-8");
        base_buf_printf(&resp->body, "<!doctype html><p>framed</p>");
        return 1;
    }
    return 0;
}

static int server(void)
{
    if (srv)
        return 1;
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.root = FOVEA_SOURCE_DIR "/tests/fixtures/pages";
    o.handler = handler;
    if (serve_httpd_start(&o, &srv, NULL) != BASE_OK)
        return 0;
    port = serve_httpd_port(srv);
    return 1;
}

/* A page on the test server at path, with a watcher. */
static cdp_page *open_at(const char *path, cdp_netwatch **w)
{
    if (!server())
        return NULL;
    cdp_page *p = harness_open(800, 600, 1, NULL);
    if (!p)
        return NULL;
    char url[256], err[256] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    if (cdp_page_navigate(p, url, 10000, err) != BASE_OK ||
        cdp_netwatch_create(p, w, err) != BASE_OK) {
        fprintf(stderr, "open_at %s: %s\n", path, err);
        cdp_page_close(p);
        return NULL;
    }
    return p;
}

static void idle_waits_for_a_slow_fetch(void)
{
    HARNESS_OR_SKIP(h);
    cdp_netwatch *w = NULL;
    cdp_page *p = open_at("/blocks.html", &w);
    CHECK(p != NULL);
    char err[256] = "";
    cdp_netstat st;
    cdp_netwatch_get(w, &st);
    uint64_t before = st.finished;
    CHECK_OK(cdp_page_evaluate(p, "fetch('/slow?ms=700').then(r => r.text()); 1", NULL, 5000,
                               err));
    double t0 = base_monotime_ms();
    CHECK_MSG(cdp_netwatch_wait_idle(w, 150, 8000, &st, err) == BASE_OK, "%s", err);
    double took = base_monotime_ms() - t0;
    /* As long as the fetch (700 ms from before t0) plus the quiet time, not
     * much longer. */
    CHECK_MSG(took >= 600 && took < 3000, "idle after %.0f ms", took);
    CHECK_EQ(st.inflight, 0);
    CHECK(st.finished >= before + 1);
    /* Nothing going on: idle after the quiet time alone. */
    t0 = base_monotime_ms();
    CHECK_OK(cdp_netwatch_wait_idle(w, 100, 5000, NULL, err));
    took = base_monotime_ms() - t0;
    CHECK_MSG(took >= 95 && took < 1000, "quiet page idle after %.0f ms", took);
    cdp_netwatch_destroy(w);
    cdp_page_close(p);
}

static void timeout_names_what_is_in_flight(void)
{
    HARNESS_OR_SKIP(h);
    cdp_netwatch *w = NULL;
    cdp_page *p = open_at("/blocks.html", &w);
    CHECK(p != NULL);
    char err[256] = "";
    CHECK_OK(cdp_page_evaluate(p, "fetch('/slow?ms=2500&who=report').then(r => r.text()); 1",
                               NULL, 5000, err));
    cdp_netstat st;
    err[0] = '\0';
    CHECK_EQ(cdp_netwatch_wait_idle(w, 100, 400, &st, err), BASE_ETIMEDOUT);
    CHECK_EQ(st.inflight, 1);
    CHECK_MSG(strstr(err, "1 request in flight") && strstr(err, "/slow?ms=2500&who=report"), "%s",
              err);
    err[0] = '\0';
    CHECK_MSG(cdp_netwatch_wait_idle(w, 100, 8000, &st, err) == BASE_OK, "%s", err);
    CHECK_EQ(st.inflight, 0);
    err[0] = '\0';
    CHECK_EQ(cdp_netwatch_wait_idle(w, -1, 100, NULL, err), BASE_EINVAL);
    cdp_netwatch_destroy(w);
    cdp_page_close(p);
}

static void failed_requests_end_too(void)
{
    HARNESS_OR_SKIP(h);
    cdp_netwatch *w = NULL;
    cdp_page *p = open_at("/blocks.html", &w);
    CHECK(p != NULL);
    int closed = check_closed_port();
    CHECK(closed > 0);
    char js[200], err[256] = "";
    snprintf(js, sizeof js, "fetch('http://127.0.0.1:%d/nothing').catch(() => 0); 1", closed);
    CHECK_OK(cdp_page_evaluate(p, js, NULL, 5000, err));
    cdp_netstat st;
    CHECK_MSG(cdp_netwatch_wait_idle(w, 200, 8000, &st, err) == BASE_OK, "%s", err);
    CHECK(st.failed >= 1);
    CHECK_EQ(st.inflight, 0);
    cdp_netwatch_destroy(w);
    cdp_page_close(p);
}

static void counts_out_of_process_iframes(void)
{
    HARNESS_OR_SKIP(h);
    cdp_netwatch *w = NULL;
    cdp_page *p = open_at("/framehost", &w);
    CHECK(p != NULL);
    cdp_frame fr[8];
    int nf = cdp_page_frames(p, fr, 8);
    const char *sess = NULL;
    for (int i = 0; i < nf && i < 8; i++) {
        if (fr[i].oopif)
            sess = fr[i].session;
    }
    CHECK_MSG(sess != NULL, "the localhost iframe is not out of process (%d frames)", nf);
    char err[256] = "";
    /* The watcher enables the domain on the iframe asynchronously. */
    base_sleep_ms(100);
    CHECK_OK(cdp_page_evaluate_in(p, sess, 0,
                                  "fetch('/slow?ms=700&from=frame').then(r => r.text()); 1",
                                  NULL, 5000, err));
    cdp_netstat st;
    err[0] = '\0';
    CHECK_EQ(cdp_netwatch_wait_idle(w, 100, 300, &st, err), BASE_ETIMEDOUT);
    CHECK_MSG(strstr(err, "from=frame") != NULL, "%s", err);
    CHECK_OK(cdp_netwatch_wait_idle(w, 100, 8000, &st, err));
    cdp_netwatch_destroy(w);
    cdp_page_close(p);
}

static void reads_the_document_status(void)
{
    HARNESS_OR_SKIP(h);
    cdp_netwatch *w = NULL;
    cdp_page *p = open_at("/blocks.html", &w);
    CHECK(p != NULL);
    cdp_netstat st;
    cdp_netwatch_get(w, &st);
    uint64_t seq = st.doc_seq;
    char url[256], err[256] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d/status/404", port);
    CHECK_EQ(cdp_page_navigate(p, url, 10000, err), BASE_EREMOTE);
    cdp_netwatch_get(w, &st);
    CHECK_EQ(st.doc_status, 404);
    CHECK_STR(st.doc_url, url);
    CHECK_EQ(st.doc_seq, seq + 1);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/status/503", port);
    err[0] = '\0';
    CHECK_EQ(cdp_page_navigate(p, url, 10000, err), BASE_EREMOTE);
    cdp_netwatch_get(w, &st);
    CHECK_EQ(st.doc_status, 503);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/blocks.html", port);
    CHECK_OK(cdp_page_navigate(p, url, 10000, err));
    cdp_netwatch_get(w, &st);
    CHECK_EQ(st.doc_status, 200);
    CHECK_EQ(st.doc_seq, seq + 3);
    cdp_netwatch_destroy(w);
    cdp_page_close(p);
}

static void cleanup(void)
{
    serve_httpd_destroy(srv);
    srv = NULL;
}

static const check_case cases[] = {
    {"idle_waits_for_a_slow_fetch", idle_waits_for_a_slow_fetch},
    {"timeout_names_what_is_in_flight", timeout_names_what_is_in_flight},
    {"failed_requests_end_too", failed_requests_end_too},
    {"counts_out_of_process_iframes", counts_out_of_process_iframes},
    {"reads_the_document_status", reads_the_document_status},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    cleanup();
    return rc;
}

/* tests/cdp/test_cdp.c: the DevTools client against a real headless Chromium
 * (fixture pages on loopback) and against a hostile local websocket peer. */
#include <arpa/inet.h>
#include <errno.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/clock.h"
#include "cdp/browser.h"
#include "check.h"
#include "harness.h"

static void evaluate_roundtrip(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    cJSON *v = NULL;
    char err[256] = "";
    CHECK_OK(cdp_page_evaluate(p, "6 * 7", &v, 5000, err));
    CHECK(cJSON_IsNumber(v));
    CHECK_EQ(v->valueint, 42);
    cJSON_Delete(v);
    /* A thrown exception is a remote error carrying the message. */
    CHECK_EQ(cdp_page_evaluate(p, "throw new Error('boom-17')", NULL, 5000, err), BASE_EREMOTE);
    CHECK(strstr(err, "boom-17") != NULL);
    /* An unknown method is a remote error too, not a hang. */
    err[0] = '\0';
    CHECK_EQ(cdp_page_call(p, "Nope.nothing", NULL, NULL, 5000, err), BASE_EREMOTE);
    CHECK(strstr(err, "Nope.nothing") != NULL);
    cdp_page_close(p);
}

typedef struct evsink {
    pthread_mutex_t mu;
    int count;
    char last[128];
} evsink;

static void on_console(const char *sid, const char *method, const cJSON *params, void *user)
{
    (void)sid;
    (void)method;
    evsink *s = user;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "args");
    const cJSON *a0 = cJSON_GetArrayItem(args, 0);
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(a0, "value");
    pthread_mutex_lock(&s->mu);
    s->count++;
    if (cJSON_IsString(val))
        snprintf(s->last, sizeof s->last, "%s", val->valuestring);
    pthread_mutex_unlock(&s->mu);
}

static void events_fan_out(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    evsink s1 = {PTHREAD_MUTEX_INITIALIZER, 0, ""}, s2 = {PTHREAD_MUTEX_INITIALIZER, 0, ""};
    cdp_conn *c = cdp_page_conn(p);
    int id1 = cdp_subscribe(c, "Runtime.consoleAPICalled", cdp_page_session(p), on_console, &s1);
    int id2 = cdp_subscribe(c, "Runtime.consoleAPICalled", NULL, on_console, &s2);
    CHECK(id1 > 0 && id2 > 0);
    cdp_waiter *w = NULL;
    CHECK_OK(cdp_waiter_create(c, cdp_page_session(p), "Runtime.consoleAPICalled", NULL, NULL, &w));
    char err[256];
    CHECK_OK(cdp_page_evaluate(p, "console.log('hello-fovea'); 1", NULL, 5000, err));
    cJSON *params = NULL;
    CHECK_OK(cdp_waiter_wait(w, 5000, &params));
    CHECK(params != NULL);
    cJSON_Delete(params);
    cdp_waiter_destroy(w);
    /* Both subscribers saw it (the waiter proves it was delivered). */
    for (int i = 0; i < 100; i++) {
        pthread_mutex_lock(&s2.mu);
        int n = s2.count;
        pthread_mutex_unlock(&s2.mu);
        if (n)
            break;
        base_sleep_ms(10);
    }
    cdp_unsubscribe(c, id1);
    cdp_unsubscribe(c, id2);
    CHECK_EQ(s1.count, 1);
    CHECK_EQ(s2.count, 1);
    CHECK_STR(s1.last, "hello-fovea");
    /* After unsubscribing nothing more arrives. */
    CHECK_OK(cdp_page_evaluate(p, "console.log('again'); 1", NULL, 5000, err));
    base_sleep_ms(100);
    CHECK_EQ(s1.count, 1);
    cdp_page_close(p);
}

typedef struct asyncsink {
    pthread_mutex_t mu;
    int done, ok, sum;
} asyncsink;

static void on_reply(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)msg;
    asyncsink *s = user;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(result, "result");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "value");
    pthread_mutex_lock(&s->mu);
    s->done++;
    if (!e && cJSON_IsNumber(v)) {
        s->ok++;
        s->sum += v->valueint;
    }
    pthread_mutex_unlock(&s->mu);
}

typedef struct worker_arg {
    cdp_page *p;
    int base;
    int good;
} worker_arg;

static void *sync_worker(void *arg)
{
    worker_arg *a = arg;
    for (int i = 0; i < 50; i++) {
        char expr[64];
        snprintf(expr, sizeof expr, "%d + %d", a->base, i);
        cJSON *v = NULL;
        if (cdp_page_evaluate(a->p, expr, &v, 10000, NULL) == BASE_OK && cJSON_IsNumber(v) &&
            v->valueint == a->base + i)
            a->good++;
        cJSON_Delete(v);
    }
    return NULL;
}

static void pipelining(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    /* 300 calls in flight at once from one thread. */
    asyncsink s = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0};
    int expect = 0;
    for (int i = 0; i < 300; i++) {
        cJSON *pa = cJSON_CreateObject();
        char expr[32];
        snprintf(expr, sizeof expr, "%d", i);
        expect += i;
        cJSON_AddStringToObject(pa, "expression", expr);
        cJSON_AddBoolToObject(pa, "returnByValue", 1);
        CHECK_OK(cdp_call_async(cdp_page_conn(p), cdp_page_session(p), "Runtime.evaluate", pa,
                                10000, on_reply, &s));
    }
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&s.mu);
        int d = s.done;
        pthread_mutex_unlock(&s.mu);
        if (d == 300)
            break;
        base_sleep_ms(10);
    }
    CHECK_EQ(s.done, 300);
    CHECK_EQ(s.ok, 300);
    CHECK_EQ(s.sum, expect);
    /* And four threads doing blocking calls at once get their own replies. */
    pthread_t th[4];
    worker_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i].p = p;
        args[i].base = 1000 * (i + 1);
        args[i].good = 0;
        pthread_create(&th[i], NULL, sync_worker, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(args[i].good, 50);
    }
    cdp_page_close(p);
}

/* cdp_call_many: 40 calls in flight at once, each gets its own result in
 * its own slot; a call the browser refuses leaves NULL in its slot and names
 * the first failure; a call that outlives the timeout does the same. */
static void call_many(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    enum { N = 40 };
    cJSON *pa[N], *res[N];
    for (int i = 0; i < N; i++) {
        pa[i] = cJSON_CreateObject();
        char expr[64];
        snprintf(expr, sizeof expr, "%d * 3", i);
        if (i != 17) /* no expression: the browser answers an error */
            cJSON_AddStringToObject(pa[i], "expression", expr);
        cJSON_AddBoolToObject(pa[i], "returnByValue", 1);
    }
    char err[256] = "";
    base_err e = cdp_call_many(cdp_page_conn(p), cdp_page_session(p), "Runtime.evaluate", pa, N,
                               res, 10000, err);
    CHECK_EQ(e, BASE_EREMOTE);
    CHECK_MSG(strstr(err, "Runtime.evaluate") != NULL, "%s", err);
    for (int i = 0; i < N; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(res[i], "result"), "value");
        if (i == 17)
            CHECK(res[i] == NULL);
        else
            CHECK_MSG(cJSON_IsNumber(v) && v->valueint == i * 3, "slot %d", i);
        cJSON_Delete(res[i]);
    }
    /* Every call answered: BASE_OK; a slow one past the timeout: NULL. */
    cJSON *pb[2], *rb[2];
    pb[0] = cJSON_CreateObject();
    cJSON_AddStringToObject(pb[0], "expression", "1");
    pb[1] = cJSON_CreateObject();
    cJSON_AddStringToObject(pb[1], "expression", "new Promise(r => setTimeout(r, 3000))");
    cJSON_AddBoolToObject(pb[1], "awaitPromise", 1);
    int64_t t0 = base_monotime();
    e = cdp_call_many(cdp_page_conn(p), cdp_page_session(p), "Runtime.evaluate", pb, 2, rb, 300,
                      err);
    CHECK_EQ(e, BASE_ETIMEDOUT);
    CHECK((base_monotime() - t0) / 1000 < 2500);
    CHECK(rb[0] != NULL && rb[1] == NULL);
    cJSON_Delete(rb[0]);
    CHECK_EQ(cdp_call_many(cdp_page_conn(p), cdp_page_session(p), "Runtime.evaluate", NULL, 0,
                           NULL, 300, err),
             BASE_OK);
    cdp_page_close(p);
}

static void timeouts(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    char err[256] = "";
    int64_t t0 = base_monotime();
    base_err e = cdp_page_evaluate(p, "new Promise(r => setTimeout(() => r(5), 1500))", NULL, 200,
                                   err);
    int64_t ms = (base_monotime() - t0) / 1000;
    CHECK_EQ(e, BASE_ETIMEDOUT);
    CHECK(ms >= 190 && ms < 1000);
    CHECK(strstr(err, "timed out") != NULL);
    /* The connection is still usable, and the late reply is dropped. */
    cJSON *v = NULL;
    CHECK_OK(cdp_page_evaluate(p, "7", &v, 5000, err));
    CHECK_EQ(v->valueint, 7);
    cJSON_Delete(v);
    base_sleep_ms(1600);
    cdp_stats st;
    cdp_conn_stats(cdp_page_conn(p), &st);
    CHECK(st.late_replies >= 1);
    cdp_page_close(p);
}

static void big_message(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    /* A 9 MiB string: larger than any single lws buffer, so it arrives in
     * many fragments and must be reassembled exactly. */
    cJSON *v = NULL;
    char err[256] = "";
    CHECK_OK(cdp_page_evaluate(p, "'abcdefgh'.repeat(9 * 1024 * 1024 / 8) + 'END'", &v, 30000, err));
    CHECK(cJSON_IsString(v));
    size_t n = strlen(v->valuestring);
    CHECK_EQ(n, 9 * 1024 * 1024 + 3);
    CHECK(strcmp(v->valuestring + n - 3, "END") == 0);
    CHECK(memcmp(v->valuestring + 4096 * 8, "abcdefgh", 8) == 0);
    cJSON_Delete(v);
    cdp_page_close(p);
}

static void message_cap(void)
{
    HARNESS_OR_SKIP(h);
    /* A second connection to the same browser with a 1 MiB cap: a 2 MiB
     * reply must close it with a clear reason, not allocate or crash. */
    cdp_process *proc = cdp_browser_process(h->browser);
    CHECK(proc != NULL);
    cdp_conn_opts o = {.max_message = 1 << 20, .connect_timeout_ms = 5000};
    cdp_conn *c = NULL;
    char err[256] = "";
    CHECK_OK(cdp_connect(cdp_process_ws_url(proc), &o, &c, err));
    cJSON *res = NULL;
    CHECK_OK(cdp_call(c, NULL, "Target.createTarget",
                      cJSON_Parse("{\"url\":\"about:blank\"}"), &res, 5000, err));
    cJSON *tid = cJSON_DetachItemFromObject(res, "targetId");
    cJSON_Delete(res);
    cJSON *pa = cJSON_CreateObject();
    cJSON_AddItemToObject(pa, "targetId", tid);
    cJSON_AddBoolToObject(pa, "flatten", 1);
    CHECK_OK(cdp_call(c, NULL, "Target.attachToTarget", pa, &res, 5000, err));
    char sid[64];
    snprintf(sid, sizeof sid, "%s", cJSON_GetObjectItem(res, "sessionId")->valuestring);
    cJSON_Delete(res);
    pa = cJSON_Parse("{\"expression\":\"'x'.repeat(2*1024*1024)\",\"returnByValue\":true}");
    base_err e = cdp_call(c, sid, "Runtime.evaluate", pa, NULL, 10000, err);
    CHECK_EQ(e, BASE_ECLOSED);
    CHECK(strstr(err, "cap") != NULL);
    CHECK(!cdp_conn_alive(c));
    cdp_conn_destroy(c);
}

static void navigate_errors(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(800, 600, 1, NULL);
    CHECK(p != NULL);
    int port = check_closed_port();
    CHECK(port > 0);
    char url[64], err[256] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
    CHECK_EQ(cdp_page_navigate(p, url, 10000, err), BASE_EREMOTE);
    CHECK(strstr(err, "ERR_CONNECTION_REFUSED") != NULL);
    cdp_page_close(p);
}

static void frame_tree_and_oopif(void)
{
    HARNESS_OR_SKIP(h);
    char path[160];
    snprintf(path, sizeof path, "/frames.html?b=%s", h->origin_b);
    cdp_page *p = harness_open(1024, 700, 1, path);
    CHECK(p != NULL);
    /* The cross-site frame attaches asynchronously; wait for it. */
    cdp_frame fr[8];
    int n = 0, oop = -1;
    for (int i = 0; i < 200 && oop < 0; i++) {
        n = cdp_page_frames(p, fr, 8);
        for (int k = 0; k < n && k < 8; k++) {
            if (fr[k].oopif && strstr(fr[k].url, "cross=1"))
                oop = k;
        }
        if (oop < 0)
            base_sleep_ms(25);
    }
    CHECK_EQ(n, 3);
    CHECK_STR(fr[0].parent_id, "");
    CHECK(oop > 0);
    CHECK(strcmp(fr[oop].session, cdp_page_session(p)) != 0);
    char sess[64];
    CHECK_OK(cdp_page_frame_session(p, fr[oop].id, sess));
    CHECK_STR(sess, fr[oop].session);
    /* Evaluate inside the out-of-process iframe through its own session. */
    cJSON *pa = cJSON_Parse("{\"expression\":\"location.href + '|' + document.getElementById('btn').textContent\",\"returnByValue\":true}");
    cJSON *res = NULL;
    char err[256] = "";
    CHECK_OK(cdp_call(cdp_page_conn(p), sess, "Runtime.evaluate", pa, &res, 5000, err));
    const char *val = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "result"), "value")->valuestring;
    CHECK(strstr(val, "localhost") != NULL);
    CHECK(strstr(val, "inner button") != NULL);
    cJSON_Delete(res);
    /* The same through cdp_page_evaluate_in, and its exception path. */
    cJSON *v = NULL;
    CHECK_OK(cdp_page_evaluate_in(p, sess, 0, "Promise.resolve(location.host)", &v, 5000, err));
    CHECK(cJSON_IsString(v) && strstr(v->valuestring, "localhost") != NULL);
    cJSON_Delete(v);
    v = NULL;
    CHECK_EQ(cdp_page_evaluate_in(p, sess, 0, "null.x", &v, 5000, err), BASE_EREMOTE);
    CHECK(strstr(err, "threw") != NULL);
    CHECK(v == NULL);
    /* The same-origin frame shares the page session. */
    int same = -1;
    for (int k = 0; k < n && k < 8; k++) {
        if (!fr[k].oopif && fr[k].parent_id[0])
            same = k;
    }
    CHECK(same > 0);
    CHECK_STR(fr[same].session, cdp_page_session(p));
    cdp_page_close(p);
}

typedef struct call_thread {
    cdp_page *p;
    base_err e;
    int64_t done_at;
    char err[256];
} call_thread;

static void *hanging_call(void *arg)
{
    call_thread *t = arg;
    t->e = cdp_page_evaluate(t->p, "new Promise(() => {})", NULL, 20000, t->err);
    t->done_at = base_monotime();
    return NULL;
}

static void browser_killed_mid_call(void)
{
    HARNESS_OR_SKIP(h);
    cdp_browser *b = NULL;
    char err[256] = "";
    CHECK_OK(cdp_browser_launch(NULL, &b, err));
    cdp_page *p = NULL;
    CHECK_OK(cdp_page_open(b, NULL, &p, err));
    int pid = cdp_process_pid(cdp_browser_process(b));
    char profile[512];
    snprintf(profile, sizeof profile, "%s", cdp_process_profile_dir(cdp_browser_process(b)));
    call_thread t;
    memset(&t, 0, sizeof t);
    t.p = p;
    pthread_t th;
    pthread_create(&th, NULL, hanging_call, &t);
    base_sleep_ms(300);
    int64_t killed = base_monotime();
    cdp_process_kill(cdp_browser_process(b));
    pthread_join(th, NULL);
    /* The pending call fails with "closed" well inside its 20 s timeout. */
    CHECK_EQ(t.e, BASE_ECLOSED);
    CHECK((t.done_at - killed) / 1000 < 3000);
    CHECK(strstr(t.err, "closed") != NULL);
    /* Later calls fail at once. */
    int64_t t0 = base_monotime();
    CHECK_EQ(cdp_page_evaluate(p, "1", NULL, 5000, err), BASE_ECLOSED);
    CHECK((base_monotime() - t0) / 1000 < 100);
    CHECK(!cdp_page_alive(p));
    cdp_page_close(p);
    cdp_browser_destroy(b);
    /* No orphan and no profile left behind. */
    CHECK(kill(pid, 0) != 0);
    struct stat st;
    CHECK(stat(profile, &st) != 0);
}

static void attach_mode(void)
{
    HARNESS_OR_SKIP(h);
    /* Attach to the harness's browser through HTTP discovery. */
    const char *ws = cdp_process_ws_url(cdp_browser_process(h->browser));
    const char *hostport = ws + 5; /* skip ws:// */
    const char *slash = strchr(hostport, '/');
    char http[128];
    snprintf(http, sizeof http, "http://%.*s", (int)(slash - hostport), hostport);
    cdp_browser *b = NULL;
    char err[256] = "";
    CHECK_OK(cdp_browser_attach(http, &b, err));
    CHECK(strstr(cdp_browser_product(b), "Chrom") != NULL);
    CHECK(cdp_browser_process(b) == NULL);
    cdp_page *p = NULL;
    CHECK_OK(cdp_page_open(b, NULL, &p, err));
    cJSON *v = NULL;
    CHECK_OK(cdp_page_evaluate(p, "'attached'", &v, 5000, err));
    CHECK_STR(v->valuestring, "attached");
    cJSON_Delete(v);
    cdp_page_close(p);
    cdp_browser_destroy(b);
    /* Destroying an attached browser leaves the browser running. */
    CHECK(cdp_conn_alive(cdp_browser_conn(h->browser)));
    /* A bad endpoint is a clear error, not a hang. */
    err[0] = '\0';
    CHECK(cdp_browser_attach("ftp://nowhere", &b, err) != BASE_OK);
    CHECK(err[0] != '\0');
}

/* ---------- a hostile websocket peer ---------- */

typedef struct peer {
    int lfd;
    int port;
    pthread_t th;
} peer;

static int read_full(int fd, uint8_t *b, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static void send_frame(int fd, uint8_t opcode, const void *data, size_t n)
{
    uint8_t hdr[10];
    size_t hl = 2;
    hdr[0] = (uint8_t)(0x80 | opcode);
    if (n < 126) {
        hdr[1] = (uint8_t)n;
    } else {
        hdr[1] = 126;
        hdr[2] = (uint8_t)(n >> 8);
        hdr[3] = (uint8_t)n;
        hl = 4;
    }
    if (write(fd, hdr, hl) < 0 || write(fd, data, n) < 0)
        return;
}

static void send_text(int fd, const char *s)
{
    send_frame(fd, 1, s, strlen(s));
}

/* Reads one masked client frame; returns its payload (malloc'd) or NULL. */
static char *read_client_frame(int fd)
{
    uint8_t h[2];
    if (read_full(fd, h, 2))
        return NULL;
    uint64_t len = h[1] & 0x7f;
    if (len == 126) {
        uint8_t e[2];
        if (read_full(fd, e, 2))
            return NULL;
        len = ((uint64_t)e[0] << 8) | e[1];
    } else if (len == 127) {
        return NULL;
    }
    uint8_t mask[4];
    if (read_full(fd, mask, 4))
        return NULL;
    char *p = malloc(len + 1);
    if (!p || read_full(fd, (uint8_t *)p, len)) {
        free(p);
        return NULL;
    }
    for (uint64_t i = 0; i < len; i++)
        p[i] ^= (char)mask[i % 4];
    p[len] = 0;
    return p;
}

static void *peer_main(void *arg)
{
    peer *pe = arg;
    int fd = accept(pe->lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    char req[4096];
    size_t got = 0;
    while (got < sizeof req - 1) {
        ssize_t r = read(fd, req + got, sizeof req - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
        req[got] = 0;
        if (strstr(req, "\r\n\r\n"))
            break;
    }
    char *k = strstr(req, "Sec-WebSocket-Key:");
    char key[128] = "";
    if (k) {
        k += 18;
        while (*k == ' ')
            k++;
        size_t i = 0;
        while (k[i] && k[i] != '\r' && i < 100) {
            key[i] = k[i];
            i++;
        }
        key[i] = 0;
    }
    char keyguid[200];
    snprintf(keyguid, sizeof keyguid, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
    unsigned char sha[20];
    lws_SHA1((const unsigned char *)keyguid, strlen(keyguid), sha);
    char acc[64];
    base64_encode(sha, 20, acc);
    char resp[256];
    int rn = snprintf(resp, sizeof resp,
                      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
                      acc);
    if (write(fd, resp, (size_t)rn) < 0)
        goto out;
    for (;;) {
        char *msg = read_client_frame(fd);
        if (!msg)
            break;
        cJSON *j = cJSON_Parse(msg);
        free(msg);
        int id = j ? cJSON_GetObjectItem(j, "id")->valueint : 0;
        const char *method = j ? cJSON_GetObjectItem(j, "method")->valuestring : "";
        int die = strcmp(method, "Test.die") == 0;
        cJSON_Delete(j);
        if (die) {
            /* Bytes that are not a websocket frame at all. */
            uint8_t junk[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
            if (write(fd, junk, sizeof junk) < 0)
                break;
            base_sleep_ms(200);
            break;
        }
        send_text(fd, "not json {{{");
        send_text(fd, "[1,2,3]");
        send_text(fd, "{\"id\":\"seven\"}");
        send_text(fd, "{\"id\":-4,\"result\":{}}");
        send_text(fd, "{\"method\":5}");
        send_text(fd, "{\"id\":424242,\"result\":{}}");
        send_text(fd, "{\"method\":\"Fake.event\",\"params\":[1]}");
        send_frame(fd, 2, "\x01\x02\x03", 3);
        char ok[128];
        snprintf(ok, sizeof ok, "{\"id\":%d,\"result\":{\"ok\":true}}", id);
        send_text(fd, ok);
    }
out:
    close(fd);
    return NULL;
}

static void garbage_peer(void)
{
    peer pe;
    pe.lfd = check_loopback_socket(1, &pe.port);
    CHECK(pe.lfd >= 0);
    pthread_create(&pe.th, NULL, peer_main, &pe);
    char url[64], err[256] = "";
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/devtools/browser/x", pe.port);
    cdp_conn *c = NULL;
    CHECK_OK(cdp_connect(url, NULL, &c, err));
    cJSON *res = NULL;
    CHECK_OK(cdp_call(c, NULL, "Test.echo", NULL, &res, 5000, err));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")));
    cJSON_Delete(res);
    cdp_stats st;
    cdp_conn_stats(c, &st);
    CHECK_EQ(st.malformed, 7);
    CHECK_EQ(st.late_replies, 1);
    CHECK(cdp_conn_alive(c));
    /* Now the peer breaks the framing: the call fails as closed, fast. */
    int64_t t0 = base_monotime();
    err[0] = '\0';
    CHECK_EQ(cdp_call(c, NULL, "Test.die", NULL, NULL, 10000, err), BASE_ECLOSED);
    CHECK((base_monotime() - t0) / 1000 < 3000);
    CHECK_EQ(cdp_call(c, NULL, "Test.after", NULL, NULL, 1000, err), BASE_ECLOSED);
    cdp_conn_destroy(c);
    pthread_join(pe.th, NULL);
    close(pe.lfd);
    /* Connecting to a port with nobody listening is a clear, quick error. */
    err[0] = '\0';
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/x", pe.port);
    CHECK_EQ(cdp_connect(url, NULL, &c, err), BASE_ECLOSED);
    CHECK(err[0] != '\0');
    static const char *const bad_urls[] = {"http://nope", "ws://", "ws://h:abc/x", "ws://h:0/x",
                                           "ws://h:70000/x", "ws://[::1/x", "ws://[::1]x/y"};
    for (size_t i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
        err[0] = '\0';
        CHECK_MSG(cdp_connect(bad_urls[i], NULL, &c, err) == BASE_EINVAL, "%s accepted",
                  bad_urls[i]);
        CHECK(strstr(err, "cdp:") != NULL);
    }
}

static void msg_parse(void)
{
    cJSON *root = NULL;
    cdp_msg m;
    char err[256] = "";
    const char *ev = "{\"method\":\"Page.loadEventFired\",\"params\":{\"timestamp\":1},\"sessionId\":\"S1\"}";
    CHECK_OK(cdp_msg_parse(ev, strlen(ev), &root, &m, err));
    CHECK_EQ(m.kind, CDP_MSG_EVENT);
    CHECK_STR(m.method, "Page.loadEventFired");
    CHECK_STR(m.session_id, "S1");
    cJSON_Delete(root);
    const char *rep = "{\"id\":12,\"error\":{\"code\":-32601,\"message\":\"no\"}}";
    CHECK_OK(cdp_msg_parse(rep, strlen(rep), &root, &m, err));
    CHECK_EQ(m.kind, CDP_MSG_REPLY);
    CHECK_EQ(m.id, 12);
    CHECK_EQ(m.error_code, -32601);
    CHECK_STR(m.error_message, "no");
    cJSON_Delete(root);
    static const char *const bad[] = {"", "{", "1", "{\"id\":1.5,\"result\":{}}",
                                      "{\"id\":1}", "{\"method\":\"x\",\"params\":3}",
                                      "{\"sessionId\":4,\"id\":1,\"result\":{}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        root = (cJSON *)1;
        err[0] = '\0';
        CHECK_EQ(cdp_msg_parse(bad[i], strlen(bad[i]), &root, &m, err), BASE_EPROTO);
        CHECK(root == (cJSON *)1);
        CHECK(strncmp(err, "cdp:", 4) == 0);
    }
}

/* Page text with half a surrogate pair (a label cut with .slice() through
 * an emoji) arrives as a lone \\udXXX escape: the frame must still parse,
 * with U+FFFD in its place, and proper pairs and escaped backslashes must
 * be left alone. */
static void msg_lone_surrogate(void)
{
    static const struct {
        const char *frame;
        const char *value; /* UTF-8 the string must hold */
    } v[] = {
        {"{\"id\":1,\"result\":{\"v\":\"Sign in \\ud83d\"}}", "Sign in \xef\xbf\xbd"},
        {"{\"id\":1,\"result\":{\"v\":\"\\ude00x\"}}", "\xef\xbf\xbdx"},
        {"{\"id\":1,\"result\":{\"v\":\"\\ud83d\\ud83dA\"}}", "\xef\xbf\xbd\xef\xbf\xbd" "A"},
        {"{\"id\":1,\"result\":{\"v\":\"\\ud83d\\u0041\"}}", "\xef\xbf\xbd" "A"},
        /* A proper pair: U+1F600. */
        {"{\"id\":1,\"result\":{\"v\":\"\\ud83d\\ude00\"}}", "\xf0\x9f\x98\x80"},
        /* An escaped backslash followed by text that looks like an escape. */
        {"{\"id\":1,\"result\":{\"v\":\"\\\\ud83d\"}}", "\\ud83d"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cJSON *root = NULL;
        cdp_msg m;
        char err[256] = "";
        CHECK_MSG(cdp_msg_parse(v[i].frame, strlen(v[i].frame), &root, &m, err) == BASE_OK,
                  "case %zu: %s", i, err);
        if (!root)
            continue;
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(m.result, "v");
        CHECK(cJSON_IsString(s));
        if (cJSON_IsString(s))
            CHECK_STR(s->valuestring, v[i].value);
        cJSON_Delete(root);
    }
    /* A truncated escape is still an error, not a read past the end. */
    const char *cut = "{\"id\":1,\"result\":{\"v\":\"\\ud8";
    cJSON *root = (cJSON *)1;
    cdp_msg m;
    char err[256] = "";
    CHECK_EQ(cdp_msg_parse(cut, strlen(cut), &root, &m, err), BASE_EPROTO);
}

static const check_case cases[] = {
    {"msg_parse", msg_parse},
    {"msg_lone_surrogate", msg_lone_surrogate},
    {"garbage_peer", garbage_peer},
    {"evaluate_roundtrip", evaluate_roundtrip},
    {"events_fan_out", events_fan_out},
    {"pipelining", pipelining},
    {"call_many", call_many},
    {"timeouts", timeouts},
    {"big_message", big_message},
    {"message_cap", message_cap},
    {"navigate_errors", navigate_errors},
    {"frame_tree_and_oopif", frame_tree_and_oopif},
    {"attach_mode", attach_mode},
    {"browser_killed_mid_call", browser_killed_mid_call},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}

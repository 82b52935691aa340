/* tests/serve/test_httpd.c: the loopback HTTP server, driven by a tiny
 * blocking socket client written here (no curl, so the server is tested
 * against exactly the bytes we choose). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "serve/httpd.h"
#include "check.h"

/* ---- client helpers ---------------------------------------------------- */

static int client_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {.tv_sec = 5, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_str(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

typedef struct reply {
    int status;
    char head[4096];
    char *body; /* base_malloc'd, NUL-terminated */
    size_t body_len;
} reply;

static void reply_free(reply *r)
{
    base_free(r->body);
    r->body = NULL;
}

/* Reads exactly one response (head, then Content-Length bytes unless
 * head_only), leaving any following bytes unread. Returns 0 or -1. */
static int read_reply(int fd, int head_only, reply *r)
{
    memset(r, 0, sizeof *r);
    size_t hl = 0;
    while (hl + 1 < sizeof r->head) {
        ssize_t n = recv(fd, r->head + hl, 1, 0);
        if (n <= 0)
            return -1;
        hl++;
        r->head[hl] = '\0';
        if (hl >= 4 && memcmp(r->head + hl - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    if (sscanf(r->head, "HTTP/1.1 %d", &r->status) != 1)
        return -1;
    const char *cl = strstr(r->head, "Content-Length: ");
    size_t len = cl ? strtoul(cl + 16, NULL, 10) : 0;
    r->body = base_malloc(len + 1);
    if (!r->body)
        return -1;
    if (head_only)
        len = 0;
    size_t got = 0;
    while (got < len) {
        ssize_t n = recv(fd, r->body + got, len - got, 0);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    r->body[got] = '\0';
    r->body_len = got;
    return 0;
}

/* One request on a fresh connection. */
static int fetch(int port, const char *req, int head_only, reply *r)
{
    int fd = client_connect(port);
    if (fd < 0)
        return -1;
    int rc = send_str(fd, req, strlen(req));
    if (rc == 0)
        rc = read_reply(fd, head_only, r);
    close(fd);
    return rc;
}

static int get(int port, const char *path, reply *r)
{
    char req[1024];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path);
    return fetch(port, req, 0, r);
}

/* ---- fixture tree ------------------------------------------------------ */

static char g_tmp[256];  /* parent: holds secret.txt */
static char g_root[300]; /* served root */

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int make_tree(void)
{
    if (g_root[0])
        return 0;
    snprintf(g_tmp, sizeof g_tmp, "%s/fovea-httpd-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_tmp))
        return -1;
    snprintf(g_root, sizeof g_root, "%s/root", g_tmp);
    char sub[400];
    snprintf(sub, sizeof sub, "%s/sub", g_root);
    if (mkdir(g_root, 0700) != 0 || mkdir(sub, 0700) != 0)
        return -1;
    write_file(g_tmp, "secret.txt", "TOP-SECRET");
    write_file(g_root, "index.html", "<h1>home</h1>");
    write_file(g_root, "app.js", "console.log(1);");
    write_file(g_root, "style.css", "body{}");
    write_file(g_root, "data.json", "{\"a\":1}");
    write_file(g_root, "pic.png", "\x89PNG");
    write_file(g_root, "a b.txt", "spaced");
    write_file(sub, "index.html", "<p>sub</p>");
    char link[400], target[400];
    snprintf(link, sizeof link, "%s/escape.txt", g_root);
    snprintf(target, sizeof target, "%s/secret.txt", g_tmp);
    if (symlink(target, link) != 0)
        return -1;
    snprintf(link, sizeof link, "%s/updir", g_root);
    return symlink(g_tmp, link);
}

static serve_httpd *start_static(void)
{
    if (make_tree() != 0)
        return NULL;
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.root = g_root;
    serve_httpd *h = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (serve_httpd_start(&o, &h, err) != BASE_OK)
        fprintf(stderr, "httpd start: %s\n", err);
    return h;
}

/* ---- cases ------------------------------------------------------------- */

static void static_files(void)
{
    serve_httpd *h = start_static();
    CHECK(h);
    int port = serve_httpd_port(h);
    CHECK(port > 0);
    reply r;
    static const struct {
        const char *path, *body, *type;
    } want[] = {
        {"/", "<h1>home</h1>", "text/html"},
        {"/index.html", "<h1>home</h1>", "text/html"},
        {"/app.js", "console.log(1);", "text/javascript"},
        {"/style.css", "body{}", "text/css"},
        {"/data.json", "{\"a\":1}", "application/json"},
        {"/pic.png", "\x89PNG", "image/png"},
        {"/a%20b.txt", "spaced", "text/plain"},
        {"/sub/", "<p>sub</p>", "text/html"},
        {"/app.js?v=3", "console.log(1);", "text/javascript"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK_OK(get(port, want[i].path, &r));
        CHECK_EQ(r.status, 200);
        CHECK_STR(r.body, want[i].body);
        char ct[128];
        snprintf(ct, sizeof ct, "Content-Type: %s", want[i].type);
        CHECK_MSG(strstr(r.head, ct), "%s: %s", want[i].path, r.head);
        CHECK(strstr(r.head, "Cache-Control: no-store"));
        reply_free(&r);
    }
    /* A directory without its slash redirects so relative links work. */
    CHECK_OK(get(port, "/sub", &r));
    CHECK_EQ(r.status, 301);
    CHECK(strstr(r.head, "Location: /sub/\r\n"));
    reply_free(&r);
    CHECK_OK(get(port, "/missing.html", &r));
    CHECK_EQ(r.status, 404);
    reply_free(&r);
    serve_httpd_destroy(h);
}

static void mime_types(void)
{
    CHECK_STR(serve_http_mime_type("a/b.HTML"), "text/html; charset=utf-8");
    CHECK_STR(serve_http_mime_type("x.svg"), "image/svg+xml");
    CHECK_STR(serve_http_mime_type("x.jpg"), "image/jpeg");
    CHECK_STR(serve_http_mime_type("x.woff2"), "font/woff2");
    CHECK_STR(serve_http_mime_type("favicon.ico"), "image/x-icon");
    CHECK_STR(serve_http_mime_type("notes.txt"), "text/plain; charset=utf-8");
    CHECK_STR(serve_http_mime_type("dir.d/noext"), "application/octet-stream");
    CHECK_STR(base_http_reason(431), "Request Header Fields Too Large");
}

static void traversal_blocked(void)
{
    serve_httpd *h = start_static();
    CHECK(h);
    int port = serve_httpd_port(h);
    static const char *const attacks[] = {
        "/../secret.txt",         "/%2e%2e/secret.txt",      "/%2E%2E/secret.txt",
        "/sub/../../secret.txt",  "/sub/..%2f..%2fsecret.txt", "/..%2fsecret.txt",
        "/escape.txt",            "/updir/secret.txt",       "//etc/passwd",
        "/%00secret.txt",         "/bad%zzescape",           "/%2",
    };
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        reply r;
        CHECK_OK(get(port, attacks[i], &r));
        CHECK_MSG(r.status == 404 || r.status == 400, "%s -> %d", attacks[i], r.status);
        CHECK_MSG(!strstr(r.body, "TOP-SECRET"), "%s leaked the file", attacks[i]);
        reply_free(&r);
    }
    /* Absolute-form and asterisk targets are not served. */
    reply r;
    CHECK_OK(fetch(port, "GET http://127.0.0.1/secret.txt HTTP/1.1\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 400);
    reply_free(&r);
    CHECK_OK(fetch(port, "GET secret.txt HTTP/1.1\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 400);
    reply_free(&r);
    serve_httpd_destroy(h);
}

static void head_and_keepalive(void)
{
    serve_httpd *h = start_static();
    CHECK(h);
    int fd = client_connect(serve_httpd_port(h));
    CHECK(fd >= 0);
    /* HEAD, then two GETs, all on one connection: if HEAD had sent a body,
     * the next status line would not parse. */
    static const char head_req[] = "HEAD /app.js HTTP/1.1\r\nHost: x\r\n\r\n";
    static const char get_req[] = "GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n";
    reply r;
    CHECK_OK(send_str(fd, head_req, sizeof head_req - 1));
    CHECK_OK(read_reply(fd, 1, &r));
    CHECK_EQ(r.status, 200);
    CHECK(strstr(r.head, "Content-Length: 15\r\n"));
    CHECK(strstr(r.head, "Connection: keep-alive"));
    reply_free(&r);
    for (int i = 0; i < 2; i++) {
        CHECK_OK(send_str(fd, get_req, sizeof get_req - 1));
        CHECK_OK(read_reply(fd, 0, &r));
        CHECK_EQ(r.status, 200);
        CHECK_STR(r.body, "body{}");
        reply_free(&r);
    }
    /* Pipelined: two requests in one write, two answers in order. */
    static const char two[] = "GET /app.js HTTP/1.1\r\n\r\nGET /data.json HTTP/1.1\r\n\r\n";
    CHECK_OK(send_str(fd, two, sizeof two - 1));
    CHECK_OK(read_reply(fd, 0, &r));
    CHECK_STR(r.body, "console.log(1);");
    reply_free(&r);
    CHECK_OK(read_reply(fd, 0, &r));
    CHECK_STR(r.body, "{\"a\":1}");
    reply_free(&r);
    /* Connection: close is honoured: the server closes after answering. */
    static const char last[] = "GET / HTTP/1.1\r\nConnection: close\r\n\r\n";
    CHECK_OK(send_str(fd, last, sizeof last - 1));
    CHECK_OK(read_reply(fd, 0, &r));
    CHECK(strstr(r.head, "Connection: close"));
    reply_free(&r);
    char c;
    CHECK_EQ(recv(fd, &c, 1, 0), 0);
    close(fd);
    serve_httpd_destroy(h);
}

/* Handler for the dynamic cases: echo, status codes, delays, garbage. */
static int test_handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    int *calls = user;
    __atomic_add_fetch(calls, 1, __ATOMIC_SEQ_CST);
    if (strcmp(req->path, "/echo") == 0 && strcmp(req->method, "POST") == 0) {
        snprintf(resp->content_type, sizeof resp->content_type, "application/json");
        const char *auth = serve_http_request_header(req, "x-token");
        serve_http_response_header(resp, "X-Seen-Token", auth ? auth : "none");
        serve_http_response_header(resp, "X-Query", req->query);
        base_buf_append(&resp->body, req->body, req->body_len);
        return 1;
    }
    if (strcmp(req->path, "/v1/chat/completions") == 0) {
        resp->status = 429;
        serve_http_response_header(resp, "Retry-After", "2");
        base_buf_append_str(&resp->body, "{\"error\":{\"message\":\"slow down\"}}");
        return 1;
    }
    if (strcmp(req->path, "/slow") == 0) {
        resp->delay_ms = 200;
        base_buf_append_str(&resp->body, "late");
        return 1;
    }
    if (strcmp(req->path, "/hang") == 0) {
        resp->delay_ms = 60000;
        return 1;
    }
    if (strcmp(req->path, "/garbage") == 0) {
        resp->raw = 1;
        base_buf_append_str(&resp->body, "\x01\x02 this is not HTTP");
        return 1;
    }
    return 0; /* everything else: static files */
}

static serve_httpd *start_dynamic(int *calls, size_t max_body)
{
    if (make_tree() != 0)
        return NULL;
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.root = g_root;
    o.handler = test_handler;
    o.user = calls;
    o.max_body_bytes = max_body;
    serve_httpd *h = NULL;
    serve_httpd_start(&o, &h, NULL);
    return h;
}

static void post_handler(void)
{
    int calls = 0;
    serve_httpd *h = start_dynamic(&calls, 0);
    CHECK(h);
    int port = serve_httpd_port(h);
    reply r;
    CHECK_OK(fetch(port,
                   "POST /echo?x=1 HTTP/1.1\r\nX-Token:  abc \r\nContent-Length: 11\r\n\r\n"
                   "{\"hi\":true}",
                   0, &r));
    CHECK_EQ(r.status, 200);
    CHECK_STR(r.body, "{\"hi\":true}");
    CHECK(strstr(r.head, "Content-Type: application/json\r\n"));
    CHECK(strstr(r.head, "X-Seen-Token: abc\r\n"));
    CHECK(strstr(r.head, "X-Query: x=1\r\n"));
    reply_free(&r);

    /* A 1 MiB body announced with Expect: 100-continue, as curl sends it. */
    size_t big = 1u << 20;
    char *body = base_malloc(big);
    CHECK(body);
    for (size_t i = 0; i < big; i++)
        body[i] = (char)('a' + i % 26);
    int fd = client_connect(port);
    CHECK(fd >= 0);
    char head[256];
    int hn = snprintf(head, sizeof head,
                      "POST /echo HTTP/1.1\r\nContent-Length: %zu\r\nExpect: 100-continue\r\n\r\n",
                      big);
    CHECK_OK(send_str(fd, head, (size_t)hn));
    CHECK_OK(read_reply(fd, 1, &r));
    CHECK_EQ(r.status, 100);
    reply_free(&r);
    CHECK_OK(send_str(fd, body, big));
    CHECK_OK(read_reply(fd, 0, &r));
    CHECK_EQ(r.status, 200);
    CHECK_EQ(r.body_len, big);
    CHECK(memcmp(r.body, body, big) == 0);
    reply_free(&r);
    close(fd);
    base_free(body);

    /* Declined paths fall through to the static root; POST there is 405. */
    CHECK_OK(get(port, "/app.js", &r));
    CHECK_EQ(r.status, 200);
    reply_free(&r);
    CHECK_OK(fetch(port, "POST /app.js HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 405);
    CHECK(strstr(r.head, "Allow: GET, HEAD\r\n"));
    reply_free(&r);
    CHECK_OK(fetch(port, "DELETE / HTTP/1.1\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 405);
    reply_free(&r);
    CHECK(calls >= 5);
    serve_httpd_destroy(h);
}

static void handler_status_delay_garbage(void)
{
    int calls = 0;
    serve_httpd *h = start_dynamic(&calls, 0);
    CHECK(h);
    int port = serve_httpd_port(h);
    reply r;
    CHECK_OK(fetch(port, "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 0,
                   &r));
    CHECK_EQ(r.status, 429);
    CHECK(strstr(r.head, "HTTP/1.1 429 Too Many Requests\r\n"));
    CHECK(strstr(r.head, "Retry-After: 2\r\n"));
    CHECK(strstr(r.body, "slow down"));
    reply_free(&r);

    double t0 = base_monotime_ms();
    CHECK_OK(get(port, "/slow", &r));
    double dt = base_monotime_ms() - t0;
    CHECK_STR(r.body, "late");
    CHECK_MSG(dt >= 190 && dt < 2000, "delay took %.0f ms", dt);
    reply_free(&r);

    int fd = client_connect(port);
    CHECK(fd >= 0);
    static const char req[] = "GET /garbage HTTP/1.1\r\n\r\n";
    CHECK_OK(send_str(fd, req, sizeof req - 1));
    char buf[128];
    size_t got = 0;
    for (;;) {
        ssize_t n = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    close(fd);
    CHECK_STR(buf, "\x01\x02 this is not HTTP");
    serve_httpd_destroy(h);
}

static void limits(void)
{
    int calls = 0;
    serve_httpd *h = start_dynamic(&calls, 1000);
    CHECK(h);
    int port = serve_httpd_port(h);
    /* A 20 KiB header is over the 16 KiB default. */
    size_t n = 20 * 1024;
    char *req = base_malloc(n + 64);
    CHECK(req);
    int off = snprintf(req, n + 64, "GET / HTTP/1.1\r\nX-Big: ");
    memset(req + off, 'a', n);
    memcpy(req + off + n, "\r\n\r\n", 5);
    reply r;
    int rc = fetch(port, req, 0, &r);
    base_free(req);
    CHECK_OK(rc);
    CHECK_MSG(r.status == 431 || r.status == 400, "status %d", r.status);
    reply_free(&r);
    CHECK_OK(fetch(port, "POST /echo HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 413);
    reply_free(&r);
    CHECK_OK(fetch(port, "POST /echo HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                   0, &r));
    CHECK_EQ(r.status, 400);
    reply_free(&r);
    CHECK_OK(fetch(port, "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 501);
    reply_free(&r);
    CHECK_OK(fetch(port, "GARBAGE\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 400);
    reply_free(&r);
    CHECK_OK(fetch(port, "GET / HTTP/2.0\r\n\r\n", 0, &r));
    CHECK_EQ(r.status, 505);
    reply_free(&r);
    serve_httpd_destroy(h);
}

static void two_servers(void)
{
    int calls = 0;
    serve_httpd *a = start_static();
    serve_httpd *b = start_dynamic(&calls, 0);
    CHECK(a && b);
    CHECK(serve_httpd_port(a) != serve_httpd_port(b));
    reply r;
    CHECK_OK(get(serve_httpd_port(a), "/", &r));
    CHECK_EQ(r.status, 200);
    reply_free(&r);
    CHECK_OK(get(serve_httpd_port(b), "/slow", &r));
    CHECK_STR(r.body, "late");
    reply_free(&r);
    /* Binding a taken port fails cleanly. */
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.port = serve_httpd_port(a);
    serve_httpd *c = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(serve_httpd_start(&o, &c, err), BASE_EIO);
    CHECK(c == NULL);
    CHECK(strstr(err, "bind"));
    serve_httpd_destroy(a);
    serve_httpd_destroy(b);
    serve_httpd_destroy(NULL);
}

static void destroy_is_prompt(void)
{
    int calls = 0;
    serve_httpd *h = start_dynamic(&calls, 0);
    CHECK(h);
    int port = serve_httpd_port(h);
    /* One idle keep-alive connection, one stalled mid-head, one waiting on a
     * 60 s handler delay. */
    int idle = client_connect(port);
    CHECK(idle >= 0);
    static const char req[] = "GET /app.js HTTP/1.1\r\n\r\n";
    CHECK_OK(send_str(idle, req, sizeof req - 1));
    reply r;
    CHECK_OK(read_reply(idle, 0, &r));
    reply_free(&r);
    int stalled = client_connect(port);
    CHECK(stalled >= 0);
    CHECK_OK(send_str(stalled, "GET / HT", 8));
    int hang = client_connect(port);
    CHECK(hang >= 0);
    static const char hreq[] = "GET /hang HTTP/1.1\r\n\r\n";
    CHECK_OK(send_str(hang, hreq, sizeof hreq - 1));
    base_sleep_ms(100);
    double t0 = base_monotime_ms();
    serve_httpd_destroy(h);
    double dt = base_monotime_ms() - t0;
    CHECK_MSG(dt < 1000, "destroy took %.0f ms", dt);
    /* The server side is closed: reads see EOF, not a hang. */
    char c;
    CHECK_EQ(recv(idle, &c, 1, 0), 0);
    close(idle);
    close(stalled);
    close(hang);
}

static void response_header_helper(void)
{
    serve_http_response resp;
    memset(&resp, 0, sizeof resp);
    CHECK_OK(serve_http_response_header(&resp, "Retry-After", "3"));
    CHECK_STR(resp.extra_headers, "Retry-After: 3\r\n");
    CHECK_EQ(serve_http_response_header(&resp, "X", "a\r\nInjected: 1"), BASE_EINVAL);
    char big[600];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK_EQ(serve_http_response_header(&resp, "X-Big", big), BASE_ETOOBIG);
    CHECK_STR(resp.extra_headers, "Retry-After: 3\r\n");
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.root = "/nonexistent/fovea";
    serve_httpd *h = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(serve_httpd_start(&o, &h, err), BASE_EINVAL);
    CHECK(h == NULL);
    CHECK(strstr(err, "not a directory"));
}

/* ---- streamed responses --------------------------------------------------- */

/* The handler streams "first" and then waits (up to 5 s) for the client to
 * say it has read it, proving the chunk left before the handler returned;
 * it ends with "last" left in the body. */
typedef struct stream_sync {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int client_saw_first;
    base_err late_write; /* a write after the client closed */
} stream_sync;

static int stream_handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    stream_sync *sy = user;
    snprintf(resp->content_type, sizeof resp->content_type, "text/event-stream");
    serve_http_response_header(resp, "X-Kind", "live");
    if (strcmp(req->path, "/gone") == 0) {
        serve_http_stream_write(resp, "x", 1);
        /* The client closes after the head: writing on fails, in time. */
        base_err e = BASE_OK;
        for (int i = 0; i < 200 && !e; i++) {
            base_sleep_ms(10);
            e = serve_http_stream_write(resp, "data: more\n\n", 12);
        }
        pthread_mutex_lock(&sy->mu);
        sy->late_write = e;
        pthread_cond_broadcast(&sy->cv);
        pthread_mutex_unlock(&sy->mu);
        return 1;
    }
    serve_http_stream_write(resp, "first", 5);
    double end = base_monotime_ms() + 5000;
    pthread_mutex_lock(&sy->mu);
    while (!sy->client_saw_first && base_monotime_ms() < end) {
        struct timespec ts;
        base_deadline_ts(&ts, 50);
        pthread_cond_timedwait(&sy->cv, &sy->mu, &ts);
    }
    pthread_mutex_unlock(&sy->mu);
    base_buf_append_str(&resp->body, "last");
    return 1;
}

/* Reads until `want` has appeared in buf (n bytes, NUL-terminated). */
static int read_until(int fd, char *buf, size_t cap, size_t *len, const char *want)
{
    while (!strstr(buf, want)) {
        if (*len + 1 >= cap)
            return -1;
        ssize_t n = recv(fd, buf + *len, cap - 1 - *len, 0);
        if (n <= 0)
            return -1;
        *len += (size_t)n;
        buf[*len] = '\0';
    }
    return 0;
}

static void streamed(void)
{
    stream_sync sy = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, BASE_OK};
    serve_httpd_opts o = {0};
    o.handler = stream_handler;
    o.user = &sy;
    serve_httpd *h = NULL;
    char err[256] = "";
    CHECK_OK(serve_httpd_start(&o, &h, err));
    if (!h)
        return;
    int fd = client_connect(serve_httpd_port(h));
    CHECK(fd >= 0);
    const char *rq = "GET /s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    CHECK_OK(send_str(fd, rq, strlen(rq)));
    char buf[4096] = "";
    size_t len = 0;
    /* The head and the first chunk arrive while the handler still waits. */
    CHECK_OK(read_until(fd, buf, sizeof buf, &len, "5\r\nfirst\r\n"));
    CHECK(strstr(buf, "HTTP/1.1 200 OK\r\n") == buf);
    CHECK(strstr(buf, "Transfer-Encoding: chunked\r\n") != NULL);
    CHECK(strstr(buf, "Content-Type: text/event-stream\r\n") != NULL);
    CHECK(strstr(buf, "X-Kind: live\r\n") != NULL);
    CHECK(strstr(buf, "Content-Length") == NULL);
    pthread_mutex_lock(&sy.mu);
    CHECK(!sy.client_saw_first);
    sy.client_saw_first = 1;
    pthread_cond_broadcast(&sy.cv);
    pthread_mutex_unlock(&sy.mu);
    /* Then the body's rest as a last chunk and the end of the stream. */
    CHECK_OK(read_until(fd, buf, sizeof buf, &len, "4\r\nlast\r\n0\r\n\r\n"));
    /* The connection stays usable (keep-alive). */
    pthread_mutex_lock(&sy.mu);
    sy.client_saw_first = 1;
    pthread_mutex_unlock(&sy.mu);
    CHECK_OK(send_str(fd, rq, strlen(rq)));
    len = 0;
    buf[0] = '\0';
    CHECK_OK(read_until(fd, buf, sizeof buf, &len, "0\r\n\r\n"));
    CHECK(strstr(buf, "first") != NULL && strstr(buf, "last") != NULL);
    close(fd);
    /* A client that goes away: the handler's next writes fail with EIO. */
    fd = client_connect(serve_httpd_port(h));
    const char *rg = "GET /gone HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    CHECK_OK(send_str(fd, rg, strlen(rg)));
    len = 0;
    buf[0] = '\0';
    CHECK_OK(read_until(fd, buf, sizeof buf, &len, "1\r\nx\r\n"));
    close(fd);
    pthread_mutex_lock(&sy.mu);
    double end = base_monotime_ms() + 10000;
    while (sy.late_write == BASE_OK && base_monotime_ms() < end) {
        struct timespec ts;
        base_deadline_ts(&ts, 50);
        pthread_cond_timedwait(&sy.cv, &sy.mu, &ts);
    }
    CHECK_EQ(sy.late_write, BASE_EIO);
    pthread_mutex_unlock(&sy.mu);
    CHECK_EQ(serve_http_stream_write(NULL, "x", 1), BASE_EINVAL);
    serve_httpd_destroy(h);
}

static const check_case cases[] = {
    {"static_files", static_files},
    {"mime_types", mime_types},
    {"traversal_blocked", traversal_blocked},
    {"head_and_keepalive", head_and_keepalive},
    {"post_handler", post_handler},
    {"handler_status_delay_garbage", handler_status_delay_garbage},
    {"limits", limits},
    {"two_servers", two_servers},
    {"destroy_is_prompt", destroy_is_prompt},
    {"response_header_helper", response_header_helper},
    {"streamed", streamed},
    {NULL, NULL},
};

static void rm_fixture(void)
{
    if (!g_root[0])
        return;
    static const char *const files[] = {"index.html", "app.js", "style.css", "data.json",
                                        "pic.png", "a b.txt", "escape.txt", "updir",
                                        "sub/index.html"};
    char p[600];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_root, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/sub", g_root);
    rmdir(p);
    rmdir(g_root);
    snprintf(p, sizeof p, "%s/secret.txt", g_tmp);
    unlink(p);
    rmdir(g_tmp);
}

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    rm_fixture();
    return rc;
}

/* tests/cdp/test_ws.c: how cdp_connect, cdp_discover_with and
 * cdp_browser_attach_with talk to a browser pool, against a tiny loopback
 * HTTP responder of this file (protocol testing: the real pool runs in
 * tests/tools/test_cmd_batch.c).
 *
 * status_401: an upgrade answered 401 is BASE_EREMOTE naming the refused
 * token; the path and query went out as given; the token is not in the
 * message. status_429_retry: a full pool (429) is BASE_EBUSY and, with a
 * wait, is asked again with backoff until the wait is over. headers_no_path:
 * "ws://host:port?token=T" asks for "/?token=T" (no "bad port") and sends the
 * extra headers. slow_handshake: an upgrade the pool answers after 6 s
 * (queued) is still waited for (libwebsockets' own 5 s default would drop
 * it). bad_header: a header with a line break is refused before anything is
 * sent. discover_chunked: /json/version is asked with the endpoint's query
 * and the headers, a chunked reply is read, and the query goes onto the
 * found websocket URL. discover_401: a refused token in discovery is named.
 */
#include "check.h"

#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "cdp/browser.h"
#include "cdp/cdp.h"
#include "cdp/launch.h"

typedef struct responder {
    int fd, port;
    pthread_t th;
    const char *reply; /* sent to every request */
    int delay_ms;      /* before replying */
    int stop;
    pthread_mutex_t mu;
    int requests;
    char last[4096]; /* the last request's head */
} responder;

static void *serve(void *arg)
{
    responder *r = arg;
    for (;;) {
        int c = accept(r->fd, NULL, NULL);
        pthread_mutex_lock(&r->mu);
        int stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (c < 0 || stop) {
            if (c >= 0)
                close(c);
            return NULL;
        }
        char buf[4096];
        size_t n = 0;
        while (n + 1 < sizeof buf) {
            ssize_t k = recv(c, buf + n, sizeof buf - 1 - n, 0);
            if (k <= 0)
                break;
            n += (size_t)k;
            buf[n] = '\0';
            if (strstr(buf, "\r\n\r\n"))
                break;
        }
        buf[n] = '\0';
        pthread_mutex_lock(&r->mu);
        r->requests++;
        snprintf(r->last, sizeof r->last, "%s", buf);
        pthread_mutex_unlock(&r->mu);
        if (r->delay_ms) {
            struct timespec ts = {r->delay_ms / 1000, (long)(r->delay_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        size_t len = strlen(r->reply);
        if (send(c, r->reply, len, MSG_NOSIGNAL) < 0) {
            /* the client gave up; nothing to do */
        }
        close(c);
    }
}

static int responder_start(responder *r, const char *reply, int delay_ms)
{
    memset(r, 0, sizeof *r);
    r->reply = reply;
    r->delay_ms = delay_ms;
    pthread_mutex_init(&r->mu, NULL);
    r->fd = check_loopback_socket(1, &r->port);
    if (r->fd < 0)
        return -1;
    return pthread_create(&r->th, NULL, serve, r) == 0 ? 0 : -1;
}

static void responder_stop(responder *r)
{
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_mutex_unlock(&r->mu);
    /* Wake accept() with one last connection. */
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)r->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (c >= 0 && connect(c, (struct sockaddr *)&a, sizeof a) == 0) {
        /* accepted and closed by serve */
    }
    pthread_join(r->th, NULL);
    if (c >= 0)
        close(c);
    close(r->fd);
    pthread_mutex_destroy(&r->mu);
}

#define R401 "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
#define R429 "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

/* Answers one connect (discover 0) or discovery (1) to the URL
 * scheme://127.0.0.1:PORT + rest with reply; r->last then holds the
 * request, err the message. Returns what the call returned. */
static base_err ask(responder *r, const char *reply, const char *scheme, const char *rest,
                    int discover, char *err)
{
    if (responder_start(r, reply, 0) != 0)
        return BASE_EIO;
    char url[256];
    snprintf(url, sizeof url, "%s://127.0.0.1:%d%s", scheme, r->port, rest);
    base_err e;
    if (discover) {
        char *ws = NULL;
        e = cdp_discover_with(url, NULL, &ws, err);
        base_free(ws);
    } else {
        cdp_conn *c = NULL;
        e = cdp_connect(url, NULL, &c, err);
        cdp_conn_destroy(c);
    }
    responder_stop(r);
    return e;
}

static void status_401(void)
{
    responder r;
    char err[256] = "";
    CHECK_EQ(ask(&r, R401, "ws", "/chromium?token=s3cr3t", 0, err), BASE_EREMOTE);
    CHECK_MSG(strstr(err, "HTTP 401: the token was refused") != NULL, "err: %s", err);
    CHECK_MSG(strstr(err, "s3cr3t") == NULL, "the token is in the message: %s", err);
    CHECK_MSG(strncmp(r.last, "GET /chromium?token=s3cr3t HTTP/1.1\r\n", 37) == 0, "request: %s",
              r.last);
}

static void status_429_retry(void)
{
    responder r;
    CHECK_OK(responder_start(&r, R429, 0));
    char url[256], err[256] = "";
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/chromium?token=t", r.port);
    cdp_conn *c = NULL;
    CHECK_EQ(cdp_connect(url, NULL, &c, err), BASE_EBUSY);
    CHECK_MSG(strstr(err, "HTTP 429: the pool is full") != NULL, "err: %s", err);
    /* With a wait: asked again (0.25 s, 0.5 s, ...) until 1.2 s are over. */
    cdp_attach_opts o = {NULL, 1200};
    cdp_browser *b = NULL;
    int before = r.requests;
    err[0] = '\0'; /* errbufs keep their first error */
    double t0 = base_monotime_ms();
    base_err e = cdp_browser_attach_with(url, &o, &b, err);
    double ms = base_monotime_ms() - t0;
    responder_stop(&r);
    CHECK_EQ(e, BASE_EBUSY);
    CHECK_MSG(r.requests - before >= 3, "asked %d times", r.requests - before);
    CHECK_MSG(strstr(err, "still full after") != NULL, "err: %s", err);
    CHECK_MSG(ms >= 1000, "gave up after %.0f ms of a 1200 ms wait", ms);
}

static void headers_no_path(void)
{
    responder r;
    CHECK_OK(responder_start(&r, R429, 0));
    char url[256], err[256] = "";
    snprintf(url, sizeof url, "ws://127.0.0.1:%d?token=abc", r.port);
    const char *hdr[] = {"Authorization: Bearer xyz", NULL};
    cdp_conn_opts o = {.headers = hdr};
    cdp_conn *c = NULL;
    base_err e = cdp_connect(url, &o, &c, err);
    responder_stop(&r);
    CHECK_EQ(e, BASE_EBUSY);
    CHECK_MSG(strncmp(r.last, "GET /?token=abc HTTP/1.1\r\n", 26) == 0, "request: %s", r.last);
    CHECK_MSG(strstr(r.last, "\r\nauthorization: Bearer xyz\r\n") != NULL, "request: %s", r.last);
}

static void slow_handshake(void)
{
    responder r;
    CHECK_OK(responder_start(&r, R429, 6000));
    char url[256], err[256] = "";
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/chromium", r.port);
    cdp_conn_opts o = {.connect_timeout_ms = 9000};
    cdp_conn *c = NULL;
    base_err e = cdp_connect(url, &o, &c, err);
    responder_stop(&r);
    /* The answer after 6 s was read: not dropped at 5 s as "socket destroyed". */
    CHECK_MSG(e == BASE_EBUSY, "e=%d err: %s", (int)e, err);
}

static void bad_header(void)
{
    const char *hdr[] = {"X-Ok: 1\r\nX-Evil: 2", NULL};
    cdp_conn_opts o = {.headers = hdr};
    cdp_conn *c = NULL;
    char err[256] = "";
    CHECK_EQ(cdp_connect("ws://127.0.0.1:9/x", &o, &c, err), BASE_EINVAL);
    const char *noname[] = {": v", NULL};
    o.headers = noname;
    CHECK_EQ(cdp_connect("ws://127.0.0.1:9/x", &o, &c, err), BASE_EINVAL);
}

static void discover_chunked(void)
{
    /* The JSON in three chunks, as Node's http server sends it without a length. */
    static const char reply[] =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        "Connection: close\r\n\r\n"
        "10\r\n{\"Browser\": \"Chr\r\n"
        "1a\r\nome/1\", \"webSocketDebugger\r\n"
        "1f\r\nUrl\": \"ws://127.0.0.1:9/pool\"}\n\r\n"
        "0\r\n\r\n";
    responder r;
    CHECK_OK(responder_start(&r, reply, 0));
    char url[256], err[256] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%d?token=t0k", r.port);
    const char *hdr[] = {"Authorization: Bearer xyz", NULL};
    char *ws = NULL;
    base_err e = cdp_discover_with(url, hdr, &ws, err);
    responder_stop(&r);
    CHECK_MSG(e == BASE_OK, "err: %s", err);
    CHECK_STR(ws, "ws://127.0.0.1:9/pool?token=t0k");
    base_free(ws);
    CHECK_MSG(strncmp(r.last, "GET /json/version?token=t0k HTTP/1.1\r\n", 38) == 0, "request: %s",
              r.last);
    CHECK_MSG(strstr(r.last, "\r\nAuthorization: Bearer xyz\r\n") != NULL, "request: %s", r.last);
}

static void discover_401(void)
{
    /* browserless answers a missing token with a chunked 401. */
    static const char reply[] = "HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n"
                                "1e\r\nBad or missing authentication.\r\n0\r\n\r\n";
    responder r;
    char err[256] = "";
    CHECK_EQ(ask(&r, reply, "http", "/?token=wr0ng", 1, err), BASE_EREMOTE);
    CHECK_MSG(strstr(err, "HTTP 401: the token was refused") != NULL, "err: %s", err);
    CHECK_MSG(strstr(err, "wr0ng") == NULL, "the token is in the message: %s", err);
}

static const check_case cases[] = {{"status_401", status_401},
                                   {"status_429_retry", status_429_retry},
                                   {"headers_no_path", headers_no_path},
                                   {"slow_handshake", slow_handshake},
                                   {"bad_header", bad_header},
                                   {"discover_chunked", discover_chunked},
                                   {"discover_401", discover_401},
                                   {NULL, NULL}};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

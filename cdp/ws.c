/* cdp/ws.c: the DevTools websocket connection on libwebsockets.
 *
 * Design. libwebsockets is not thread-safe except for lws_cancel_service(),
 * so one private service thread owns the context and the wsi. Callers build
 * the whole outgoing text on their own thread, push it to a locked queue and
 * wake the service thread; it writes one queued message per WRITEABLE
 * callback (the lws rule) and re-arms itself while the queue is non-empty.
 * Replies are matched to pending calls by id under the same lock; completion
 * is signalled through one condition variable that every synchronous caller
 * waits on (a connection rarely has more than a handful of waiters, and the
 * broadcast keeps the bookkeeping trivially correct).
 *
 * Callbacks (async replies, events) always run on the service thread and
 * never under the lock, so a callback may queue further calls. Incoming
 * fragments accumulate in a capped buffer; a message larger than the cap
 * closes the connection with a clear reason instead of allocating without
 * bound.
 */
#include <errno.h>
#include <limits.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/log.h"
#include "base/num.h"
#include "base/utf8.h"
#include "cdp/cdp.h"

#define DEFAULT_MAX_MESSAGE ((size_t)256 << 20)
#define TICK_US 50000 /* async-deadline scan period */

typedef struct pending {
    struct pending *next;
    int64_t id;
    int64_t deadline_us; /* 0: no deadline (sync calls time out on their own) */
    int sync;
    int done;
    base_err e;
    cJSON *root;          /* sync: the reply tree, owning `result` */
    const cJSON *result;
    char msg[BASE_ERRBUF_SIZE];
    cdp_reply_cb cb;
    void *user;
    char session[64];     /* "" for browser-level calls; cdp_session_fail matches it */
} pending;

typedef struct outmsg {
    struct outmsg *next;
    size_t len;
    unsigned char data[]; /* LWS_PRE bytes of headroom, then the payload */
} outmsg;

typedef struct sub {
    struct sub *next;
    int id;
    char *method;  /* NULL: every event */
    char *session; /* NULL: every session */
    cdp_event_cb cb;
    void *user;
} sub;

enum { ST_CONNECTING, ST_OPEN, ST_CLOSED };

/* A session declared dead by cdp_session_fail (a crashed renderer, a closed
 * tab, a frozen page): its calls fail at once with e and why. A ring: the
 * oldest entry is reused, which only matters for runs with more than
 * MAX_DEAD dead targets, whose early ones are long gone. */
#define MAX_DEAD 32
typedef struct dead_session {
    char sid[64];
    base_err e;
    char why[200];
} dead_session;

struct cdp_conn {
    struct lws_context *ctx;
    struct lws *wsi;
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;
    int stop;
    char close_reason[BASE_ERRBUF_SIZE];
    int64_t next_id;
    pending *pend;
    outmsg *out_head, *out_tail;
    sub *subs;
    int next_sub;
    int running_sub; /* subscription whose callback is running now */
    base_buf rx;
    int rx_overflow;
    cdp_stats stats;
    lws_sorted_usec_list_t tick;
    dead_session dead[MAX_DEAD];
    int ndead, next_dead;
    /* Connect parameters, kept alive for lws during the handshake. */
    char host[256];
    char hosthdr[300];
    char path[1024];
    int port;
    int tls;
    /* Extra handshake headers (cdp_conn_opts.headers), split at the colon:
     * names end with ':' as lws wants them. */
    char (*hdr_name)[64];
    char (*hdr_value)[512];
    int nhdr;
    /* Pools: the HTTP status that refused the upgrade, the peer's close
     * frame and when the session opened, to name the cause of a close. */
    int pool;
    int http_status;
    int64_t open_us;
    int close_code;
    char close_text[124];
};

/* ---------- message parsing (pure) ---------- */

base_err cdp_msg_parse(const char *text, size_t n, cJSON **root_out, cdp_msg *msg, char *err)
{
    /* Page strings may hold half a surrogate pair (base/utf8.h), which
     * cJSON refuses, and with it the whole frame. */
    char *fixed = NULL;
    if (base_json_fix_surrogates(text, n, &fixed) != BASE_OK)
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
    cJSON *root = cJSON_ParseWithLength(fixed ? fixed : text, n);
    base_free(fixed);
    if (!root)
        return base_errf(err, BASE_EPROTO, "cdp: frame is not valid JSON (%zu bytes)", n);
    cdp_msg m;
    memset(&m, 0, sizeof m);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return base_errf(err, BASE_EPROTO, "cdp: frame is not a JSON object");
    }
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(root, "sessionId");
    if (sid && !cJSON_IsString(sid)) {
        cJSON_Delete(root);
        return base_errf(err, BASE_EPROTO, "cdp: sessionId is not a string");
    }
    m.session_id = sid ? sid->valuestring : NULL;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(root, "method");
    if (id) {
        double d = cJSON_IsNumber(id) ? id->valuedouble : -1;
        if (!cJSON_IsNumber(id) || d < 0 || d > 9007199254740991.0 || d != (double)(int64_t)d) {
            cJSON_Delete(root);
            return base_errf(err, BASE_EPROTO, "cdp: reply id is not a non-negative integer");
        }
        m.kind = CDP_MSG_REPLY;
        m.id = (int64_t)d;
        const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
        if (error) {
            const cJSON *em = cJSON_GetObjectItemCaseSensitive(error, "message");
            const cJSON *ec = cJSON_GetObjectItemCaseSensitive(error, "code");
            m.error_message = cJSON_IsString(em) ? em->valuestring : "unspecified error";
            m.error_code = 0;
            if (cJSON_IsNumber(ec) &&
                base_num_to_int_exact(ec->valuedouble, INT_MIN, INT_MAX, &m.error_code))
                m.error_code = 0; /* not an int: keep the message, drop the code */
        } else {
            const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "result");
            if (!cJSON_IsObject(res)) {
                cJSON_Delete(root);
                return base_errf(err, BASE_EPROTO, "cdp: reply %lld has neither result nor error",
                                 (long long)m.id);
            }
            m.result = res;
        }
    } else if (cJSON_IsString(method)) {
        m.kind = CDP_MSG_EVENT;
        m.method = method->valuestring;
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
        if (params && !cJSON_IsObject(params)) {
            base_errf(err, BASE_EPROTO, "cdp: event %.64s has non-object params", m.method);
            cJSON_Delete(root);
            return BASE_EPROTO;
        }
        m.params = params;
    } else {
        cJSON_Delete(root);
        return base_errf(err, BASE_EPROTO, "cdp: frame has neither id nor method");
    }
    *root_out = root;
    *msg = m;
    return BASE_OK;
}

/* ---------- helpers run on the service thread ---------- */

static pending *take_pending(cdp_conn *c, int64_t id)
{
    for (pending **pp = &c->pend; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            pending *p = *pp;
            *pp = p->next;
            p->next = NULL;
            return p;
        }
    }
    return NULL;
}

/* Fails every pending call; called with the lock held. Async entries are
 * moved to *fired so their callbacks run after unlocking. */
static void fail_all_locked(cdp_conn *c, base_err e, const char *why, pending **fired)
{
    pending *p = c->pend;
    c->pend = NULL;
    while (p) {
        pending *next = p->next;
        p->e = e;
        snprintf(p->msg, sizeof p->msg, "%s", why);
        p->done = 1;
        if (p->sync) {
            p->next = NULL; /* the waiter frees it */
        } else {
            p->next = *fired;
            *fired = p;
        }
        p = next;
    }
}

static void run_fired(pending *fired)
{
    while (fired) {
        pending *next = fired->next;
        fired->cb(fired->e, fired->result, fired->e ? fired->msg : NULL, fired->user);
        cJSON_Delete(fired->root);
        base_free(fired);
        fired = next;
    }
}

/* The dead-session entry for sid, or NULL; called with the lock held. */
static const dead_session *find_dead_locked(cdp_conn *c, const char *sid)
{
    if (!sid || !sid[0])
        return NULL;
    for (int i = 0; i < c->ndead; i++) {
        if (strcmp(c->dead[i].sid, sid) == 0)
            return &c->dead[i];
    }
    return NULL;
}

static void mark_closed(cdp_conn *c, const char *why)
{
    pending *fired = NULL;
    pthread_mutex_lock(&c->mu);
    if (c->state != ST_CLOSED) {
        c->state = ST_CLOSED;
        snprintf(c->close_reason, sizeof c->close_reason, "%s", why);
        base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "connection closed: %s", why);
    }
    c->wsi = NULL;
    char msg[BASE_ERRBUF_SIZE];
    snprintf(msg, sizeof msg, "cdp: browser connection closed (%.200s)", c->close_reason);
    fail_all_locked(c, BASE_ECLOSED, msg, &fired);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    run_fired(fired);
}

static void dispatch_event(cdp_conn *c, const cdp_msg *m)
{
    /* Snapshot the matching subscriptions, then call each outside the lock,
     * re-checking that it still exists (it may have been removed meanwhile). */
    enum { MAXS = 64 };
    int ids[MAXS];
    int n = 0;
    pthread_mutex_lock(&c->mu);
    c->stats.events++;
    for (sub *s = c->subs; s && n < MAXS; s = s->next) {
        if (s->method && strcmp(s->method, m->method) != 0)
            continue;
        if (s->session && (!m->session_id || strcmp(s->session, m->session_id) != 0))
            continue;
        ids[n++] = s->id;
    }
    pthread_mutex_unlock(&c->mu);
    for (int i = 0; i < n; i++) {
        cdp_event_cb cb = NULL;
        void *user = NULL;
        pthread_mutex_lock(&c->mu);
        for (sub *s = c->subs; s; s = s->next) {
            if (s->id == ids[i]) {
                cb = s->cb;
                user = s->user;
                c->running_sub = s->id;
                break;
            }
        }
        pthread_mutex_unlock(&c->mu);
        if (!cb)
            continue;
        cb(m->session_id, m->method, m->params, user);
        pthread_mutex_lock(&c->mu);
        c->running_sub = 0;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
}

static void handle_message(cdp_conn *c, const char *text, size_t n)
{
    cJSON *root = NULL;
    cdp_msg m;
    char err[BASE_ERRBUF_SIZE] = "";
    if (cdp_msg_parse(text, n, &root, &m, err) != BASE_OK) {
        pthread_mutex_lock(&c->mu);
        c->stats.malformed++;
        pthread_mutex_unlock(&c->mu);
        base_log(BASE_LOG_CDP, BASE_LOG_WARN, "dropped malformed frame: %s", err);
        return;
    }
    if (m.kind == CDP_MSG_EVENT) {
        dispatch_event(c, &m);
        cJSON_Delete(root);
        return;
    }
    pthread_mutex_lock(&c->mu);
    c->stats.received++;
    pending *p = take_pending(c, m.id);
    if (!p) {
        /* A reply for a call that already timed out, or a peer inventing ids. */
        c->stats.late_replies++;
        pthread_mutex_unlock(&c->mu);
        base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "reply for unknown or expired id %lld",
                 (long long)m.id);
        cJSON_Delete(root);
        return;
    }
    p->done = 1;
    if (m.error_message) {
        p->e = BASE_EREMOTE;
        snprintf(p->msg, sizeof p->msg, "%s (code %d)", m.error_message, m.error_code);
    } else {
        p->e = BASE_OK;
    }
    p->root = root;
    p->result = m.result;
    if (p->sync) {
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        return;
    }
    pthread_mutex_unlock(&c->mu);
    run_fired(p);
}

static void schedule_tick(cdp_conn *c);

static void on_tick(lws_sorted_usec_list_t *sul)
{
    cdp_conn *c = lws_container_of(sul, cdp_conn, tick);
    int64_t now = base_monotime();
    pending *fired = NULL;
    pthread_mutex_lock(&c->mu);
    for (pending **pp = &c->pend; *pp;) {
        pending *p = *pp;
        if (!p->sync && p->deadline_us && now >= p->deadline_us) {
            *pp = p->next;
            p->done = 1;
            p->e = BASE_ETIMEDOUT;
            snprintf(p->msg, sizeof p->msg, "cdp: call %lld timed out", (long long)p->id);
            p->next = fired;
            fired = p;
        } else {
            pp = &p->next;
        }
    }
    pthread_mutex_unlock(&c->mu);
    run_fired(fired);
    schedule_tick(c);
}

static void schedule_tick(cdp_conn *c)
{
    lws_sul_schedule(c->ctx, 0, &c->tick, on_tick, TICK_US);
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len)
{
    (void)user;
    cdp_conn *c = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: {
        unsigned char **p = (unsigned char **)in;
        unsigned char *end = *p + len;
        for (int i = 0; i < c->nhdr; i++) {
            if (lws_add_http_header_by_name(wsi, (const unsigned char *)c->hdr_name[i],
                                            (const unsigned char *)c->hdr_value[i],
                                            (int)strlen(c->hdr_value[i]), p, end))
                return -1;
        }
        break;
    }
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: {
        /* A close frame: a 2-byte status code, then an optional reason. */
        const unsigned char *b = in;
        if (b && len >= 2) {
            c->close_code = (b[0] << 8) | b[1];
            size_t tl = len - 2 < sizeof c->close_text - 1 ? len - 2 : sizeof c->close_text - 1;
            memcpy(c->close_text, b + 2, tl);
            c->close_text[tl] = '\0';
        }
        break;
    }
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        pthread_mutex_lock(&c->mu);
        c->open_us = base_monotime();
        c->state = ST_OPEN;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        lws_callback_on_writable(wsi);
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        /* An HTTP answer instead of the upgrade (401 bad token, 429 a full
         * pool) is kept: lws only says "not 101". */
        int status = wsi ? (int)lws_http_client_http_response(wsi) : 0;
        if (status <= 0 && wsi) {
            char sb[16];
            if (lws_hdr_copy(wsi, sb, (int)sizeof sb, WSI_TOKEN_HTTP) > 0)
                status = (int)strtol(sb, NULL, 10);
        }
        pthread_mutex_lock(&c->mu);
        if (status >= 100 && status <= 599 && status != 101)
            c->http_status = status;
        pthread_mutex_unlock(&c->mu);
        char why[200];
        snprintf(why, sizeof why, "connect failed: %s", in ? (const char *)in : "unknown");
        mark_closed(c, why);
        break;
    }
    case LWS_CALLBACK_CLIENT_CLOSED: {
        char why[200];
        if (c->pool && c->open_us) {
            /* A pool ends a session at its time limit (browserless: TIMEOUT)
             * or when its browser goes; the time open names which. */
            long s = (long)((base_monotime() - c->open_us + 500000) / 1000000);
            int k = snprintf(why, sizeof why, "the pool closed the session after %ld s", s);
            if (c->close_code && k > 0 && (size_t)k < sizeof why)
                snprintf(why + k, sizeof why - (size_t)k, " (close code %d%s%.100s)",
                         c->close_code, c->close_text[0] ? ": " : "", c->close_text);
        } else {
            snprintf(why, sizeof why, "peer closed the socket");
        }
        mark_closed(c, why);
        break;
    }
    case LWS_CALLBACK_WSI_DESTROY:
        if (c && c->wsi == wsi)
            mark_closed(c, "socket destroyed");
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        if (lws_is_first_fragment(wsi)) {
            base_buf_reset(&c->rx);
            c->rx_overflow = 0;
        }
        if (!c->rx_overflow && base_buf_append(&c->rx, in, len) != BASE_OK)
            c->rx_overflow = 1;
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) != 0)
            break;
        if (c->rx_overflow) {
            char why[160];
            snprintf(why, sizeof why, "incoming message exceeds the %zu-byte cap", c->rx.max);
            base_log(BASE_LOG_CDP, BASE_LOG_ERROR, "%s", why);
            mark_closed(c, why);
            return -1;
        }
        if (lws_frame_is_binary(wsi)) {
            pthread_mutex_lock(&c->mu);
            c->stats.malformed++;
            pthread_mutex_unlock(&c->mu);
            base_log(BASE_LOG_CDP, BASE_LOG_WARN, "dropped binary frame (%zu bytes)", c->rx.len);
            break;
        }
        handle_message(c, (const char *)c->rx.data, c->rx.len);
        /* Give back the memory of huge messages (screenshots) promptly. */
        if (c->rx.cap > ((size_t)4 << 20))
            base_buf_fini(&c->rx);
        break;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        pthread_mutex_lock(&c->mu);
        outmsg *m = c->out_head;
        if (m) {
            c->out_head = m->next;
            if (!c->out_head)
                c->out_tail = NULL;
        }
        int more = c->out_head != NULL;
        pthread_mutex_unlock(&c->mu);
        if (!m)
            break;
        int w = lws_write(wsi, m->data + LWS_PRE, m->len, LWS_WRITE_TEXT);
        base_free(m);
        if (w < 0) {
            mark_closed(c, "write failed");
            return -1;
        }
        if (more)
            lws_callback_on_writable(wsi);
        break;
    }
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        /* Another thread queued output or asked us to stop. */
        pthread_mutex_lock(&c->mu);
        int want = c->out_head != NULL && c->state == ST_OPEN && c->wsi != NULL;
        struct lws *w = c->wsi;
        pthread_mutex_unlock(&c->mu);
        if (want)
            lws_callback_on_writable(w);
        break;
    }
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"fovea-cdp", ws_callback, 0, 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void lws_logger(int level, const char *line)
{
    /* lws lines end with a newline; strip it for base_log. Its errors are
     * debug-level here because fovea reports the same failures itself, with
     * context, through the caller's error buffer. */
    (void)level;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "lws: %.*s", (int)n, line);
}

static void *service_main(void *arg)
{
    cdp_conn *c = arg;
    schedule_tick(c);
    for (;;) {
        pthread_mutex_lock(&c->mu);
        int stop = c->stop;
        pthread_mutex_unlock(&c->mu);
        if (stop)
            break;
        if (lws_service(c->ctx, 0) < 0)
            break;
    }
    lws_sul_cancel(&c->tick);
    return NULL;
}

/* ---------- public API ---------- */

static base_err parse_port(const char *s, int *port)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v <= 0 || v > 65535)
        return BASE_EINVAL;
    *port = (int)v;
    return BASE_OK;
}

static base_err parse_ws_url(cdp_conn *c, const char *url, char *err)
{
    /* Messages show the URL up to its query, which may hold a token. */
    int shown = (int)strcspn(url, "?");
    const char *p;
    if (strncmp(url, "ws://", 5) == 0) {
        p = url + 5;
        c->tls = 0;
        c->port = 80;
    } else if (strncmp(url, "wss://", 6) == 0) {
        p = url + 6;
        c->tls = 1;
        c->port = 443;
    } else {
        return base_errf(err, BASE_EINVAL,
                         "cdp: websocket URL must start with ws:// or wss://: %.*s", shown, url);
    }
    /* The authority ends at the path or, without one, at the query
     * ("ws://host:port?token=T", as pools print their endpoints). */
    size_t hostlen = strcspn(p, "/?#");
    const char *rest = p + hostlen;
    if (hostlen == 0 || hostlen >= sizeof c->host)
        return base_errf(err, BASE_EINVAL, "cdp: bad host in websocket URL %.*s", shown, url);
    memcpy(c->host, p, hostlen);
    c->host[hostlen] = '\0';
    snprintf(c->hosthdr, sizeof c->hosthdr, "%s", c->host);
    /* Split host:port; an IPv6 literal is bracketed, "[::1]:9222". */
    char *portstr = NULL;
    if (c->host[0] == '[') {
        char *rb = strchr(c->host, ']');
        if (!rb || (rb[1] != '\0' && rb[1] != ':'))
            return base_errf(err, BASE_EINVAL, "cdp: bad IPv6 host in %.*s", shown, url);
        portstr = rb[1] == ':' ? rb + 2 : NULL;
        *rb = '\0';
        memmove(c->host, c->host + 1, strlen(c->host + 1) + 1);
    } else {
        char *colon = strrchr(c->host, ':');
        if (colon) {
            *colon = '\0';
            portstr = colon + 1;
        }
    }
    /* portstr points into host past its new terminator, so it is intact. */
    if (portstr && parse_port(portstr, &c->port) != BASE_OK)
        return base_errf(err, BASE_EINVAL, "cdp: bad port in %.*s", shown, url);
    /* The path keeps its query (a pool's token); a fragment is never sent. */
    size_t pathlen = strcspn(rest, "#");
    int slash = rest[0] == '/';
    if (pathlen + !slash >= sizeof c->path)
        return base_errf(err, BASE_EINVAL, "cdp: websocket path too long");
    snprintf(c->path, sizeof c->path, "%s%.*s", slash ? "" : "/", (int)pathlen, rest);
    return BASE_OK;
}

/* Copies opts->headers into c, split into lws's "name:" and value. */
static base_err copy_headers(cdp_conn *c, const char *const *headers, char *err)
{
    int n = 0;
    while (headers && headers[n])
        n++;
    if (n == 0)
        return BASE_OK;
    if (n > 16)
        return base_errf(err, BASE_EINVAL, "cdp: at most 16 extra handshake headers");
    c->hdr_name = base_calloc((size_t)n, sizeof *c->hdr_name);
    c->hdr_value = base_calloc((size_t)n, sizeof *c->hdr_value);
    if (!c->hdr_name || !c->hdr_value)
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
    for (int i = 0; i < n; i++) {
        const char *h = headers[i];
        const char *colon = strchr(h, ':');
        size_t nl = colon ? (size_t)(colon - h) : 0;
        /* A header name is a token; CR or LF in a value would split the request. */
        if (!colon || nl == 0 || nl + 2 > sizeof c->hdr_name[i] ||
            strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != nl ||
            strpbrk(colon, "\r\n"))
            return base_errf(err, BASE_EINVAL, "cdp: bad handshake header (want 'Name: value')");
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (strlen(v) >= sizeof c->hdr_value[i])
            return base_errf(err, BASE_EINVAL, "cdp: handshake header value too long");
        /* lws writes the name as given: lower case, as HTTP/2 requires and
         * HTTP/1.1 does not mind. */
        for (size_t k = 0; k < nl; k++) {
            char ch = h[k];
            c->hdr_name[i][k] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        }
        c->hdr_name[i][nl] = ':';
        c->hdr_name[i][nl + 1] = '\0';
        snprintf(c->hdr_value[i], sizeof c->hdr_value[i], "%s", v);
    }
    c->nhdr = n;
    return BASE_OK;
}

/* Names an HTTP answer to the upgrade. The URL is cut at its query, which
 * may hold a token (nothing secret in any output). */
static base_err http_refusal(int status, const char *url, char *err)
{
    int shown = (int)strcspn(url, "?");
    if (status == 429 || status == 503)
        return base_errf(err, BASE_EBUSY,
                         "cdp: %.*s answered HTTP %d: the pool is full (no free browser and "
                         "no room in its queue)",
                         shown, url, status);
    if (status == 401 || status == 403)
        return base_errf(err, BASE_EREMOTE,
                         "cdp: %.*s answered HTTP %d: the token was refused (check the token "
                         "in the URL or the Authorization header)",
                         shown, url, status);
    return base_errf(err, BASE_EREMOTE, "cdp: %.*s answered HTTP %d instead of a websocket",
                     shown, url, status);
}

base_err cdp_connect(const char *ws_url, const cdp_conn_opts *opts, cdp_conn **out, char *err)
{
    if (!ws_url || !out)
        return base_errf(err, BASE_EINVAL, "cdp: connect needs a URL");
    /* Messages show the URL up to its query, which may hold a token. */
    int shown = (int)strcspn(ws_url, "?");
    if (shown > 100)
        shown = 100;
    static atomic_int log_configured;
    if (!atomic_exchange(&log_configured, 1))
        lws_set_log_level(LLL_ERR | LLL_WARN, lws_logger);

    cdp_conn *c = base_calloc(1, sizeof *c);
    if (!c)
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
    base_err e = BASE_OK;
    int mu_ok = 0, cv_ok = 0;
    size_t maxmsg = opts && opts->max_message ? opts->max_message : DEFAULT_MAX_MESSAGE;
    int timeout_ms = opts && opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 10000;
    base_buf_init(&c->rx, maxmsg);
    c->next_id = 1;
    c->next_sub = 1;
    c->state = ST_CONNECTING;
    if ((e = parse_ws_url(c, ws_url, err)) != BASE_OK)
        goto fail;
    if ((e = copy_headers(c, opts ? opts->headers : NULL, err)) != BASE_OK)
        goto fail;
    c->pool = opts && opts->pool;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        e = base_errf(err, BASE_ENOMEM, "cdp: mutex init failed");
        goto fail;
    }
    mu_ok = 1;
    if (pthread_cond_init(&c->cv, NULL) != 0) {
        e = base_errf(err, BASE_ENOMEM, "cdp: condvar init failed");
        goto fail;
    }
    cv_ok = 1;

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.gid = (gid_t)-1;
    info.uid = (uid_t)-1;
    info.user = c;
    info.options = c->tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0;
    info.pt_serv_buf_size = 65536;
    /* lws drops an unanswered handshake after timeout_secs (default 5 s); a
     * pool answers only when a browser is free, so it follows our deadline. */
    info.timeout_secs = (unsigned int)(timeout_ms / 1000 + 2);
    c->ctx = lws_create_context(&info);
    if (!c->ctx) {
        e = base_errf(err, BASE_ENOMEM, "cdp: could not create the websocket context");
        goto fail;
    }

    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = c->ctx;
    ci.address = c->host;
    ci.port = c->port;
    ci.path = c->path;
    ci.host = c->hosthdr;
    ci.origin = NULL; /* Chromium rejects unknown Origins; send none. */
    ci.protocol = NULL;
    ci.local_protocol_name = "fovea-cdp";
    ci.ssl_connection = c->tls ? LCCSCF_USE_SSL : 0;
    ci.pwsi = &c->wsi;
    /* No service thread runs yet, so touching lws from here is safe. */
    if (!lws_client_connect_via_info(&ci)) {
        if (c->state == ST_CLOSED)
            e = base_errf(err, BASE_ECLOSED, "cdp: %s (%.*s)", c->close_reason, shown, ws_url);
        else
            e = base_errf(err, BASE_ECLOSED, "cdp: could not start connecting to %.*s", shown,
                          ws_url);
        goto fail;
    }
    if (pthread_create(&c->thread, NULL, service_main, c) != 0) {
        e = base_errf(err, BASE_ENOMEM, "cdp: could not start the service thread");
        goto fail;
    }
    c->thread_started = 1;

    struct timespec ts;
    base_deadline_ts(&ts, timeout_ms);
    pthread_mutex_lock(&c->mu);
    while (c->state == ST_CONNECTING) {
        if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) == ETIMEDOUT)
            break;
    }
    int st = c->state;
    char why[BASE_ERRBUF_SIZE];
    snprintf(why, sizeof why, "%s", c->close_reason);
    pthread_mutex_unlock(&c->mu);
    if (st == ST_CONNECTING) {
        e = base_errf(err, BASE_ETIMEDOUT,
                      "cdp: websocket handshake with %.*s timed out after %d ms", shown, ws_url,
                      timeout_ms);
        goto fail;
    }
    if (st == ST_CLOSED) {
        pthread_mutex_lock(&c->mu);
        int status = c->http_status;
        pthread_mutex_unlock(&c->mu);
        e = status ? http_refusal(status, ws_url, err)
                   : base_errf(err, BASE_ECLOSED, "cdp: %s (%.*s)", why, shown, ws_url);
        goto fail;
    }
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "connected to %s:%d%s", c->host, c->port, c->path);
    *out = c;
    return BASE_OK;

fail:
    if (c->thread_started) {
        pthread_mutex_lock(&c->mu);
        c->stop = 1;
        pthread_mutex_unlock(&c->mu);
        lws_cancel_service(c->ctx);
        pthread_join(c->thread, NULL);
    }
    if (c->ctx)
        lws_context_destroy(c->ctx);
    if (cv_ok)
        pthread_cond_destroy(&c->cv);
    if (mu_ok)
        pthread_mutex_destroy(&c->mu);
    base_buf_fini(&c->rx);
    base_free(c->hdr_name);
    base_free(c->hdr_value);
    base_free(c);
    return e;
}

void cdp_conn_destroy(cdp_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_mutex_unlock(&c->mu);
    lws_cancel_service(c->ctx);
    pthread_join(c->thread, NULL);
    /* Fail whatever is still pending before the context goes away. */
    pending *fired = NULL;
    pthread_mutex_lock(&c->mu);
    fail_all_locked(c, BASE_ECANCELED, "cdp: connection destroyed", &fired);
    c->state = ST_CLOSED;
    pthread_mutex_unlock(&c->mu);
    run_fired(fired);
    lws_context_destroy(c->ctx);
    while (c->out_head) {
        outmsg *m = c->out_head;
        c->out_head = m->next;
        base_free(m);
    }
    while (c->subs) {
        sub *s = c->subs;
        c->subs = s->next;
        base_free(s->method);
        base_free(s->session);
        base_free(s);
    }
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    base_buf_fini(&c->rx);
    base_free(c->hdr_name);
    base_free(c->hdr_value);
    base_free(c);
}

/* Builds {"id":N,"sessionId":"..","method":"..","params":{..}} after LWS_PRE
 * bytes of headroom. Consumes params. */
static outmsg *build_message(int64_t id, const char *session_id, const char *method,
                             cJSON *params)
{
    char *ptext = NULL;
    if (params) {
        ptext = cJSON_PrintUnformatted(params);
        cJSON_Delete(params);
        if (!ptext)
            return NULL;
    }
    cJSON *sid = session_id ? cJSON_CreateString(session_id) : NULL;
    cJSON *meth = cJSON_CreateString(method);
    char *sidtext = sid ? cJSON_PrintUnformatted(sid) : NULL;
    char *methtext = meth ? cJSON_PrintUnformatted(meth) : NULL;
    cJSON_Delete(sid);
    cJSON_Delete(meth);
    outmsg *m = NULL;
    if (!methtext || (session_id && !sidtext))
        goto done;
    size_t cap = 96 + strlen(methtext) + (sidtext ? strlen(sidtext) : 0) +
                 (ptext ? strlen(ptext) : 2);
    m = base_malloc(sizeof *m + LWS_PRE + cap);
    if (!m)
        goto done;
    int n = snprintf((char *)m->data + LWS_PRE, cap, "{\"id\":%lld,%s%s%s\"method\":%s,\"params\":%s}",
                     (long long)id, sidtext ? "\"sessionId\":" : "", sidtext ? sidtext : "",
                     sidtext ? "," : "", methtext, ptext ? ptext : "{}");
    m->len = (size_t)n;
    m->next = NULL;
done:
    cJSON_free(ptext);
    cJSON_free(sidtext);
    cJSON_free(methtext);
    return m;
}

static base_err enqueue(cdp_conn *c, const char *session_id, const char *method, cJSON *params,
                        pending *p, char *err)
{
    pthread_mutex_lock(&c->mu);
    int64_t id = c->next_id++;
    int st = c->state;
    char why[BASE_ERRBUF_SIZE];
    snprintf(why, sizeof why, "%s", c->close_reason);
    pthread_mutex_unlock(&c->mu);
    if (st != ST_OPEN) {
        cJSON_Delete(params);
        return base_errf(err, BASE_ECLOSED, "cdp: %s: browser connection closed (%s)", method, why);
    }
    /* A session declared dead fails at once, with the reason it died. */
    pthread_mutex_lock(&c->mu);
    const dead_session *d = find_dead_locked(c, session_id);
    base_err de = d ? d->e : BASE_OK;
    if (d)
        snprintf(why, sizeof why, "%s", d->why);
    pthread_mutex_unlock(&c->mu);
    if (de) {
        cJSON_Delete(params);
        return base_errf(err, de, "cdp: %s: %s", method, why);
    }
    outmsg *m = build_message(id, session_id, method, params);
    if (!m)
        return base_errf(err, BASE_ENOMEM, "cdp: %s: out of memory building the message", method);
    p->id = id;
    snprintf(p->session, sizeof p->session, "%s", session_id ? session_id : "");
    pthread_mutex_lock(&c->mu);
    if (c->state != ST_OPEN) {
        pthread_mutex_unlock(&c->mu);
        base_free(m);
        return base_errf(err, BASE_ECLOSED, "cdp: %s: browser connection closed (%s)", method,
                         c->close_reason);
    }
    p->next = c->pend;
    c->pend = p;
    if (c->out_tail)
        c->out_tail->next = m;
    else
        c->out_head = m;
    c->out_tail = m;
    c->stats.sent++;
    pthread_mutex_unlock(&c->mu);
    lws_cancel_service(c->ctx);
    return BASE_OK;
}

/* After a stop signal the process has about a second to finish (docs/
 * safety.md): the calls of the graceful finish (disabling domains, closing
 * tabs) share a window of STOP_WINDOW_MS from when the first call saw the
 * signal, and each gets at least STOP_MIN_MS after it, so a frozen page
 * cannot hold the exit for each call's own timeout. Before a signal: the
 * timeout as given. */
#define STOP_WINDOW_MS 800
#define STOP_MIN_MS 150
static int stop_bounded_ms(int timeout_ms)
{
    /* Per thread: a server's cancellation of one call (base_interrupt_set_
     * thread_flag) is a stop on that thread only, and ends with the call. */
    static _Thread_local long long first_us; /* when a call here first saw the stop; 0 = not */
    if (!base_interrupted()) {
        first_us = 0;
        return timeout_ms;
    }
    long long now = (long long)(base_monotime_ms() * 1000.0);
    if (!first_us)
        first_us = now;
    double left = (double)(first_us - now) / 1000.0 + STOP_WINDOW_MS;
    int cap = left > STOP_MIN_MS ? (int)left : STOP_MIN_MS;
    return timeout_ms < cap ? timeout_ms : cap;
}

base_err cdp_call(cdp_conn *c, const char *session_id, const char *method, cJSON *params,
                  cJSON **result, int timeout_ms, char *err)
{
    if (!c || !method) {
        cJSON_Delete(params);
        return base_errf(err, BASE_EINVAL, "cdp: call needs a connection and a method");
    }
    pending *p = base_calloc(1, sizeof *p);
    if (!p) {
        cJSON_Delete(params);
        return base_errf(err, BASE_ENOMEM, "cdp: %s: out of memory", method);
    }
    p->sync = 1;
    base_err e = enqueue(c, session_id, method, params, p, err);
    if (e) {
        base_free(p);
        return e;
    }
    /* A stop signal (base/interrupt.h) that arrives while the call waits
     * cancels it: a frozen page would otherwise hold the run for the whole
     * timeout, past a supervisor's SIGKILL. The wait runs in slices to see
     * the flag. Calls made after the signal (the graceful finish: closing
     * tabs, the report) wait as usual. */
    int sig0 = base_interrupted();
    double end_ms = base_monotime_ms() + stop_bounded_ms(timeout_ms > 0 ? timeout_ms : 30000);
    int stopped = 0;
    pthread_mutex_lock(&c->mu);
    while (!p->done) {
        double left = end_ms - base_monotime_ms();
        if (left <= 0)
            break;
        if (!sig0 && base_interrupted()) {
            stopped = 1;
            break;
        }
        struct timespec ts;
        base_deadline_ts(&ts, left < 50 ? (int)left + 1 : 50);
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    if (!p->done) {
        /* Withdraw the call so a late reply is dropped, not delivered. */
        take_pending(c, p->id);
        pthread_mutex_unlock(&c->mu);
        base_free(p);
        if (stopped)
            return base_errf(err, BASE_ECANCELED, "cdp: %s: interrupted by %s", method,
                             base_signal_name(base_interrupted()));
        return base_errf(err, BASE_ETIMEDOUT, "cdp: %s timed out after %d ms", method,
                         timeout_ms);
    }
    pthread_mutex_unlock(&c->mu);
    e = p->e;
    if (e == BASE_OK) {
        if (result) {
            /* Detach "result" from the reply tree and hand it over. */
            *result = cJSON_DetachItemViaPointer(p->root, (cJSON *)(uintptr_t)p->result);
        }
    } else if (e == BASE_EREMOTE) {
        base_errf(err, e, "cdp: %s failed: %s", method, p->msg);
    } else {
        base_errf(err, e, "%s: %s", method, p->msg);
    }
    cJSON_Delete(p->root);
    base_free(p);
    return e;
}

base_err cdp_call_async(cdp_conn *c, const char *session_id, const char *method, cJSON *params,
                        int timeout_ms, cdp_reply_cb cb, void *user)
{
    if (!c || !method || !cb) {
        cJSON_Delete(params);
        return BASE_EINVAL;
    }
    pending *p = base_calloc(1, sizeof *p);
    if (!p) {
        cJSON_Delete(params);
        return BASE_ENOMEM;
    }
    p->cb = cb;
    p->user = user;
    p->deadline_us = timeout_ms > 0 ? base_monotime() + (int64_t)timeout_ms * 1000 : 0;
    base_err e = enqueue(c, session_id, method, params, p, NULL);
    if (e)
        base_free(p);
    return e;
}

int cdp_subscribe(cdp_conn *c, const char *method, const char *session_id, cdp_event_cb cb,
                  void *user)
{
    if (!c || !cb)
        return -(int)BASE_EINVAL;
    sub *s = base_calloc(1, sizeof *s);
    if (!s)
        return -(int)BASE_ENOMEM;
    s->method = method ? base_strdup(method) : NULL;
    s->session = session_id ? base_strdup(session_id) : NULL;
    if ((method && !s->method) || (session_id && !s->session)) {
        base_free(s->method);
        base_free(s->session);
        base_free(s);
        return -(int)BASE_ENOMEM;
    }
    s->cb = cb;
    s->user = user;
    pthread_mutex_lock(&c->mu);
    s->id = c->next_sub++;
    s->next = c->subs;
    c->subs = s;
    int id = s->id;
    pthread_mutex_unlock(&c->mu);
    return id;
}

void cdp_unsubscribe(cdp_conn *c, int id)
{
    if (!c || id <= 0)
        return;
    pthread_mutex_lock(&c->mu);
    sub *found = NULL;
    for (sub **pp = &c->subs; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            found = *pp;
            *pp = found->next;
            break;
        }
    }
    /* Wait out a running invocation unless we are that invocation. */
    if (c->thread_started && !pthread_equal(pthread_self(), c->thread)) {
        while (c->running_sub == id)
            pthread_cond_wait(&c->cv, &c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    if (found) {
        base_free(found->method);
        base_free(found->session);
        base_free(found);
    }
}

struct cdp_waiter {
    cdp_conn *c;
    char session[64]; /* "" = any session */
    int sub;
    int done;
    cJSON *params;
    int (*pred)(const cJSON *, void *);
    void *user;
};

static void waiter_cb(const char *session_id, const char *method, const cJSON *params,
                      void *user)
{
    (void)session_id;
    (void)method;
    cdp_waiter *w = user;
    cdp_conn *c = w->c;
    pthread_mutex_lock(&c->mu);
    int done = w->done;
    pthread_mutex_unlock(&c->mu);
    if (done)
        return;
    if (w->pred && !w->pred(params, w->user))
        return;
    cJSON *copy = params ? cJSON_Duplicate(params, 1) : cJSON_CreateObject();
    pthread_mutex_lock(&c->mu);
    w->done = 1;
    w->params = copy;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

base_err cdp_waiter_create(cdp_conn *c, const char *session_id, const char *method,
                           int (*pred)(const cJSON *params, void *user), void *user,
                           cdp_waiter **out)
{
    cdp_waiter *w = base_calloc(1, sizeof *w);
    if (!w)
        return BASE_ENOMEM;
    w->c = c;
    snprintf(w->session, sizeof w->session, "%s", session_id ? session_id : "");
    w->pred = pred;
    w->user = user;
    int id = cdp_subscribe(c, method, session_id, waiter_cb, w);
    if (id < 0) {
        base_free(w);
        return (base_err)(-id);
    }
    w->sub = id;
    *out = w;
    return BASE_OK;
}

base_err cdp_waiter_wait(cdp_waiter *w, int timeout_ms, cJSON **params)
{
    cdp_conn *c = w->c;
    struct timespec ts;
    base_deadline_ts(&ts, timeout_ms);
    pthread_mutex_lock(&c->mu);
    /* A dead session (crashed, closed, frozen page) will send nothing more. */
    const dead_session *d = NULL;
    while (!w->done && c->state == ST_OPEN && !(d = find_dead_locked(c, w->session))) {
        if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) == ETIMEDOUT)
            break;
    }
    base_err e = w->done                 ? BASE_OK
                 : c->state != ST_OPEN   ? BASE_ECLOSED
                 : d                     ? d->e
                                         : BASE_ETIMEDOUT;
    if (e == BASE_OK && params) {
        *params = w->params;
        w->params = NULL;
    }
    pthread_mutex_unlock(&c->mu);
    return e;
}

void cdp_waiter_destroy(cdp_waiter *w)
{
    if (!w)
        return;
    cdp_unsubscribe(w->c, w->sub);
    cJSON_Delete(w->params);
    base_free(w);
}

base_err cdp_session_fail(cdp_conn *c, const char *session_id, base_err e, const char *why)
{
    if (!c || !session_id || !session_id[0] || e == BASE_OK)
        return BASE_EINVAL;
    pending *fired = NULL;
    pthread_mutex_lock(&c->mu);
    if (find_dead_locked(c, session_id)) {
        /* The first cause wins: a crash is not later renamed "tab closed". */
        pthread_mutex_unlock(&c->mu);
        return BASE_OK;
    }
    dead_session *d = &c->dead[c->next_dead];
    c->next_dead = (c->next_dead + 1) % MAX_DEAD;
    if (c->ndead < MAX_DEAD)
        c->ndead++;
    snprintf(d->sid, sizeof d->sid, "%s", session_id);
    d->e = e;
    snprintf(d->why, sizeof d->why, "%s", why ? why : base_strerror(e));
    /* Complete every pending call of that session now, as mark_closed does
     * for the whole connection. */
    for (pending **pp = &c->pend; *pp;) {
        pending *p = *pp;
        if (strcmp(p->session, session_id) != 0) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        p->e = e;
        snprintf(p->msg, sizeof p->msg, "%s", d->why);
        p->done = 1;
        if (p->sync) {
            p->next = NULL; /* the waiter frees it */
        } else {
            p->next = fired;
            fired = p;
        }
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "session %.16s failed: %s", session_id,
             why ? why : "");
    run_fired(fired);
    return BASE_OK;
}

base_err cdp_session_status(cdp_conn *c, const char *session_id, char *why, size_t n)
{
    if (!c)
        return BASE_EINVAL;
    pthread_mutex_lock(&c->mu);
    const dead_session *d = find_dead_locked(c, session_id);
    base_err e = d ? d->e : BASE_OK;
    if (d && why && n)
        snprintf(why, n, "%s", d->why);
    pthread_mutex_unlock(&c->mu);
    return e;
}

int cdp_conn_alive(cdp_conn *c)
{
    pthread_mutex_lock(&c->mu);
    int alive = c->state == ST_OPEN;
    pthread_mutex_unlock(&c->mu);
    return alive;
}

void cdp_conn_close_reason(cdp_conn *c, char *why, size_t n)
{
    if (!why || !n)
        return;
    pthread_mutex_lock(&c->mu);
    snprintf(why, n, "%s", c->state == ST_CLOSED ? c->close_reason : "");
    pthread_mutex_unlock(&c->mu);
}

void cdp_conn_stats(cdp_conn *c, cdp_stats *out)
{
    pthread_mutex_lock(&c->mu);
    *out = c->stats;
    pthread_mutex_unlock(&c->mu);
}


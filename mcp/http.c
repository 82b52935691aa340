/* mcp/http.c: the Streamable HTTP transport (MCP 2025-06-18) on loopback.
 *
 * One endpoint, /mcp. A POST carries one JSON-RPC message: a notification
 * or a response is taken with 202 and no body; a request is answered in the
 * POST's own response, as application/json, or as a text/event-stream
 * when the call reports progress and the client accepts a stream: each
 * progress notification is sent as it comes (serve_http_stream_write), the
 * answer is the stream's last event. GET (a
 * server-to-client stream) is not offered: 405. DELETE ends a session.
 *
 * Sessions: initialize opens one (a new mcp_conn, hence its own browser
 * session) and its answer carries Mcp-Session-Id, a random 128-bit hex id
 * every later request must send (missing: 400; unknown or ended: 404).
 *
 * Who may talk: the server binds 127.0.0.1 only, and still checks every
 * request: "Authorization: Bearer <token>" (401 otherwise), a Host of
 * 127.0.0.1:PORT, localhost:PORT or [::1]:PORT and, when a browser sends an
 * Origin, one of those origins (403 otherwise: a web page cannot rebind its
 * DNS name onto this port and drive the user's browser).
 *
 * Threads: serve_httpd runs each request on a connection thread. The
 * handler hands the message to the session's mcp_conn and waits on a slot
 * for the answer, which the conn emits from the handler's own thread (pings,
 * errors, tools/list) or from its worker (tool calls).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_get.h"
#include "base/log.h"
#include "mcp/mcp.h"
#include "serve/httpd.h"

#define MAX_SESSIONS 16

typedef struct slot {
    cJSON *id;        /* the request's id (owned); NULL = an answer with no usable id */
    base_buf events;  /* progress notifications, as SSE events */
    char *answer;     /* the response (owned), or NULL */
    int done;         /* answered, or no answer will come */
    struct slot *next;
} slot;

typedef struct hsess {
    struct mcp_http *h;
    char id[33];
    mcp_conn *conn;
    slot *slots;
    int refs;      /* handlers using it, plus 1 while listed */
    int receiving; /* handlers inside mcp_conn_receive: the conn is not freed under them */
    int dead;      /* ended (DELETE, stop): waiting handlers give up */
    struct hsess *next;
} hsess;

struct mcp_http {
    const mcp_config *cfg;
    serve_httpd *srv;
    char token[256];
    int port;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    hsess *sessions;
    int n_sessions;
    int stopping;
};

/* The slot the handler on this thread waits on (answers with no id go here). */
static _Thread_local slot *t_slot;

static void slot_free(slot *s)
{
    cJSON_Delete(s->id);
    base_buf_fini(&s->events);
    base_free(s->answer);
    base_free(s);
}

/* Under h->mu. */
static void sess_unref(hsess *s)
{
    if (--s->refs > 0)
        return;
    while (s->slots) {
        slot *k = s->slots;
        s->slots = k->next;
        slot_free(k);
    }
    base_free(s);
}

static void emit_http(void *user, const char *json, const cJSON *related)
{
    hsess *s = user;
    mcp_http *h = s->h;
    pthread_mutex_lock(&h->mu);
    slot *to = NULL;
    /* What the conn says while this thread hands it a message belongs to
     * this thread's POST when it has no usable id or this POST's id; a
     * cancelled queued call (related: its id) belongs to the POST waiting
     * for that id. */
    if (t_slot && !t_slot->done &&
        (!related || (t_slot->id && cJSON_Compare(related, t_slot->id, 1))))
        to = t_slot;
    for (slot *k = s->slots; !to && k; k = k->next)
        if (!k->done && related && k->id && cJSON_Compare(related, k->id, 1))
            to = k;
    if (to) {
        int notification = json && strstr(json, "\"method\":\"notifications/") != NULL;
        if (notification) {
            base_buf_printf(&to->events, "event: message\ndata: %s\n\n", json);
            pthread_cond_broadcast(&h->cv); /* the waiting POST streams it now */
        } else {
            to->answer = json ? base_strdup(json) : NULL;
            to->done = 1;
            pthread_cond_broadcast(&h->cv);
        }
    }
    pthread_mutex_unlock(&h->mu);
}

static void rand_hex(char *out, size_t nbytes)
{
    unsigned char b[32] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t got = 0;
    while (fd >= 0 && got < nbytes) {
        ssize_t r = read(fd, b + got, nbytes - got);
        if (r <= 0 && errno != EINTR)
            break;
        if (r > 0)
            got += (size_t)r;
    }
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; i < nbytes; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int token_ok(const mcp_http *h, const char *auth)
{
    if (!auth || strncmp(auth, "Bearer ", 7) != 0)
        return 0;
    const char *t = auth + 7;
    size_t a = strlen(t), b = strlen(h->token);
    /* Constant time in the token's length: no early exit on a wrong byte. */
    unsigned diff = (unsigned)(a ^ b);
    for (size_t i = 0; i < b; i++)
        diff |= (unsigned char)h->token[i] ^ (unsigned char)(i < a ? t[i] : 0);
    return diff == 0;
}

static int host_ok(const mcp_http *h, const char *host, int origin)
{
    if (!host)
        return !origin ? 0 : 1;
    char want[3][64];
    snprintf(want[0], sizeof want[0], "%s127.0.0.1:%d", origin ? "http://" : "", h->port);
    snprintf(want[1], sizeof want[1], "%slocalhost:%d", origin ? "http://" : "", h->port);
    snprintf(want[2], sizeof want[2], "%s[::1]:%d", origin ? "http://" : "", h->port);
    for (int i = 0; i < 3; i++)
        if (strcmp(host, want[i]) == 0)
            return 1;
    return 0;
}

static void reply_json(serve_http_response *resp, int status, const char *body)
{
    resp->status = status;
    snprintf(resp->content_type, sizeof resp->content_type, "application/json");
    base_buf_append_str(&resp->body, body);
}

static void reply_err(serve_http_response *resp, int status, int code, const char *msg)
{
    resp->status = status;
    snprintf(resp->content_type, sizeof resp->content_type, "application/json");
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddNullToObject(m, "id");
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", msg);
    char *t = cJSON_PrintUnformatted(m);
    if (t)
        base_buf_append_str(&resp->body, t);
    cJSON_free(t);
    cJSON_Delete(m);
}

/* The live session with that id, referenced (sess_unref under h->mu). */
static hsess *sess_get(mcp_http *h, const char *id)
{
    hsess *s = NULL;
    pthread_mutex_lock(&h->mu);
    for (hsess *k = h->sessions; id && k; k = k->next)
        if (!k->dead && strcmp(k->id, id) == 0)
            s = k;
    if (s)
        s->refs++;
    pthread_mutex_unlock(&h->mu);
    return s;
}

/* Takes s off the list and ends its conn. Not under h->mu. */
static void sess_end(mcp_http *h, hsess *s)
{
    pthread_mutex_lock(&h->mu);
    int was_listed = 0;
    for (hsess **p = &h->sessions; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            was_listed = 1;
            h->n_sessions--;
            break;
        }
    }
    s->dead = 1;
    mcp_conn *c = was_listed ? s->conn : NULL;
    s->conn = NULL;
    pthread_cond_broadcast(&h->cv);
    while (s->receiving > 0)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
    if (c) {
        mcp_conn_destroy(c); /* cancels its call; waiting handlers were woken */
        base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "mcp: http session ended");
    }
    pthread_mutex_lock(&h->mu);
    if (was_listed)
        sess_unref(s);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

/* Sends one message to s's conn and, for a request, waits for its answer. */
static void deliver(mcp_http *h, hsess *s, const serve_http_request *req, const cJSON *msg,
                    serve_http_response *resp)
{
    slot *sl = base_calloc(1, sizeof *sl);
    if (!sl) {
        reply_err(resp, 500, MCP_INTERNAL_ERROR, "out of memory");
        return;
    }
    base_buf_init(&sl->events, 4 << 20);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (cJSON_IsString(id) || cJSON_IsNumber(id))
        sl->id = cJSON_Duplicate(id, 1);
    pthread_mutex_lock(&h->mu);
    sl->next = s->slots;
    s->slots = sl;
    mcp_conn *c = s->dead ? NULL : s->conn;
    if (c)
        s->receiving++;
    pthread_mutex_unlock(&h->mu);
    int request = 0;
    if (c) {
        t_slot = sl;
        request = mcp_conn_receive(c, req->body, req->body_len);
        t_slot = NULL;
    }
    /* A client that accepts a stream gets the call's progress notifications
     * as they come (the response becomes a live event stream at the first
     * one); the answer is its last event. */
    const char *accept = serve_http_request_header(req, "Accept");
    int live = request && accept && strstr(accept, "text/event-stream");
    size_t sent = 0;   /* bytes of sl->events already streamed */
    int gone = 0;      /* the client went away: keep waiting, stop writing */
    pthread_mutex_lock(&h->mu);
    if (c) {
        s->receiving--;
        pthread_cond_broadcast(&h->cv);
    }
    while (request && !sl->done && !s->dead && !h->stopping) {
        if (live && !gone && sl->events.len > sent) {
            size_t n = sl->events.len - sent;
            char *chunk = base_malloc(n);
            if (chunk)
                memcpy(chunk, sl->events.data + sent, n);
            pthread_mutex_unlock(&h->mu);
            if (chunk) {
                if (!sent) {
                    resp->status = 200;
                    snprintf(resp->content_type, sizeof resp->content_type, "text/event-stream");
                }
                gone = serve_http_stream_write(resp, chunk, n) != BASE_OK;
                sent += n;
                base_free(chunk);
            }
            pthread_mutex_lock(&h->mu);
            continue;
        }
        pthread_cond_wait(&h->cv, &h->mu);
    }
    for (slot **p = &s->slots; *p; p = &(*p)->next) {
        if (*p == sl) {
            *p = sl->next;
            break;
        }
    }
    pthread_mutex_unlock(&h->mu);
    if (!c) {
        reply_err(resp, 404, MCP_INVALID_REQUEST, "no such session (ended)");
    } else if (!request) {
        resp->status = 202;
        resp->content_type[0] = '\0';
    } else if (sent) {
        /* Streaming already: the events not sent yet and the answer (or
         * the error) go out as the stream's last chunk. */
        if (sl->events.len > sent)
            base_buf_append(&resp->body, sl->events.data + sent, sl->events.len - sent);
        if (sl->answer) {
            base_buf_printf(&resp->body, "event: message\ndata: %s\n\n", sl->answer);
        } else {
            serve_http_response tmp;
            memset(&tmp, 0, sizeof tmp);
            base_buf_init(&tmp.body, 1 << 16);
            reply_err(&tmp, 200, MCP_INTERNAL_ERROR,
                      sl->done ? "request cancelled: no result" : "the session ended");
            base_buf_append_str(&resp->body, "event: message\ndata: ");
            base_buf_append(&resp->body, tmp.body.data, tmp.body.len);
            base_buf_append_str(&resp->body, "\n\n");
            base_buf_fini(&tmp.body);
        }
    } else if (!sl->answer) {
        reply_err(resp, 200, MCP_INTERNAL_ERROR,
                  sl->done ? "request cancelled: no result" : "the session ended");
    } else if (sl->events.len && live) {
        resp->status = 200;
        snprintf(resp->content_type, sizeof resp->content_type, "text/event-stream");
        base_buf_append(&resp->body, sl->events.data, sl->events.len);
        base_buf_printf(&resp->body, "event: message\ndata: %s\n\n", sl->answer);
    } else {
        reply_json(resp, 200, sl->answer);
    }
    slot_free(sl);
}

static int versions_ok(const char *v)
{
    return !v || strcmp(v, "2025-11-25") == 0 || strcmp(v, "2025-06-18") == 0 ||
           strcmp(v, "2025-03-26") == 0 || strcmp(v, "2024-11-05") == 0;
}

static int handle(const serve_http_request *req, serve_http_response *resp, void *user)
{
    mcp_http *h = user;
    if (strcmp(req->path, "/mcp") != 0) {
        reply_err(resp, 404, MCP_INVALID_REQUEST, "not found: the MCP endpoint is /mcp");
        return 1;
    }
    const char *origin = serve_http_request_header(req, "Origin");
    if (!host_ok(h, serve_http_request_header(req, "Host"), 0) ||
        (origin && !host_ok(h, origin, 1))) {
        reply_err(resp, 403, MCP_INVALID_REQUEST, "forbidden: Host or Origin is not this server");
        return 1;
    }
    if (!token_ok(h, serve_http_request_header(req, "Authorization"))) {
        serve_http_response_header(resp, "WWW-Authenticate", "Bearer");
        reply_err(resp, 401, MCP_INVALID_REQUEST, "unauthorized: send Authorization: Bearer TOKEN");
        return 1;
    }
    const char *sid = serve_http_request_header(req, "Mcp-Session-Id");
    if (strcmp(req->method, "DELETE") == 0) {
        hsess *s = sess_get(h, sid);
        if (!s) {
            reply_err(resp, sid ? 404 : 400, MCP_INVALID_REQUEST,
                      sid ? "no such session" : "Mcp-Session-Id missing");
            return 1;
        }
        sess_end(h, s);
        pthread_mutex_lock(&h->mu);
        sess_unref(s);
        pthread_mutex_unlock(&h->mu);
        resp->status = 200;
        return 1;
    }
    if (strcmp(req->method, "POST") != 0) {
        serve_http_response_header(resp, "Allow", "POST, DELETE");
        reply_err(resp, 405, MCP_INVALID_REQUEST, "method not allowed: POST or DELETE");
        return 1;
    }
    cJSON *msg = cJSON_ParseWithLength(req->body, req->body_len);
    if (!msg) {
        reply_err(resp, 400, MCP_PARSE_ERROR, "parse error: not one JSON value");
        return 1;
    }
    int init = cJSON_IsObject(msg) &&
               strcmp(base_json_str(msg, "method", ""), "initialize") == 0;
    hsess *s = NULL;
    if (init) {
        s = base_calloc(1, sizeof *s);
        char err[BASE_ERRBUF_SIZE] = "";
        if (!s || mcp_conn_create(h->cfg, emit_http, s, &s->conn, err) != BASE_OK) {
            base_free(s);
            cJSON_Delete(msg);
            reply_err(resp, 500, MCP_INTERNAL_ERROR, "cannot open a session");
            return 1;
        }
        s->h = h;
        rand_hex(s->id, 16);
        s->refs = 2; /* listed + this handler */
        pthread_mutex_lock(&h->mu);
        int full = h->n_sessions >= MAX_SESSIONS || h->stopping;
        if (!full) {
            s->next = h->sessions;
            h->sessions = s;
            h->n_sessions++;
        }
        pthread_mutex_unlock(&h->mu);
        if (full) {
            mcp_conn_destroy(s->conn);
            base_free(s);
            cJSON_Delete(msg);
            reply_err(resp, 503, MCP_INTERNAL_ERROR, "too many sessions (16): DELETE one");
            return 1;
        }
        serve_http_response_header(resp, "Mcp-Session-Id", s->id);
    } else {
        if (!sid) {
            cJSON_Delete(msg);
            reply_err(resp, 400, MCP_INVALID_REQUEST,
                      "bad request: Mcp-Session-Id missing (initialize first)");
            return 1;
        }
        if (!versions_ok(serve_http_request_header(req, "MCP-Protocol-Version"))) {
            cJSON_Delete(msg);
            reply_err(resp, 400, MCP_INVALID_REQUEST, "unsupported MCP-Protocol-Version");
            return 1;
        }
        if (!(s = sess_get(h, sid))) {
            cJSON_Delete(msg);
            reply_err(resp, 404, MCP_INVALID_REQUEST, "no such session (ended or unknown)");
            return 1;
        }
    }
    deliver(h, s, req, msg, resp);
    cJSON_Delete(msg);
    pthread_mutex_lock(&h->mu);
    sess_unref(s);
    pthread_mutex_unlock(&h->mu);
    return 1;
}

void mcp_config_init(mcp_config *c)
{
    memset(c, 0, sizeof *c);
    c->humanize = 1;
}

base_err mcp_http_start(const mcp_config *cfg, int port, const char *token, mcp_http **out,
                        char *err)
{
    if (!cfg || !token || strlen(token) < 16 || strlen(token) >= 256)
        return base_errf(err, BASE_EINVAL, "mcp: the bearer token must be 16 to 255 bytes");
    mcp_http *h = base_calloc(1, sizeof *h);
    if (!h)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    h->cfg = cfg;
    snprintf(h->token, sizeof h->token, "%s", token);
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.port = port;
    o.bind = "127.0.0.1";
    o.handler = handle;
    o.user = h;
    o.read_timeout_ms = 600000; /* a client may sit idle between calls */
    base_err e = serve_httpd_start(&o, &h->srv, err);
    if (e) {
        pthread_mutex_destroy(&h->mu);
        pthread_cond_destroy(&h->cv);
        base_free(h);
        return e;
    }
    h->port = serve_httpd_port(h->srv);
    *out = h;
    return BASE_OK;
}

int mcp_http_port(const mcp_http *h)
{
    return h->port;
}

int mcp_http_sessions(mcp_http *h)
{
    pthread_mutex_lock(&h->mu);
    int n = h->n_sessions;
    pthread_mutex_unlock(&h->mu);
    return n;
}

void mcp_http_stop(mcp_http *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->stopping = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    for (;;) {
        pthread_mutex_lock(&h->mu);
        hsess *s = h->sessions;
        if (s)
            s->refs++;
        pthread_mutex_unlock(&h->mu);
        if (!s)
            break;
        sess_end(h, s);
        pthread_mutex_lock(&h->mu);
        sess_unref(s);
        pthread_mutex_unlock(&h->mu);
    }
    serve_httpd_destroy(h->srv);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    base_free(h);
}

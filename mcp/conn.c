/* mcp/conn.c: one MCP client connection — JSON-RPC 2.0 framing, the MCP
 * lifecycle, and the queue of tool calls its worker thread runs.
 *
 * What needs no page is answered at once on the receiving thread:
 * initialize (version negotiation), ping, tools/list, and every JSON-RPC
 * error, so a client always hears back even while a long call runs. A
 * tools/call is checked there too (a known, listed tool; arguments against
 * the tool's schema; secrets by name; uploads against --upload-dir) and only
 * then queued: bad input never reaches the page. The worker thread owns the
 * browser session (fovea_session, created on the first call) and runs the
 * calls in order (mcp/call.c); a session belongs to one thread.
 *
 * Cancellation (notifications/cancelled): a queued call is dropped; the
 * running one sees its connection's stop flag (base_interrupt_set_thread_flag
 * on the worker), which every wait of the tool layer already honours for
 * Ctrl-C, and ends within ~100 ms. The spec says a cancelled request gets no
 * response, so none is sent. Progress: a call whose _meta carries a
 * progressToken gets notifications/progress when it starts and every second
 * while it runs, from a ticker thread that is joined before the answer goes
 * out (no progress after the result).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "agent/session/secrets.h"
#include "agent/session/session.h"
#include "agent/session/tool.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/json_get.h"
#include "base/log.h"
#include "mcp/mcp.h"
#include "mcp/mcp_int.h"

typedef struct job {
    cJSON *id;       /* the request's id (owned) */
    char name[64];   /* the tool */
    cJSON *args;     /* checked arguments, secrets substituted (owned, wiped when freed) */
    cJSON *progress; /* _meta.progressToken (owned) or NULL */
    int secret;      /* args hold a secret's value */
    struct job *next;
} job;

struct mcp_conn {
    const mcp_config *cfg;
    mcp_emit_fn emit;
    void *user;
    pthread_t worker;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *head, *tail;
    int stop, busy;
    cJSON *inflight; /* id of the running call (owned), under mu */
    atomic_int cancel;
    char version[16];
    atomic_int initialized;
    mcp_call_state st; /* the worker's */
};

/* ---- framing ------------------------------------------------------------ */

static void send_obj(mcp_conn *c, cJSON *msg, const cJSON *related)
{
    char *txt = msg ? cJSON_PrintUnformatted(msg) : NULL;
    if (txt) {
        c->emit(c->user, txt, related);
        cJSON_free(txt);
    } else {
        c->emit(c->user,
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"out of "
                "memory\"}}",
                related);
    }
    cJSON_Delete(msg);
}

static cJSON *envelope(const cJSON *id)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
    return m;
}

void mcp__send_error(mcp_conn *c, const cJSON *id, int code, const char *msg)
{
    cJSON *m = envelope(id);
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", msg);
    send_obj(c, m, id);
}

static void send_result(mcp_conn *c, const cJSON *id, cJSON *result)
{
    cJSON *m = envelope(id);
    if (!result)
        result = cJSON_CreateObject();
    cJSON_AddItemToObject(m, "result", result);
    send_obj(c, m, id);
}

void mcp__send_progress(mcp_conn *c, const cJSON *id, const cJSON *token, double progress,
                        const char *message)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "method", "notifications/progress");
    cJSON *p = cJSON_AddObjectToObject(m, "params");
    cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(token, 1));
    cJSON_AddNumberToObject(p, "progress", progress);
    if (message)
        cJSON_AddStringToObject(p, "message", message);
    send_obj(c, m, id);
}

/* ---- the queue ------------------------------------------------------------ */

static void job_free(job *j)
{
    if (!j)
        return;
    if (j->secret)
        mcp__wipe_json(j->args);
    cJSON_Delete(j->args);
    cJSON_Delete(j->id);
    cJSON_Delete(j->progress);
    base_free(j);
}

/* The ticker of one call with a progress token. */
typedef struct ticker {
    mcp_conn *c;
    const job *j;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
} ticker;

static void *tick_main(void *arg)
{
    ticker *t = arg;
    double t0 = base_monotime_ms();
    int n = 0;
    pthread_mutex_lock(&t->mu);
    while (!t->done) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&t->cv, &t->mu, &ts);
        if (t->done)
            break;
        char msg[96];
        snprintf(msg, sizeof msg, "%s running, %.0f s", t->j->name,
                 (base_monotime_ms() - t0) / 1000.0);
        pthread_mutex_unlock(&t->mu);
        mcp__send_progress(t->c, t->j->id, t->j->progress, ++n, msg);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static void *worker_main(void *arg)
{
    mcp_conn *c = arg;
    /* A cancelled call stops the way Ctrl-C stops a run, on this thread only. */
    base_interrupt_set_thread_flag(&c->cancel);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->head && !c->stop)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->stop)
            break;
        job *j = c->head;
        c->head = j->next;
        if (!c->head)
            c->tail = NULL;
        c->inflight = cJSON_Duplicate(j->id, 1);
        c->busy = 1;
        atomic_store(&c->cancel, 0);
        pthread_mutex_unlock(&c->mu);

        ticker tk;
        int ticking = 0;
        if (j->progress) {
            mcp__send_progress(c, j->id, j->progress, 0, "started");
            memset(&tk, 0, sizeof tk);
            tk.c = c;
            tk.j = j;
            pthread_mutex_init(&tk.mu, NULL);
            pthread_cond_init(&tk.cv, NULL);
            ticking = pthread_create(&tk.th, NULL, tick_main, &tk) == 0;
        }
        cJSON *result = mcp__call(&c->st, c->cfg, j->name, j->args);
        if (ticking) {
            pthread_mutex_lock(&tk.mu);
            tk.done = 1;
            pthread_cond_signal(&tk.cv);
            pthread_mutex_unlock(&tk.mu);
            pthread_join(tk.th, NULL);
        }
        if (j->progress) {
            pthread_mutex_destroy(&tk.mu);
            pthread_cond_destroy(&tk.cv);
        }
        pthread_mutex_lock(&c->mu);
        int cancelled = atomic_load(&c->cancel);
        atomic_store(&c->cancel, 0);
        cJSON_Delete(c->inflight);
        c->inflight = NULL;
        pthread_mutex_unlock(&c->mu);
        if (cancelled) {
            base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "mcp: %s cancelled by the client", j->name);
            cJSON_Delete(result);
            c->emit(c->user, NULL, j->id); /* no answer will come */
        } else if (!result) {
            mcp__send_error(c, j->id, MCP_INTERNAL_ERROR, "out of memory");
        } else {
            send_result(c, j->id, result);
        }
        job_free(j);
        pthread_mutex_lock(&c->mu);
        c->busy = 0;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    mcp__call_state_fini(&c->st, c->cfg);
    base_interrupt_set_thread_flag(NULL);
    return NULL;
}

base_err mcp_conn_create(const mcp_config *cfg, mcp_emit_fn emit, void *user, mcp_conn **out,
                         char *err)
{
    if (!cfg || !emit || !out)
        return base_errf(err, BASE_EINVAL, "mcp: NULL argument");
    mcp_conn *c = base_calloc(1, sizeof *c);
    if (!c)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    c->cfg = cfg;
    c->emit = emit;
    c->user = user;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (pthread_create(&c->worker, NULL, worker_main, c) != 0) {
        pthread_mutex_destroy(&c->mu);
        pthread_cond_destroy(&c->cv);
        base_free(c);
        return base_errf(err, BASE_EIO, "mcp: cannot start the worker thread");
    }
    *out = c;
    return BASE_OK;
}

void mcp_conn_drain(mcp_conn *c)
{
    pthread_mutex_lock(&c->mu);
    while ((c->head || c->busy) && !c->stop)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

void mcp_conn_destroy(mcp_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    while (c->head) {
        job *j = c->head;
        c->head = j->next;
        c->emit(c->user, NULL, j->id);
        job_free(j);
    }
    c->tail = NULL;
    if (c->inflight)
        atomic_store(&c->cancel, 1);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->worker, NULL);
    cJSON_Delete(c->inflight);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    base_free(c);
}

const char *mcp_conn_version(const mcp_conn *c)
{
    return c->version;
}

/* ---- methods -------------------------------------------------------------- */

static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

static void on_initialize(mcp_conn *c, const cJSON *id, const cJSON *params)
{
    const char *want = base_json_str(params, "protocolVersion", NULL);
    if (!want) {
        mcp__send_error(c, id, MCP_INVALID_PARAMS, "initialize: params.protocolVersion missing");
        return;
    }
    /* The client's version when this server speaks it, else ours (the
     * client then decides whether it can go on). */
    const char *v = MCP_PROTOCOL_VERSION;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (strcmp(want, versions[i]) == 0)
            v = versions[i];
    snprintf(c->version, sizeof c->version, "%s", v);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", v);
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
    cJSON_AddBoolToObject(tools, "listChanged", 0);
    cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
    cJSON_AddStringToObject(info, "name", "fovea");
    cJSON_AddStringToObject(info, "title", "fovea: vision-first browser tools");
    cJSON_AddStringToObject(info, "version", MCP__SERVER_VERSION);
    cJSON_AddStringToObject(
        r, "instructions",
        "A real Chromium, one session per connection. navigate and every action answer with the "
        "page view (an outline: regions, headings, interactive elements as [n]; regions "
        "unchanged since the last view collapse to one line, focus_region expands one). Name "
        "elements by label or [n] (click_at, type_at), or by a box from a screenshot "
        "(click_box, type_box: ambiguous answers list candidates, nothing is clicked). Pass "
        "secrets as {\"secret\": \"NAME\"}.");
    send_result(c, id, r);
}

static int id_valid(const cJSON *id)
{
    return cJSON_IsString(id) || cJSON_IsNumber(id);
}

static void on_cancelled(mcp_conn *c, const cJSON *params)
{
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
    if (!id_valid(rid))
        return;
    pthread_mutex_lock(&c->mu);
    if (c->inflight && cJSON_Compare(c->inflight, rid, 1)) {
        atomic_store(&c->cancel, 1);
    } else {
        for (job **p = &c->head; *p; p = &(*p)->next) {
            if (cJSON_Compare((*p)->id, rid, 1)) {
                job *j = *p;
                *p = j->next;
                if (c->tail == j) {
                    c->tail = NULL;
                    for (job *k = c->head; k; k = k->next)
                        c->tail = k;
                }
                c->emit(c->user, NULL, j->id);
                job_free(j);
                pthread_cond_broadcast(&c->cv);
                break;
            }
        }
    }
    pthread_mutex_unlock(&c->mu);
}

static void on_call(mcp_conn *c, const cJSON *id, const cJSON *params)
{
    const char *name = base_json_str(params, "name", NULL);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    if (!name) {
        mcp__send_error(c, id, MCP_INVALID_PARAMS, "tools/call: params.name missing");
        return;
    }
    if (args && !cJSON_IsObject(args)) {
        mcp__send_error(c, id, MCP_INVALID_PARAMS, "tools/call: arguments must be an object");
        return;
    }
    job *j = base_calloc(1, sizeof *j);
    if (!j) {
        mcp__send_error(c, id, MCP_INTERNAL_ERROR, "out of memory");
        return;
    }
    char why[BASE_ERRBUF_SIZE] = "";
    int code = mcp__prepare(c->cfg, name, args, &j->args, &j->secret, why);
    if (code) {
        mcp__send_error(c, id, code, why);
        job_free(j);
        return;
    }
    snprintf(j->name, sizeof j->name, "%s", name);
    j->id = cJSON_Duplicate(id, 1);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    if (id_valid(tok))
        j->progress = cJSON_Duplicate(tok, 1);
    pthread_mutex_lock(&c->mu);
    if (c->stop) {
        pthread_mutex_unlock(&c->mu);
        job_free(j);
        return;
    }
    if (c->tail)
        c->tail->next = j;
    else
        c->head = j;
    c->tail = j;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

int mcp_conn_receive(mcp_conn *c, const char *text, size_t len)
{
    cJSON *m = cJSON_ParseWithLength(text, len);
    if (!m) {
        mcp__send_error(c, NULL, MCP_PARSE_ERROR, "parse error: not one JSON value");
        return 1;
    }
    int request = 1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
    if (cJSON_IsArray(m)) {
        mcp__send_error(c, NULL, MCP_INVALID_REQUEST,
                        "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18)");
    } else if (!cJSON_IsObject(m) ||
               strcmp(base_json_str(m, "jsonrpc", ""), "2.0") != 0) {
        mcp__send_error(c, id_valid(id) ? id : NULL, MCP_INVALID_REQUEST,
                        "invalid request: not a JSON-RPC 2.0 object");
    } else if (!method && (cJSON_GetObjectItemCaseSensitive(m, "result") ||
                           cJSON_GetObjectItemCaseSensitive(m, "error"))) {
        request = 0; /* a response: this server sends no requests, so nothing waits for it */
    } else if (!cJSON_IsString(method)) {
        mcp__send_error(c, id_valid(id) ? id : NULL, MCP_INVALID_REQUEST,
                        "invalid request: 'method' must be a string");
    } else if (params && !cJSON_IsObject(params)) {
        mcp__send_error(c, id_valid(id) ? id : NULL, MCP_INVALID_REQUEST,
                        "invalid request: 'params' must be an object");
    } else if (!id) {
        request = 0; /* a notification: never answered */
        if (strcmp(method->valuestring, "notifications/initialized") == 0)
            atomic_store(&c->initialized, 1);
        else if (strcmp(method->valuestring, "notifications/cancelled") == 0)
            on_cancelled(c, params);
    } else if (!id_valid(id)) {
        mcp__send_error(c, NULL, MCP_INVALID_REQUEST,
                        "invalid request: 'id' must be a string or a number");
    } else if (strcmp(method->valuestring, "initialize") == 0) {
        on_initialize(c, id, params);
    } else if (strcmp(method->valuestring, "ping") == 0) {
        send_result(c, id, cJSON_CreateObject());
    } else if (strcmp(method->valuestring, "tools/list") == 0) {
        cJSON *r = cJSON_CreateObject();
        cJSON *tools = mcp__tools_list(c->cfg);
        if (!r || !tools) {
            cJSON_Delete(r);
            cJSON_Delete(tools);
            mcp__send_error(c, id, MCP_INTERNAL_ERROR, "out of memory");
        } else {
            cJSON_AddItemToObject(r, "tools", tools);
            send_result(c, id, r);
        }
    } else if (strcmp(method->valuestring, "tools/call") == 0) {
        on_call(c, id, params);
    } else {
        char msg[160];
        snprintf(msg, sizeof msg, "method not found: %.100s", method->valuestring);
        mcp__send_error(c, id, MCP_METHOD_NOT_FOUND, msg);
    }
    cJSON_Delete(m);
    return request;
}

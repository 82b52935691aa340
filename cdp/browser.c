/* cdp/browser.c: browser handle, tabs, flattened iframe sessions, frame tree.
 *
 * A page subscribes to every event on the connection and keeps the ones that
 * belong to it: events of its own session and of the child sessions that
 * Target.setAutoAttach(flatten) creates for out-of-process iframes. The
 * frame table is updated from Page.frameAttached/Navigated/Detached and from
 * Target.attachedToTarget (an iframe target's id is its frame id). All of
 * this runs on the service thread, so child sessions are configured with
 * cdp_call_async, never with a blocking call.
 */
#include "cdp/browser.h"
#include "cdp/browser_int.h"
#include "cdp/console_int.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/json_get.h"
#include "base/log.h"

#define MAX_FRAMES 256
#define MAX_CHILD_SESSIONS 64
#define DIALOG_RING 16
#define POPUP_RING 16
#define MAX_WORLDS 128 /* fovea-world contexts remembered (one per live document) */

/* One execution context of fovea's isolated world (CDP_WORLD_NAME): the
 * session that reported it, the frame whose document it belongs to, its id. */
typedef struct world_ctx {
    char session[64];
    char frame_id[64];
    int id;
} world_ctx;

struct cdp_browser {
    cdp_conn *conn;
    cdp_process *proc;
    char product[128];
};

struct cdp_page {
    cdp_browser *b;
    cdp_conn *conn;
    char target_id[64];
    char session[64];
    cdp_page_opts opts;
    int sub;
    pthread_mutex_t mu;
    cdp_frame frames[MAX_FRAMES];
    int nframes;
    char children[MAX_CHILD_SESSIONS][64];
    int nchildren;
    int dead;
    /* Why the page is dead (crashed, closed, not responding); dead_e is its
     * error code. Set once: the first cause wins. */
    base_err dead_e;
    char dead_why[200];
    int closing; /* cdp_page_close is closing the tab itself */
    /* JavaScript dialogs: the plan for the next one (cdp_page_dialog_next)
     * and a ring of the ones seen, numbered from 0 by ndialogs. */
    int plan_set, plan_accept;
    char plan_prompt[256];
    char plan_expect[256];
    cdp_dialog dialogs[DIALOG_RING];
    uint64_t ndialogs;
    /* Tabs this page opened (window.open, target=_blank), by target id. */
    char popups[POPUP_RING][64];
    uint64_t npopups;
    int adopted; /* cdp_page_adopt: close detaches, the tab stays */
    cdp__console *console; /* console errors, exceptions, failed requests (cdp/console.c) */
    /* fovea's isolated world per document, learnt from
     * Runtime.executionContextCreated (the world script added at open makes
     * Chromium create it at each document start) or created on demand. */
    world_ctx worlds[MAX_WORLDS];
    int nworlds;
};

static base_err finish_browser(cdp_browser *b, char *err)
{
    cJSON *ver = NULL;
    base_err e = cdp_call(b->conn, NULL, "Browser.getVersion", NULL, &ver, 10000, err);
    if (e)
        return e;
    const cJSON *prod = cJSON_GetObjectItemCaseSensitive(ver, "product");
    snprintf(b->product, sizeof b->product, "%s", cJSON_IsString(prod) ? prod->valuestring : "");
    cJSON_Delete(ver);
    return BASE_OK;
}

base_err cdp_browser_launch(const cdp_launch_opts *lo, cdp_browser **out, char *err)
{
    cdp_browser *b = base_calloc(1, sizeof *b);
    if (!b)
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
    cdp_launch_opts def;
    memset(&def, 0, sizeof def);
    base_err e = cdp_launch(lo ? lo : &def, &b->proc, err);
    if (e)
        goto fail;
    e = cdp_connect(cdp_process_ws_url(b->proc), NULL, &b->conn, err);
    if (e)
        goto fail;
    e = finish_browser(b, err);
    if (e)
        goto fail;
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "launched %s (pid %d)", b->product,
             cdp_process_pid(b->proc));
    *out = b;
    return BASE_OK;
fail:
    cdp_conn_destroy(b->conn);
    cdp_process_destroy(b->proc);
    base_free(b);
    return e;
}

base_err cdp_browser_attach(const char *endpoint, cdp_browser **out, char *err)
{
    return cdp_browser_attach_with(endpoint, NULL, out, err);
}

/* 1 when ws is a pool's endpoint rather than a browser's own: a browser's
 * websocket is /devtools/browser/ID; a pool serves its own path
 * (browserless /chromium, hosted pools /?token=...). */
static int is_pool_url(const char *ws)
{
    const char *p = strstr(ws, "://");
    p = p ? p + 3 : ws;
    p += strcspn(p, "/?#");
    return strncmp(p, "/devtools/", 10) != 0;
}

/* Sleeps ms in 50 ms slices; returns 1 when a stop signal came. */
static int nap_ms(int64_t ms)
{
    int64_t until = base_monotime() + ms * 1000;
    while (base_monotime() < until) {
        if (base_interrupted())
            return 1;
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return base_interrupted() != 0;
}

base_err cdp_browser_attach_with(const char *endpoint, const cdp_attach_opts *o,
                                 cdp_browser **out, char *err)
{
    const char *const *headers = o ? o->headers : NULL;
    int wait_ms = o && o->wait_ms > 0 ? o->wait_ms : 0;
    int64_t t0 = base_monotime();
    int64_t deadline = t0 + (int64_t)(wait_ms > 0 ? wait_ms : 10000) * 1000;
    int64_t backoff_ms = 250;
    int attempts = 0;
    char last[BASE_ERRBUF_SIZE] = "";
    for (;;) {
        attempts++;
        char *ws = NULL;
        last[0] = '\0';
        base_err e = cdp_discover_with(endpoint, headers, &ws, last);
        cdp_browser *b = NULL;
        if (e == BASE_OK) {
            b = base_calloc(1, sizeof *b);
            if (!b) {
                base_free(ws);
                return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
            }
            /* A pool answers the handshake when a browser is free and
             * started: the connect deadline is what is left of the wait, but
             * never less than the usual 10 s, since a handshake given up
             * while the pool starts its browser leaves that browser running
             * for nobody. */
            int64_t left_ms = (deadline - base_monotime()) / 1000;
            cdp_conn_opts co;
            memset(&co, 0, sizeof co);
            co.connect_timeout_ms = (int)(left_ms > 10000 ? left_ms : 10000);
            co.headers = headers;
            co.pool = is_pool_url(ws);
            e = cdp_connect(ws, &co, &b->conn, last);
            base_free(ws);
            if (e == BASE_OK)
                e = finish_browser(b, last);
            if (e == BASE_OK) {
                if (attempts > 1)
                    base_log(BASE_LOG_CDP, BASE_LOG_INFO, "pool had room after %d attempts",
                             attempts);
                *out = b;
                return BASE_OK;
            }
            cdp_conn_destroy(b->conn);
            base_free(b);
        }
        /* Only a full pool (HTTP 429/503) is worth asking again, within
         * the wait; anything else (bad token, refused, bad URL) is final. */
        int64_t left_ms = (deadline - base_monotime()) / 1000;
        if (e != BASE_EBUSY || wait_ms <= 0 || left_ms <= 0) {
            if (e == BASE_EBUSY && attempts > 1)
                return base_errf(err, e, "%s; still full after %d attempts in %.1f s (--cdp-wait)",
                                 last, attempts, (double)(base_monotime() - t0) / 1e6);
            return base_errf(err, e, "%s", last);
        }
        int64_t nap = backoff_ms < left_ms ? backoff_ms : left_ms;
        base_log(BASE_LOG_CDP, BASE_LOG_INFO, "pool full, asking again in %lld ms",
                 (long long)nap);
        if (nap_ms(nap))
            return base_errf(err, BASE_ECANCELED, "cdp: stopped while waiting for the pool (%s)",
                             last);
        backoff_ms = backoff_ms * 2 > 4000 ? 4000 : backoff_ms * 2;
    }
}

void cdp_browser_destroy(cdp_browser *b)
{
    if (!b)
        return;
    if (b->proc && b->conn && cdp_conn_alive(b->conn)) {
        /* Ask politely first: Chromium flushes and exits cleanly. */
        cdp_call(b->conn, NULL, "Browser.close", NULL, NULL, 2000, NULL);
    }
    cdp__opened_forget_conn(b->conn);
    cdp_conn_destroy(b->conn);
    cdp_process_destroy(b->proc);
    base_free(b);
}

cdp_conn *cdp_browser_conn(cdp_browser *b)
{
    return b->conn;
}

cdp_process *cdp_browser_process(cdp_browser *b)
{
    return b->proc;
}

const char *cdp_browser_product(cdp_browser *b)
{
    return b->product;
}

/* ---------- frame bookkeeping (service thread, under p->mu) ---------- */

static int owns_session_locked(cdp_page *p, const char *sid)
{
    if (!sid)
        return 0;
    if (strcmp(sid, p->session) == 0)
        return 1;
    for (int i = 0; i < p->nchildren; i++) {
        if (strcmp(p->children[i], sid) == 0)
            return 1;
    }
    return 0;
}

static cdp_frame *find_frame_locked(cdp_page *p, const char *id)
{
    for (int i = 0; i < p->nframes; i++) {
        if (strcmp(p->frames[i].id, id) == 0)
            return &p->frames[i];
    }
    return NULL;
}

static cdp_frame *upsert_frame_locked(cdp_page *p, const char *id)
{
    cdp_frame *f = find_frame_locked(p, id);
    if (f || p->nframes >= MAX_FRAMES)
        return f;
    f = &p->frames[p->nframes++];
    memset(f, 0, sizeof *f);
    snprintf(f->id, sizeof f->id, "%s", id);
    return f;
}

static void remove_frame_locked(cdp_page *p, const char *id)
{
    for (int i = 0; i < p->nframes; i++) {
        if (strcmp(p->frames[i].id, id) == 0) {
            p->frames[i] = p->frames[--p->nframes];
            return;
        }
    }
}

/* A string member, NULL when absent (base/json_get.h). */
#define jstr(o, k) base_json_str((o), (k), NULL)

static void ignore_reply(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)result;
    (void)user;
    if (e)
        base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "child session setup: %s", msg ? msg : "");
}

static cJSON *auto_attach_params(void)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddBoolToObject(pa, "autoAttach", 1) ||
        !cJSON_AddBoolToObject(pa, "waitForDebuggerOnStart", 1) ||
        !cJSON_AddBoolToObject(pa, "flatten", 1)) {
        cJSON_Delete(pa); /* NULL, never a partial command: callers check */
        return NULL;
    }
    return pa;
}

/* Page.addScriptToEvaluateOnNewDocument's params for fovea's world: an empty
 * script in world CDP_WORLD_NAME, so Chromium creates the world at every
 * document start in every frame of the session and reports its context
 * (Runtime.executionContextCreated) before the page's own scripts run. NULL
 * on ENOMEM. */
static cJSON *world_script_params(void)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "source", "0") ||
        !cJSON_AddStringToObject(pa, "worldName", CDP_WORLD_NAME)) {
        cJSON_Delete(pa);
        return NULL;
    }
    return pa;
}

static void on_attached(cdp_page *p, const char *parent_sid, const cJSON *params)
{
    const char *child = jstr(params, "sessionId");
    const cJSON *ti = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
    const char *type = jstr(ti, "type");
    const char *tid = jstr(ti, "targetId");
    if (!child || !type || !tid)
        return;
    int is_frame = strcmp(type, "iframe") == 0;
    pthread_mutex_lock(&p->mu);
    if (is_frame && p->nchildren < MAX_CHILD_SESSIONS) {
        snprintf(p->children[p->nchildren++], 64, "%s", child);
        cdp_frame *f = upsert_frame_locked(p, tid);
        if (f) {
            snprintf(f->session, sizeof f->session, "%s", child);
            f->oopif = 1;
            const char *url = jstr(ti, "url");
            if (url)
                snprintf(f->url, sizeof f->url, "%s", url);
            /* A frame that was already out of process when fovea attached
             * (an adopted tab) had no Page.frameAttached: the parent comes
             * from the target info, as the main frame tree omits it. */
            const char *parent = jstr(ti, "parentFrameId");
            if (parent && !f->parent_id[0])
                snprintf(f->parent_id, sizeof f->parent_id, "%s", parent);
        }
    }
    pthread_mutex_unlock(&p->mu);
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "attached %s target %s (session %s, parent %s)", type,
             tid, child, parent_sid ? parent_sid : "-");
    if (is_frame) {
        /* Configure the iframe's session (recursively auto-attach nested
         * OOPIFs), then let it run: it was paused waiting for us. */
        cdp_call_async(p->conn, child, "Page.enable", NULL, 10000, ignore_reply, NULL);
        cJSON *ws = world_script_params();
        if (ws)
            cdp_call_async(p->conn, child, "Page.addScriptToEvaluateOnNewDocument", ws, 10000,
                           ignore_reply, NULL);
        cdp_call_async(p->conn, child, "Runtime.enable", NULL, 10000, ignore_reply, NULL);
        cdp_call_async(p->conn, child, "Log.enable", NULL, 10000, ignore_reply, NULL);
        cJSON *aa = auto_attach_params();
        if (aa)
            cdp_call_async(p->conn, child, "Target.setAutoAttach", aa, 10000, ignore_reply, NULL);
        else /* its nested out-of-process frames will not be tracked */
            base_log(BASE_LOG_CDP, BASE_LOG_WARN, "iframe session %s: out of memory", child);
    }
    /* Workers and other targets are resumed and otherwise ignored. */
    cdp_call_async(p->conn, child, "Runtime.runIfWaitingForDebugger", NULL, 10000, ignore_reply,
                   NULL);
}

/* Declares the page dead with cause e/why: its own session and every
 * iframe session fail their pending and later calls at once. Any thread. */
static void fail_page(cdp_page *p, base_err e, const char *why)
{
    char sessions[MAX_CHILD_SESSIONS + 1][64];
    int n = 0;
    pthread_mutex_lock(&p->mu);
    if (p->dead || p->closing) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    p->dead = 1;
    p->dead_e = e;
    snprintf(p->dead_why, sizeof p->dead_why, "%s", why);
    memcpy(sessions[n++], p->session, 64);
    for (int i = 0; i < p->nchildren; i++)
        memcpy(sessions[n++], p->children[i], 64);
    pthread_mutex_unlock(&p->mu);
    base_log(BASE_LOG_CDP, BASE_LOG_ERROR, "%s", why);
    for (int i = 0; i < n; i++) {
        if (sessions[i][0])
            cdp_session_fail(p->conn, sessions[i], e, why);
    }
}

/* Page.javascriptDialogOpening on one of the page's sessions: decide by the
 * plan for the next dialog (cdp_page_dialog_next) or the default policy
 * (accept alert and beforeunload, dismiss confirm and prompt: the answers
 * that change least), record it, and answer at once so the page, and every
 * call waiting on it, goes on. Service thread. */
static void on_dialog(cdp_page *p, const char *sid, const cJSON *params)
{
    const char *type = jstr(params, "type");
    const char *msg = jstr(params, "message");
    const char *dflt = jstr(params, "defaultPrompt");
    const char *url = jstr(params, "url");
    cdp_dialog d;
    memset(&d, 0, sizeof d);
    snprintf(d.type, sizeof d.type, "%s", type ? type : "alert");
    snprintf(d.message, sizeof d.message, "%s", msg ? msg : "");
    snprintf(d.default_prompt, sizeof d.default_prompt, "%s", dflt ? dflt : "");
    snprintf(d.url, sizeof d.url, "%s", url ? url : "");
    int keep = strcmp(d.type, "alert") == 0 || strcmp(d.type, "beforeunload") == 0;
    d.accepted = keep;
    pthread_mutex_lock(&p->mu);
    if (p->plan_set) {
        d.planned = 1;
        p->plan_set = 0;
        snprintf(d.expected, sizeof d.expected, "%s", p->plan_expect);
        if (p->plan_expect[0] && !strstr(d.message, p->plan_expect)) {
            /* Not the dialog the task expected: answer by the default policy
             * rather than accept something nobody read. */
            d.mismatch = 1;
        } else {
            d.accepted = p->plan_accept;
            if (d.accepted && strcmp(d.type, "prompt") == 0)
                snprintf(d.prompt_text, sizeof d.prompt_text, "%s", p->plan_prompt);
        }
    }
    if (!d.planned && d.accepted && strcmp(d.type, "prompt") == 0)
        snprintf(d.prompt_text, sizeof d.prompt_text, "%s", d.default_prompt);
    p->dialogs[p->ndialogs % DIALOG_RING] = d;
    p->ndialogs++;
    pthread_mutex_unlock(&p->mu);
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddBoolToObject(pa, "accept", d.accepted) ||
        (d.accepted && strcmp(d.type, "prompt") == 0 &&
         !cJSON_AddStringToObject(pa, "promptText", d.prompt_text))) {
        /* Out of memory: no answer rather than a wrong one (accepting a
         * prompt without its text); the dialog stays up and says so. */
        cJSON_Delete(pa);
        base_log(BASE_LOG_CDP, BASE_LOG_WARN, "%s dialog left open: out of memory", d.type);
        return;
    }
    cdp_call_async(p->conn, sid, "Page.handleJavaScriptDialog", pa, 10000, ignore_reply, NULL);
    /* The text stays out of the log at info level (a page may echo what was
     * typed); the runner's records carry it, scrubbed of secrets. */
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "%s dialog %s: %.80s", d.type,
             d.accepted ? "accepted" : "dismissed", d.message);
}

/* Browser-level target events about this page or a tab it opened. */
static void on_browser_event(cdp_page *p, const char *method, const cJSON *params)
{
    const cJSON *ti = cJSON_GetObjectItemCaseSensitive(params, "targetInfo");
    if (strcmp(method, "Target.targetCreated") == 0) {
        const char *opener = jstr(ti, "openerId");
        const char *type = jstr(ti, "type");
        const char *tid = jstr(ti, "targetId");
        if (opener && tid && type && strcmp(type, "page") == 0 &&
            strcmp(opener, p->target_id) == 0) {
            pthread_mutex_lock(&p->mu);
            snprintf(p->popups[p->npopups % POPUP_RING], 64, "%s", tid);
            p->npopups++;
            pthread_mutex_unlock(&p->mu);
            base_log(BASE_LOG_CDP, BASE_LOG_INFO, "page opened a new tab %s", tid);
        }
        return;
    }
    const char *tid = jstr(params, "targetId");
    if (strcmp(method, "Target.targetCrashed") == 0 && tid && strcmp(tid, p->target_id) == 0) {
        fail_page(p, BASE_ECLOSED, "page crashed (its renderer process died)");
    } else if (strcmp(method, "Target.targetDestroyed") == 0 && tid &&
               strcmp(tid, p->target_id) == 0) {
        fail_page(p, BASE_ECLOSED, "tab closed (by the page, the user or another client)");
    } else if (strcmp(method, "Target.detachedFromTarget") == 0) {
        const char *s = jstr(params, "sessionId");
        if (s && strcmp(s, p->session) == 0)
            fail_page(p, BASE_ECLOSED, "tab closed (by the page, the user or another client)");
    }
}

/* Remembers (session, frame) -> id of fovea's world; an existing entry for
 * that frame is replaced (a new document). Called with p->mu held. */
static void world_put_locked(cdp_page *p, const char *sid, const char *fid, int id)
{
    world_ctx *w = NULL;
    for (int i = 0; i < p->nworlds && !w; i++)
        if (strcmp(p->worlds[i].session, sid) == 0 && strcmp(p->worlds[i].frame_id, fid) == 0)
            w = &p->worlds[i];
    if (!w && p->nworlds < MAX_WORLDS)
        w = &p->worlds[p->nworlds++];
    if (!w) /* full: forget the oldest, it is asked again on demand */
        w = &p->worlds[0];
    snprintf(w->session, sizeof w->session, "%s", sid);
    snprintf(w->frame_id, sizeof w->frame_id, "%s", fid);
    w->id = id;
}

/* Forgets context id of session sid (id 0: every context of sid). Called
 * with p->mu held. */
static void world_drop_locked(cdp_page *p, const char *sid, int id)
{
    for (int i = 0; i < p->nworlds;) {
        if (strcmp(p->worlds[i].session, sid) == 0 && (id == 0 || p->worlds[i].id == id))
            p->worlds[i] = p->worlds[--p->nworlds];
        else
            i++;
    }
}

/* Runtime.executionContextCreated/Destroyed/sCleared (what follows the
 * common prefix): keeps the table of fovea's world contexts current, so an
 * evaluate in the world needs no extra round trip after a navigation. */
static void on_context(cdp_page *p, const char *sid, const char *what, const cJSON *params)
{
    if (strcmp(what, "Created") == 0) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(params, "context");
        const cJSON *aux = cJSON_GetObjectItemCaseSensitive(c, "auxData");
        const char *name = jstr(c, "name");
        const char *fid = jstr(aux, "frameId");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
        if (!name || strcmp(name, CDP_WORLD_NAME) != 0 || !fid || !cJSON_IsNumber(id) ||
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(aux, "isDefault")) ||
            id->valuedouble < 1 || id->valuedouble > 0x7fffffff)
            return;
        pthread_mutex_lock(&p->mu);
        world_put_locked(p, sid, fid, (int)id->valuedouble);
        pthread_mutex_unlock(&p->mu);
    } else if (strcmp(what, "Destroyed") == 0) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "executionContextId");
        if (!cJSON_IsNumber(id) || id->valuedouble < 1 || id->valuedouble > 0x7fffffff)
            return;
        pthread_mutex_lock(&p->mu);
        world_drop_locked(p, sid, (int)id->valuedouble);
        pthread_mutex_unlock(&p->mu);
    } else if (strcmp(what, "sCleared") == 0) {
        pthread_mutex_lock(&p->mu);
        world_drop_locked(p, sid, 0);
        pthread_mutex_unlock(&p->mu);
    }
}

static void on_event(const char *sid, const char *method, const cJSON *params, void *user)
{
    cdp_page *p = user;
    pthread_mutex_lock(&p->mu);
    int mine = owns_session_locked(p, sid);
    pthread_mutex_unlock(&p->mu);
    if (mine)
        cdp__console_on_event(p->console, method, params);
    if (!mine) {
        /* Browser-level notices: our target crashed or went away, or it
         * opened a tab. */
        if (!sid && strncmp(method, "Target.", 7) == 0)
            on_browser_event(p, method, params);
        return;
    }
    if (strcmp(method, "Page.javascriptDialogOpening") == 0) {
        on_dialog(p, sid, params);
        return;
    }
    if (strncmp(method, "Runtime.executionContext", 24) == 0) {
        on_context(p, sid, method + 24, params);
    } else if (strcmp(method, "Target.attachedToTarget") == 0) {
        on_attached(p, sid, params);
    } else if (strcmp(method, "Target.detachedFromTarget") == 0) {
        const char *child = jstr(params, "sessionId");
        pthread_mutex_lock(&p->mu);
        for (int i = 0; child && i < p->nchildren; i++) {
            if (strcmp(p->children[i], child) == 0) {
                memcpy(p->children[i], p->children[--p->nchildren], 64);
                break;
            }
        }
        for (int i = 0; child && i < p->nframes; i++) {
            if (p->frames[i].oopif && strcmp(p->frames[i].session, child) == 0) {
                p->frames[i].oopif = 0;
                snprintf(p->frames[i].session, sizeof p->frames[i].session, "%s", p->session);
            }
        }
        pthread_mutex_unlock(&p->mu);
    } else if (strcmp(method, "Page.frameAttached") == 0) {
        const char *fid = jstr(params, "frameId");
        const char *parent = jstr(params, "parentFrameId");
        if (!fid)
            return;
        pthread_mutex_lock(&p->mu);
        cdp_frame *f = upsert_frame_locked(p, fid);
        if (f) {
            snprintf(f->parent_id, sizeof f->parent_id, "%s", parent ? parent : "");
            if (!f->oopif)
                snprintf(f->session, sizeof f->session, "%s", sid);
        }
        pthread_mutex_unlock(&p->mu);
    } else if (strcmp(method, "Page.frameNavigated") == 0) {
        const cJSON *fr = cJSON_GetObjectItemCaseSensitive(params, "frame");
        const char *fid = jstr(fr, "id");
        if (!fid)
            return;
        const char *parent = jstr(fr, "parentId");
        const char *url = jstr(fr, "url");
        pthread_mutex_lock(&p->mu);
        cdp_frame *f = upsert_frame_locked(p, fid);
        if (f) {
            if (parent)
                snprintf(f->parent_id, sizeof f->parent_id, "%s", parent);
            if (url)
                snprintf(f->url, sizeof f->url, "%s", url);
            if (!f->oopif)
                snprintf(f->session, sizeof f->session, "%s", sid);
        }
        pthread_mutex_unlock(&p->mu);
    } else if (strcmp(method, "Page.frameDetached") == 0) {
        const char *fid = jstr(params, "frameId");
        const char *reason = jstr(params, "reason");
        /* "swap" means the frame moved to another process: it lives on as
         * an iframe target, so keep it. */
        if (fid && !(reason && strcmp(reason, "swap") == 0)) {
            pthread_mutex_lock(&p->mu);
            remove_frame_locked(p, fid);
            pthread_mutex_unlock(&p->mu);
        }
    } else if (strcmp(method, "Inspector.targetCrashed") == 0 && strcmp(sid, p->session) == 0) {
        fail_page(p, BASE_ECLOSED, "page crashed (its renderer process died)");
    }
}

static void load_frame_tree(cdp_page *p, const cJSON *node, const char *parent)
{
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(node, "frame");
    const char *fid = jstr(fr, "id");
    if (!fid)
        return;
    cdp_frame *f = upsert_frame_locked(p, fid);
    if (f) {
        snprintf(f->parent_id, sizeof f->parent_id, "%s", parent ? parent : "");
        const char *url = jstr(fr, "url");
        snprintf(f->url, sizeof f->url, "%s", url ? url : "");
        if (!f->oopif)
            snprintf(f->session, sizeof f->session, "%s", p->session);
    }
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(node, "childFrames");
    const cJSON *k;
    cJSON_ArrayForEach(k, kids)
    {
        load_frame_tree(p, k, fid);
    }
}

static base_err page_attach(cdp_browser *b, const cdp_page_opts *o, const char *target,
                            int adopt, cdp_page **out, char *err);
static base_err measure_viewport(cdp_page *p, cdp_page_opts *vp, char *err);

base_err cdp_page_open(cdp_browser *b, const cdp_page_opts *o, cdp_page **out, char *err)
{
    return page_attach(b, o, NULL, 0, out, err);
}

base_err cdp_page_open_popup(cdp_browser *b, const char *target_id, const cdp_page_opts *o,
                        cdp_page **out, char *err)
{
    if (!b || !target_id || !target_id[0] || !out)
        return base_errf(err, BASE_EINVAL, "cdp: popup needs a browser, a target id and out");
    return page_attach(b, o, target_id, 0, out, err);
}

/* Opens a new tab (target NULL) or attaches to an existing one: a popup the
 * page opened gets the viewport o, an adopted tab (adopt) keeps its own
 * viewport and emulation (measured, never set) and is only detached from on
 * close. */
static base_err page_attach(cdp_browser *b, const cdp_page_opts *o, const char *target,
                            int adopt, cdp_page **out, char *err)
{
    cdp_page *p = base_calloc(1, sizeof *p);
    if (!p)
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
    p->b = b;
    p->conn = b->conn;
    p->sub = -1;
    p->opts.width = o && o->width > 0 ? o->width : 1280;
    p->opts.height = o && o->height > 0 ? o->height : 800;
    p->opts.scale = o && o->scale > 0 ? o->scale : 1.0;
    p->opts.mobile = o ? o->mobile : 0;
    p->adopted = adopt;
    pthread_mutex_init(&p->mu, NULL);
    base_err e;
    cJSON *res = NULL;

    /* Browser-level target events tell a page that it crashed or was
     * closed, and which tabs it opened (Target.targetCreated.openerId). The
     * flag is browser-wide and idempotent. */
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddBoolToObject(pa, "discover", 1)) {
        cJSON_Delete(pa);
        e = base_errf(err, BASE_ENOMEM, "cdp: out of memory");
        goto fail;
    }
    if ((e = cdp_call(p->conn, NULL, "Target.setDiscoverTargets", pa, NULL, 10000, err)))
        goto fail;
    if (target) {
        snprintf(p->target_id, sizeof p->target_id, "%s", target);
    } else {
        pa = cJSON_CreateObject();
        if (!pa || !cJSON_AddStringToObject(pa, "url", "about:blank")) {
            cJSON_Delete(pa);
            e = base_errf(err, BASE_ENOMEM, "cdp: out of memory");
            goto fail;
        }
        if ((e = cdp_call(p->conn, NULL, "Target.createTarget", pa, &res, 10000, err)))
            goto fail;
        const char *tid = jstr(res, "targetId");
        if (!tid) {
            e = base_errf(err, BASE_EPROTO, "cdp: Target.createTarget returned no targetId");
            goto fail;
        }
        snprintf(p->target_id, sizeof p->target_id, "%s", tid);
        cdp__opened_add(p->conn, p->target_id); /* closed on a signal too (cdp/opened.c) */
        cJSON_Delete(res);
        res = NULL;
    }

    p->console = cdp__console_create(); /* before the events that fill it */
    /* Subscribe before attaching so no event of the new session is missed. */
    p->sub = cdp_subscribe(p->conn, NULL, NULL, on_event, p);
    if (p->sub < 0) {
        e = base_errf(err, BASE_ENOMEM, "cdp: cannot subscribe to page events");
        goto fail;
    }
    pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "targetId", p->target_id) ||
        !cJSON_AddBoolToObject(pa, "flatten", 1)) {
        cJSON_Delete(pa);
        e = base_errf(err, BASE_ENOMEM, "cdp: out of memory");
        goto fail;
    }
    if ((e = cdp_call(p->conn, NULL, "Target.attachToTarget", pa, &res, 10000, err)))
        goto fail;
    const char *sid = jstr(res, "sessionId");
    if (!sid) {
        e = base_errf(err, BASE_EPROTO, "cdp: Target.attachToTarget returned no sessionId");
        goto fail;
    }
    pthread_mutex_lock(&p->mu);
    snprintf(p->session, sizeof p->session, "%s", sid);
    pthread_mutex_unlock(&p->mu);
    cJSON_Delete(res);
    res = NULL;

    if ((e = cdp_call(p->conn, p->session, "Page.enable", NULL, NULL, 10000, err))) {
        /* A tab showing a JavaScript dialog answers nothing until the
         * dialog is closed, and fovea does not answer the user's dialog
         * for them: say what the likely cause is and what to do. */
        if (e == BASE_ETIMEDOUT && adopt && err)
            err[0] = '\0'; /* this message replaces the bare timeout */
        if (e == BASE_ETIMEDOUT && adopt)
            base_errf(err, e,
                            "cdp: tab %.64s does not answer (Page.enable timed out): it is "
                            "probably showing a JavaScript dialog (alert, confirm or prompt); "
                            "answer it in the browser and attach again",
                            p->target_id);
        goto fail;
    }
    if ((e = cdp_call(p->conn, p->session, "Runtime.enable", NULL, NULL, 10000, err)))
        goto fail;
    /* The browser's own reports (failed requests, CSP) for the console ring. */
    if ((e = cdp_call(p->conn, p->session, "Log.enable", NULL, NULL, 10000, err)))
        goto fail;
    pa = world_script_params();
    if (!pa) {
        e = base_errf(err, BASE_ENOMEM, "cdp: out of memory");
        goto fail;
    }
    if ((e = cdp_call(p->conn, p->session, "Page.addScriptToEvaluateOnNewDocument", pa, NULL,
                      10000, err)))
        goto fail;
    if (adopt) {
        /* Not ours: no Emulation call, the tab keeps what it has. */
        if ((e = measure_viewport(p, &p->opts, err)))
            goto fail;
    } else {
        pa = cJSON_CreateObject();
        if (!pa || !cJSON_AddNumberToObject(pa, "width", p->opts.width) ||
            !cJSON_AddNumberToObject(pa, "height", p->opts.height) ||
            !cJSON_AddNumberToObject(pa, "deviceScaleFactor", p->opts.scale) ||
            !cJSON_AddBoolToObject(pa, "mobile", p->opts.mobile)) {
            cJSON_Delete(pa);
            e = base_errf(err, BASE_ENOMEM, "cdp: out of memory");
            goto fail;
        }
        if ((e = cdp_call(p->conn, p->session, "Emulation.setDeviceMetricsOverride", pa, NULL,
                          10000, err)))
            goto fail;
    }
    pa = auto_attach_params();
    if (!pa) {
        e = base_errf(err, BASE_ENOMEM, "cdp: out of memory");
        goto fail;
    }
    if ((e = cdp_call(p->conn, p->session, "Target.setAutoAttach", pa, NULL, 10000, err)))
        goto fail;
    if ((e = cdp_call(p->conn, p->session, "Page.getFrameTree", NULL, &res, 10000, err)))
        goto fail;
    pthread_mutex_lock(&p->mu);
    load_frame_tree(p, cJSON_GetObjectItemCaseSensitive(res, "frameTree"), NULL);
    pthread_mutex_unlock(&p->mu);
    cJSON_Delete(res);
    *out = p;
    return BASE_OK;
fail:
    cJSON_Delete(res);
    cdp_page_close(p);
    return e;
}

void cdp_page_close(cdp_page *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->closing = 1;
    int dead = p->dead;
    pthread_mutex_unlock(&p->mu);
    if (p->sub > 0)
        cdp_unsubscribe(p->conn, p->sub);
    if (p->target_id[0])
        cdp__opened_remove(p->target_id);
    if (p->adopted && p->session[0] && cdp_conn_alive(p->conn)) {
        /* Not ours to close: detach our session, the tab lives on. */
        cJSON *pa = cJSON_CreateObject();
        if (pa && cJSON_AddStringToObject(pa, "sessionId", p->session))
            cdp_call(p->conn, NULL, "Target.detachFromTarget", pa, NULL, 5000, NULL);
        else
            cJSON_Delete(pa);
    } else if (!p->adopted && p->target_id[0] && cdp_conn_alive(p->conn)) {
        /* A dead page's tab may still exist (a crashed or frozen renderer):
         * close it too, but do not wait long on a browser busy with it. */
        cJSON *pa = cJSON_CreateObject();
        if (pa && cJSON_AddStringToObject(pa, "targetId", p->target_id))
            cdp_call(p->conn, NULL, "Target.closeTarget", pa, NULL, dead ? 1000 : 5000, NULL);
        else
            cJSON_Delete(pa);
    }
    cdp__console_destroy(p->console);
    pthread_mutex_destroy(&p->mu);
    base_free(p);
}

cdp__console *cdp__page_console(cdp_page *p)
{
    return p->console;
}

/* 1 when url's scheme is one fovea navigates to. javascript: would run
 * script in whatever page is open, and the rest (chrome:, ftp:, custom
 * handlers) do not give a document to work on. */
static int scheme_ok(const char *url)
{
    static const char *const ok[] = {"http:", "https:", "file:", "about:", "data:", "blob:"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (strncasecmp(url, ok[i], strlen(ok[i])) == 0)
            return 1;
    }
    return 0;
}

/* A readable cause for the common net:: error codes of Page.navigate. */
static const char *net_error_hint(const char *et)
{
    static const struct {
        const char *code, *hint;
    } hints[] = {
        {"net::ERR_NAME_NOT_RESOLVED", "DNS lookup failed"},
        {"net::ERR_NAME_RESOLUTION_FAILED", "DNS lookup failed"},
        {"net::ERR_CONNECTION_REFUSED", "connection refused"},
        {"net::ERR_CONNECTION_RESET", "connection reset"},
        {"net::ERR_CONNECTION_TIMED_OUT", "connection timed out"},
        {"net::ERR_ADDRESS_UNREACHABLE", "address unreachable"},
        {"net::ERR_INTERNET_DISCONNECTED", "no network"},
        {"net::ERR_CERT_", "TLS certificate rejected"},
        {"net::ERR_HTTP_RESPONSE_CODE_FAILURE", "the server answered with an HTTP error status"},
        {"net::ERR_FILE_NOT_FOUND", "file not found"},
        {"net::ERR_ABORTED", "navigation aborted (a download, or cancelled by the page)"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        if (strncmp(et, hints[i].code, strlen(hints[i].code)) == 0)
            return hints[i].hint;
    }
    return "network error";
}

/* The HTTP status of the main document (Navigation Timing's responseStatus;
 * 0 when unknown: about:, file:, an old browser, or a page that answers no
 * script in time). */
static int document_status(cdp_page *p)
{
    cJSON *v = NULL;
    int status = 0;
    if (cdp_page_evaluate(p,
                          "(function(){var e=performance.getEntriesByType('navigation')[0];"
                          "return e&&e.responseStatus||0})()",
                          &v, 3000, NULL) == BASE_OK &&
        cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1000)
        status = (int)v->valuedouble;
    cJSON_Delete(v);
    return status;
}

base_err cdp_page_navigate(cdp_page *p, const char *url, int timeout_ms, char *err)
{
    if (timeout_ms <= 0)
        timeout_ms = 30000;
    if (!url || !scheme_ok(url)) {
        const char *colon = url ? strchr(url, ':') : NULL;
        int n = colon ? (int)(colon - url) : 0;
        return base_errf(err, BASE_EINVAL,
                         "navigation to %.100s refused: unsupported URL scheme '%.*s' (fovea "
                         "opens http, https, file, data and about URLs)",
                         url ? url : "(null)", n > 20 ? 20 : n, url ? url : "");
    }
    int64_t t0 = base_monotime();
    cdp_waiter *w = NULL;
    base_err e = cdp_waiter_create(p->conn, p->session, "Page.loadEventFired", NULL, NULL, &w);
    if (e)
        return base_errf(err, e, "cdp: cannot wait for the load event");
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "url", url)) {
        cJSON_Delete(pa);
        cdp_waiter_destroy(w);
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
    }
    cJSON *res = NULL;
    e = cdp_call(p->conn, p->session, "Page.navigate", pa, &res, timeout_ms, err);
    if (e) {
        cdp_waiter_destroy(w);
        return e;
    }
    const char *et = jstr(res, "errorText");
    if (et && et[0]) {
        base_errf(err, BASE_EREMOTE, "navigation to %.200s failed: %s (%s)", url, et,
                  net_error_hint(et));
        cJSON_Delete(res);
        cdp_waiter_destroy(w);
        return BASE_EREMOTE;
    }
    /* A same-document navigation (fragment change) fires no load event. */
    int same_doc = jstr(res, "loaderId") == NULL;
    cJSON_Delete(res);
    if (!same_doc) {
        /* In slices, so that a stop signal (base/interrupt.h) ends the
         * wait for a slow or frozen start page at once. */
        for (;;) {
            int left = timeout_ms - (int)((base_monotime() - t0) / 1000);
            int slice = left > 100 ? 100 : left > 0 ? left : 1;
            e = cdp_waiter_wait(w, slice, NULL);
            if (e != BASE_ETIMEDOUT || left <= slice)
                break;
            if (base_interrupted()) {
                e = BASE_ECANCELED;
                base_errf(err, e, "navigation to %.200s: interrupted by %s", url,
                          base_signal_name(base_interrupted()));
                break;
            }
        }
        if (e == BASE_ECANCELED) {
            /* reported above */
        } else if (e == BASE_ETIMEDOUT &&
            cdp_page_evaluate(p, "1", NULL, 700, NULL) == BASE_ETIMEDOUT) {
            /* No load event and no answer at all: a script holds the
             * renderer (an endless loop). Every later call would wait too. */
            fail_page(p, BASE_ETIMEDOUT,
                      "page not responding (no load event and no answer to a probe: a script "
                      "in an endless loop?)");
            base_errf(err, e, "navigation to %.200s: page not responding (no load event within "
                              "%d ms, no answer to a probe)",
                      url, timeout_ms);
        } else if (e == BASE_ETIMEDOUT) {
            base_errf(err, e, "navigation to %.200s: no load event within %d ms", url,
                      timeout_ms);
        }
        else if (e) {
            char why[200] = "browser connection closed";
            cdp_page_status(p, why, sizeof why);
            base_errf(err, e, "navigation to %.200s: %s", url, why);
        }
    }
    cdp_waiter_destroy(w);
    if (e == BASE_OK && strncasecmp(url, "http", 4) == 0) {
        /* A 404 or 500 page loads like any other; the task would then fail
         * much later as "no box". Say so now. */
        int status = document_status(p);
        if (status >= 400)
            e = base_errf(err, BASE_EREMOTE, "HTTP %d at %.200s", status, url);
    }
    return e;
}

base_err cdp_page_evaluate(cdp_page *p, const char *expr, cJSON **value, int timeout_ms,
                           char *err)
{
    return cdp_page_evaluate_in(p, NULL, 0, expr, value, timeout_ms, err);
}

/* The frame whose document is session sid's own (its root): the tab's main
 * frame for the page session, else the out-of-process frame the session was
 * attached for (an iframe target's id is its frame id). 0 when unknown. */
static int root_frame(cdp_page *p, const char *sid, char *fid)
{
    int ok = 0;
    pthread_mutex_lock(&p->mu);
    if (strcmp(sid, p->session) == 0) {
        snprintf(fid, 64, "%s", p->target_id);
        ok = 1;
    }
    for (int i = 0; !ok && i < p->nframes; i++) {
        if (p->frames[i].oopif && strcmp(p->frames[i].session, sid) == 0) {
            snprintf(fid, 64, "%s", p->frames[i].id);
            ok = 1;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return ok;
}

/* The remembered context of fovea's world for (sid, fid); 0 when none. */
static int world_get(cdp_page *p, const char *sid, const char *fid)
{
    int id = 0;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->nworlds && !id; i++)
        if (strcmp(p->worlds[i].session, sid) == 0 && strcmp(p->worlds[i].frame_id, fid) == 0)
            id = p->worlds[i].id;
    pthread_mutex_unlock(&p->mu);
    return id;
}

base_err cdp_page_world(cdp_page *p, const char *session, const char *frame_id, int timeout_ms,
                        int *context_id, char *err)
{
    if (!p || !context_id)
        return base_errf(err, BASE_EINVAL, "cdp: NULL page or context");
    const char *sid = session && session[0] ? session : p->session;
    char fid[64];
    if (frame_id && frame_id[0])
        snprintf(fid, sizeof fid, "%s", frame_id);
    else if (!root_frame(p, sid, fid))
        return base_errf(err, BASE_ENOTFOUND, "cdp: no frame is the root of session %.40s", sid);
    int id = world_get(p, sid, fid);
    if (id > 0) {
        *context_id = id;
        return BASE_OK;
    }
    /* Not reported yet (the document predates fovea, or its event is still
     * queued): create it. Chromium keeps one world per name, so this is the
     * same world the document-start script made. */
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "frameId", fid) ||
        !cJSON_AddStringToObject(pa, "worldName", CDP_WORLD_NAME)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory building Page.createIsolatedWorld");
    }
    cJSON *res = NULL;
    base_err e = cdp_call(p->conn, sid, "Page.createIsolatedWorld", pa, &res,
                          timeout_ms > 0 ? timeout_ms : 10000, err);
    if (e)
        return e;
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(res, "executionContextId");
    int ok = cJSON_IsNumber(x) && x->valuedouble >= 1 && x->valuedouble <= 0x7fffffff;
    id = ok ? (int)x->valuedouble : 0;
    cJSON_Delete(res);
    if (!ok)
        return base_errf(err, BASE_EPROTO, "cdp: Page.createIsolatedWorld gave no context");
    pthread_mutex_lock(&p->mu);
    world_put_locked(p, sid, fid, id);
    pthread_mutex_unlock(&p->mu);
    *context_id = id;
    return BASE_OK;
}

/* One Runtime.evaluate in context ctx (0: the session's main world). */
static base_err evaluate_once(cdp_page *p, const char *sid, int ctx, const char *expr,
                              cJSON **value, int timeout_ms, char *err)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "expression", expr) ||
        !cJSON_AddBoolToObject(pa, "returnByValue", 1) ||
        !cJSON_AddBoolToObject(pa, "awaitPromise", 1) ||
        (ctx > 0 && !cJSON_AddNumberToObject(pa, "contextId", ctx))) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "evaluate: out of memory");
    }
    cJSON *res = NULL;
    base_err e =
        cdp_call(p->conn, sid, "Runtime.evaluate", pa, &res, timeout_ms > 0 ? timeout_ms : 30000,
                 err);
    if (e)
        return e;
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(res, "exceptionDetails");
    if (ex) {
        const cJSON *exc = cJSON_GetObjectItemCaseSensitive(ex, "exception");
        const char *desc = jstr(exc, "description");
        const char *text = jstr(ex, "text");
        base_errf(err, BASE_EREMOTE, "page script threw: %.200s",
                  desc ? desc : (text ? text : "unknown exception"));
        cJSON_Delete(res);
        return BASE_EREMOTE;
    }
    if (value) {
        cJSON *r = cJSON_GetObjectItemCaseSensitive(res, "result");
        cJSON *v = r ? cJSON_DetachItemFromObjectCaseSensitive(r, "value") : NULL;
        if (!v)
            v = cJSON_CreateNull();
        if (!v) {
            cJSON_Delete(res);
            return base_errf(err, BASE_ENOMEM, "evaluate: out of memory");
        }
        *value = v;
    }
    cJSON_Delete(res);
    return BASE_OK;
}

base_err cdp_page_evaluate_in(cdp_page *p, const char *session, int context_id, const char *expr,
                              cJSON **value, int timeout_ms, char *err)
{
    const char *sid = session && session[0] ? session : p->session;
    if (context_id != CDP_CTX_FOVEA)
        return evaluate_once(p, sid, context_id, expr, value, timeout_ms, err);
    /* fovea's world: a remembered context may belong to a document that just
     * went away (its Destroyed event still queued). Such a context ran
     * nothing, so asking once more in a fresh one repeats no effect. */
    for (int attempt = 0;; attempt++) {
        int ctx = 0;
        char werr[BASE_ERRBUF_SIZE] = "";
        base_err e = cdp_page_world(p, sid, NULL, timeout_ms, &ctx, werr);
        if (e)
            return base_errf(err, e, "%s", werr);
        e = evaluate_once(p, sid, ctx, expr, value, timeout_ms, werr);
        if (e == BASE_EREMOTE && attempt == 0 && strstr(werr, "Cannot find context")) {
            pthread_mutex_lock(&p->mu);
            world_drop_locked(p, sid, ctx);
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        if (e)
            base_errf(err, e, "%s", werr);
        return e;
    }
}

base_err cdp_page_call(cdp_page *p, const char *method, cJSON *params, cJSON **result,
                       int timeout_ms, char *err)
{
    return cdp_call(p->conn, p->session, method, params, result, timeout_ms, err);
}

cdp_browser *cdp_page_browser(cdp_page *p)
{
    return p->b;
}

cdp_conn *cdp_page_conn(cdp_page *p)
{
    return p->conn;
}

const char *cdp_page_session(cdp_page *p)
{
    return p->session;
}

const char *cdp_page_target_id(cdp_page *p)
{
    return p->target_id;
}

const cdp_page_opts *cdp_page_viewport(cdp_page *p)
{
    return &p->opts;
}

int cdp_page_frames(cdp_page *p, cdp_frame *out, int max)
{
    pthread_mutex_lock(&p->mu);
    int n = p->nframes;
    int k = 0;
    /* Main frame first, then the rest in table order. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n && k < max; i++) {
            int is_main = p->frames[i].parent_id[0] == '\0';
            if ((pass == 0) == is_main)
                out[k++] = p->frames[i];
        }
    }
    pthread_mutex_unlock(&p->mu);
    return n;
}

base_err cdp_page_frame_session(cdp_page *p, const char *frame_id, char *buf)
{
    pthread_mutex_lock(&p->mu);
    cdp_frame *f = find_frame_locked(p, frame_id);
    if (f)
        snprintf(buf, 64, "%s", f->session[0] ? f->session : p->session);
    pthread_mutex_unlock(&p->mu);
    return f ? BASE_OK : BASE_ENOTFOUND;
}

int cdp_page_alive(cdp_page *p)
{
    pthread_mutex_lock(&p->mu);
    int alive = !p->dead;
    pthread_mutex_unlock(&p->mu);
    return alive && cdp_conn_alive(p->conn);
}

base_err cdp_page_status(cdp_page *p, char *why, size_t n)
{
    pthread_mutex_lock(&p->mu);
    base_err e = p->dead ? p->dead_e : BASE_OK;
    if (e && why && n)
        snprintf(why, n, "%s", p->dead_why);
    pthread_mutex_unlock(&p->mu);
    if (e == BASE_OK && !cdp_conn_alive(p->conn)) {
        e = BASE_ECLOSED;
        if (why && n) {
            /* Name the cause when known: a pool's time limit, a dead browser. */
            char cause[BASE_ERRBUF_SIZE];
            cdp_conn_close_reason(p->conn, cause, sizeof cause);
            snprintf(why, n, "browser connection closed%s%.200s%s", cause[0] ? " (" : "", cause,
                     cause[0] ? ")" : "");
        }
    }
    return e;
}

void cdp_page_fail(cdp_page *p, base_err e, const char *why)
{
    if (p && e != BASE_OK)
        fail_page(p, e, why ? why : base_strerror(e));
}

int cdp_page_owns_session(cdp_page *p, const char *sid)
{
    pthread_mutex_lock(&p->mu);
    int mine = owns_session_locked(p, sid);
    pthread_mutex_unlock(&p->mu);
    return mine;
}

base_err cdp_page_dialog_next(cdp_page *p, int accept, const char *prompt_text,
                              const char *expect)
{
    if (!p)
        return BASE_EINVAL;
    if ((prompt_text && strlen(prompt_text) >= sizeof p->plan_prompt) ||
        (expect && strlen(expect) >= sizeof p->plan_expect))
        return BASE_ETOOBIG;
    pthread_mutex_lock(&p->mu);
    p->plan_set = 1;
    p->plan_accept = accept != 0;
    snprintf(p->plan_prompt, sizeof p->plan_prompt, "%s", prompt_text ? prompt_text : "");
    snprintf(p->plan_expect, sizeof p->plan_expect, "%s", expect ? expect : "");
    pthread_mutex_unlock(&p->mu);
    return BASE_OK;
}

int cdp_page_dialog_pending_plan(cdp_page *p)
{
    pthread_mutex_lock(&p->mu);
    int set = p->plan_set;
    pthread_mutex_unlock(&p->mu);
    return set;
}

uint64_t cdp_page_dialog_count(cdp_page *p)
{
    pthread_mutex_lock(&p->mu);
    uint64_t n = p->ndialogs;
    pthread_mutex_unlock(&p->mu);
    return n;
}

int cdp_page_dialog_get(cdp_page *p, uint64_t seq, cdp_dialog *out)
{
    pthread_mutex_lock(&p->mu);
    int ok = seq < p->ndialogs && p->ndialogs - seq <= DIALOG_RING;
    if (ok)
        *out = p->dialogs[seq % DIALOG_RING];
    pthread_mutex_unlock(&p->mu);
    return ok;
}

uint64_t cdp_page_popup_count(cdp_page *p)
{
    pthread_mutex_lock(&p->mu);
    uint64_t n = p->npopups;
    pthread_mutex_unlock(&p->mu);
    return n;
}

int cdp_page_popup_get(cdp_page *p, uint64_t seq, char *target_id)
{
    pthread_mutex_lock(&p->mu);
    int ok = seq < p->npopups && p->npopups - seq <= POPUP_RING;
    if (ok)
        snprintf(target_id, 64, "%s", p->popups[seq % POPUP_RING]);
    pthread_mutex_unlock(&p->mu);
    return ok;
}

/* ---------- tabs fovea did not open (cdp_page_adopt) ---------- */

static void copy_field(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

static void fill_target(cdp_target_info *t, const cJSON *ti)
{
    memset(t, 0, sizeof *t);
    copy_field(t->id, sizeof t->id, jstr(ti, "targetId"));
    copy_field(t->type, sizeof t->type, jstr(ti, "type"));
    copy_field(t->url, sizeof t->url, jstr(ti, "url"));
    copy_field(t->title, sizeof t->title, jstr(ti, "title"));
    t->attached = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ti, "attached"));
}

base_err cdp_browser_targets(cdp_browser *b, cdp_target_info *out, int max, int *n, char *err)
{
    if (!b || !n || max < 0 || (max > 0 && !out))
        return base_errf(err, BASE_EINVAL, "cdp: bad arguments to cdp_browser_targets");
    cJSON *res = NULL;
    base_err e = cdp_call(b->conn, NULL, "Target.getTargets", NULL, &res, 10000, err);
    if (e)
        return e;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(res, "targetInfos");
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(res);
        return base_errf(err, BASE_EPROTO, "cdp: Target.getTargets returned no targetInfos");
    }
    int k = 0;
    const cJSON *ti;
    cJSON_ArrayForEach(ti, arr)
    {
        if (!jstr(ti, "targetId"))
            continue; /* not addressable: not listed */
        if (k < max)
            fill_target(&out[k], ti);
        k++;
    }
    cJSON_Delete(res);
    *n = k;
    return BASE_OK;
}

int cdp_target_is_tab(const cdp_target_info *t)
{
    static const char *const internal[] = {"devtools://", "chrome-extension://",
                                           "chrome-untrusted://"};
    if (!t || strcmp(t->type, "page") != 0)
        return 0;
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++) {
        if (strncmp(t->url, internal[i], strlen(internal[i])) == 0)
            return 0;
    }
    return 1;
}

/* The tab's own viewport: the layout viewport in CSS px and the device
 * pixel ratio, read from the page rather than set, so nothing about the
 * tab's emulation changes. */
static base_err measure_viewport(cdp_page *p, cdp_page_opts *vp, char *err)
{
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate(p, "[innerWidth, innerHeight, devicePixelRatio]", &v, 10000,
                                   err);
    if (e)
        return e;
    if (cJSON_GetArraySize(v) != 3 || !cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) ||
        !cJSON_IsNumber(cJSON_GetArrayItem(v, 1)) || !cJSON_IsNumber(cJSON_GetArrayItem(v, 2))) {
        cJSON_Delete(v);
        return base_errf(err, BASE_EPROTO, "cdp: the tab did not report its viewport");
    }
    cdp_page_opts m = {cJSON_GetArrayItem(v, 0)->valueint, cJSON_GetArrayItem(v, 1)->valueint,
                       cJSON_GetArrayItem(v, 2)->valuedouble, 0};
    cJSON_Delete(v);
    /* A minimised or zero-sized window reports 0; keep the fallbacks every
     * reader of the viewport already applies. */
    if (m.width <= 0 || m.height <= 0 || !(m.scale > 0)) {
        return base_errf(err, BASE_EPROTO, "cdp: the tab reports an empty viewport (%dx%d @%g)",
                         m.width, m.height, m.scale);
    }
    *vp = m;
    return BASE_OK;
}

base_err cdp_page_adopt(cdp_browser *b, const char *target_id, cdp_page **out, char *err)
{
    if (!b || !out || !target_id || !target_id[0])
        return base_errf(err, BASE_EINVAL, "cdp: adopt needs a browser and a target id");
    /* Check the target first: attaching to a worker or an iframe target
     * would give a session without a Page domain. */
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "targetId", target_id)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory");
    }
    cJSON *res = NULL;
    base_err e = cdp_call(b->conn, NULL, "Target.getTargetInfo", pa, &res, 10000, err);
    if (e == BASE_EREMOTE)
        return base_errf(err, BASE_ENOTFOUND, "cdp: no target %.64s in this browser", target_id);
    if (e)
        return e;
    cdp_target_info ti;
    fill_target(&ti, cJSON_GetObjectItemCaseSensitive(res, "targetInfo"));
    cJSON_Delete(res);
    if (strcmp(ti.type, "page") != 0)
        return base_errf(err, BASE_ENOTFOUND, "cdp: target %.64s is a %.32s, not a page tab",
                         target_id, ti.type[0] ? ti.type : "(unknown type)");
    if ((e = page_attach(b, NULL, target_id, 1, out, err)))
        return e;
    base_log(BASE_LOG_CDP, BASE_LOG_DEBUG, "adopted tab %s (%dx%d @%g, %s)", target_id,
             (*out)->opts.width, (*out)->opts.height, (*out)->opts.scale, ti.url);
    return BASE_OK;
}

int cdp_page_adopted(cdp_page *p)
{
    return p && p->adopted;
}

base_err cdp_page_refresh_viewport(cdp_page *p, char *err)
{
    if (!p)
        return base_errf(err, BASE_EINVAL, "cdp: NULL page");
    if (!p->adopted)
        return BASE_OK;
    return measure_viewport(p, &p->opts, err);
}

base_err cdp_page_activate(cdp_page *p, char *err)
{
    if (!p)
        return base_errf(err, BASE_EINVAL, "cdp: NULL page");
    return cdp_call(p->conn, p->session, "Page.bringToFront", NULL, NULL, 10000, err);
}

/* cdp/console.c: the per-page ring of console errors, uncaught exceptions
 * and failed requests (cdp/console.h).
 *
 * browser.c hands every event of a page's sessions to
 * cdp__console_on_event, on the service thread. The three sources overlap
 * in the protocol's history (Log.entryAdded once repeated console calls as
 * source "console-api"), so console calls are taken from Runtime only and
 * Log entries of that source are dropped: one message, one entry. The ring
 * is a fixed array allocated with the first entry, so a page that logs
 * nothing costs a few bytes, and a page that logs in a loop costs at most
 * CDP_CONSOLE_RING entries.
 */
#include "cdp/console.h"
#include "cdp/console_int.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_get.h"
#include "base/utf8.h"

struct cdp__console {
    pthread_mutex_t mu;
    cdp_console_entry *ring; /* CDP_CONSOLE_RING entries, NULL until the first one */
    uint64_t count;          /* entries recorded so far: the next seq */
};

const char *cdp_console_kind_name(cdp_console_kind k)
{
    switch (k) {
    case CDP_CONSOLE_ERROR:
        return "error";
    case CDP_CONSOLE_WARNING:
        return "warning";
    case CDP_CONSOLE_EXCEPTION:
        return "exception";
    case CDP_CONSOLE_NETWORK:
        return "network";
    case CDP_CONSOLE_BROWSER:
        return "browser";
    }
    return "?";
}

cdp__console *cdp__console_create(void)
{
    cdp__console *c = base_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void cdp__console_destroy(cdp__console *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    base_free(c->ring);
    base_free(c);
}

/* A string member, NULL when absent (base/json_get.h). */
#define jstr(o, k) base_json_str((o), (k), NULL)

static int jint(const cJSON *o, const char *k, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : dflt;
}

/* Copies s[0..n) into dst (cap bytes) without splitting a UTF-8 sequence
 * and with invalid bytes replaced: page text may carry any bytes. */
static void put(char *dst, size_t cap, const char *s, size_t n)
{
    base_utf8_repair(s ? s : "", s ? n : 0, dst, cap);
}

static void put_str(char *dst, size_t cap, const char *s)
{
    put(dst, cap, s, s ? strlen(s) : 0);
}

/* The first line of s (an exception's description carries its stack after
 * the message; the location is kept apart). */
static size_t first_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? (size_t)(nl - s) : strlen(s);
}

/* Appends as much of s[0..n) as b's cap leaves room for: a long argument
 * is cut, not dropped (the text is cut to the entry's size anyway). */
static void app(base_buf *b, const char *s, size_t n)
{
    size_t room = b->max > b->len ? b->max - b->len : 0;
    base_buf_append(b, s, n < room ? n : room);
}

static void app_str(base_buf *b, const char *s)
{
    app(b, s, strlen(s));
}

/* One console argument as the DevTools console shows it, briefly: a
 * string as it is, a number/boolean/undefined/null by value, an object by
 * its description ("Error: x", "Object", "Array(3)"). */
static void arg_text(base_buf *b, const cJSON *a)
{
    const char *type = jstr(a, "type");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
    const char *uv = jstr(a, "unserializableValue");
    const char *desc = jstr(a, "description");
    if (cJSON_IsString(v)) {
        app_str(b, v->valuestring);
    } else if (uv) {
        app_str(b, uv);
    } else if (desc) {
        /* An Error's description is its stack: the message line suffices. */
        app(b, desc, first_line(desc));
    } else if (cJSON_IsNumber(v) || cJSON_IsBool(v) || cJSON_IsNull(v)) {
        char *t = cJSON_PrintUnformatted(v);
        if (t)
            app_str(b, t);
        cJSON_free(t);
    } else {
        app_str(b, type ? type : "?");
    }
}

/* Where the top frame of a stack trace is (1-based line and column). */
static void top_frame(cdp_console_entry *e, const cJSON *st)
{
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(st, "callFrames");
    const cJSON *f = cJSON_GetArrayItem(frames, 0);
    if (!f)
        return;
    put_str(e->url, sizeof e->url, jstr(f, "url"));
    e->line = jint(f, "lineNumber", -1) + 1;
    e->column = jint(f, "columnNumber", -1) + 1;
}

static void push(cdp__console *c, const cdp_console_entry *e)
{
    pthread_mutex_lock(&c->mu);
    if (!c->ring)
        c->ring = base_calloc(CDP_CONSOLE_RING, sizeof *c->ring);
    if (c->ring) {
        cdp_console_entry *slot = &c->ring[c->count % CDP_CONSOLE_RING];
        *slot = *e;
        slot->seq = c->count++;
    }
    pthread_mutex_unlock(&c->mu);
}

static void on_console_api(cdp__console *c, const cJSON *params)
{
    const char *type = jstr(params, "type");
    if (!type)
        return;
    int err = strcmp(type, "error") == 0 || strcmp(type, "assert") == 0;
    if (!err && strcmp(type, "warning") != 0)
        return;
    cdp_console_entry e;
    memset(&e, 0, sizeof e);
    e.kind = err ? CDP_CONSOLE_ERROR : CDP_CONSOLE_WARNING;
    e.error = err;
    snprintf(e.source, sizeof e.source, "console");
    base_buf b;
    base_buf_init(&b, 4 * sizeof e.text);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "args");
    const cJSON *a;
    int i = 0;
    cJSON_ArrayForEach(a, args)
    {
        if (i++)
            app_str(&b, " ");
        arg_text(&b, a);
    }
    if (strcmp(type, "assert") == 0 && b.len == 0)
        app_str(&b, "Assertion failed");
    put(e.text, sizeof e.text, b.len ? (const char *)b.data : "", b.len);
    base_buf_fini(&b);
    top_frame(&e, cJSON_GetObjectItemCaseSensitive(params, "stackTrace"));
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(params, "timestamp");
    e.wall_ms = cJSON_IsNumber(ts) ? ts->valuedouble : 0;
    push(c, &e);
}

static void on_exception(cdp__console *c, const cJSON *params)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(params, "exceptionDetails");
    if (!d)
        return;
    cdp_console_entry e;
    memset(&e, 0, sizeof e);
    e.kind = CDP_CONSOLE_EXCEPTION;
    e.error = 1;
    snprintf(e.source, sizeof e.source, "exception");
    /* "Uncaught" / "Uncaught (in promise)" and the thrown value's first
     * line ("Error: boom"), as the DevTools console prints it. */
    const char *text = jstr(d, "text");
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(d, "exception");
    base_buf b;
    base_buf_init(&b, 4 * sizeof e.text);
    app_str(&b, text ? text : "Uncaught");
    if (ex) {
        app_str(&b, " ");
        arg_text(&b, ex);
    }
    put(e.text, sizeof e.text, b.len ? (const char *)b.data : "", b.len);
    base_buf_fini(&b);
    put_str(e.url, sizeof e.url, jstr(d, "url"));
    e.line = jint(d, "lineNumber", -1) + 1;
    e.column = jint(d, "columnNumber", -1) + 1;
    if (!e.url[0])
        top_frame(&e, cJSON_GetObjectItemCaseSensitive(d, "stackTrace"));
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(params, "timestamp");
    e.wall_ms = cJSON_IsNumber(ts) ? ts->valuedouble : 0;
    push(c, &e);
}

static void on_log(cdp__console *c, const cJSON *params)
{
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(params, "entry");
    const char *level = jstr(en, "level");
    const char *source = jstr(en, "source");
    if (!level || !source || strcmp(source, "console-api") == 0)
        return;
    int err = strcmp(level, "error") == 0;
    if (!err && strcmp(level, "warning") != 0)
        return;
    /* The browser fetches /favicon.ico by itself when a page names no icon;
     * its 404 is no failure of the page. */
    const char *url = jstr(en, "url");
    int net = strcmp(source, "network") == 0;
    if (net && url) {
        size_t ul = strcspn(url, "?#");
        if (ul >= 12 && memcmp(url + ul - 12, "/favicon.ico", 12) == 0)
            return;
    }
    cdp_console_entry e;
    memset(&e, 0, sizeof e);
    e.kind = net ? CDP_CONSOLE_NETWORK : CDP_CONSOLE_BROWSER;
    e.error = err;
    put_str(e.source, sizeof e.source, source);
    put_str(e.text, sizeof e.text, jstr(en, "text"));
    put_str(e.url, sizeof e.url, url);
    e.line = jint(en, "lineNumber", -1) + 1;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(en, "timestamp");
    e.wall_ms = cJSON_IsNumber(ts) ? ts->valuedouble : 0;
    push(c, &e);
}

void cdp__console_on_event(cdp__console *c, const char *method, const cJSON *params)
{
    if (!c || !method || method[0] == 'P' || method[0] == 'T')
        return; /* Page.* and Target.* are most of the traffic: skip them at once */
    if (strcmp(method, "Runtime.consoleAPICalled") == 0)
        on_console_api(c, params);
    else if (strcmp(method, "Runtime.exceptionThrown") == 0)
        on_exception(c, params);
    else if (strcmp(method, "Log.entryAdded") == 0)
        on_log(c, params);
}

uint64_t cdp__console_count(cdp__console *c)
{
    if (!c)
        return 0;
    pthread_mutex_lock(&c->mu);
    uint64_t n = c->count;
    pthread_mutex_unlock(&c->mu);
    return n;
}

uint64_t cdp__console_first(cdp__console *c)
{
    if (!c)
        return 0;
    pthread_mutex_lock(&c->mu);
    uint64_t n = c->count > CDP_CONSOLE_RING ? c->count - CDP_CONSOLE_RING : 0;
    pthread_mutex_unlock(&c->mu);
    return n;
}

int cdp__console_get(cdp__console *c, uint64_t seq, cdp_console_entry *out)
{
    if (!c || !out)
        return 0;
    int ok = 0;
    pthread_mutex_lock(&c->mu);
    if (c->ring && seq < c->count && c->count - seq <= CDP_CONSOLE_RING) {
        *out = c->ring[seq % CDP_CONSOLE_RING];
        ok = 1;
    }
    pthread_mutex_unlock(&c->mu);
    return ok;
}

uint64_t cdp_page_console_count(cdp_page *p)
{
    return cdp__console_count(p ? cdp__page_console(p) : NULL);
}

uint64_t cdp_page_console_first(cdp_page *p)
{
    return cdp__console_first(p ? cdp__page_console(p) : NULL);
}

int cdp_page_console_get(cdp_page *p, uint64_t seq, cdp_console_entry *out)
{
    return cdp__console_get(p ? cdp__page_console(p) : NULL, seq, out);
}

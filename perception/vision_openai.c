/* perception/vision_openai.c: the `openai` vision provider.
 *
 * Any OpenAI-compatible chat-completions endpoint with image input (OpenAI,
 * Gemini's compatible endpoint, vLLM, llama.cpp server, Ollama) can name the
 * interactive elements of a screenshot. One detect call:
 *
 *   1. shrinks the screenshot to the model width (perc_model_view) and, when
 *      the previous pass is recent and on the same URL, draws its boxes on it
 *      as dashed [Vn] marks (Set-of-Marks anchoring, seed 002 §4.3);
 *   2. sends it as a JPEG data: URL with a prompt asking for
 *      {"page_type", "boxes": [{"box_2d": [ymin, xmin, ymax, xmax] in
 *      0..1000, "label", "kind", "intent_relevant"}]} for the active subgoal;
 *   3. reads the answer with perception/model_json.c, which recovers boxes
 *      from fenced, chatty or truncated output;
 *   4. if the caller expected labels that no box carries, asks once more with
 *      a larger cap and the missing labels listed (coverage pass) and merges;
 *   5. maps the boxes to top-viewport CSS pixels. The model image covers the
 *      whole screenshot, so box/1000 * model size / resize scale / device
 *      scale factor reduces to box/1000 * the CSS viewport size, exactly,
 *      whatever rounding the resize did to the image height.
 *
 * Tiering: a page answered as "complex" (or one whose answer hit the box cap
 * or was cut off) is remembered per provider, which is per session, by URL;
 * later passes on it go straight to the fallback model.
 *
 * Transport: one libcurl easy handle per provider (connection reuse), a
 * connect and a total timeout per attempt, and retries with exponential
 * backoff plus jitter on 429, 5xx, timeouts and broken connections, honouring
 * Retry-After. The API key goes only into the Authorization header: every
 * message this file logs or returns is first scrubbed of any 8+ character
 * piece of the key, because some endpoints echo (part of) a bad key back in
 * their error text.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/http.h"
#include "base/log.h"
#include "base/rng.h"
#include "perception/model_json.h"
#include "perception/som.h"
#include "perception/vision.h"

#define RESP_MAX (8u << 20)       /* cap on an endpoint's response body */
#define COVERAGE_CAP 60           /* box cap of the coverage pass (seed 002 §4.3) */
#define ANCHOR_MAX_AGE_MS 10000.0 /* older previous passes are not drawn */
#define COMPLEX_URLS 64           /* URLs remembered as complex per provider */
#define BACKOFF_BASE_MS 500.0
#define BACKOFF_MAX_MS 8000.0
#define RETRY_AFTER_MAX_MS 60000L
#define JPEG_QUALITY 80
#define MSG_MAX 512

typedef struct oai {
    perc_vision v; /* first, so that the vision pointer is the allocation */
    char *base_url, *key, *model, *fallback, *endpoint;
    char *shown; /* endpoint as messages show it: a user:password@ password masked */
    int timeout_ms, max_retries, model_width, max_boxes;
    CURL *curl;
    CURLM *multi; /* drives curl so that a cancel wakes the wait at once */
    struct curl_slist *headers;
    base_rng rng;
    char *complex_urls[COMPLEX_URLS]; /* ring of URLs (fragment cut) */
    int n_complex, next_complex;
    /* Per-attempt scratch filled by the curl callbacks. */
    base_buf resp;
    long retry_after_ms; /* -1 when the response had none */
    long retry_after_s;  /* the same as sent, unclamped (seconds), -1 when none */
    double deadline_ms;  /* of the detect in progress (perc_vision_ctx), 0 = none */
    atomic_int cancel;   /* perc_vision_cancel: abort requests and waits */
} oai;

/* ---- secrets --------------------------------------------------------- */

/* Replaces, in place, every run of >= 8 characters of msg (or the whole key
 * when it is shorter) that also occurs in the key with "***". */
static void scrub(const char *key, char *msg, size_t cap)
{
    size_t kl = key ? strlen(key) : 0;
    if (kl == 0 || !msg)
        return;
    size_t min = kl < 8 ? kl : 8;
    char out[MSG_MAX];
    size_t o = 0, n = strlen(msg);
    for (size_t i = 0; i < n && o + 1 < sizeof out;) {
        size_t best = 0;
        for (size_t l = min; i + l <= n && l <= kl; l++) {
            int found = 0;
            for (size_t k = 0; k + l <= kl; k++) {
                if (memcmp(key + k, msg + i, l) == 0) {
                    found = 1;
                    break;
                }
            }
            if (!found)
                break;
            best = l;
        }
        if (best) {
            for (const char *s = "***"; *s && o + 1 < sizeof out; s++)
                out[o++] = *s;
            i += best;
        } else {
            out[o++] = msg[i++];
        }
    }
    out[o] = '\0';
    snprintf(msg, cap, "%s", out);
}

/* Formats into msg (MSG_MAX) and scrubs the key out of it. */
static void vformat(const oai *o, char *msg, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void vformat(const oai *o, char *msg, const char *fmt, va_list ap)
{
    vsnprintf(msg, MSG_MAX, fmt, ap);
    scrub(o->key, msg, MSG_MAX);
}

/* base_errf through the scrubber. */
static base_err oerr(const oai *o, char *err, base_err e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static base_err oerr(const oai *o, char *err, base_err e, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vformat(o, msg, fmt, ap);
    va_end(ap);
    return base_errf(err, e, "%s", msg);
}

/* base_log through the scrubber. */
static void olog(const oai *o, base_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void olog(const oai *o, base_log_level lvl, const char *fmt, ...)
{
    if (!base_log_enabled(BASE_LOG_PERC, lvl))
        return;
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vformat(o, msg, fmt, ap);
    va_end(ap);
    base_log(BASE_LOG_PERC, lvl, "openai: %s", msg);
}

/* ---- configuration --------------------------------------------------- */

void perc_openai_config_init(perc_openai_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->model = "gpt-4o-mini";
    c->timeout_ms = 30000;
    c->max_retries = 3;
    c->model_width = 1024;
    c->max_boxes = 40;
}

static const char *env2(const char *a, const char *b)
{
    const char *v = getenv(a);
    if ((!v || !*v) && b)
        v = getenv(b);
    return v && *v ? v : NULL;
}

/* A positive integer from the environment, or def when unset; -1 on junk. */
static int env_int(const char *name, int def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 10000000)
        return -1;
    return (int)x;
}

base_err perc_openai_config_from_env(perc_openai_config *c, char *err)
{
    if (!c)
        return base_errf(err, BASE_EINVAL, "openai config: NULL argument");
    perc_openai_config t = *c;
    t.base_url = env2("FOVEA_OPENAI_BASE_URL", "OPENAI_BASE_URL");
    if (!t.base_url)
        return base_errf(err, BASE_ENOTFOUND,
                         "no vision endpoint configured (set FOVEA_OPENAI_BASE_URL or "
                         "OPENAI_BASE_URL)");
    t.api_key = env2("FOVEA_OPENAI_API_KEY", "OPENAI_API_KEY");
    const char *m = env2("FOVEA_VISION_MODEL", NULL);
    if (m)
        t.model = m;
    const char *f = env2("FOVEA_VISION_FALLBACK_MODEL", NULL);
    if (f)
        t.fallback_model = f;
    static const char *const names[] = {"FOVEA_VISION_TIMEOUT_MS", "FOVEA_VISION_MAX_RETRIES",
                                        "FOVEA_VISION_WIDTH", "FOVEA_VISION_MAX_BOXES"};
    int *fields[] = {&t.timeout_ms, &t.max_retries, &t.model_width, &t.max_boxes};
    for (int i = 0; i < 4; i++) {
        int v = env_int(names[i], *fields[i]);
        if (v < 0)
            return base_errf(err, BASE_EINVAL, "%s: expected a non-negative integer", names[i]);
        *fields[i] = v;
    }
    *c = t;
    return BASE_OK;
}

/* ---- transport ------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *p, size_t sz, size_t nm, void *user)
{
    oai *o = user;
    size_t n = sz * nm;
    /* Returning less than n aborts the transfer with CURLE_WRITE_ERROR. */
    return base_buf_append(&o->resp, p, n) == BASE_OK ? n : 0;
}

/* Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
static void parse_retry_after(oai *o, const char *v, size_t n)
{
    char s[64];
    if (n >= sizeof s)
        return;
    memcpy(s, v, n);
    s[n] = '\0';
    char *end = NULL;
    long secs = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    long ms;
    if (end != s && *end == '\0' && secs >= 0) {
        o->retry_after_s = secs;
        ms = secs > RETRY_AFTER_MAX_MS / 1000 ? RETRY_AFTER_MAX_MS : secs * 1000;
    } else {
        time_t when = curl_getdate(s, NULL);
        if (when < 0)
            return;
        double d = difftime(when, time(NULL)) * 1000.0;
        o->retry_after_s = d < 0 ? 0 : (long)(d / 1000.0);
        ms = d < 0 ? 0 : d > RETRY_AFTER_MAX_MS ? RETRY_AFTER_MAX_MS : (long)d;
    }
    o->retry_after_ms = ms;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *user)
{
    oai *o = user;
    size_t n = sz * nm;
    /* A new status line (after 100 Continue or a redirect) starts afresh. */
    if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        o->retry_after_ms = -1;
        o->retry_after_s = -1;
    }
    else if (n > 12 && strncasecmp(p, "retry-after:", 12) == 0)
        parse_retry_after(o, p + 12 + strspn(p + 12, " \t"), n - 12 - strspn(p + 12, " \t"));
    return n;
}

/* What one attempt came to. */
typedef enum attempt_kind { ATT_OK, ATT_RETRY, ATT_FATAL } attempt_kind;

static int retryable_curl(CURLcode cc)
{
    return cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_COULDNT_CONNECT ||
           cc == CURLE_GOT_NOTHING || cc == CURLE_PARTIAL_FILE || cc == CURLE_RECV_ERROR ||
           cc == CURLE_SEND_ERROR;
}

/* Describes a failed HTTP status with the body's error message (or the start
 * of the body) into msg. */
static void describe_status(long status, const base_buf *b, char *msg, size_t n)
{
    char emsg[200];
    const char *body = b->data ? (const char *)b->data : "";
    if (!perc_chat_error_message(body, b->len, emsg, sizeof emsg)) {
        /* Not an error envelope (an HTML page from a proxy, say): quote its
         * start, one line. */
        size_t k = 0;
        for (size_t i = 0; i < b->len && k + 1 < 80; i++) {
            unsigned char ch = (unsigned char)body[i];
            emsg[k++] = (char)(ch < 0x20 || ch == 0x7f ? ' ' : ch);
        }
        emsg[k] = '\0';
    }
    snprintf(msg, n, "answered %ld %s%s%s", status, base_http_reason((int)status),
             emsg[0] ? ": " : "", emsg);
}

/* curl's progress callback: a non-zero return aborts the transfer, which is
 * how perc_vision_cancel reaches a request that is waiting for an answer. */
static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    oai *o = user;
    return atomic_load(&o->cancel) != 0;
}

/* curl_easy_perform, but on a multi handle polled in 100 ms slices, so
 * that perc_vision_cancel (which also wakes the poll) ends a request that
 * is waiting for an answer at once rather than at curl's next once-a-second
 * progress call. */
static CURLcode perform(oai *o)
{
    if (!o->multi || curl_multi_add_handle(o->multi, o->curl) != CURLM_OK)
        return curl_easy_perform(o->curl);
    CURLcode rc = CURLE_OK;
    int running = 1, done = 0;
    while (!done) {
        if (atomic_load(&o->cancel)) {
            rc = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (curl_multi_perform(o->multi, &running) != CURLM_OK) {
            rc = CURLE_RECV_ERROR;
            break;
        }
        int left = 0;
        CURLMsg *m;
        while ((m = curl_multi_info_read(o->multi, &left)) != NULL) {
            if (m->msg == CURLMSG_DONE && m->easy_handle == o->curl) {
                rc = m->data.result;
                done = 1;
            }
        }
        if (!done && running)
            curl_multi_poll(o->multi, NULL, 0, 100, NULL);
        else if (!done)
            done = 1; /* finished without a message: nothing more to read */
    }
    curl_multi_remove_handle(o->multi, o->curl);
    return rc;
}

/* Sleeps ms in short slices; returns 1 early when cancelled. */
static int sleep_cancellable(oai *o, double ms)
{
    double end = base_monotime_ms() + ms;
    for (;;) {
        if (atomic_load(&o->cancel))
            return 1;
        double left = end - base_monotime_ms();
        if (left <= 0)
            return 0;
        base_sleep_ms(left < 20 ? left : 20);
    }
}

/* Milliseconds left before the detect's deadline (a large number without). */
static double time_left(const oai *o)
{
    return o->deadline_ms > 0 ? o->deadline_ms - base_monotime_ms() : 1e12;
}

/* POSTs body to the endpoint, retrying transient failures, never past the
 * detect's deadline: each attempt's timeout is cut to the time left, and a
 * retry that would start after it (a long Retry-After) is not waited for.
 * On BASE_OK o->resp holds the 2xx body. *calls counts every attempt. */
static base_err post(oai *o, const char *body, size_t n, int *calls, char *err)
{
    char last[MSG_MAX] = "";
    base_err last_e = BASE_EREMOTE;
    int attempts = o->max_retries + 1;
    for (int a = 0; a < attempts; a++) {
        base_buf_reset(&o->resp);
        o->retry_after_ms = -1;
        o->retry_after_s = -1;
        if (atomic_load(&o->cancel))
            return oerr(o, err, BASE_ECANCELED, "vision endpoint: request cancelled (%s)",
                        o->shown);
        double left = time_left(o);
        if (left < 1) {
            if (last[0])
                return oerr(o, err, last_e, "vision endpoint: %s (%s; no time left to retry)",
                            last, o->shown);
            return oerr(o, err, BASE_ETIMEDOUT,
                        "vision endpoint: timed out: the step's time ran out before the "
                        "request (%s)",
                        o->shown);
        }
        long tmo = left < o->timeout_ms ? (long)left : (long)o->timeout_ms;
        curl_easy_setopt(o->curl, CURLOPT_TIMEOUT_MS, tmo);
        char cerr[CURL_ERROR_SIZE] = "";
        curl_easy_setopt(o->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(o->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
        curl_easy_setopt(o->curl, CURLOPT_ERRORBUFFER, cerr);
        (*calls)++;
        double t0 = base_monotime_ms();
        CURLcode cc = perform(o);
        double ms = base_monotime_ms() - t0;
        curl_easy_setopt(o->curl, CURLOPT_ERRORBUFFER, NULL);
        long status = 0;
        curl_easy_getinfo(o->curl, CURLINFO_RESPONSE_CODE, &status);
        attempt_kind k;
        if (cc == CURLE_OK && status >= 200 && status < 300) {
            olog(o, BASE_LOG_DEBUG, "%ld in %.0f ms (%zu bytes)", status, ms, o->resp.len);
            return BASE_OK;
        } else if (cc == CURLE_OK && status == 429) {
            if (o->retry_after_s >= 0)
                snprintf(last, sizeof last, "rate-limited (Retry-After %ld s)", o->retry_after_s);
            else
                snprintf(last, sizeof last, "rate-limited (429 Too Many Requests)");
            last_e = BASE_EREMOTE;
            k = ATT_RETRY;
        } else if (cc == CURLE_OK) {
            describe_status(status, &o->resp, last, sizeof last);
            last_e = BASE_EREMOTE;
            k = status >= 500 ? ATT_RETRY : ATT_FATAL;
        } else if (cc == CURLE_ABORTED_BY_CALLBACK) {
            return oerr(o, err, BASE_ECANCELED, "vision endpoint: request cancelled (%s)",
                        o->shown);
        } else if (cc == CURLE_OPERATION_TIMEDOUT) {
            snprintf(last, sizeof last, "timed out after %ld ms", tmo);
            last_e = BASE_ETIMEDOUT;
            k = ATT_RETRY;
        } else if (cc == CURLE_WRITE_ERROR) {
            snprintf(last, sizeof last, "reply is larger than %u bytes", RESP_MAX);
            last_e = BASE_ETOOBIG;
            k = ATT_FATAL;
        } else {
            const char *what = cc == CURLE_PARTIAL_FILE || cc == CURLE_RECV_ERROR
                                   ? "closed the connection mid-reply"
                               : cc == CURLE_GOT_NOTHING ? "closed the connection without a reply"
                               : cc == CURLE_COULDNT_CONNECT ? "refused the connection"
                                                             : "could not be reached";
            snprintf(last, sizeof last, "%s (curl: %s)", what,
                     cerr[0] ? cerr : curl_easy_strerror(cc));
            last_e = cc == CURLE_COULDNT_CONNECT || retryable_curl(cc) ? BASE_EIO : BASE_EINVAL;
            k = retryable_curl(cc) ? ATT_RETRY : ATT_FATAL;
        }
        if (k == ATT_FATAL || a + 1 == attempts) {
            if (a == 0)
                return oerr(o, err, last_e, "vision endpoint: %s (%s)", last, o->shown);
            return oerr(o, err, last_e, "vision endpoint: %s (%s, after %d attempts)", last,
                        o->shown, a + 1);
        }
        /* Exponential backoff with jitter, unless the server said when. */
        double wait = BACKOFF_BASE_MS * pow(2.0, a);
        wait = wait > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : wait;
        wait *= base_rng_uniform(&o->rng, 0.5, 1.0);
        if (o->retry_after_ms >= 0)
            wait = (double)o->retry_after_ms;
        /* A wait that would end after the deadline is not worth starting:
         * say why now (with the server's own figure for a rate limit). */
        double room = time_left(o);
        long ra_s = o->retry_after_s;
        if (wait >= room || (ra_s >= 0 && (double)ra_s * 1000.0 >= room)) {
            return oerr(o, err, last_e,
                        "vision endpoint: %s (%s; not retried: %.0f ms left for the step)", last,
                        o->shown, room > 0 ? room : 0);
        }
        olog(o, BASE_LOG_INFO, "%s; retry %d/%d in %.0f ms", last, a + 1, o->max_retries, wait);
        if (sleep_cancellable(o, wait))
            return oerr(o, err, BASE_ECANCELED, "vision endpoint: %s (%s; cancelled)", last,
                        o->shown);
    }
    return oerr(o, err, last_e, "vision endpoint: %s (%s)", last, o->shown);
}

/* ---- prompt and request ---------------------------------------------- */

static const char system_prompt[] =
    "You find the interactive elements of web page screenshots. You answer with one JSON "
    "object and nothing else: no prose, no code fences.";

/* The user text of one request. missing (n_missing) lists labels the caller
 * expected and the previous answer lacked (coverage pass). */
static base_err build_prompt(const perc_vision_ctx *ctx, int cap, int anchor,
                             const char *const *missing, int n_missing, base_buf *b)
{
    base_err e = base_buf_printf(
        b,
        "Find the interactive elements in this screenshot%s%.300s: buttons, links, text "
        "inputs, checkboxes, radio buttons, dropdowns, options, tabs, menu items, chevrons and "
        "any other control a person can click or type into.\n"
        "Answer with one JSON object of this shape:\n"
        "{\"page_type\": \"...\", \"boxes\": [{\"box_2d\": [ymin, xmin, ymax, xmax], "
        "\"label\": \"...\", \"kind\": \"...\", \"intent_relevant\": false}]}\n"
        "- box_2d: integers from 0 to 1000, relative to the image height (y) and width (x); "
        "the box tightly covers the element.\n"
        "- label: the element's visible text, or a name of 1 to 4 words when it has none.\n"
        "- kind: one of button, link, input, checkbox, radio, select, option, tab, menu, "
        "chevron, image, other.\n"
        "- page_type: one of form, login, search_results, product_listing, article, "
        "checkout_form, map_or_booking, dashboard, complex, other. Use complex for pages dense "
        "with controls (many filters, long forms, large result grids).\n"
        "- List at most %d boxes, the most useful first.\n",
        ctx->url ? " of " : "", ctx->url ? ctx->url : "", cap);
    if (!e && ctx->subgoal && ctx->subgoal[0])
        e = base_buf_printf(b,
                            "The user's immediate subgoal is: \"%.500s\". Set intent_relevant "
                            "to true only for elements that serve this subgoal, not the wider "
                            "task.\n",
                            ctx->subgoal);
    else if (!e)
        e = base_buf_append_str(b, "No subgoal is known: set intent_relevant to false.\n");
    if (!e && anchor)
        e = base_buf_append_str(
            b, "Dashed rectangles labelled [V1], [V2], ... are the marks of your previous "
               "answer. First find the boxes in the current screenshot; then compare: keep a "
               "mark's coordinates where it still covers the same element and drop marks whose "
               "element is gone. Never box the dashed marks or their tags themselves.\n");
    if (!e && n_missing > 0) {
        e = base_buf_append_str(b, "Your previous answer missed these expected elements; "
                                   "include each one that is visible, with its exact label:");
        for (int i = 0; i < n_missing && !e; i++)
            e = base_buf_printf(b, "%s \"%.100s\"", i ? "," : "", missing[i]);
        if (!e)
            e = base_buf_append_str(b, ".\n");
    }
    return e;
}

/* The JSON request body, a new string (base_free). */
static base_err build_body(const char *model, const char *prompt, const char *data_url, char **out,
                           size_t *n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *msgs = root ? cJSON_AddArrayToObject(root, "messages") : NULL;
    cJSON *sys = cJSON_CreateObject();
    cJSON *user = cJSON_CreateObject();
    cJSON *parts = user ? cJSON_AddArrayToObject(user, "content") : NULL;
    cJSON *text = cJSON_CreateObject();
    cJSON *img = cJSON_CreateObject();
    cJSON *iu = img ? cJSON_AddObjectToObject(img, "image_url") : NULL;
    base_err e = BASE_ENOMEM;
    if (!msgs || !sys || !parts || !text || !iu)
        goto fail;
    if (!cJSON_AddStringToObject(root, "model", model) ||
        !cJSON_AddStringToObject(sys, "role", "system") ||
        !cJSON_AddStringToObject(sys, "content", system_prompt) ||
        !cJSON_AddStringToObject(user, "role", "user") ||
        !cJSON_AddStringToObject(text, "type", "text") ||
        !cJSON_AddStringToObject(text, "text", prompt) ||
        !cJSON_AddStringToObject(img, "type", "image_url") ||
        !cJSON_AddStringToObject(iu, "url", data_url))
        goto fail;
    cJSON_AddItemToArray(parts, text);
    text = NULL;
    cJSON_AddItemToArray(parts, img);
    img = NULL;
    cJSON_AddItemToArray(msgs, sys);
    sys = NULL;
    cJSON_AddItemToArray(msgs, user);
    user = NULL;
    char *s = cJSON_PrintUnformatted(root);
    if (!s)
        goto fail;
    /* cJSON allocates with malloc; hand the caller a base_ copy. */
    *n = strlen(s);
    *out = base_strndup(s, *n);
    free(s);
    e = *out ? BASE_OK : BASE_ENOMEM;
fail:
    cJSON_Delete(root);
    cJSON_Delete(sys);
    cJSON_Delete(user);
    cJSON_Delete(text);
    cJSON_Delete(img);
    return e;
}

/* One question to the model: prompt + request + transport + parsing. */
static base_err ask(oai *o, const char *model, const char *data_url, const perc_vision_ctx *ctx,
                    int anchor, int cap, const char *const *missing, int n_missing,
                    perc_model_reply *rep, int *calls, char *err)
{
    base_buf prompt;
    base_buf_init(&prompt, 64u << 10);
    char *body = NULL, *content = NULL;
    size_t n = 0;
    base_err e = build_prompt(ctx, cap, anchor, missing, n_missing, &prompt);
    if (!e)
        e = build_body(model, (const char *)prompt.data, data_url, &body, &n);
    base_buf_fini(&prompt);
    if (e) {
        e = oerr(o, err, e, "vision request: %s", base_strerror(e));
        goto done;
    }
    olog(o, BASE_LOG_DEBUG, "POST %s model %s cap %d anchor %d missing %d (%zu bytes)", o->shown,
         model, cap, anchor, n_missing, n);
    e = post(o, body, n, calls, err);
    if (e)
        goto done;
    char perr[BASE_ERRBUF_SIZE] = "";
    int cut = 0;
    e = perc_chat_reply_parse((const char *)o->resp.data, o->resp.len, &content, &cut, perr);
    if (!e)
        e = perc_model_reply_parse(content, strlen(content), cap, rep, perr);
    if (e) {
        e = oerr(o, err, e, "vision model %s: %s", model, perr);
        goto done;
    }
    rep->truncated |= cut;
    olog(o, BASE_LOG_DEBUG, "model %s: %d boxes, page_type \"%s\"%s, %d dropped%s%s", model, rep->n,
         rep->page_type, rep->truncated ? " (truncated)" : "", rep->dropped,
         rep->note[0] ? ": " : "", rep->note);
done:
    base_free(body);
    base_free(content);
    return e;
}

/* ---- tiering, coverage, anchoring ------------------------------------ */

/* The URL without its fragment, into buf. */
static void url_key(const char *url, char *buf, size_t n)
{
    if (!url) {
        buf[0] = '\0';
        return;
    }
    size_t l = strcspn(url, "#");
    snprintf(buf, n, "%.*s", (int)(l < n - 1 ? l : n - 1), url);
}

static int is_complex_url(const oai *o, const char *key)
{
    if (!key[0])
        return 0;
    for (int i = 0; i < o->n_complex; i++)
        if (strcmp(o->complex_urls[i], key) == 0)
            return 1;
    return 0;
}

static void remember_complex(oai *o, const char *key)
{
    if (!key[0] || is_complex_url(o, key))
        return;
    char *dup = base_strdup(key);
    if (!dup)
        return; /* tiering is an optimisation: forgetting is safe */
    int slot = o->n_complex < COMPLEX_URLS ? o->n_complex++ : o->next_complex;
    base_free(o->complex_urls[slot]);
    o->complex_urls[slot] = dup;
    o->next_complex = (slot + 1) % COMPLEX_URLS;
}

/* Lower-case ASCII letters and digits of s, other runs folded to one space,
 * trimmed: "  Add to-Cart " -> "add to cart". */
static void norm_label(const char *s, char *out, size_t n)
{
    size_t k = 0;
    int gap = 0;
    for (; s && *s && k + 2 < n; s++) {
        unsigned char c = (unsigned char)*s;
        int word =
            (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
        if (!word) {
            gap = k > 0;
            continue;
        }
        if (gap)
            out[k++] = ' ';
        gap = 0;
        out[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    out[k] = '\0';
}

static int reply_is_complex(const perc_model_reply *r, int cap)
{
    char pt[sizeof r->page_type];
    norm_label(r->page_type, pt, sizeof pt);
    return strstr(pt, "complex") != NULL || r->truncated || r->n + r->dropped >= cap;
}

/* True when some box's label is the expected label or contains it. */
static int label_covered(const perc_model_reply *r, const char *expected)
{
    char want[PERC_LABEL_MAX], have[PERC_LABEL_MAX];
    norm_label(expected, want, sizeof want);
    if (!want[0])
        return 1;
    for (int i = 0; i < r->n; i++) {
        norm_label(r->boxes[i].label, have, sizeof have);
        if (strstr(have, want))
            return 1;
    }
    return 0;
}

static double iou(const perc_model_box *a, const perc_model_box *b)
{
    double x0 = fmax(a->xmin, b->xmin), y0 = fmax(a->ymin, b->ymin);
    double x1 = fmin(a->xmax, b->xmax), y1 = fmin(a->ymax, b->ymax);
    double in = x1 > x0 && y1 > y0 ? (x1 - x0) * (y1 - y0) : 0;
    double ua = (double)(a->xmax - a->xmin) * (a->ymax - a->ymin) +
                (double)(b->xmax - b->xmin) * (b->ymax - b->ymin) - in;
    return ua > 0 ? in / ua : 0;
}

/* Appends the coverage pass's boxes that are not already there (IoU >= 0.5
 * with an existing box) to r. */
static base_err merge(perc_model_reply *r, const perc_model_reply *add)
{
    for (int i = 0; i < add->n; i++) {
        int dup = 0;
        for (int j = 0; j < r->n && !dup; j++)
            dup = iou(&r->boxes[j], &add->boxes[i]) >= 0.5;
        if (dup)
            continue;
        if (r->n >= PERC_MODEL_BOXES_MAX)
            break;
        perc_model_box *nb = base_realloc(r->boxes, (size_t)(r->n + 1) * sizeof *nb);
        if (!nb)
            return BASE_ENOMEM;
        r->boxes = nb;
        r->boxes[r->n++] = add->boxes[i];
    }
    return BASE_OK;
}

/* Anchoring applies when there are previous boxes, they are at most 10 s
 * old and they were taken on this URL (an unknown previous URL counts as
 * the same page). */
static int anchoring_applies(const perc_vision_ctx *ctx)
{
    if (!ctx->previous || ctx->n_previous <= 0)
        return 0;
    if (!(ctx->previous_age_ms >= 0 && ctx->previous_age_ms <= ANCHOR_MAX_AGE_MS))
        return 0;
    if (ctx->previous_url && ctx->url && strcmp(ctx->previous_url, ctx->url) != 0)
        return 0;
    return 1;
}

/* Draws the previous boxes dashed on the model view (CSS px -> view px
 * through view->scale). Returns 1 when drawn. */
static int draw_anchors(oai *o, perc_image *view, const perc_vision_ctx *ctx)
{
    perc_mark *marks = base_calloc((size_t)ctx->n_previous, sizeof *marks);
    if (!marks)
        return 0;
    for (int i = 0; i < ctx->n_previous; i++) {
        marks[i].r = ctx->previous[i].r;
        marks[i].id = ctx->previous[i].id > 0 ? ctx->previous[i].id : i + 1;
        marks[i].label = NULL;
        marks[i].style = PERC_MARK_DASHED;
    }
    perc_som_opts so;
    perc_som_opts_init(&so);
    so.label_fmt = PERC_LABEL_VID;
    char derr[BASE_ERRBUF_SIZE] = "";
    base_err e = perc_som_draw(view, marks, ctx->n_previous, &so, derr);
    base_free(marks);
    if (e)
        olog(o, BASE_LOG_WARN, "anchoring marks not drawn: %s", derr);
    return e == BASE_OK;
}

/* The model view as a JPEG data: URL (base_free). */
static base_err data_url(const perc_image *view, char **out, char *err)
{
    uint8_t *jpg = NULL;
    size_t n = 0;
    base_err e = perc_image_encode_jpeg(view, JPEG_QUALITY, &jpg, &n, err);
    if (e)
        return e;
    static const char prefix[] = "data:image/jpeg;base64,";
    size_t bl = base64_encoded_len(n);
    char *s = bl ? base_malloc(sizeof prefix + bl) : NULL;
    if (!s) {
        base_free(jpg);
        return base_errf(err, BASE_ENOMEM, "vision request: out of memory for the image");
    }
    memcpy(s, prefix, sizeof prefix - 1);
    base64_encode(jpg, n, s + sizeof prefix - 1);
    base_free(jpg);
    *out = s;
    return BASE_OK;
}

/* ---- the provider ---------------------------------------------------- */

static base_err oai_detect(perc_vision *v, cdp_page *page, const perc_image *shot,
                           const perc_vision_ctx *ctx_in, perc_detection *out, char *err)
{
    (void)page; /* the model sees pixels only; DOM enrichment is separate */
    oai *o = v->self;
    if (!shot || !shot->px || shot->w < 1 || shot->h < 1 || !out)
        return base_errf(err, BASE_EINVAL, "openai detect: no screenshot");
    double t0 = base_monotime_ms();
    perc_vision_ctx none;
    memset(&none, 0, sizeof none);
    const perc_vision_ctx *ctx = ctx_in ? ctx_in : &none;
    o->deadline_ms = ctx->deadline_ms;
    char key[2048];
    url_key(ctx->url, key, sizeof key);
    const char *model = o->fallback && is_complex_url(o, key) ? o->fallback : o->model;

    perc_image view = {0};
    char *url = NULL;
    perc_model_reply rep, cov;
    memset(&rep, 0, sizeof rep);
    memset(&cov, 0, sizeof cov);
    perc_box *boxes = NULL;
    int calls = 0;
    base_err e = perc_model_view(shot, o->model_width, &view, NULL);
    if (e) {
        e = base_errf(err, e, "openai detect: model view: %s", base_strerror(e));
        goto done;
    }
    int anchor = anchoring_applies(ctx) && draw_anchors(o, &view, ctx);
    e = data_url(&view, &url, err);
    if (e)
        goto done;
    char aerr[BASE_ERRBUF_SIZE] = "";
    e = ask(o, model, url, ctx, anchor, o->max_boxes, NULL, 0, &rep, &calls, aerr);
    if (e == BASE_EPROTO && o->fallback && model != o->fallback) {
        /* The small model's answer was unusable (often cut off on a dense
         * page): remember the page as complex and ask the larger model. */
        olog(o, BASE_LOG_INFO, "%s; asking the fallback model %s", aerr, o->fallback);
        remember_complex(o, key);
        model = o->fallback;
        base_errclear(aerr);
        e = ask(o, model, url, ctx, anchor, o->max_boxes, NULL, 0, &rep, &calls, aerr);
    }
    if (e) {
        base_errf(err, e, "%s", aerr);
        goto done;
    }
    if (reply_is_complex(&rep, o->max_boxes))
        remember_complex(o, key);

    /* Coverage pass: expected labels that no box carries. */
    const char **missing = NULL;
    int n_missing = 0;
    if (ctx->n_expected > 0 && ctx->expected) {
        missing = base_calloc((size_t)ctx->n_expected, sizeof *missing);
        if (!missing) {
            e = base_errf(err, BASE_ENOMEM, "openai detect: out of memory");
            goto done;
        }
        for (int i = 0; i < ctx->n_expected; i++)
            if (ctx->expected[i] && !label_covered(&rep, ctx->expected[i]))
                missing[n_missing++] = ctx->expected[i];
    }
    if (n_missing > 0) {
        int cap = o->max_boxes > COVERAGE_CAP ? o->max_boxes : COVERAGE_CAP;
        char cerr[BASE_ERRBUF_SIZE] = "";
        base_err ce = ask(o, model, url, ctx, anchor, cap, missing, n_missing, &cov, &calls, cerr);
        if (ce == BASE_OK)
            ce = merge(&rep, &cov);
        if (ce == BASE_ENOMEM) {
            base_free(missing);
            e = base_errf(err, ce, "openai detect: out of memory");
            goto done;
        }
        /* A failed coverage pass leaves the first answer standing. */
        if (ce)
            olog(o, BASE_LOG_WARN, "coverage pass failed: %s", cerr);
    }
    base_free(missing);

    /* Map 0..1000 of the model image to top-viewport CSS px (see the file
     * comment: the model image spans the whole screenshot). */
    double dsf = shot->scale > 0 ? shot->scale : 1.0;
    double css_w = shot->w / dsf, css_h = shot->h / dsf;
    if (rep.n > 0) {
        boxes = base_calloc((size_t)rep.n, sizeof *boxes);
        if (!boxes) {
            e = base_errf(err, BASE_ENOMEM, "openai detect: out of memory");
            goto done;
        }
    }
    for (int i = 0; i < rep.n; i++) {
        const perc_model_box *m = &rep.boxes[i];
        perc_box *b = &boxes[i];
        b->r.x0 = (float)(m->xmin / 1000.0 * css_w);
        b->r.y0 = (float)(m->ymin / 1000.0 * css_h);
        b->r.x1 = (float)(m->xmax / 1000.0 * css_w);
        b->r.y1 = (float)(m->ymax / 1000.0 * css_h);
        b->id = i + 1;
        snprintf(b->label, sizeof b->label, "%s", m->label);
        snprintf(b->kind, sizeof b->kind, "%s", m->kind);
        b->confidence = m->confidence;
        b->intent_relevant = m->intent_relevant;
        b->dom_index = -1;
        b->expanded = -1;
        b->active = -1;
        b->labelledby[0] = '\0';
        b->expand_control = -1;
    }
    memset(out, 0, sizeof *out);
    out->boxes = boxes;
    boxes = NULL;
    out->n = rep.n;
    snprintf(out->page_type, sizeof out->page_type, "%s", rep.page_type);
    snprintf(out->model, sizeof out->model, "%s", model);
    out->calls = calls;
    out->ms = base_monotime_ms() - t0;
    olog(o, BASE_LOG_DEBUG, "%d boxes from %s in %d call(s), %.0f ms", out->n, model, calls,
         out->ms);
done:
    base_free(boxes);
    perc_model_reply_fini(&rep);
    perc_model_reply_fini(&cov);
    base_free(url);
    perc_image_fini(&view);
    return e;
}

/* url with the password of a "scheme://user:password@" userinfo replaced
 * by "********" (a base_malloc'd copy), for messages: logs, errors and the
 * trace never show it. NULL on ENOMEM. */
static char *shown_url(const char *url)
{
    const char *p = strstr(url, "://");
    size_t hl = p ? strcspn(p + 3, "/?#") : 0;
    const char *at = p ? memchr(p + 3, '@', hl) : NULL;
    const char *colon = at ? memchr(p + 3, ':', (size_t)(at - (p + 3))) : NULL;
    if (!colon)
        return base_strdup(url);
    size_t head = (size_t)(colon + 1 - url), n = head + 8 + strlen(at) + 1;
    char *s = base_malloc(n);
    if (s)
        snprintf(s, n, "%.*s********%s", (int)head, url, at);
    return s;
}

static void oai_destroy(perc_vision *v)
{
    if (!v)
        return;
    oai *o = v->self;
    if (o->curl)
        curl_easy_cleanup(o->curl);
    if (o->multi)
        curl_multi_cleanup(o->multi);
    curl_slist_free_all(o->headers);
    base_buf_fini(&o->resp);
    for (int i = 0; i < o->n_complex; i++)
        base_free(o->complex_urls[i]);
    base_free(o->base_url);
    /* Wipe the key before handing its memory back. */
    if (o->key) {
        volatile char *k = o->key;
        while (*k)
            *k++ = 0;
    }
    base_free(o->key);
    base_free(o->model);
    base_free(o->fallback);
    base_free(o->endpoint);
    base_free(o->shown);
    base_free(o);
}

static void oai_cancel(perc_vision *v, int on)
{
    oai *o = (oai *)v;
    atomic_store(&o->cancel, on != 0);
    /* curl_multi_wakeup is the one multi call documented as safe from
     * another thread. */
    if (on && o->multi)
        curl_multi_wakeup(o->multi);
}

static const perc_vision_ops oai_ops = {"openai", oai_detect, oai_destroy, 1, oai_cancel};

/* Adds a header line to o->headers; 0 on out of memory. */
static int add_header(oai *o, const char *line)
{
    struct curl_slist *l = curl_slist_append(o->headers, line);
    if (!l)
        return 0;
    o->headers = l;
    return 1;
}

base_err perc_vision_openai_create(const perc_openai_config *c, perc_vision **out, char *err)
{
    if (!c || !out)
        return base_errf(err, BASE_EINVAL, "openai provider: NULL argument");
    if (!c->base_url ||
        (strncmp(c->base_url, "http://", 7) != 0 && strncmp(c->base_url, "https://", 8) != 0))
        return base_errf(err, BASE_EINVAL,
                         "openai provider: base URL must start with http:// "
                         "or https://");
    if (!c->model || !c->model[0])
        return base_errf(err, BASE_EINVAL, "openai provider: no model name");
    if (c->timeout_ms < 0 || c->max_retries < 0 || c->max_retries > 20 || c->model_width < 0 ||
        c->model_width > PERC_IMAGE_MAX_DIM || c->max_boxes < 0 ||
        c->max_boxes > PERC_MODEL_BOXES_MAX)
        return base_errf(err, BASE_EINVAL,
                         "openai provider: bad limits (timeout %d ms, retries %d, width %d, "
                         "boxes %d)",
                         c->timeout_ms, c->max_retries, c->model_width, c->max_boxes);
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return base_errf(err, BASE_EIO, "openai provider: curl_global_init: %s",
                         curl_easy_strerror(curl_init_rc));
    oai *o = base_calloc(1, sizeof *o);
    if (!o)
        return base_errf(err, BASE_ENOMEM, "openai provider: out of memory");
    o->v.ops = &oai_ops;
    o->v.self = o;
    o->timeout_ms = c->timeout_ms ? c->timeout_ms : 30000;
    o->max_retries = c->max_retries;
    o->model_width = c->model_width ? c->model_width : 1024;
    o->max_boxes = c->max_boxes ? c->max_boxes : 40;
    base_buf_init(&o->resp, RESP_MAX);
    base_rng_seed(&o->rng, (uint64_t)base_monotime() ^ (uint64_t)(uintptr_t)o);
    size_t bl = strlen(c->base_url);
    while (bl > 0 && c->base_url[bl - 1] == '/')
        bl--;
    o->base_url = base_strndup(c->base_url, bl);
    o->endpoint = base_malloc(bl + sizeof "/chat/completions");
    o->model = base_strdup(c->model);
    o->fallback = c->fallback_model && c->fallback_model[0] ? base_strdup(c->fallback_model) : NULL;
    o->key = c->api_key && c->api_key[0] ? base_strdup(c->api_key) : NULL;
    if (!o->base_url || !o->endpoint || !o->model ||
        (c->fallback_model && c->fallback_model[0] && !o->fallback) ||
        (c->api_key && c->api_key[0] && !o->key))
        goto nomem;
    memcpy(o->endpoint, o->base_url, bl);
    memcpy(o->endpoint + bl, "/chat/completions", sizeof "/chat/completions");
    if (!(o->shown = shown_url(o->endpoint)))
        goto nomem;
    if (o->key && strpbrk(o->key, "\r\n")) {
        oai_destroy(&o->v);
        return base_errf(err, BASE_EINVAL, "openai provider: the API key contains a line break");
    }
    if (!add_header(o, "Content-Type: application/json") || !add_header(o, "Expect:") ||
        !add_header(o, "Accept: application/json"))
        goto nomem;
    if (o->key) {
        size_t hl = strlen(o->key) + sizeof "Authorization: Bearer ";
        char *h = base_malloc(hl);
        if (!h)
            goto nomem;
        snprintf(h, hl, "Authorization: Bearer %s", o->key);
        int ok = add_header(o, h);
        memset(h, 0, hl);
        base_free(h);
        if (!ok)
            goto nomem;
    }
    o->curl = curl_easy_init();
    o->multi = curl_multi_init();
    if (!o->curl || !o->multi)
        goto nomem;
    CURL *h = o->curl;
    int connect_ms = o->timeout_ms < 10000 ? o->timeout_ms : 10000;
    if (curl_easy_setopt(h, CURLOPT_URL, o->endpoint) != CURLE_OK) {
        oai_destroy(&o->v);
        return base_errf(err, BASE_EINVAL, "openai provider: curl rejected the endpoint URL");
    }
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, o->headers);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)o->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)connect_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, o);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, o);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, o);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "fovea/0.1");
    /* Never follow redirects: they would carry the Authorization header to
     * wherever the endpoint points. */
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    olog(o, BASE_LOG_DEBUG, "endpoint %s model %s fallback %s key %s", o->shown, o->model,
         o->fallback ? o->fallback : "(none)", o->key ? "set" : "unset");
    *out = &o->v;
    return BASE_OK;
nomem:
    oai_destroy(&o->v);
    return base_errf(err, BASE_ENOMEM, "openai provider: out of memory");
}

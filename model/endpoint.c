/* model/endpoint.c: the HTTP part of every OpenAI-compatible client
 * (see endpoint.h): one libcurl easy handle driven through a multi handle,
 * retries with backoff, deadlines, cancel and key scrubbing.
 *
 * Why a multi handle for one transfer: curl_multi_poll can be woken from
 * another thread (curl_multi_wakeup), so a cancel ends a request that is
 * waiting for an answer at once rather than at curl's next once-a-second
 * progress call. The poll is sliced into 100 ms waits so that a stop
 * signal (base_interrupted) is seen within that time as well.
 *
 * Retry policy: 429, 5xx, timeouts and broken or refused connections are
 * transient; everything else (4xx, a body over the cap) is final at once.
 * The wait between attempts is 500 ms * 2^attempt (at most 8 s) times a
 * random factor in [0.5, 1), or exactly what Retry-After says (delay-seconds
 * or an HTTP date, at most 60 s). A wait that would end after the caller's
 * deadline is not started: the error says so, with the server's figure.
 *
 * Secrets: the key goes only into the Authorization header. Some endpoints
 * echo (part of) a bad key in their error text, so every message this file
 * logs or returns goes through perc_secret_scrub first. Redirects are never
 * followed: they would carry the header to wherever they point.
 */
#include "model/endpoint.h"

#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/http.h"
#include "base/interrupt.h"
#include "base/rng.h"
#include "model/chat_json.h"

#define RESP_MAX_DEFAULT (8u << 20)
#define BACKOFF_BASE_MS 500.0
#define BACKOFF_MAX_MS 8000.0
#define MIN_ATTEMPT_MS 250.0 /* a retry needs at least this much of the deadline */
#define RETRY_AFTER_MAX_MS 60000L
#define MSG_MAX 512

struct model_endpoint {
    char *url, *shown, *key, *what, *budget, *tag;
    base_log_comp comp;
    int timeout_ms, max_retries, stop_on_interrupt;
    size_t max_response;
    CURL *curl;
    CURLM *multi;
    struct curl_slist *headers;
    base_rng rng;
    base_buf resp;       /* the last attempt's body */
    long retry_after_ms; /* -1 when the response had none */
    long retry_after_s;  /* the same as sent, unclamped (seconds), -1 when none */
    double deadline_ms;  /* of the post in progress, 0 = none */
    int first_byte_ms, stall_ms;
    double t_start, t_byte; /* the attempt's start and its last byte (0 = none yet) */
    int timer;              /* which timer ended the attempt: 0, 1 first byte, 2 stall */
    atomic_int cancel;
};

/* ---- secrets --------------------------------------------------------- */

void perc_secret_scrub(const char *key, char *msg, size_t cap)
{
    size_t kl = key ? strlen(key) : 0;
    if (kl == 0 || !msg || cap == 0)
        return;
    size_t min = kl < 8 ? kl : 8;
    char out[1024];
    size_t o = 0, n = strlen(msg);
    for (size_t i = 0; i < n && o + 1 < sizeof out;) {
        /* The longest run starting at i that the key contains. */
        size_t best = 0;
        for (size_t l = min; i + l <= n && l <= kl; l++) {
            int found = 0;
            for (size_t k = 0; k + l <= kl && !found; k++)
                found = memcmp(key + k, msg + i, l) == 0;
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

char *perc_url_shown(const char *url)
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

static void vformat(const model_endpoint *ep, char *msg, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void vformat(const model_endpoint *ep, char *msg, const char *fmt, va_list ap)
{
    vsnprintf(msg, MSG_MAX, fmt, ap);
    perc_secret_scrub(ep->key, msg, MSG_MAX);
}

base_err model_endpoint_errf(const model_endpoint *ep, char *err, base_err e, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vformat(ep, msg, fmt, ap);
    va_end(ap);
    return base_errf(err, e, "%s", msg);
}

void model_endpoint_log(const model_endpoint *ep, base_log_level lvl, const char *fmt, ...)
{
    if (!base_log_enabled(ep->comp, lvl))
        return;
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vformat(ep, msg, fmt, ap);
    va_end(ap);
    base_log(ep->comp, lvl, "%s: %s", ep->tag, msg);
}

/* ---- curl callbacks -------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *p, size_t sz, size_t nm, void *user)
{
    model_endpoint *ep = user;
    size_t n = sz * nm;
    ep->t_byte = base_monotime_ms();
    /* Returning less than n aborts the transfer with CURLE_WRITE_ERROR. */
    return base_buf_append(&ep->resp, p, n) == BASE_OK ? n : 0;
}

/* Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
static void parse_retry_after(model_endpoint *ep, const char *v, size_t n)
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
        ep->retry_after_s = secs;
        ms = secs > RETRY_AFTER_MAX_MS / 1000 ? RETRY_AFTER_MAX_MS : secs * 1000;
    } else {
        time_t when = curl_getdate(s, NULL);
        if (when < 0)
            return;
        double d = difftime(when, time(NULL)) * 1000.0;
        ep->retry_after_s = d < 0 ? 0 : (long)(d / 1000.0);
        ms = d < 0 ? 0 : d > RETRY_AFTER_MAX_MS ? RETRY_AFTER_MAX_MS : (long)d;
    }
    ep->retry_after_ms = ms;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *user)
{
    model_endpoint *ep = user;
    size_t n = sz * nm;
    ep->t_byte = base_monotime_ms();
    /* A new status line (after 100 Continue or a redirect) starts afresh. */
    if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        ep->retry_after_ms = -1;
        ep->retry_after_s = -1;
    } else if (n > 12 && strncasecmp(p, "retry-after:", 12) == 0) {
        size_t sp = strspn(p + 12, " \t");
        parse_retry_after(ep, p + 12 + sp, n - 12 - sp);
    }
    return n;
}

static int stopped(const model_endpoint *ep)
{
    return atomic_load(&ep->cancel) || (ep->stop_on_interrupt && base_interrupted());
}

/* curl's progress callback: a non-zero return aborts the transfer. */
static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    return stopped(user);
}

/* ---- transport ------------------------------------------------------- */

typedef enum attempt_kind { ATT_RETRY, ATT_FATAL } attempt_kind;

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
    if (!model_chat_error_message(body, b->len, emsg, sizeof emsg)) {
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

/* curl_easy_perform on the multi handle, polled in 100 ms slices (see the
 * file comment). */
static CURLcode perform(model_endpoint *ep)
{
    if (!ep->multi || curl_multi_add_handle(ep->multi, ep->curl) != CURLM_OK)
        return curl_easy_perform(ep->curl);
    CURLcode rc = CURLE_OK;
    int running = 1, done = 0;
    while (!done) {
        if (stopped(ep)) {
            rc = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        /* The byte timers, checked every slice: a server that never starts
         * answering, or stops in the middle, fails the attempt long before
         * the attempt's own timeout. */
        double now = base_monotime_ms();
        if (ep->first_byte_ms > 0 && ep->t_byte == 0 && now - ep->t_start > ep->first_byte_ms) {
            ep->timer = 1;
            rc = CURLE_OPERATION_TIMEDOUT;
            break;
        }
        if (ep->stall_ms > 0 && ep->t_byte > 0 && now - ep->t_byte > ep->stall_ms) {
            ep->timer = 2;
            rc = CURLE_OPERATION_TIMEDOUT;
            break;
        }
        if (curl_multi_perform(ep->multi, &running) != CURLM_OK) {
            rc = CURLE_RECV_ERROR;
            break;
        }
        int left = 0;
        CURLMsg *m;
        while ((m = curl_multi_info_read(ep->multi, &left)) != NULL) {
            if (m->msg == CURLMSG_DONE && m->easy_handle == ep->curl) {
                rc = m->data.result;
                done = 1;
            }
        }
        if (!done && running)
            curl_multi_poll(ep->multi, NULL, 0, 100, NULL);
        else if (!done)
            done = 1; /* finished without a message: nothing more to read */
    }
    curl_multi_remove_handle(ep->multi, ep->curl);
    return rc;
}

/* Sleeps ms in short slices; returns 1 early when cancelled. */
static int sleep_cancellable(model_endpoint *ep, double ms)
{
    double end = base_monotime_ms() + ms;
    for (;;) {
        if (stopped(ep))
            return 1;
        double left = end - base_monotime_ms();
        if (left <= 0)
            return 0;
        base_sleep_ms(left < 20 ? left : 20);
    }
}

/* Milliseconds left before the post's deadline (a large number without). */
static double time_left(const model_endpoint *ep)
{
    return ep->deadline_ms > 0 ? ep->deadline_ms - base_monotime_ms() : 1e12;
}

/* "request cancelled" or, for a stop signal, which one. */
static const char *cancel_why(const model_endpoint *ep)
{
    static _Thread_local char why[64];
    int sig = ep->stop_on_interrupt ? base_interrupted() : 0;
    if (sig && !atomic_load(&ep->cancel)) {
        snprintf(why, sizeof why, "interrupted by %s", base_signal_name(sig));
        return why;
    }
    return "request cancelled";
}

base_err model_endpoint_post(model_endpoint *ep, const char *body, size_t n, double deadline_ms,
                            perc_post_info *info, char *err)
{
    perc_post_info scratch;
    perc_post_info *in = info ? info : &scratch;
    memset(in, 0, sizeof *in);
    ep->deadline_ms = deadline_ms;
    char last[MSG_MAX] = "";
    base_err last_e = BASE_EREMOTE;
    int attempts = ep->max_retries + 1;
    for (int a = 0; a < attempts; a++) {
        base_buf_reset(&ep->resp);
        ep->retry_after_ms = -1;
        ep->retry_after_s = -1;
        if (stopped(ep))
            return model_endpoint_errf(ep, err, BASE_ECANCELED, "%s: %s (%s)", ep->what,
                                      cancel_why(ep), ep->shown);
        double left = time_left(ep);
        /* An attempt with a sliver of time left only hides the last cause
         * behind "the time limit ran out". */
        if (left < 1 || (last[0] && left < MIN_ATTEMPT_MS)) {
            if (last[0])
                return model_endpoint_errf(ep, err, last_e, "%s: %s (%s; no time left to retry)",
                                          ep->what, last, ep->shown);
            return model_endpoint_errf(ep, err, BASE_ETIMEDOUT,
                                      "%s: timed out: the %s's time ran out before the "
                                      "request (%s)",
                                      ep->what, ep->budget, ep->shown);
        }
        long tmo = left < ep->timeout_ms ? (long)left : (long)ep->timeout_ms;
        curl_easy_setopt(ep->curl, CURLOPT_TIMEOUT_MS, tmo);
        char cerr[CURL_ERROR_SIZE] = "";
        curl_easy_setopt(ep->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(ep->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
        curl_easy_setopt(ep->curl, CURLOPT_ERRORBUFFER, cerr);
        in->attempts++;
        double t0 = base_monotime_ms();
        ep->t_start = t0;
        ep->t_byte = 0;
        ep->timer = 0;
        CURLcode cc = perform(ep);
        double ms = base_monotime_ms() - t0;
        in->transfer_ms += ms;
        curl_easy_setopt(ep->curl, CURLOPT_ERRORBUFFER, NULL);
        long status = 0;
        curl_easy_getinfo(ep->curl, CURLINFO_RESPONSE_CODE, &status);
        in->status = status;
        attempt_kind k;
        if (cc == CURLE_OK && status >= 200 && status < 300) {
            model_endpoint_log(ep, BASE_LOG_DEBUG, "%ld in %.0f ms (%zu bytes)", status, ms,
                              ep->resp.len);
            return BASE_OK;
        } else if (cc == CURLE_OK && status == 429) {
            if (ep->retry_after_s >= 0)
                snprintf(last, sizeof last, "rate-limited (Retry-After %ld s)", ep->retry_after_s);
            else
                snprintf(last, sizeof last, "rate-limited (429 Too Many Requests)");
            last_e = BASE_EREMOTE;
            k = ATT_RETRY;
        } else if (cc == CURLE_OK) {
            describe_status(status, &ep->resp, last, sizeof last);
            last_e = BASE_EREMOTE;
            k = status >= 500 ? ATT_RETRY : ATT_FATAL;
        } else if (cc == CURLE_ABORTED_BY_CALLBACK) {
            return model_endpoint_errf(ep, err, BASE_ECANCELED, "%s: %s (%s)", ep->what,
                                      cancel_why(ep), ep->shown);
        } else if (cc == CURLE_OPERATION_TIMEDOUT && ep->timer == 1) {
            snprintf(last, sizeof last, "no first byte in %g s", ep->first_byte_ms / 1000.0);
            last_e = BASE_ETIMEDOUT;
            k = ATT_RETRY;
        } else if (cc == CURLE_OPERATION_TIMEDOUT && ep->timer == 2) {
            snprintf(last, sizeof last, "no byte for %g s", ep->stall_ms / 1000.0);
            last_e = BASE_ETIMEDOUT;
            k = ATT_RETRY;
        } else if (cc == CURLE_OPERATION_TIMEDOUT && tmo < ep->timeout_ms) {
            /* Cut by the deadline, not by the attempt's timeout: no retry
             * can help. */
            char before[MSG_MAX];
            snprintf(before, sizeof before, "%s", last);
            snprintf(last, sizeof last, "timed out after %.1f s: the %s's time limit ran out",
                     ms / 1000.0, ep->budget);
            if (a && before[0])
                return model_endpoint_errf(ep, err, BASE_ETIMEDOUT,
                                           "%s: %s (%s, after retries; before: %s)", ep->what,
                                           last, ep->shown, before);
            return model_endpoint_errf(ep, err, BASE_ETIMEDOUT, "%s: %s (%s%s)", ep->what, last,
                                       ep->shown, a ? ", after retries" : "");
        } else if (cc == CURLE_OPERATION_TIMEDOUT) {
            snprintf(last, sizeof last, "timed out after %ld ms", tmo);
            last_e = BASE_ETIMEDOUT;
            k = ATT_RETRY;
        } else if (cc == CURLE_WRITE_ERROR) {
            snprintf(last, sizeof last, "reply is larger than %zu bytes", ep->max_response);
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
                return model_endpoint_errf(ep, err, last_e, "%s: %s (%s)", ep->what, last,
                                          ep->shown);
            return model_endpoint_errf(ep, err, last_e, "%s: %s (%s, after %d attempts)", ep->what,
                                      last, ep->shown, a + 1);
        }
        /* Exponential backoff with jitter, unless the server said when. */
        double wait = BACKOFF_BASE_MS * pow(2.0, a);
        wait = wait > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : wait;
        wait *= base_rng_uniform(&ep->rng, 0.5, 1.0);
        if (ep->retry_after_ms >= 0)
            wait = (double)ep->retry_after_ms;
        /* A wait that would end after the deadline is not worth starting:
         * say why now (with the server's own figure for a rate limit). */
        double room = time_left(ep);
        long ra_s = ep->retry_after_s;
        if (wait >= room || (ra_s >= 0 && (double)ra_s * 1000.0 >= room))
            return model_endpoint_errf(ep, err, last_e,
                                      "%s: %s (%s; not retried: %.0f ms left for the %s)",
                                      ep->what, last, ep->shown, room > 0 ? room : 0, ep->budget);
        model_endpoint_log(ep, BASE_LOG_INFO, "%s; retry %d/%d in %.0f ms", last, a + 1,
                          ep->max_retries, wait);
        double w0 = base_monotime_ms();
        int cancelled = sleep_cancellable(ep, wait);
        in->wait_ms += base_monotime_ms() - w0;
        if (cancelled)
            return model_endpoint_errf(ep, err, BASE_ECANCELED, "%s: %s (%s; %s)", ep->what, last,
                                      ep->shown, cancel_why(ep));
    }
    return model_endpoint_errf(ep, err, last_e, "%s: %s (%s)", ep->what, last, ep->shown);
}

const char *model_endpoint_body(const model_endpoint *ep, size_t *len)
{
    if (len)
        *len = ep->resp.len;
    return ep->resp.data ? (const char *)ep->resp.data : "";
}

void model_endpoint_cancel(model_endpoint *ep, int on)
{
    if (!ep)
        return;
    atomic_store(&ep->cancel, on != 0);
    /* curl_multi_wakeup is the one multi call documented as safe from
     * another thread. */
    if (on && ep->multi)
        curl_multi_wakeup(ep->multi);
}

const char *model_endpoint_shown(const model_endpoint *ep)
{
    return ep->shown;
}

/* ---- life cycle ------------------------------------------------------ */

void model_endpoint_destroy(model_endpoint *ep)
{
    if (!ep)
        return;
    if (ep->curl)
        curl_easy_cleanup(ep->curl);
    if (ep->multi)
        curl_multi_cleanup(ep->multi);
    curl_slist_free_all(ep->headers);
    base_buf_fini(&ep->resp);
    /* Wipe the key before handing its memory back. */
    if (ep->key) {
        volatile char *k = ep->key;
        while (*k)
            *k++ = 0;
    }
    base_free(ep->key);
    base_free(ep->url);
    base_free(ep->shown);
    base_free(ep->what);
    base_free(ep->budget);
    base_free(ep->tag);
    base_free(ep);
}

/* Adds a header line; 0 on out of memory. */
static int add_header(model_endpoint *ep, const char *line)
{
    struct curl_slist *l = curl_slist_append(ep->headers, line);
    if (!l)
        return 0;
    ep->headers = l;
    return 1;
}

base_err model_endpoint_create(const model_endpoint_config *c, model_endpoint **out, char *err)
{
    if (!c || !out)
        return base_errf(err, BASE_EINVAL, "endpoint: NULL argument");
    const char *what = c->what ? c->what : "endpoint";
    if (!c->base_url ||
        (strncmp(c->base_url, "http://", 7) != 0 && strncmp(c->base_url, "https://", 8) != 0))
        return base_errf(err, BASE_EINVAL, "%s: base URL must start with http:// or https://",
                         what);
    if (c->timeout_ms < 0 || c->max_retries < 0 || c->max_retries > 20)
        return base_errf(err, BASE_EINVAL, "%s: bad limits (timeout %d ms, retries %d)", what,
                         c->timeout_ms, c->max_retries);
    if (c->api_key && strpbrk(c->api_key, "\r\n"))
        return base_errf(err, BASE_EINVAL, "%s: the API key contains a line break", what);
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return base_errf(err, BASE_EIO, "%s: curl_global_init: %s", what,
                         curl_easy_strerror(curl_init_rc));
    model_endpoint *ep = base_calloc(1, sizeof *ep);
    if (!ep)
        return base_errf(err, BASE_ENOMEM, "%s: out of memory", what);
    ep->comp = c->log_comp;
    ep->timeout_ms = c->timeout_ms ? c->timeout_ms : 30000;
    ep->max_retries = c->max_retries;
    ep->stop_on_interrupt = c->stop_on_interrupt;
    ep->first_byte_ms = c->first_byte_ms > 0 ? c->first_byte_ms : 0;
    ep->stall_ms = c->stall_ms > 0 ? c->stall_ms : 0;
    ep->max_response = c->max_response ? c->max_response : RESP_MAX_DEFAULT;
    base_buf_init(&ep->resp, ep->max_response);
    base_rng_seed(&ep->rng, (uint64_t)base_monotime() ^ (uint64_t)(uintptr_t)ep);
    size_t bl = strlen(c->base_url);
    while (bl > 0 && c->base_url[bl - 1] == '/')
        bl--;
    const char *path = c->path ? c->path : "";
    size_t ul = bl + strlen(path) + 1;
    ep->url = base_malloc(ul);
    if (ep->url)
        snprintf(ep->url, ul, "%.*s%s", (int)bl, c->base_url, path);
    ep->what = base_strdup(what);
    ep->budget = base_strdup(c->budget ? c->budget : "call");
    ep->tag = base_strdup(c->log_tag ? c->log_tag : "http");
    ep->key = c->api_key && c->api_key[0] ? base_strdup(c->api_key) : NULL;
    if (!ep->url || !ep->what || !ep->budget || !ep->tag ||
        (c->api_key && c->api_key[0] && !ep->key) || !(ep->shown = perc_url_shown(ep->url)))
        goto nomem;
    if (!add_header(ep, "Content-Type: application/json") || !add_header(ep, "Expect:") ||
        !add_header(ep, "Accept: application/json"))
        goto nomem;
    if (ep->key) {
        size_t hl = strlen(ep->key) + sizeof "Authorization: Bearer ";
        char *h = base_malloc(hl);
        if (!h)
            goto nomem;
        snprintf(h, hl, "Authorization: Bearer %s", ep->key);
        int ok = add_header(ep, h);
        memset(h, 0, hl);
        base_free(h);
        if (!ok)
            goto nomem;
    }
    ep->curl = curl_easy_init();
    ep->multi = curl_multi_init();
    if (!ep->curl || !ep->multi)
        goto nomem;
    CURL *h = ep->curl;
    int connect_ms = ep->timeout_ms < 10000 ? ep->timeout_ms : 10000;
    if (curl_easy_setopt(h, CURLOPT_URL, ep->url) != CURLE_OK) {
        model_endpoint_destroy(ep);
        return base_errf(err, BASE_EINVAL, "%s: curl rejected the endpoint URL", what);
    }
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, ep->headers);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)ep->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)connect_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, ep);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, ep);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, ep);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "fovea/0.1");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    *out = ep;
    return BASE_OK;
nomem:
    model_endpoint_destroy(ep);
    return base_errf(err, BASE_ENOMEM, "%s: out of memory", what);
}

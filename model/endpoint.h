/* model/endpoint.h: one OpenAI-compatible HTTP endpoint, shared by the
 * vision provider (perception/vision_openai.c) and the agent's LLM client
 * (model/llm.c), so that both retry, back off, time out, cancel and keep the
 * API key out of every message in exactly one way.
 *
 * A model_endpoint is a base URL + path, an optional bearer key and one
 * libcurl easy handle (connection reuse). model_endpoint_post sends one JSON
 * body and retries transient failures (429, 5xx, timeouts, broken
 * connections) with exponential backoff and jitter, honouring Retry-After,
 * never past the caller's deadline. Every message it writes (errors, logs)
 * is scrubbed of the key first; the endpoint URL is shown with any
 * user:password@ password masked.
 *
 * One endpoint belongs to one thread at a time, except model_endpoint_cancel,
 * which any thread may call.
 */
#ifndef FOVEA_MODEL_ENDPOINT_H
#define FOVEA_MODEL_ENDPOINT_H

#include <stdarg.h>
#include <stddef.h>

#include "base/err.h"
#include "base/log.h"

typedef struct model_endpoint model_endpoint;

typedef struct model_endpoint_config {
    const char *base_url; /* http:// or https://, trailing slashes ignored */
    const char *path;     /* appended to base_url, e.g. "/chat/completions" */
    const char *api_key;  /* NULL or "" = no Authorization header */
    const char *what;     /* names the endpoint in messages ("vision endpoint") */
    const char *budget;   /* what the deadline belongs to ("step", "call") */
    const char *log_tag;  /* log line prefix ("openai") */
    base_log_comp log_comp;
    int timeout_ms;       /* per attempt; 0 = 30000 */
    int max_retries;      /* 0..20 */
    size_t max_response;  /* cap on a response body; 0 = 8 MiB */
    int stop_on_interrupt; /* a stop signal (base/interrupt.h) cancels like model_endpoint_cancel */
    int first_byte_ms;    /* an attempt with no byte of answer by then fails ("no first byte
                             in N s"), and is retried; 0 = only timeout_ms */
    int stall_ms;         /* an attempt whose answer stops for this long fails ("no byte for
                             N s"), and is retried; 0 = only timeout_ms. Streamed answers
                             keep bytes coming, so this tells a stalled server from a slow one */
} model_endpoint_config;

/* What one model_endpoint_post did. */
typedef struct perc_post_info {
    int attempts;       /* requests sent */
    long status;        /* HTTP status of the last attempt, 0 when none came */
    double transfer_ms; /* time inside libcurl transfers (the server's and the network's) */
    double wait_ms;     /* time spent backing off between attempts */
} perc_post_info;

/* Checks c and makes an endpoint. Strings are copied; *out is the caller's
 * (model_endpoint_destroy). Any thread. Errors: BASE_EINVAL (URL not http(s),
 * bad limits, a key with a line break), BASE_EIO (curl_global_init),
 * BASE_ENOMEM. */
base_err model_endpoint_create(const model_endpoint_config *c, model_endpoint **out, char *err);

/* Frees ep and wipes its key. NULL: no-op. The owner's thread. */
void model_endpoint_destroy(model_endpoint *ep);

/* POSTs body (n bytes, JSON) and retries transient failures, never past
 * deadline_ms (base_monotime_ms() clock; 0 = none): each attempt's timeout is
 * cut to the time left, and a backoff that would end after it is not started.
 * On BASE_OK the 2xx body is model_endpoint_body. On a non-retryable HTTP
 * error the error body stays readable too. body borrowed; info (may be NULL)
 * filled in every case. On the owner's thread. Errors (err scrubbed, naming
 * the endpoint): BASE_EREMOTE (an HTTP error status: "answered 400 Bad
 * Request: <the server's message>", or rate-limited), BASE_ETIMEDOUT,
 * BASE_EIO (refused, closed mid-reply), BASE_ETOOBIG (body over the cap),
 * BASE_ECANCELED. */
base_err model_endpoint_post(model_endpoint *ep, const char *body, size_t n, double deadline_ms,
                            perc_post_info *info, char *err);

/* The last response body (NUL-terminated; *len without the NUL; may be
 * NULL). Borrowed until the next post. On the owner's thread; cannot fail. */
const char *model_endpoint_body(const model_endpoint *ep, size_t *len);

/* Cancels (on) a post in progress and every later one until called with on =
 * 0. Any thread. Errors: none. */
void model_endpoint_cancel(model_endpoint *ep, int on);

/* The endpoint URL as messages show it (password masked). Borrowed for the
 * endpoint's lifetime. Any thread (it never changes); cannot fail. */
const char *model_endpoint_shown(const model_endpoint *ep);

/* base_errf, with the message scrubbed of the endpoint's key: writes it to
 * err (optional, first error wins) and returns e. Any thread; cannot fail. */
base_err model_endpoint_errf(const model_endpoint *ep, char *err, base_err e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* base_log under the endpoint's component and tag, scrubbed of the key.
 * Any thread; cannot fail. */
void model_endpoint_log(const model_endpoint *ep, base_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Replaces, in place, every run of >= 8 characters of msg (or the whole key
 * when it is shorter) that also occurs in key with "***"; msg holds at most
 * cap bytes. key NULL or "": nothing. Pure; any thread. */
void perc_secret_scrub(const char *key, char *msg, size_t cap);

/* url with the password of a "scheme://user:password@" userinfo replaced by
 * "********". A new string (base_free). Errors: NULL on ENOMEM. Pure; any
 * thread. */
char *perc_url_shown(const char *url);

#endif

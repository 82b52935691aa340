/* cdp/cdp.h: the DevTools protocol connection.
 *
 * One cdp_conn is one websocket to a browser endpoint
 * (ws://host:port/devtools/browser/ID). A private service thread owns the
 * libwebsockets context; every other thread talks to it through a locked
 * queue and waits on a per-call completion with a deadline. Calls may be
 * pipelined: any number can be in flight, from any number of threads.
 *
 * Flattened sessions: a call addresses a target (page, out-of-process
 * iframe, worker) by its sessionId; NULL addresses the browser itself.
 *
 * Failure model: when the socket closes or the browser dies, every pending
 * call fails at once with BASE_ECLOSED and so does every later call. A
 * malformed frame (not JSON, wrong types, unknown id) is counted, logged and
 * dropped; it never completes a call with garbage and never crashes.
 */
#ifndef FOVEA_CDP_CDP_H
#define FOVEA_CDP_CDP_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct cdp_conn cdp_conn;

typedef struct cdp_conn_opts {
    size_t max_message;     /* cap on one incoming message; 0 = 256 MiB */
    /* Deadline of the TCP connect plus the websocket handshake; 0 = 10000.
     * A browser pool answers the handshake only when a browser is free, so a
     * caller that may wait in its queue sets this to the time it will wait
     * (libwebsockets' own handshake timeout follows it). */
    int connect_timeout_ms;
    /* Extra handshake headers, "Name: value" each, NULL-terminated; optional
     * (a pool's "Authorization: Bearer TOKEN"). Borrowed during cdp_connect. */
    const char *const *headers;
    /* 1: the endpoint is a browser pool (one browser per connection, a time
     * limit per session), so a peer close is reported as "the pool closed
     * the session after N s". */
    int pool;
} cdp_conn_opts;

/* Opens a websocket to ws_url ("ws(s)://host[:port][/path][?query]"; the
 * query is sent as is). On success *out owns the connection and its service
 * thread. Any thread. Errors: BASE_EINVAL (URL, header), BASE_ETIMEDOUT,
 * BASE_ECLOSED (refused or handshake failed), BASE_EBUSY (the endpoint
 * answered HTTP 429 or 503: a full pool), BASE_EREMOTE (another HTTP status
 * instead of the upgrade, e.g. 401 for a bad token; the message names it),
 * BASE_ENOMEM; err (optional) gets the reason. */
base_err cdp_connect(const char *ws_url, const cdp_conn_opts *opts, cdp_conn **out, char *err);

/* Closes the socket, fails pending calls with BASE_ECANCELED, joins the
 * service thread and frees everything. NULL is a no-op. Must not be called
 * from an event callback (it joins the thread that runs them). */
void cdp_conn_destroy(cdp_conn *c);

/* Sends `method` with `params` (consumed, may be NULL) to the target of
 * session_id (NULL: the browser) and waits up to timeout_ms for the reply.
 * On success *result (if result is non-NULL) receives the reply's "result"
 * object, which the caller frees with cJSON_Delete. Any thread except the
 * service thread (i.e. not from an event callback).
 * Errors: BASE_ETIMEDOUT, BASE_ECLOSED (browser gone), BASE_EREMOTE (the
 * browser answered with an error; err holds its message and code),
 * BASE_ENOMEM, BASE_EINVAL. *result is untouched on failure. */
base_err cdp_call(cdp_conn *c, const char *session_id, const char *method, cJSON *params,
                  cJSON **result, int timeout_ms, char *err);

/* Completion callback for cdp_call_async. Runs on the service thread with no
 * lock held; `result` is borrowed (valid during the callback) and NULL on
 * failure; e and msg describe a failure. It must not block or call cdp_call. */
typedef void (*cdp_reply_cb)(base_err e, const cJSON *result, const char *msg, void *user);

/* Queues a call and returns at once; cb runs exactly once on completion,
 * failure, timeout (timeout_ms > 0) or connection destroy. If this function
 * fails, cb never runs. Any thread. */
base_err cdp_call_async(cdp_conn *c, const char *session_id, const char *method, cJSON *params,
                        int timeout_ms, cdp_reply_cb cb, void *user);

/* Sends n calls of `method` to session_id at once, without waiting for one
 * reply before the next call (n round trips cost about one), then waits
 * for all of them. params[i] (may be NULL) is consumed, every entry, also
 * on failure. results[i] receives call i's "result" object (the caller
 * frees each with cJSON_Delete) or NULL when that call failed: a page's
 * error answer, a timeout after timeout_ms (> 0 required), a closed
 * connection. Returns BASE_OK when every call got a result, else the first
 * failure (err names it; the other results stay valid). Any thread except
 * the service thread. Errors: BASE_EINVAL (bad arguments), BASE_ENOMEM,
 * and those of cdp_call. */
base_err cdp_call_many(cdp_conn *c, const char *session_id, const char *method, cJSON **params,
                       int n, cJSON **results, int timeout_ms, char *err);

/* Event callback: session_id is NULL for browser-level events; params are
 * borrowed for the duration of the call. Runs on the service thread with no
 * lock held; it must not block or call cdp_call (use cdp_call_async). */
typedef void (*cdp_event_cb)(const char *session_id, const char *method, const cJSON *params,
                             void *user);

/* Subscribes to events named `method` (NULL: all events), optionally only
 * from one session (session_id non-NULL; copied). Returns a positive id for
 * cdp_unsubscribe, or a negative base_err. Any thread. */
int cdp_subscribe(cdp_conn *c, const char *method, const char *session_id, cdp_event_cb cb,
                  void *user);

/* Removes a subscription. After it returns, the callback is not running and
 * will not run again (unless called from that same callback, where the
 * current invocation finishes). Any thread. */
void cdp_unsubscribe(cdp_conn *c, int id);

/* A one-shot wait for an event, registered BEFORE the action that causes
 * it so the event cannot be missed. */
typedef struct cdp_waiter cdp_waiter;

/* Starts listening for `method` on session_id (NULL: any session). The
 * optional predicate filters events (return 1 to accept). Any thread. */
base_err cdp_waiter_create(cdp_conn *c, const char *session_id, const char *method,
                           int (*pred)(const cJSON *params, void *user), void *user,
                           cdp_waiter **out);
/* Waits until a matching event arrived (or had arrived). *params (optional)
 * receives a copy the caller frees. BASE_ETIMEDOUT, BASE_ECLOSED. */
base_err cdp_waiter_wait(cdp_waiter *w, int timeout_ms, cJSON **params);
void cdp_waiter_destroy(cdp_waiter *w);

/* Declares one session dead (a crashed renderer, a closed tab, a page that
 * stopped answering): every pending call on session_id completes at once with e
 * and `why` as its message ("page crashed ..."), every later call on it fails
 * immediately the same way, and waiters registered on it return e, as the whole
 * connection does when the browser dies. The first cause given for a session
 * wins. Any thread, including event callbacks. Errors: BASE_EINVAL (NULL/empty
 * session or e == BASE_OK). */
base_err cdp_session_fail(cdp_conn *c, const char *session_id, base_err e, const char *why);

/* BASE_OK while session_id is usable, else the error it was failed with (why, n
 * bytes, receives the reason). Any thread. */
base_err cdp_session_status(cdp_conn *c, const char *session_id, char *why, size_t n);

/* True while the socket is open. Any thread. */
int cdp_conn_alive(cdp_conn *c);

/* Copies why the connection closed ("peer closed the socket", "the pool
 * closed the session after 60 s", ...) into why (n bytes); "" while it is
 * open. Any thread; cannot fail. */
void cdp_conn_close_reason(cdp_conn *c, char *why, size_t n);

/* Counters for tests and diagnostics. */
typedef struct cdp_stats {
    uint64_t sent, received, events, malformed, late_replies;
} cdp_stats;
void cdp_conn_stats(cdp_conn *c, cdp_stats *out);

/* Parses one incoming protocol message. Exposed for the fuzz target and
 * tests: classifies `text` (n bytes) as a reply (*id >= 0) or an event
 * (*method set), and returns BASE_EPROTO for anything else. *root receives
 * the parsed tree on success (caller frees). Pure; any thread. */
typedef enum cdp_msg_kind { CDP_MSG_REPLY, CDP_MSG_EVENT } cdp_msg_kind;
typedef struct cdp_msg {
    cdp_msg_kind kind;
    int64_t id;                /* replies */
    const char *method;        /* events; borrowed from root */
    const char *session_id;    /* NULL for browser-level; borrowed */
    const cJSON *result;       /* replies without error */
    const char *error_message; /* replies with error */
    int error_code;
    const cJSON *params;       /* events */
} cdp_msg;
base_err cdp_msg_parse(const char *text, size_t n, cJSON **root, cdp_msg *msg, char *err);

#endif

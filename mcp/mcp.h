/* mcp/mcp.h: fovea's tools for any agent, over the Model Context Protocol
 * (MCP, specification 2025-06-18; 2025-11-25, 2025-03-26 and 2024-11-05
 * clients are answered in their own version).
 *
 * An MCP host (Claude, Cursor, VS Code, the OpenAI Agents SDK, ...) starts
 * `fovea mcp` and speaks JSON-RPC 2.0 to it: initialize, tools/list,
 * tools/call, ping, notifications/cancelled, with notifications/progress
 * sent back for calls that carry a progressToken. The tools are the session's
 * tool registry (agent/session/tool.h: the same schemas and permissions as
 * `fovea run`) plus three for vision models: click_box and type_box (a box
 * and a label through the snapper, with its ambiguity answer) and
 * click_point (bare coordinates). Navigation and actions answer with the page
 * view (the outline, budgeted, unchanged regions collapsed) in the same
 * result.
 *
 * One mcp_conn is one client connection (the stdio transport has one; the
 * Streamable HTTP transport one per Mcp-Session-Id) and owns one browser
 * session, created on its first tools/call on the connection's worker
 * thread, which runs every tool call of that connection in order.
 *
 * Nothing here phones home: no telemetry of any kind.
 */
#ifndef FOVEA_MCP_MCP_H
#define FOVEA_MCP_MCP_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "cdp/browser.h"

/* The protocol version this server prefers (the newest it speaks). */
#define MCP_PROTOCOL_VERSION "2025-06-18"

/* JSON-RPC 2.0 error codes. */
enum {
    MCP_PARSE_ERROR = -32700,
    MCP_INVALID_REQUEST = -32600,
    MCP_METHOD_NOT_FOUND = -32601,
    MCP_INVALID_PARAMS = -32602,
    MCP_INTERNAL_ERROR = -32603,
};

/* Secrets by name (--secrets FILE): the model passes {"secret":"NAME"} where
 * a tool takes text; the value is typed and masked in every output. */
typedef struct mcp_secrets mcp_secrets;

/* Reads FILE, a JSON object of names to string values ({"PASSWORD":
 * "..."}), names [A-Za-z_][A-Za-z0-9_]* up to 64 bytes, at most 64 of them.
 * *out is the caller's (mcp_secrets_destroy). Errors: BASE_EIO (cannot
 * read), BASE_EPROTO (not such an object; err names the member, never a
 * value), BASE_ENOMEM. Any thread. */
base_err mcp_secrets_load(const char *path, mcp_secrets **out, char *err);

/* Wipes the values and frees s. NULL: no-op. Any thread. */
void mcp_secrets_destroy(mcp_secrets *s);

/* The number of secrets, and the i-th name / value (borrowed; NULL out of
 * range). Any thread. Errors: none. */
int mcp_secrets_count(const mcp_secrets *s);
const char *mcp_secrets_name(const mcp_secrets *s, int i);
const char *mcp_secrets_value(const mcp_secrets *s, const char *name);

/* Whether path may be uploaded: only a regular file whose real path (every
 * symlink and ".." resolved) lies inside the real path of upload_dir. The
 * resolved path goes to real (real_n bytes) so the caller uploads what was
 * checked. upload_dir NULL: every upload is refused. Returns 0 when
 * allowed, else -1 with why (why_n bytes, one line). Pure file-system
 * reads; any thread. The rule itself is base_path_in_dir (base/fs.h), which
 * the tool layer can call for `fovea run`'s own --upload-dir. */
int mcp_upload_allowed(const char *upload_dir, const char *path, char *real, size_t real_n,
                       char *why, size_t why_n);

/* Where each MCP session's page comes from: tools/ launches or attaches to
 * the browser (--cdp, --target) and opens a tab per session. open runs on
 * the connection's worker thread and gives the browser and a page that
 * stays valid until close(page); close gets every page open gave, once.
 * Errors of open: any base_err, with err (BASE_ERRBUF_SIZE) saying why. */
typedef struct mcp_pages {
    base_err (*open)(void *user, cdp_browser **browser, cdp_page **page, char *err);
    void (*close)(void *user, cdp_page *page);
    void *user;
} mcp_pages;

/* What every connection of a server may do; borrowed by the connections, so
 * it must outlive them. */
typedef struct mcp_config {
    mcp_pages pages;
    int allow_scripts;          /* evaluate_script, run_script listed and allowed */
    const char *upload_dir;     /* uploads only from here; NULL = refused */
    const char *allow_hosts;    /* navigation: comma-separated hosts; NULL = "*" */
    const mcp_secrets *secrets; /* NULL = none */
    int screenshot;             /* every page view also carries the marked image */
    int humanize;               /* cursor paths and typing cadence (default 1) */
    int page_chars;             /* the page view's budget in characters (0 = get_outline's) */
} mcp_config;

/* Defaults: nothing allowed beyond `fovea run`'s, humanize on. Any thread. */
void mcp_config_init(mcp_config *c);

/* Sends one JSON-RPC message (a response or a notification, one line of
 * JSON, no newline). related is the id of the request it answers or reports
 * progress of (NULL for none). Called on the receiving thread or on the
 * connection's worker thread, so it must be thread-safe; json is borrowed
 * for the call. json NULL: the request related will get no answer (it was
 * cancelled, or the connection is closing); a transport that waits for one
 * stops waiting. */
typedef void (*mcp_emit_fn)(void *user, const char *json, const cJSON *related);

typedef struct mcp_conn mcp_conn;

/* A connection: starts its worker thread (no browser yet). cfg is borrowed
 * (must outlive the connection); *out is the caller's (mcp_conn_destroy).
 * Errors: BASE_ENOMEM, BASE_EIO (thread). Any thread. */
base_err mcp_conn_create(const mcp_config *cfg, mcp_emit_fn emit, void *user, mcp_conn **out,
                         char *err);

/* Handles one received message (len bytes of JSON text, one JSON-RPC
 * message): answers at once what needs no page (initialize, ping,
 * tools/list, errors) through emit, queues tools/call for the worker, and
 * cancels a queued or running call on notifications/cancelled. Returns 1
 * when the text was a request (something will be answered), 0 for a
 * notification or a response. Any thread but the worker. Errors: answered
 * as JSON-RPC errors (-32700 malformed JSON, -32600 not a request, -32601
 * unknown method, -32602 bad parameters); the connection goes on. */
int mcp_conn_receive(mcp_conn *c, const char *text, size_t len);

/* The protocol version the client and server agreed on ("" before
 * initialize). Borrowed. Any thread. */
const char *mcp_conn_version(const mcp_conn *c);

/* Waits until every queued call is answered (or the calls are cancelled).
 * Any thread but the worker. */
void mcp_conn_drain(mcp_conn *c);

/* Cancels the running call, drops queued ones (unanswered), joins the
 * worker, closes the browser session and its page. NULL: no-op. Not on the
 * worker thread. */
void mcp_conn_destroy(mcp_conn *c);

/* The stdio transport: newline-delimited JSON-RPC messages on in, answers
 * and notifications on out (flushed per line), logs only on stderr. Returns
 * at EOF of in after the calls in flight are answered. Errors: BASE_EIO
 * (out cannot be written), BASE_ENOMEM; err says which. Main thread. */
base_err mcp_stdio_run(const mcp_config *cfg, FILE *in, FILE *out, char *err);

/* The Streamable HTTP transport on 127.0.0.1:port (0 = a free port) at
 * path /mcp: every request needs "Authorization: Bearer <token>", a Host of
 * 127.0.0.1:PORT or localhost:PORT and no foreign Origin; initialize opens a
 * session (Mcp-Session-Id header, one browser session each, at most 16);
 * DELETE ends one. token is copied (at least 16 bytes). */
typedef struct mcp_http mcp_http;

/* Starts the server. *out is the caller's (mcp_http_stop). Errors:
 * BASE_EINVAL (short token), BASE_EIO (port in use), BASE_ENOMEM. Any
 * thread. */
base_err mcp_http_start(const mcp_config *cfg, int port, const char *token, mcp_http **out,
                        char *err);

/* The bound port. */
int mcp_http_port(const mcp_http *h);

/* The number of live MCP sessions. Any thread. */
int mcp_http_sessions(mcp_http *h);

/* Stops accepting, ends every session (their browser sessions closed) and
 * frees h. NULL: no-op. Not from a handler. */
void mcp_http_stop(mcp_http *h);

#endif

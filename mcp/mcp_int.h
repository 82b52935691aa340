/* mcp/mcp_int.h: what the files of mcp/ share (the connection, the tool
 * mapping, the transports). Private to mcp/. */
#ifndef FOVEA_MCP_MCP_INT_H
#define FOVEA_MCP_MCP_INT_H

#include <cjson/cJSON.h>

#include "agent/session/tool.h"
#include "cascade/cascade.h"
#include "cascade/snapserve.h"
#include "mcp/mcp.h"

#define MCP__SERVER_VERSION "0.1.0"

/* What a connection's worker owns: the browser session and, for the box and
 * point tools, a snapserve and a hand on the session's current page. */
typedef struct mcp_call_state {
    cdp_browser *browser;
    cdp_page *page;            /* the page the source opened (closed through it) */
    fovea_session *s;
    cdp_page *tool_page;       /* the page sv and hand act on */
    cascade_snapserve *sv;
    cascade_hand *hand;
    char why[BASE_ERRBUF_SIZE]; /* why the session could not start (first error) */
} mcp_call_state;

/* Runs tool name with checked args on the worker (the session is opened on
 * the first call) and returns the tools/call result (content,
 * structuredContent, isError), secrets masked; NULL when out of memory.
 * mcp/call.c. */
cJSON *mcp__call(mcp_call_state *st, const mcp_config *cfg, const char *name, const cJSON *args);

/* Frees what st holds (session, hand, snapserve, the page). Worker thread. */
void mcp__call_state_fini(mcp_call_state *st, const mcp_config *cfg);

/* The tools/list array for cfg (the tools this server's permissions allow,
 * with inputSchema, outputSchema, annotations). New object; NULL on ENOMEM.
 * Any thread. mcp/call.c. */
cJSON *mcp__tools_list(const mcp_config *cfg);

/* Checks a tools/call before it is queued: the tool is listed, args fit its
 * schema, {"secret": NAME} names a known secret (substituted into *out, and
 * *secret set), uploads lie in --upload-dir (their paths resolved). Returns 0
 * with *out the arguments to run (owned), or a JSON-RPC error code with why
 * (BASE_ERRBUF_SIZE). Any thread. */
int mcp__prepare(const mcp_config *cfg, const char *name, const cJSON *args, cJSON **out,
                 int *secret, char *why);

/* Overwrites every string of j with zeros (before freeing a secret). */
void mcp__wipe_json(cJSON *j);

typedef struct mcp_conn mcp_conn;
/* A JSON-RPC error answer to id (NULL = null). Any thread. */
void mcp__send_error(mcp_conn *c, const cJSON *id, int code, const char *msg);
/* notifications/progress for request id with token. Any thread. */
void mcp__send_progress(mcp_conn *c, const cJSON *id, const cJSON *token, double progress,
                        const char *message);

#endif

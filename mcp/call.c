/* mcp/call.c: the tools an MCP client sees and what a call returns.
 *
 * The list is the session's tool registry as `fovea run` offers it to a
 * model (the same JSON Schemas and guards; opt-in tools only with
 * --allow-scripts; "done", the end of a task for fovea's own planner, is
 * left out), plus three tools a vision model needs and the registry does not
 * have: click_box and type_box (a box and a label from a screenshot, through
 * the snapper: cascade/snapserve.h, with its "ambiguous" answer when the
 * label names several controls in the box, nothing clicked) and click_point
 * (bare coordinates through the click cascade). The registry's click_at is
 * the click by label or [n]; the bare-coordinate click is click_point, so no
 * name means two things.
 *
 * A result is MCP content: a first text line (the tool, ok or the failure's
 * reason, the one-line message), the tool's data as text when it is a
 * reading (get_outline's outline, extract's lines), and after navigation and
 * actions the page view (get_outline: budgeted, unchanged regions collapsed)
 * so a model needs one call per step; on request the page image with its
 * [n] marks (JPEG, capped). structuredContent carries the same as data
 * (success, reason, message, delivered, url, data, page) under one
 * outputSchema common to every tool; isError marks a failed tool.
 *
 * Secrets: --secrets names are listed in the schema of every "text"
 * argument; {"secret": NAME} becomes the value (marked secret, so the session
 * masks it) before the call, and the whole result is masked again at the end.
 * A screenshot is never sent once a secret was typed
 * (fovea_session_shot_data_url refuses).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/secrets.h"
#include "agent/session/session.h"
#include "base/alloc.h"
#include "base/json_get.h"
#include "base/log.h"
#include "mcp/mcp_int.h"

#define SHOT_MAX_B64 (1536 * 1024) /* a page image over this is left out, with a note */

/* ---- the tools ------------------------------------------------------------ */

#define BOX_SCHEMA                                                                                 \
    "{\"type\": \"array\", \"items\": {\"type\": \"number\"}, \"minItems\": 4, \"maxItems\": 4, "  \
    "\"description\": \"[x0, y0, x1, y1] in CSS px of the viewport (the screenshot's "            \
    "coordinates)\"}"
#define LABEL_SCHEMA                                                                               \
    "{\"type\": \"string\", \"maxLength\": 200, \"description\": \"the control's visible text "  \
    "or name\"}"

static const tool_def own_tools[] = {
    {"click_box",
     "Click the control inside a box of the screenshot, named by its label (the snapper picks "
     "the element; when the label fits several controls in the box the answer is ambiguous "
     "with the candidates and nothing is clicked).",
     "{\"type\": \"object\", \"properties\": {\"box\": " BOX_SCHEMA ", \"label\": " LABEL_SCHEMA
     ", \"intent\": {\"type\": \"string\", \"enum\": [\"click\", \"expand\", \"select\"]}}, "
     "\"required\": [\"box\"], \"additionalProperties\": false}",
     TOOL_MUTATES, NULL, NULL},
    {"type_box",
     "Type text into the field inside a box of the screenshot, named by its label (ambiguous "
     "answers as click_box; nothing typed then).",
     "{\"type\": \"object\", \"properties\": {\"box\": " BOX_SCHEMA ", \"label\": " LABEL_SCHEMA
     ", \"text\": {\"type\": \"string\"}}, \"required\": [\"box\", \"text\"], "
     "\"additionalProperties\": false}",
     TOOL_MUTATES, NULL, NULL},
    {"click_point",
     "Click at bare coordinates (CSS px of the viewport), through the click cascade (the "
     "element under the point must receive the press).",
     "{\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"number\", \"minimum\": 0, "
     "\"maximum\": 100000}, \"y\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": "
     "100000}}, \"required\": [\"x\", \"y\"], \"additionalProperties\": false}",
     TOOL_MUTATES, NULL, NULL},
};
#define N_OWN ((int)(sizeof own_tools / sizeof own_tools[0]))

/* One schema for every tool's structuredContent (its "data" is the tool's
 * own output, described in the tool's description), kept short: it is
 * repeated in tools/list for each tool. */
static const char output_schema[] =
    "{\"type\": \"object\", \"properties\": {\"success\": {\"type\": \"boolean\"}, \"reason\": "
    "{\"type\": \"string\"}, \"message\": {\"type\": \"string\"}, \"delivered\": {\"type\": "
    "\"boolean\"}, \"url\": {\"type\": \"string\"}, \"data\": {}, \"page\": {\"type\": "
    "\"object\"}}, \"required\": [\"success\", \"reason\", \"message\"]}";

static const tool_def *own_find(const char *name)
{
    for (int i = 0; i < N_OWN; i++)
        if (strcmp(own_tools[i].name, name) == 0)
            return &own_tools[i];
    return NULL;
}

static int listed(const mcp_config *cfg, const tool_def *t)
{
    if (strcmp(t->name, "done") == 0)
        return 0;
    return !(t->flags & TOOL_OPT_IN) || cfg->allow_scripts;
}

/* The listed tool called exactly name (no task-file aliases), or NULL. */
static const tool_def *find_listed(const mcp_config *cfg, const char *name)
{
    const tool_def *t = own_find(name);
    if (t)
        return t;
    t = tool_find(name);
    return t && strcmp(t->name, name) == 0 && listed(cfg, t) ? t : NULL;
}

static int wants_screenshot_arg(const tool_def *t)
{
    return (t->flags & TOOL_MUTATES) || strcmp(t->name, "get_outline") == 0;
}

/* The permission a tool runs under, for its description. */
static void permission(const mcp_config *cfg, const tool_def *t, char *buf, size_t n)
{
    if (t->flags & TOOL_OPT_IN)
        snprintf(buf, n, " Permission: page scripts (allowed: the server runs with --allow-scripts).");
    else if (strcmp(t->name, "upload_file") == 0)
        snprintf(buf, n, " Permission: %s", cfg->upload_dir
                                                 ? "files inside the server's --upload-dir only."
                                                 : "refused (the server has no --upload-dir).");
    else if (strcmp(t->name, "navigate") == 0 || strcmp(t->name, "open_tab") == 0)
        snprintf(buf, n, " Permission: hosts %.200s.",
                 cfg->allow_hosts ? cfg->allow_hosts : "any (no search engines)");
    else if (t->flags & TOOL_MUTATES)
        snprintf(buf, n, " Answers with the page view.");
    else
        buf[0] = '\0';
}

static cJSON *tool_entry(const mcp_config *cfg, const tool_def *t)
{
    cJSON *e = cJSON_CreateObject();
    cJSON *in = cJSON_Parse(t->schema);
    cJSON *outs = cJSON_Parse(output_schema);
    if (!e || !in || !outs)
        goto fail;
    cJSON *props = cJSON_GetObjectItemCaseSensitive(in, "properties");
    if (!props)
        props = cJSON_AddObjectToObject(in, "properties");
    cJSON *text = cJSON_GetObjectItemCaseSensitive(props, "text");
    int n_sec = mcp_secrets_count(cfg->secrets);
    if (text && n_sec > 0) {
        /* text is also {"secret": NAME}, one of the names the server holds. */
        cJSON *one = cJSON_CreateObject();
        cJSON *alts = cJSON_AddArrayToObject(one, "oneOf");
        cJSON_AddItemToArray(alts, cJSON_DetachItemViaPointer(props, text));
        cJSON *sec = cJSON_CreateObject();
        cJSON_AddStringToObject(sec, "type", "object");
        cJSON *sp = cJSON_AddObjectToObject(sec, "properties");
        cJSON *nm = cJSON_AddObjectToObject(sp, "secret");
        cJSON_AddStringToObject(nm, "type", "string");
        cJSON *en = cJSON_AddArrayToObject(nm, "enum");
        for (int i = 0; i < n_sec; i++)
            cJSON_AddItemToArray(en, cJSON_CreateString(mcp_secrets_name(cfg->secrets, i)));
        cJSON *req = cJSON_AddArrayToObject(sec, "required");
        cJSON_AddItemToArray(req, cJSON_CreateString("secret"));
        cJSON_AddBoolToObject(sec, "additionalProperties", 0);
        cJSON_AddStringToObject(sec, "description",
                                "a secret by name: its value is typed and never shown");
        cJSON_AddItemToArray(alts, sec);
        cJSON_AddItemToObject(props, "text", one);
    }
    if (wants_screenshot_arg(t)) {
        cJSON *sh = cJSON_CreateObject();
        cJSON_AddStringToObject(sh, "type", "boolean");
        cJSON_AddStringToObject(sh, "description", "also return the page image with its [n] marks");
        cJSON_AddItemToObject(props, "screenshot", sh);
    }
    char perm[300], desc[1400];
    permission(cfg, t, perm, sizeof perm);
    snprintf(desc, sizeof desc, "%s%s", t->description, perm);
    cJSON_AddStringToObject(e, "name", t->name);
    cJSON_AddStringToObject(e, "description", desc);
    cJSON_AddItemToObject(e, "inputSchema", in);
    /* The tools that return data say its shape; an action's answer is its
     * text line and the page view (structuredContent has the same members). */
    if (!(t->flags & TOOL_MUTATES))
        cJSON_AddItemToObject(e, "outputSchema", outs);
    else
        cJSON_Delete(outs);
    /* Only what differs from the spec's defaults (readOnly false,
     * destructive true, openWorld true): tools/list is sent to every model. */
    cJSON *ann = cJSON_AddObjectToObject(e, "annotations");
    if (!(t->flags & TOOL_MUTATES))
        cJSON_AddBoolToObject(ann, "readOnlyHint", 1);
    else if (!(t->flags & TOOL_OPT_IN))
        cJSON_AddBoolToObject(ann, "destructiveHint", 0);
    return e;
fail:
    cJSON_Delete(e);
    cJSON_Delete(in);
    cJSON_Delete(outs);
    return NULL;
}

cJSON *mcp__tools_list(const mcp_config *cfg)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < tool_count(); i++) {
        const tool_def *t = tool_at(i);
        if (!listed(cfg, t))
            continue;
        cJSON *e = tool_entry(cfg, t);
        if (!e) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, e);
    }
    for (int i = 0; a && i < N_OWN; i++) {
        cJSON *e = tool_entry(cfg, &own_tools[i]);
        if (!e) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, e);
    }
    return a;
}

/* ---- checking a call before it is queued ------------------------------------ */

void mcp__wipe_json(cJSON *j)
{
    if (!j)
        return;
    if (cJSON_IsString(j) && j->valuestring)
        memset(j->valuestring, 0, strlen(j->valuestring));
    for (cJSON *k = j->child; k; k = k->next)
        mcp__wipe_json(k);
}

static int own_check(const tool_def *t, const cJSON *a, char *why)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, a)
    {
        if (strcmp(k->string, "screenshot") == 0 || strcmp(k->string, "secret") == 0)
            continue;
        int known = strstr(t->schema, k->string) != NULL; /* property names of the schema */
        char pat[80];
        snprintf(pat, sizeof pat, "\"%s\":", k->string);
        known = known && strstr(t->schema, pat) != NULL;
        if (!known) {
            snprintf(why, BASE_ERRBUF_SIZE, "%s: argument '%.60s' is not known", t->name,
                     k->string);
            return MCP_INVALID_PARAMS;
        }
    }
    if (t == &own_tools[2]) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, "x");
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(a, "y");
        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || x->valuedouble < 0 ||
            y->valuedouble < 0 || x->valuedouble > 100000 || y->valuedouble > 100000) {
            snprintf(why, BASE_ERRBUF_SIZE, "click_point: 'x' and 'y' must be numbers 0..100000");
            return MCP_INVALID_PARAMS;
        }
        return 0;
    }
    const cJSON *box = cJSON_GetObjectItemCaseSensitive(a, "box");
    int ok = cJSON_IsArray(box) && cJSON_GetArraySize(box) == 4;
    const cJSON *v;
    cJSON_ArrayForEach(v, box) ok = ok && cJSON_IsNumber(v) && v->valuedouble > -1e5 &&
                                    v->valuedouble < 1e5;
    if (!ok) {
        snprintf(why, BASE_ERRBUF_SIZE, "%s: 'box' must be [x0, y0, x1, y1] numbers", t->name);
        return MCP_INVALID_PARAMS;
    }
    const cJSON *label = cJSON_GetObjectItemCaseSensitive(a, "label");
    if (label && !cJSON_IsString(label)) {
        snprintf(why, BASE_ERRBUF_SIZE, "%s: 'label' must be a string", t->name);
        return MCP_INVALID_PARAMS;
    }
    const cJSON *intent = cJSON_GetObjectItemCaseSensitive(a, "intent");
    if (intent && (!cJSON_IsString(intent) || (strcmp(intent->valuestring, "click") != 0 &&
                                                strcmp(intent->valuestring, "expand") != 0 &&
                                                strcmp(intent->valuestring, "select") != 0))) {
        snprintf(why, BASE_ERRBUF_SIZE, "%s: 'intent' must be click, expand or select", t->name);
        return MCP_INVALID_PARAMS;
    }
    if (t == &own_tools[1] && !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(a, "text"))) {
        snprintf(why, BASE_ERRBUF_SIZE, "type_box: 'text' must be a string or {\"secret\": NAME}");
        return MCP_INVALID_PARAMS;
    }
    return 0;
}

/* upload_file's paths: each must lie in --upload-dir; replaced by its real
 * path. Returns 0, or -1 with why. */
static int check_uploads(const mcp_config *cfg, cJSON *a, char *why)
{
    cJSON *files = cJSON_GetObjectItemCaseSensitive(a, "files");
    cJSON *one[1] = {files};
    int n = cJSON_IsArray(files) ? cJSON_GetArraySize(files) : 1;
    for (int i = 0; i < n; i++) {
        cJSON *f = cJSON_IsArray(files) ? cJSON_GetArrayItem(files, i) : one[0];
        if (!cJSON_IsString(f))
            continue; /* the schema check says what is wrong */
        char real[4096], w[BASE_ERRBUF_SIZE];
        if (mcp_upload_allowed(cfg->upload_dir, f->valuestring, real, sizeof real, w,
                               sizeof w) != 0) {
            snprintf(why, BASE_ERRBUF_SIZE, "upload refused: %.220s", w);
            return -1;
        }
        cJSON_SetValuestring(f, real);
    }
    return 0;
}

int mcp__prepare(const mcp_config *cfg, const char *name, const cJSON *args, cJSON **out,
                 int *secret, char *why)
{
    *secret = 0;
    const tool_def *t = find_listed(cfg, name);
    if (!t) {
        const tool_def *hidden = tool_find(name);
        if (hidden && (hidden->flags & TOOL_OPT_IN) && strcmp(hidden->name, name) == 0)
            snprintf(why, BASE_ERRBUF_SIZE,
                     "unknown tool: %.60s (it runs page scripts: start the server with "
                     "--allow-scripts)",
                     name);
        else
            snprintf(why, BASE_ERRBUF_SIZE, "unknown tool: %.60s (tools/list names them)", name);
        return MCP_INVALID_PARAMS;
    }
    cJSON *a = args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
    if (!a) {
        snprintf(why, BASE_ERRBUF_SIZE, "out of memory");
        return MCP_INTERNAL_ERROR;
    }
    const cJSON *shot = cJSON_GetObjectItemCaseSensitive(a, "screenshot");
    if (shot && (!cJSON_IsBool(shot) || !wants_screenshot_arg(t))) {
        snprintf(why, BASE_ERRBUF_SIZE, "%s: 'screenshot' %s", name,
                 wants_screenshot_arg(t) ? "must be a boolean" : "is not an argument of this tool");
        cJSON_Delete(a);
        return MCP_INVALID_PARAMS;
    }
    cJSON *text = cJSON_GetObjectItemCaseSensitive(a, "text");
    if (cJSON_IsObject(text)) {
        const char *sname = base_json_str(text, "secret", NULL);
        const char *value = mcp_secrets_value(cfg->secrets, sname);
        if (!sname || cJSON_GetArraySize(text) != 1 || !value) {
            snprintf(why, BASE_ERRBUF_SIZE, "%s: 'text' {\"secret\": NAME} names no secret the "
                     "server holds (tools/list lists the names)", name);
            cJSON_Delete(a);
            return MCP_INVALID_PARAMS;
        }
        cJSON_ReplaceItemInObjectCaseSensitive(a, "text", cJSON_CreateString(value));
        *secret = 1;
        /* type_at masks a text marked secret everywhere; type_box types it
         * as a password (no typos, nothing logged). */
        cJSON_DeleteItemFromObjectCaseSensitive(a, "secret");
        if (!t->run || strstr(t->schema, "\"secret\":"))
            cJSON_AddBoolToObject(a, "secret", 1);
    }
    int code = 0;
    if (!t->run) {
        code = own_check(t, a, why);
    } else {
        cJSON *plain = cJSON_Duplicate(a, 1);
        cJSON_DeleteItemFromObjectCaseSensitive(plain, "screenshot");
        if (!plain || tool_args_check(t, plain, why) != BASE_OK)
            code = MCP_INVALID_PARAMS;
        if (*secret)
            mcp__wipe_json(plain);
        cJSON_Delete(plain);
    }
    if (!code && strcmp(t->name, "upload_file") == 0 && check_uploads(cfg, a, why) != 0)
        code = -1; /* answered as a refused tool, not a protocol error */
    if (code && code != -1) {
        if (*secret)
            mcp__wipe_json(a);
        cJSON_Delete(a);
        return code;
    }
    if (code == -1) {
        cJSON_AddStringToObject(a, "\x01refused", why);
        code = 0;
    }
    *out = a;
    return 0;
}

/* ---- running a call ------------------------------------------------------- */

/* The log filter is one per process. With several sessions at once (HTTP),
 * a session's own filter (set at its create, cleared at its destroy) would
 * leave the other sessions' secrets unmasked, so fovea mcp's sessions leave
 * the filter alone (shared_log_filter) and one filter of this file masks
 * every log line through every live session's secret set (what each has
 * typed as a secret, named or not) and through a process-wide set holding
 * every --secrets value. Lock order: the log's filter lock, then masks_mu;
 * the filter is (re)installed with masks_mu released. */
#define MASK_SESSIONS 64

static pthread_mutex_t masks_mu = PTHREAD_MUTEX_INITIALIZER;
static agent_secrets *masks;                     /* every --secrets value */
static agent_secrets *live_masks[MASK_SESSIONS]; /* live sessions' sets */

static void mask_all(char *msg, size_t cap, void *user)
{
    (void)user;
    pthread_mutex_lock(&masks_mu);
    if (masks)
        agent_secrets_log_filter(msg, cap, masks);
    for (int i = 0; i < MASK_SESSIONS; i++)
        if (live_masks[i])
            agent_secrets_log_filter(msg, cap, live_masks[i]);
    pthread_mutex_unlock(&masks_mu);
}

/* Adds (add 1) or removes (add 0) a session's set from the filter, making
 * the process-wide set on first use. The slots outnumber the sessions a
 * server holds (stdio's one, or HTTP's MAX_SESSIONS of 16), so a live
 * session always has one. */
static void mask_logs(const mcp_config *cfg, agent_secrets *sec, int add)
{
    pthread_mutex_lock(&masks_mu);
    if (!masks && agent_secrets_create(&masks, NULL) == BASE_OK) {
        for (int i = 0; i < mcp_secrets_count(cfg->secrets); i++)
            agent_secrets_add(masks,
                              mcp_secrets_value(cfg->secrets, mcp_secrets_name(cfg->secrets, i)));
    }
    int placed = !sec;
    for (int i = 0; sec && i < MASK_SESSIONS && !placed; i++) {
        if (add && !live_masks[i]) {
            live_masks[i] = sec;
            placed = 1;
        } else if (!add && live_masks[i] == sec) {
            live_masks[i] = NULL;
            placed = 1;
        }
    }
    pthread_mutex_unlock(&masks_mu);
    if (add && !placed)
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "mcp: more than %d sessions: a session's typed "
                 "secrets are masked in its answers but not in the log", MASK_SESSIONS);
    base_log_set_filter(mask_all, NULL);
}

static base_err ensure_session(mcp_call_state *st, const mcp_config *cfg)
{
    if (st->s)
        return BASE_OK;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = BASE_OK;
    if (!st->page) {
        e = cfg->pages.open(cfg->pages.user, &st->browser, &st->page, err);
        if (e) {
            snprintf(st->why, sizeof st->why, "browser: %s", err);
            st->page = NULL;
            return e;
        }
    }
    fovea_session_opts o;
    fovea_session_opts_init(&o);
    o.humanize = cfg->humanize;
    o.allow_scripts = cfg->allow_scripts;
    /* The tool layer checks uploads against the same folder (issue 23:
     * agent_upload_resolve); without one it refuses a model's upload. */
    o.upload_dir = cfg->upload_dir;
    o.allow_hosts = cfg->allow_hosts ? cfg->allow_hosts : "*";
    o.overlays = AGENT_OVERLAYS_NONE;
    o.progress = stderr;
    o.first_subgoal = "mcp";
    o.shared_log_filter = 1;
    if ((e = fovea_session_create(st->page, &o, &st->s, err))) {
        snprintf(st->why, sizeof st->why, "session: %s", err);
        return e;
    }
    /* Every value --secrets holds is masked from the start, typed or not. */
    agent_secrets *sec = fovea_session_secrets(st->s);
    for (int i = 0; i < mcp_secrets_count(cfg->secrets); i++)
        agent_secrets_add(sec, mcp_secrets_value(cfg->secrets, mcp_secrets_name(cfg->secrets, i)));
    mask_logs(cfg, sec, 1);
    return BASE_OK;
}

static void drop_hand(mcp_call_state *st)
{
    cascade_snapserve_destroy(st->sv);
    cascade_hand_destroy(st->hand);
    st->sv = NULL;
    st->hand = NULL;
    st->tool_page = NULL;
}

/* The snapserve and hand of the session's current page (a followed popup or
 * a switched tab gets new ones). */
static base_err ensure_hand(mcp_call_state *st, const mcp_config *cfg, char *err)
{
    cdp_page *p = fovea_session_page(st->s);
    if (p == st->tool_page && st->sv && st->hand)
        return BASE_OK;
    drop_hand(st);
    cascade_snapserve_opts so;
    cascade_snapserve_opts_init(&so);
    so.co.humanize = cfg->humanize;
    base_err e = cascade_hand_create(p, &so.co, &st->hand, err);
    if (!e)
        e = cascade_snapserve_create(st->browser, p, &so, &st->sv, err);
    if (e) {
        drop_hand(st);
        return e;
    }
    st->tool_page = p;
    return BASE_OK;
}

void mcp__call_state_fini(mcp_call_state *st, const mcp_config *cfg)
{
    drop_hand(st);
    if (st->s)
        mask_logs(cfg, fovea_session_secrets(st->s), 0); /* before its set is freed */
    fovea_session_destroy(st->s);
    st->s = NULL;
    if (st->page)
        cfg->pages.close(cfg->pages.user, st->page);
    st->page = NULL;
    st->browser = NULL;
}

/* What one call came to, before it becomes MCP content. */
typedef struct outcome {
    int success, delivered;
    char reason[32];
    char message[320];
    cJSON *data;    /* owned */
    const char *text; /* the data as text for the model (borrowed from data), or NULL */
} outcome;

static void set_fail(outcome *o, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fail(outcome *o, const char *reason, const char *fmt, ...)
{
    o->success = 0;
    snprintf(o->reason, sizeof o->reason, "%s", reason);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->message, sizeof o->message, fmt, ap);
    va_end(ap);
}

/* The snapper's answer to a box request, as an outcome. Returns 1 when an
 * element was found (o not yet final), 0 when o is final (ambiguous,
 * abstain, error). */
static int snap_outcome(const cJSON *ans, const char *label, outcome *o)
{
    const char *error = base_json_str(ans, "error", NULL);
    if (error) {
        set_fail(o, "error", "the snapper: %.250s", error);
        return 0;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "ambiguous"))) {
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ans, "candidates"));
        o->success = 0;
        snprintf(o->reason, sizeof o->reason, "ambiguous");
        snprintf(o->message, sizeof o->message,
                 "%d controls in the box fit '%.80s'; nothing done: send a narrower box, or "
                 "click_point on one candidate's point",
                 n, label);
        return 0;
    }
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "found"))) {
        o->success = 0;
        snprintf(o->reason, sizeof o->reason, "not_found");
        snprintf(o->message, sizeof o->message, "nothing in the box is '%.80s' (%.150s)", label,
                 base_json_str(ans, "why", base_json_str(ans, "reason", "abstained")));
        return 0;
    }
    return 1;
}

static void click_outcome(const cJSON *click, outcome *o)
{
    o->success = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(click, "success"));
    o->delivered = cJSON_GetObjectItemCaseSensitive(click, "clicked_at") != NULL;
    snprintf(o->reason, sizeof o->reason, "%s", base_json_str(click, "reason", "error"));
    if (o->success)
        snprintf(o->reason, sizeof o->reason, "ok");
    snprintf(o->message, sizeof o->message, "%s", base_json_str(click, "message", ""));
}

static void run_own(mcp_call_state *st, const mcp_config *cfg, const tool_def *t,
                    const cJSON *a, outcome *o)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (ensure_hand(st, cfg, err)) {
        set_fail(o, "error", "the hand: %.250s", err);
        return;
    }
    if (strcmp(t->name, "click_point") == 0) {
        double x = cJSON_GetObjectItemCaseSensitive(a, "x")->valuedouble;
        double y = cJSON_GetObjectItemCaseSensitive(a, "y")->valuedouble;
        char label[64];
        snprintf(label, sizeof label, "the point (%.0f, %.0f)", x, y);
        cascade_target ct;
        memset(&ct, 0, sizeof ct);
        ct.pt.x = x;
        ct.pt.y = y;
        ct.have_pt = 1;
        ct.label = label;
        cascade_result cr;
        memset(&cr, 0, sizeof cr);
        base_err e = cascade_click(st->hand, &ct, &cr, err);
        o->data = cascade_result_json(&cr);
        if (e && cr.reason != CASCADE_ERROR) {
            set_fail(o, "error", "%.250s", err);
            return;
        }
        click_outcome(o->data, o);
        if (e && !o->message[0])
            snprintf(o->message, sizeof o->message, "%.250s", err);
        return;
    }
    const char *label = base_json_str(a, "label", "");
    cJSON *req = cJSON_CreateObject();
    cJSON_AddItemToObject(req, "box",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(a, "box"), 1));
    cJSON_AddStringToObject(req, "label", label);
    cJSON_AddStringToObject(req, "intent", base_json_str(a, "intent", "click"));
    int typing = strcmp(t->name, "type_box") == 0;
    cJSON_AddBoolToObject(req, "click", !typing);
    int gone = 0;
    cJSON *ans = cascade_snapserve_answer(st->sv, req, &gone);
    cJSON_Delete(req);
    if (!ans) {
        set_fail(o, "error", "%s", "out of memory");
        return;
    }
    o->data = ans;
    if (!snap_outcome(ans, label, o))
        return;
    if (!typing) {
        click_outcome(cJSON_GetObjectItemCaseSensitive(ans, "click"), o);
        return;
    }
    /* type_box: the snapped element, typed into by the hand. */
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(ans, "element");
    const cJSON *pt = cJSON_GetObjectItemCaseSensitive(ans, "point");
    cascade_target ct;
    memset(&ct, 0, sizeof ct);
    ct.xpath = base_json_str(el, "xpath", NULL);
    ct.frame_id = base_json_str(el, "frame", NULL);
    if (cJSON_GetArraySize(pt) == 2) {
        ct.pt.x = cJSON_GetArrayItem(pt, 0)->valuedouble;
        ct.pt.y = cJSON_GetArrayItem(pt, 1)->valuedouble;
        ct.have_pt = 1;
    }
    ct.label = label;
    int password = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "secret"));
    cascade_result cr;
    memset(&cr, 0, sizeof cr);
    base_err e = cascade_type(st->hand, &ct, base_json_str(a, "text", ""), password, &cr, err);
    cJSON *tj = cascade_result_json(&cr);
    if (tj)
        cJSON_AddItemToObject(ans, "type", tj);
    if (e && cr.reason != CASCADE_ERROR) {
        set_fail(o, "error", "%.250s", err);
        return;
    }
    click_outcome(tj, o);
    o->delivered = o->delivered || cr.delivered;
}

/* The page view after an action: get_outline's text (borrowed into *text
 * from the returned data, which the caller frees). */
static cJSON *page_view(mcp_call_state *st, const mcp_config *cfg)
{
    cJSON *a = cJSON_CreateObject();
    if (cfg->page_chars > 0)
        cJSON_AddNumberToObject(a, "max_chars", cfg->page_chars);
    tool_result r;
    tool_call_json(st->s, "get_outline", a, &r);
    cJSON_Delete(a);
    cJSON *d = r.success ? r.data : NULL;
    if (d)
        r.data = NULL;
    tool_result_fini(&r);
    return d;
}

static void add_text(cJSON *content, const char *text)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "type", "text");
    cJSON_AddStringToObject(t, "text", text);
    cJSON_AddItemToArray(content, t);
}

cJSON *mcp__call(mcp_call_state *st, const mcp_config *cfg, const char *name, const cJSON *args)
{
    const tool_def *t = find_listed(cfg, name);
    outcome o;
    memset(&o, 0, sizeof o);
    int shot = cfg->screenshot || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "screenshot"));
    const char *refused = base_json_str(args, "\x01refused", NULL);
    int have_session = 0;
    char url[512] = "";
    cJSON *page = NULL;
    if (refused) {
        set_fail(&o, "blocked", "%.300s", refused);
    } else if (ensure_session(st, cfg) != BASE_OK) {
        set_fail(&o, "error", "%.300s", st->why);
    } else {
        have_session = 1;
        cJSON *a = cJSON_Duplicate(args, 1);
        cJSON_DeleteItemFromObjectCaseSensitive(a, "screenshot");
        if (!t->run) {
            run_own(st, cfg, t, a, &o);
        } else {
            tool_result r;
            tool_call_json(st->s, t->name, a, &r);
            o.success = r.success;
            o.delivered = r.delivered;
            snprintf(o.reason, sizeof o.reason, "%s", tool_reason_name(r.reason));
            snprintf(o.message, sizeof o.message, "%s", r.message);
            o.data = r.data;
            r.data = NULL;
            tool_result_fini(&r);
        }
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "secret")))
            mcp__wipe_json(a);
        cJSON_Delete(a);
        fovea_session_page_url(st->s, url, sizeof url);
        if ((t->flags & TOOL_MUTATES) && (o.success || o.delivered))
            page = page_view(st, cfg);
    }
    cJSON *res = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(res, "content");
    char line[640];
    snprintf(line, sizeof line, "%s %s: %s%s%s%s", name, o.success ? "ok" : o.reason, o.message,
             !o.success && o.delivered ? " (the action reached the page: do not repeat it)" : "",
             url[0] ? " | url: " : "", url);
    add_text(content, line);
    /* A reading's text (the outline, extracted lines) is the answer itself. */
    const char *value = base_json_str(o.data, "value", NULL);
    if (value && value[0])
        add_text(content, value);
    else if (o.data && o.success && !(t->flags & TOOL_MUTATES)) {
        char *dj = cJSON_PrintUnformatted(o.data);
        if (dj)
            add_text(content, dj);
        cJSON_free(dj);
    }
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddBoolToObject(sc, "success", o.success);
    cJSON_AddStringToObject(sc, "reason", o.success ? "ok" : o.reason);
    cJSON_AddStringToObject(sc, "message", o.message);
    cJSON_AddBoolToObject(sc, "delivered", o.delivered);
    cJSON_AddStringToObject(sc, "url", url);
    if (o.data)
        cJSON_AddItemToObject(sc, "data", o.data);
    o.data = NULL;
    if (page) {
        const char *pv = base_json_str(page, "value", "");
        char head[600];
        snprintf(head, sizeof head, "Page view of %s:\n", url);
        size_t n = strlen(head) + strlen(pv) + 1;
        char *full = base_malloc(n);
        if (full) {
            snprintf(full, n, "%s%s", head, pv);
            add_text(content, full);
            base_free(full);
        }
        /* The view's text goes once, as content; here its measures. */
        cJSON_DeleteItemFromObjectCaseSensitive(page, "value");
        cJSON_AddItemToObject(sc, "page", page);
    }
    if (shot && have_session) {
        char *du = fovea_session_shot_data_url(st->s);
        const char *b64 = du ? strchr(du, ',') : NULL;
        if (!b64)
            add_text(content, "(no page image: a secret was typed in this session, or the "
                              "capture failed)");
        else if (strlen(b64 + 1) > SHOT_MAX_B64)
            add_text(content, "(page image left out: over 1.5 MB)");
        else {
            cJSON *img = cJSON_CreateObject();
            cJSON_AddStringToObject(img, "type", "image");
            cJSON_AddStringToObject(img, "data", b64 + 1);
            cJSON_AddStringToObject(img, "mimeType", "image/jpeg");
            cJSON_AddItemToArray(content, img);
        }
        base_free(du);
    }
    cJSON_AddItemToObject(res, "structuredContent", sc);
    cJSON_AddBoolToObject(res, "isError", !o.success);
    /* Everything once more through the session's masks (the hand's and the
     * snapper's answers did not pass tool_call). */
    if (have_session)
        agent_secrets_scrub_json(fovea_session_secrets(st->s), res);
    base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "mcp: %s %s", name, o.success ? "ok" : o.reason);
    return res;
}

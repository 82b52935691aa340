/* model/llm.c: the agent's chat-completions client (see llm.h).
 *
 * One call: check the request, estimate its tokens and refuse it before
 * anything is sent when the budget would pass its limit; build the body
 * (model, messages, tools, tool_choice, response_format); POST it through
 * model/endpoint.c (retries, Retry-After, deadline, cancel, key
 * scrubbing); charge the budget with the usage the server reports (the
 * estimate when it reports none); parse the reply (llm_parse.c); check each
 * tool call against the tools that were sent and the JSON answer against
 * its schema with the tool layer's checker (agent/session/tool.c), so that the
 * model is told the same words a task file's author would be.
 *
 * The schema fallback: response_format is an extension several servers
 * lack (older vLLM, llama.cpp and Ollama builds, proxies). When a request
 * carrying it is refused with 400/422 and the server's message names it,
 * the client remembers that for its endpoint and sends the same request
 * again at once without it, the schema written into the system message.
 * Every later call goes straight to the fallback. A 400 that does not name
 * response_format is the caller's error and is reported as it is.
 */
#include "model/llm.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_schema.h"
#include "base/alloc.h"
#include "base/env.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "model/endpoint.h"
#include "model/context.h"
#include "model/normalize.h"
#include "model/sse.h"
#include "model/tokens.h"

#define BODY_MAX (8u << 20)
#define CTX_ASK_MS 2000L    /* each context-window question */
#define CTX_ANSWER_MIN 256L /* tokens an answer needs at least */

struct model_llm {
    model_endpoint *ep;
    char *model[MODEL_LLM_ROLE_COUNT];
    int no_schema; /* the endpoint refused response_format once */
    unsigned wire; /* MODEL_WIRE_* fallbacks the endpoint asked for (400s naming the cause) */
    int stream;    /* ask for SSE (config, until the endpoint refuses it) */
    int call_limit_ms;
    long ctx;      /* the context window: > 0 known, 0 not asked yet, -1 unknown */
    model_context_src ctx_src;
    char *base_url, *key; /* for asking the window */
    char *last_prompt[MODEL_LLM_ROLE_COUNT]; /* each role's previous prompt (prompt_text) */
};

const char *model_llm_role_name(model_llm_role r)
{
    static const char *const names[] = {"worker", "planner", "orchestrator"};
    return r >= 0 && r < MODEL_LLM_ROLE_COUNT ? names[r] : "?";
}

/* ---- configuration --------------------------------------------------------------- */

void model_llm_config_init(model_llm_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->model = "gpt-4o-mini";
    c->timeout_ms = 120000;
    c->max_retries = 3;
    c->first_byte_ms = 90000;
    c->stall_ms = 30000;
    c->call_limit_ms = 240000;
    c->stream = 1;
}

base_err model_llm_config_from_env(model_llm_config *c, char *err)
{
    if (!c)
        return base_errf(err, BASE_EINVAL, "model config: NULL argument");
    model_llm_config t = *c;
    t.base_url = base_env("FOVEA_LLM_BASE_URL", "OPENAI_BASE_URL");
    if (!t.base_url)
        return base_errf(err, BASE_ENOTFOUND,
                         "no model endpoint configured (set FOVEA_LLM_BASE_URL or "
                         "OPENAI_BASE_URL, and FOVEA_LLM_MODEL)");
    t.api_key = base_env("FOVEA_LLM_API_KEY", "OPENAI_API_KEY");
    const char *m = base_env("FOVEA_LLM_MODEL", "OPENAI_MODEL");
    if (m)
        t.model = m;
    t.planner_model = base_env("FOVEA_PLANNER_MODEL", NULL);
    t.orchestrator_model = base_env("FOVEA_ORCHESTRATOR_MODEL", NULL);
    base_err e = base_env_int("FOVEA_LLM_TIMEOUT_MS", 0, 10000000, &t.timeout_ms, err);
    if (!e)
        e = base_env_int("FOVEA_LLM_MAX_RETRIES", 0, 10000000, &t.max_retries, err);
    /* The byte timers and the call's limit, in seconds. */
    static const char *const secs[] = {"FOVEA_LLM_FIRST_BYTE_S", "FOVEA_LLM_STALL_S",
                                       "FOVEA_LLM_CALL_LIMIT_S"};
    int *dst[] = {&t.first_byte_ms, &t.stall_ms, &t.call_limit_ms};
    for (int i = 0; i < 3 && !e; i++) {
        int v = *dst[i] / 1000;
        e = base_env_int(secs[i], i == 2 ? 1 : 0, 86400, &v, err);
        if (!e)
            *dst[i] = v * 1000;
    }
    if (!e)
        e = base_env_int("FOVEA_LLM_STREAM", 0, 1, &t.stream, err);
    int ctx = (int)t.context_tokens;
    if (!e)
        e = base_env_int("FOVEA_LLM_CONTEXT", -1, 100000000, &ctx, err);
    if (!e)
        t.context_tokens = ctx;
    if (e)
        return e;
    *c = t;
    return BASE_OK;
}

/* ---- life cycle ------------------------------------------------------------------ */

void model_llm_destroy(model_llm *l)
{
    if (!l)
        return;
    model_endpoint_destroy(l->ep);
    if (l->key) {
        volatile char *k = l->key;
        while (*k)
            *k++ = 0;
    }
    base_free(l->key);
    base_free(l->base_url);
    for (int i = 0; i < MODEL_LLM_ROLE_COUNT; i++) {
        base_free(l->model[i]);
        base_free(l->last_prompt[i]);
    }
    base_free(l);
}

base_err model_llm_create(const model_llm_config *c, model_llm **out, char *err)
{
    if (!c || !out)
        return base_errf(err, BASE_EINVAL, "model client: NULL argument");
    if (!c->model || !c->model[0])
        return base_errf(err, BASE_EINVAL, "model client: no model name (FOVEA_LLM_MODEL)");
    model_llm *l = base_calloc(1, sizeof *l);
    if (!l)
        return base_errf(err, BASE_ENOMEM, "model client: out of memory");
    const char *m[MODEL_LLM_ROLE_COUNT] = {c->model, c->planner_model, c->orchestrator_model};
    for (int i = 0; i < MODEL_LLM_ROLE_COUNT; i++) {
        l->model[i] = base_strdup(m[i] && m[i][0] ? m[i] : c->model);
        if (!l->model[i]) {
            model_llm_destroy(l);
            return base_errf(err, BASE_ENOMEM, "model client: out of memory");
        }
    }
    model_endpoint_config ec;
    memset(&ec, 0, sizeof ec);
    ec.base_url = c->base_url;
    ec.path = "/chat/completions";
    ec.api_key = c->api_key;
    ec.what = "model endpoint";
    ec.budget = "call";
    ec.log_tag = "llm";
    ec.log_comp = BASE_LOG_AGENT;
    ec.timeout_ms = c->timeout_ms;
    ec.max_retries = c->max_retries;
    ec.max_response = BODY_MAX;
    ec.stop_on_interrupt = 1;
    ec.first_byte_ms = c->first_byte_ms;
    ec.stall_ms = c->stall_ms;
    l->stream = c->stream != 0;
    l->call_limit_ms = c->call_limit_ms > 0 ? c->call_limit_ms : 240000;
    l->ctx = c->context_tokens > 0 ? c->context_tokens : c->context_tokens < 0 ? -1 : 0;
    l->base_url = base_strdup(c->base_url ? c->base_url : "");
    l->key = c->api_key ? base_strdup(c->api_key) : NULL;
    if (!l->base_url || (c->api_key && !l->key)) {
        model_llm_destroy(l);
        return base_errf(err, BASE_ENOMEM, "model client: out of memory");
    }
    base_err e = model_endpoint_create(&ec, &l->ep, err);
    if (e) {
        model_llm_destroy(l);
        return e;
    }
    model_endpoint_log(l->ep, BASE_LOG_DEBUG, "endpoint %s models %s/%s/%s key %s",
                      model_endpoint_shown(l->ep), l->model[0], l->model[1], l->model[2],
                      c->api_key && c->api_key[0] ? "set" : "unset");
    *out = l;
    return BASE_OK;
}

void model_llm_cancel(model_llm *l, int on)
{
    if (l)
        model_endpoint_cancel(l->ep, on);
}

const char *model_llm_model(const model_llm *l, model_llm_role r)
{
    return l->model[r >= 0 && r < MODEL_LLM_ROLE_COUNT ? r : 0];
}

int model_llm_schema_fallback(const model_llm *l)
{
    return l->no_schema;
}

unsigned model_llm_wire_fallbacks(const model_llm *l)
{
    return l->wire;
}

/* ---- messages -------------------------------------------------------------------- */

base_err model_llm_add_message(cJSON *messages, const char *role, const char *text)
{
    if (!cJSON_IsArray(messages) || !role || !text)
        return BASE_EINVAL;
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "role", role) ||
        !cJSON_AddStringToObject(m, "content", text)) {
        cJSON_Delete(m);
        return BASE_ENOMEM;
    }
    cJSON_AddItemToArray(messages, m);
    return BASE_OK;
}

base_err model_llm_add_tool_result(cJSON *messages, const char *id, const char *text)
{
    if (!cJSON_IsArray(messages) || !id || !text)
        return BASE_EINVAL;
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "role", "tool") ||
        !cJSON_AddStringToObject(m, "tool_call_id", id) ||
        !cJSON_AddStringToObject(m, "content", text)) {
        cJSON_Delete(m);
        return BASE_ENOMEM;
    }
    cJSON_AddItemToArray(messages, m);
    return BASE_OK;
}

base_err model_llm_add_reply(cJSON *messages, const model_llm_reply *r)
{
    if (!cJSON_IsArray(messages) || !r || !r->message)
        return BASE_EINVAL;
    cJSON *m = cJSON_Duplicate(r->message, 1);
    if (!m)
        return BASE_ENOMEM;
    cJSON_AddItemToArray(messages, m);
    return BASE_OK;
}

/* ---- the request ----------------------------------------------------------------- */

/* Checks the request's shape before anything is estimated or sent. */
static base_err check_request(const model_llm_request *q, char *err)
{
    if (!cJSON_IsArray(q->messages) || cJSON_GetArraySize(q->messages) == 0)
        return base_errf(err, BASE_EINVAL, "model request: no messages");
    const cJSON *m;
    int i = 0;
    cJSON_ArrayForEach(m, q->messages)
    {
        const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
        if (!cJSON_IsString(role) || !role->valuestring)
            return base_errf(err, BASE_EINVAL, "model request: messages[%d] has no role", i);
        i++;
    }
    if (q->tools && !cJSON_IsArray(q->tools))
        return base_errf(err, BASE_EINVAL, "model request: tools must be an array");
    if (q->schema && !cJSON_IsObject(q->schema))
        return base_errf(err, BASE_EINVAL, "model request: the answer schema must be an object");
    if (q->role < 0 || q->role >= MODEL_LLM_ROLE_COUNT)
        return base_errf(err, BASE_EINVAL, "model request: unknown role %d", (int)q->role);
    return BASE_OK;
}

/* The fallback's messages: a copy with the schema written into the system
 * message (appended to the first one, so the prefix stays byte-stable for
 * prompt caches, or a new first one). */
static cJSON *messages_with_schema(const cJSON *messages, const cJSON *schema)
{
    char *sch = cJSON_PrintUnformatted(schema);
    cJSON *copy = sch ? cJSON_Duplicate(messages, 1) : NULL;
    base_buf b;
    base_buf_init(&b, BODY_MAX);
    cJSON *first = copy ? cJSON_GetArrayItem(copy, 0) : NULL;
    const cJSON *role = first ? cJSON_GetObjectItemCaseSensitive(first, "role") : NULL;
    const cJSON *content = first ? cJSON_GetObjectItemCaseSensitive(first, "content") : NULL;
    int into_first = cJSON_IsString(role) && strcmp(role->valuestring, "system") == 0 &&
                     cJSON_IsString(content);
    if (!copy ||
        (into_first && (base_buf_append_str(&b, content->valuestring) ||
                        base_buf_append_str(&b, "\n\n"))) ||
        base_buf_printf(&b,
                        "Answer with exactly one JSON object that follows this JSON Schema, "
                        "and nothing else: no prose, no code fences.\n%s",
                        sch) != BASE_OK)
        goto fail;
    cJSON *text = cJSON_CreateString((const char *)b.data);
    if (!text)
        goto fail;
    if (into_first) {
        cJSON_ReplaceItemInObjectCaseSensitive(first, "content", text);
    } else {
        cJSON *sys = cJSON_CreateObject();
        if (!sys || !cJSON_AddStringToObject(sys, "role", "system")) {
            cJSON_Delete(sys);
            cJSON_Delete(text);
            goto fail;
        }
        cJSON_AddItemToObject(sys, "content", text);
        cJSON_InsertItemInArray(copy, 0, sys);
    }
    base_buf_fini(&b);
    free(sch);
    return copy;
fail:
    base_buf_fini(&b);
    free(sch);
    cJSON_Delete(copy);
    return NULL;
}

/* The request body (a cJSON_Print string, free()). messages/tools/schema
 * are referenced, not copied, while the body is printed. */
static char *build_body(const model_llm_request *q, const char *model, const cJSON *messages,
                        const cJSON *tools, int with_format, long max_tokens, int stream)
{
    cJSON *root = cJSON_CreateObject();
    char *s = NULL;
    if (!root || !cJSON_AddStringToObject(root, "model", model) ||
        !cJSON_AddItemReferenceToObject(root, "messages", (cJSON *)(uintptr_t)messages))
        goto done;
    if (tools && cJSON_GetArraySize(tools) > 0) {
        if (!cJSON_AddItemReferenceToObject(root, "tools", (cJSON *)(uintptr_t)tools) ||
            !cJSON_AddStringToObject(root, "tool_choice", q->tool_choice ? q->tool_choice : "auto"))
            goto done;
    }
    if (q->schema && with_format) {
        cJSON *rf = cJSON_AddObjectToObject(root, "response_format");
        cJSON *js = rf ? cJSON_AddObjectToObject(rf, "json_schema") : NULL;
        if (!js || !cJSON_AddStringToObject(rf, "type", "json_schema") ||
            !cJSON_AddStringToObject(js, "name", q->schema_name ? q->schema_name : "answer") ||
            !cJSON_AddItemReferenceToObject(js, "schema", (cJSON *)(uintptr_t)q->schema))
            goto done;
    }
    if (max_tokens > 0 && !cJSON_AddNumberToObject(root, "max_tokens", (double)max_tokens))
        goto done;
    if (q->temperature >= 0 && !cJSON_AddNumberToObject(root, "temperature", q->temperature))
        goto done;
    if (stream) {
        /* Streamed, so that bytes keep coming while the model writes (the
         * stall timer tells a dead server from a slow one), with the usage
         * in the last chunk. */
        cJSON *so = cJSON_AddObjectToObject(root, "stream_options");
        if (!cJSON_AddTrueToObject(root, "stream") || !so ||
            !cJSON_AddTrueToObject(so, "include_usage"))
            goto done;
    } else if (!cJSON_AddFalseToObject(root, "stream")) {
        goto done;
    }
    s = cJSON_PrintUnformatted(root);
done:
    cJSON_Delete(root);
    return s;
}

/* The prompt as a prompt cache meets it: the tools, then the messages (the
 * order in which the hosted APIs and the chat templates vLLM and llama.cpp
 * run put them), as the JSON text sent. base_malloc'd; NULL when out of
 * memory. */
static char *prompt_text(const cJSON *tools, const cJSON *msgs)
{
    char *t = tools ? cJSON_PrintUnformatted(tools) : NULL;
    char *m = cJSON_PrintUnformatted(msgs);
    size_t nt = t ? strlen(t) : 0, nm = m ? strlen(m) : 0;
    char *p = (m && (t || !tools)) ? base_malloc(nt + nm + 1) : NULL;
    if (p) {
        if (nt)
            memcpy(p, t, nt);
        memcpy(p + nt, m, nm + 1);
    }
    free(t);
    free(m);
    return p;
}

/* This request's prompt figures (model_llm_reply: sent_tokens, prompt_bytes,
 * prefix_bytes, the last against role's previous prompt) into r, and the
 * prompt text into *text (base_malloc'd, NULL when out of memory). Out of memory leaves the byte figures unknown
 * (-1) and never fails the call. */
static void prompt_figures(const model_llm *l, model_llm_role role, const cJSON *tools,
                           const cJSON *msgs, const cJSON *schema, model_llm_reply *r, char **text)
{
    r->sent_tokens = model_budget_estimate(NULL, msgs, tools, schema);
    r->prompt_bytes = -1;
    r->prefix_bytes = -1;
    *text = prompt_text(tools, msgs);
    const char *p = *text;
    if (!p)
        return;
    r->prompt_bytes = (long)strlen(p);
    const char *q = l->last_prompt[role];
    if (q) {
        long k = 0;
        while (p[k] && p[k] == q[k])
            k++;
        r->prefix_bytes = k;
    }
}

/* The start of the last response body, lower-cased, into low (n bytes),
 * for reading why a server refused a request. */
static void lower_body(const model_endpoint *ep, char *low, size_t n)
{
    size_t len = 0;
    const char *body = model_endpoint_body(ep, &len);
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < n; i++)
        low[k++] = (char)tolower((unsigned char)body[i]);
    low[k] = '\0';
}

/* Did the server refuse response_format? A 400/422 whose message names it. */
static int refused_format(const model_endpoint *ep, const perc_post_info *pi)
{
    if (pi->status != 400 && pi->status != 422)
        return 0;
    char low[2048];
    lower_body(ep, low, sizeof low);
    return strstr(low, "response_format") || strstr(low, "json_schema") ||
           strstr(low, "response format") || strstr(low, "responseformat");
}

/* Which wire fallback a refusal asks for (0 = none): a 4xx/5xx whose
 * message says the server has no tool calling (Ollama "does not support
 * tools", vLLM "auto" tool choice requires --enable-auto-tool-choice,
 * llama.cpp "tools param requires --jinja") or its template no system role
 * (Gemma's "System role not supported"). Flags already on are not offered
 * again. */
static unsigned refused_wire(const model_endpoint *ep, const perc_post_info *pi, unsigned have,
                             int with_tools)
{
    if (pi->status < 400 || pi->status == 401 || pi->status == 403 || pi->status == 429)
        return 0;
    char low[2048];
    lower_body(ep, low, sizeof low);
    static const char *const no_tools[] = {"does not support tools", "tool choice requires",
                                           "enable-auto-tool-choice", "tools param requires",
                                           "tools are not supported", "tool calling is not",
                                           "tool_choice is not", "does not support tool"};
    static const char *const no_system[] = {"system role not supported",
                                            "system role is not supported",
                                            "system messages are not supported",
                                            "system message is not supported"};
    if (with_tools && !(have & MODEL_WIRE_TOOLS_IN_TEXT))
        for (size_t i = 0; i < sizeof no_tools / sizeof no_tools[0]; i++)
            if (strstr(low, no_tools[i]))
                return MODEL_WIRE_TOOLS_IN_TEXT;
    if (!(have & MODEL_WIRE_SYSTEM_IN_USER))
        for (size_t i = 0; i < sizeof no_system / sizeof no_system[0]; i++)
            if (strstr(low, no_system[i]))
                return MODEL_WIRE_SYSTEM_IN_USER;
    return 0;
}

/* Did the server refuse stream or stream_options? A 400/422 naming it. */
static int refused_stream(const model_endpoint *ep, const perc_post_info *pi)
{
    if (pi->status != 400 && pi->status != 422)
        return 0;
    char low[2048];
    lower_body(ep, low, sizeof low);
    return strstr(low, "stream_options") ||
           (strstr(low, "stream") && (strstr(low, "not supported") || strstr(low, "unsupported")));
}

/* The tools-in-text fallback's reply: the calls the model wrote as text
 * moved into message.tool_calls, so the one reply parser reads them. A new
 * body (free()), or NULL when there is nothing to move or no memory. */
static char *calls_into_body(const char *body, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(body, len);
    cJSON *msg = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "choices"), 0), "message");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
    cJSON *calls = NULL;
    char *rest = NULL, *out = NULL;
    if (!cJSON_IsString(content) || cJSON_GetObjectItemCaseSensitive(msg, "tool_calls") ||
        model_wire_calls_from_text(content->valuestring, &calls, &rest, NULL) || !calls)
        goto done;
    cJSON *rs = rest ? cJSON_CreateString(rest) : cJSON_CreateNull();
    if (!rs)
        goto done;
    cJSON_ReplaceItemInObjectCaseSensitive(msg, "content", rs);
    cJSON_AddItemToObject(msg, "tool_calls", calls);
    calls = NULL;
    out = cJSON_PrintUnformatted(root);
done:
    cJSON_Delete(calls);
    base_free(rest);
    cJSON_Delete(root);
    return out;
}

/* The parameters schema of tool name in tools, or NULL when absent. */
static const cJSON *find_tool(const cJSON *tools, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, tools)
    {
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(fn, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) {
            const cJSON *p = cJSON_GetObjectItemCaseSensitive(fn, "parameters");
            return p ? p : fn;
        }
    }
    return NULL;
}

/* Checks one tool call against the tools that were sent: the request's
 * checker when it has one (the tool layer's: schema + the tool's own
 * checks), else the sent schema. Sets c->error and c->why. */
static void check_call(const model_llm_request *q, model_llm_call *c)
{
    if (c->error)
        return;
    const cJSON *tools = q->tools;
    const cJSON *params = tools ? find_tool(tools, c->name) : NULL;
    if (!params) {
        char known[200] = "";
        size_t k = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, tools)
        {
            const cJSON *n =
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "function"), "name");
            if (cJSON_IsString(n) && k < sizeof known)
                k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", k ? ", " : "",
                                      n->valuestring);
        }
        c->error = BASE_ENOTFOUND;
        snprintf(c->why, sizeof c->why, "unknown tool '%.60s' (the tools are: %.150s)", c->name,
                 known[0] ? known : "none");
        goto bad;
    }
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e;
    if (q->check_call)
        e = q->check_call(c->name, params, c->args, why, q->check_user);
    else
        e = base_json_schema_check(c->name, params, c->args, NULL, why);
    if (!e)
        return;
    c->error = e;
    snprintf(c->why, sizeof c->why, "%s", why[0] ? why : base_strerror(e));
bad:
    cJSON_Delete(c->args);
    c->args = NULL;
}

/* The estimated tokens of what the model wrote (text, reasoning, calls),
 * for a server that reports no completion tokens. */
static long reply_estimate(const model_llm_reply *r)
{
    size_t n = 0;
    if (r->content)
        n += model_tokens_text(r->content, strlen(r->content));
    if (r->reasoning)
        n += model_tokens_text(r->reasoning, strlen(r->reasoning));
    for (int i = 0; i < r->n_calls; i++) {
        n += model_tokens_text(r->calls[i].name, strlen(r->calls[i].name));
        n += model_tokens_text(r->calls[i].arguments, strlen(r->calls[i].arguments));
    }
    return n > 0 ? (long)n : 1;
}

/* Reads and checks the JSON answer into r->json. */
static base_err read_answer(const model_llm_request *q, int fallback, model_llm_reply *r,
                            char *err)
{
    const char *who = model_llm_role_name(q->role);
    if (!r->content || !r->content[0]) {
        if (r->n_calls > 0)
            return BASE_OK; /* it chose to act instead of answering */
        return base_errf(err, BASE_EPROTO, "the %s's answer is empty%s", who,
                         r->truncated ? " (cut off by the token limit)" : "");
    }
    char perr[BASE_ERRBUF_SIZE] = "";
    cJSON *v = NULL;
    size_t n = strlen(r->content);
    /* A server that enforced the schema sends bare JSON; anything else is
     * text with JSON somewhere in it. */
    v = cJSON_ParseWithLength(r->content, n);
    if (!cJSON_IsObject(v)) {
        cJSON_Delete(v);
        v = NULL;
        base_err e = model_llm_json_from_text(r->content, n, &v, perr);
        if (e)
            return base_errf(err, e, "the %s's answer: %s%s", who, perr,
                             r->truncated ? " (cut off by the token limit)" : "");
        r->json_in_text = 1;
    }
    r->json_in_text |= fallback;
    base_err e = base_json_schema_check(who, q->schema, v, NULL, perr);
    if (e) {
        cJSON_Delete(v);
        return base_errf(err, e == BASE_ENOMEM ? e : BASE_EPROTO,
                         "the %s's answer does not follow its schema: %s", who, perr);
    }
    r->json = v;
    return BASE_OK;
}

base_err model_llm_chat(model_llm *l, const model_llm_request *q, model_llm_reply *out, char *err)
{
    if (!l || !q || !out)
        return base_errf(err, BASE_EINVAL, "model request: NULL argument");
    base_err e = check_request(q, err);
    if (e)
        return e;
    const char *model = q->model && q->model[0] ? q->model : l->model[q->role];
    double t0 = base_monotime_ms();
    if (l->ctx == 0) {
        /* Asked once per client, before the first request. */
        long ctx = 0;
        model_context_discover(l->base_url, l->key, model, CTX_ASK_MS, &ctx, &l->ctx_src, NULL);
        l->ctx = ctx > 0 ? ctx : -1;
        if (ctx > 0)
            model_endpoint_log(l->ep, BASE_LOG_INFO, "context window %ld tokens (%s)", ctx,
                               model_context_src_name(l->ctx_src));
    }
    /* Every call is bounded: by the step's deadline, or by the client's own
     * limit; retries and their waits count against the same one. */
    double deadline = q->deadline_ms > 0 ? q->deadline_ms : t0 + l->call_limit_ms;
    perc_post_info total;
    memset(&total, 0, sizeof total);
    for (;;) {
        int fallback = q->schema && l->no_schema;
        cJSON *alt = fallback ? messages_with_schema(q->messages, q->schema) : NULL;
        if (fallback && !alt)
            return base_errf(err, BASE_ENOMEM, "model request: out of memory");
        /* Every request in the one shape all chat templates take
         * (model/normalize.h), with the fallbacks this endpoint asked for. */
        unsigned wire = l->wire;
        cJSON *wmsgs = NULL, *wtools = NULL;
        char nerr[BASE_ERRBUF_SIZE] = "";
        e = model_wire_messages(alt ? alt : q->messages, q->tools, wire, &wmsgs, nerr);
        if (!e && q->tools && !(wire & MODEL_WIRE_TOOLS_IN_TEXT))
            e = model_wire_tools(q->tools, &wtools, nerr);
        cJSON_Delete(alt);
        alt = NULL;
        if (e) {
            cJSON_Delete(wmsgs);
            return base_errf(err, e, "%s", nerr);
        }
        const cJSON *msgs = wmsgs;
        /* The budget first: a refused call sends nothing. */
        long est = model_budget_estimate(q->budget, msgs, wtools, fallback ? NULL : q->schema);
        e = model_budget_check(q->budget, est, err);
        /* The reply may use what the budget has left after this prompt, no
         * more: a server told max_tokens stops there, where one left to its
         * default could spend many times the budget in one answer. */
        long max_out = q->max_tokens > 0 ? q->max_tokens : 0;
        if (!e && q->budget && q->budget->limit > 0) {
            long left = q->budget->limit - q->budget->spent - est;
            left = left < 1 ? 1 : left;
            max_out = max_out > 0 && max_out < left ? max_out : left;
        }
        /* The server's context window, where it told: the prompt must fit
         * with room for an answer, which is cut to what is left. */
        if (!e && l->ctx > 0) {
            long room = l->ctx - est;
            if (room < CTX_ANSWER_MIN)
                e = model_endpoint_errf(
                    l->ep, err, BASE_ETOOBIG,
                    "model request: about %ld tokens, and the server's context window is %ld "
                    "(%s)%s; nothing was sent%s",
                    est, l->ctx, l->ctx_src ? model_context_src_name(l->ctx_src) : "configured",
                    room > 0 ? " with too little room for an answer" : "",
                    l->ctx_src == MODEL_CONTEXT_OLLAMA
                        ? ": raise Ollama's num_ctx (OLLAMA_CONTEXT_LENGTH on the server, or "
                          "PARAMETER num_ctx in a Modelfile)"
                        : ": serve the model with a longer context (vLLM --max-model-len, "
                          "llama-server -c) or set FOVEA_LLM_CONTEXT");
            else
                max_out = max_out > 0 && max_out < room ? max_out : room;
        }
        char *body = e ? NULL : build_body(q, model, msgs, wtools, !fallback, max_out, l->stream);
        model_llm_reply fig;
        memset(&fig, 0, sizeof fig);
        if (body) {
            /* The previous prompt is the last one sent, answered or not. */
            char *ptext = NULL;
            prompt_figures(l, q->role, wtools, msgs, fallback ? NULL : q->schema, &fig, &ptext);
            if (ptext) {
                base_free(l->last_prompt[q->role]);
                l->last_prompt[q->role] = ptext;
            }
        }
        cJSON_Delete(wmsgs);
        cJSON_Delete(wtools);
        if (!e && !body)
            e = base_errf(err, BASE_ENOMEM, "model request: out of memory");
        if (e)
            return e;
        size_t n = strlen(body);
        model_endpoint_log(l->ep, BASE_LOG_DEBUG, "POST %s %s model %s (%zu bytes, ~%ld tokens%s)",
                          model_endpoint_shown(l->ep), model_llm_role_name(q->role), model, n, est,
                          fallback ? ", schema in text" : "");
        perc_post_info pi;
        char perr[BASE_ERRBUF_SIZE] = "";
        e = model_endpoint_post(l->ep, body, n, deadline, &pi, perr);
        free(body);
        total.attempts += pi.attempts;
        total.transfer_ms += pi.transfer_ms;
        total.wait_ms += pi.wait_ms;
        if (e && q->schema && !fallback && refused_format(l->ep, &pi)) {
            /* Remembered for this endpoint; the same request again at once. */
            l->no_schema = 1;
            model_endpoint_log(l->ep, BASE_LOG_INFO,
                              "the endpoint refused response_format (%s); JSON answers come as "
                              "text from now on",
                              perr);
            continue;
        }
        unsigned more = e ? refused_wire(l->ep, &pi, wire, q->tools != NULL) : 0;
        if (more) {
            /* Remembered for this endpoint; the same request again at once,
             * in the form the server asked for. */
            l->wire |= more;
            model_endpoint_log(l->ep, BASE_LOG_INFO, "the endpoint refused %s (%s); %s from now on",
                               more == MODEL_WIRE_TOOLS_IN_TEXT ? "tool calling" : "a system role",
                               perr,
                               more == MODEL_WIRE_TOOLS_IN_TEXT
                                   ? "tools are described in text and calls read from the reply"
                                   : "the system text opens the first user message");
            continue;
        }
        if (e && l->stream && refused_stream(l->ep, &pi)) {
            l->stream = 0;
            model_endpoint_log(l->ep, BASE_LOG_INFO,
                               "the endpoint refused streaming (%s); one JSON body from now on",
                               perr);
            continue;
        }
        if (e)
            return base_errf(err, e, "%s", perr);
        size_t len = 0;
        const char *resp = model_endpoint_body(l->ep, &len);
        char *assembled = NULL;
        if (model_sse_is_stream(resp, len)) {
            e = model_sse_assemble(resp, len, &assembled, perr);
            if (e) {
                model_budget_usage none = {0, 0, 0, 0};
                model_budget_charge(q->budget, &none, est);
                return model_endpoint_errf(l->ep, err, e, "model endpoint: %s (%s)", perr,
                                           model_endpoint_shown(l->ep));
            }
            resp = assembled;
            len = strlen(assembled);
        }
        char *moved = (wire & MODEL_WIRE_TOOLS_IN_TEXT) ? calls_into_body(resp, len) : NULL;
        if (moved) {
            resp = moved;
            len = strlen(moved);
        }
        model_llm_reply r;
        e = model_llm_parse_reply(resp, len, &r, perr);
        free(moved);
        base_free(assembled);
        if (e) {
            /* The server worked on it: what it cost is unknown, so the
             * estimate is charged. */
            model_budget_usage none = {0, 0, 0, 0};
            model_budget_charge(q->budget, &none, est);
            return model_endpoint_errf(l->ep, err, e, "model endpoint: %s (%s)", perr,
                                      model_endpoint_shown(l->ep));
        }
        r.estimate = est;
        r.sent_tokens = fig.sent_tokens;
        r.prompt_bytes = fig.prompt_bytes;
        r.prefix_bytes = fig.prefix_bytes;
        /* A usage of 0 (or one the parser could not read) is not a
         * measurement: the estimate is charged, so the cap still fires. */
        if (!r.usage.reported || r.usage.prompt <= 0) {
            r.usage.prompt = est;
            r.usage.reported = 0;
        }
        if (r.usage.completion <= 0)
            r.usage.completion = reply_estimate(&r);
        model_budget_charge(q->budget, &r.usage, est);
        for (int i = 0; i < r.n_calls; i++)
            check_call(q, &r.calls[i]);
        r.n_bad_calls = 0;
        for (int i = 0; i < r.n_calls; i++) {
            r.n_bad_calls += r.calls[i].error != BASE_OK;
            /* Out of memory is the client's failure, not the model's. */
            if (r.calls[i].error == BASE_ENOMEM) {
                model_llm_reply_fini(&r);
                return base_errf(err, BASE_ENOMEM, "model reply: out of memory");
            }
        }
        if (q->schema && (e = read_answer(q, fallback, &r, perr)) != BASE_OK) {
            model_llm_reply_fini(&r);
            return model_endpoint_errf(l->ep, err, e, "%s", perr);
        }
        if (!r.model[0])
            snprintf(r.model, sizeof r.model, "%s", model);
        r.attempts = total.attempts;
        r.server_ms = total.transfer_ms;
        r.wait_ms = total.wait_ms;
        r.ms = base_monotime_ms() - t0;
        model_endpoint_log(l->ep, BASE_LOG_DEBUG,
                          "%s: %d tool call(s) (%d bad), %ld in (%ld cached) / %ld out, %.0f ms",
                          model_llm_role_name(q->role), r.n_calls, r.n_bad_calls, r.usage.prompt,
                          r.usage.cached, r.usage.completion, r.ms);
        *out = r;
        return BASE_OK;
    }
}

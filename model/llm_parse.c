/* model/llm_parse.c: reading what a chat-completions endpoint answers
 * (model/llm.h): the envelope with its tool calls and usage, and a JSON
 * object out of a model's free text. Pure functions, no I/O: the fuzz
 * target tests/fuzz/fuzz_llm_reply.c drives them with arbitrary bytes.
 *
 * Nothing in a body is trusted: sizes are capped before parsing, every
 * field is type-checked, strings are copied with their length, and a body
 * that ends early (a proxy cut the connection, a server crashed while
 * writing) is told apart from one that is not JSON at all, because the
 * first is worth a retry by the caller and the second is not.
 *
 * Servers differ in small ways the parser accepts: content as a string, as
 * null next to tool calls, or as an array of text parts; arguments as a
 * JSON string (the API) or as an object (some local servers); a tool call
 * without an id (one is made up, 9 alphanumerics hashed from "call_N", so that results can still be
 * paired); the legacy single "function_call"; reasoning as
 * "reasoning_content" (vLLM, DeepSeek) or "reasoning" (Ollama, OpenRouter).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/llm.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/json_alloc.h"
#include "base/json_get.h"
#include "base/text.h"
#include "model/chat_json.h"
#include "model/normalize.h"

#define MAX_CALLS 64
#define SCAN_TRIES 64

/* A base_malloc'd copy of a cJSON string (or NULL). */
static char *dup_str(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring ? base_strdup(v->valuestring) : NULL;
}

/* A cJSON_Print* result as a base_malloc'd string. */
static char *print_dup(const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    if (!s)
        return NULL;
    char *d = base_strdup(s);
    free(s);
    return d;
}

void model_llm_reply_fini(model_llm_reply *r)
{
    if (!r)
        return;
    base_free(r->content);
    base_free(r->reasoning);
    cJSON_Delete(r->json);
    for (int i = 0; i < r->n_calls; i++) {
        base_free(r->calls[i].id);
        base_free(r->calls[i].name);
        base_free(r->calls[i].arguments);
        cJSON_Delete(r->calls[i].args);
    }
    base_free(r->calls);
    cJSON_Delete(r->message);
    memset(r, 0, sizeof *r);
}

/* Fills call c from one tool_calls entry (or a legacy function_call). */
static base_err read_call(const cJSON *tc, const cJSON *fn, int index, model_llm_call *c)
{
    char gen[32];
    const cJSON *id = tc ? cJSON_GetObjectItemCaseSensitive(tc, "id") : NULL;
    if (cJSON_IsString(id) && id->valuestring && id->valuestring[0]) {
        c->id = base_strdup(id->valuestring);
    } else {
        /* A made-up id in the form every template takes (9 alphanumerics),
         * the same for the same position. */
        char key[32], wid[10];
        snprintf(key, sizeof key, "call_%d", index);
        model_wire_id(key, wid);
        snprintf(gen, sizeof gen, "%s", wid);
        c->id = base_strdup(gen);
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
    c->name = base_strdup(cJSON_IsString(name) && name->valuestring ? name->valuestring : "");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
    if (cJSON_IsString(a) && a->valuestring)
        c->arguments = base_strdup(a->valuestring);
    else if (cJSON_IsObject(a))
        c->arguments = print_dup(a);
    else
        c->arguments = base_strdup(a ? "" : "{}");
    if (!c->id || !c->name || !c->arguments)
        return BASE_ENOMEM;
    if (!c->name[0]) {
        c->error = BASE_EINVAL;
        snprintf(c->why, sizeof c->why, "the tool call has no function name");
        return BASE_OK;
    }
    /* Empty arguments mean none, as several servers send for a tool without
     * parameters. */
    const char *s = c->arguments;
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    cJSON *args = *s ? cJSON_Parse(c->arguments) : cJSON_CreateObject();
    /* cJSON says NULL for both bad text and no memory: tell them apart. */
    if (!args && (!*s || base_json_parse_error(c->arguments, strlen(c->arguments), NULL) ==
                             BASE_ENOMEM))
        return BASE_ENOMEM;
    if (!cJSON_IsObject(args)) {
        cJSON_Delete(args);
        char ex[80];
        base_text_excerpt(c->arguments, strlen(c->arguments), ex, sizeof ex);
        c->error = BASE_EPROTO;
        snprintf(c->why, sizeof c->why, "%.60s: the arguments are not a JSON object: \"%s\"",
                 c->name, ex);
        return BASE_OK;
    }
    c->args = args;
    return BASE_OK;
}

/* The assistant message for the conversation: content and tool calls as
 * the API wants them back (arguments as strings). */
static cJSON *history_message(const model_llm_reply *r)
{
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "role", "assistant"))
        goto fail;
    if (r->content ? !cJSON_AddStringToObject(m, "content", r->content)
                   : !cJSON_AddNullToObject(m, "content"))
        goto fail;
    if (r->n_calls > 0) {
        cJSON *arr = cJSON_AddArrayToObject(m, "tool_calls");
        if (!arr)
            goto fail;
        for (int i = 0; i < r->n_calls; i++) {
            cJSON *tc = cJSON_CreateObject();
            cJSON *fn = tc ? cJSON_AddObjectToObject(tc, "function") : NULL;
            if (!fn || !cJSON_AddStringToObject(tc, "id", r->calls[i].id) ||
                !cJSON_AddStringToObject(tc, "type", "function") ||
                !cJSON_AddStringToObject(fn, "name", r->calls[i].name) ||
                !cJSON_AddStringToObject(fn, "arguments", r->calls[i].arguments)) {
                cJSON_Delete(tc);
                goto fail;
            }
            cJSON_AddItemToArray(arr, tc);
        }
    }
    return m;
fail:
    cJSON_Delete(m);
    return NULL;
}

static long num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e12 ? (long)v->valuedouble
                                                                             : 0;
}

base_err model_llm_parse_reply(const char *body, size_t len, model_llm_reply *out, char *err)
{
    if (!body || !out)
        return base_errf(err, BASE_EINVAL, "model reply: NULL argument");
    if (len > MODEL_LLM_BODY_MAX)
        return base_errf(err, BASE_ETOOBIG, "model reply: %zu bytes (the limit is %u)", len,
                         MODEL_LLM_BODY_MAX);
    char ex[100];
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root && base_json_parse_error(body, len, NULL) == BASE_ENOMEM)
        return base_errf(err, BASE_ENOMEM, "model reply: out of memory");
    if (!root) {
        size_t start = 0;
        while (start < len && (body[start] == ' ' || body[start] == '\n' || body[start] == '\r'))
            start++;
        if (start < len && body[start] == '{') {
            base_text_excerpt(body + (len > 60 ? len - 60 : 0), len > 60 ? 60 : len, ex, sizeof ex);
            return base_errf(err, BASE_EPROTO,
                             "model reply is cut off or broken JSON (%zu bytes, ends with \"%s\")",
                             len, ex);
        }
        base_text_excerpt(body, len > 60 ? 60 : len, ex, sizeof ex);
        return base_errf(err, BASE_EPROTO, "model reply is not JSON (starts with \"%s\")", ex);
    }
    model_llm_reply r;
    memset(&r, 0, sizeof r);
    base_err e = BASE_OK;
    if (!cJSON_IsObject(root) || cJSON_GetObjectItemCaseSensitive(root, "error")) {
        char msg[200];
        if (model_chat_error_message(body, len, msg, sizeof msg))
            e = base_errf(err, BASE_EREMOTE, "the endpoint answered an error: %s", msg);
        else
            e = base_errf(err, BASE_EPROTO, "model reply is not a chat completion");
        goto fail;
    }
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
    const cJSON *c0 = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    const cJSON *msg = cJSON_IsObject(c0) ? cJSON_GetObjectItemCaseSensitive(c0, "message") : NULL;
    if (!cJSON_IsObject(msg)) {
        base_text_excerpt(body, len > 60 ? 60 : len, ex, sizeof ex);
        e = base_errf(err, BASE_EPROTO, "model reply has no choices[0].message (starts with \"%s\")",
                      ex);
        goto fail;
    }
    if ((e = model_chat_content_text(cJSON_GetObjectItemCaseSensitive(msg, "content"),
                                    MODEL_LLM_BODY_MAX, &r.content)))
        goto nomem;
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(msg, "reasoning_content");
    if (!cJSON_IsString(rs))
        rs = cJSON_GetObjectItemCaseSensitive(msg, "reasoning");
    if (cJSON_IsString(rs) && rs->valuestring && rs->valuestring[0] && !(r.reasoning = dup_str(rs)))
        goto nomem;
    const cJSON *tcs = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
    const cJSON *legacy = cJSON_GetObjectItemCaseSensitive(msg, "function_call");
    int n = cJSON_IsArray(tcs) ? cJSON_GetArraySize(tcs) : cJSON_IsObject(legacy) ? 1 : 0;
    if (n > MAX_CALLS) {
        e = base_errf(err, BASE_EPROTO, "model reply has %d tool calls (at most %d are read)", n,
                      MAX_CALLS);
        goto fail;
    }
    if (n > 0 && !(r.calls = base_calloc((size_t)n, sizeof *r.calls)))
        goto nomem;
    if (cJSON_IsArray(tcs)) {
        const cJSON *tc;
        cJSON_ArrayForEach(tc, tcs)
        {
            const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
            model_llm_call *c = &r.calls[r.n_calls++];
            if ((e = read_call(tc, cJSON_IsObject(fn) ? fn : tc, r.n_calls - 1, c)))
                goto nomem;
        }
    } else if (n == 1) {
        model_llm_call *c = &r.calls[r.n_calls++];
        if ((e = read_call(NULL, legacy, 0, c)))
            goto nomem;
    }
    for (int i = 0; i < r.n_calls; i++)
        r.n_bad_calls += r.calls[i].error != BASE_OK;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(c0, "finish_reason");
    if (cJSON_IsString(fr) && fr->valuestring)
        snprintf(r.finish_reason, sizeof r.finish_reason, "%s", fr->valuestring);
    r.truncated = strcmp(r.finish_reason, "length") == 0;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (cJSON_IsString(model) && model->valuestring)
        snprintf(r.model, sizeof r.model, "%s", model->valuestring);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(root, "usage");
    if (cJSON_IsObject(u)) {
        r.usage.reported = 1;
        r.usage.prompt = num(u, "prompt_tokens");
        r.usage.completion = num(u, "completion_tokens");
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens_details");
        r.usage.cached = num(d, "cached_tokens");
        if (r.usage.cached > r.usage.prompt)
            r.usage.cached = r.usage.prompt;
    }
    if (!(r.message = history_message(&r)))
        goto nomem;
    cJSON_Delete(root);
    *out = r;
    return BASE_OK;
nomem:
    e = base_errf(err, BASE_ENOMEM, "model reply: out of memory");
fail:
    model_llm_reply_fini(&r);
    cJSON_Delete(root);
    return e;
}

/* The first "```" in s[0..n), or NULL. */
static const char *fence(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (s[i] == '`' && s[i + 1] == '`' && s[i + 2] == '`')
            return s + i;
    return NULL;
}

/* Parses s[0..n) as exactly one object (whitespace around allowed); sets
 * *oom when the parser ran out of memory on a valid text. */
static cJSON *parse_object(const char *s, size_t n, int *oom)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(s, n, &end, 0);
    if (!v && base_json_parse_error(s, n, NULL) == BASE_ENOMEM)
        *oom = 1;
    if (!cJSON_IsObject(v)) {
        cJSON_Delete(v);
        return NULL;
    }
    for (; end && end < s + n; end++) {
        if (*end != ' ' && *end != '\n' && *end != '\r' && *end != '\t') {
            cJSON_Delete(v);
            return NULL;
        }
    }
    return v;
}

base_err model_llm_json_from_text(const char *text, size_t len, cJSON **out, char *err)
{
    if (!text || !out)
        return base_errf(err, BASE_EINVAL, "JSON answer: NULL argument");
    if (len > MODEL_LLM_BODY_MAX)
        return base_errf(err, BASE_ETOOBIG, "JSON answer: %zu bytes (the limit is %u)", len,
                         MODEL_LLM_BODY_MAX);
    /* 1. The whole text. */
    int oom = 0;
    cJSON *v = parse_object(text, len, &oom);
    /* 2. Inside the first ``` fence (after its language tag). */
    const char *f = v ? NULL : fence(text, len);
    if (f) {
        const char *body = f + 3;
        const char *nl = memchr(body, '\n', len - (size_t)(body - text));
        if (nl)
            body = nl + 1;
        const char *close = fence(body, len - (size_t)(body - text));
        size_t bl = close ? (size_t)(close - body) : len - (size_t)(body - text);
        v = parse_object(body, bl, &oom);
    }
    /* 3. The first balanced {...} that parses as an object. */
    int cut = 0;
    size_t i = 0;
    for (int tries = 0; !v && !oom && tries < SCAN_TRIES && i < len; tries++) {
        const char *b = memchr(text + i, '{', len - i);
        if (!b)
            break;
        size_t at = (size_t)(b - text);
        size_t end = base_json_value_end(text, len, at);
        if (end)
            v = parse_object(text + at, end - at, &oom);
        else
            cut = 1;
        i = at + 1;
    }
    if (v) {
        *out = v;
        return BASE_OK;
    }
    if (oom)
        return base_errf(err, BASE_ENOMEM, "JSON answer: out of memory");
    char ex[100];
    base_text_excerpt(text, len > 80 ? 80 : len, ex, sizeof ex);
    if (cut)
        return base_errf(err, BASE_EPROTO, "the JSON answer is cut off (starts with \"%s\")", ex);
    return base_errf(err, BASE_EPROTO, "no JSON object in the answer (starts with \"%s\")", ex);
}

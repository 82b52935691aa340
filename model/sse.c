/* model/sse.c: a streamed chat completion assembled into one body
 * (model/sse.h).
 *
 * Why assemble after the fact rather than parse as bytes arrive: the
 * endpoint already collects the body under a size cap, and what streaming
 * buys fovea is that bytes keep coming, so a stalled server is told from a
 * slow one (model/endpoint.c's stall timer); the reply is used only whole.
 * Lines end in \n, \r\n or \r; an event is its data: lines joined with \n;
 * comments (":") and other fields are skipped. Nothing in a chunk is
 * trusted: every field is type-checked, tool-call indexes are bounded.
 */
#include "model/sse.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "model/chat_json.h"

#define MAX_CALLS 64

typedef struct call_acc {
    base_buf id, name, args;
    int used;
} call_acc;

typedef struct acc {
    base_buf content, reasoning;
    call_acc calls[MAX_CALLS];
    int n_calls;
    char id[128], model[128], finish[32];
    cJSON *usage;
    int chunks, done;
} acc;

int model_sse_is_stream(const char *body, size_t len)
{
    size_t i = 0;
    while (i < len && (body[i] == ' ' || body[i] == '\t' || body[i] == '\r' || body[i] == '\n'))
        i++;
    static const char *const fields[] = {"data:", "event:", "id:", ":"};
    for (size_t k = 0; k < 4; k++) {
        size_t fl = strlen(fields[k]);
        if (len - i >= fl && memcmp(body + i, fields[k], fl) == 0)
            return 1;
    }
    return 0;
}

static const char *sget(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static base_err append_field(base_buf *b, const cJSON *o, const char *k)
{
    const char *s = sget(o, k);
    return s ? base_buf_append_str(b, s) : BASE_OK;
}

/* One event's data. */
static base_err take_event(acc *a, const char *data, size_t n, char *err)
{
    while (n > 0 && (data[0] == ' ' || data[0] == '\t'))
        data++, n--;
    if (n == 0)
        return BASE_OK;
    if (n >= 6 && memcmp(data, "[DONE]", 6) == 0) {
        a->done = 1;
        return BASE_OK;
    }
    cJSON *c = cJSON_ParseWithLength(data, n);
    if (!cJSON_IsObject(c)) {
        cJSON_Delete(c);
        char ex[64];
        size_t k = n < sizeof ex - 1 ? n : sizeof ex - 1;
        for (size_t i = 0; i < k; i++)
            ex[i] = (unsigned char)data[i] < 0x20 ? ' ' : data[i];
        ex[k] = '\0';
        return base_errf(err, BASE_EPROTO, "a stream event that is not a JSON object: \"%s\"", ex);
    }
    base_err e = BASE_OK;
    const char *obj = sget(c, "object");
    if (cJSON_GetObjectItemCaseSensitive(c, "error") || (obj && strcmp(obj, "error") == 0)) {
        /* {"error": {...}} (OpenAI, llama.cpp) or vLLM's {"object": "error"}. */
        char msg[300];
        char *p = cJSON_PrintUnformatted(c);
        if (!p || !model_chat_error_message(p, strlen(p), msg, sizeof msg))
            snprintf(msg, sizeof msg, "an error event without a message");
        free(p);
        cJSON_Delete(c);
        return base_errf(err, BASE_EREMOTE, "the stream ended in an error: %s", msg);
    }
    a->chunks++;
    if (!a->id[0] && sget(c, "id"))
        snprintf(a->id, sizeof a->id, "%s", sget(c, "id"));
    if (!a->model[0] && sget(c, "model"))
        snprintf(a->model, sizeof a->model, "%s", sget(c, "model"));
    cJSON *u = cJSON_GetObjectItemCaseSensitive(c, "usage");
    if (cJSON_IsObject(u)) {
        cJSON_Delete(a->usage);
        a->usage = cJSON_DetachItemViaPointer(c, u);
    }
    const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "choices"), 0);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(ch, "delta");
    if (!cJSON_IsObject(d))
        d = cJSON_GetObjectItemCaseSensitive(ch, "message"); /* a server sending whole messages */
    if (sget(ch, "finish_reason"))
        snprintf(a->finish, sizeof a->finish, "%s", sget(ch, "finish_reason"));
    if (!e)
        e = append_field(&a->content, d, "content");
    if (!e)
        e = append_field(&a->reasoning, d, "reasoning_content");
    if (!e)
        e = append_field(&a->reasoning, d, "reasoning");
    const cJSON *tc;
    int pos = 0;
    cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(d, "tool_calls"))
    {
        if (e)
            break;
        const cJSON *ix = cJSON_GetObjectItemCaseSensitive(tc, "index");
        /* Without an index (some servers send whole calls), position. */
        double di = cJSON_IsNumber(ix) ? ix->valuedouble : (double)(a->n_calls + pos);
        pos++;
        if (di < 0 || di >= MAX_CALLS) {
            e = base_errf(err, BASE_ETOOBIG, "a streamed tool call index %.0f (at most %d calls)",
                          di, MAX_CALLS);
            break;
        }
        call_acc *k = &a->calls[(int)di];
        if (!k->used) {
            k->used = 1;
            base_buf_init(&k->id, 1024);
            base_buf_init(&k->name, 1024);
            base_buf_init(&k->args, MODEL_CHAT_BODY_MAX);
        }
        if ((int)di + 1 > a->n_calls)
            a->n_calls = (int)di + 1;
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
        if (!k->id.len && sget(tc, "id"))
            e = base_buf_append_str(&k->id, sget(tc, "id"));
        if (!e && !k->name.len && sget(fn, "name"))
            e = base_buf_append_str(&k->name, sget(fn, "name"));
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
        if (!e && cJSON_IsString(args))
            e = base_buf_append_str(&k->args, args->valuestring);
        else if (!e && cJSON_IsObject(args)) {
            char *p = cJSON_PrintUnformatted(args);
            e = p ? base_buf_append_str(&k->args, p) : BASE_ENOMEM;
            free(p);
        }
    }
    cJSON_Delete(c);
    if (e == BASE_ENOMEM || e == BASE_ETOOBIG)
        base_errf(err, e, "%s", e == BASE_ENOMEM ? "out of memory assembling the stream"
                                                  : "the stream is too large");
    return e;
}

static void acc_fini(acc *a)
{
    base_buf_fini(&a->content);
    base_buf_fini(&a->reasoning);
    for (int i = 0; i < MAX_CALLS; i++) {
        if (a->calls[i].used) {
            base_buf_fini(&a->calls[i].id);
            base_buf_fini(&a->calls[i].name);
            base_buf_fini(&a->calls[i].args);
        }
    }
    cJSON_Delete(a->usage);
}

/* A buffer's text as a cJSON string ("" when empty). */
static cJSON *buf_string(const base_buf *b)
{
    char *s = base_malloc(b->len + 1);
    if (!s)
        return NULL;
    if (b->len)
        memcpy(s, b->data, b->len);
    s[b->len] = '\0';
    cJSON *v = cJSON_CreateString(s);
    base_free(s);
    return v;
}

static char *build(acc *a)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *choices = root ? cJSON_AddArrayToObject(root, "choices") : NULL;
    cJSON *ch = cJSON_CreateObject();
    cJSON *msg = ch ? cJSON_AddObjectToObject(ch, "message") : NULL;
    char *out = NULL;
    if (!choices || !msg) {
        cJSON_Delete(ch);
        goto done;
    }
    cJSON_AddItemToArray(choices, ch);
    if (!cJSON_AddStringToObject(root, "id", a->id) ||
        !cJSON_AddStringToObject(root, "object", "chat.completion") ||
        !cJSON_AddStringToObject(root, "model", a->model) ||
        !cJSON_AddNumberToObject(ch, "index", 0) ||
        !cJSON_AddStringToObject(msg, "role", "assistant"))
        goto done;
    cJSON *v = a->content.len || !a->n_calls ? buf_string(&a->content) : cJSON_CreateNull();
    if (!v)
        goto done;
    cJSON_AddItemToObject(msg, "content", v);
    if (a->reasoning.len) {
        v = buf_string(&a->reasoning);
        if (!v)
            goto done;
        cJSON_AddItemToObject(msg, "reasoning_content", v);
    }
    if (a->n_calls) {
        cJSON *arr = cJSON_AddArrayToObject(msg, "tool_calls");
        if (!arr)
            goto done;
        for (int i = 0; i < a->n_calls; i++) {
            call_acc *k = &a->calls[i];
            if (!k->used)
                continue;
            cJSON *t = cJSON_CreateObject();
            cJSON *fn = t ? cJSON_AddObjectToObject(t, "function") : NULL;
            cJSON *id = buf_string(&k->id), *nm = buf_string(&k->name), *ar = buf_string(&k->args);
            if (!fn || !id || !nm || !ar || !cJSON_AddStringToObject(t, "type", "function")) {
                cJSON_Delete(t);
                cJSON_Delete(id);
                cJSON_Delete(nm);
                cJSON_Delete(ar);
                goto done;
            }
            /* An empty id is left out: the reply parser makes one up. */
            if (k->id.len)
                cJSON_AddItemToObject(t, "id", id);
            else
                cJSON_Delete(id);
            cJSON_AddItemToObject(fn, "name", nm);
            cJSON_AddItemToObject(fn, "arguments", ar);
            cJSON_AddItemToArray(arr, t);
        }
    }
    if (!(a->finish[0] ? cJSON_AddStringToObject(ch, "finish_reason", a->finish)
                       : cJSON_AddNullToObject(ch, "finish_reason")))
        goto done;
    if (a->usage) {
        cJSON_AddItemToObject(root, "usage", a->usage);
        a->usage = NULL;
    }
    char *p = cJSON_PrintUnformatted(root);
    if (p) {
        out = base_strdup(p);
        free(p);
    }
done:
    cJSON_Delete(root);
    return out;
}

base_err model_sse_assemble(const char *body, size_t len, char **out, char *err)
{
    if (!body || !out)
        return base_errf(err, BASE_EINVAL, "stream: NULL argument");
    if (len > MODEL_CHAT_BODY_MAX)
        return base_errf(err, BASE_ETOOBIG, "stream: %zu bytes (at most %u)", len,
                         MODEL_CHAT_BODY_MAX);
    acc *a = base_calloc(1, sizeof *a);
    if (!a)
        return base_errf(err, BASE_ENOMEM, "stream: out of memory");
    base_buf_init(&a->content, MODEL_CHAT_BODY_MAX);
    base_buf_init(&a->reasoning, MODEL_CHAT_BODY_MAX);
    base_buf ev;
    base_buf_init(&ev, MODEL_CHAT_BODY_MAX);
    base_err e = BASE_OK;
    int have = 0; /* data lines in ev */
    size_t i = 0;
    while (i <= len && !e && !a->done) {
        /* One line: up to \n, \r\n or \r (or the end). */
        size_t j = i;
        while (j < len && body[j] != '\n' && body[j] != '\r')
            j++;
        const char *line = body + i;
        size_t ln = j - i;
        if (ln == 0) {
            if (have)
                e = take_event(a, (const char *)ev.data, ev.len, err);
            base_buf_reset(&ev);
            have = 0;
        } else if (ln >= 5 && memcmp(line, "data:", 5) == 0) {
            if (have)
                e = base_buf_append(&ev, "\n", 1);
            if (!e)
                e = base_buf_append(&ev, line + 5, ln - 5);
            have = 1;
        }
        if (j >= len)
            break;
        i = j + 1;
        if (body[j] == '\r' && i < len && body[i] == '\n')
            i++;
    }
    if (!e && have && !a->done)
        e = take_event(a, (const char *)ev.data, ev.len, err);
    base_buf_fini(&ev);
    if (!e && a->chunks == 0)
        e = base_errf(err, BASE_EPROTO, "the stream holds no chunk");
    if (!e && !a->done && !a->finish[0])
        e = base_errf(err, BASE_EPROTO, "the stream ended before [DONE] (cut off)");
    char *s = NULL;
    if (!e) {
        s = build(a);
        if (!s)
            e = base_errf(err, BASE_ENOMEM, "stream: out of memory");
    }
    acc_fini(a);
    base_free(a);
    if (!e)
        *out = s;
    return e;
}

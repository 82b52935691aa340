/* tests/harness/replay.c: a REPLAY server of recorded chat-completions
 * responses for tests (see replay.h). Not a model: it never looks at the
 * image beyond checking that it is one; it answers from its queue.
 *
 * Requests are validated the way the OpenAI API validates them, closely
 * enough that a client sending a malformed request fails here as it would
 * there (400 with {"error": {"message", "type", "param", "code"}}). The queue
 * is a plain array under a mutex: the first entry whose `match` is absent or
 * found in the prompt answers, and is consumed unless it repeats.
 */
#include "replay.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/buf.h"
#include "base/fs.h"
#include "serve/httpd.h"
#include "wire_check.h"

#define MAX_QUEUE 256
#define MAX_SEEN 256
#define MAX_FILE (4u << 20)

typedef struct entry {
    replay_reply rep; /* strings owned */
    int left;         /* -1 forever */
} entry;

struct replay {
    serve_httpd *srv;
    char base_url[64];
    pthread_mutex_t mu;
    entry q[MAX_QUEUE];
    int nq;
    replay_seen seen[MAX_SEEN];
    int nseen;
    int total;
    char *key;
    int serial;
    int chat;          /* replay_set_chat */
    int refuse_format; /* replay_refuse_format */
    int wire_lax;      /* replay_wire_lax */
    int streamed;      /* answers sent as event streams */
    int refused;           /* requests answered by replay_refuse */
    char *disc[3];         /* replay_set_discovery answers: /v1/models, /props, /api/show */
    int asked;             /* discovery requests */
    int refuse_status[2];  /* replay_refuse: tools, system role */
    char *refuse_body[2];
    int violations;    /* requests that broke a wire rule (wire_check.h) */
    char violation[512];
};

static char *dup_or_null(const char *s)
{
    return s ? base_strdup(s) : NULL;
}

static void entry_free(entry *e)
{
    base_free((void *)(uintptr_t)e->rep.content);
    base_free((void *)(uintptr_t)e->rep.body);
    base_free((void *)(uintptr_t)e->rep.finish_reason);
    base_free((void *)(uintptr_t)e->rep.retry_after);
    base_free((void *)(uintptr_t)e->rep.match);
    base_free((void *)(uintptr_t)e->rep.tool_calls);
    memset(e, 0, sizeof *e);
}

void replay_seen_fini(replay_seen *s)
{
    if (!s)
        return;
    base_free(s->model);
    base_free(s->prompt);
    base_free(s->auth);
    base_free(s->image);
    base_free(s->body);
    memset(s, 0, sizeof *s);
}

/* An OpenAI-style error envelope. */
static void api_error(serve_http_response *resp, int status, const char *type, const char *param,
                      const char *msg)
{
    resp->status = status;
    snprintf(resp->content_type, sizeof resp->content_type, "application/json");
    cJSON *root = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(root, "error");
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddStringToObject(e, "type", type);
    if (param)
        cJSON_AddStringToObject(e, "param", param);
    else
        cJSON_AddNullToObject(e, "param");
    cJSON_AddNullToObject(e, "code");
    char *s = cJSON_PrintUnformatted(root);
    if (s)
        base_buf_append_str(&resp->body, s);
    free(s);
    cJSON_Delete(root);
}

/* The request as parsed by validate(). */
typedef struct parsed {
    const char *model;
    base_buf prompt;
    uint8_t *image;
    size_t image_len;
} parsed;

/* Decodes a data:image/...;base64, URL. Returns 0 on success. */
static int decode_data_url(const char *url, parsed *p, char *why, size_t wn)
{
    const char *comma = strchr(url, ',');
    if (strncmp(url, "data:image/", 11) != 0 || !comma || comma - url < 18 ||
        strncmp(comma - 7, ";base64", 7) != 0) {
        snprintf(why, wn, "Invalid image URL: expected a data:image/...;base64, URL");
        return -1;
    }
    const char *b64 = comma + 1;
    size_t n = strlen(b64);
    uint8_t *img = base_malloc(base64_decoded_max(n) + 1);
    size_t len = 0;
    if (!img || base64_decode(b64, n, img, &len, NULL) != BASE_OK) {
        base_free(img);
        snprintf(why, wn, "Invalid base64 image data.");
        return -1;
    }
    int jpeg = len >= 3 && img[0] == 0xFF && img[1] == 0xD8 && img[2] == 0xFF;
    int png = len >= 8 && memcmp(img, "\x89PNG\r\n\x1a\n", 8) == 0;
    if (!jpeg && !png) {
        base_free(img);
        snprintf(why, wn,
                 "You uploaded an unsupported image. Please make sure your image is "
                 "valid (png or jpeg).");
        return -1;
    }
    if (!p->image) {
        p->image = img;
        p->image_len = len;
    } else {
        base_free(img);
    }
    return 0;
}

/* Chat mode: the tools array and the pairing of tool calls with tool
 * results, worded as the API words its 400s. */
static int validate_tools(const cJSON *root, serve_http_response *resp)
{
    char why[512];
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(root, "tools");
    if (tools) {
        int i = 0;
        const cJSON *t;
        if (!cJSON_IsArray(tools)) {
            api_error(resp, 400, "invalid_request_error", "tools", "Invalid type for 'tools'.");
            return -1;
        }
        cJSON_ArrayForEach(t, tools)
        {
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(t, "type");
            const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
            if (!cJSON_IsString(type) || strcmp(type->valuestring, "function") != 0 ||
                !cJSON_IsString(name) || !name->valuestring[0]) {
                snprintf(why, sizeof why, "Missing required parameter: 'tools[%d].function.name'.",
                         i);
                api_error(resp, 400, "invalid_request_error", "tools", why);
                return -1;
            }
            i++;
        }
    }
    /* Tool call ids of the last assistant message still waiting for their
     * tool messages. */
    const char *open[64];
    int n_open = 0, i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "messages"))
    {
        const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
        const char *rs = role->valuestring;
        if (strcmp(rs, "tool") == 0) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "tool_call_id");
            int k = -1;
            for (int j = 0; cJSON_IsString(id) && j < n_open && k < 0; j++)
                if (open[j] && strcmp(open[j], id->valuestring) == 0)
                    k = j;
            if (k < 0) {
                snprintf(why, sizeof why,
                         "Invalid parameter: messages with role 'tool' must be a response to a "
                         "preceding message with 'tool_calls' (messages[%d].tool_call_id "
                         "'%.60s' answers none).",
                         i, cJSON_IsString(id) ? id->valuestring : "(missing)");
                api_error(resp, 400, "invalid_request_error", "messages", why);
                return -1;
            }
            open[k] = NULL;
            i++;
            continue;
        }
        for (int j = 0; j < n_open; j++) {
            if (open[j]) {
                snprintf(why, sizeof why,
                         "An assistant message with 'tool_calls' must be followed by tool "
                         "messages responding to each 'tool_call_id'. The following "
                         "tool_call_ids did not have response messages: %.60s",
                         open[j]);
                api_error(resp, 400, "invalid_request_error", "messages", why);
                return -1;
            }
        }
        n_open = 0;
        const cJSON *tcs = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
        if (strcmp(rs, "assistant") == 0 && cJSON_IsArray(tcs)) {
            const cJSON *tc;
            cJSON_ArrayForEach(tc, tcs)
            {
                const cJSON *id = cJSON_GetObjectItemCaseSensitive(tc, "id");
                const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
                const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
                if (!cJSON_IsString(id) || !cJSON_IsString(args) || n_open >= 64) {
                    snprintf(why, sizeof why,
                             "Invalid 'messages[%d].tool_calls': each needs an id and "
                             "function.arguments as a string.",
                             i);
                    api_error(resp, 400, "invalid_request_error", "messages", why);
                    return -1;
                }
                open[n_open++] = id->valuestring;
            }
        }
        i++;
    }
    for (int j = 0; j < n_open; j++) {
        if (open[j]) {
            snprintf(why, sizeof why,
                     "An assistant message with 'tool_calls' must be followed by tool messages "
                     "responding to each 'tool_call_id'. The following tool_call_ids did not "
                     "have response messages: %.60s",
                     open[j]);
            api_error(resp, 400, "invalid_request_error", "messages", why);
            return -1;
        }
    }
    return 0;
}

/* Checks the request shape; on failure fills resp with a 400 and returns -1. */
static int validate(const cJSON *root, parsed *p, serve_http_response *resp, int chat)
{
    char why[256];
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!cJSON_IsString(model) || !model->valuestring[0]) {
        api_error(resp, 400, "invalid_request_error", "model",
                  "you must provide a model parameter");
        return -1;
    }
    p->model = model->valuestring;
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(root, "messages");
    if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0) {
        api_error(resp, 400, "invalid_request_error", "messages",
                  "Missing required parameter: 'messages'.");
        return -1;
    }
    int i = 0, images = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, msgs)
    {
        const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
        const char *rs = cJSON_IsString(role) ? role->valuestring : "";
        if (strcmp(rs, "system") && strcmp(rs, "user") && strcmp(rs, "assistant") &&
            strcmp(rs, "developer") && !(chat && strcmp(rs, "tool") == 0)) {
            snprintf(why, sizeof why, "Invalid value for 'messages[%d].role'.", i);
            api_error(resp, 400, "invalid_request_error", "messages", why);
            return -1;
        }
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        int user = strcmp(rs, "user") == 0 || strcmp(rs, "tool") == 0;
        if (chat && strcmp(rs, "assistant") == 0 && (!c || cJSON_IsNull(c)) &&
            cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
            /* An assistant message that only calls tools has no content. */
        } else if (cJSON_IsString(c)) {
            if (user && (base_buf_append_str(&p->prompt, c->valuestring) ||
                         base_buf_append_str(&p->prompt, "\n")))
                goto nomem;
        } else if (cJSON_IsArray(c)) {
            const cJSON *part;
            int k = 0;
            cJSON_ArrayForEach(part, c)
            {
                const cJSON *type = cJSON_GetObjectItemCaseSensitive(part, "type");
                const char *ts = cJSON_IsString(type) ? type->valuestring : "";
                if (strcmp(ts, "text") == 0) {
                    const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
                    if (!cJSON_IsString(t)) {
                        snprintf(why, sizeof why,
                                 "Missing required parameter: 'messages[%d].content[%d].text'.", i,
                                 k);
                        api_error(resp, 400, "invalid_request_error", "messages", why);
                        return -1;
                    }
                    if (user && (base_buf_append_str(&p->prompt, t->valuestring) ||
                                 base_buf_append_str(&p->prompt, "\n")))
                        goto nomem;
                } else if (strcmp(ts, "image_url") == 0) {
                    const cJSON *iu = cJSON_GetObjectItemCaseSensitive(part, "image_url");
                    const cJSON *url =
                        cJSON_IsObject(iu) ? cJSON_GetObjectItemCaseSensitive(iu, "url") : NULL;
                    if (!cJSON_IsString(url)) {
                        snprintf(why, sizeof why,
                                 "Missing required parameter: "
                                 "'messages[%d].content[%d].image_url.url'.",
                                 i, k);
                        api_error(resp, 400, "invalid_request_error", "messages", why);
                        return -1;
                    }
                    if (decode_data_url(url->valuestring, p, why, sizeof why)) {
                        api_error(resp, 400, "invalid_request_error", "messages", why);
                        return -1;
                    }
                    images++;
                } else {
                    snprintf(why, sizeof why,
                             "Invalid value: '%.40s'. Supported values are: 'text' and "
                             "'image_url'.",
                             ts);
                    api_error(resp, 400, "invalid_request_error", "messages", why);
                    return -1;
                }
                k++;
            }
        } else {
            snprintf(why, sizeof why, "Invalid type for 'messages[%d].content'.", i);
            api_error(resp, 400, "invalid_request_error", "messages", why);
            return -1;
        }
        i++;
    }
    if (chat)
        return validate_tools(root, resp);
    if (images == 0) {
        /* The real API accepts text-only requests; this replay serves only
         * vision requests, so a missing image is the client's bug. */
        api_error(resp, 400, "invalid_request_error", "messages",
                  "replay: no image_url part in messages (this endpoint serves vision "
                  "requests)");
        return -1;
    }
    return 0;
nomem:
    api_error(resp, 500, "server_error", NULL, "replay: out of memory");
    return -1;
}

/* A chat.completion as a stream, the way OpenAI and vLLM send it: a role
 * chunk, the content in pieces of 7 bytes, each tool call's id and name then
 * its arguments in two pieces, the finish_reason, the usage in a chunk of
 * its own (include_usage), [DONE]. */
static void stream_out(const cJSON *root, int usage, base_buf *out)
{
    const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "choices"), 0);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ch, "message");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
    const char *id = cJSON_GetObjectItemCaseSensitive(root, "id")->valuestring;
    const char *model = cJSON_GetObjectItemCaseSensitive(root, "model")->valuestring;
#define CHUNK_HEAD "{\"id\":\"%s\",\"object\":\"chat.completion.chunk\",\"model\":\"%s\","
    base_buf_printf(out, "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{\"role\":"
                         "\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
                    id, model);
    if (cJSON_IsString(content)) {
        const char *c = content->valuestring;
        size_t n = strlen(c);
        for (size_t i = 0; i < n; i += 7) {
            /* Pieces of 7 bytes, never splitting a UTF-8 sequence. */
            size_t k = i + 7 < n ? 7 : n - i;
            while (i + k < n && ((unsigned char)c[i + k] & 0xC0) == 0x80)
                k++;
            char piece[64];
            snprintf(piece, sizeof piece, "%.*s", (int)k, c + i);
            cJSON *d = cJSON_CreateString(piece);
            char *ds = cJSON_PrintUnformatted(d);
            base_buf_printf(out, "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":"
                                 "{\"content\":%s},\"finish_reason\":null}]}\n\n",
                            id, model, ds ? ds : "\"\"");
            free(ds);
            cJSON_Delete(d);
            i += k - 7;
        }
    }
    int idx = 0;
    const cJSON *tc;
    cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls"))
    {
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(tc, "id");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
        char *ids = cJSON_PrintUnformatted(tid), *ns = cJSON_PrintUnformatted(name);
        base_buf_printf(out, "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":"
                             "{\"tool_calls\":[{\"index\":%d,%s%s%s\"type\":\"function\","
                             "\"function\":{\"name\":%s,\"arguments\":\"\"}}]},"
                             "\"finish_reason\":null}]}\n\n",
                        id, model, idx, ids ? "\"id\":" : "", ids ? ids : "", ids ? "," : "",
                        ns ? ns : "\"\"");
        free(ids);
        free(ns);
        char *printed = cJSON_IsString(args) || !args ? NULL : cJSON_PrintUnformatted(args);
        const char *as = cJSON_IsString(args) ? args->valuestring : printed ? printed : "{}";
        size_t an = strlen(as), half = an / 2;
        for (int part = 0; part < 2; part++) {
            char *piece = base_strndup(as + (part ? half : 0), part ? an - half : half);
            cJSON *d = piece ? cJSON_CreateString(piece) : NULL;
            char *ds = d ? cJSON_PrintUnformatted(d) : NULL;
            base_buf_printf(out, "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":"
                                 "{\"tool_calls\":[{\"index\":%d,\"function\":{\"arguments\""
                                 ":%s}}]},\"finish_reason\":null}]}\n\n",
                            id, model, idx, ds ? ds : "\"\"");
            free(ds);
            cJSON_Delete(d);
            base_free(piece);
        }
        free(printed);
        idx++;
    }
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(ch, "finish_reason");
    base_buf_printf(out, "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{},"
                         "\"finish_reason\":\"%s\"}]}\n\n",
                    id, model, cJSON_IsString(fr) ? fr->valuestring : "stop");
    if (usage) {
        char *us = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(root, "usage"));
        base_buf_printf(out, "data: " CHUNK_HEAD "\"choices\":[],\"usage\":%s}\n\n", id, model,
                        us ? us : "null");
        free(us);
    }
    base_buf_append_str(out, "data: [DONE]\n\n");
#undef CHUNK_HEAD
}

/* Wraps model text in a chat.completion envelope (streamed when the
 * request asked: stream 1, with the usage chunk: 2). */
static void envelope(replay *r, const entry *e, const char *model, int stream,
                     serve_http_response *resp)
{
    cJSON *root = cJSON_CreateObject();
    char id[48];
    snprintf(id, sizeof id, "chatcmpl-replay-%d", r->serial);
    cJSON_AddStringToObject(root, "id", id);
    cJSON_AddStringToObject(root, "object", "chat.completion");
    cJSON_AddNumberToObject(root, "created", 1700000000);
    cJSON_AddStringToObject(root, "model", model);
    cJSON *choices = cJSON_AddArrayToObject(root, "choices");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "index", 0);
    cJSON *msg = cJSON_AddObjectToObject(c, "message");
    cJSON_AddStringToObject(msg, "role", "assistant");
    if (e->rep.content)
        cJSON_AddStringToObject(msg, "content", e->rep.content);
    else
        cJSON_AddNullToObject(msg, "content");
    cJSON *tcs = e->rep.tool_calls ? cJSON_Parse(e->rep.tool_calls) : NULL;
    if (tcs)
        cJSON_AddItemToObject(msg, "tool_calls", tcs);
    cJSON_AddStringToObject(c, "finish_reason",
                            e->rep.finish_reason ? e->rep.finish_reason
                            : tcs               ? "tool_calls"
                                                : "stop");
    cJSON_AddItemToArray(choices, c);
    cJSON *u = cJSON_AddObjectToObject(root, "usage");
    long pt = e->rep.prompt_tokens ? e->rep.prompt_tokens : 800;
    long ct = e->rep.completion_tokens ? e->rep.completion_tokens
              : e->rep.content        ? (long)(strlen(e->rep.content) / 4)
                                      : 20;
    cJSON_AddNumberToObject(u, "prompt_tokens", (double)pt);
    cJSON_AddNumberToObject(u, "completion_tokens", (double)ct);
    cJSON_AddNumberToObject(u, "total_tokens", (double)(pt + ct));
    if (e->rep.cached_tokens > 0) {
        cJSON *d = cJSON_AddObjectToObject(u, "prompt_tokens_details");
        cJSON_AddNumberToObject(d, "cached_tokens", (double)e->rep.cached_tokens);
    }
    if (stream) {
        snprintf(resp->content_type, sizeof resp->content_type, "text/event-stream");
        stream_out(root, stream == 2, &resp->body);
        cJSON_Delete(root);
        return;
    }
    char *s = cJSON_PrintUnformatted(root);
    if (s)
        base_buf_append_str(&resp->body, s);
    free(s);
    cJSON_Delete(root);
}

/* Fills resp from queue entry e. */
static void answer(replay *r, const entry *e, const char *model, int stream,
                   serve_http_response *resp)
{
    const replay_reply *rep = &e->rep;
    resp->delay_ms = rep->delay_ms;
    if (rep->retry_after)
        serve_http_response_header(resp, "Retry-After", rep->retry_after);
    if (rep->close_mid_body) {
        /* Headers promise 4000 bytes; the connection closes after ~40. */
        resp->raw = 1;
        base_buf_append_str(&resp->body, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                         "Content-Length: 4000\r\n\r\n"
                                         "{\"id\":\"chatcmpl-replay\",\"choices\":[{\"mess");
        return;
    }
    if (rep->garbage) {
        resp->status = 200;
        snprintf(resp->content_type, sizeof resp->content_type, "application/json");
        static const uint8_t junk[] = {0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, '<',
                                       'h',  't',  'm',  'l',  '>',  0xff, 0xfe, 0x00, '{'};
        base_buf_append(&resp->body, junk, sizeof junk);
        return;
    }
    resp->status = rep->status ? rep->status : 200;
    snprintf(resp->content_type, sizeof resp->content_type, "application/json");
    if (rep->body)
        base_buf_append_str(&resp->body, rep->body);
    else if (rep->content || rep->tool_calls)
        envelope(r, e, model, stream, resp);
    else if (resp->status >= 400)
        api_error(resp, resp->status, resp->status == 429 ? "rate_limit_error" : "server_error",
                  NULL,
                  resp->status == 429 ? "Rate limit reached for requests (replay)"
                                      : "The server had an error while processing your request "
                                        "(replay)");
}

static void record(replay *r, int status, const parsed *p, const char *auth,
                   const serve_http_request *req)
{
    r->total++;
    if (r->nseen >= MAX_SEEN)
        return;
    replay_seen *s = &r->seen[r->nseen];
    memset(s, 0, sizeof *s);
    s->status = status;
    s->model = base_strdup(p && p->model ? p->model : "");
    s->prompt = base_strdup(p && p->prompt.data ? (const char *)p->prompt.data : "");
    s->auth = base_strdup(auth ? auth : "");
    if (r->chat && req->body)
        s->body = base_strndup(req->body, req->body_len);
    if (p && p->image) {
        s->image = base_malloc(p->image_len);
        if (s->image) {
            memcpy(s->image, p->image, p->image_len);
            s->image_len = p->image_len;
        }
    }
    r->nseen++;
}

static int handler(const serve_http_request *req, serve_http_response *resp, void *user)
{
    replay *r = user;
    const char *auth = serve_http_request_header(req, "Authorization");
    parsed p;
    memset(&p, 0, sizeof p);
    base_buf_init(&p.prompt, 1u << 20);
    cJSON *root = NULL;
    pthread_mutex_lock(&r->mu);
    r->serial++;
    static const char *const disc_paths[] = {"/v1/models", "/props", "/api/show"};
    for (int i = 0; i < 3; i++) {
        if (strcmp(req->path, disc_paths[i]) == 0) {
            /* A question about the server, not a model request: answered
             * as set (404 otherwise, as servers without it do) and not
             * recorded with the requests. */
            r->asked++;
            if (r->disc[i]) {
                resp->status = 200;
                snprintf(resp->content_type, sizeof resp->content_type, "application/json");
                base_buf_append_str(&resp->body, r->disc[i]);
            } else {
                api_error(resp, 404, "invalid_request_error", NULL, "Not Found");
            }
            pthread_mutex_unlock(&r->mu);
            return 1;
        }
    }
    if (strcmp(req->path, "/v1/chat/completions") != 0) {
        char why[160];
        snprintf(why, sizeof why, "Invalid URL (%.8s %.100s)", req->method, req->path);
        api_error(resp, 404, "invalid_request_error", NULL, why);
        goto out;
    }
    if (strcmp(req->method, "POST") != 0) {
        api_error(resp, 405, "invalid_request_error", NULL, "Only POST is allowed here.");
        goto out;
    }
    if (r->key) {
        const char *k = auth && strncmp(auth, "Bearer ", 7) == 0 ? auth + 7 : "";
        if (strcmp(k, r->key) != 0) {
            /* Like real endpoints, echo what was sent, so clients can be
             * tested for not passing the key on into their own messages. */
            char why[256];
            snprintf(why, sizeof why, "Incorrect API key provided: %.120s.", k);
            api_error(resp, 401, "invalid_request_error", NULL, why);
            goto out;
        }
    }
    root = cJSON_ParseWithLength(req->body, req->body_len);
    if (!cJSON_IsObject(root)) {
        api_error(resp, 400, "invalid_request_error", NULL,
                  "We could not parse the JSON body of your request.");
        goto out;
    }
    {
        /* Every request is held to the rules of the strictest chat
         * templates; a break fails the test at replay_destroy. */
        char why[400];
        if (wire_check(root, why, sizeof why) != 0) {
            if (r->violations++ == 0)
                snprintf(r->violation, sizeof r->violation, "%s", why);
            if (!r->wire_lax) {
                char msg[480];
                snprintf(msg, sizeof msg, "replay: the request breaks a chat-template rule: %s",
                         why);
                api_error(resp, 400, "invalid_request_error", "messages", msg);
                goto out;
            }
        }
    }
    if (validate(root, &p, resp, r->chat))
        goto out;
    {
        /* A server without tool calling, or a template without a system
         * role, answers as it does (replay_refuse). */
        int has_system = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "messages"))
        {
            const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
            has_system |= cJSON_IsString(role) && strcmp(role->valuestring, "system") == 0;
        }
        int has_tools = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "tools")) > 0;
        int which = r->refuse_body[REPLAY_REFUSE_TOOLS] && has_tools    ? REPLAY_REFUSE_TOOLS
                    : r->refuse_body[REPLAY_REFUSE_SYSTEM] && has_system ? REPLAY_REFUSE_SYSTEM
                                                                         : -1;
        if (which >= 0) {
            resp->status = r->refuse_status[which];
            snprintf(resp->content_type, sizeof resp->content_type, "application/json");
            base_buf_append_str(&resp->body, r->refuse_body[which]);
            r->refused++;
            goto out;
        }
    }
    if (r->refuse_format && cJSON_GetObjectItemCaseSensitive(root, "response_format")) {
        /* The wording of servers without structured outputs. */
        api_error(resp, 400, "invalid_request_error", "response_format",
                  "Unsupported parameter: 'response_format' is not supported by this server "
                  "(replay).");
        goto out;
    }
    const char *prompt = p.prompt.data ? (const char *)p.prompt.data : "";
    int pick = -1;
    for (int i = 0; i < r->nq && pick < 0; i++)
        if (!r->q[i].rep.match || strstr(prompt, r->q[i].rep.match))
            pick = i;
    if (pick < 0) {
        api_error(resp, 500, "server_error", NULL,
                  "replay: no recorded response left for this request");
        goto out;
    }
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(root, "tools");
    if (r->q[pick].rep.require_tools && !(cJSON_IsArray(tools) && cJSON_GetArraySize(tools) > 0)) {
        api_error(resp, 400, "invalid_request_error", "tools",
                  "replay: this recorded turn answers with tool calls, and the request carries "
                  "no tools");
        goto out;
    }
    /* A streamed answer when asked for ("stream": true), with the usage
     * chunk when stream_options.include_usage. */
    int stream = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "stream"));
    if (stream && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                      cJSON_GetObjectItemCaseSensitive(root, "stream_options"), "include_usage")))
        stream = 2;
    answer(r, &r->q[pick], p.model, stream, resp);
    r->streamed += stream > 0;
    if (r->q[pick].left > 0 && --r->q[pick].left == 0) {
        entry_free(&r->q[pick]);
        memmove(&r->q[pick], &r->q[pick + 1], (size_t)(r->nq - pick - 1) * sizeof r->q[0]);
        r->nq--;
    }
out:
    record(r, resp->raw ? 200 : resp->status, &p, auth, req);
    pthread_mutex_unlock(&r->mu);
    cJSON_Delete(root);
    base_buf_fini(&p.prompt);
    base_free(p.image);
    return 1;
}

base_err replay_start(replay **out, char *err)
{
    replay *r = base_calloc(1, sizeof *r);
    if (!r)
        return base_errf(err, BASE_ENOMEM, "replay: out of memory");
    pthread_mutex_init(&r->mu, NULL);
    serve_httpd_opts o;
    memset(&o, 0, sizeof o);
    o.handler = handler;
    o.user = r;
    o.max_body_bytes = 32u << 20;
    base_err e = serve_httpd_start(&o, &r->srv, err);
    if (e) {
        pthread_mutex_destroy(&r->mu);
        base_free(r);
        return e;
    }
    snprintf(r->base_url, sizeof r->base_url, "http://127.0.0.1:%d/v1", serve_httpd_port(r->srv));
    *out = r;
    return BASE_OK;
}

void replay_destroy(replay *r)
{
    if (!r)
        return;
    serve_httpd_destroy(r->srv);
    if (r->violations > 0 && !r->wire_lax) {
        /* A test whose client broke a wire rule fails even when it
         * expected the request to fail for another reason. */
        fprintf(stderr, "replay: %d request(s) broke a chat-template rule; the first: %s\n",
                r->violations, r->violation);
        abort();
    }
    for (int i = 0; i < r->nq; i++)
        entry_free(&r->q[i]);
    for (int i = 0; i < r->nseen; i++)
        replay_seen_fini(&r->seen[i]);
    base_free(r->key);
    for (int i = 0; i < 3; i++)
        base_free(r->disc[i]);
    base_free(r->refuse_body[0]);
    base_free(r->refuse_body[1]);
    pthread_mutex_destroy(&r->mu);
    base_free(r);
}

const char *replay_base_url(const replay *r)
{
    return r->base_url;
}

char *replay_tool_call(const char *id, const char *name, const char *args)
{
    cJSON *a = cJSON_CreateArray();
    cJSON *c = cJSON_CreateObject();
    cJSON *f = c ? cJSON_AddObjectToObject(c, "function") : NULL;
    char *out = NULL;
    if (a && c && f && cJSON_AddItemToArray(a, c)) {
        c = NULL; /* owned by a */
        if (cJSON_AddStringToObject(cJSON_GetArrayItem(a, 0), "id", id) &&
            cJSON_AddStringToObject(cJSON_GetArrayItem(a, 0), "type", "function") &&
            cJSON_AddStringToObject(f, "name", name) &&
            cJSON_AddStringToObject(f, "arguments", args))
            out = cJSON_PrintUnformatted(a);
    }
    cJSON_Delete(c);
    cJSON_Delete(a);
    return out;
}

base_err replay_push(replay *r, const replay_reply *rep)
{
    entry e;
    memset(&e, 0, sizeof e);
    e.rep = *rep;
    e.rep.content = dup_or_null(rep->content);
    e.rep.body = dup_or_null(rep->body);
    e.rep.finish_reason = dup_or_null(rep->finish_reason);
    e.rep.retry_after = dup_or_null(rep->retry_after);
    e.rep.match = dup_or_null(rep->match);
    e.rep.tool_calls = dup_or_null(rep->tool_calls);
    e.left = rep->times == 0 ? 1 : rep->times;
    if ((rep->content && !e.rep.content) || (rep->body && !e.rep.body) ||
        (rep->finish_reason && !e.rep.finish_reason) || (rep->retry_after && !e.rep.retry_after) ||
        (rep->match && !e.rep.match) || (rep->tool_calls && !e.rep.tool_calls)) {
        entry_free(&e);
        return BASE_ENOMEM;
    }
    pthread_mutex_lock(&r->mu);
    base_err res = BASE_OK;
    if (r->nq < MAX_QUEUE)
        r->q[r->nq++] = e;
    else
        res = BASE_ETOOBIG;
    pthread_mutex_unlock(&r->mu);
    if (res)
        entry_free(&e);
    return res;
}

base_err replay_push_file(replay *r, const char *path, const char *match, char *err)
{
    uint8_t *text = NULL;
    size_t n = 0;
    base_err e = base_read_file(path, &text, &n, MAX_FILE, err);
    if (e)
        return e;
    replay_reply rep;
    memset(&rep, 0, sizeof rep);
    rep.body = (const char *)text;
    rep.match = match;
    e = replay_push(r, &rep);
    base_free(text);
    return e ? base_errf(err, e, "replay: %s: %s", path, base_strerror(e)) : BASE_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int replay_load_dir(replay *r, const char *dir, char *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        base_errf(err, BASE_EIO, "replay: cannot read %s", dir);
        return -1;
    }
    char *names[MAX_QUEUE];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < MAX_QUEUE) {
        size_t l = strlen(de->d_name);
        if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0)
            names[n++] = base_strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    int ok = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i] ? names[i] : "");
        if (names[i] && replay_push_file(r, path, NULL, err) == BASE_OK)
            ok++;
        base_free(names[i]);
    }
    return ok;
}

base_err replay_require_key(replay *r, const char *key)
{
    char *k = dup_or_null(key);
    if (key && !k)
        return BASE_ENOMEM;
    pthread_mutex_lock(&r->mu);
    base_free(r->key);
    r->key = k;
    pthread_mutex_unlock(&r->mu);
    return BASE_OK;
}

int replay_count(replay *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->total;
    pthread_mutex_unlock(&r->mu);
    return n;
}

int replay_pending(replay *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->nq;
    pthread_mutex_unlock(&r->mu);
    return n;
}

base_err replay_request(replay *r, int i, replay_seen *out)
{
    pthread_mutex_lock(&r->mu);
    base_err e = BASE_OK;
    if (i < 0 || i >= r->nseen) {
        e = BASE_ENOTFOUND;
    } else {
        const replay_seen *s = &r->seen[i];
        memset(out, 0, sizeof *out);
        out->status = s->status;
        out->model = dup_or_null(s->model);
        out->prompt = dup_or_null(s->prompt);
        out->auth = dup_or_null(s->auth);
        out->body = dup_or_null(s->body);
        if (s->image) {
            out->image = base_malloc(s->image_len);
            if (out->image) {
                memcpy(out->image, s->image, s->image_len);
                out->image_len = s->image_len;
            }
        }
        if ((s->model && !out->model) || (s->prompt && !out->prompt) || (s->auth && !out->auth) || (s->body && !out->body) ||
            (s->image && !out->image)) {
            replay_seen_fini(out);
            e = BASE_ENOMEM;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return e;
}

void replay_set_chat(replay *r, int on)
{
    pthread_mutex_lock(&r->mu);
    r->chat = on != 0;
    pthread_mutex_unlock(&r->mu);
}

void replay_refuse_format(replay *r, int on)
{
    pthread_mutex_lock(&r->mu);
    r->refuse_format = on != 0;
    pthread_mutex_unlock(&r->mu);
}

void replay_wire_lax(replay *r, int on)
{
    pthread_mutex_lock(&r->mu);
    r->wire_lax = on != 0;
    pthread_mutex_unlock(&r->mu);
}

int replay_wire_violations(replay *r, char *first, size_t n)
{
    pthread_mutex_lock(&r->mu);
    int v = r->violations;
    if (first && n)
        snprintf(first, n, "%s", r->violation);
    r->violations = 0;
    r->violation[0] = '\0';
    pthread_mutex_unlock(&r->mu);
    return v;
}

int replay_streamed(replay *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->streamed;
    pthread_mutex_unlock(&r->mu);
    return n;
}

base_err replay_refuse(replay *r, int what, int status, const char *body)
{
    if (what != REPLAY_REFUSE_TOOLS && what != REPLAY_REFUSE_SYSTEM)
        return BASE_EINVAL;
    char *b = dup_or_null(body);
    if (body && !b)
        return BASE_ENOMEM;
    pthread_mutex_lock(&r->mu);
    base_free(r->refuse_body[what]);
    r->refuse_body[what] = b;
    r->refuse_status[what] = status;
    pthread_mutex_unlock(&r->mu);
    return BASE_OK;
}

int replay_refused(replay *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->refused;
    pthread_mutex_unlock(&r->mu);
    return n;
}

base_err replay_set_discovery(replay *r, int which, const char *body)
{
    if (which < 0 || which > 2)
        return BASE_EINVAL;
    char *b = dup_or_null(body);
    if (body && !b)
        return BASE_ENOMEM;
    pthread_mutex_lock(&r->mu);
    base_free(r->disc[which]);
    r->disc[which] = b;
    pthread_mutex_unlock(&r->mu);
    return BASE_OK;
}

int replay_discovery_asked(replay *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->asked;
    pthread_mutex_unlock(&r->mu);
    return n;
}

base_err replay_start_chat(const char *key, replay **out, char *err)
{
    replay *r = NULL;
    base_err e = replay_start(&r, err);
    if (e)
        return e;
    replay_set_chat(r, 1);
    e = replay_require_key(r, key);
    if (!e && (setenv("FOVEA_LLM_BASE_URL", replay_base_url(r), 1) != 0 ||
               setenv("FOVEA_LLM_API_KEY", key, 1) != 0 ||
               setenv("FOVEA_LLM_MODEL", "gpt-4o-mini", 1) != 0 ||
               setenv("FOVEA_LLM_MAX_RETRIES", "0", 1) != 0))
        e = base_errf(err, BASE_ENOMEM, "replay: setenv failed");
    if (e) {
        replay_destroy(r);
        return e;
    }
    unsetenv("FOVEA_TOKEN_BUDGET");
    *out = r;
    return BASE_OK;
}

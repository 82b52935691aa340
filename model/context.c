/* model/context.c: asking a server for its context window (model/context.h).
 *
 * Three endpoints, tried in order, each a short request without retries:
 * a server that has none of them (OpenAI, a proxy) answers 404s quickly,
 * and then the window is unknown and nothing is fitted. Every field read
 * is type-checked; a number outside 1..2^31 is not a window.
 */
#include "model/context.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"

#define ANSWER_MAX (4u << 20)

const char *model_context_src_name(model_context_src s)
{
    switch (s) {
    case MODEL_CONTEXT_VLLM:
        return "vLLM /v1/models max_model_len";
    case MODEL_CONTEXT_LLAMA:
        return "llama.cpp /props n_ctx";
    case MODEL_CONTEXT_OLLAMA:
        return "Ollama num_ctx";
    default:
        return "";
    }
}

static long window(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble < 2147483648.0
               ? (long)v->valuedouble
               : 0;
}

/* Ollama's "parameters" text: lines "num_ctx  8192". */
static long num_ctx_of(const char *params)
{
    for (const char *p = params ? strstr(params, "num_ctx") : NULL; p; p = strstr(p + 1, "num_ctx")) {
        const char *q = p + 7;
        if (*q != ' ' && *q != '\t')
            continue;
        char *end = NULL;
        long v = strtol(q, &end, 10);
        if (end != q && v > 0 && v < 2147483647L)
            return v;
    }
    return 0;
}

long model_context_parse(model_context_src src, const char *body, size_t len, const char *model)
{
    cJSON *root = body ? cJSON_ParseWithLength(body, len) : NULL;
    long n = 0;
    if (!cJSON_IsObject(root))
        goto done;
    if (src == MODEL_CONTEXT_VLLM) {
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "data"))
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
            long w = window(cJSON_GetObjectItemCaseSensitive(m, "max_model_len"));
            /* The model asked for, else the only one served. */
            if (w && cJSON_IsString(id) && model && strcmp(id->valuestring, model) == 0) {
                n = w;
                break;
            }
            if (w && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "data")) == 1)
                n = w;
        }
    } else if (src == MODEL_CONTEXT_LLAMA) {
        n = window(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "default_generation_settings"), "n_ctx"));
        if (!n)
            n = window(cJSON_GetObjectItemCaseSensitive(root, "n_ctx"));
    } else if (src == MODEL_CONTEXT_OLLAMA) {
        /* An /api/show answer has model_info or parameters; the window the
         * OpenAI endpoint runs with is num_ctx, or the default. */
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
        const cJSON *info = cJSON_GetObjectItemCaseSensitive(root, "model_info");
        if (!params && !info)
            goto done;
        n = num_ctx_of(cJSON_IsString(params) ? params->valuestring : NULL);
        if (!n)
            n = MODEL_CONTEXT_OLLAMA_DEFAULT;
    }
done:
    cJSON_Delete(root);
    return n;
}

static size_t on_data(char *p, size_t sz, size_t nm, void *user)
{
    return base_buf_append(user, p, sz * nm) == BASE_OK ? sz * nm : 0;
}

/* One request; the 2xx body in b, or -1. */
static int ask(const char *url, const char *key, const char *post, long timeout_ms, base_buf *b)
{
    CURL *h = curl_easy_init();
    if (!h)
        return -1;
    struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");
    char auth[600] = "";
    if (key && key[0] && strlen(key) < 500) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", key);
        struct curl_slist *t = curl_slist_append(hd, auth);
        hd = t ? t : hd;
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "fovea/0.1");
    if (post)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, post);
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    curl_slist_free_all(hd);
    if (auth[0])
        memset(auth, 0, sizeof auth);
    return cc == CURLE_OK && status >= 200 && status < 300 ? 0 : -1;
}

base_err model_context_discover(const char *base_url, const char *key, const char *model,
                                long timeout_ms, long *ctx, model_context_src *src, char *err)
{
    if (!base_url || !ctx || !src)
        return base_errf(err, BASE_EINVAL, "context window: NULL argument");
    *ctx = 0;
    *src = MODEL_CONTEXT_NONE;
    size_t bl = strlen(base_url);
    while (bl > 0 && base_url[bl - 1] == '/')
        bl--;
    size_t rl = bl >= 3 && strncmp(base_url + bl - 3, "/v1", 3) == 0 ? bl - 3 : bl;
    char url[1024];
    if (bl + 16 > sizeof url)
        return base_errf(err, BASE_EINVAL, "context window: URL too long");
    char post[400];
    cJSON *pm = cJSON_CreateObject();
    char *ps = pm && cJSON_AddStringToObject(pm, "model", model ? model : "")
                   ? cJSON_PrintUnformatted(pm)
                   : NULL;
    cJSON_Delete(pm);
    if (!ps)
        return base_errf(err, BASE_ENOMEM, "context window: out of memory");
    snprintf(post, sizeof post, "%s", ps);
    free(ps);
    static const model_context_src order[] = {MODEL_CONTEXT_VLLM, MODEL_CONTEXT_LLAMA,
                                              MODEL_CONTEXT_OLLAMA};
    for (size_t i = 0; i < 3 && !*ctx; i++) {
        if (order[i] == MODEL_CONTEXT_VLLM)
            snprintf(url, sizeof url, "%.*s/models", (int)bl, base_url);
        else
            snprintf(url, sizeof url, "%.*s%s", (int)rl, base_url,
                     order[i] == MODEL_CONTEXT_LLAMA ? "/props" : "/api/show");
        base_buf b;
        base_buf_init(&b, ANSWER_MAX);
        if (ask(url, key, order[i] == MODEL_CONTEXT_OLLAMA ? post : NULL, timeout_ms, &b) == 0) {
            *ctx = model_context_parse(order[i], (const char *)b.data, b.len, model);
            if (*ctx)
                *src = order[i];
        }
        base_buf_fini(&b);
    }
    return BASE_OK;
}

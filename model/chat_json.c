/* model/chat_json.c: the envelope of an OpenAI-compatible chat-completions
 * response: the assistant's text, or the endpoint's own error message.
 *
 * Split out of perception/model_json.c (which keeps the recovery of vision
 * boxes from a model's loosely written text): every model call reads its
 * reply through here, the agent's and the vision provider's alike. Sizes are
 * capped before parsing and every field is type-checked.
 */
#include "model/chat_json.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/text.h"

int model_chat_error_message(const char *body, size_t len, char *out, size_t n)
{
    if (!out || n == 0)
        return 0;
    out[0] = '\0';
    if (!body || len > MODEL_CHAT_BODY_MAX)
        return 0;
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root)
        return 0;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
    const cJSON *m = NULL;
    if (cJSON_IsObject(e))
        m = cJSON_GetObjectItemCaseSensitive(e, "message");
    else if (cJSON_IsString(e))
        m = e;
    else if (cJSON_IsObject(root))
        m = cJSON_GetObjectItemCaseSensitive(root, "message");
    int found = 0;
    if (cJSON_IsString(m) && m->valuestring) {
        base_text_line(out, n, m->valuestring, strlen(m->valuestring));
        found = 1;
    }
    cJSON_Delete(root);
    return found;
}

base_err model_chat_content_text(const cJSON *c, size_t max, char **out)
{
    if (!out)
        return BASE_EINVAL;
    *out = NULL;
    if (cJSON_IsString(c) && c->valuestring) {
        *out = base_strdup(c->valuestring);
        return *out ? BASE_OK : BASE_ENOMEM;
    }
    if (!cJSON_IsArray(c))
        return BASE_OK;
    base_buf b;
    base_buf_init(&b, max);
    const cJSON *part;
    base_err e = BASE_OK;
    cJSON_ArrayForEach(part, c)
    {
        const cJSON *tx = cJSON_GetObjectItemCaseSensitive(part, "text");
        if (!cJSON_IsString(tx) || !tx->valuestring)
            continue;
        if (b.len)
            e = base_buf_append_str(&b, "\n");
        if (!e)
            e = base_buf_append_str(&b, tx->valuestring);
        if (e)
            break;
    }
    if (!e && b.len) {
        *out = base_buf_steal(&b, NULL);
        if (!*out)
            e = BASE_ENOMEM;
    }
    base_buf_fini(&b);
    return e;
}

base_err model_chat_reply_parse(const char *body, size_t len, char **content, int *cut, char *err)
{
    if (!body || !content)
        return base_errf(err, BASE_EINVAL, "chat reply: NULL argument");
    if (len > MODEL_CHAT_BODY_MAX)
        return base_errf(err, BASE_ETOOBIG, "endpoint reply is %zu bytes (limit %u)", len,
                         MODEL_CHAT_BODY_MAX);
    char ex[48];
    cJSON *root = cJSON_ParseWithLength(body, len);
    if (!root) {
        base_text_excerpt(body, len, ex, sizeof ex);
        return base_errf(err, BASE_EPROTO,
                         "endpoint reply is not JSON (%zu bytes, starts with \"%s\")", len, ex);
    }
    base_err e = BASE_OK;
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    if (error && !cJSON_IsNull(error)) {
        char msg[200];
        if (!model_chat_error_message(body, len, msg, sizeof msg))
            snprintf(msg, sizeof msg, "(no message)");
        e = base_errf(err, BASE_EREMOTE, "endpoint answered an error: %s", msg);
        goto done;
    }
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
    const cJSON *c0 = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    if (!cJSON_IsObject(c0)) {
        base_text_excerpt(body, len, ex, sizeof ex);
        e = base_errf(err, BASE_EPROTO, "endpoint reply has no choices (starts with \"%s\")", ex);
        goto done;
    }
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(c0, "message");
    char *text = NULL;
    const cJSON *parts = cJSON_IsObject(msg) ? cJSON_GetObjectItemCaseSensitive(msg, "content")
                                             : cJSON_GetObjectItemCaseSensitive(c0, "text");
    e = model_chat_content_text(parts, MODEL_CHAT_BODY_MAX, &text);
    if (e) {
        e = base_errf(err, e, "chat reply: out of memory");
        goto done;
    }
    if (!text) {
        const cJSON *refusal =
            cJSON_IsObject(msg) ? cJSON_GetObjectItemCaseSensitive(msg, "refusal") : NULL;
        if (cJSON_IsString(refusal) && refusal->valuestring) {
            base_text_excerpt(refusal->valuestring, strlen(refusal->valuestring), ex, sizeof ex);
            e = base_errf(err, BASE_EPROTO, "model refused: \"%s\"", ex);
        } else {
            e = base_errf(err, BASE_EPROTO, "endpoint reply has no message text");
        }
        goto done;
    }
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(c0, "finish_reason");
    if (cut)
        *cut = cJSON_IsString(fr) && fr->valuestring && strcmp(fr->valuestring, "length") == 0;
    *content = text;
done:
    cJSON_Delete(root);
    return e;
}

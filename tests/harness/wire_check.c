/* tests/harness/wire_check.c: the strict request checker (wire_check.h).
 * Written from the rules, not from the normalizer: it walks the messages
 * once with the previous role in hand, and the tool schemas recursively.
 */
#include "wire_check.h"

#include <stdio.h>
#include <string.h>

static const char *sget(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static int id_ok(const char *id)
{
    if (!id || strlen(id) != 9)
        return 0;
    for (int i = 0; i < 9; i++) {
        char c = id[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return 0;
    }
    return 1;
}

/* Content must be a string, or an array with at least one non-text part. */
static int content_ok(const cJSON *m, int allow_parts)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (cJSON_IsString(c))
        return 1;
    if (!allow_parts || !cJSON_IsArray(c))
        return 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, c)
    {
        const char *t = sget(p, "type");
        if (t && strcmp(t, "text") != 0)
            return 1;
    }
    return 0;
}

static int schema_ok(const cJSON *s, const char *where, char *why, size_t n, int depth)
{
    if (!cJSON_IsObject(s) || depth > 40)
        return 0;
    if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s, "type"))) {
        snprintf(why, n, "%s: a \"type\" array", where);
        return -1;
    }
    if (cJSON_GetObjectItemCaseSensitive(s, "oneOf")) {
        snprintf(why, n, "%s: oneOf (anyOf is portable)", where);
        return -1;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(s, "properties"))
    {
        char sub[200];
        snprintf(sub, sizeof sub, "%.120s.%.60s", where, p->string ? p->string : "?");
        if (!sget(p, "description")) {
            snprintf(why, n, "%s: a property without a description", sub);
            return -1;
        }
        if (schema_ok(p, sub, why, n, depth + 1))
            return -1;
    }
    static const char *const kids[] = {"items", "additionalProperties"};
    for (size_t k = 0; k < 2; k++)
        if (schema_ok(cJSON_GetObjectItemCaseSensitive(s, kids[k]), where, why, n, depth + 1))
            return -1;
    static const char *const lists[] = {"anyOf", "allOf"};
    for (size_t k = 0; k < 2; k++) {
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, lists[k]))
        {
            if (schema_ok(x, where, why, n, depth + 1))
                return -1;
        }
    }
    return 0;
}

int wire_check(const cJSON *root, char *why, size_t n)
{
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(root, "messages");
    if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0) {
        snprintf(why, n, "no messages");
        return -1;
    }
    const char *prev = NULL;     /* role of the previous message, NULL at the start */
    const char *open_id = NULL;  /* the call the next tool message must answer */
    const char *open_name = NULL;
    int i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, msgs)
    {
        const char *role = sget(m, "role");
        if (!role) {
            snprintf(why, n, "messages[%d]: no role", i);
            return -1;
        }
        if (strcmp(role, "system") == 0) {
            if (i != 0) {
                snprintf(why, n, "messages[%d]: a system message that is not the first", i);
                return -1;
            }
            if (!content_ok(m, 0)) {
                snprintf(why, n, "messages[%d]: system content is not a string", i);
                return -1;
            }
            i++;
            continue;
        }
        if (strcmp(role, "user") == 0) {
            if (prev && strcmp(prev, "user") == 0) {
                snprintf(why, n, "messages[%d]: two user messages in a row", i);
                return -1;
            }
            if (prev && strcmp(prev, "tool") == 0) {
                snprintf(why, n, "messages[%d]: a user message right after a tool result", i);
                return -1;
            }
            if (open_id) {
                snprintf(why, n, "messages[%d]: the call %s has no result", i, open_id);
                return -1;
            }
            if (!content_ok(m, 1)) {
                snprintf(why, n,
                         "messages[%d]: user content is null, missing, or text parts that "
                         "should be a string",
                         i);
                return -1;
            }
        } else if (strcmp(role, "assistant") == 0) {
            if (!prev || strcmp(prev, "assistant") == 0) {
                snprintf(why, n, "messages[%d]: an assistant message %s", i,
                         prev ? "right after another" : "before any user message");
                return -1;
            }
            if (open_id) {
                snprintf(why, n, "messages[%d]: the call %s has no result", i, open_id);
                return -1;
            }
            if (!content_ok(m, 0)) {
                snprintf(why, n, "messages[%d]: assistant content is not a string", i);
                return -1;
            }
            const cJSON *tcs = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
            if (tcs) {
                if (!cJSON_IsArray(tcs) || cJSON_GetArraySize(tcs) != 1) {
                    snprintf(why, n, "messages[%d]: %d tool calls in one assistant turn", i,
                             cJSON_IsArray(tcs) ? cJSON_GetArraySize(tcs) : -1);
                    return -1;
                }
                const cJSON *tc = cJSON_GetArrayItem(tcs, 0);
                const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
                if (!id_ok(sget(tc, "id"))) {
                    snprintf(why, n, "messages[%d]: tool-call id '%.40s' is not 9 alphanumerics",
                             i, sget(tc, "id") ? sget(tc, "id") : "(none)");
                    return -1;
                }
                if (!sget(fn, "name") || !sget(fn, "arguments")) {
                    snprintf(why, n, "messages[%d]: a tool call without a name or string arguments",
                             i);
                    return -1;
                }
                open_id = sget(tc, "id");
                open_name = sget(fn, "name");
            }
        } else if (strcmp(role, "tool") == 0) {
            if (!open_id) {
                snprintf(why, n, "messages[%d]: a tool result without its call right before it", i);
                return -1;
            }
            const char *id = sget(m, "tool_call_id");
            const char *name = sget(m, "name");
            if (!id || strcmp(id, open_id) != 0) {
                snprintf(why, n, "messages[%d]: tool_call_id '%.40s' is not the call's '%s'", i,
                         id ? id : "(none)", open_id);
                return -1;
            }
            if (!name || strcmp(name, open_name) != 0) {
                snprintf(why, n, "messages[%d]: a tool message without the function name '%.60s'",
                         i, open_name);
                return -1;
            }
            if (!content_ok(m, 0)) {
                snprintf(why, n, "messages[%d]: tool content is not a string", i);
                return -1;
            }
            open_id = NULL;
        } else {
            snprintf(why, n, "messages[%d]: role '%.20s'", i, role);
            return -1;
        }
        prev = role;
        i++;
    }
    if (!prev) {
        snprintf(why, n, "only a system message");
        return -1;
    }
    const cJSON *t;
    int k = 0;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(root, "tools"))
    {
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
        char where[120];
        snprintf(where, sizeof where, "tools[%d] %.60s", k, sget(fn, "name") ? sget(fn, "name") : "?");
        if (!sget(fn, "description")) {
            snprintf(why, n, "%s: no description", where);
            return -1;
        }
        if (schema_ok(cJSON_GetObjectItemCaseSensitive(fn, "parameters"), where, why, n, 0))
            return -1;
        k++;
    }
    return 0;
}

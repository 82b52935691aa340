/* model/normalize.c: the request normalizer (model/normalize.h).
 *
 * Three passes over a copy. The first builds the map from tool-call ids to
 * function names (a tool message needs the name, and the id must be the
 * wire id on both sides). The second flattens: every message rebuilt from
 * the keys the wire knows (so '_' keys and anything else stay home),
 * content made a string where it is text, an assistant batch split into
 * call/result pairs with the results reordered to their calls, and, in the
 * text fallback, calls and results written as text. The third enforces
 * the order templates check: merges runs of user (or plain assistant)
 * messages and puts an acknowledgement between a tool result and a user
 * message. Nothing here looks at what the text says.
 */
#include "model/normalize.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "model/chat_json.h"

#define TEXT_MAX (64u << 20)
#define SCAN_MAX 256 /* '{' positions tried when reading calls out of text */

/* ---- ids ------------------------------------------------------------------------ */

void model_wire_id(const char *id, char out[10])
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    size_t n = id ? strlen(id) : 0;
    int ok = n == 9;
    for (size_t i = 0; ok && i < n; i++) {
        char c = id[i];
        ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
    if (ok) {
        memcpy(out, id, 10);
        return;
    }
    /* FNV-1a, 64 bits: 62^9 < 2^64, so nine base-62 digits use most of it. */
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)id[i];
        h *= 1099511628211ULL;
    }
    for (int i = 0; i < 9; i++) {
        out[i] = digits[h % 62];
        h /= 62;
    }
    out[9] = '\0';
}

/* ---- small helpers ---------------------------------------------------------------- */

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

/* The text of a message's content ("" when none); a new string or NULL on
 * ENOMEM. */
static char *content_text(const cJSON *m)
{
    char *t = NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (model_chat_content_text(c, TEXT_MAX, &t) != BASE_OK)
        return NULL;
    return t ? t : base_strdup("");
}

/* {"role": role, "content": text}, or NULL on ENOMEM. */
static cJSON *text_message(const char *role, const char *text)
{
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "role", role) ||
        !cJSON_AddStringToObject(m, "content", text)) {
        cJSON_Delete(m);
        return NULL;
    }
    return m;
}

/* Does content c hold anything but text parts (an image)? */
static int has_media(const cJSON *c)
{
    const cJSON *p;
    if (!cJSON_IsArray(c))
        return 0;
    cJSON_ArrayForEach(p, c)
    {
        const char *t = str_of(p, "type");
        if (!t || strcmp(t, "text") != 0)
            return 1;
    }
    return 0;
}

/* A user message from m: content kept as parts when it carries an image,
 * else as its text. */
static cJSON *user_message(const cJSON *m)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (has_media(c)) {
        cJSON *u = cJSON_CreateObject();
        cJSON *parts = cJSON_Duplicate(c, 1);
        if (!u || !parts || !cJSON_AddStringToObject(u, "role", "user")) {
            cJSON_Delete(u);
            cJSON_Delete(parts);
            return NULL;
        }
        cJSON_AddItemToObject(u, "content", parts);
        return u;
    }
    char *t = content_text(m);
    cJSON *u = t ? text_message("user", t) : NULL;
    base_free(t);
    return u;
}

/* Appends content c (string or parts) to parts as parts; 0 on ENOMEM. */
static int add_parts(cJSON *parts, const cJSON *c)
{
    if (cJSON_IsArray(c)) {
        const cJSON *p;
        cJSON_ArrayForEach(p, c)
        {
            cJSON *d = cJSON_Duplicate(p, 1);
            if (!d)
                return 0;
            cJSON_AddItemToArray(parts, d);
        }
        return 1;
    }
    const char *s = cJSON_IsString(c) ? c->valuestring : "";
    if (!s[0])
        return 1;
    cJSON *p = cJSON_CreateObject();
    if (!p || !cJSON_AddStringToObject(p, "type", "text") || !cJSON_AddStringToObject(p, "text", s)) {
        cJSON_Delete(p);
        return 0;
    }
    cJSON_AddItemToArray(parts, p);
    return 1;
}

/* Sets m's content to a + sep + b (texts); 0 on ENOMEM. */
static int join_text(cJSON *m, const char *a, const char *sep, const char *b)
{
    base_buf buf;
    base_buf_init(&buf, TEXT_MAX);
    int ok = base_buf_append_str(&buf, a) == BASE_OK &&
             (!a[0] || !b[0] || base_buf_append_str(&buf, sep) == BASE_OK) &&
             base_buf_append_str(&buf, b) == BASE_OK && base_buf_append(&buf, "", 1) == BASE_OK;
    cJSON *s = ok ? cJSON_CreateString((const char *)buf.data) : NULL;
    base_buf_fini(&buf);
    if (!s)
        return 0;
    if (cJSON_GetObjectItemCaseSensitive(m, "content"))
        cJSON_ReplaceItemInObjectCaseSensitive(m, "content", s);
    else
        cJSON_AddItemToObject(m, "content", s);
    return 1;
}

/* Merges user message b into user message a (a's content first). */
static int merge_user(cJSON *a, const cJSON *b)
{
    const cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "content");
    const cJSON *cb = cJSON_GetObjectItemCaseSensitive(b, "content");
    if (cJSON_IsString(ca) && cJSON_IsString(cb))
        return join_text(a, ca->valuestring, "\n\n", cb->valuestring);
    cJSON *parts = cJSON_CreateArray();
    if (!parts || !add_parts(parts, ca) || !add_parts(parts, cb)) {
        cJSON_Delete(parts);
        return 0;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(a, "content", parts);
    return 1;
}

/* ---- pass 1: ids and names ---------------------------------------------------------- */

typedef struct call_name {
    char id[10];
    const char *name; /* borrowed from the input */
} call_name;

static const char *name_of(const call_name *map, int n, const char *wid)
{
    for (int i = 0; i < n; i++)
        if (strcmp(map[i].id, wid) == 0)
            return map[i].name;
    return NULL;
}

/* ---- pass 2: flatten ---------------------------------------------------------------- */

/* An assistant turn with one call ({"id", "type", "function": {name,
 * arguments as a string}}) and text. */
static cJSON *call_turn(const char *text, const cJSON *tc)
{
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
    const char *name = str_of(fn, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
    char wid[10];
    model_wire_id(str_of(tc, "id"), wid);
    char *printed = cJSON_IsString(args) ? NULL : cJSON_PrintUnformatted(args ? args : tc);
    const char *as = cJSON_IsString(args) ? args->valuestring : args ? printed : "{}";
    cJSON *m = text_message("assistant", text);
    cJSON *arr = m ? cJSON_AddArrayToObject(m, "tool_calls") : NULL;
    cJSON *c = cJSON_CreateObject();
    cJSON *f = c ? cJSON_AddObjectToObject(c, "function") : NULL;
    if (!arr || !f || !as || !cJSON_AddStringToObject(c, "id", wid) ||
        !cJSON_AddStringToObject(c, "type", "function") ||
        !cJSON_AddStringToObject(f, "name", name ? name : "") ||
        !cJSON_AddStringToObject(f, "arguments", as)) {
        cJSON_Delete(m);
        cJSON_Delete(c);
        free(printed);
        return NULL;
    }
    free(printed);
    cJSON_AddItemToArray(arr, c);
    return m;
}

/* A tool message in wire form, or (text fallback) a user message. */
static cJSON *tool_turn(const cJSON *m, const call_name *map, int nmap, unsigned flags)
{
    char wid[10];
    model_wire_id(str_of(m, "tool_call_id"), wid);
    const char *name = name_of(map, nmap, wid);
    char *t = content_text(m);
    cJSON *out = NULL;
    if (!t)
        return NULL;
    if (flags & MODEL_WIRE_TOOLS_IN_TEXT) {
        base_buf b;
        base_buf_init(&b, TEXT_MAX);
        if (base_buf_printf(&b, "Result of the tool %s: ", name ? name : "call") == BASE_OK &&
            base_buf_append_str(&b, t) == BASE_OK && base_buf_append(&b, "", 1) == BASE_OK)
            out = text_message("user", (const char *)b.data);
        base_buf_fini(&b);
    } else {
        out = text_message("tool", t);
        if (out && (!cJSON_AddStringToObject(out, "tool_call_id", wid) ||
                    !cJSON_AddStringToObject(out, "name", name ? name : "tool"))) {
            cJSON_Delete(out);
            out = NULL;
        }
    }
    base_free(t);
    return out;
}

/* The text fallback's form of an assistant turn: its text, then one
 * {"tool", "arguments"} object per call. */
static cJSON *calls_as_text(const char *text, const cJSON *tcs)
{
    base_buf b;
    base_buf_init(&b, TEXT_MAX);
    base_err e = base_buf_append_str(&b, text);
    const cJSON *tc;
    cJSON_ArrayForEach(tc, tcs)
    {
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
        cJSON *o = cJSON_CreateObject();
        cJSON *a = cJSON_IsString(args) ? cJSON_Parse(args->valuestring) : cJSON_Duplicate(args, 1);
        if (!a)
            a = cJSON_CreateObject();
        char *s = NULL;
        if (o && a && cJSON_AddStringToObject(o, "tool", str_of(fn, "name") ? str_of(fn, "name") : "")) {
            cJSON_AddItemToObject(o, "arguments", a);
            a = NULL;
            s = cJSON_PrintUnformatted(o);
        }
        cJSON_Delete(a);
        cJSON_Delete(o);
        if (!e)
            e = s ? base_buf_printf(&b, "%s%s", b.len ? "\n" : "", s) : BASE_ENOMEM;
        free(s);
    }
    if (!e)
        e = base_buf_append(&b, "", 1);
    cJSON *m = e ? NULL : text_message("assistant", (const char *)b.data);
    base_buf_fini(&b);
    return m;
}

/* Flattens in (n messages) into flat; sys gets the first system message's
 * text. */
static base_err flatten(const cJSON *in, int n, const call_name *map, int nmap, unsigned flags,
                        cJSON *flat, char **sys, char *err)
{
    char *done = base_calloc((size_t)n + 1, 1);
    if (!done)
        return base_errf(err, BASE_ENOMEM, "model request: out of memory");
    base_err e = BASE_OK;
    for (int i = 0; i < n && !e; i++) {
        if (done[i])
            continue;
        const cJSON *m = cJSON_GetArrayItem(in, i);
        const char *role = str_of(m, "role");
        cJSON *out = NULL;
        if (!role) {
            e = base_errf(err, BASE_EINVAL, "model request: messages[%d] has no role", i);
            break;
        }
        if (strcmp(role, "system") == 0 || strcmp(role, "developer") == 0) {
            char *t = content_text(m);
            if (t && i == 0 && !*sys) {
                *sys = t;
                continue;
            }
            /* A later system message (the ledger, a nudge) is user text:
             * the leading system message stays byte-stable. */
            out = t ? text_message("user", t) : NULL;
            base_free(t);
        } else if (strcmp(role, "user") == 0) {
            out = user_message(m);
        } else if (strcmp(role, "tool") == 0 || strcmp(role, "function") == 0) {
            out = tool_turn(m, map, nmap, flags);
        } else if (strcmp(role, "assistant") == 0) {
            char *t = content_text(m);
            const cJSON *tcs = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
            int k = cJSON_IsArray(tcs) ? cJSON_GetArraySize(tcs) : 0;
            if (!t) {
                e = BASE_ENOMEM;
            } else if (k == 0) {
                out = text_message("assistant", t);
            } else if (flags & MODEL_WIRE_TOOLS_IN_TEXT) {
                out = calls_as_text(t, tcs);
            } else {
                /* One call per turn, each followed by its own result. */
                int c = 0;
                const cJSON *tc;
                cJSON_ArrayForEach(tc, tcs)
                {
                    cJSON *turn = call_turn(c == 0 ? t : "", tc);
                    if (!turn) {
                        e = BASE_ENOMEM;
                        break;
                    }
                    cJSON_AddItemToArray(flat, turn);
                    char wid[10];
                    model_wire_id(str_of(tc, "id"), wid);
                    for (int j = i + 1; j < n; j++) {
                        const cJSON *r = cJSON_GetArrayItem(in, j);
                        const char *rr = str_of(r, "role");
                        if (!rr || strcmp(rr, "tool") != 0)
                            break;
                        char rid[10];
                        model_wire_id(str_of(r, "tool_call_id"), rid);
                        if (done[j] || strcmp(rid, wid) != 0)
                            continue;
                        cJSON *res = tool_turn(r, map, nmap, flags);
                        if (!res) {
                            e = BASE_ENOMEM;
                            break;
                        }
                        cJSON_AddItemToArray(flat, res);
                        done[j] = 1;
                    }
                    c++;
                }
            }
            base_free(t);
            if (e || (k > 0 && !(flags & MODEL_WIRE_TOOLS_IN_TEXT)))
                continue;
        } else {
            e = base_errf(err, BASE_EINVAL, "model request: messages[%d] has an unknown role '%.20s'",
                          i, role);
            break;
        }
        if (!out) {
            e = BASE_ENOMEM;
            break;
        }
        cJSON_AddItemToArray(flat, out);
    }
    base_free(done);
    if (e == BASE_ENOMEM)
        base_errf(err, e, "model request: out of memory");
    return e;
}

/* ---- pass 3: order ------------------------------------------------------------------ */

static int has_calls(const cJSON *m)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) > 0;
}

/* Moves flat's messages into out in an order every template accepts. */
static base_err order(cJSON *flat, cJSON *out)
{
    cJSON *last = NULL;
    while (cJSON_GetArraySize(flat) > 0) {
        cJSON *m = cJSON_DetachItemFromArray(flat, 0);
        const char *role = str_of(m, "role");
        const char *lr = last ? str_of(last, "role") : NULL;
        if (strcmp(role, "user") == 0 && lr && strcmp(lr, "user") == 0) {
            int ok = merge_user(last, m);
            cJSON_Delete(m);
            if (!ok)
                return BASE_ENOMEM;
            continue;
        }
        if (strcmp(role, "assistant") == 0 && lr && strcmp(lr, "assistant") == 0 &&
            !has_calls(last)) {
            /* Two assistant turns in a row: one turn, texts joined, the
             * call (if any) kept. */
            const char *a = str_of(last, "content");
            const char *b = str_of(m, "content");
            cJSON *tcs = cJSON_DetachItemFromObjectCaseSensitive(m, "tool_calls");
            int ok = join_text(last, a ? a : "", "\n\n", b ? b : "");
            if (tcs)
                cJSON_AddItemToObject(last, "tool_calls", tcs);
            cJSON_Delete(m);
            if (!ok)
                return BASE_ENOMEM;
            continue;
        }
        /* The conversation opens with a user turn, and a user turn never
         * follows a tool result directly. */
        int need_user = !lr && strcmp(role, "user") != 0;
        int need_ack = lr && strcmp(lr, "tool") == 0 && strcmp(role, "user") == 0;
        if (need_user || need_ack) {
            cJSON *insert = need_user ? text_message("user", "Continue.")
                                      : text_message("assistant", MODEL_WIRE_ACK);
            if (!insert) {
                cJSON_Delete(m);
                return BASE_ENOMEM;
            }
            cJSON_AddItemToArray(out, insert);
        }
        cJSON_AddItemToArray(out, m);
        last = m;
    }
    return BASE_OK;
}

/* Text-only parts become a string. */
static int finish_content(cJSON *out)
{
    cJSON *m;
    cJSON_ArrayForEach(m, out)
    {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (cJSON_IsArray(c) && !has_media(c)) {
            char *t = content_text(m);
            int ok = t && join_text(m, "", "", t);
            base_free(t);
            if (!ok)
                return 0;
        }
    }
    return 1;
}

/* The tools described for the text fallback. */
static base_err tools_text(base_buf *b, const cJSON *tools)
{
    base_err e = base_buf_append_str(
        b, "\n\nYou can use these tools. To call one, answer with exactly one JSON object "
           "{\"tool\": \"NAME\", \"arguments\": {...}} and nothing else; one call per answer. "
           "The result comes back in the next message.\nTools:");
    const cJSON *t;
    cJSON_ArrayForEach(t, tools)
    {
        const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
        const char *name = str_of(fn, "name");
        const char *desc = str_of(fn, "description");
        char *p = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(fn, "parameters"));
        if (!e && name)
            e = base_buf_printf(b, "\n- %s: %s Arguments (JSON Schema): %s", name, desc ? desc : "",
                                p ? p : "{}");
        free(p);
    }
    return e;
}

base_err model_wire_messages(const cJSON *messages, const cJSON *tools, unsigned flags,
                             cJSON **out, char *err)
{
    if (!cJSON_IsArray(messages) || !out)
        return base_errf(err, BASE_EINVAL, "model request: messages must be an array");
    int n = cJSON_GetArraySize(messages);
    /* Pass 1: wire id -> function name. */
    int ncalls = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, messages)
    ncalls += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "tool_calls"));
    call_name *map = base_calloc((size_t)ncalls + 1, sizeof *map);
    if (!map)
        return base_errf(err, BASE_ENOMEM, "model request: out of memory");
    int nmap = 0;
    cJSON_ArrayForEach(m, messages)
    {
        const cJSON *tc;
        cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(m, "tool_calls"))
        {
            if (nmap >= ncalls)
                break;
            model_wire_id(str_of(tc, "id"), map[nmap].id);
            map[nmap].name = str_of(cJSON_GetObjectItemCaseSensitive(tc, "function"), "name");
            nmap++;
        }
    }
    char *sys = NULL;
    cJSON *flat = cJSON_CreateArray();
    cJSON *res = cJSON_CreateArray();
    base_err e = flat && res ? flatten(messages, n, map, nmap, flags, flat, &sys, err) : BASE_ENOMEM;
    base_free(map);
    if (!e && (flags & MODEL_WIRE_TOOLS_IN_TEXT) && cJSON_GetArraySize(tools) > 0) {
        base_buf b;
        base_buf_init(&b, TEXT_MAX);
        e = base_buf_append_str(&b, sys ? sys : "");
        if (!e)
            e = tools_text(&b, tools);
        if (!e)
            e = base_buf_append(&b, "", 1);
        if (!e) {
            base_free(sys);
            sys = base_strdup((const char *)b.data);
            e = sys ? BASE_OK : BASE_ENOMEM;
        }
        base_buf_fini(&b);
    }
    if (!e)
        e = order(flat, res);
    if (!e && !finish_content(res))
        e = BASE_ENOMEM;
    if (!e && sys && (flags & MODEL_WIRE_SYSTEM_IN_USER)) {
        cJSON *first = cJSON_GetArrayItem(res, 0);
        const char *fr = first ? str_of(first, "role") : NULL;
        if (fr && strcmp(fr, "user") == 0) {
            cJSON *sm = text_message("user", sys);
            if (!sm || !merge_user(sm, first)) {
                cJSON_Delete(sm);
                e = BASE_ENOMEM;
            } else {
                cJSON_ReplaceItemInArray(res, 0, sm);
            }
        } else {
            cJSON *sm = text_message("user", sys);
            if (sm)
                cJSON_InsertItemInArray(res, 0, sm);
            else
                e = BASE_ENOMEM;
        }
    } else if (!e && sys) {
        cJSON *sm = text_message("system", sys);
        if (sm)
            cJSON_InsertItemInArray(res, 0, sm);
        else
            e = BASE_ENOMEM;
    }
    base_free(sys);
    cJSON_Delete(flat);
    if (e) {
        cJSON_Delete(res);
        if (e == BASE_ENOMEM)
            base_errf(err, e, "model request: out of memory");
        return e;
    }
    *out = res;
    return BASE_OK;
}

/* ---- tools -------------------------------------------------------------------------- */

/* "target_id" -> "target id": a description for a property that has none. */
static cJSON *name_words(const char *name)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", name && name[0] ? name : "value");
    for (char *p = buf; *p; p++)
        if (*p == '_' || *p == '-')
            *p = ' ';
    return cJSON_CreateString(buf);
}

static int fix_schema(cJSON *s, int depth);

static int fix_list(cJSON *arr, int depth)
{
    cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        if (!fix_schema(x, depth + 1))
            return 0;
    }
    return 1;
}

/* Makes one schema node portable; 0 on ENOMEM. */
static int fix_schema(cJSON *s, int depth)
{
    if (!cJSON_IsObject(s) || depth > 32)
        return 1;
    cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (cJSON_IsArray(type)) {
        cJSON *kinds = cJSON_CreateArray();
        const cJSON *t;
        if (!kinds)
            return 0;
        cJSON_ArrayForEach(t, type)
        {
            if (cJSON_IsString(t) && strcmp(t->valuestring, "null") != 0) {
                cJSON *o = cJSON_CreateObject();
                if (!o || !cJSON_AddStringToObject(o, "type", t->valuestring)) {
                    cJSON_Delete(o);
                    cJSON_Delete(kinds);
                    return 0;
                }
                cJSON_AddItemToArray(kinds, o);
            }
        }
        int k = cJSON_GetArraySize(kinds);
        if (k == 1) {
            cJSON *one = cJSON_CreateString(str_of(cJSON_GetArrayItem(kinds, 0), "type"));
            cJSON_Delete(kinds);
            if (!one)
                return 0;
            cJSON_ReplaceItemInObjectCaseSensitive(s, "type", one);
        } else if (k == 0) {
            cJSON_Delete(kinds);
            cJSON_DeleteItemFromObjectCaseSensitive(s, "type");
        } else {
            cJSON_DeleteItemFromObjectCaseSensitive(s, "type");
            if (cJSON_GetObjectItemCaseSensitive(s, "anyOf"))
                cJSON_Delete(kinds);
            else
                cJSON_AddItemToObject(s, "anyOf", kinds);
        }
    }
    cJSON *one_of = cJSON_GetObjectItemCaseSensitive(s, "oneOf");
    if (one_of) {
        cJSON *d = cJSON_DetachItemViaPointer(s, one_of);
        if (cJSON_GetObjectItemCaseSensitive(s, "anyOf"))
            cJSON_Delete(d);
        else
            cJSON_AddItemToObject(s, "anyOf", d);
    }
    cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        if (!cJSON_IsObject(p))
            continue;
        if (!str_of(p, "description")) {
            cJSON_DeleteItemFromObjectCaseSensitive(p, "description");
            cJSON *d = name_words(p->string);
            if (!d)
                return 0;
            cJSON_AddItemToObject(p, "description", d);
        }
        if (!fix_schema(p, depth + 1))
            return 0;
    }
    return fix_schema(cJSON_GetObjectItemCaseSensitive(s, "items"), depth + 1) &&
           fix_schema(cJSON_GetObjectItemCaseSensitive(s, "additionalProperties"), depth + 1) &&
           fix_list(cJSON_GetObjectItemCaseSensitive(s, "anyOf"), depth) &&
           fix_list(cJSON_GetObjectItemCaseSensitive(s, "allOf"), depth);
}

base_err model_wire_tools(const cJSON *tools, cJSON **out, char *err)
{
    if (!cJSON_IsArray(tools) || !out)
        return base_errf(err, BASE_EINVAL, "model request: tools must be an array");
    cJSON *t = cJSON_Duplicate(tools, 1);
    if (!t)
        return base_errf(err, BASE_ENOMEM, "model request: out of memory");
    cJSON *x;
    cJSON_ArrayForEach(x, t)
    {
        cJSON *fn = cJSON_GetObjectItemCaseSensitive(x, "function");
        if (!cJSON_IsObject(fn))
            continue;
        if (!str_of(fn, "description")) {
            cJSON_DeleteItemFromObjectCaseSensitive(fn, "description");
            cJSON *d = name_words(str_of(fn, "name"));
            if (!d)
                goto nomem;
            cJSON_AddItemToObject(fn, "description", d);
        }
        if (!fix_schema(cJSON_GetObjectItemCaseSensitive(fn, "parameters"), 0))
            goto nomem;
    }
    *out = t;
    return BASE_OK;
nomem:
    cJSON_Delete(t);
    return base_errf(err, BASE_ENOMEM, "model request: out of memory");
}

/* ---- calls written as text ------------------------------------------------------------ */

base_err model_wire_calls_from_text(const char *text, cJSON **calls, char **rest, char *err)
{
    *calls = NULL;
    *rest = NULL;
    if (!text)
        return BASE_OK;
    size_t n = strlen(text);
    base_buf keep;
    base_buf_init(&keep, TEXT_MAX);
    cJSON *arr = NULL;
    size_t from = 0; /* start of the text not yet copied to keep */
    int tries = 0;
    base_err e = BASE_OK;
    for (size_t i = 0; i < n && tries < SCAN_MAX && !e; i++) {
        if (text[i] != '{')
            continue;
        tries++;
        const char *end = NULL;
        cJSON *o = cJSON_ParseWithLengthOpts(text + i, n - i, &end, 0);
        const char *name = o ? str_of(o, "tool") : NULL;
        if (!name && o)
            name = str_of(o, "name");
        cJSON *args = o ? cJSON_GetObjectItemCaseSensitive(o, "arguments") : NULL;
        if (!cJSON_IsObject(o) || !name || !name[0] || (args && !cJSON_IsObject(args)) || !end) {
            cJSON_Delete(o);
            continue;
        }
        char *as = args ? cJSON_PrintUnformatted(args) : NULL;
        char key[64];
        snprintf(key, sizeof key, "%zu:", i);
        base_buf idb;
        base_buf_init(&idb, TEXT_MAX);
        char wid[10];
        e = base_buf_append_str(&idb, key);
        if (!e)
            e = base_buf_append(&idb, text + i, (size_t)(end - (text + i)));
        if (!e)
            e = base_buf_append(&idb, "", 1);
        if (!e)
            model_wire_id((const char *)idb.data, wid);
        base_buf_fini(&idb);
        if (!arr && !e)
            arr = cJSON_CreateArray();
        cJSON *c = cJSON_CreateObject();
        cJSON *f = c ? cJSON_AddObjectToObject(c, "function") : NULL;
        if (e || !arr || !f || (args && !as) || !cJSON_AddStringToObject(c, "id", wid) ||
            !cJSON_AddStringToObject(c, "type", "function") ||
            !cJSON_AddStringToObject(f, "name", name) ||
            !cJSON_AddStringToObject(f, "arguments", as ? as : "{}")) {
            cJSON_Delete(c);
            e = BASE_ENOMEM;
        } else {
            cJSON_AddItemToArray(arr, c);
            e = base_buf_append(&keep, text + from, i - from);
            from = (size_t)(end - text);
            i = from - 1;
        }
        free(as);
        cJSON_Delete(o);
    }
    if (!e)
        e = base_buf_append(&keep, text + from, n - from);
    if (!e)
        e = base_buf_append(&keep, "", 1);
    if (e) {
        base_buf_fini(&keep);
        cJSON_Delete(arr);
        return base_errf(err, BASE_ENOMEM, "model reply: out of memory");
    }
    /* What is left, without the code fences that held the calls and
     * without trailing space; NULL when nothing is. */
    char *t = (char *)keep.data;
    for (char *f = strstr(t, "```"); f; f = strstr(f, "```")) {
        char *g = f + 3;
        if (strncmp(g, "json", 4) == 0)
            g += 4;
        while (*g == ' ' || *g == '\n' || *g == '\r' || *g == '\t')
            g++;
        if (strncmp(g, "```", 3) == 0) {
            memmove(f, g + 3, strlen(g + 3) + 1);
        } else {
            f += 3;
        }
    }
    size_t tl = strlen(t);
    while (tl > 0 && (t[tl - 1] == ' ' || t[tl - 1] == '\n' || t[tl - 1] == '\r' || t[tl - 1] == '\t'))
        t[--tl] = '\0';
    if (tl > 0 || !arr) {
        *rest = base_strdup(t);
        if (!*rest) {
            base_buf_fini(&keep);
            cJSON_Delete(arr);
            return base_errf(err, BASE_ENOMEM, "model reply: out of memory");
        }
    }
    base_buf_fini(&keep);
    *calls = arr;
    return BASE_OK;
}

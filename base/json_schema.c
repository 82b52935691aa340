/* base/json_schema.c: checking a JSON value against a JSON Schema, with
 * errors a person (or a model) can act on.
 *
 * The subset fovea's own schemas use: type (one or a list), properties with
 * no unknown keys (additionalProperties is always false), required, enum,
 * minimum/maximum, minLength/maxLength (a string without maxLength is capped
 * at opts->text_max), items/minItems/maxItems and oneOf (the first branch
 * whose type fits explains a miss). Errors name the path ("'target.index'
 * must be an integer"). Used by the tool registry for tool arguments and by
 * the model client for JSON answers, so both speak the same words. Pure,
 * reentrant; recursion is bounded by the schema's depth (a constant of the
 * caller's), not by the value's.
 */
#include "base/json_schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct chk {
    const char *tool;
    char *err;
    const base_json_schema_opts *o;
} chk;

__attribute__((format(printf, 2, 3))) static base_err bad(const chk *c, const char *fmt, ...)
{
    char msg[BASE_ERRBUF_SIZE - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return base_errf(c->err, BASE_EINVAL, "%s: %s", c->tool, msg);
}

static int type_is(const cJSON *v, const char *type)
{
    if (strcmp(type, "string") == 0)
        return cJSON_IsString(v);
    if (strcmp(type, "boolean") == 0)
        return cJSON_IsBool(v);
    if (strcmp(type, "object") == 0)
        return cJSON_IsObject(v);
    if (strcmp(type, "array") == 0)
        return cJSON_IsArray(v);
    if (strcmp(type, "null") == 0)
        return cJSON_IsNull(v);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return 0;
    if (strcmp(type, "number") == 0)
        return 1;
    if (strcmp(type, "integer") == 0)
        return v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9e15;
    return 0;
}

/* "a string", "an integer", "a string or an object". */
static void type_words(const cJSON *type, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t k = 0;
    const cJSON *t;
    int i = 0, count = cJSON_IsArray(type) ? cJSON_GetArraySize(type) : 1;
    const cJSON *one = cJSON_IsArray(type) ? type->child : type;
    for (t = one; t && k < n; t = cJSON_IsArray(type) ? t->next : NULL, i++) {
        const char *w = cJSON_IsString(t) ? t->valuestring : "?";
        const char *art = (w[0] == 'a' || w[0] == 'i' || w[0] == 'o') ? "an" : "a";
        k += (size_t)snprintf(buf + k, n - k, "%s%s %s", i == 0 ? "" : i == count - 1 ? " or " : ", ",
                              art, w);
    }
}

static base_err check_value(const chk *c, const char *path, const cJSON *v, const cJSON *sch);

/* Does v match a schema? (oneOf branches, quiet). */
static int matches(const chk *c, const cJSON *v, const cJSON *sch)
{
    char quiet[BASE_ERRBUF_SIZE];
    chk q = {c->tool, quiet, c->o};
    return check_value(&q, "", v, sch) == BASE_OK;
}

static base_err check_object(const chk *c, const char *path, const cJSON *v, const cJSON *sch,
                             const cJSON *extra)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(sch, "properties");
    const cJSON *f;
    cJSON_ArrayForEach(f, v)
    {
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(props, f->string);
        if (!ps && extra)
            ps = cJSON_GetObjectItemCaseSensitive(extra, f->string);
        char sub[160];
        snprintf(sub, sizeof sub, "%s%s%.60s", path, path[0] ? "." : "", f->string);
        if (!ps) {
            char known[400] = "";
            size_t k = 0;
            const cJSON *p;
            cJSON_ArrayForEach(p, props)
            {
                if (k < sizeof known)
                    k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", k ? ", " : "",
                                          p->string);
            }
            return bad(c, "argument '%s' is not known (%s%s)", sub, known[0] ? known : "none",
                       extra && !path[0] && c->o->extra_hint ? c->o->extra_hint : "");
        }
        base_err e = check_value(c, sub, f, ps);
        if (e)
            return e;
    }
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(sch, "required");
    cJSON_ArrayForEach(f, req)
    {
        if (cJSON_IsString(f) && !cJSON_GetObjectItemCaseSensitive(v, f->valuestring))
            return bad(c, "'%s%s%s' is required", path, path[0] ? "." : "", f->valuestring);
    }
    return BASE_OK;
}

static base_err check_value(const chk *c, const char *path, const cJSON *v, const cJSON *sch)
{
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(sch, "oneOf");
    if (cJSON_IsArray(one)) {
        const cJSON *b;
        cJSON_ArrayForEach(b, one)
        {
            if (matches(c, v, b))
                return BASE_OK;
        }
        /* Say why by the first branch whose type fits, else list the types. */
        cJSON_ArrayForEach(b, one)
        {
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "type");
            if (cJSON_IsString(t) && type_is(v, t->valuestring))
                return check_value(c, path, v, b);
        }
        char words[160] = "";
        size_t k = 0;
        cJSON_ArrayForEach(b, one)
        {
            char w[64];
            type_words(cJSON_GetObjectItemCaseSensitive(b, "type"), w, sizeof w);
            k += (size_t)snprintf(words + k, sizeof words - k, "%s%s", k ? " or " : "", w);
            if (k >= sizeof words)
                break;
        }
        return bad(c, "'%s' must be %s", path, words);
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(sch, "type");
    if (type) {
        int ok = 0;
        if (cJSON_IsString(type))
            ok = type_is(v, type->valuestring);
        if (cJSON_IsArray(type)) {
            const cJSON *t;
            cJSON_ArrayForEach(t, type) ok |= cJSON_IsString(t) && type_is(v, t->valuestring);
        }
        if (!ok) {
            char w[96];
            type_words(type, w, sizeof w);
            return bad(c, "'%s' must be %s", path, w);
        }
    }
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(sch, "enum");
    if (cJSON_IsArray(en)) {
        const cJSON *x;
        int hit = 0;
        char list[240] = "";
        size_t k = 0;
        cJSON_ArrayForEach(x, en)
        {
            if (cJSON_IsString(x) && cJSON_IsString(v) && strcmp(x->valuestring, v->valuestring) == 0)
                hit = 1;
            if (cJSON_IsNumber(x) && cJSON_IsNumber(v) && x->valuedouble == v->valuedouble)
                hit = 1;
            if (cJSON_IsString(x) && k < sizeof list)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", k ? ", " : "",
                                      x->valuestring);
        }
        if (!hit)
            return bad(c, "'%s' must be one of: %s", path, list);
    }
    if (cJSON_IsNumber(v)) {
        const cJSON *mn = cJSON_GetObjectItemCaseSensitive(sch, "minimum");
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(sch, "maximum");
        if (cJSON_IsNumber(mn) && v->valuedouble < mn->valuedouble)
            return bad(c, "'%s' must be at least %g", path, mn->valuedouble);
        if (cJSON_IsNumber(mx) && v->valuedouble > mx->valuedouble)
            return bad(c, "'%s' must be at most %g", path, mx->valuedouble);
    }
    if (cJSON_IsString(v)) {
        size_t len = strlen(v->valuestring);
        const cJSON *mn = cJSON_GetObjectItemCaseSensitive(sch, "minLength");
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(sch, "maxLength");
        if (cJSON_IsNumber(mn) && (double)len < mn->valuedouble)
            return bad(c, "'%s' must not be empty", path);
        double cap = cJSON_IsNumber(mx) ? mx->valuedouble : (double)c->o->text_max;
        if ((double)len > cap)
            return bad(c, "'%s' is longer than %g bytes", path, cap);
    }
    if (cJSON_IsArray(v)) {
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(sch, "items");
        const cJSON *mx = cJSON_GetObjectItemCaseSensitive(sch, "maxItems");
        const cJSON *mn = cJSON_GetObjectItemCaseSensitive(sch, "minItems");
        int n = cJSON_GetArraySize(v);
        if (cJSON_IsNumber(mx) && n > mx->valuedouble)
            return bad(c, "'%s' has more than %g items", path, mx->valuedouble);
        if (cJSON_IsNumber(mn) && n < mn->valuedouble)
            return bad(c, "'%s' needs at least %g item%s", path, mn->valuedouble,
                       mn->valuedouble == 1 ? "" : "s");
        int i = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, v)
        {
            char sub[160];
            snprintf(sub, sizeof sub, "%s[%d]", path, i++);
            base_err e = items ? check_value(c, sub, x, items) : BASE_OK;
            if (e)
                return e;
        }
    }
    if (cJSON_IsObject(v) && (cJSON_GetObjectItemCaseSensitive(sch, "properties") ||
                              (type && cJSON_IsString(type) &&
                               strcmp(type->valuestring, "object") == 0)))
        return check_object(c, path, v, sch, NULL);
    return BASE_OK;
}

base_err base_json_schema_check(const char *who, const cJSON *schema, const cJSON *value,
                                const base_json_schema_opts *opts, char *err)
{
    base_json_schema_opts dflt = {NULL, NULL, BASE_JSON_SCHEMA_TEXT_MAX};
    chk c = {who ? who : "value", err, opts ? opts : &dflt};
    if (!schema)
        return base_errf(err, BASE_EINVAL, "%s: no schema", c.tool);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    if (c.o->extra || (cJSON_IsString(type) && strcmp(type->valuestring, "object") == 0)) {
        if (value && !cJSON_IsObject(value))
            return bad(&c, "arguments must be a JSON object");
        cJSON empty;
        memset(&empty, 0, sizeof empty);
        empty.type = cJSON_Object;
        return check_object(&c, "", value ? value : &empty, schema, c.o->extra);
    }
    return check_value(&c, "", value, schema);
}

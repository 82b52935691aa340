/* base/json_schema.c: checking a JSON value against a JSON Schema, with
 * errors a person (or a model) can act on.
 *
 * The subset fovea's own schemas use: type (one or a list), properties with
 * no unknown keys (unless additionalProperties says otherwise, or
 * opts->open_objects), required, enum, minimum/maximum, minLength/maxLength
 * (a string without maxLength is capped at opts->text_max), items/minItems/
 * maxItems and oneOf (the first branch whose type fits explains a miss;
 * oneOf is read as "any of", which every schema fovea writes means).
 * Errors name the path ("'target.index' must be an integer"). Used by the
 * tool registry for tool arguments and by the model client for JSON
 * answers, so both speak the same words. Pure, reentrant; recursion is
 * bounded by the schema's depth (a constant of the caller's, or checked by
 * base_json_schema_valid for a user's schema), not by the value's.
 *
 * For schemas users write (`fovea run --answer-schema`), the keywords such
 * schemas commonly use as well: anyOf, allOf, const, enum of any JSON
 * values, exclusiveMinimum/exclusiveMaximum (numbers, draft 6 on),
 * multipleOf, pattern (PCRE2 through base/regex.h, with its limits),
 * additionalProperties (a boolean or a schema), minProperties/
 * maxProperties and uniqueItems. minLength counts characters (code points),
 * as JSON Schema does; maxLength stays a byte cap (tool arguments are
 * capped in bytes). base_json_schema_valid refuses anything else (not,
 * $ref, if/then/else, patternProperties, prefixItems ...) by name rather
 * than let a constraint be ignored silently; annotations (title,
 * description, default, examples, format, $schema, $id, $comment, $defs)
 * are accepted and not checked.
 */
#include "base/json_schema.h"

#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/regex.h"

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

/* oneOf and anyOf (both read as "any of"): BASE_OK when a branch matches;
 * else the first branch whose type fits explains the miss, else the types
 * are listed. */
static base_err check_any(const chk *c, const char *path, const cJSON *v, const cJSON *list)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, list)
    {
        if (matches(c, v, b))
            return BASE_OK;
    }
    cJSON_ArrayForEach(b, list)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "type");
        if (cJSON_IsString(t) && type_is(v, t->valuestring))
            return check_value(c, path, v, b);
    }
    char words[160] = "";
    size_t k = 0;
    cJSON_ArrayForEach(b, list)
    {
        char w[64];
        type_words(cJSON_GetObjectItemCaseSensitive(b, "type"), w, sizeof w);
        k += (size_t)snprintf(words + k, sizeof words - k, "%s%s", k ? " or " : "", w);
        if (k >= sizeof words)
            break;
    }
    return bad(c, "'%s' must be %s", path, words);
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
        /* A key the schema does not name: additionalProperties decides
         * (a schema checks it, true lets it be); without the keyword the
         * object is closed, unless the caller asked for JSON Schema's own
         * default (open). */
        const cJSON *ap = cJSON_GetObjectItemCaseSensitive(sch, "additionalProperties");
        if (!ps && cJSON_IsObject(ap))
            ps = ap;
        if (!ps && (cJSON_IsTrue(ap) || (!ap && c->o->open_objects)))
            continue;
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
    const cJSON *mnp = cJSON_GetObjectItemCaseSensitive(sch, "minProperties");
    const cJSON *mxp = cJSON_GetObjectItemCaseSensitive(sch, "maxProperties");
    int np = cJSON_GetArraySize(v);
    if (cJSON_IsNumber(mnp) && np < mnp->valuedouble)
        return bad(c, "'%s' needs at least %g member%s", path, mnp->valuedouble,
                   mnp->valuedouble == 1 ? "" : "s");
    if (cJSON_IsNumber(mxp) && np > mxp->valuedouble)
        return bad(c, "'%s' has more than %g members", path, mxp->valuedouble);
    return BASE_OK;
}

/* The number of code points of a UTF-8 string (continuation bytes are not
 * counted; invalid bytes count as one each). */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The JSON text of v for a message, cut to fit n. */
static void json_words(const cJSON *v, char *buf, size_t n)
{
    char *t = cJSON_PrintUnformatted(v);
    snprintf(buf, n, "%s", t ? t : "?");
    if (t && strlen(t) >= n && n > 4)
        memcpy(buf + n - 4, "...", 4);
    cJSON_free(t);
}

/* anyOf/allOf and the keywords that only user schemas use (see the file
 * comment). Runs before the type check; BASE_OK when none applies. */
static base_err check_more(const chk *c, const char *path, const cJSON *v, const cJSON *sch)
{
    const cJSON *any = cJSON_GetObjectItemCaseSensitive(sch, "anyOf");
    if (cJSON_IsArray(any)) {
        base_err e = check_any(c, path, v, any);
        if (e)
            return e;
    }
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(sch, "allOf");
    const cJSON *b;
    cJSON_ArrayForEach(b, all)
    {
        base_err e = check_value(c, path, v, b);
        if (e)
            return e;
    }
    const cJSON *cn = cJSON_GetObjectItemCaseSensitive(sch, "const");
    if (cn && !cJSON_Compare(v, cn, 1)) {
        char w[120];
        json_words(cn, w, sizeof w);
        return bad(c, "'%s' must be %s", path, w);
    }
    if (cJSON_IsNumber(v)) {
        const cJSON *xmn = cJSON_GetObjectItemCaseSensitive(sch, "exclusiveMinimum");
        const cJSON *xmx = cJSON_GetObjectItemCaseSensitive(sch, "exclusiveMaximum");
        const cJSON *mul = cJSON_GetObjectItemCaseSensitive(sch, "multipleOf");
        if (cJSON_IsNumber(xmn) && !(v->valuedouble > xmn->valuedouble))
            return bad(c, "'%s' must be more than %g", path, xmn->valuedouble);
        if (cJSON_IsNumber(xmx) && !(v->valuedouble < xmx->valuedouble))
            return bad(c, "'%s' must be less than %g", path, xmx->valuedouble);
        if (cJSON_IsNumber(mul) && mul->valuedouble > 0) {
            double q = v->valuedouble / mul->valuedouble;
            if (!isfinite(q) || fabs(q - nearbyint(q)) > 1e-9 * fmax(1.0, fabs(q)))
                return bad(c, "'%s' must be a multiple of %g", path, mul->valuedouble);
        }
    }
    const cJSON *pat = cJSON_GetObjectItemCaseSensitive(sch, "pattern");
    if (cJSON_IsString(v) && cJSON_IsString(pat)) {
        base_regex *re = NULL;
        char rerr[BASE_ERRBUF_SIZE] = "";
        int hit = 0;
        base_err e = base_regex_compile(pat->valuestring, strlen(pat->valuestring), 0, &re, rerr);
        if (!e)
            e = base_regex_match(re, v->valuestring, strlen(v->valuestring), &hit, rerr);
        base_regex_destroy(re);
        if (e == BASE_ENOMEM)
            return base_errf(c->err, BASE_ENOMEM, "%s: out of memory", c->tool);
        if (e)
            return bad(c, "'%s': pattern %.80s: %s", path, pat->valuestring, rerr);
        if (!hit)
            return bad(c, "'%s' must match the pattern %.120s", path, pat->valuestring);
    }
    const cJSON *uni = cJSON_GetObjectItemCaseSensitive(sch, "uniqueItems");
    if (cJSON_IsArray(v) && cJSON_IsTrue(uni)) {
        int i = 0;
        for (const cJSON *x = v->child; x; x = x->next, i++) {
            int j = i + 1;
            for (const cJSON *y = x->next; y; y = y->next, j++)
                if (cJSON_Compare(x, y, 1))
                    return bad(c, "'%s' has the same item twice ([%d] and [%d])", path, i, j);
        }
    }
    return BASE_OK;
}

static base_err check_value(const chk *c, const char *path, const cJSON *v, const cJSON *sch)
{
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(sch, "oneOf");
    if (cJSON_IsArray(one))
        return check_any(c, path, v, one);
    base_err me = check_more(c, path, v, sch);
    if (me)
        return me;
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
            /* Any other JSON value (true, null, an object) by equality. */
            if (!cJSON_IsString(x) && !cJSON_IsNumber(x) && cJSON_Compare(x, v, 1))
                hit = 1;
            if (k < sizeof list) {
                char w[80];
                if (cJSON_IsString(x))
                    snprintf(w, sizeof w, "%s", x->valuestring);
                else
                    json_words(x, w, sizeof w);
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", k ? ", " : "", w);
            }
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
        if (cJSON_IsNumber(mn) && len == 0 && mn->valuedouble > 0)
            return bad(c, "'%s' must not be empty", path);
        if (cJSON_IsNumber(mn) && (double)utf8_chars(v->valuestring) < mn->valuedouble)
            return bad(c, "'%s' must be at least %g characters long", path, mn->valuedouble);
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
                              cJSON_GetObjectItemCaseSensitive(sch, "additionalProperties") ||
                              (c->o->open_objects &&
                               cJSON_GetObjectItemCaseSensitive(sch, "required")) ||
                              cJSON_GetObjectItemCaseSensitive(sch, "minProperties") ||
                              cJSON_GetObjectItemCaseSensitive(sch, "maxProperties") ||
                              (type && cJSON_IsString(type) &&
                               strcmp(type->valuestring, "object") == 0)))
        return check_object(c, path, v, sch, NULL);
    return BASE_OK;
}

base_err base_json_schema_check(const char *who, const cJSON *schema, const cJSON *value,
                                const base_json_schema_opts *opts, char *err)
{
    base_json_schema_opts dflt = {NULL, NULL, BASE_JSON_SCHEMA_TEXT_MAX, 0};
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

/* ---- is it a schema? ------------------------------------------------------------------ */

#define SCHEMA_DEPTH_MAX 32

/* Keywords that say nothing the checker must enforce. */
static const char *const ANNOTATIONS[] = {"title",    "description", "default",  "examples",
                                          "format",   "$schema",     "$id",      "$comment",
                                          "$defs",    "definitions", "readOnly", "writeOnly",
                                          "deprecated"};
/* Keywords whose value is a count (a non-negative integer). */
static const char *const COUNTS[] = {"minLength", "maxLength",     "minItems",
                                     "maxItems",  "minProperties", "maxProperties"};
/* Keywords whose value is a number. */
static const char *const NUMBERS[] = {"minimum", "maximum", "exclusiveMinimum",
                                      "exclusiveMaximum", "multipleOf"};
static const char *const TYPES[] = {"string", "number", "integer", "boolean",
                                    "object", "array",  "null"};

static int in(const char *k, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k, list[i]) == 0)
            return 1;
    return 0;
}
#define IN(k, list) in(k, list, sizeof list / sizeof list[0])

static base_err valid_at(const cJSON *sch, const char *path, int depth, char *err);

static base_err valid_type(const cJSON *t, const char *path, char *err)
{
    if (cJSON_IsString(t) && IN(t->valuestring, TYPES))
        return BASE_OK;
    if (cJSON_IsArray(t) && t->child) {
        const cJSON *x;
        cJSON_ArrayForEach(x, t)
        {
            if (!cJSON_IsString(x) || !IN(x->valuestring, TYPES))
                return base_errf(err, BASE_EINVAL, "%s: 'type' lists something that is not a "
                                                   "JSON type", path);
        }
        return BASE_OK;
    }
    return base_errf(err, BASE_EINVAL,
                     "%s: 'type' must be one of string, number, integer, boolean, object, "
                     "array, null (or a list of them)", path);
}

static base_err valid_at(const cJSON *sch, const char *path, int depth, char *err)
{
    if (!cJSON_IsObject(sch))
        return base_errf(err, BASE_EINVAL, "%s: a schema must be a JSON object", path);
    if (depth > SCHEMA_DEPTH_MAX)
        return base_errf(err, BASE_EINVAL, "%s: schemas nested deeper than %d levels", path,
                         SCHEMA_DEPTH_MAX);
    const cJSON *k;
    cJSON_ArrayForEach(k, sch)
    {
        const char *w = k->string;
        char sub[200];
        base_err e = BASE_OK;
        if (IN(w, ANNOTATIONS) || strcmp(w, "const") == 0) {
            continue;
        } else if (strcmp(w, "type") == 0) {
            e = valid_type(k, path, err);
        } else if (IN(w, COUNTS)) {
            if (!cJSON_IsNumber(k) || k->valuedouble < 0 || k->valuedouble != floor(k->valuedouble))
                e = base_errf(err, BASE_EINVAL, "%s: '%s' must be a whole number, 0 or more",
                              path, w);
        } else if (IN(w, NUMBERS)) {
            if (!cJSON_IsNumber(k) || (strcmp(w, "multipleOf") == 0 && !(k->valuedouble > 0)))
                e = base_errf(err, BASE_EINVAL, "%s: '%s' must be a number%s", path, w,
                              strcmp(w, "multipleOf") == 0 ? " above 0" : "");
        } else if (strcmp(w, "uniqueItems") == 0) {
            if (!cJSON_IsBool(k))
                e = base_errf(err, BASE_EINVAL, "%s: 'uniqueItems' must be true or false", path);
        } else if (strcmp(w, "required") == 0) {
            const cJSON *x;
            if (!cJSON_IsArray(k))
                e = base_errf(err, BASE_EINVAL, "%s: 'required' must be a list of names", path);
            cJSON_ArrayForEach(x, (cJSON_IsArray(k) ? k : (const cJSON *)NULL))
            {
                if (!e && !cJSON_IsString(x))
                    e = base_errf(err, BASE_EINVAL, "%s: 'required' must be a list of names",
                                  path);
            }
        } else if (strcmp(w, "enum") == 0) {
            if (!cJSON_IsArray(k) || !k->child)
                e = base_errf(err, BASE_EINVAL, "%s: 'enum' must be a non-empty list", path);
        } else if (strcmp(w, "pattern") == 0) {
            base_regex *re = NULL;
            char rerr[BASE_ERRBUF_SIZE] = "";
            if (!cJSON_IsString(k))
                e = base_errf(err, BASE_EINVAL, "%s: 'pattern' must be a string", path);
            else if (base_regex_compile(k->valuestring, strlen(k->valuestring), 0, &re, rerr))
                e = base_errf(err, BASE_EINVAL, "%s: 'pattern' %.100s: %s", path,
                              k->valuestring, rerr);
            base_regex_destroy(re);
        } else if (strcmp(w, "properties") == 0) {
            if (!cJSON_IsObject(k))
                e = base_errf(err, BASE_EINVAL, "%s: 'properties' must be an object", path);
            const cJSON *p;
            cJSON_ArrayForEach(p, (cJSON_IsObject(k) ? k : (const cJSON *)NULL))
            {
                snprintf(sub, sizeof sub, "%s.properties.%.60s", path, p->string);
                if (!e)
                    e = valid_at(p, sub, depth + 1, err);
            }
        } else if (strcmp(w, "items") == 0) {
            snprintf(sub, sizeof sub, "%s.items", path);
            e = cJSON_IsArray(k) ? base_errf(err, BASE_EINVAL,
                                             "%s: 'items' as a list (tuples) is not supported: "
                                             "give one schema for every item", path)
                                 : valid_at(k, sub, depth + 1, err);
        } else if (strcmp(w, "additionalProperties") == 0) {
            snprintf(sub, sizeof sub, "%s.additionalProperties", path);
            if (!cJSON_IsBool(k))
                e = valid_at(k, sub, depth + 1, err);
        } else if (strcmp(w, "anyOf") == 0 || strcmp(w, "oneOf") == 0 ||
                   strcmp(w, "allOf") == 0) {
            if (!cJSON_IsArray(k) || !k->child)
                e = base_errf(err, BASE_EINVAL, "%s: '%s' must be a non-empty list of schemas",
                              path, w);
            int i = 0;
            const cJSON *b;
            cJSON_ArrayForEach(b, (cJSON_IsArray(k) ? k : (const cJSON *)NULL))
            {
                snprintf(sub, sizeof sub, "%s.%s[%d]", path, w, i++);
                if (!e)
                    e = valid_at(b, sub, depth + 1, err);
            }
        } else {
            e = base_errf(err, BASE_EINVAL,
                          "%s: '%.60s' is not a keyword fovea's schema checker supports (it "
                          "knows type, properties, required, additionalProperties, items, enum, "
                          "const, anyOf, oneOf, allOf, minimum, maximum, exclusiveMinimum, "
                          "exclusiveMaximum, multipleOf, minLength, maxLength, pattern, "
                          "minItems, maxItems, uniqueItems, minProperties, maxProperties)",
                          path, w);
        }
        if (e)
            return e;
    }
    return BASE_OK;
}

base_err base_json_schema_valid(const cJSON *schema, char *err)
{
    return valid_at(schema, "schema", 0, err);
}

/* agent/plan/answer.c: the final answer's checks and answer.json
 * (agent/plan/answer.h).
 *
 * One function decides whether an answer may end a run, for both planners,
 * so the Planner of the loop and the AND/OR answer operator refuse the same
 * answers with the same words. The order of the checks matters for the
 * model that reads the reason: the shape first (a schema error names the
 * path to fix), then emptiness (seed 003's meaningful-output check), then the
 * partial values a shape check lets through (a null where a price was
 * meant). Strings are parsed as JSON only when the value as given does not
 * validate: a schema asking for a string must never see its string turned
 * into a number.
 */
#include "agent/plan/answer.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "agent/session/outline.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/json_schema.h"

base_err agent_answer_schema_load(const char *path, cJSON **out, char *err)
{
    if (!path || !out)
        return base_errf(err, BASE_EINVAL, "answer schema: no file");
    uint8_t *text = NULL;
    size_t n = 0;
    char rerr[BASE_ERRBUF_SIZE] = "";
    base_err e = base_read_file(path, &text, &n, AGENT_ANSWER_SCHEMA_MAX, rerr);
    if (e)
        return base_errf(err, e == BASE_ENOMEM ? BASE_ENOMEM : BASE_EIO, "%s: %s", path, rerr);
    const char *end = NULL;
    cJSON *s = cJSON_ParseWithLengthOpts((const char *)text, n, &end, 0);
    size_t at = end ? (size_t)(end - (const char *)text) : 0;
    base_free(text);
    if (!s)
        return base_errf(err, BASE_EINVAL, "%s is not JSON (at byte %zu)", path, at);
    char verr[BASE_ERRBUF_SIZE] = "";
    if (base_json_schema_valid(s, verr) != BASE_OK) {
        cJSON_Delete(s);
        return base_errf(err, BASE_EINVAL, "%s is not a JSON Schema fovea can check: %s", path,
                         verr);
    }
    *out = s;
    return BASE_OK;
}

/* ---- partial values -------------------------------------------------------------------- */

/* Strings that stand for a value nobody found. Compared trimmed, ignoring
 * case. */
static const char *const PLACEHOLDERS[] = {"",    "null", "undefined", "nan", "n/a", "na",
                                           "tbd", "todo", "...",       "…",   "xxx", "?",
                                           "-",   "—",    "placeholder", "lorem ipsum"};

static int placeholder(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    for (size_t i = 0; i < sizeof PLACEHOLDERS / sizeof PLACEHOLDERS[0]; i++)
        if (strlen(PLACEHOLDERS[i]) == len && strncasecmp(s, PLACEHOLDERS[i], len) == 0)
            return 1;
    return 0;
}

/* Does the schema (NULL = unknown) name v as an allowed value right here: a
 * "null" type for null, or v in an enum or const; through any branch of
 * anyOf/oneOf/allOf. */
static int allowed_here(const cJSON *sch, const cJSON *v, int depth)
{
    if (!sch || depth > AGENT_ANSWER_DEPTH_MAX)
        return 0;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(sch, "type");
    if (cJSON_IsNull(v)) {
        if (cJSON_IsString(t) && strcmp(t->valuestring, "null") == 0)
            return 1;
        const cJSON *x;
        cJSON_ArrayForEach(x, (cJSON_IsArray(t) ? t : (const cJSON *)NULL))
        {
            if (cJSON_IsString(x) && strcmp(x->valuestring, "null") == 0)
                return 1;
        }
    }
    const cJSON *cn = cJSON_GetObjectItemCaseSensitive(sch, "const");
    if (cn && cJSON_Compare(cn, v, 1))
        return 1;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sch, "enum"))
    {
        if (cJSON_Compare(x, v, 1))
            return 1;
    }
    static const char *const comb[] = {"anyOf", "oneOf", "allOf"};
    for (size_t i = 0; i < 3; i++) {
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sch, comb[i]))
        {
            if (allowed_here(x, v, depth + 1))
                return 1;
        }
    }
    return 0;
}

/* The schema of member key (or of the items, key NULL) of an object/array
 * schema; NULL when the schema does not say. The first branch of a
 * combination that says is taken. */
static const cJSON *sub_schema(const cJSON *sch, const char *key, int depth)
{
    if (!sch || depth > AGENT_ANSWER_DEPTH_MAX)
        return NULL;
    const cJSON *s = NULL;
    if (key) {
        s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sch, "properties"),
                                             key);
        const cJSON *ap = cJSON_GetObjectItemCaseSensitive(sch, "additionalProperties");
        if (!s && cJSON_IsObject(ap))
            s = ap;
    } else {
        s = cJSON_GetObjectItemCaseSensitive(sch, "items");
    }
    static const char *const comb[] = {"anyOf", "oneOf", "allOf"};
    for (size_t i = 0; !s && i < 3; i++) {
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(sch, comb[i]))
        {
            s = sub_schema(x, key, depth + 1);
            if (s)
                break;
        }
    }
    return s;
}

/* The first null or placeholder in v (at path) that the schema does not
 * allow there: 1 with why filled, else 0. */
static int partial(const cJSON *v, const cJSON *sch, const char *path, int depth, char *why,
                   size_t n)
{
    if (depth > AGENT_ANSWER_DEPTH_MAX)
        return 0;
    const char *shown = path[0] ? path : "the answer";
    if (cJSON_IsNull(v) && !allowed_here(sch, v, 0)) {
        snprintf(why, n,
                 "the answer is partial: '%s' is null (seed 003: a field without its value "
                 "means the extraction is not finished; find the value, or say on the page "
                 "where it is missing in another field the schema allows)",
                 shown);
        return 1;
    }
    if (cJSON_IsString(v) && placeholder(v->valuestring) && !allowed_here(sch, v, 0)) {
        snprintf(why, n, "the answer is partial: '%s' is the placeholder \"%.40s\", not a value",
                 shown, v->valuestring);
        return 1;
    }
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        int i = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, v)
        {
            char sub[200];
            if (cJSON_IsObject(v))
                snprintf(sub, sizeof sub, "%s%s%.60s", path, path[0] ? "." : "", c->string);
            else
                snprintf(sub, sizeof sub, "%s[%d]", path, i);
            i++;
            const cJSON *cs = sub_schema(sch, cJSON_IsObject(v) ? c->string : NULL, 0);
            if (partial(c, cs, sub, depth + 1, why, n))
                return 1;
        }
    }
    return 0;
}

/* ---- the check ------------------------------------------------------------------------- */

/* The JSON a string holds, read past blanks and a ``` fence; NULL when it
 * holds none. */
static cJSON *json_in_string(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    const char *body = s;
    size_t len = strlen(s);
    if (strncmp(s, "```", 3) == 0) {
        body = strchr(s, '\n');
        if (!body)
            return NULL;
        body++;
        const char *close = strstr(body, "```");
        if (!close)
            return NULL;
        len = (size_t)(close - body);
    } else {
        len = strlen(body);
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    if (!j)
        return NULL;
    /* Only blanks may follow the value. */
    for (; end && end < body + len; end++)
        if (!isspace((unsigned char)*end)) {
            cJSON_Delete(j);
            return NULL;
        }
    return j;
}

base_err agent_answer_check(const cJSON *schema, const cJSON *answer, cJSON **value, char *why)
{
    if (!answer || cJSON_IsNull(answer) || cJSON_IsInvalid(answer))
        return base_errf(why, BASE_EINVAL, "there is no answer: give the final answer");
    base_json_schema_opts so = {NULL, NULL, BASE_JSON_SCHEMA_TEXT_MAX * 4, 1};
    cJSON *v = NULL;
    if (schema) {
        char serr[BASE_ERRBUF_SIZE] = "";
        base_err e = base_json_schema_check("answer", schema, answer, &so, serr);
        if (e == BASE_ENOMEM)
            return base_errf(why, BASE_ENOMEM, "out of memory checking the answer");
        if (!e) {
            v = cJSON_Duplicate(answer, 1);
        } else if (cJSON_IsString(answer)) {
            /* An answer written as a string of JSON: read as that JSON. */
            cJSON *parsed = json_in_string(answer->valuestring);
            char perr[BASE_ERRBUF_SIZE] = "";
            base_err pe = parsed ? base_json_schema_check("answer", schema, parsed, &so, perr)
                                 : BASE_EINVAL;
            if (!pe) {
                v = parsed;
            } else {
                /* The parsed value's error is what the model meant to send. */
                if (parsed)
                    snprintf(serr, sizeof serr, "%s", perr);
                cJSON_Delete(parsed);
                return base_errf(why, pe == BASE_ENOMEM ? BASE_ENOMEM : BASE_EINVAL,
                                 "the answer does not match the answer schema: %s", serr);
            }
        } else {
            return base_errf(why, BASE_EINVAL, "the answer does not match the answer schema: %s",
                             serr);
        }
    } else {
        v = cJSON_Duplicate(answer, 1);
    }
    if (!v)
        return base_errf(why, BASE_ENOMEM, "out of memory checking the answer");
    /* Seed 003's meaningful-output check, on the text the user would read. */
    char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
    const char *t = cJSON_IsString(v) ? v->valuestring : text;
    char mwhy[200] = "";
    int ok = t && agent_text_meaningful(t, mwhy, sizeof mwhy);
    cJSON_free(text);
    if (!t) {
        cJSON_Delete(v);
        return base_errf(why, BASE_ENOMEM, "out of memory checking the answer");
    }
    if (!ok) {
        cJSON_Delete(v);
        return base_errf(why, BASE_EINVAL,
                         "the answer has no meaningful content (%s): give the value the task "
                         "asks for, read from the page",
                         mwhy);
    }
    char pwhy[BASE_ERRBUF_SIZE] = "";
    if (schema && partial(v, schema, "", 0, pwhy, sizeof pwhy)) {
        cJSON_Delete(v);
        return base_errf(why, BASE_EINVAL, "%s", pwhy);
    }
    if (value)
        *value = v;
    else
        cJSON_Delete(v);
    return BASE_OK;
}

char *agent_answer_schema_prompt(const cJSON *schema)
{
    char *s = schema ? cJSON_PrintUnformatted(schema) : NULL;
    if (!s)
        return NULL;
    static const char head[] =
        "ANSWER SCHEMA: the task's final answer is a JSON value that matches this JSON Schema. "
        "When the task is done, give that value itself as the answer (not text about it, "
        "evidence elsewhere), with every field read from the page; a field you could not find "
        "is not finished work. Schema: ";
    size_t n = sizeof head + strlen(s);
    char *out = base_malloc(n);
    if (out)
        snprintf(out, n, "%s%s", head, s);
    cJSON_free(s);
    return out;
}

base_err agent_answer_write(const char *out_dir, const cJSON *value, const agent_secrets *sec,
                            char *err)
{
    if (!out_dir)
        return BASE_OK;
    cJSON *copy = value ? cJSON_Duplicate(value, 1) : NULL;
    /* Fail-closed: a string that could not be masked is emptied. */
    if (copy)
        agent_secrets_scrub_json(sec, copy);
    char *text = copy ? cJSON_Print(copy) : NULL;
    cJSON_Delete(copy);
    char path[1200];
    snprintf(path, sizeof path, "%s/answer.json", out_dir);
    if (!text)
        return base_errf(err, BASE_ENOMEM, "out of memory formatting %s", path);
    size_t n = strlen(text);
    char *full = base_malloc(n + 2);
    if (!full) {
        cJSON_free(text);
        return base_errf(err, BASE_ENOMEM, "out of memory formatting %s", path);
    }
    memcpy(full, text, n);
    full[n] = '\n';
    full[n + 1] = '\0';
    cJSON_free(text);
    char werr[BASE_ERRBUF_SIZE] = "";
    base_err e = base_write_file(path, (const uint8_t *)full, n + 1, werr);
    base_free(full);
    if (e) {
        base_out_lost(path, werr[0] ? werr : "write failed");
        return base_errf(err, e, "%s", werr[0] ? werr : path);
    }
    return BASE_OK;
}

/* agent/session/step.c: a step — one tool call with the keys every call
 * takes — parsed from JSON by the task file's rules.
 *
 * The tool layer and the scripted runner speak the same step: a task file's
 * steps[N] and a model's tool call go through one parser, so a typo fails the
 * same way in both. It walks the cJSON tree once and copies what it needs
 * into an agent_step; it is strict on purpose (unknown fields, wrong types and
 * missing fields are errors naming the step and the field), and compiles
 * regex patterns, so a bad pattern is a parse error. The task file around the
 * steps (name, url, viewport) is agent/script/task.c.
 */
#include "agent/session/step.h"

#include "agent/session/session_int.h"
#include "agent/session/tool.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/num.h"
#include "base/regex.h"

static const char *const action_names[AGENT_ACTION_COUNT] = {
    "click", "type", "select", "scroll", "drag", "wait_for", "assert_text", "extract", "dialog",
    "tool",
};

const char *agent_action_name(agent_action a)
{
    return (unsigned)a < AGENT_ACTION_COUNT ? action_names[a] : "?";
}

int agent_target_set(const agent_target *t)
{
    return t && ((t->label && t->label[0]) || t->index > 0);
}

base_err agent_step_verrf(char *err, const char *src, int index, const char *field,
                          const char *fmt, va_list ap)
{
    char msg[224];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (index >= 0)
        return base_errf(err, BASE_EPROTO, "%s: steps[%d].%s: %s", src, index, field, msg);
    return base_errf(err, BASE_EPROTO, "%s: %s: %s", src, field, msg);
}

/* Parse context: where we are, for messages. */
typedef struct pctx {
    const char *src;
    char *err;
    int step; /* -1 outside steps[] */
} pctx;

__attribute__((format(printf, 3, 4))) static base_err fail(const pctx *c, const char *field,
                                                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_err e = agent_step_verrf(c->err, c->src, c->step, field, fmt, ap);
    va_end(ap);
    return e;
}

static base_err dup_string(const pctx *c, const cJSON *j, const char *field, char **out)
{
    if (!cJSON_IsString(j))
        return fail(c, field, "expected a string");
    size_t n = strlen(j->valuestring);
    if (n > AGENT_TEXT_MAX)
        return fail(c, field, "longer than %d bytes", AGENT_TEXT_MAX);
    char *s = base_strdup(j->valuestring);
    if (!s)
        return base_errf(c->err, BASE_ENOMEM, "out of memory");
    *out = s;
    return BASE_OK;
}

static base_err get_int(const pctx *c, const cJSON *j, const char *field, int lo, int hi, int *out)
{
    if (!cJSON_IsNumber(j) || base_num_to_int_exact(j->valuedouble, lo, hi, out) != BASE_OK)
        return fail(c, field, "expected an integer in %d..%d", lo, hi);
    return BASE_OK;
}

static base_err get_bool(const pctx *c, const cJSON *j, const char *field, int *out)
{
    if (!cJSON_IsBool(j))
        return fail(c, field, "expected true or false");
    *out = cJSON_IsTrue(j);
    return BASE_OK;
}

/* "V4", "[V4]", "v4" or "4" -> 4; returns the number of characters used, or
 * 0 when s does not start with an index. */
static size_t parse_index_prefix(const char *s, int *index)
{
    const char *p = s;
    int bracket = *p == '[';
    if (bracket)
        p++;
    if (*p == 'V' || *p == 'v')
        p++;
    else if (bracket)
        return 0; /* "[4]" is not an index: it may be literal text */
    if (*p < '0' || *p > '9')
        return 0;
    long v = 0;
    while (*p >= '0' && *p <= '9' && v < 100000)
        v = v * 10 + (*p++ - '0');
    if (bracket && *p++ != ']')
        return 0;
    if (v < 1 || v >= 100000)
        return 0;
    *index = (int)v;
    return (size_t)(p - s);
}

/* A target: "label", "[V4]", "[V4] label" or {"label": .., "index": 4|"V4"}. */
static base_err parse_target(const pctx *c, const cJSON *j, const char *field, agent_target *t)
{
    static const char shape[] = "expected a string or {label, index}";
    if (cJSON_IsString(j)) {
        const char *s = j->valuestring;
        int index = 0;
        size_t used = s[0] == '[' ? parse_index_prefix(s, &index) : 0;
        const char *rest = s + used;
        while (*rest == ' ')
            rest++;
        if (!index && !*rest)
            return fail(c, field, "%s (got an empty string)", shape);
        if (strlen(rest) > AGENT_TEXT_MAX)
            return fail(c, field, "longer than %d bytes", AGENT_TEXT_MAX);
        t->index = index;
        if (*rest && !(t->label = base_strdup(rest)))
            return base_errf(c->err, BASE_ENOMEM, "out of memory");
        return BASE_OK;
    }
    if (!cJSON_IsObject(j))
        return fail(c, field, "%s", shape);
    char sub[48];
    const cJSON *f;
    cJSON_ArrayForEach(f, j)
    {
        if (strcmp(f->string, "label") == 0) {
            snprintf(sub, sizeof sub, "%s.label", field);
            base_err e = dup_string(c, f, sub, &t->label);
            if (e)
                return e;
        } else if (strcmp(f->string, "index") == 0) {
            snprintf(sub, sizeof sub, "%s.index", field);
            if (cJSON_IsString(f)) {
                size_t used = parse_index_prefix(f->valuestring, &t->index);
                if (!used || f->valuestring[used])
                    return fail(c, sub, "expected a vision index like 4, \"V4\" or \"[V4]\"");
            } else {
                base_err e = get_int(c, f, sub, 1, 99999, &t->index);
                if (e)
                    return e;
            }
        } else {
            snprintf(sub, sizeof sub, "%s.%s", field, f->string);
            return fail(c, sub, "unknown field (a target has label and index)");
        }
    }
    if (!agent_target_set(t))
        return fail(c, field, "%s (neither is set)", shape);
    return BASE_OK;
}

/* Compiles the step's pattern once, here, so that a hostile or broken
 * pattern fails the load (before any browser starts) and the run reuses the
 * compiled, bounded regex (base/regex.h). */
static base_err compile_regex(const pctx *c, agent_step *s)
{
    char why[BASE_ERRBUF_SIZE] = "";
    base_regex_destroy(s->re); /* a duplicated "pattern" key is refused earlier */
    s->re = NULL;
    base_err e = base_regex_compile(s->pattern, strlen(s->pattern), BASE_REGEX_MULTILINE, &s->re,
                                    why);
    if (e == BASE_ENOMEM)
        return base_errf(c->err, BASE_ENOMEM, "out of memory");
    if (e)
        return fail(c, "pattern", "bad regular expression (PCRE2 syntax): %s", why);
    return BASE_OK;
}

/* drag "to": a target, or a point {x, y} in CSS px. */
static base_err parse_to(const pctx *c, const cJSON *j, agent_step *s)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "x");
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(j, "y");
    if (cJSON_IsObject(j) && (x || y)) {
        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || cJSON_GetArraySize(j) != 2 ||
            !isfinite(x->valuedouble) || !isfinite(y->valuedouble) ||
            fabs(x->valuedouble) > 1e6 || fabs(y->valuedouble) > 1e6)
            return fail(c, "to", "expected {x, y} numbers in CSS px, a string or {label, index}");
        s->have_to_pt = 1;
        s->to_x = (float)x->valuedouble;
        s->to_y = (float)y->valuedouble;
        return BASE_OK;
    }
    return parse_target(c, j, "to", &s->to);
}

static base_err parse_step_field(const pctx *c, const cJSON *f, agent_step *s)
{
    const char *k = f->string;
    if (strcmp(k, "action") == 0)
        return BASE_OK; /* read first, by parse_step */
    if (strcmp(k, "target") == 0)
        return parse_target(c, f, "target", &s->target);
    if (strcmp(k, "verb") == 0)
        return dup_string(c, f, k, &s->verb);
    if (strcmp(k, "text") == 0)
        return dup_string(c, f, k, &s->text);
    if (strcmp(k, "note") == 0)
        return dup_string(c, f, k, &s->note);
    if (strcmp(k, "save_as") == 0)
        return dup_string(c, f, k, &s->save_as);
    if (strcmp(k, "pattern") == 0) {
        base_err e = dup_string(c, f, k, &s->pattern);
        return e ? e : compile_regex(c, s);
    }
    if (strcmp(k, "value") == 0) {
        if (cJSON_IsNumber(f)) {
            if (!isfinite(f->valuedouble))
                return fail(c, k, "expected a finite number");
            char tmp[64];
            snprintf(tmp, sizeof tmp, "%g", f->valuedouble);
            s->num_value = f->valuedouble;
            s->have_num_value = 1;
            s->value = base_strdup(tmp);
            return s->value ? BASE_OK : base_errf(c->err, BASE_ENOMEM, "out of memory");
        }
        if (!cJSON_IsString(f))
            return fail(c, k, "expected a string or a number");
        return dup_string(c, f, k, &s->value);
    }
    if (strcmp(k, "password") == 0 || strcmp(k, "secret") == 0) {
        /* "secret" marks any kind of secret (a card, a code); either flag
         * set makes the text one. */
        int b = 0;
        base_err e = get_bool(c, f, k, &b);
        s->password |= b;
        return e;
    }
    if (strcmp(k, "critical") == 0)
        return get_bool(c, f, k, &s->critical);
    if (strcmp(k, "expect_effect") == 0) {
        int v = 0;
        base_err e = get_bool(c, f, k, &v);
        s->expect_effect = v ? 1 : -1;
        return e;
    }
    if (strcmp(k, "timeout_ms") == 0)
        return get_int(c, f, k, 1, 600000, &s->timeout_ms);
    if (strcmp(k, "retries") == 0)
        return get_int(c, f, k, 0, 10, &s->retries);
    if (strcmp(k, "dy") == 0)
        return get_int(c, f, k, -100000, 100000, &s->dy);
    if (strcmp(k, "to") == 0)
        return parse_to(c, f, s);
    if (strcmp(k, "accept") == 0 && s->action == AGENT_DIALOG)
        return get_bool(c, f, k, &s->accept);
    if (strcmp(k, "prompt_text") == 0 && s->action == AGENT_DIALOG)
        return dup_string(c, f, k, &s->prompt_text);
    if (strcmp(k, "expect") == 0 && s->action == AGENT_DIALOG)
        return dup_string(c, f, k, &s->expect);
    return fail(c, k, "unknown field");
}

/* Which fields each action needs, checked after all fields are read. */
static base_err check_step(const pctx *c, const agent_step *s)
{
    int tgt = agent_target_set(&s->target);
    switch (s->action) {
    case AGENT_CLICK:
        return tgt ? BASE_OK : fail(c, "target", "required for click");
    case AGENT_TYPE:
        if (!tgt)
            return fail(c, "target", "required for type");
        return s->text ? BASE_OK : fail(c, "text", "required for type");
    case AGENT_SELECT:
        if (!tgt)
            return fail(c, "target", "required for select");
        return s->value && s->value[0] ? BASE_OK : fail(c, "value", "required for select");
    case AGENT_SCROLL:
        return tgt || s->dy ? BASE_OK : fail(c, "target", "scroll needs a target or dy");
    case AGENT_DRAG:
        if (!tgt)
            return fail(c, "target", "required for drag");
        if (!s->have_to_pt && !agent_target_set(&s->to) && !s->have_num_value)
            return fail(c, "to", "drag needs to (a target or {x, y}) or a numeric value");
        return BASE_OK;
    case AGENT_WAIT_FOR:
        return tgt || s->text || s->pattern
                   ? BASE_OK
                   : fail(c, "target", "wait_for needs a target, a text or a pattern");
    case AGENT_ASSERT_TEXT:
        return s->text || s->pattern ? BASE_OK
                                     : fail(c, "text", "assert_text needs text or pattern");
    case AGENT_EXTRACT:
        return BASE_OK;
    case AGENT_DIALOG:
        /* The dialog plan keeps up to 255 bytes of text (cdp_page_dialog_next). */
        if ((s->prompt_text && strlen(s->prompt_text) > 255) ||
            (s->expect && strlen(s->expect) > 255))
            return fail(c, s->expect && strlen(s->expect) > 255 ? "expect" : "prompt_text",
                        "longer than 255 bytes");
        if (s->prompt_text && !s->accept)
            return fail(c, "prompt_text", "needs \"accept\": true (a dismissed prompt "
                                          "sends no text)");
        return tgt ? fail(c, "target", "dialog takes no target") : BASE_OK;
    default:
        return fail(c, "action", "internal: bad action");
    }
}

/* The step's object without "action": the tool's arguments. */
static base_err keep_args(const pctx *c, const cJSON *j, agent_step *s)
{
    s->args = cJSON_Duplicate(j, 1);
    if (!s->args)
        return base_errf(c->err, BASE_ENOMEM, "out of memory");
    cJSON_DeleteItemFromObjectCaseSensitive(s->args, "action");
    return BASE_OK;
}

/* The tool's schema (and its own checks) on the step's arguments. */
static base_err schema_check(const pctx *c, const tool_def *t, const cJSON *args)
{
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e = tool_args_check(t, args, why);
    if (e == BASE_ENOMEM)
        return base_errf(c->err, BASE_ENOMEM, "out of memory");
    if (e)
        return base_errf(c->err, BASE_EPROTO, "%s: steps[%d]: %s", c->src, c->step, why);
    return BASE_OK;
}

/* A step of a tool without a task-file action of its own: its arguments
 * are checked against the tool's schema; the keys every step takes are
 * read here. */
static base_err parse_tool_step(const pctx *c, const cJSON *j, const tool_def *t, agent_step *s)
{
    s->action = AGENT_TOOL;
    base_err e = keep_args(c, j, s);
    if (!e)
        e = schema_check(c, t, s->args);
    if (e)
        return e;
    const cJSON *f;
    cJSON_ArrayForEach(f, s->args)
    {
        const char *k = f->string;
        if (strcmp(k, "timeout_ms") == 0)
            e = get_int(c, f, k, 1, 600000, &s->timeout_ms);
        else if (strcmp(k, "retries") == 0)
            e = get_int(c, f, k, 0, 10, &s->retries);
        else if (strcmp(k, "critical") == 0)
            e = get_bool(c, f, k, &s->critical);
        else if (strcmp(k, "note") == 0)
            e = dup_string(c, f, k, &s->note);
        else if (strcmp(k, "save_as") == 0)
            e = dup_string(c, f, k, &s->save_as);
        else if (strcmp(k, "target") == 0)
            e = parse_target(c, f, "target", &s->target); /* for descriptions and hints */
        if (e)
            return e;
    }
    return BASE_OK;
}

/* One step. action names a tool (or an alias of one: "click" is click_at).
 * The nine actions the runner knew before the tool registry keep their own
 * field rules (parse_step_field, check_step), after the schema check. */
static base_err parse_step(const pctx *c, const cJSON *j, agent_step *s)
{
    s->timeout_ms = 5000;
    s->retries = 1;
    if (!cJSON_IsObject(j))
        return base_errf(c->err, BASE_EPROTO, "%s: steps[%d]: expected an object", c->src,
                         c->step);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "action");
    if (!a)
        return fail(c, "action", "missing (a tool name: click, type, select, scroll, drag, "
                                 "wait_for, assert_text, extract, dialog, send_keys, ...; "
                                 "`fovea tools` lists them)");
    if (!cJSON_IsString(a))
        return fail(c, "action", "expected a string");
    const tool_def *t = tool_find(a->valuestring);
    if (!t)
        return fail(c, "action", "unknown action '%.40s' (`fovea tools` lists them)",
                    a->valuestring);
    s->tool = base_strdup(t->name);
    if (!s->tool)
        return base_errf(c->err, BASE_ENOMEM, "out of memory");
    int found = agent__tool_action(t->name);
    if (found < 0)
        return parse_tool_step(c, j, t, s);
    /* The step's own rules first: their messages name steps[N].field in
     * the task file's terms; then the schema (the same one the model gets). */
    s->action = (agent_action)found;
    const cJSON *f;
    cJSON_ArrayForEach(f, j)
    {
        base_err e = parse_step_field(c, f, s);
        if (e)
            return e;
    }
    /* "check", "uncheck", "toggle": a click whose verb they are (the
     * step's own "verb" wins). */
    const char *w = a->valuestring;
    if (!s->verb && (strcmp(w, "check") == 0 || strcmp(w, "uncheck") == 0 ||
                     strcmp(w, "toggle") == 0) &&
        !(s->verb = base_strdup(w)))
        return base_errf(c->err, BASE_ENOMEM, "out of memory");
    base_err e = check_step(c, s);
    if (!e)
        e = keep_args(c, j, s);
    if (!e && s->verb && !cJSON_GetObjectItemCaseSensitive(s->args, "verb") &&
        !cJSON_AddStringToObject(s->args, "verb", s->verb))
        e = base_errf(c->err, BASE_ENOMEM, "out of memory");
    return e ? e : schema_check(c, t, s->args);
}

base_err agent_step_from_args(const cJSON *args, agent_action a, const char *src,
                              agent_step *out, char *err)
{
    memset(out, 0, sizeof *out);
    out->timeout_ms = 5000;
    out->retries = 1;
    out->action = a;
    pctx c = {src ? src : "tool", err, -1};
    if (args && !cJSON_IsObject(args))
        return base_errf(err, BASE_EPROTO, "%s: arguments: expected an object", c.src);
    const cJSON *f;
    cJSON_ArrayForEach(f, args)
    {
        base_err e = parse_step_field(&c, f, out);
        if (e)
            return e;
    }
    return check_step(&c, out);
}

base_err agent_step_parse(const cJSON *j, const char *src, int index, agent_step *out, char *err)
{
    memset(out, 0, sizeof *out);
    pctx c = {src ? src : "task", err, index};
    return parse_step(&c, j, out);
}

static void target_free(agent_target *t)
{
    base_free(t->label);
}

void agent_step_fini(agent_step *s)
{
    if (!s)
        return;
    target_free(&s->target);
    target_free(&s->to);
    base_free(s->verb);
    base_free(s->text);
    base_free(s->value);
    base_free(s->pattern);
    base_regex_destroy(s->re);
    base_free(s->note);
    base_free(s->prompt_text);
    base_free(s->expect);
    base_free(s->tool);
    cJSON_Delete(s->args);
    base_free(s->save_as);
    memset(s, 0, sizeof *s);
}

/* "send_keys keys='Control+A'": the tool, its target and up to three of
 * its other plain arguments. When the step is marked secret ("secret" or
 * "password": true) every string argument but the target is masked. */
static void describe_tool(const agent_step *s, const char *tgt, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "%s%s%s", s->tool ? s->tool : "tool", tgt[0] ? " " : "",
                                tgt);
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(s->args, "secret");
    const cJSON *pw = cJSON_GetObjectItemCaseSensitive(s->args, "password");
    int secret = cJSON_IsTrue(sec) || cJSON_IsTrue(pw);
    int shown = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, s->args)
    {
        if (k >= n || shown == 3)
            break;
        const char *key = f->string;
        if (!key) /* arguments that are not an object (refused by the caller) */
            break;
        if (strcmp(key, "target") == 0 || strcmp(key, "timeout_ms") == 0 ||
            strcmp(key, "retries") == 0 || strcmp(key, "note") == 0 ||
            strcmp(key, "critical") == 0 || strcmp(key, "save_as") == 0)
            continue;
        if (cJSON_IsString(f))
            k += (size_t)snprintf(buf + k, n - k, " %s='%.40s'", key,
                                  secret ? "********" : f->valuestring);
        else if (cJSON_IsNumber(f))
            k += (size_t)snprintf(buf + k, n - k, " %s=%g", key, f->valuedouble);
        else if (cJSON_IsBool(f))
            k += (size_t)snprintf(buf + k, n - k, " %s=%s", key, cJSON_IsTrue(f) ? "true" : "false");
        else
            continue;
        shown++;
    }
}

/* "'label'", "[V4] 'label'" or "[V4]" into buf. */
static void describe_target(const agent_target *t, char *buf, size_t n)
{
    if (t->index > 0 && t->label)
        snprintf(buf, n, "[V%d] '%.60s'", t->index, t->label);
    else if (t->index > 0)
        snprintf(buf, n, "[V%d]", t->index);
    else
        snprintf(buf, n, "'%.60s'", t->label ? t->label : "");
}

void agent_step_describe(const agent_step *s, char *buf, size_t n)
{
    if (!buf || n == 0)
        return;
    char tgt[96] = "", to[96] = "";
    if (agent_target_set(&s->target))
        describe_target(&s->target, tgt, sizeof tgt);
    const char *name = agent_action_name(s->action);
    switch (s->action) {
    case AGENT_TYPE:
        if (s->password)
            snprintf(buf, n, "type %s <- ********", tgt);
        else
            snprintf(buf, n, "type %s <- '%.60s'", tgt, s->text ? s->text : "");
        break;
    case AGENT_SELECT:
        snprintf(buf, n, "select %s = '%.60s'", tgt, s->value ? s->value : "");
        break;
    case AGENT_DRAG:
        if (agent_target_set(&s->to))
            describe_target(&s->to, to, sizeof to);
        else if (s->have_to_pt)
            snprintf(to, sizeof to, "(%.0f,%.0f)", s->to_x, s->to_y);
        else
            snprintf(to, sizeof to, "value %.60s", s->value ? s->value : "");
        snprintf(buf, n, "drag %s -> %s", tgt, to);
        break;
    case AGENT_DIALOG:
        snprintf(buf, n, "dialog: %s the next one%s%.60s%s%s%.60s%s", s->accept ? "accept" : "dismiss",
                 s->prompt_text ? " with '" : "", s->prompt_text ? s->prompt_text : "",
                 s->prompt_text ? "'" : "", s->expect ? " if it says '" : "",
                 s->expect ? s->expect : "", s->expect ? "'" : "");
        break;
    case AGENT_SCROLL:
        if (tgt[0])
            snprintf(buf, n, "scroll to %s", tgt);
        else
            snprintf(buf, n, "scroll by %d px", s->dy);
        break;
    case AGENT_WAIT_FOR:
    case AGENT_ASSERT_TEXT:
    case AGENT_EXTRACT:
        if (s->text)
            snprintf(buf, n, "%s %s%s'%.60s'", name, tgt, tgt[0] ? " " : "", s->text);
        else if (s->pattern)
            snprintf(buf, n, "%s %s%s/%.60s/", name, tgt, tgt[0] ? " " : "", s->pattern);
        else
            snprintf(buf, n, "%s %s", name, tgt[0] ? tgt : "page");
        break;
    case AGENT_TOOL:
        describe_tool(s, tgt, buf, n);
        break;
    default:
        if (s->verb && strcmp(s->verb, name) != 0)
            snprintf(buf, n, "%s (%s) %s", name, s->verb, tgt);
        else
            snprintf(buf, n, "%s %s", name, tgt);
        break;
    }
}

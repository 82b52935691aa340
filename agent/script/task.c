/* agent/script/task.c: the task-file parser.
 *
 * The parser walks the cJSON tree once and copies what it needs into an
 * agent_task, so nothing of cJSON escapes. It is strict on purpose: unknown
 * fields, wrong types and missing fields are errors naming the step and the
 * field, because a typo in a task file ("tagret") should fail before a
 * browser starts, not as a confusing click on the wrong thing. Each step is
 * parsed by the tool layer's step parser (agent/session/step.c), the same
 * one a model's tool calls go through; this file adds the task around them
 * (name, url, viewport, init_script), duplicate keys and the variables a
 * step may use.
 */
#include "agent/script/task.h"

#include "agent/session/tool.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json_check.h"
#include "base/num.h"
#include "base/regex.h"

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

/* A top-level string field, copied. */
static base_err dup_string(const pctx *c, const cJSON *j, const char *field, char **out)
{
    if (!cJSON_IsString(j))
        return fail(c, field, "expected a string");
    if (strlen(j->valuestring) > AGENT_TEXT_MAX)
        return fail(c, field, "longer than %d bytes", AGENT_TEXT_MAX);
    *out = base_strdup(j->valuestring);
    return *out ? BASE_OK : base_errf(c->err, BASE_ENOMEM, "out of memory");
}

/* 1 when an earlier step than `before` saves a variable called name
 * (len bytes). */
static int var_saved(const agent_task *t, int before, const char *name, size_t len)
{
    for (int i = 0; i < before; i++) {
        const char *v = t->steps[i].save_as;
        if (v && strlen(v) == len && strncmp(v, name, len) == 0)
            return 1;
    }
    return 0;
}

/* Every "${name}" in a string argument of step i must be saved by an
 * earlier step (save_as): a typo fails at load, not halfway through a run. */
static base_err check_vars(const pctx *c, const agent_task *t, int i, const cJSON *j)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, j)
    {
        if (cJSON_IsObject(f) || cJSON_IsArray(f)) {
            base_err e = check_vars(c, t, i, f);
            if (e)
                return e;
            continue;
        }
        if (!cJSON_IsString(f))
            continue;
        for (const char *p = strstr(f->valuestring, "${"); p; p = strstr(p + 2, "${")) {
            const char *end = strchr(p + 2, '}');
            if (!end)
                break;
            if (!var_saved(t, i, p + 2, (size_t)(end - p - 2)))
                return fail(c, f->string ? f->string : "argument",
                            "variable ${%.*s} is not saved by an earlier step (\"save_as\")",
                            (int)(end - p - 2 > 40 ? 40 : end - p - 2), p + 2);
        }
    }
    return BASE_OK;
}

/* A viewport size: an integer in 16..8192 CSS px. */
static base_err view_int(const pctx *c, const cJSON *j, const char *field, int *out)
{
    if (!cJSON_IsNumber(j) || base_num_to_int_exact(j->valuedouble, 16, 8192, out) != BASE_OK)
        return fail(c, field, "expected an integer in %d..%d", 16, 8192);
    return BASE_OK;
}

static base_err parse_viewport(const pctx *c, const cJSON *j, agent_task *t)
{
    if (!cJSON_IsObject(j))
        return fail(c, "viewport", "expected {width, height, scale}");
    const cJSON *f;
    cJSON_ArrayForEach(f, j)
    {
        base_err e = BASE_OK;
        if (strcmp(f->string, "width") == 0)
            e = view_int(c, f, "viewport.width", &t->width);
        else if (strcmp(f->string, "height") == 0)
            e = view_int(c, f, "viewport.height", &t->height);
        else if (strcmp(f->string, "scale") == 0) {
            if (!cJSON_IsNumber(f) || !(f->valuedouble >= 0.25 && f->valuedouble <= 8))
                return fail(c, "viewport.scale", "expected a number in 0.25..8");
            t->scale = f->valuedouble;
        } else {
            char sub[64];
            snprintf(sub, sizeof sub, "viewport.%.40s", f->string);
            return fail(c, sub, "unknown field");
        }
        if (e)
            return e;
    }
    return BASE_OK;
}

static base_err parse_root(const pctx *cin, const cJSON *root, agent_task *t)
{
    pctx c = *cin;
    if (!cJSON_IsObject(root))
        return base_errf(c.err, BASE_EPROTO, "%s: expected a JSON object at the top", c.src);
    const cJSON *f;
    const cJSON *steps = NULL;
    cJSON_ArrayForEach(f, root)
    {
        base_err e = BASE_OK;
        if (strcmp(f->string, "name") == 0)
            e = dup_string(&c, f, "name", &t->name);
        else if (strcmp(f->string, "url") == 0)
            e = dup_string(&c, f, "url", &t->url);
        else if (strcmp(f->string, "init_script") == 0)
            e = dup_string(&c, f, "init_script", &t->init_script);
        else if (strcmp(f->string, "viewport") == 0)
            e = parse_viewport(&c, f, t);
        else if (strcmp(f->string, "steps") == 0)
            steps = f;
        else if (strcmp(f->string, "description") == 0)
            e = cJSON_IsString(f) ? BASE_OK : fail(&c, "description", "expected a string");
        else
            e = fail(&c, f->string, "unknown field");
        if (e)
            return e;
    }
    if (!t->url || !t->url[0])
        return fail(&c, "url", "required (absolute, or a path inside --site)");
    if (!steps)
        return fail(&c, "steps", "required (a non-empty array)");
    if (!cJSON_IsArray(steps) || cJSON_GetArraySize(steps) == 0)
        return fail(&c, "steps", "expected a non-empty array");
    int n = cJSON_GetArraySize(steps);
    if (n > AGENT_TASK_MAX_STEPS)
        return base_errf(c.err, BASE_ETOOBIG, "%s: steps: %d steps, at most %d", c.src, n,
                         AGENT_TASK_MAX_STEPS);
    t->steps = base_calloc((size_t)n, sizeof *t->steps);
    if (!t->steps)
        return base_errf(c.err, BASE_ENOMEM, "out of memory");
    const cJSON *j;
    cJSON_ArrayForEach(j, steps)
    {
        c.step = t->n_steps;
        /* Count the step before parsing so agent_task_free frees a partial one. */
        t->n_steps++;
        base_err e = agent_step_parse(j, c.src, c.step, &t->steps[c.step], c.err);
        if (e)
            return e;
    }
    for (int i = 0; i < t->n_steps; i++) {
        c.step = i;
        base_err e = check_vars(&c, t, i, t->steps[i].args);
        if (e)
            return e;
    }
    return BASE_OK;
}

/* Deepest nesting a task file may use; the real shape is four levels. */
#define TASK_MAX_DEPTH 32

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Refuses a key that appears twice in one object, anywhere in the tree.
 * cJSON keeps both and the field loops would read both (the second one
 * silently winning, and the first leaking); a person who wrote "target"
 * twice meant one of them, so say which key and where. path names the
 * node ("" at the top, "steps[2]", "steps[2].target"). */
static base_err check_dups(const cJSON *j, const char *src, const char *path, char *err)
{
    int n = cJSON_GetArraySize(j);
    if (cJSON_IsObject(j) && n > 1) {
        const char **names = base_malloc((size_t)n * sizeof *names);
        if (!names)
            return base_errf(err, BASE_ENOMEM, "out of memory");
        int k = 0;
        const cJSON *f;
        cJSON_ArrayForEach(f, j) names[k++] = f->string;
        qsort(names, (size_t)k, sizeof *names, cmp_names);
        for (int i = 1; i < k; i++) {
            if (strcmp(names[i - 1], names[i]) == 0) {
                base_err e = base_errf(err, BASE_EPROTO,
                                       "%s: %s%s%.60s: duplicated key (each key may appear once)",
                                       src, path, path[0] ? "." : "", names[i]);
                base_free(names);
                return e;
            }
        }
        base_free(names);
    }
    const cJSON *c;
    int i = 0;
    cJSON_ArrayForEach(c, j)
    {
        if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            char sub[160];
            if (cJSON_IsArray(j))
                snprintf(sub, sizeof sub, "%s[%d]", path, i);
            else
                snprintf(sub, sizeof sub, "%s%s%.60s", path, path[0] ? "." : "", c->string);
            base_err e = check_dups(c, src, sub, err);
            if (e)
                return e;
        }
        i++;
    }
    return BASE_OK;
}

base_err agent_task_parse(const char *json, size_t len, const char *src, agent_task **out,
                          char *err)
{
    if (!src)
        src = "task";
    if (!json || !out)
        return base_errf(err, BASE_EINVAL, "%s: no input", src);
    if (len > AGENT_TASK_MAX_BYTES)
        return base_errf(err, BASE_ETOOBIG, "%s: %zu bytes, at most %u", src, len,
                         AGENT_TASK_MAX_BYTES);
    /* A UTF-8 byte order mark is skipped: RFC 8259 lets parsers ignore it,
     * Windows editors still write one, and it cannot change what the file
     * means; refusing it would only teach people to fight their editor. */
    if (len >= 3 && memcmp(json, "\xef\xbb\xbf", 3) == 0) {
        json += 3;
        len -= 3;
    }
    /* The strict check first: exactly one JSON value, valid UTF-8, no NUL,
     * with a message naming line, column and what was expected. cJSON
     * alone accepts trailing garbage and only points at where it stopped. */
    char why[BASE_ERRBUF_SIZE] = "";
    if (base_json_check(json, len, TASK_MAX_DEPTH, why) != BASE_OK)
        return base_errf(err, BASE_EPROTO, "%s: %s", src, why);
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, NULL, 0);
    if (!root) /* the text is valid JSON, so only allocation can fail here */
        return base_errf(err, BASE_ENOMEM, "%s: out of memory parsing JSON", src);
    base_err e = check_dups(root, src, "", err);
    if (e) {
        cJSON_Delete(root);
        return e;
    }
    agent_task *t = base_calloc(1, sizeof *t);
    if (!t) {
        cJSON_Delete(root);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    t->width = 1280;
    t->height = 800;
    t->scale = 1.0;
    pctx c = {src, err, -1};
    e = parse_root(&c, root, t);
    cJSON_Delete(root);
    if (!e && !t->name && !(t->name = base_strdup(src)))
        e = base_errf(err, BASE_ENOMEM, "out of memory");
    if (e) {
        agent_task_free(t);
        return e;
    }
    *out = t;
    return BASE_OK;
}

/* "init_script": "setup.js" names a file (a .js name with no blank, ';',
 * '(' or '='), read relative to the task file; anything else is inline
 * source. */
static base_err load_init_script(const char *task_path, agent_task *t, char *err)
{
    const char *v = t->init_script;
    size_t n = v ? strlen(v) : 0;
    if (n < 4 || strcmp(v + n - 3, ".js") != 0 || strpbrk(v, " \t\n\r;(=") != NULL)
        return BASE_OK;
    const char *slash = strrchr(task_path, '/');
    char path[4096];
    if (v[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", v);
    else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - task_path), task_path, v);
    uint8_t *d = NULL;
    size_t dn = 0;
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e = base_read_file(path, &d, &dn, 1u << 20, why);
    if (e)
        return base_errf(err, e, "%s: init_script: cannot read %s: %s", task_path, path, why);
    if (memchr(d, '\0', dn)) {
        base_free(d);
        return base_errf(err, BASE_EPROTO, "%s: init_script: %s is not a text file", task_path,
                         path);
    }
    base_free(t->init_script);
    t->init_script = (char *)d;
    return BASE_OK;
}

base_err agent_task_load(const char *path, agent_task **out, char *err)
{
    uint8_t *d = NULL;
    size_t n = 0;
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e = base_read_file(path, &d, &n, AGENT_TASK_MAX_BYTES, why);
    if (e)
        return base_errf(err, e, "cannot read task %s: %s", path, why);
    const char *base = strrchr(path, '/');
    e = agent_task_parse((const char *)d, n, base ? base + 1 : path, out, err);
    base_free(d);
    if (e == BASE_OK && (e = load_init_script(path, *out, err)) != BASE_OK) {
        agent_task_free(*out);
        *out = NULL;
    }
    return e;
}

void agent_task_free(agent_task *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_steps; i++)
        agent_step_fini(&t->steps[i]);
    base_free(t->steps);
    base_free(t->name);
    base_free(t->url);
    base_free(t->init_script);
    base_free(t);
}


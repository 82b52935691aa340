/* agent/session/report.c: OUT/report.html from OUT/trace.jsonl and the overlays.
 *
 * The report is built from the files of the output folder only, never from
 * the runner's memory, so it can be regenerated for a partial run (a
 * failing step, a killed process) and always agrees with the trace. The
 * page is the embedded template assets/report/report.html with the run put
 * into its run-data script as JSON: the task line, the step lines (each
 * with its overlay as a data: URL) and the end line; for an agent run also
 * the model-call lines and the ledger files (see load_ledger); for an AND/OR
 * planner run (--planner andor) its operator calls, steps and interventions
 * (andor_ops, andor_events, andor_interventions) and OUT/andor.json, the
 * plan as the run last wrote it (andor_state). Every '<' in that JSON
 * is written as \u003c so no string can close the script element.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/trace.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json_alloc.h"
#include "base/utf8.h"

extern const unsigned char fovea_report_html[];
extern const size_t fovea_report_html_len;

#define REPORT_TRACE_MAX (64u << 20)
#define REPORT_IMAGE_MAX (32u << 20)
#define REPORT_OUT_MAX (1024u << 20)

/* Only "steps/NNN.png"-like names: the trace is ours, but a report must
 * never inline an arbitrary file because a trace line said so. */
static int safe_rel(const char *rel)
{
    if (strncmp(rel, "steps/", 6) != 0 || strstr(rel, "..") || strchr(rel + 6, '/'))
        return 0;
    size_t n = strlen(rel);
    return n > 10 && strcmp(rel + n - 4, ".png") == 0;
}

/* Adds "image": "data:image/png;base64,..." to step j when its overlay exists. */
static base_err attach_image(const char *dir, cJSON *j, char *err)
{
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(j, "overlay");
    if (!cJSON_IsString(ov) || !ov->valuestring[0] || !safe_rel(ov->valuestring))
        return BASE_OK;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, ov->valuestring);
    uint8_t *png = NULL;
    size_t n = 0;
    if (base_read_file(path, &png, &n, REPORT_IMAGE_MAX, NULL) != BASE_OK)
        return BASE_OK; /* a missing overlay is shown as "no overlay" */
    static const char prefix[] = "data:image/png;base64,";
    size_t enc = base64_encoded_len(n);
    char *url = enc ? base_malloc(sizeof prefix + enc) : NULL;
    if (!url) {
        base_free(png);
        return base_errf(err, BASE_ENOMEM, "out of memory encoding %s", path);
    }
    memcpy(url, prefix, sizeof prefix - 1);
    base64_encode(png, n, url + sizeof prefix - 1);
    base_free(png);
    cJSON *s = cJSON_CreateString(url);
    base_free(url);
    if (!s || !cJSON_AddItemToObject(j, "image", s)) {
        cJSON_Delete(s);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    return BASE_OK;
}

/* Adds the lines of OUT/name (JSONL) as array key of run. A missing file
 * is an empty array and a line that does not parse is skipped: a process
 * killed mid-write leaves a torn last line, and the report of such a run
 * is exactly the one a person needs. */
static base_err load_jsonl(const char *dir, const char *name, const char *key, cJSON *run,
                           char *err)
{
    cJSON *arr = cJSON_AddArrayToObject(run, key);
    if (!arr)
        return base_errf(err, BASE_ENOMEM, "report: out of memory");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t *data = NULL;
    size_t n = 0;
    base_err e = base_read_file(path, &data, &n, REPORT_TRACE_MAX, NULL);
    if (e == BASE_ENOMEM)
        return base_errf(err, e, "report: out of memory reading %s", path);
    if (e)
        return BASE_OK;
    char *save = NULL;
    for (char *line = strtok_r((char *)data, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(line);
        if (j && !cJSON_AddItemToArray(arr, j)) {
            cJSON_Delete(j);
            base_free(data);
            return base_errf(err, BASE_ENOMEM, "report: out of memory");
        }
    }
    base_free(data);
    return BASE_OK;
}

/* OUT/name, one JSON document, as run[key]. A file that is missing or
 * unreadable is left out (the page says what it lacks); only running out of
 * memory is an error. */
static base_err load_json(const char *dir, const char *name, const char *key, cJSON *run,
                          char *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t *data = NULL;
    size_t n = 0;
    base_err e = base_read_file(path, &data, &n, REPORT_TRACE_MAX, NULL);
    if (e == BASE_ENOMEM)
        return base_errf(err, e, "report: out of memory reading %s", path);
    if (e)
        return BASE_OK;
    cJSON *j = cJSON_ParseWithLength((const char *)data, n);
    base_free(data);
    if (j && !cJSON_AddItemToObject(run, key, j)) {
        cJSON_Delete(j);
        return base_errf(err, BASE_ENOMEM, "report: out of memory");
    }
    return BASE_OK;
}

/* An agent run's memory (agent/plan/ledger.c writes it into OUT; its writers
 * scrub secrets before anything reaches disk): the step outcomes, the
 * facts as they were learnt, and the final ledger (plan, dead ends,
 * checkpoints, notes). The page works out each step's ledger diff from
 * the step numbers these records carry. */
static base_err load_ledger(const char *dir, cJSON *run, char *err)
{
    base_err e = load_jsonl(dir, "steps.jsonl", "actions", run, err);
    if (!e)
        e = load_jsonl(dir, "facts.jsonl", "facts", run, err);
    if (e)
        return e;
    return load_json(dir, "ledger.json", "ledger", run, err); /* none yet: the page says so */
}

/* The run key of an AND/OR planner trace line's type, or NULL. */
static const char *andor_key(const char *type)
{
    if (strcmp(type, "andor_op") == 0)
        return "andor_ops";
    if (strcmp(type, "andor_event") == 0)
        return "andor_events";
    if (strcmp(type, "andor_intervene") == 0)
        return "andor_interventions";
    return NULL;
}

/* OUT/andor.json (agent/plan/andor_run.c rewrites it atomically after every
 * step, scrubbed): the plan of a run that ended without its end line. */
static base_err load_andor_state(const char *dir, cJSON *run, char *err)
{
    return load_json(dir, "andor.json", "andor_state", run, err);
}

/* Reads trace.jsonl into {"task":..,"steps":[..],"end":..}. */
static base_err load_run(const char *dir, cJSON **out, char *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    uint8_t *data = NULL;
    size_t n = 0;
    char why[BASE_ERRBUF_SIZE] = "";
    base_err e = base_read_file(path, &data, &n, REPORT_TRACE_MAX, why);
    if (e)
        return base_errf(err, e == BASE_ETOOBIG ? e : BASE_EIO, "report: %s", why);
    cJSON *run = cJSON_CreateObject();
    cJSON *steps = run ? cJSON_AddArrayToObject(run, "steps") : NULL;
    if (!steps) {
        e = base_errf(err, BASE_ENOMEM, "out of memory");
        goto done;
    }
    char *line = (char *)data;
    for (int lineno = 1; line && *line; lineno++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (*line) {
            cJSON *j = cJSON_Parse(line);
            if (!j && base_json_parse_error(line, strlen(line), NULL) == BASE_ENOMEM) {
                e = base_errf(err, BASE_ENOMEM, "report: out of memory");
                goto done;
            }
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
            if (!cJSON_IsString(type)) {
                cJSON_Delete(j);
                e = base_errf(err, BASE_EPROTO, "report: %s line %d: not a trace record", path,
                              lineno);
                goto done;
            }
            if (strcmp(type->valuestring, "step") == 0) {
                if ((e = attach_image(dir, j, err))) {
                    cJSON_Delete(j);
                    goto done;
                }
                cJSON_AddItemToArray(steps, j);
            } else if (strcmp(type->valuestring, "task") == 0 ||
                       strcmp(type->valuestring, "end") == 0) {
                cJSON_DeleteItemFromObjectCaseSensitive(run, type->valuestring);
                if (!cJSON_AddItemToObject(run, type->valuestring, j)) {
                    cJSON_Delete(j);
                    e = base_errf(err, BASE_ENOMEM, "report: out of memory");
                    goto done;
                }
            } else if (strcmp(type->valuestring, "model") == 0 || andor_key(type->valuestring)) {
                /* An agent run: one line per model call (agent_loop.c);
                 * the AND/OR planner's lines (agent/plan/andor_run.c). */
                const char *key = strcmp(type->valuestring, "model") == 0
                                      ? "models"
                                      : andor_key(type->valuestring);
                cJSON *models = cJSON_GetObjectItemCaseSensitive(run, key);
                if (!models)
                    models = cJSON_AddArrayToObject(run, key);
                if (!models || !cJSON_AddItemToArray(models, j)) {
                    cJSON_Delete(j);
                    e = base_errf(err, BASE_ENOMEM, "report: out of memory");
                    goto done;
                }
            } else {
                cJSON_Delete(j); /* newer record kinds are ignored */
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!cJSON_GetObjectItemCaseSensitive(run, "task"))
        e = base_errf(err, BASE_EPROTO, "report: %s has no task line", path);
    else if (cJSON_GetObjectItemCaseSensitive(run, "models"))
        e = load_ledger(dir, run, err);
    else if (cJSON_GetObjectItemCaseSensitive(run, "andor_events") ||
             cJSON_GetObjectItemCaseSensitive(run, "andor_ops"))
        e = load_andor_state(dir, run, err);
done:
    base_free(data);
    if (e)
        cJSON_Delete(run);
    else
        *out = run;
    return e;
}

/* Appends s with every '<' written as \u003c. */
static base_err append_script_safe(base_buf *b, const char *s)
{
    for (const char *p = s; *p;) {
        const char *lt = strchr(p, '<');
        size_t n = lt ? (size_t)(lt - p) : strlen(p);
        base_err e = base_buf_append(b, p, n);
        if (!e && lt)
            e = base_buf_append_str(b, "\\u003c");
        if (e)
            return e;
        p += n + (lt ? 1 : 0);
    }
    return BASE_OK;
}

base_err agent_report_write(const char *out_dir, char *err)
{
    if (!out_dir)
        return base_errf(err, BASE_EINVAL, "agent_report_write: NULL directory");
    cJSON *run = NULL;
    base_err e = load_run(out_dir, &run, err);
    if (e)
        return e;
    char *raw = cJSON_PrintUnformatted(run);
    cJSON_Delete(run);
    if (!raw)
        return base_errf(err, BASE_ENOMEM, "out of memory formatting the report");
    /* A trace from an older fovea may hold invalid UTF-8 from a page: the
     * report must be valid UTF-8 whatever it read (see trace.c). */
    size_t rn = strlen(raw);
    char *json = base_malloc(BASE_UTF8_REPAIR_CAP(rn));
    if (json)
        base_utf8_repair(raw, rn, json, BASE_UTF8_REPAIR_CAP(rn));
    cJSON_free(raw);
    if (!json)
        return base_errf(err, BASE_ENOMEM, "out of memory formatting the report");
    static const char marker[] = "{{RUN_JSON}}";
    const char *tpl = (const char *)fovea_report_html;
    const char *at = strstr(tpl, marker);
    BASE_ASSERT(at != NULL); /* the template is ours and embedded at build time */
    base_buf b;
    base_buf_init(&b, REPORT_OUT_MAX);
    e = base_buf_append(&b, tpl, (size_t)(at - tpl));
    if (!e)
        e = append_script_safe(&b, json);
    if (!e)
        e = base_buf_append_str(&b, at + sizeof marker - 1);
    base_free(json);
    if (e) {
        base_buf_fini(&b);
        return base_errf(err, e, "report: %s", base_strerror(e));
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/report.html", out_dir);
    e = base_write_file(path, b.data, b.len, err);
    base_buf_fini(&b);
    /* A report that could not be written is lost output: the run fails. */
    if (e == BASE_EIO)
        base_out_lost(path, err && err[0] ? err : "write failed");
    return e;
}

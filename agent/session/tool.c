/* agent/session/tool.c: the tool registry, the argument checker and tool_call.
 *
 * Tools live in groups (one array per file: tools_act.c, ...), listed
 * once in groups[] below. A call goes: find the tool (or its task-file
 * alias), refuse an opt-in tool the session does not allow, replace
 * "${name}" variables, check the arguments against the tool's JSON Schema
 * (plus the keys every step takes), arm the frozen-page watchdog, run the
 * tool, then the same epilogue for every tool: dialogs and tabs the call
 * caused (agent/session/faults.c), the URL after, hints, secrets scrubbed, the
 * overlay and the trace line, the variable a "save_as" names.
 *
 * The checker understands the part of JSON Schema our schemas use (type,
 * properties, required, enum, minimum/maximum, minLength/maxLength, items,
 * oneOf) and treats every object as additionalProperties false: a typo in
 * an argument name is an error naming it and the known ones.
 */
#include "agent/session/tool.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "agent/session/agent_int.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/json_schema.h"
#include "base/log.h"
#include "base/num.h"

/* Every tool group, in the order `fovea tools` and the model see them. */
static const tool_def *const groups[] = {
    agent__tools_act,
    agent__tools_input,
    agent__tools_nav,
    agent__tools_read,
    agent__tools_outline,
};

#define N_GROUPS (sizeof groups / sizeof groups[0])

/* Task-file words for tools: the actions task files used before the
 * registry, kept working. */
static const struct {
    const char *alias, *tool;
    int action;
} aliases[] = {
    {"click", "click_at", AGENT_CLICK},
    /* click_at with the verb of the same name (agent/session/step.c) */
    {"check", "click_at", AGENT_CLICK},
    {"uncheck", "click_at", AGENT_CLICK},
    {"toggle", "click_at", AGENT_CLICK},
    {"type", "type_at", AGENT_TYPE},
    {"select", "select_option", AGENT_SELECT},
    {"scroll", "scroll", -1}, /* its own arguments (modes), not the old step fields */
    {"drag", "drag", AGENT_DRAG},
    {"wait_for", "wait_for", AGENT_WAIT_FOR},
    {"assert_text", "assert_text", AGENT_ASSERT_TEXT},
    {"extract", "extract", AGENT_EXTRACT},
    {"dialog", "handle_dialog", AGENT_DIALOG},
};

#define N_ALIASES (sizeof aliases / sizeof aliases[0])

/* The keys every tool takes (they steer the call, not the tool). */
static const char common_schema[] =
    "{\"timeout_ms\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 600000},"
    " \"retries\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 10},"
    " \"critical\": {\"type\": \"boolean\"},"
    " \"note\": {\"type\": \"string\", \"maxLength\": 4096},"
    " \"save_as\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 64}}";

static const char *const reason_names[TOOL_REASON_COUNT] = {
    "ok",          "bad_args",       "unknown_tool",  "not_found",  "ambiguous",
    "disabled",    "invisible",      "covered",       "no_effect",  "dead_click",
    "bot_protected", "timeout",      "assert_failed", "pattern_limit", "blocked",
    "http_error",  "challenge",      "dialog",        "page_gone",  "not_responding",
    "vision",      "interrupted",    "error",
};

const char *tool_reason_name(tool_reason r)
{
    return (unsigned)r < TOOL_REASON_COUNT ? reason_names[r] : "?";
}

tool_reason tool_reason_from_name(const char *name)
{
    if (!name || !name[0])
        return TOOL_ERROR;
    for (int i = 0; i < TOOL_REASON_COUNT; i++)
        if (strcmp(name, reason_names[i]) == 0)
            return (tool_reason)i;
    /* The cascade's names that differ from ours. */
    if (strcmp(name, "no_visible_effect") == 0)
        return TOOL_OK;
    if (strcmp(name, "unresponsive") == 0 || strcmp(name, "frozen") == 0)
        return TOOL_NOT_RESPONDING;
    return TOOL_ERROR;
}

void tool_result_fini(tool_result *r)
{
    if (!r)
        return;
    cJSON_Delete(r->data);
    r->data = NULL;
}

/* ---- the table ----------------------------------------------------------------- */

int tool_count(void)
{
    int n = 0;
    for (size_t g = 0; g < N_GROUPS; g++)
        for (const tool_def *t = groups[g]; t->name; t++)
            n++;
    return n;
}

const tool_def *tool_at(int i)
{
    for (size_t g = 0; g < N_GROUPS && i >= 0; g++)
        for (const tool_def *t = groups[g]; t->name; t++)
            if (i-- == 0)
                return t;
    return NULL;
}

const tool_def *tool_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t a = 0; a < N_ALIASES; a++)
        if (strcmp(name, aliases[a].alias) == 0) {
            name = aliases[a].tool;
            break;
        }
    for (size_t g = 0; g < N_GROUPS; g++)
        for (const tool_def *t = groups[g]; t->name; t++)
            if (strcmp(t->name, name) == 0)
                return t;
    return NULL;
}

int agent__tool_action(const char *tool_name)
{
    for (size_t a = 0; tool_name && a < N_ALIASES; a++)
        if (strcmp(tool_name, aliases[a].tool) == 0)
            return aliases[a].action;
    return -1;
}

/* A variable name: [A-Za-z_][A-Za-z0-9_]*, at most 64 bytes. */
static int var_name_ok(const char *n)
{
    if (!n || !(isalpha((unsigned char)n[0]) || n[0] == '_') || strlen(n) > 64)
        return 0;
    for (const char *p = n; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

/* The common step keys, named after an unknown argument. */
static const char common_hint[] = "; and timeout_ms, retries, critical, note, save_as";

base_err tool_args_check(const tool_def *t, const cJSON *args, char *err)
{
    if (!t)
        return base_errf(err, BASE_EINVAL, "no tool");
    if (args && !cJSON_IsObject(args))
        return base_errf(err, BASE_EINVAL, "%s: arguments must be a JSON object", t->name);
    cJSON *sch = cJSON_Parse(t->schema);
    cJSON *common = cJSON_Parse(common_schema);
    base_err e;
    if (!sch || !common) { /* the schemas are constants (test_tool parses them all) */
        e = base_errf(err, BASE_ENOMEM, "out of memory");
    } else {
        base_json_schema_opts so = {common, common_hint, AGENT_TEXT_MAX, 0};
        e = base_json_schema_check(t->name, sch, args, &so, err);
    }
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(args, "save_as");
    if (!e && sa && !var_name_ok(sa->valuestring))
        e = base_errf(err, BASE_EINVAL,
                      "%s: 'save_as' must be a name: letters, digits and _, not starting with a digit",
                      t->name);
    if (!e && t->check)
        e = t->check(args, err);
    cJSON_Delete(sch);
    cJSON_Delete(common);
    return e;
}

base_err tool_check_call(const char *name, const cJSON *params, const cJSON *args, char *why,
                         void *user)
{
    (void)user;
    const tool_def *reg = tool_find(name);
    if (reg && strcmp(reg->name, name) == 0)
        return tool_args_check(reg, args, why);
    /* Another function the caller sent: its own parameters, and the step
     * keys every call may carry. */
    if (args && !cJSON_IsObject(args))
        return base_errf(why, BASE_EINVAL, "%s: arguments must be a JSON object", name);
    cJSON *common = cJSON_Parse(common_schema);
    if (!common)
        return base_errf(why, BASE_ENOMEM, "out of memory");
    base_json_schema_opts so = {common, common_hint, AGENT_TEXT_MAX, 0};
    base_err e = base_json_schema_check(name, params, args, &so, why);
    cJSON_Delete(common);
    return e;
}

unsigned tool_permit_needed(const tool_def *t)
{
    if (!t)
        return 0;
    if (t->flags & TOOL_OPT_IN)
        return TOOL_PERMIT_SCRIPTS;
    if (t->flags & TOOL_UPLOADS)
        return TOOL_PERMIT_UPLOAD;
    return 0;
}

const char *tool_permit_name(const tool_def *t)
{
    unsigned p = tool_permit_needed(t);
    return p == TOOL_PERMIT_SCRIPTS ? "allow-scripts" : p == TOOL_PERMIT_UPLOAD ? "upload-dir"
                                                                                : "none";
}

unsigned fovea_session_permits(const fovea_session *s)
{
    unsigned p = 0;
    if (s->o.allow_scripts)
        p |= TOOL_PERMIT_SCRIPTS;
    if ((s->o.upload_dir && s->o.upload_dir[0]) || s->o.script_paths)
        p |= TOOL_PERMIT_UPLOAD;
    return p;
}

int fovea_session_blocked(const fovea_session *s, const char **last)
{
    if (last)
        *last = s->last_blocked;
    return s->n_blocked;
}

cJSON *tool_functions_json(unsigned permits)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < tool_count(); i++) {
        const tool_def *t = tool_at(i);
        unsigned need = tool_permit_needed(t);
        if (need && !(permits & need))
            continue;
        cJSON *fn = cJSON_CreateObject();
        cJSON *wrap = cJSON_CreateObject();
        cJSON *params = cJSON_Parse(t->schema);
        if (!fn || !wrap || !params || !cJSON_AddStringToObject(fn, "name", t->name) ||
            !cJSON_AddStringToObject(fn, "description", t->description) ||
            !cJSON_AddStringToObject(wrap, "type", "function")) {
            cJSON_Delete(fn);
            cJSON_Delete(wrap);
            cJSON_Delete(params);
            cJSON_Delete(arr);
            return NULL;
        }
        /* OpenAI's strict function schemas require this spelled out. A list
         * missing a tool or a member is no list: all or nothing. */
        if (!cJSON_AddFalseToObject(params, "additionalProperties") ||
            !cJSON_AddItemToObject(fn, "parameters", params)) {
            cJSON_Delete(params);
            params = NULL;
        }
        if (!params || !cJSON_AddItemToObject(wrap, "function", fn)) {
            cJSON_Delete(fn); /* owns params when it was added */
            fn = NULL;
        }
        if (!fn || !cJSON_AddItemToArray(arr, wrap)) {
            cJSON_Delete(wrap); /* owns fn when it was added */
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* ---- variables ------------------------------------------------------------------- */

base_err fovea_session_set_var(fovea_session *s, const char *name, const char *value, char *err)
{
    if (!var_name_ok(name))
        return base_errf(err, BASE_EINVAL, "bad variable name '%.64s'", name ? name : "");
    char *v = base_strdup(value ? value : "");
    if (!v)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    for (int i = 0; i < s->n_vars; i++) {
        if (strcmp(s->var_name[i], name) == 0) {
            base_free(s->var_value[i]);
            s->var_value[i] = v;
            return BASE_OK;
        }
    }
    char *n = s->n_vars < AGENT__MAX_VARS ? base_strdup(name) : NULL;
    if (!n) {
        base_free(v);
        return base_errf(err, s->n_vars < AGENT__MAX_VARS ? BASE_ENOMEM : BASE_ETOOBIG,
                         "cannot keep variable %s (%d at most)", name, AGENT__MAX_VARS);
    }
    s->var_name[s->n_vars] = n;
    s->var_value[s->n_vars++] = v;
    return BASE_OK;
}

const char *fovea_session_var(const fovea_session *s, const char *name)
{
    for (int i = 0; s && name && i < s->n_vars; i++)
        if (strcmp(s->var_name[i], name) == 0)
            return s->var_value[i];
    return NULL;
}

/* v appended to b so that a regular expression matches it literally: every
 * ASCII character that is not a letter or digit gets a backslash, which PCRE2
 * reads as that character whatever it is (and in (?x) mode too). */
static void append_quoted(base_buf *b, const char *v)
{
    for (; *v; v++) {
        unsigned char ch = (unsigned char)*v;
        if (ch < 0x80 && !isalnum(ch))
            base_buf_append(b, "\\", 1);
        base_buf_append(b, v, 1);
    }
}

/* str with every "${name}" replaced; NULL with *why set when a variable is
 * not set. Caller frees. In a regular expression (re) the value is quoted:
 * a saved "$389" or "Pro (monthly)" must match itself, not be read as
 * regex syntax. */
static char *expand(const fovea_session *s, const char *str, int re, char *why, size_t n)
{
    base_buf b;
    base_buf_init(&b, AGENT_TEXT_MAX * 4);
    const char *p = str;
    for (const char *q; (q = strstr(p, "${")) != NULL;) {
        const char *end = strchr(q + 2, '}');
        if (!end)
            break;
        char name[80];
        snprintf(name, sizeof name, "%.*s", (int)(end - q - 2 > 70 ? 70 : end - q - 2), q + 2);
        const char *v = fovea_session_var(s, name);
        if (!v) {
            snprintf(why, n, "variable ${%s} is not set (\"save_as\" on an earlier call sets it)",
                     name);
            base_buf_fini(&b);
            return NULL;
        }
        base_buf_append(&b, p, (size_t)(q - p));
        if (re)
            append_quoted(&b, v);
        else
            base_buf_append_str(&b, v);
        p = end + 1;
    }
    base_buf_append_str(&b, p);
    char *out = base_buf_steal(&b, NULL);
    base_buf_fini(&b);
    if (!out)
        snprintf(why, n, "out of memory");
    return out;
}

/* Replaces variables in every string of j (a copy the call owns). */
static int expand_all(const fovea_session *s, cJSON *j, char *why, size_t n)
{
    cJSON *f;
    cJSON_ArrayForEach(f, j)
    {
        if ((cJSON_IsObject(f) || cJSON_IsArray(f)) && !expand_all(s, f, why, n))
            return 0;
        if (!cJSON_IsString(f) || !strstr(f->valuestring, "${"))
            continue;
        int re = f->string &&
                 (strcmp(f->string, "pattern") == 0 || strcmp(f->string, "url_pattern") == 0);
        char *v = expand(s, f->valuestring, re, why, n);
        if (!v)
            return 0;
        /* In place: no replacement item (cJSON 1.7.15's ReplaceItemInObject
         * leaves a nameless member when its key copy fails). */
        int ok = cJSON_SetValuestring(f, v) != NULL;
        base_free(v);
        if (!ok) {
            snprintf(why, n, "out of memory");
            return 0;
        }
    }
    return 1;
}

/* ---- the call ----------------------------------------------------------------------- */

const char *agent__arg_str(const cJSON *args, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int agent__arg_int(const cJSON *args, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    int out = dflt;
    if (cJSON_IsNumber(v) && base_num_to_int(v->valuedouble, -2147483647, 2147483647, &out) != BASE_OK)
        out = dflt;
    return out;
}

double agent__arg_num(const cJSON *args, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

int agent__arg_bool(const cJSON *args, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

/* The describe line of a call the runner did not describe: the step
 * description of a tool step with these arguments (copied: a step owns its
 * strings). */
static void describe_call(const char *name, const cJSON *args, char *buf, size_t n)
{
    agent_step st;
    memset(&st, 0, sizeof st);
    st.action = AGENT_TOOL;
    st.tool = base_strdup(name);
    st.args = args ? cJSON_Duplicate(args, 1) : NULL;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(args, "target");
    if (cJSON_IsString(t))
        st.target.label = base_strdup(t->valuestring);
    agent_step_describe(&st, buf, n);
    agent_step_fini(&st);
}

/* Counts a call the guards refused, for the run's summary. */
static void note_blocked(fovea_session *s, const char *message)
{
    s->n_blocked++;
    agent__copy(s->last_blocked, sizeof s->last_blocked, message);
}

/* A call that fails before its tool runs. */
static int refuse(fovea_session *s, tool_result *out, tool_reason why, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(fovea_session *s, tool_result *out, tool_reason why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->rec.outcome, sizeof out->rec.outcome, fmt, ap);
    va_end(ap);
    agent__copy(out->rec.reason, sizeof out->rec.reason, tool_reason_name(why));
    agent__copy(out->rec.gate, sizeof out->rec.gate, "-");
    agent__scrub_record(s, &out->rec);
    out->success = 0;
    out->reason = why;
    agent__copy(out->message, sizeof out->message, out->rec.outcome);
    if (why == TOOL_BLOCKED)
        note_blocked(s, out->message);
    char err[BASE_ERRBUF_SIZE];
    if (s->trace && agent_trace_step(s->trace, &out->rec, err) != BASE_OK)
        base_log(BASE_LOG_AGENT, BASE_LOG_ERROR, "%s", err);
    return 0;
}

int tool_call_json(fovea_session *s, const char *name, const cJSON *args_in, tool_result *out)
{
    memset(out, 0, sizeof *out);
    agent_step_record *r = &out->rec;
    r->index = s->step_index > 0 ? s->step_index : ++s->n_calls;
    r->total = s->step_total;
    r->attempts = s->attempt > 0 ? s->attempt : 1;
    agent__copy(r->intent, sizeof r->intent, "-");
    agent__copy(r->action, sizeof r->action, s->step_action[0] ? s->step_action : name);
    if (s->step_desc[0])
        agent__copy(r->desc, sizeof r->desc, s->step_desc);
    else
        describe_call(name ? name : "?", args_in, r->desc, sizeof r->desc);
    const tool_def *t = tool_find(name);
    if (!t)
        return refuse(s, out, TOOL_UNKNOWN_TOOL, "no tool called '%.60s' (`fovea tools` lists them)",
                      name ? name : "");
    /* The run's permits, whatever the caller (a model) was told or says. */
    unsigned need = tool_permit_needed(t);
    if (need == TOOL_PERMIT_SCRIPTS && !(fovea_session_permits(s) & need))
        return refuse(s, out, TOOL_BLOCKED,
                      "%s runs page scripts and is off unless allowed (--allow-scripts)", t->name);
    if (need == TOOL_PERMIT_UPLOAD && !(fovea_session_permits(s) & need))
        return refuse(s, out, TOOL_BLOCKED,
                      "%s is off: the run names no folder files may be uploaded from (the "
                      "operator gives one with --upload-dir DIR)",
                      t->name);
    cJSON *args = args_in ? cJSON_Duplicate(args_in, 1) : cJSON_CreateObject();
    if (!args)
        return refuse(s, out, TOOL_ERROR, "out of memory");
    char why[BASE_ERRBUF_SIZE] = "";
    if (!cJSON_IsObject(args)) {
        cJSON_Delete(args);
        return refuse(s, out, TOOL_BAD_ARGS, "%s: arguments must be a JSON object", t->name);
    }
    if (!expand_all(s, args, why, sizeof why) || tool_args_check(t, args, why) != BASE_OK) {
        cJSON_Delete(args);
        return refuse(s, out, TOOL_BAD_ARGS, "%s", why);
    }
    const cJSON *tg = cJSON_GetObjectItemCaseSensitive(args, "target");
    if (cJSON_IsString(tg))
        agent__copy(r->target_label, sizeof r->target_label, tg->valuestring);
    /* A followed tab that closed itself after the previous call (its
     * window.close() landed late): this call runs on the opener. */
    char gone[200] = "";
    if (s->page != s->home && cdp_page_status(s->page, gone, sizeof gone) != BASE_OK &&
        strncmp(gone, "tab closed", 10) == 0 && agent__back_to_opener(s, r))
        base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "step %d: %s", r->index, r->new_tab);
    double t0 = base_monotime_ms();
    int timeout = agent__arg_int(args, "timeout_ms", 5000);
    if (s->pass_budget_ms < timeout)
        s->pass_budget_ms = timeout;
    s->fx_tab[0] = '\0';
    s->shot_ep = NULL;
    s->delivered = 0;
    s->effects = 0;
    memset(&s->call_g, 0, sizeof s->call_g);
    s->call_g.box = -1;
    /* Where the previous call left the page (read after it): no extra round
     * trip before the action. */
    agent__copy(out->changed.url_before, sizeof out->changed.url_before, s->last_url);
    /* The probe starts a little before the deadline so that a frozen page
     * is named by deadline + AGENT__PROBE_MS - AGENT__PROBE_LEAD_MS. */
    double probe_at = t0 + timeout - AGENT__PROBE_LEAD_MS;
    agent__watchdog_arm(s->wd, s->page, probe_at > t0 + timeout / 2 ? probe_at : t0 + timeout / 2);
    /* The data a tool returns is whole or absent: its builders add many
     * members unchecked (put_str and the like), so an allocation that
     * failed on this thread during the call drops the data rather than hand
     * the caller an object that lost a member (a `value` without its
     * lines, a tab list without a tab). The call's outcome stands: it may
     * have acted, and must not be retried as failed. */
    unsigned long fails0 = base_alloc_thread_failures();
    int ok = t->run(s, args, out);
    /* A target the label could not single out: the controls it may mean
     * go back with the result, for the caller to name one. */
    if (!ok && !out->data && s->call_g.snap.n_alt > 0 && strcmp(r->reason, "ambiguous") == 0)
        out->data = agent__ambiguous_json(&s->call_g.snap, s->call_g.epoch);
    if (out->data && base_alloc_thread_failures() != fails0) {
        cJSON_Delete(out->data);
        out->data = NULL;
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN,
                 "%s: out of memory building the result data; it is left out", t->name);
    }
    agent__watchdog_disarm(s->wd);
    r->ok = ok;
    if (ok)
        agent__copy(r->reason, sizeof r->reason, "ok");
    int final = agent__call_faults(s, (t->flags & TOOL_MUTATES) != 0, r, &ok);
    fovea_session_page_url(s, r->url, sizeof r->url);
    agent__copy(out->changed.url_after, sizeof out->changed.url_after, r->url);
    out->changed.url_changed = strcmp(out->changed.url_before, r->url) != 0;
    agent__copy(s->last_url, sizeof s->last_url, r->url);
    r->total_ms = base_monotime_ms() - t0;
    const perc_epoch *ep = s->call_g.epoch;
    /* Any failed call that named a target offers the nearest names. */
    if (!ok && r->n_alternatives == 0 && ep && (r->target_label[0] || r->target_index > 0) &&
        strcmp(r->reason, "interrupted") != 0) {
        agent_target tt = {r->target_label[0] ? r->target_label : NULL, r->target_index};
        agent__suggest(ep, &tt, r);
    }
    for (int k = 0; ep && k < ep->n && r->n_marks < AGENT_MAX_MARKS; k++)
        agent__mark_name_masked(s, &ep->boxes[k], r->marks[r->n_marks++], sizeof r->marks[0]);
    agent__scrub_record(s, r);
    agent__write_overlay(s, r, &s->call_g);
    r->total_ms = base_monotime_ms() - t0;
    agent__grounded_fini(&s->call_g);
    char err[BASE_ERRBUF_SIZE] = "";
    if (s->trace && agent_trace_step(s->trace, r, err) != BASE_OK)
        base_log(BASE_LOG_AGENT, BASE_LOG_ERROR, "%s", err);
    out->success = ok;
    out->reason = ok ? TOOL_OK : tool_reason_from_name(r->reason);
    if (out->reason == TOOL_BLOCKED)
        note_blocked(s, r->outcome);
    agent__copy(out->message, sizeof out->message, r->outcome);
    out->delivered = s->delivered || final;
    out->changed.effects = s->effects;
    out->changed.new_tab = r->new_tab[0] != '\0';
    out->changed.dialog = r->dialog[0] != '\0';
    /* The value a call produced: kept as ${save_as} for later calls (as it
     * is: a one-time code read from the page must be typed as it is), then
     * the data the caller sees is scrubbed like every other output. */
    const char *save = agent__arg_str(args, "save_as");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(out->data, "value");
    if (ok && save && cJSON_IsString(val) &&
        fovea_session_set_var(s, save, val->valuestring, err) != BASE_OK) {
        out->success = 0;
        out->reason = TOOL_ERROR;
        snprintf(out->message, sizeof out->message, "%.200s", err);
    }
    /* Fail-closed: a string that cannot be scrubbed is emptied. */
    if (out->data)
        (void)agent_secrets_scrub_json(s->sec, out->data);
    cJSON_Delete(args);
    return out->success;
}

int tool_call(fovea_session *s, const char *name, const char *args_json, tool_result *out)
{
    if (!args_json || !args_json[0])
        return tool_call_json(s, name, NULL, out);
    cJSON *args = cJSON_Parse(args_json);
    if (!args) {
        memset(out, 0, sizeof *out);
        if (!s->step_desc[0])
            snprintf(out->rec.desc, sizeof out->rec.desc, "%.60s", name ? name : "?");
        out->rec.index = s->step_index > 0 ? s->step_index : ++s->n_calls;
        return refuse(s, out, TOOL_BAD_ARGS, "%.60s: arguments are not valid JSON",
                      name ? name : "?");
    }
    int ok = tool_call_json(s, name, args, out);
    cJSON_Delete(args);
    return ok;
}

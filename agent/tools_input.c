/* agent/tools_input.c: the input tools a person or a model needs beyond
 * click and type — send_keys, hover, double_click, right_click,
 * get_dropdown_options, select_dropdown_by_text, upload_file,
 * get_clipboard (issue 12; seed 002 Appendix A).
 *
 * Each grounds its target the way click_at does (agent__ground: gate, box,
 * snap), acts through the hand (cascade/input.h: trusted input, the cursor
 * model, the probe's covered / disabled refusals, the delivery rule) and
 * reports through agent__cascade_outcome, so a tier list, alternatives and
 * the delivered flag reach the caller the same way for every verb. Page
 * changing tools bracket the action with agent__watch_begin / _end. The
 * output for the caller goes to r->data ({"value": ...} where a value can
 * be saved with save_as).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session_int.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "cascade/input.h"
#include "snapper/snap.h"

#define KEYS_MAX 32

/* ---------- shared ---------- */

/* The step the grounding needs: its timeout and criticality. */
static void step_of(const cJSON *args, agent_step *st)
{
    memset(st, 0, sizeof *st);
    st->timeout_ms = agent__arg_int(args, "timeout_ms", 5000);
    st->retries = agent__arg_int(args, "retries", 1);
    st->critical = agent__arg_bool(args, "critical", 0);
    st->expect_effect = 0;
}

/* The "target" argument: "label", "[V4]", "[V4] label" or {label, index}.
 * t->label points into args or into buf (n bytes). Returns 0 when absent. */
static int target_of_arg(const cJSON *args, agent_target *t, char *buf, size_t n)
{
    memset(t, 0, sizeof *t);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "target");
    if (cJSON_IsObject(v)) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(v, "label");
        const cJSON *i = cJSON_GetObjectItemCaseSensitive(v, "index");
        if (cJSON_IsString(l) && l->valuestring[0]) {
            snprintf(buf, n, "%s", l->valuestring);
            t->label = buf;
        }
        if (cJSON_IsNumber(i))
            t->index = i->valueint;
        return t->label || t->index;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return 0;
    const char *s = v->valuestring;
    int idx = 0, used = 0;
    if (sscanf(s, " [V%d]%n", &idx, &used) == 1 && used > 0 && idx > 0) {
        t->index = idx;
        s += used;
        while (*s == ' ')
            s++;
    }
    if (*s) {
        snprintf(buf, n, "%s", s);
        t->label = buf;
    }
    return t->label || t->index;
}

/* Grounds the target argument for a press of intent verb. 1 with *g and
 * *ct filled; 0 with r's failure set. */
static int ground_target(fovea_session *s, const cJSON *args, const char *verb, tool_result *r,
                         agent__grounded *g, agent_target *t, char *lbuf, size_t ln,
                         cascade_target *ct)
{
    memset(g, 0, sizeof *g);
    g->box = -1;
    if (!target_of_arg(args, t, lbuf, ln)) {
        agent__failf(&r->rec, "bad_args", "a target is needed (a label, \"[V4]\" or {label, index})");
        return 0;
    }
    agent_step st;
    step_of(args, &st);
    if (!agent__ground(s, &st, t, snap_classify_intent(verb, t->label), 1, &r->rec, g))
        return 0;
    *ct = agent__target_of(g, t->label);
    return 1;
}

static cJSON *effects_json(unsigned fx)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {CASCADE_FX_MUTATION, "mutation"}, {CASCADE_FX_URL, "url"},
        {CASCADE_FX_VALUE, "value"},       {CASCADE_FX_CHECKED, "checked"},
        {CASCADE_FX_FOCUS, "focus"},       {CASCADE_FX_SELECTION, "selection"},
        {CASCADE_FX_SHADOW, "shadow"},     {CASCADE_FX_REQUEST, "request"},
        {CASCADE_FX_NEW_TAB, "new_tab"},   {CASCADE_FX_DIALOG, "dialog"},
    };
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(fx & names[i].bit))
            continue;
        cJSON *n = cJSON_CreateString(names[i].name);
        if (!n || !cJSON_AddItemToArray(a, n)) {
            cJSON_Delete(n);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* r->data = {"effects": [...]} plus the caller's members (may be NULL).
 * Returns the object (owned by r), NULL on allocation failure. */
static cJSON *data_with_effects(tool_result *r, unsigned fx)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *e = effects_json(fx);
    if (!d || !e || !cJSON_AddItemToObject(d, "effects", e)) {
        cJSON_Delete(d);
        cJSON_Delete(e);
        return NULL;
    }
    cJSON_Delete(r->data);
    r->data = d;
    return d;
}

/* After a hand action: the delivered flag, the new tab, the outcome. */
static int finish(fovea_session *s, tool_result *r, base_err e, const cascade_result *c,
                  const char *err)
{
    s->delivered |= c->delivered;
    s->effects |= c->effects;
    r->delivered |= c->delivered;
    if (c->effects & CASCADE_FX_NEW_TAB)
        snprintf(s->fx_tab, sizeof s->fx_tab, "%s", c->new_target_id);
    int ok = agent__cascade_outcome(s, &r->rec, e, c, err);
    if (ok)
        snprintf(r->rec.outcome, sizeof r->rec.outcome, "%.250s", c->message);
    return ok;
}

/* ---------- send_keys ---------- */

/* The keys argument: a string of space-separated chords or an array of
 * chords. Returns the count, or -1 with r's bad_args failure. */
static int keys_of_arg(const cJSON *args, cascade_key *out, tool_result *r)
{
    char err[BASE_ERRBUF_SIZE] = "";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "keys");
    int n = 0;
    if (cJSON_IsString(v)) {
        if (cascade_keys_parse(v->valuestring, out, KEYS_MAX, &n, err)) {
            agent__failf(&r->rec, "bad_args", "send_keys: %s", err);
            return -1;
        }
        return n;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it)) {
            agent__failf(&r->rec, "bad_args", "send_keys: 'keys' items must be strings");
            return -1;
        }
        if (n >= KEYS_MAX) {
            agent__failf(&r->rec, "bad_args", "send_keys: at most %d keys", KEYS_MAX);
            return -1;
        }
        /* An item may itself be a space-separated sequence. */
        int m = 0;
        err[0] = '\0';
        if (cascade_keys_parse(it->valuestring, out + n, KEYS_MAX - n, &m, err)) {
            agent__failf(&r->rec, "bad_args", "send_keys: %s", err);
            return -1;
        }
        n += m;
    }
    if (!n) {
        agent__failf(&r->rec, "bad_args", "send_keys: no keys given");
        return -1;
    }
    return n;
}

static int run_send_keys(fovea_session *s, const cJSON *args, tool_result *r)
{
    cascade_key keys[KEYS_MAX];
    int n = keys_of_arg(args, keys, r);
    if (n < 0)
        return 0;
    int repeat = agent__arg_int(args, "repeat", 1);
    agent__grounded g;
    memset(&g, 0, sizeof g);
    g.box = -1;
    agent_target t;
    char lbuf[256];
    cascade_target ct;
    int has_target = cJSON_GetObjectItemCaseSensitive(args, "target") != NULL;
    if (has_target && !ground_target(s, args, "focus", r, &g, &t, lbuf, sizeof lbuf, &ct)) {
        agent__grounded_fini(&g);
        return 0;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__settle w;
    agent__watch_begin(s, &w);
    base_err e = cascade_keys(s->hand, has_target ? &ct : NULL, keys, n, repeat, &c, err);
    int ok = finish(s, r, e, &c, err);
    cJSON *d = data_with_effects(r, c.effects);
    cJSON *names = d ? cJSON_AddArrayToObject(d, "keys") : NULL;
    for (int i = 0; names && i < n; i++)
        cJSON_AddItemToArray(names, cJSON_CreateString(keys[i].name));
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent__grounded_fini(&g);
    return ok;
}

/* ---------- hover, double_click, right_click ---------- */

/* The lines of after that before lacks (what appeared), at most 20. */
static cJSON *appeared(const char *before, const char *after)
{
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return NULL;
    const char *p = after;
    int n = 0;
    while (*p && n < 20) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && len < 400) {
            char line[400];
            memcpy(line, p, len);
            line[len] = '\0';
            /* Whole-line match in before. */
            int found = 0;
            for (const char *q = strstr(before, line); q && !found; q = strstr(q + 1, line))
                found = (q == before || q[-1] == '\n') && (q[len] == '\n' || q[len] == '\0');
            if (!found) {
                cJSON *sline = cJSON_CreateString(line);
                if (!sline || !cJSON_AddItemToArray(a, sline)) {
                    cJSON_Delete(sline);
                    break;
                }
                n++;
            }
        }
        if (!e)
            break;
        p = e + 1;
    }
    return a;
}

static int run_press(fovea_session *s, const cJSON *args, tool_result *r, cascade_press_kind kind,
                     const char *verb)
{
    agent__grounded g;
    agent_target t;
    char lbuf[256];
    cascade_target ct;
    if (!ground_target(s, args, verb, r, &g, &t, lbuf, sizeof lbuf, &ct)) {
        agent__grounded_fini(&g);
        return 0;
    }
    if (kind == CASCADE_PRESS_HOVER)
        ct.expect_effect = 0;
    else
        ct.expect_effect = agent__arg_bool(args, "expect_effect", 0) ? 1 : 0;
    char err[BASE_ERRBUF_SIZE] = "";
    base_buf before;
    base_buf_init(&before, 1u << 20);
    int have_before = kind == CASCADE_PRESS_HOVER && agent__page_text(s, &before, err) == BASE_OK;
    err[0] = '\0';
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__settle w;
    agent__watch_begin(s, &w);
    base_err e = cascade_press(s->hand, &ct, kind, &c, err);
    int ok = finish(s, r, e, &c, err);
    cJSON *d = data_with_effects(r, c.effects);
    if (ok && have_before && d) {
        /* What the hover showed: a CSS :hover flyout changes no DOM, so
         * the rendered text is compared. */
        base_buf after;
        base_buf_init(&after, 1u << 20);
        char e2[BASE_ERRBUF_SIZE] = "";
        if (agent__page_text(s, &after, e2) == BASE_OK) {
            cJSON *ap = appeared(before.data ? (const char *)before.data : "",
                                 after.data ? (const char *)after.data : "");
            if (ap) {
                cJSON_AddItemToObject(d, "appeared", ap);
                int na = cJSON_GetArraySize(ap);
                if (na > 0) {
                    size_t l = strlen(r->rec.outcome);
                    snprintf(r->rec.outcome + l, sizeof r->rec.outcome - l, "; appeared: %.60s%s",
                             cJSON_GetArrayItem(ap, 0)->valuestring, na > 1 ? ", ..." : "");
                }
            }
        }
        base_buf_fini(&after);
    }
    base_buf_fini(&before);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent__grounded_fini(&g);
    return ok;
}

static int run_hover(fovea_session *s, const cJSON *args, tool_result *r)
{
    return run_press(s, args, r, CASCADE_PRESS_HOVER, "hover");
}

static int run_double_click(fovea_session *s, const cJSON *args, tool_result *r)
{
    return run_press(s, args, r, CASCADE_PRESS_DOUBLE, "open");
}

static int run_right_click(fovea_session *s, const cJSON *args, tool_result *r)
{
    return run_press(s, args, r, CASCADE_PRESS_RIGHT, "open");
}

/* ---------- dropdowns ---------- */

static int run_get_dropdown_options(fovea_session *s, const cJSON *args, tool_result *r)
{
    agent__grounded g;
    agent_target t;
    char lbuf[256];
    cascade_target ct;
    if (!ground_target(s, args, "open", r, &g, &t, lbuf, sizeof lbuf, &ct)) {
        agent__grounded_fini(&g);
        return 0;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    cascade_options o;
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__settle w;
    agent__watch_begin(s, &w);
    base_err e = cascade_dropdown_options(s->hand, &ct, 0, &o, &c, err);
    int ok = finish(s, r, e, &c, err);
    if (ok) {
        cJSON *d = cJSON_CreateObject();
        cJSON *arr = d ? cJSON_AddArrayToObject(d, "options") : NULL;
        base_buf all;
        base_buf_init(&all, 1u << 20);
        for (int i = 0; arr && i < o.n; i++) {
            cJSON *it = cJSON_CreateObject();
            if (!it || !cJSON_AddItemToArray(arr, it)) {
                cJSON_Delete(it);
                arr = NULL;
                break;
            }
            cJSON_AddStringToObject(it, "text", o.v[i].text);
            cJSON_AddStringToObject(it, "value", o.v[i].value);
            cJSON_AddBoolToObject(it, "selected", o.v[i].selected);
            cJSON_AddBoolToObject(it, "disabled", o.v[i].disabled);
            (void)base_buf_printf(&all, "%s%s", i ? "\n" : "", o.v[i].text);
        }
        if (d && arr) {
            cJSON_AddBoolToObject(d, "native", o.native);
            /* save_as keeps the option texts, one a line. */
            cJSON_AddStringToObject(d, "value", all.data ? (const char *)all.data : "");
            cJSON_Delete(r->data);
            r->data = d;
        } else {
            cJSON_Delete(d);
            agent__failf(&r->rec, "error", "out of memory");
            ok = 0;
        }
        base_buf_fini(&all);
    }
    cascade_options_fini(&o);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent__grounded_fini(&g);
    return ok;
}

static int run_select_dropdown_by_text(fovea_session *s, const cJSON *args, tool_result *r)
{
    agent__grounded g;
    agent_target t;
    char lbuf[256];
    cascade_target ct;
    if (!ground_target(s, args, "open", r, &g, &t, lbuf, sizeof lbuf, &ct)) {
        agent__grounded_fini(&g);
        return 0;
    }
    const char *text = agent__arg_str(args, "text");
    char err[BASE_ERRBUF_SIZE] = "";
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__settle w;
    agent__watch_begin(s, &w);
    base_err e = cascade_dropdown_select(s->hand, &ct, text, &c, err);
    int ok = finish(s, r, e, &c, err);
    data_with_effects(r, c.effects);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent__grounded_fini(&g);
    return ok;
}

/* ---------- upload_file ---------- */

static int run_upload_file(fovea_session *s, const cJSON *args, tool_result *r)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(args, "files");
    const char *paths[16];
    int n = 0;
    if (cJSON_IsString(f)) {
        paths[n++] = f->valuestring;
    } else {
        const cJSON *it;
        cJSON_ArrayForEach(it, f)
        {
            if (n >= 16) {
                agent__failf(&r->rec, "bad_args", "upload_file: at most 16 files");
                return 0;
            }
            paths[n++] = it->valuestring;
        }
    }
    if (!n) {
        agent__failf(&r->rec, "bad_args", "upload_file: no file given");
        return 0;
    }
    agent__grounded g;
    agent_target t;
    char lbuf[256];
    cascade_target ct;
    if (!ground_target(s, args, "upload", r, &g, &t, lbuf, sizeof lbuf, &ct)) {
        agent__grounded_fini(&g);
        return 0;
    }
    char err[BASE_ERRBUF_SIZE] = "", names[1024] = "";
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__settle w;
    agent__watch_begin(s, &w);
    base_err e = cascade_upload(s->hand, &ct, paths, n, names, sizeof names, &c, err);
    int ok;
    if (e == BASE_EINVAL && !c.delivered) {
        /* A missing, unreadable or surplus file: nothing was set. */
        agent__failf(&r->rec, "bad_args", "upload_file: %s", err);
        ok = 0;
    } else {
        ok = finish(s, r, e, &c, err);
    }
    cJSON *d = data_with_effects(r, c.effects);
    cJSON *arr = d ? cJSON_AddArrayToObject(d, "files") : NULL;
    for (char *p = names; arr && *p;) {
        char *q = strstr(p, ", ");
        if (q)
            *q = '\0';
        cJSON_AddItemToArray(arr, cJSON_CreateString(p));
        if (!q)
            break;
        p = q + 2;
    }
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent__grounded_fini(&g);
    return ok;
}

/* ---------- get_clipboard ---------- */

static int run_get_clipboard(fovea_session *s, const cJSON *args, tool_result *r)
{
    (void)args;
    char err[BASE_ERRBUF_SIZE] = "";
    char *text = NULL;
    base_err e = cascade_clipboard_read(s->hand, &text, err);
    if (e) {
        agent__failf(&r->rec, e == BASE_EINVAL ? "blocked" : "error", "get_clipboard: %s", err);
        return 0;
    }
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddStringToObject(d, "value", text)) {
        cJSON_Delete(d);
        base_free(text);
        agent__failf(&r->rec, "error", "get_clipboard: out of memory");
        return 0;
    }
    cJSON_Delete(r->data);
    r->data = d;
    /* The outcome line is scrubbed of secrets like every string of the
     * result (tool_call). */
    agent__okf(&r->rec, "clipboard holds %zu bytes: '%.80s%s'", strlen(text), text,
               strlen(text) > 80 ? "..." : "");
    base_free(text);
    return 1;
}

/* ---------- the table ---------- */

#define TARGET_SCHEMA                                                                           \
    "\"target\":{\"oneOf\":[{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"          \
    "{\"type\":\"object\",\"properties\":{\"label\":{\"type\":\"string\",\"maxLength\":4096},"  \
    "\"index\":{\"type\":\"integer\",\"minimum\":1}},\"additionalProperties\":false}],"         \
    "\"description\":\"the element: its label, \\\"[V4]\\\" (vision index), \\\"[V4] label\\\" " \
    "or {label, index}\"}"

const tool_def agent__tools_input[] = {
    {"send_keys",
     "Press keys or key chords (Enter, Tab, Shift+Tab, Escape, Control+A, ArrowDown, F5, a) on "
     "the focused element, or on target after clicking it to focus it.",
     "{\"type\":\"object\",\"properties\":{"
     "\"keys\":{\"oneOf\":[{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024},"
     "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}}],"
     "\"description\":\"chords separated by spaces (\\\"Control+A Delete\\\"), or a list\"},"
     "\"repeat\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},"
     TARGET_SCHEMA "},\"required\":[\"keys\"],\"additionalProperties\":false}",
     TOOL_MUTATES | TOOL_TARGETED, run_send_keys},
    {"hover",
     "Move the mouse onto target and leave it there (menus that open on hover); reports what "
     "appeared.",
     "{\"type\":\"object\",\"properties\":{" TARGET_SCHEMA
     "},\"required\":[\"target\"],\"additionalProperties\":false}",
     TOOL_MUTATES | TOOL_TARGETED, run_hover},
    {"double_click", "Double-click target (open, edit in place).",
     "{\"type\":\"object\",\"properties\":{" TARGET_SCHEMA
     ",\"expect_effect\":{\"type\":\"boolean\"}},\"required\":[\"target\"],"
     "\"additionalProperties\":false}",
     TOOL_MUTATES | TOOL_TARGETED, run_double_click},
    {"right_click", "Right-click target (opens its context menu).",
     "{\"type\":\"object\",\"properties\":{" TARGET_SCHEMA
     ",\"expect_effect\":{\"type\":\"boolean\"}},\"required\":[\"target\"],"
     "\"additionalProperties\":false}",
     TOOL_MUTATES | TOOL_TARGETED, run_right_click},
    {"get_dropdown_options",
     "List the options of a dropdown (a <select>, or a combobox/listbox, opened and closed "
     "again): text, value, selected, disabled.",
     "{\"type\":\"object\",\"properties\":{" TARGET_SCHEMA
     "},\"required\":[\"target\"],\"additionalProperties\":false}",
     TOOL_MUTATES | TOOL_TARGETED, run_get_dropdown_options},
    {"select_dropdown_by_text",
     "Choose the option of a dropdown by its visible text (exact, then ignoring case, then "
     "prefix; several matches is an error listing them).",
     "{\"type\":\"object\",\"properties\":{" TARGET_SCHEMA
     ",\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024}},"
     "\"required\":[\"target\",\"text\"],\"additionalProperties\":false}",
     TOOL_MUTATES | TOOL_TARGETED, run_select_dropdown_by_text},
    {"upload_file",
     "Put local files into a file input (the input, its label or upload area, or a button "
     "that opens a file chooser).",
     "{\"type\":\"object\",\"properties\":{" TARGET_SCHEMA
     ",\"files\":{\"oneOf\":[{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"
     "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096}}],"
     "\"description\":\"a path or a list of paths (relative to the working directory)\"}},"
     "\"required\":[\"target\",\"files\"],\"additionalProperties\":false}",
     TOOL_MUTATES | TOOL_TARGETED, run_upload_file},
    {"get_clipboard", "Read the text on the clipboard (what a Copy button put there).",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}", 0,
     run_get_clipboard},
    {NULL, NULL, NULL, 0, NULL},
};

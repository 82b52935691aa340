/* agent/session/tools_input.c: the input tools a person or a model needs beyond
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

#include "agent/session/js.h"
#include "agent/session/permit.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "cascade/input.h"
#include "snapper/snap.h"

#define KEYS_MAX 32

/* ---------- shared ---------- */

/* Grounds the "target" argument like click_at does: the target and the
 * step keys (timeout_ms, retries, critical, verb) parsed by the task
 * parser's rules (agent_step_from_args), then gate, box and snap
 * (agent__ground) into s->call_g, which the overlay draws and tool_call
 * releases. 1 with *st (agent_step_fini after the action: ct's label points
 * into it) and *ct filled; 0 with r's failure set. */
static int ground_target(fovea_session *s, const cJSON *args, const char *tool, const char *verb,
                         tool_result *r, agent_step *st, cascade_target *ct)
{
    memset(st, 0, sizeof *st);
    if (!agent__ground_arg(s, args, "target", tool, verb, 0, 1, &r->rec, st))
        return 0;
    *ct = agent__target_of(&s->call_g, st->target.label);
    return 1;
}

/* The effect bits by name (cascade_effect_name); NULL on allocation
 * failure. */
static cJSON *effects_json(unsigned fx)
{
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return NULL;
    for (unsigned i = 0; i < 32; i++) {
        const char *name = (fx >> i) & 1u ? cascade_effect_name(1u << i) : NULL;
        cJSON *n = name ? cJSON_CreateString(name) : NULL;
        if (name && (!n || !cJSON_AddItemToArray(a, n))) {
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
        cJSON_Delete(r->data); /* whole or absent */
        r->data = NULL;
        return NULL;
    }
    cJSON_Delete(r->data);
    r->data = d;
    return d;
}

/* Appends the string v to the array a; 0 on allocation failure (then the
 * caller drops the whole result data: a list that lost an item is another
 * list). */
static int add_str(cJSON *a, const char *v)
{
    cJSON *n = cJSON_CreateString(v);
    if (!n || !cJSON_AddItemToArray(a, n)) {
        cJSON_Delete(n);
        return 0;
    }
    return 1;
}

/* The result data is whole or absent: drops r->data after an allocation
 * failure while it was being built. */
static void drop_data(tool_result *r)
{
    cJSON_Delete(r->data);
    r->data = NULL;
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
 * chords (each may itself be a sequence). Returns the count, or -1 with
 * err set naming the bad key. Pure (also the load-time check). */
static int keys_of_arg(const cJSON *args, cascade_key *out, char *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "keys");
    int n = 0;
    if (cJSON_IsString(v)) {
        if (cascade_keys_parse(v->valuestring, out, KEYS_MAX, &n, err))
            return -1;
        return n;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        int m = 0;
        if (!cJSON_IsString(it)) {
            base_errf(err, BASE_EINVAL, "'keys' items must be strings");
            return -1;
        }
        if (n >= KEYS_MAX) {
            base_errf(err, BASE_EINVAL, "too many keys (at most %d)", KEYS_MAX);
            return -1;
        }
        if (cascade_keys_parse(it->valuestring, out + n, KEYS_MAX - n, &m, err))
            return -1;
        n += m;
    }
    if (!n) {
        base_errf(err, BASE_EINVAL, "no keys given");
        return -1;
    }
    return n;
}

/* Load-time check: every key name is known (a typo fails before a browser
 * starts, naming the closest names). */
static base_err c_send_keys(const cJSON *args, char *err)
{
    cascade_key keys[KEYS_MAX];
    char e2[BASE_ERRBUF_SIZE] = "";
    /* Keys from a variable are known only when the step runs. */
    char *txt = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(args, "keys"));
    int has_var = txt && strstr(txt, "${") != NULL;
    cJSON_free(txt);
    if (has_var)
        return BASE_OK;
    if (keys_of_arg(args, keys, e2) < 0)
        return base_errf(err, BASE_EINVAL, "send_keys: keys: %s", e2);
    return BASE_OK;
}

static int run_send_keys(fovea_session *s, const cJSON *args, tool_result *r)
{
    cascade_key keys[KEYS_MAX];
    char err[BASE_ERRBUF_SIZE] = "";
    int n = keys_of_arg(args, keys, err);
    if (n < 0) {
        agent__failf(&r->rec, "bad_args", "send_keys: keys: %s", err);
        return 0;
    }
    int repeat = agent__arg_int(args, "repeat", 1);
    agent_step st;
    memset(&st, 0, sizeof st);
    cascade_target ct;
    int has_target = cJSON_GetObjectItemCaseSensitive(args, "target") != NULL;
    if (has_target && !ground_target(s, args, "send_keys", "focus", r, &st, &ct)) {
        agent_step_fini(&st);
        return 0;
    }
    cascade_result c;
    memset(&c, 0, sizeof c);
    agent__settle w;
    agent__watch_begin(s, &w);
    base_err e = cascade_keys(s->hand, has_target ? &ct : NULL, keys, n, repeat, &c, err);
    int ok = finish(s, r, e, &c, err);
    cJSON *d = data_with_effects(r, c.effects);
    cJSON *names = d ? cJSON_AddArrayToObject(d, "keys") : NULL;
    int whole = names != NULL;
    for (int i = 0; whole && i < n; i++)
        whole = add_str(names, keys[i].name);
    if (!whole)
        drop_data(r);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent_step_fini(&st);
    return ok;
}

/* ---------- hover, double_click, right_click ---------- */

/* The lines of after that before lacks (what appeared), at most 20; NULL
 * on allocation failure (never a list that lost a line). */
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
            /* A whole-line match in before. */
            int found = 0;
            for (const char *q = strstr(before, line); q && !found; q = strstr(q + 1, line))
                found = (q == before || q[-1] == '\n') && (q[len] == '\n' || q[len] == '\0');
            if (!found) {
                if (!add_str(a, line)) {
                    cJSON_Delete(a);
                    return NULL;
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

/* Adds "appeared" (the page text lines the action brought) to d and the
 * first of them to the outcome line. Out of memory, r->data is dropped. */
static void add_appeared(fovea_session *s, tool_result *r, cJSON *d, const base_buf *before)
{
    base_buf after;
    base_buf_init(&after, 1u << 20);
    char e2[BASE_ERRBUF_SIZE] = "";
    if (agent__page_text(s, &after, e2) == BASE_OK) {
        cJSON *ap = appeared(before->data ? (const char *)before->data : "",
                             after.data ? (const char *)after.data : "");
        if (ap && cJSON_AddItemToObject(d, "appeared", ap)) {
            int na = cJSON_GetArraySize(ap);
            size_t l = strlen(r->rec.outcome);
            if (na > 0 && l + 16 < sizeof r->rec.outcome)
                snprintf(r->rec.outcome + l, sizeof r->rec.outcome - l, "; appeared: '%.60s'%s",
                         cJSON_GetArrayItem(ap, 0)->valuestring, na > 1 ? ", ..." : "");
        } else {
            cJSON_Delete(ap);
            drop_data(r); /* d was r->data */
        }
    }
    base_buf_fini(&after);
}

/* A hover whose target no vision box carries (an <img> named by its alt, a
 * link whose only listener is mouseenter): the one visible element the name
 * means, found by agent_find_named.js (issue 21, class 6). Returns 1 with
 * ct (its xpath in xp) and r's failure cleared, 0 when none (r's failure
 * kept) or several (r fails "ambiguous" listing them). */
static int hover_by_name(fovea_session *s, const char *label, tool_result *r, cascade_target *ct,
                         char *xp, size_t xp_cap)
{
    cJSON *arg = cJSON_CreateString(label);
    char *js_arg = arg ? cJSON_PrintUnformatted(arg) : NULL;
    cJSON_Delete(arg);
    const char *js = (const char *)fovea_js_agent_find_named;
    size_t n = js_arg ? strlen(js) + strlen(js_arg) + 8 : 0;
    char *expr = n ? base_malloc(n) : NULL;
    if (expr)
        snprintf(expr, n, "(%s)(%s)", js, js_arg);
    cJSON_free(js_arg);
    if (!expr)
        return 0;
    cJSON *v = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_page_evaluate_in(s->page, NULL, CDP_CTX_FOVEA, expr, &v, 3000, err);
    base_free(expr);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(v, "items");
    const cJSON *nj = cJSON_GetObjectItemCaseSensitive(v, "n");
    int count = !e && cJSON_IsNumber(nj) ? nj->valueint : 0;
    int ok = 0;
    if (count == 1) {
        const char *x = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(items, 0), "xpath"));
        if (x && strlen(x) < xp_cap) {
            snprintf(xp, xp_cap, "%s", x);
            memset(ct, 0, sizeof *ct);
            ct->xpath = xp;
            ct->label = label;
            r->rec.ok = 0;
            r->rec.reason[0] = '\0';
            r->rec.outcome[0] = '\0';
            ok = 1;
        }
    } else if (count > 1) {
        char list[200] = "";
        size_t used = 0;
        r->rec.n_alternatives = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, items)
        {
            const char *tag = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "tag"));
            const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));
            const cJSON *rc = cJSON_GetObjectItemCaseSensitive(it, "rect");
            double cx = (cJSON_GetArrayItem(rc, 0) ? cJSON_GetArrayItem(rc, 0)->valuedouble : 0) +
                        (cJSON_GetArrayItem(rc, 2) ? cJSON_GetArrayItem(rc, 2)->valuedouble : 0);
            double cy = (cJSON_GetArrayItem(rc, 1) ? cJSON_GetArrayItem(rc, 1)->valuedouble : 0) +
                        (cJSON_GetArrayItem(rc, 3) ? cJSON_GetArrayItem(rc, 3)->valuedouble : 0);
            int w = snprintf(list + used, sizeof list - used, "%s<%s> '%.24s'", used ? ", " : "",
                             tag ? tag : "?", nm ? nm : "");
            used = w > 0 && (size_t)w < sizeof list - used ? used + (size_t)w : sizeof list - 1;
            if (r->rec.n_alternatives < 4)
                snprintf(r->rec.alternatives[r->rec.n_alternatives++],
                         sizeof r->rec.alternatives[0], "<%s> '%.80s' at (%.0f,%.0f)",
                         tag ? tag : "?", nm ? nm : "", cx / 2, cy / 2);
        }
        agent__failf(&r->rec, "ambiguous", "'%.60s' names %d elements on the page: %s", label,
                     count, list);
    }
    cJSON_Delete(v);
    return ok;
}

static int run_press(fovea_session *s, const cJSON *args, tool_result *r, cascade_press_kind kind,
                     const char *tool, const char *verb)
{
    agent_step st;
    cascade_target ct;
    char named_xp[512];
    if (!ground_target(s, args, tool, verb, r, &st, &ct)) {
        /* Hover any visible element by its name, not only a control. */
        int by_name = kind == CASCADE_PRESS_HOVER && strcmp(r->rec.reason, "not_found") == 0 &&
                      st.target.label && st.target.label[0] && st.target.index <= 0 &&
                      hover_by_name(s, st.target.label, r, &ct, named_xp, sizeof named_xp);
        if (!by_name) {
            agent_step_fini(&st);
            return 0;
        }
    }
    const cJSON *ee = cJSON_GetObjectItemCaseSensitive(args, "expect_effect");
    ct.expect_effect = !ee ? 0 : cJSON_IsTrue(ee) ? 1 : -1;
    char err[BASE_ERRBUF_SIZE] = "";
    /* What a hover shows: a CSS :hover flyout changes no DOM, so the
     * rendered text before and after is compared. */
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
    if (ok && have_before && d)
        add_appeared(s, r, d, &before);
    base_buf_fini(&before);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent_step_fini(&st);
    return ok;
}

static int run_hover(fovea_session *s, const cJSON *args, tool_result *r)
{
    return run_press(s, args, r, CASCADE_PRESS_HOVER, "hover", "hover");
}

static int run_double_click(fovea_session *s, const cJSON *args, tool_result *r)
{
    return run_press(s, args, r, CASCADE_PRESS_DOUBLE, "double_click", "open");
}

static int run_right_click(fovea_session *s, const cJSON *args, tool_result *r)
{
    return run_press(s, args, r, CASCADE_PRESS_RIGHT, "right_click", "open");
}

/* ---------- dropdowns ---------- */

/* r->data for a list of options: {"native", "options": [{text, value,
 * selected, disabled}], "value": the texts one a line (save_as)}. 0 on
 * allocation failure. */
static int options_data(tool_result *r, const cascade_options *o)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *arr = d ? cJSON_AddArrayToObject(d, "options") : NULL;
    base_buf all;
    base_buf_init(&all, 1u << 20);
    int ok = arr != NULL && cJSON_AddBoolToObject(d, "native", o->native) != NULL;
    for (int i = 0; ok && i < o->n; i++) {
        cJSON *it = cJSON_CreateObject();
        ok = it && cJSON_AddItemToArray(arr, it) &&
             cJSON_AddStringToObject(it, "text", o->v[i].text) &&
             cJSON_AddStringToObject(it, "value", o->v[i].value) &&
             cJSON_AddBoolToObject(it, "selected", o->v[i].selected) &&
             cJSON_AddBoolToObject(it, "disabled", o->v[i].disabled) &&
             base_buf_printf(&all, "%s%s", i ? "\n" : "", o->v[i].text) == BASE_OK;
        if (!ok && it && !cJSON_GetArrayItem(arr, i))
            cJSON_Delete(it);
    }
    ok = ok && cJSON_AddStringToObject(d, "value", all.data ? (const char *)all.data : "");
    base_buf_fini(&all);
    if (!ok) {
        cJSON_Delete(d);
        return 0;
    }
    cJSON_Delete(r->data);
    r->data = d;
    return 1;
}

static int run_get_dropdown_options(fovea_session *s, const cJSON *args, tool_result *r)
{
    agent_step st;
    cascade_target ct;
    if (!ground_target(s, args, "get_dropdown_options", "open", r, &st, &ct)) {
        agent_step_fini(&st);
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
    if (ok && !options_data(r, &o)) {
        agent__failf(&r->rec, "error", "get_dropdown_options: out of memory");
        ok = 0;
    }
    cascade_options_fini(&o);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent_step_fini(&st);
    return ok;
}

static int run_select_dropdown_by_text(fovea_session *s, const cJSON *args, tool_result *r)
{
    agent_step st;
    cascade_target ct;
    if (!ground_target(s, args, "select_dropdown_by_text", "open", r, &st, &ct)) {
        agent_step_fini(&st);
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
    (void)data_with_effects(r, c.effects);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent_step_fini(&st);
    return ok;
}

/* ---------- upload_file ---------- */

static int run_upload_checked(fovea_session *s, const cJSON *args, tool_result *r,
                              const char *const *paths, int n);

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
                agent__failf(&r->rec, "bad_args", "upload_file: files: at most 16");
                return 0;
            }
            paths[n++] = it->valuestring;
        }
    }
    if (!n) {
        agent__failf(&r->rec, "bad_args", "upload_file: files: no file given");
        return 0;
    }
    /* Calls that may come from a model take files only from the upload
     * folder, checked before anything touches the page; a task file the
     * operator wrote keeps its own paths. */
    char (*resolved)[1024] = NULL;
    if (!s->o.script_paths) {
        resolved = base_malloc(sizeof *resolved * (size_t)n);
        if (!resolved) {
            agent__failf(&r->rec, "error", "upload_file: out of memory");
            return 0;
        }
        for (int i = 0; i < n; i++) {
            char why[BASE_ERRBUF_SIZE] = "";
            if (agent_upload_resolve(s->o.upload_dir, paths[i], resolved[i], sizeof resolved[i],
                                     why) != BASE_OK) {
                agent__failf(&r->rec, "blocked", "upload_file: %s", why);
                base_free(resolved);
                return 0;
            }
            paths[i] = resolved[i];
        }
    }
    int ok = run_upload_checked(s, args, r, paths, n);
    base_free(resolved);
    return ok;
}

/* upload_file once its paths are settled. */
static int run_upload_checked(fovea_session *s, const cJSON *args, tool_result *r,
                              const char *const *paths, int n)
{
    agent_step st;
    cascade_target ct;
    if (!ground_target(s, args, "upload_file", "upload", r, &st, &ct)) {
        agent_step_fini(&st);
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
    int whole = arr != NULL;
    for (char *p = names; whole && *p;) {
        char *q = strstr(p, ", ");
        if (q)
            *q = '\0';
        whole = add_str(arr, p);
        if (!q)
            break;
        p = q + 2;
    }
    if (!whole)
        drop_data(r);
    agent__watch_end(s, &w, &r->rec, r->rec.desc);
    agent_step_fini(&st);
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
    /* Scrubbed of secrets like every string of the result (tool_call). */
    agent__okf(&r->rec, "the clipboard holds %zu bytes: '%.80s%s'", strlen(text), text,
               strlen(text) > 80 ? "..." : "");
    base_free(text);
    return 1;
}

/* ---------- the table ---------- */

/* A target: a label, "[V4]", "[V4] label", or {label, index} (as click_at's). */
#define TARGET_SCHEMA AGENT__TARGET_SCHEMA /* agent/session/session_int.h: one target schema */
#define EFFECT_SCHEMA                                                                              \
    "{\"type\": \"boolean\", \"description\": \"true: the page must react; false: no reaction "    \
    "expected\"}"
#define STRINGS_SCHEMA(desc)                                                                       \
    "{\"description\": \"" desc "\", \"oneOf\": [{\"type\": \"string\", \"minLength\": 1, "        \
    "\"maxLength\": 4096}, {\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": "          \
    "\"string\", \"minLength\": 1, \"maxLength\": 4096}}]}"

const tool_def agent__tools_input[] = {
    {"send_keys",
     "Press keys or chords (Enter, Tab, Shift+Tab, Escape, Control+A, ArrowDown, F5, a) on the "
     "focused element, or on target after clicking it to focus it.",
     "{\"type\": \"object\", \"properties\": {\"keys\": "
     STRINGS_SCHEMA("chords separated by spaces (\\\"Control+A Delete\\\"), or a list of them")
     ", \"repeat\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100}, \"target\": "
     TARGET_SCHEMA "}, \"required\": [\"keys\"]}",
     TOOL_MUTATES | TOOL_TARGETED, run_send_keys, c_send_keys},
    {"hover",
     "Move the mouse onto an element and leave it there (menus that open on hover); says what "
     "appeared.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     "}, \"required\": [\"target\"]}",
     TOOL_MUTATES | TOOL_TARGETED, run_hover, NULL},
    {"double_click", "Double-click an element (open it, edit it in place).",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"expect_effect\": " EFFECT_SCHEMA "}, \"required\": [\"target\"]}",
     TOOL_MUTATES | TOOL_TARGETED, run_double_click, NULL},
    {"right_click", "Right-click an element (opens its context menu).",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"expect_effect\": " EFFECT_SCHEMA "}, \"required\": [\"target\"]}",
     TOOL_MUTATES | TOOL_TARGETED, run_right_click, NULL},
    {"get_dropdown_options",
     "List the options of a dropdown (a <select>, or a combobox/listbox, opened and closed "
     "again): text, value, selected, disabled.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     "}, \"required\": [\"target\"]}",
     TOOL_MUTATES | TOOL_TARGETED, run_get_dropdown_options, NULL},
    {"select_dropdown_by_text",
     "Choose a dropdown's option by its visible text: exact, else ignoring case, else the one "
     "it starts; several matches fail listing them.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA
     ", \"text\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 1024}}, "
     "\"required\": [\"target\", \"text\"]}",
     TOOL_MUTATES | TOOL_TARGETED, run_select_dropdown_by_text, NULL},
    {"upload_file",
     "Put local files into a file input: the input, its label or upload area, or a button "
     "that opens a file chooser.",
     "{\"type\": \"object\", \"properties\": {\"target\": " TARGET_SCHEMA ", \"files\": "
     STRINGS_SCHEMA("a path or a list of paths (relative to the working directory)")
     "}, \"required\": [\"target\", \"files\"]}",
     TOOL_MUTATES | TOOL_TARGETED | TOOL_UPLOADS, run_upload_file, NULL},
    {"get_clipboard", "Read the text on the clipboard (what a Copy button put there).",
     "{\"type\": \"object\", \"properties\": {}}", 0, run_get_clipboard, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL},
};

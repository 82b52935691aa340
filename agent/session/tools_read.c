/* agent/session/tools_read.c: the tools that read a page, assert on it or run a
 * script in it (seed 002, Appendix A "Extraction" and "Advanced"):
 * extract_markdown, dom_search, get_accessibility_tree, get_console_errors,
 * evaluate_script, run_script, assert_absent and assert_state.
 *
 * The reading is done page-side by the scripts of agent/session/js_read.h (on the
 * page kit), once per document: the top one reads its open shadow roots and
 * same-origin frames itself, and each cross-origin frame (its own process
 * and CDP session) is read through its session, as agent__page_text does.
 * The accessibility tree comes from the browser (Accessibility.getFullAXTree
 * per frame) and the console entries from the page's ring (cdp/console.h),
 * so nothing of these two runs in the page.
 *
 * Assertions poll: a page that is still settling (a modal fading out, a
 * button enabled once a request returns) gets the step's whole timeout_ms,
 * checked every POLL_MS, and the failure says what was last seen. Scripts
 * are opt-in (TOOL_OPT_IN, agent_run_opts.allow_scripts): a task file
 * or a model that may run arbitrary JavaScript is a decision of the person
 * running fovea, not of the task.
 *
 * Every output meant for the caller goes in r->data; text outputs carry
 * {"value": ...} so "save_as" keeps them and the runner prints them. Strings
 * of the result are scrubbed of the session's secrets by tool_call; the
 * console entries are scrubbed here too, before they are formatted, since a
 * page may log a password it was given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/js_read.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/json_get.h"
#include "base/regex.h"
#include "base/utf8.h"
#include "cdp/console.h"
#include "snapper/snap.h"

#define POLL_MS 100
#define ABSENT_POLL_MS 1000 /* grounding budget of one poll of an absent target */
#define DEFAULT_TIMEOUT_MS 5000
#define DEFAULT_MAX_CHARS 24000
#define MAX_FRAMES 32
#define SCRIPT_MAX_BYTES (256u << 10)
#define VALUE_MAX_BYTES (256u << 10) /* of a script's result kept as the value */

/* ---- page scripts --------------------------------------------------------- */

/* Runs page script js (a function expression) with argument arg in the
 * main world of session (NULL/"" = the page's own). *out gets the value
 * (caller frees). A throw is BASE_EREMOTE with its text in err. */
static base_err call_js(fovea_session *s, const char *session, const unsigned char *js,
                        const cJSON *arg, cJSON **out, int timeout_ms, char *err)
{
    char *a = arg ? cJSON_PrintUnformatted(arg) : NULL;
    if (arg && !a)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    const char *as = a ? a : "{}";
    size_t n = strlen((const char *)js) + strlen(as) + 8;
    char *expr = base_malloc(n);
    if (!expr) {
        cJSON_free(a);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    snprintf(expr, n, "(%s)(%s)", (const char *)js, as);
    cJSON_free(a);
    base_err e = cdp_page_evaluate_in(s->page, session, CDP_CTX_FOVEA, expr, out, timeout_ms, err);
    base_free(expr);
    return e;
}

/* The cross-origin frames of the page (their own sessions), main excluded.
 * Returns how many were copied. */
static int oopif_frames(fovea_session *s, cdp_frame *out, int max)
{
    cdp_frame all[MAX_FRAMES];
    int n = cdp_page_frames(s->page, all, MAX_FRAMES);
    int k = 0;
    for (int i = 1; i < n && i < MAX_FRAMES && k < max; i++) {
        if (all[i].oopif && all[i].session[0])
            out[k++] = all[i];
    }
    return k;
}

/* A page script's thrown SyntaxError for a bad selector reads "... is not a
 * valid selector": that is the caller's argument, not a page failure. */
static int bad_selector(const char *err)
{
    return strstr(err, "not a valid selector") != NULL;
}

/* A string member, NULL when absent (base/json_get.h). */
#define jstr(o, k) base_json_str((o), (k), NULL)

/* The selector of q, for the message of a bad one (the browser's own
 * words come with a stack of our script). */
static const char *sel_of(const cJSON *q)
{
    const char *c = jstr(q, "css");
    return c ? c : "";
}

/* Drops b's trailing line breaks (a value ends with its last line). */
static void chomp(base_buf *b)
{
    while (b->len && b->data[b->len - 1] == '\n')
        b->data[--b->len] = 0;
}

/* r->data = {"value": text} plus whatever the caller adds; NULL on ENOMEM. */
static cJSON *data_value(tool_result *r, const char *text)
{
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddStringToObject(d, "value", text ? text : "")) {
        cJSON_Delete(d);
        return NULL;
    }
    cJSON_Delete(r->data);
    r->data = d;
    return d;
}

static int timeout_of(const cJSON *args)
{
    int t = agent__arg_int(args, "timeout_ms", DEFAULT_TIMEOUT_MS);
    return t > 0 ? t : DEFAULT_TIMEOUT_MS;
}

/* ---- targets ----------------------------------------------------------------- */

/* Grounds args' "target" (a label, "[V4]", "[V4] label" or {label, index},
 * as the task parser reads it) into s->call_g, snapped, within timeout_ms.
 * tool_call releases s->call_g (and draws its epoch on the overlay).
 * Returns 1, or 0 with r's failure set. */
static int ground_target(fovea_session *s, const cJSON *args, const char *tool, int timeout_ms,
                         int do_snap, agent_step_record *rec)
{
    return agent__ground_arg(s, args, "target", tool, NULL, timeout_ms, do_snap, rec, NULL);
}

/* Names the grounded element g for a page script: by its xpath in its own
 * document (the top one, or a cross-origin frame's through its session),
 * or, inside a same-process frame (whose xpath the top document cannot
 * resolve), by its point, which kit.hitAt follows into the frame. Adds
 * xpath or x/y to q; *session is the session to run in (NULL = the
 * page's). Returns 0, or -1 on ENOMEM. */
static int target_ref(fovea_session *s, const agent__grounded *g, cJSON *q, const char **session)
{
    const perc_snap *sn = &g->snap;
    int oopif = sn->session[0] && strcmp(sn->session, cdp_page_session(s->page)) != 0;
    *session = oopif ? sn->session : NULL;
    int in_top = !sn->frame_id[0] || strcmp(sn->frame_id, s->main_frame) == 0;
    if (sn->found && sn->xpath[0] && (oopif || in_top))
        return cJSON_AddStringToObject(q, "xpath", sn->xpath) ? 0 : -1;
    double x = sn->pt.x - (oopif ? sn->frame_offset.x : 0);
    double y = sn->pt.y - (oopif ? sn->frame_offset.y : 0);
    return cJSON_AddNumberToObject(q, "x", x) && cJSON_AddNumberToObject(q, "y", y) ? 0 : -1;
}

char *agent__target_text(fovea_session *s, const agent__grounded *g)
{
    cJSON *q = cJSON_CreateObject();
    const char *session = NULL;
    if (!q || !cJSON_AddStringToObject(q, "state", "text") || target_ref(s, g, q, &session) < 0) {
        cJSON_Delete(q);
        return NULL;
    }
    cJSON *v = NULL;
    char *out = NULL;
    if (call_js(s, session, fovea_js_read_state, q, &v, 5000, NULL) == BASE_OK &&
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "found")) && jstr(v, "text"))
        out = base_strdup(jstr(v, "text"));
    cJSON_Delete(v);
    cJSON_Delete(q);
    return out;
}

/* ---- extract_markdown --------------------------------------------------------- */

static const char extract_markdown_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"target\":" AGENT__TARGET_SCHEMA ","
    "\"selector\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
    "\"description\":\"CSS selector of the region to read (first match); default the whole page\"},"
    "\"max_chars\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":400000,"
    "\"description\":\"cap on the Markdown returned (default 24000)\"},"
    "\"frames\":{\"type\":\"boolean\","
    "\"description\":\"also read cross-origin frames (default true)\"}"
    "},\"additionalProperties\":false}";

/* Reads one document's Markdown (q: the script's argument) into out
 * (capped at max chars). Returns 1 found, 0 not found, -1 a page error
 * (err says which), -2 an invalid selector (err: the browser's words). */
static int md_doc(fovea_session *s, const char *session, cJSON *q, int max, base_buf *out,
                  int *cut, char *err)
{
    cJSON_DeleteItemFromObject(q, "max");
    if (!cJSON_AddNumberToObject(q, "max", max)) {
        base_errf(err, BASE_ENOMEM, "out of memory");
        return -1;
    }
    cJSON *v = NULL;
    base_err e = call_js(s, session, fovea_js_read_markdown, q, &v, 10000, err);
    if (e)
        return bad_selector(err) ? -2 : -1;
    int found = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "found"));
    const char *md = jstr(v, "markdown");
    if (found && md && md[0])
        base_buf_append_str(out, md);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "cut")))
        *cut = 1;
    cJSON_Delete(v);
    return found;
}

/* extract_markdown of a target: the block around the grounded element. */
static int extract_target(fovea_session *s, const cJSON *args, int max, tool_result *r)
{
    if (!ground_target(s, args, "extract_markdown", timeout_of(args), 1, &r->rec))
        return 0;
    cJSON *q = cJSON_CreateObject();
    const char *session = NULL;
    base_buf md;
    base_buf_init(&md, (size_t)max + 4096);
    char err[BASE_ERRBUF_SIZE] = "";
    int ok = 0, cut = 0;
    if (!q || target_ref(s, &s->call_g, q, &session) < 0) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    /* An xpath names the element itself; the region is the block around
     * it, which the point finds: read by point in its document. */
    cJSON_DeleteItemFromObject(q, "xpath");
    if (!cJSON_GetObjectItemCaseSensitive(q, "x")) {
        const perc_snap *sn = &s->call_g.snap;
        int oopif = session != NULL;
        if (!cJSON_AddNumberToObject(q, "x", sn->pt.x - (oopif ? sn->frame_offset.x : 0)) ||
            !cJSON_AddNumberToObject(q, "y", sn->pt.y - (oopif ? sn->frame_offset.y : 0))) {
            agent__failf(&r->rec, "error", "out of memory");
            goto out;
        }
    }
    int f = md_doc(s, session, q, max, &md, &cut, err);
    if (f < 0) {
        agent__failf(&r->rec, "error", "reading the target failed: %s", err);
        goto out;
    }
    if (!f) {
        agent__failf(&r->rec, "not_found", "nothing under the target's point to read");
        goto out;
    }
    if (cut)
        base_buf_printf(&md, "\n\n[... cut at %d characters]", max);
    cJSON *d = data_value(r, md.len ? (const char *)md.data : "");
    if (!d || !cJSON_AddBoolToObject(d, "cut", cut)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    agent__okf(&r->rec, "read %zu characters of Markdown around [V%d] '%.80s'", md.len,
               r->rec.box_id, r->rec.box_label);
    ok = 1;
out:
    cJSON_Delete(q);
    base_buf_fini(&md);
    return ok;
}

static int run_extract_markdown(fovea_session *s, const cJSON *args, tool_result *r)
{
    const char *sel = agent__arg_str(args, "selector");
    int max = agent__arg_int(args, "max_chars", DEFAULT_MAX_CHARS);
    int frames = agent__arg_bool(args, "frames", 1);
    if (cJSON_GetObjectItemCaseSensitive(args, "target"))
        return extract_target(s, args, max, r);
    base_buf md;
    base_buf_init(&md, (size_t)max + 4096);
    cJSON *q = cJSON_CreateObject();
    int cut = 0, found = 0, ok = 0;
    if (!q || (sel && !cJSON_AddStringToObject(q, "css", sel))) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    found = md_doc(s, NULL, q, max, &md, &cut, err);
    if (found == -2) {
        agent__failf(&r->rec, "bad_args", "'selector' is not a valid CSS selector: %.200s",
                     sel_of(q));
        goto out;
    }
    if (found < 0) {
        agent__failf(&r->rec, "error", "reading the page failed: %s", err);
        goto out;
    }
    /* Cross-origin frames: for a selector, only when the top document has
     * no match (the region is in a frame); for the page, appended each
     * under its URL, within what the cap leaves. */
    cdp_frame fr[MAX_FRAMES];
    int nf = frames ? oopif_frames(s, fr, MAX_FRAMES) : 0;
    for (int i = 0; i < nf && !cut && (!sel || !found); i++) {
        int room = max - (int)md.len - 200;
        if (room < 100) {
            cut = 1;
            break;
        }
        base_buf one;
        base_buf_init(&one, (size_t)room + 4096);
        int f = md_doc(s, fr[i].session, q, room, &one, &cut, err);
        if (f < 0) {
            /* A frame that went away meanwhile is not the page's failure. */
            base_buf_fini(&one);
            continue;
        }
        if (f && one.len) {
            if (md.len)
                base_buf_printf(&md, "\n\n---\n\n");
            if (!sel)
                base_buf_printf(&md, "(frame %.300s)\n\n", fr[i].url);
            base_buf_append(&md, one.data, one.len);
        }
        found |= f;
        base_buf_fini(&one);
    }
    if (sel && !found) {
        agent__failf(&r->rec, "not_found", "no element matches selector %.200s", sel);
        goto out;
    }
    if (cut)
        base_buf_printf(&md, "\n\n[... cut at %d characters: ask for a region (selector) or a "
                             "larger max_chars for the rest]",
                        max);
    cJSON *d = data_value(r, md.len ? (const char *)md.data : "");
    if (!d || !cJSON_AddBoolToObject(d, "cut", cut) ||
        !cJSON_AddNumberToObject(d, "chars", (double)md.len)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    if (!md.len)
        agent__okf(&r->rec, "the %s has no readable text", sel ? "region" : "page");
    else
        agent__okf(&r->rec, "read %zu characters of Markdown%s", md.len,
                   cut ? " (cut at max_chars)" : "");
    ok = 1;
out:
    cJSON_Delete(q);
    base_buf_fini(&md);
    return ok;
}

/* ---- dom_search ------------------------------------------------------------- */

static const char dom_search_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
    "\"description\":\"text the element shows or is labelled with (case-insensitive)\"},"
    "\"selector\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
    "\"description\":\"CSS selector the element matches\"},"
    "\"max_results\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":80,"
    "\"description\":\"matches listed (default 20, at most 80)\"}"
    "},\"additionalProperties\":false}";

/* One match as a line: "3. <button> "Save" id=save ... [hidden] at (x,y wxh)". */
static void match_line(base_buf *b, int i, const cJSON *m, const char *frame_url)
{
    base_buf_printf(b, "%d. <%s>", i, jstr(m, "tag") ? jstr(m, "tag") : "?");
    const char *t = jstr(m, "text");
    if (t && t[0])
        base_buf_printf(b, " \"%s\"", t);
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(m, "attrs"))
    {
        if (cJSON_IsString(a))
            base_buf_printf(b, " %s=\"%s\"", a->string, a->valuestring);
    }
    base_buf_printf(b, "%s", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "visible")) ? ""
                                                                                        : " [hidden]");
    const cJSON *box = cJSON_GetObjectItemCaseSensitive(m, "box");
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(box, "x"), *y = cJSON_GetObjectItemCaseSensitive(box, "y");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(box, "w"), *h = cJSON_GetObjectItemCaseSensitive(box, "h");
    if (cJSON_IsNumber(x) && cJSON_IsNumber(y) && cJSON_IsNumber(w) && cJSON_IsNumber(h))
        base_buf_printf(b, " box=(%d,%d %dx%d)%s", (int)x->valuedouble, (int)y->valuedouble,
                        (int)w->valuedouble, (int)h->valuedouble,
                        frame_url ? " (in the frame's viewport)" : "");
    const char *fr = jstr(m, "frame");
    if (frame_url)
        base_buf_printf(b, " frame=%s", frame_url);
    else if (fr && fr[0])
        base_buf_printf(b, " frame=%s", fr);
    base_buf_printf(b, " xpath=%s\n", jstr(m, "xpath") ? jstr(m, "xpath") : "");
}

base_err agent__search_frames(fovea_session *s, const cJSON *q, int max, cJSON *matches,
                              int *total, char *err)
{
    cdp_frame fr[MAX_FRAMES];
    int nf = oopif_frames(s, fr, MAX_FRAMES);
    int shown = 0;
    *total = 0;
    for (int i = -1; i < nf; i++) {
        char ferr[BASE_ERRBUF_SIZE] = "";
        cJSON *v = NULL;
        base_err e = call_js(s, i < 0 ? NULL : fr[i].session, fovea_js_read_search, q, &v, 10000,
                             ferr);
        if (e) {
            if (bad_selector(ferr))
                return base_errf(err, BASE_EINVAL, "%s", ferr);
            if (i < 0)
                return base_errf(err, e, "%s", ferr);
            continue; /* a frame that went away meanwhile */
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(v, "total");
        *total += cJSON_IsNumber(t) ? (int)t->valuedouble : 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(v, "matches"))
        {
            if (shown >= max)
                break;
            cJSON *c = cJSON_Duplicate(m, 1);
            if (!c || !cJSON_AddNumberToObject(c, "index", ++shown) ||
                (i >= 0 && (!cJSON_AddStringToObject(c, "frame_url", fr[i].url) ||
                            !cJSON_AddBoolToObject(c, "box_in_frame", 1))) ||
                !cJSON_AddItemToArray(matches, c)) {
                cJSON_Delete(c);
                cJSON_Delete(v);
                return base_errf(err, BASE_ENOMEM, "out of memory");
            }
        }
        cJSON_Delete(v);
    }
    return BASE_OK;
}

static int run_dom_search(fovea_session *s, const cJSON *args, tool_result *r)
{
    const char *text = agent__arg_str(args, "text");
    const char *sel = agent__arg_str(args, "selector");
    int max = agent__arg_int(args, "max_results", 20);
    cJSON *q = cJSON_CreateObject();
    cJSON *all = cJSON_CreateArray();
    base_buf lines;
    base_buf_init(&lines, 1u << 20);
    int ok = 0, total = 0, shown = 0;
    if (!q || !all || (text && !cJSON_AddStringToObject(q, "text", text)) ||
        (sel && !cJSON_AddStringToObject(q, "css", sel)) || !cJSON_AddNumberToObject(q, "max", max)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent__search_frames(s, q, max, all, &total, err);
    if (e == BASE_EINVAL) {
        agent__failf(&r->rec, "bad_args", "'selector' is not a valid CSS selector: %.200s",
                     sel_of(q));
        goto out;
    }
    if (e) {
        agent__failf(&r->rec, "error", "searching the page failed: %s", err);
        goto out;
    }
    cJSON *m;
    cJSON_ArrayForEach(m, all)
    {
        match_line(&lines, ++shown, m, jstr(m, "frame_url"));
    }
    char what[300];
    snprintf(what, sizeof what, "%s%.120s%s%s%.120s%s", text ? "text \"" : "", text ? text : "",
             text ? "\"" : "", text && sel ? " and " : "", sel ? "selector " : "", sel ? sel : "");
    if (!total) {
        agent__failf(&r->rec, "not_found", "no element matches %s", what);
        goto out;
    }
    if (total > shown)
        base_buf_printf(&lines, "(%d more not listed: narrow the search or raise max_results)\n",
                        total - shown);
    chomp(&lines);
    cJSON *d = data_value(r, (const char *)lines.data);
    if (!d || !cJSON_AddNumberToObject(d, "total", total) ||
        !cJSON_AddItemToObject(d, "matches", all)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    all = NULL; /* d owns it */
    agent__okf(&r->rec, "%d element%s match %s%s", total, total == 1 ? "" : "s", what,
               total > shown ? " (first ones listed)" : "");
    ok = 1;
out:
    cJSON_Delete(q);
    cJSON_Delete(all);
    base_buf_fini(&lines);
    return ok;
}

/* ---- get_accessibility_tree --------------------------------------------------------- */

static const char ax_tree_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"max_chars\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":400000,"
    "\"description\":\"cap on the text returned (default 24000)\"},"
    "\"max_depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200,"
    "\"description\":\"deepest level printed (default all)\"}"
    "},\"additionalProperties\":false}";

/* Properties worth a word in the compact form, as "name" or "name=value". */
static void ax_states(base_buf *b, const cJSON *node)
{
    int n = 0;
    const char *role = jstr(cJSON_GetObjectItemCaseSensitive(node, "role"), "value");
    int heading = role && strcmp(role, "heading") == 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(node, "properties"))
    {
        const char *name = jstr(p, "name");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "value"),
                                                          "value");
        if (!name || !v)
            continue;
        char word[64] = "";
        int on = cJSON_IsTrue(v) || (cJSON_IsString(v) && strcmp(v->valuestring, "true") == 0);
        if (strcmp(name, "checked") == 0 || strcmp(name, "pressed") == 0) {
            if (cJSON_IsString(v) && strcmp(v->valuestring, "mixed") == 0)
                snprintf(word, sizeof word, "%s=mixed", name);
            else
                snprintf(word, sizeof word, "%s", on ? name : (name[0] == 'c' ? "unchecked" : "not pressed"));
        } else if (strcmp(name, "expanded") == 0) {
            snprintf(word, sizeof word, "%s", on ? "expanded" : "collapsed");
        } else if (strcmp(name, "level") == 0 && cJSON_IsNumber(v) && heading) {
            snprintf(word, sizeof word, "level=%d", (int)v->valuedouble);
        } else if (strcmp(name, "invalid") == 0) {
            if (cJSON_IsString(v) && strcmp(v->valuestring, "false") != 0)
                snprintf(word, sizeof word, "invalid");
        } else if ((strcmp(name, "disabled") == 0 || strcmp(name, "selected") == 0 ||
                    strcmp(name, "required") == 0 || strcmp(name, "focused") == 0 ||
                    strcmp(name, "readonly") == 0 || strcmp(name, "modal") == 0 ||
                    strcmp(name, "multiselectable") == 0) &&
                   on) {
            snprintf(word, sizeof word, "%s", name);
        }
        if (word[0])
            base_buf_printf(b, "%s%s", n++ ? ", " : " [", word);
    }
    if (n)
        base_buf_printf(b, "]");
}

/* One node of a frame's tree by its id, for bsearch: a page's tree has
 * thousands of nodes and each names its children by id. */
typedef struct ax_ref {
    const char *id;
    const cJSON *node;
} ax_ref;

static int ax_cmp(const void *a, const void *b)
{
    return strcmp(((const ax_ref *)a)->id, ((const ax_ref *)b)->id);
}

static const cJSON *ax_find(const ax_ref *refs, int n, const char *id)
{
    ax_ref key = {id, NULL};
    const ax_ref *hit = n > 0 ? bsearch(&key, refs, (size_t)n, sizeof *refs, ax_cmp) : NULL;
    return hit ? hit->node : NULL;
}

typedef struct ax_ctx {
    ax_ref *byid;   /* the frame's nodes sorted by nodeId (borrowed) */
    int n_byid;
    base_buf *out;
    int max_depth;
    size_t cap;
    int cut;
    int lines;
} ax_ctx;

static const char *ax_val(const cJSON *node, const char *k)
{
    return jstr(cJSON_GetObjectItemCaseSensitive(node, k), "value");
}

/* Whether node earns a line: not ignored, and not an unnamed wrapper or a
 * text run repeating its parent's name. */
static int ax_shown(const cJSON *node, const char *parent_name)
{
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(node, "ignored")))
        return 0;
    const char *role = ax_val(node, "role");
    const char *name = ax_val(node, "name");
    if (!role)
        return 0;
    int named = name && name[strspn(name, " \t\n\r")];
    if (strcmp(role, "InlineTextBox") == 0 || strcmp(role, "LineBreak") == 0 ||
        strcmp(role, "ListMarker") == 0)
        return 0;
    /* Unnamed text formatting (strong, code, ...) and text holders (a
     * caption, a legend, a label) add a line that says nothing a reader
     * needs: their text is printed in their place. */
    static const char *const transparent[] = {
        "strong", "emphasis", "code", "deletion", "insertion", "mark", "subscript",
        "superscript", "time", "caption", "Legend", "LabelText"};
    for (size_t i = 0; !named && i < sizeof transparent / sizeof transparent[0]; i++) {
        if (strcmp(role, transparent[i]) == 0)
            return 0;
    }
    if (!named && (strcmp(role, "generic") == 0 || strcmp(role, "none") == 0 ||
                   strcmp(role, "presentation") == 0 || strcmp(role, "StaticText") == 0 ||
                   strcmp(role, "paragraph") == 0 || strcmp(role, "group") == 0 ||
                   strcmp(role, "LayoutTable") == 0 || strcmp(role, "LayoutTableRow") == 0 ||
                   strcmp(role, "LayoutTableCell") == 0))
        return 0;
    /* A text run that repeats what its parent's line says already (a
     * button's label, a field's value). */
    if (strcmp(role, "StaticText") == 0 && parent_name && name && strstr(parent_name, name))
        return 0;
    return 1;
}

/* Appends prefix and "text" (at most max bytes, not splitting a UTF-8
 * sequence) with line breaks written as \n: one node, one line. */
static void ax_quoted(base_buf *b, const char *prefix, const char *text, size_t max)
{
    base_buf_printf(b, "%s\"", prefix);
    size_t n = strlen(text);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--; /* back to the start of the cut character */
    }
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\n')
            base_buf_append_str(b, "\\n");
        else if (text[i] != '\r')
            base_buf_append(b, &text[i], 1);
    }
    base_buf_append_str(b, "\"");
}

static void ax_print(ax_ctx *c, const cJSON *node, int depth, const char *parent_name, int hops)
{
    if (!node || c->cut || hops > 400)
        return;
    int shown = ax_shown(node, parent_name);
    const char *name = ax_val(node, "name");
    if (shown) {
        if (c->max_depth && depth >= c->max_depth)
            return;
        size_t before = c->out->len;
        base_buf_printf(c->out, "%*s%s", 2 * depth, "", ax_val(node, "role"));
        if (name && name[0])
            ax_quoted(c->out, " ", name, 300);
        const char *val = ax_val(node, "value");
        if (val && val[0])
            ax_quoted(c->out, " value=", val, 200);
        ax_states(c->out, node);
        base_buf_printf(c->out, "\n");
        if (c->out->len > c->cap) {
            c->out->len = before; /* whole lines only */
            c->out->data[before] = 0;
            c->cut = 1;
            return;
        }
        c->lines++;
    }
    /* What the children may not repeat: this line's name and value. */
    char said[640];
    if (shown)
        snprintf(said, sizeof said, "%.300s\n%.300s", name ? name : "",
                 ax_val(node, "value") ? ax_val(node, "value") : "");
    const cJSON *kid;
    cJSON_ArrayForEach(kid, cJSON_GetObjectItemCaseSensitive(node, "childIds"))
    {
        if (!cJSON_IsString(kid))
            continue;
        const cJSON *k = ax_find(c->byid, c->n_byid, kid->valuestring);
        ax_print(c, k, shown ? depth + 1 : depth, shown ? said : parent_name, hops + 1);
    }
}

/* Prints one frame's tree (the reply of Accessibility.getFullAXTree). */
static int ax_format(const cJSON *reply, ax_ctx *c, int depth)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(reply, "nodes");
    int n = cJSON_GetArraySize(nodes), k = 0;
    ax_ref *byid = n > 0 ? base_calloc((size_t)n, sizeof *byid) : NULL;
    if (n > 0 && !byid)
        return -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, nodes)
    {
        const char *id = jstr(it, "nodeId");
        if (id && k < n)
            byid[k++] = (ax_ref){id, it};
    }
    qsort(byid, (size_t)k, sizeof *byid, ax_cmp);
    c->byid = byid;
    c->n_byid = k;
    cJSON_ArrayForEach(it, nodes)
    {
        const char *parent = jstr(it, "parentId");
        if (!parent || !ax_find(byid, k, parent))
            ax_print(c, it, depth, NULL, 0);
    }
    c->byid = NULL;
    c->n_byid = 0;
    base_free(byid);
    return 0;
}

static int run_ax_tree(fovea_session *s, const cJSON *args, tool_result *r)
{
    int max = agent__arg_int(args, "max_chars", DEFAULT_MAX_CHARS);
    base_buf out;
    base_buf_init(&out, (size_t)max + 4096);
    ax_ctx c = {.out = &out, .max_depth = agent__arg_int(args, "max_depth", 0), .cap = (size_t)max};
    int ok = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    cdp_frame fr[MAX_FRAMES];
    int n = cdp_page_frames(s->page, fr, MAX_FRAMES);
    if (n > MAX_FRAMES)
        n = MAX_FRAMES;
    /* Every frame: the top one's tree first, then each child frame's under
     * a line naming it (in-process frames through the page's session with
     * their frameId, cross-origin ones through their own session). */
    for (int i = 0; i < n && !c.cut; i++) {
        cJSON *pa = NULL;
        if (i > 0 && !fr[i].oopif) {
            pa = cJSON_CreateObject();
            if (!pa || !cJSON_AddStringToObject(pa, "frameId", fr[i].id)) {
                cJSON_Delete(pa);
                agent__failf(&r->rec, "error", "out of memory");
                goto out;
            }
        }
        const char *sess = fr[i].oopif && fr[i].session[0] ? fr[i].session : cdp_page_session(s->page);
        cJSON *res = NULL;
        base_err e = cdp_call(cdp_page_conn(s->page), sess, "Accessibility.getFullAXTree", pa, &res,
                              10000, err);
        if (e) {
            if (i == 0) {
                agent__failf(&r->rec, "error", "Accessibility.getFullAXTree failed: %s", err);
                goto out;
            }
            continue; /* a frame that went away meanwhile */
        }
        if (i > 0)
            base_buf_printf(&out, "frame \"%.300s\"\n", fr[i].url);
        int rc = ax_format(res, &c, i > 0 ? 1 : 0);
        cJSON_Delete(res);
        if (rc < 0) {
            agent__failf(&r->rec, "error", "out of memory");
            goto out;
        }
    }
    if (c.cut)
        base_buf_printf(&out, "[... cut at %d characters: raise max_chars or lower max_depth]\n", max);
    chomp(&out);
    cJSON *d = data_value(r, out.len ? (const char *)out.data : "");
    if (!d || !cJSON_AddNumberToObject(d, "lines", c.lines) || !cJSON_AddBoolToObject(d, "cut", c.cut)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    agent__okf(&r->rec, "accessibility tree: %d nodes%s", c.lines, c.cut ? " (cut at max_chars)" : "");
    ok = 1;
out:
    base_buf_fini(&out);
    return ok;
}

/* ---- get_console_errors --------------------------------------------------------- */

static const char console_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"since\":{\"type\":\"integer\",\"minimum\":0,"
    "\"description\":\"only entries numbered since or later (the 'next' of an earlier call)\"},"
    "\"warnings\":{\"type\":\"boolean\",\"description\":\"include warnings (default true)\"},"
    "\"max_entries\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":128,"
    "\"description\":\"newest entries listed (default 50)\"}"
    "},\"additionalProperties\":false}";

static int run_console(fovea_session *s, const cJSON *args, tool_result *r)
{
    int since_arg = agent__arg_int(args, "since", 0);
    uint64_t since = since_arg > 0 ? (uint64_t)since_arg : 0;
    int warnings = agent__arg_bool(args, "warnings", 1);
    int max = agent__arg_int(args, "max_entries", 50);
    uint64_t next = cdp_page_console_count(s->page);
    uint64_t first = cdp_page_console_first(s->page);
    uint64_t from = since > first ? since : first;
    cJSON *list = cJSON_CreateArray();
    base_buf lines;
    base_buf_init(&lines, 1u << 20);
    int ok = 0, n = 0, errors = 0, skipped = 0;
    if (!list) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    /* The newest max entries of those asked for, oldest first. */
    uint64_t count = 0;
    for (uint64_t q = from; q < next; q++) {
        cdp_console_entry e;
        if (cdp_page_console_get(s->page, q, &e) && (warnings || e.error))
            count++;
    }
    for (uint64_t q = from; q < next; q++) {
        cdp_console_entry e;
        if (!cdp_page_console_get(s->page, q, &e) || (!warnings && !e.error))
            continue;
        if (count - (uint64_t)skipped > (uint64_t)max) {
            skipped++;
            continue;
        }
        agent_secrets_scrub(s->sec, e.text, sizeof e.text);
        agent_secrets_scrub(s->sec, e.url, sizeof e.url);
        const char *kind = cdp_console_kind_name(e.kind);
        /* "[console error]", "[exception]", "[network error]", "[security warning]". */
        if (e.kind == CDP_CONSOLE_EXCEPTION)
            base_buf_printf(&lines, "#%llu [exception] %s", (unsigned long long)e.seq, e.text);
        else
            base_buf_printf(&lines, "#%llu [%s %s] %s", (unsigned long long)e.seq, e.source,
                            e.error ? "error" : "warning", e.text);
        if (e.url[0])
            base_buf_printf(&lines, " (%s%s", e.url, e.line ? "" : ")");
        if (e.url[0] && e.line)
            base_buf_printf(&lines, ":%d:%d)", e.line, e.column);
        base_buf_printf(&lines, "\n");
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddNumberToObject(o, "seq", (double)e.seq) ||
            !cJSON_AddStringToObject(o, "kind", kind) ||
            !cJSON_AddStringToObject(o, "level", e.error ? "error" : "warning") ||
            !cJSON_AddStringToObject(o, "source", e.source) ||
            !cJSON_AddStringToObject(o, "text", e.text) || !cJSON_AddStringToObject(o, "url", e.url) ||
            !cJSON_AddNumberToObject(o, "line", e.line) ||
            !cJSON_AddNumberToObject(o, "column", e.column) ||
            !cJSON_AddNumberToObject(o, "time_ms", e.wall_ms)) {
            cJSON_Delete(o);
            agent__failf(&r->rec, "error", "out of memory");
            goto out;
        }
        if (!cJSON_AddItemToArray(list, o)) {
            cJSON_Delete(o);
            agent__failf(&r->rec, "error", "out of memory");
            goto out;
        }
        n++;
        errors += e.error;
    }
    if (since < first && first > 0)
        base_buf_printf(&lines, "(%llu older entries were dropped: the page logs more than %d)\n",
                        (unsigned long long)(first - since), CDP_CONSOLE_RING);
    if (skipped)
        base_buf_printf(&lines, "(%d older entries not listed: raise max_entries or pass since)\n",
                        skipped);
    chomp(&lines);
    cJSON *d = data_value(r, lines.len ? (const char *)lines.data : "");
    if (!d || !cJSON_AddNumberToObject(d, "next", (double)next) ||
        !cJSON_AddItemToObject(d, "entries", list)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    list = NULL; /* d owns it */
    if (!n)
        agent__okf(&r->rec, "no console errors%s since #%llu (next: %llu)",
                   warnings ? " or warnings" : "", (unsigned long long)since,
                   (unsigned long long)next);
    else
        agent__okf(&r->rec, "%d console entr%s (%d error%s) since #%llu (next: %llu)", n,
                   n == 1 ? "y" : "ies", errors, errors == 1 ? "" : "s",
                   (unsigned long long)since, (unsigned long long)next);
    ok = 1;
out:
    cJSON_Delete(list);
    base_buf_fini(&lines);
    return ok;
}

/* ---- evaluate_script, run_script ------------------------------------------------ */

static const char evaluate_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"expression\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":262144,"
    "\"description\":\"JavaScript evaluated in the page's top document; the value of its last "
    "expression (a promise is awaited) is the result\"}"
    "},\"required\":[\"expression\"],\"additionalProperties\":false}";

static const char run_script_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"script\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":262144,"
    "\"description\":\"the body of an async function run in the page's top document; what it "
    "returns is the result\"},"
    "\"arg\":{\"type\":\"string\",\"maxLength\":65536,"
    "\"description\":\"a string the script reads as the variable arg\"}"
    "},\"required\":[\"script\"],\"additionalProperties\":false}";

/* Is v "nothing" (undefined, null, "", [], {})? */
static int empty_value(const cJSON *res)
{
    const char *type = jstr(res, "type");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "value");
    if (!type || strcmp(type, "undefined") == 0)
        return 1;
    if (cJSON_GetObjectItemCaseSensitive(res, "unserializableValue"))
        return 0;
    if (!v || cJSON_IsNull(v))
        return 1;
    if (cJSON_IsString(v))
        return v->valuestring[0] == 0;
    if (cJSON_IsArray(v) || cJSON_IsObject(v))
        return cJSON_GetArraySize(v) == 0;
    return 0;
}

/* A DOM node, by value, is {}: its description ("div#main.card") says more. */
static cJSON *node_result(const cJSON *ro)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *val = res ? cJSON_AddObjectToObject(res, "result") : NULL;
    const char *d = jstr(ro, "description");
    if (!val || !cJSON_AddStringToObject(val, "type", "string") ||
        !cJSON_AddStringToObject(val, "value", d ? d : "node")) {
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}

/* Runtime.evaluate of expr and, in repl mode (which hands a promise back as
 * it is, as the DevTools console shows "Promise {<pending>}"),
 * Runtime.awaitPromise for a promise or Runtime.callFunctionOn for another
 * object, so that *res is {result by value, exceptionDetails?}. All within
 * tmo ms; *ran_ms is how long it took. */
static base_err script_eval(fovea_session *s, const char *expr, int repl, int tmo, cJSON **res,
                            double *ran_ms, char *err)
{
    static const char group[] = "fovea-script";
    double t0 = base_monotime_ms();
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "expression", expr) ||
        !cJSON_AddBoolToObject(pa, "returnByValue", !repl) ||
        !cJSON_AddBoolToObject(pa, "awaitPromise", 1) || !cJSON_AddBoolToObject(pa, "replMode", repl) ||
        !cJSON_AddStringToObject(pa, "objectGroup", group) ||
        !cJSON_AddNumberToObject(pa, "timeout", tmo)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    cJSON *r1 = NULL;
    base_err e = cdp_page_call(s->page, "Runtime.evaluate", pa, &r1, tmo + 1000, err);
    *ran_ms = base_monotime_ms() - t0;
    if (e)
        return e;
    const cJSON *ro = cJSON_GetObjectItemCaseSensitive(r1, "result");
    const char *oid = jstr(ro, "objectId");
    if (!repl || !oid || cJSON_GetObjectItemCaseSensitive(r1, "exceptionDetails")) {
        *res = r1;
        return BASE_OK;
    }
    const char *sub = jstr(ro, "subtype");
    int left = tmo - (int)*ran_ms;
    cJSON *r2 = NULL;
    if (sub && strcmp(sub, "node") == 0) {
        r2 = node_result(ro);
        e = r2 ? BASE_OK : base_errf(err, BASE_ENOMEM, "out of memory");
    } else {
        int promise = sub && strcmp(sub, "promise") == 0;
        cJSON *pb = cJSON_CreateObject();
        if (!pb || !cJSON_AddStringToObject(pb, promise ? "promiseObjectId" : "objectId", oid) ||
            !cJSON_AddBoolToObject(pb, "returnByValue", 1) ||
            (!promise && !cJSON_AddStringToObject(pb, "functionDeclaration",
                                                  "function () { return this; }"))) {
            cJSON_Delete(pb);
            e = base_errf(err, BASE_ENOMEM, "out of memory");
        } else {
            e = cdp_page_call(s->page, promise ? "Runtime.awaitPromise" : "Runtime.callFunctionOn",
                              pb, &r2, left > 50 ? left : 50, err);
        }
    }
    /* The page keeps nothing of ours, settled or not. */
    cJSON *pr = cJSON_CreateObject();
    if (pr && cJSON_AddStringToObject(pr, "objectGroup", group))
        cdp_page_call(s->page, "Runtime.releaseObjectGroup", pr, NULL, 2000, NULL);
    else
        cJSON_Delete(pr);
    cJSON_Delete(r1);
    *ran_ms = base_monotime_ms() - t0;
    if (e)
        return e;
    *res = r2;
    return BASE_OK;
}

/* Runs expr (repl: console semantics, with top-level await and
 * re-declarable let/const) with the step's timeout. */
static int run_js(fovea_session *s, const cJSON *args, tool_result *r, const char *expr, int repl,
                  const char *what)
{
    if (!s->o.allow_scripts) {
        agent__failf(&r->rec, "blocked",
                     "%s is opt-in: run with --allow-scripts (agent_run_opts.allow_scripts)",
                     what);
        return 0;
    }
    int tmo = timeout_of(args);
    agent__settle w;
    agent__watch_begin(s, &w);
    char err[BASE_ERRBUF_SIZE] = "";
    cJSON *res = NULL;
    double ran_ms = 0;
    /* The script is sent: whatever happens next, it may have run. */
    r->delivered = 1;
    s->delivered = 1;
    base_err e = script_eval(s, expr, repl, tmo, &res, &ran_ms, err);
    agent__watch_end(s, &w, &r->rec, what);
    if (e == BASE_ETIMEDOUT) {
        agent__failf(&r->rec, "timeout", "%s still running after %d ms (a promise that never "
                                         "settles?)", what, tmo);
        return 0;
    }
    /* A synchronous loop is stopped by the browser at the timeout, which
     * it answers with a bare "Internal error". */
    if (e == BASE_EREMOTE && ran_ms >= tmo - 20) {
        agent__failf(&r->rec, "timeout", "%s ran past %d ms and was stopped", what, tmo);
        return 0;
    }
    if (e) {
        agent__failf(&r->rec, "error", "%s failed: %s", what, err);
        return 0;
    }
    int ok = 0;
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(res, "exceptionDetails");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(res, "result");
    if (ex) {
        const char *desc = jstr(cJSON_GetObjectItemCaseSensitive(ex, "exception"), "description");
        const char *text = jstr(ex, "text");
        const char *m = desc ? desc : text ? text : "exception";
        size_t nl = strcspn(m, "\n");
        if (strstr(m, "Execution was terminated") || (text && strstr(text, "terminated")))
            agent__failf(&r->rec, "timeout", "%s ran past %d ms and was stopped", what, tmo);
        else
            agent__failf(&r->rec, "error", "%s threw: %.*s", what, (int)(nl < 200 ? nl : 200), m);
        goto out;
    }
    const char *type = jstr(val, "type");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(val, "value");
    const char *uv = jstr(val, "unserializableValue");
    char *text = NULL;
    if (cJSON_IsString(v))
        text = NULL;
    else if (uv)
        text = NULL;
    else if (v)
        text = cJSON_PrintUnformatted(v);
    const char *shown = cJSON_IsString(v) ? v->valuestring : uv ? uv : text ? text : "";
    /* A page can return megabytes (outerHTML of a whole app): the value is
     * cut, on a character boundary, and the raw result left out. */
    size_t len = strlen(shown);
    int cut = len > VALUE_MAX_BYTES;
    char *short_val = NULL;
    if (cut) {
        short_val = base_malloc(VALUE_MAX_BYTES + 64);
        if (short_val) {
            size_t k = base_utf8_repair(shown, VALUE_MAX_BYTES, short_val, VALUE_MAX_BYTES + 1);
            snprintf(short_val + k, 64, " [... cut at %zu of %zu bytes]", k, len);
        }
    }
    cJSON *d = data_value(r, cut ? (short_val ? short_val : "") : shown);
    base_free(short_val);
    cJSON *copy = cut ? cJSON_CreateBool(1) : v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
    if (!d || !copy || !cJSON_AddStringToObject(d, "type", type ? type : "undefined") ||
        !cJSON_AddItemToObject(d, cut ? "cut" : "result", copy)) {
        cJSON_Delete(copy);
        cJSON_free(text);
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    if (empty_value(val)) {
        /* A script that returns nothing is usually a script that forgot to:
         * say so, so the caller does not read "" as the page's answer. */
        agent__okf(&r->rec, "%s ran; it returned nothing (%s): %s", what,
                   type ? type : "undefined",
                   repl ? "the value of the last expression is the result"
                        : "end the script with `return <value>`");
        cJSON_AddStringToObject(d, "note", "empty result");
    } else {
        agent__okf(&r->rec, "%s returned %s%.120s%s", what, cJSON_IsString(v) ? "\"" : "", shown,
                   cJSON_IsString(v) ? "\"" : "");
    }
    cJSON_free(text);
    ok = 1;
out:
    cJSON_Delete(res);
    return ok;
}

static int run_evaluate(fovea_session *s, const cJSON *args, tool_result *r)
{
    return run_js(s, args, r, agent__arg_str(args, "expression"), 1, "evaluate_script");
}

static int run_run_script(fovea_session *s, const cJSON *args, tool_result *r)
{
    const char *body = agent__arg_str(args, "script");
    const char *arg = agent__arg_str(args, "arg");
    cJSON *as = cJSON_CreateString(arg ? arg : "");
    char *aj = as ? cJSON_PrintUnformatted(as) : NULL;
    cJSON_Delete(as);
    base_buf b;
    base_buf_init(&b, SCRIPT_MAX_BYTES + 65536 * 6 + 256);
    int ok = 0;
    /* The body runs as an async function (so `return` and `await` work)
     * with arg bound; the closing brace sits on its own line so a trailing
     * line comment in the body cannot swallow it. */
    if (!aj || base_buf_printf(&b, "(async (arg) => {\n%s\n})(%s)", body, aj)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    ok = run_js(s, args, r, (const char *)b.data, 0, "run_script");
out:
    cJSON_free(aj);
    base_buf_fini(&b);
    return ok;
}

/* ---- assertions ------------------------------------------------------------------ */

static const char assert_absent_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"target\":" AGENT__TARGET_SCHEMA ","
    "\"text\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"text that must not be on the page (case-insensitive)\"},"
    "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"regular expression (PCRE2) the page text must not match\"},"
    "\"selector\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
    "\"description\":\"CSS selector no visible element may match\"}"
    "},\"additionalProperties\":false}";

static const char assert_state_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"target\":" AGENT__TARGET_SCHEMA ","
    "\"selector\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000,"
    "\"description\":\"CSS selector of the element (first match; all of them for visible, "
    "hidden and the counts)\"},"
    "\"state\":{\"type\":\"string\",\"description\":\"what must hold\",\"enum\":[\"checked\",\"unchecked\",\"value_equals\","
    "\"value_contains\",\"class_has\",\"enabled\",\"disabled\",\"visible\",\"hidden\","
    "\"attribute\",\"count\",\"count_at_least\"]},"
    "\"value\":{\"type\":\"string\",\"maxLength\":4096,"
    "\"description\":\"value_equals/value_contains: the value; class_has: the class; "
    "attribute: the attribute's value (absent = the attribute is there)\"},"
    "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,"
    "\"description\":\"attribute: the attribute's name\"},"
    "\"count\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000000,"
    "\"description\":\"count/count_at_least: the number of matches\"}"
    "},\"required\":[\"state\"],\"additionalProperties\":false}";

/* What one poll of an assertion saw. */
typedef struct seen {
    int found; /* the element / a match exists */
    int ok;    /* the asserted condition holds now */
    char what[200];
} seen;

/* Reads state q through read_state.js in the top document, then, when it
 * has no match there, in each cross-origin frame. 0, or -1 with r set. */
static int read_state(fovea_session *s, cJSON *q, seen *out, tool_result *r)
{
    cdp_frame fr[MAX_FRAMES];
    int nf = -2; /* frames listed on first need */
    for (int i = -1; i < (nf < 0 ? 0 : nf); i++) {
        char err[BASE_ERRBUF_SIZE] = "";
        cJSON *v = NULL;
        base_err e = call_js(s, i < 0 ? NULL : fr[i].session, fovea_js_read_state, q, &v, 5000, err);
        if (e) {
            if (bad_selector(err)) {
                agent__failf(&r->rec, "bad_args", "'selector' is not a valid CSS selector: %.200s",
                             sel_of(q));
                return -1;
            }
            if (i < 0) {
                agent__failf(&r->rec, "error", "reading the page failed: %s", err);
                return -1;
            }
            continue;
        }
        seen one = {0};
        one.found = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "found"));
        one.ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "ok"));
        snprintf(one.what, sizeof one.what, "%s", jstr(v, "seen") ? jstr(v, "seen") : "");
        cJSON_Delete(v);
        if (i < 0 || one.found)
            *out = one;
        if (one.found)
            return 0;
        if (nf == -2)
            nf = oopif_frames(s, fr, MAX_FRAMES);
    }
    return 0;
}

/* One read of q: for a selector, every document (read_state); for a
 * grounded target, its own document only. */
static int state_once(fovea_session *s, const char *session, cJSON *q, seen *out, tool_result *r)
{
    if (!cJSON_GetObjectItemCaseSensitive(q, "x") && !cJSON_GetObjectItemCaseSensitive(q, "xpath"))
        return read_state(s, q, out, r);
    char err[BASE_ERRBUF_SIZE] = "";
    cJSON *v = NULL;
    if (call_js(s, session, fovea_js_read_state, q, &v, 5000, err) != BASE_OK) {
        agent__failf(&r->rec, "error", "reading the target failed: %s", err);
        return -1;
    }
    out->found = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "found"));
    out->ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "ok"));
    snprintf(out->what, sizeof out->what, "%s", jstr(v, "seen") ? jstr(v, "seen") : "");
    cJSON_Delete(v);
    return 0;
}

/* Page text once: 1 when it holds text / matches re, 0 not, -1 error. */
static int text_present(fovea_session *s, const char *text, const base_regex *re, double deadline,
                        tool_result *r)
{
    base_buf b;
    base_buf_init(&b, 64u << 20);
    char err[BASE_ERRBUF_SIZE] = "";
    int rc = -1;
    base_err e = agent__page_text(s, &b, err);
    if (e) {
        agent__failf(&r->rec, "error", "reading the page text failed: %s", err);
        goto out;
    }
    const char *t = b.len ? (const char *)b.data : "";
    if (re) {
        int m = 0;
        double dl = deadline > base_monotime_ms() + 250 ? deadline : base_monotime_ms() + 250;
        e = base_regex_match_until(re, t, b.len, dl, &m, err);
        if (e == BASE_ETOOBIG) {
            agent__failf(&r->rec, "pattern_limit", "pattern: %s", err);
            goto out;
        }
        if (e) {
            agent__failf(&r->rec, "error", "pattern: %s", err);
            goto out;
        }
        rc = m;
    } else {
        rc = snap_text_contains(t, text);
    }
out:
    base_buf_fini(&b);
    return rc;
}

/* assert_absent of a target: polls grounding (no snap) with a short
 * budget each time; the target is gone once grounding finds no box for it
 * (a fresh vision pass included). */
static int absent_target(fovea_session *s, const cJSON *args, tool_result *r)
{
    int tmo = timeout_of(args);
    double t0 = base_monotime_ms(), deadline = t0 + tmo;
    for (;;) {
        double left = deadline - base_monotime_ms();
        int once = left > ABSENT_POLL_MS ? ABSENT_POLL_MS : left > 200 ? (int)left : 200;
        agent_step_record r2 = r->rec;
        int there = ground_target(s, args, "assert_absent", once, 0, &r2);
        if (!there && strcmp(r2.reason, "not_found") != 0) {
            r->rec = r2; /* bad target, page gone, interrupted: not an answer */
            return 0;
        }
        if (!there) {
            agent__okf(&r->rec, "'%.100s' is not on the page (after %.0f ms)",
                       r2.target_label[0] ? r2.target_label : "target", base_monotime_ms() - t0);
            agent__copy(r->rec.target_label, sizeof r->rec.target_label, r2.target_label);
            return 1;
        }
        r->rec = r2;
        if (base_monotime_ms() >= deadline) {
            agent__failf(&r->rec, "assert_failed",
                         "[V%d] '%.100s' is still on the page after %d ms", r->rec.box_id,
                         r->rec.box_label, tmo);
            return 0;
        }
        if (agent__stopped(&r->rec) || !agent__page_ok(s))
            return 0;
        base_sleep_ms(POLL_MS);
    }
}

static int run_assert_absent(fovea_session *s, const cJSON *args, tool_result *r)
{
    const char *text = agent__arg_str(args, "text");
    const char *pat = agent__arg_str(args, "pattern");
    const char *sel = agent__arg_str(args, "selector");
    if (cJSON_GetObjectItemCaseSensitive(args, "target"))
        return absent_target(s, args, r);
    base_regex *re = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (pat && base_regex_compile(pat, strlen(pat), BASE_REGEX_MULTILINE, &re, err)) {
        agent__failf(&r->rec, "bad_args", "'pattern' does not compile: %s", err);
        return 0;
    }
    cJSON *q = sel ? cJSON_CreateObject() : NULL;
    if (sel && (!q || !cJSON_AddStringToObject(q, "css", sel) ||
                !cJSON_AddStringToObject(q, "state", "present"))) {
        agent__failf(&r->rec, "error", "out of memory");
        cJSON_Delete(q);
        base_regex_destroy(re);
        return 0;
    }
    int tmo = timeout_of(args);
    double t0 = base_monotime_ms(), deadline = t0 + tmo;
    char what[160];
    snprintf(what, sizeof what, "%s%.120s%s", text ? "text \"" : pat ? "pattern /" : "selector ",
             text ? text : pat ? pat : sel, text ? "\"" : pat ? "/" : "");
    int ok = 0;
    seen last = {0};
    /* Poll until it is gone: a toast or a spinner leaves on its own time. */
    for (;;) {
        int present;
        if (sel) {
            if (read_state(s, q, &last, r) < 0)
                break;
            present = last.ok;
        } else {
            present = text_present(s, text, re, deadline, r);
            if (present < 0)
                break;
        }
        if (!present) {
            agent__okf(&r->rec, "%s is not on the page (after %.0f ms)", what, base_monotime_ms() - t0);
            ok = 1;
            break;
        }
        if (base_monotime_ms() >= deadline) {
            agent__failf(&r->rec, "assert_failed", "%s is still on the page after %d ms%s%s%s", what,
                         tmo, sel ? " (" : "", sel ? last.what : "", sel ? ")" : "");
            break;
        }
        if (agent__stopped(&r->rec) || !agent__page_ok(s))
            break;
        base_sleep_ms(POLL_MS);
    }
    cJSON_Delete(q);
    base_regex_destroy(re);
    return ok;
}

/* The state's wording for messages ("value equals \"x\""). */
static void state_words(const char *state, const cJSON *args, char *buf, size_t n)
{
    const char *v = agent__arg_str(args, "value");
    if (strcmp(state, "value_equals") == 0)
        snprintf(buf, n, "value \"%.100s\"", v ? v : "");
    else if (strcmp(state, "value_contains") == 0)
        snprintf(buf, n, "value containing \"%.100s\"", v ? v : "");
    else if (strcmp(state, "class_has") == 0)
        snprintf(buf, n, "class \"%.100s\"", v ? v : "");
    else if (strcmp(state, "attribute") == 0)
        snprintf(buf, n, "%s%s%.100s%s", agent__arg_str(args, "name"), v ? "=\"" : " attribute",
                 v ? v : "", v ? "\"" : "");
    else if (strcmp(state, "count") == 0)
        snprintf(buf, n, "%d matches", agent__arg_int(args, "count", 0));
    else if (strcmp(state, "count_at_least") == 0)
        snprintf(buf, n, "at least %d matches", agent__arg_int(args, "count", 0));
    else
        snprintf(buf, n, "%s", state);
}

static int run_assert_state(fovea_session *s, const cJSON *args, tool_result *r)
{
    const char *sel = agent__arg_str(args, "selector");
    const char *state = agent__arg_str(args, "state");
    const char *value = agent__arg_str(args, "value");
    const char *name = agent__arg_str(args, "name");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(args, "count");
    int counting = strncmp(state, "count", 5) == 0;
    const char *session = NULL;
    int tmo = timeout_of(args);
    /* One budget for grounding and polling: the call's timeout. */
    double t0 = base_monotime_ms(), deadline = t0 + tmo;
    if (!sel && !ground_target(s, args, "assert_state", tmo, 1, &r->rec))
        return 0;
    cJSON *q = cJSON_CreateObject();
    if (!q || !cJSON_AddStringToObject(q, "state", state) ||
        (sel ? !cJSON_AddStringToObject(q, "css", sel) : target_ref(s, &s->call_g, q, &session) < 0) ||
        (value && !cJSON_AddStringToObject(q, "value", value)) ||
        (name && !cJSON_AddStringToObject(q, "name", name)) ||
        (count && !cJSON_AddNumberToObject(q, "count", count->valuedouble))) {
        cJSON_Delete(q);
        agent__failf(&r->rec, "error", "out of memory");
        return 0;
    }
    char want[160], what[240];
    state_words(state, args, want, sizeof want);
    if (sel)
        snprintf(what, sizeof what, "%.200s", sel);
    else
        snprintf(what, sizeof what, "[V%d] '%.100s'", r->rec.box_id, r->rec.box_label);
    int ok = 0;
    seen last = {0};
    for (;;) {
        if (state_once(s, session, q, &last, r) < 0)
            break;
        if (last.ok) {
            agent__okf(&r->rec, "%s: %s (after %.0f ms)", what, last.what, base_monotime_ms() - t0);
            ok = 1;
            break;
        }
        if (base_monotime_ms() >= deadline) {
            /* Never there at all is a different failure from "there, in
             * another state": the caller fixes a selector, not a flow. */
            if (!last.found && !counting && strcmp(state, "hidden") != 0)
                agent__failf(&r->rec, "not_found", "%s: no element matches (waited %d ms for %s)",
                             what, tmo, want);
            else
                agent__failf(&r->rec, "assert_failed", "%s: expected %s, saw %s (after %d ms)", what,
                             want, last.what, tmo);
            break;
        }
        if (agent__stopped(&r->rec) || !agent__page_ok(s))
            break;
        base_sleep_ms(POLL_MS);
    }
    cJSON_Delete(q);
    return ok;
}

/* ---- checks beyond the schemas (run at load for task files) ------------------- */

static int has(const cJSON *a, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(a, k) != NULL;
}

static base_err c_extract_markdown(const cJSON *a, char *err)
{
    if (has(a, "target") && has(a, "selector"))
        return base_errf(err, BASE_EINVAL, "extract_markdown: give 'target' or 'selector', not both");
    return BASE_OK;
}

static base_err c_dom_search(const cJSON *a, char *err)
{
    if (!has(a, "text") && !has(a, "selector"))
        return base_errf(err, BASE_EINVAL, "dom_search: needs 'text' or 'selector' (or both)");
    return BASE_OK;
}

static base_err c_assert_absent(const cJSON *a, char *err)
{
    int n = has(a, "text") + has(a, "pattern") + has(a, "selector") + has(a, "target");
    if (n != 1)
        return base_errf(err, BASE_EINVAL, "assert_absent: %s one of 'text', 'pattern', "
                                           "'selector' or 'target'",
                         n ? "give only" : "needs");
    const char *pat = agent__arg_str(a, "pattern");
    base_regex *re = NULL;
    char why[BASE_ERRBUF_SIZE] = "";
    if (pat && base_regex_compile(pat, strlen(pat), BASE_REGEX_MULTILINE, &re, why))
        return base_errf(err, BASE_EINVAL, "assert_absent: 'pattern' does not compile: %s", why);
    base_regex_destroy(re);
    return BASE_OK;
}

static base_err c_assert_state(const cJSON *a, char *err)
{
    const char *state = agent__arg_str(a, "state");
    if (!state)
        return base_errf(err, BASE_EINVAL, "assert_state: needs 'state'");
    if (has(a, "target") == has(a, "selector"))
        return base_errf(err, BASE_EINVAL, "assert_state: %s 'target' or 'selector'",
                         has(a, "target") ? "give only one of" : "needs");
    int counting = strncmp(state, "count", 5) == 0;
    if ((strncmp(state, "value_", 6) == 0 || strcmp(state, "class_has") == 0) && !has(a, "value"))
        return base_errf(err, BASE_EINVAL, "assert_state: state '%s' needs 'value'", state);
    if (strcmp(state, "attribute") == 0 && !has(a, "name"))
        return base_errf(err, BASE_EINVAL,
                         "assert_state: state 'attribute' needs 'name' (and 'value' to compare)");
    if (strcmp(state, "attribute") != 0 && has(a, "name"))
        return base_errf(err, BASE_EINVAL, "assert_state: 'name' goes with state 'attribute'");
    if (counting && !has(a, "count"))
        return base_errf(err, BASE_EINVAL, "assert_state: state '%s' needs 'count'", state);
    if (!counting && has(a, "count"))
        return base_errf(err, BASE_EINVAL,
                         "assert_state: 'count' goes with state count or count_at_least");
    if (counting && has(a, "target"))
        return base_errf(err, BASE_EINVAL,
                         "assert_state: state '%s' counts the matches of a 'selector'", state);
    return BASE_OK;
}

/* ---- the table ------------------------------------------------------------------- */

const tool_def agent__tools_read[] = {
    {"extract_markdown",
     "Read the page (or the region a CSS selector or a target names) as Markdown: headings, "
     "lists, links, tables, code; hidden elements skipped; capped at max_chars.",
     extract_markdown_schema, TOOL_TARGETED, run_extract_markdown, c_extract_markdown},
    {"dom_search",
     "Find elements by the text they show or are labelled with and/or a CSS selector: numbered "
     "matches with tag, text, attributes, xpath, visibility and box.",
     dom_search_schema, 0, run_dom_search, c_dom_search},
    {"get_accessibility_tree",
     "The page's accessibility tree (all frames) as indented lines: role \"name\" [states].",
     ax_tree_schema, 0, run_ax_tree, NULL},
    {"get_console_errors",
     "Console errors and warnings, uncaught exceptions and failed requests of the page since it "
     "opened (or since entry 'since'); 'next' is where the next call starts.",
     console_schema, 0, run_console, NULL},
    {"evaluate_script",
     "Evaluate a JavaScript expression in the page, as the DevTools console does; the result "
     "comes back as JSON.",
     evaluate_schema, TOOL_MUTATES | TOOL_OPT_IN, run_evaluate, NULL},
    {"run_script",
     "Run the body of an async JavaScript function in the page; what it returns comes back as "
     "JSON.",
     run_script_schema, TOOL_MUTATES | TOOL_OPT_IN, run_run_script, NULL},
    {"assert_absent",
     "Assert that a text, a pattern, a visible element matching a selector, or a target is NOT on "
     "the page, waiting up to timeout_ms for it to go away.",
     assert_absent_schema, TOOL_TARGETED, run_assert_absent, c_assert_absent},
    {"assert_state",
     "Assert a target's or a selector's state (checked, unchecked, value_equals, value_contains, "
     "class_has, enabled, disabled, visible, hidden, attribute) or a selector's count (count, "
     "count_at_least), waiting up to timeout_ms for it to hold.",
     assert_state_schema, TOOL_TARGETED, run_assert_state, c_assert_state},
    {NULL, NULL, NULL, 0, NULL, NULL},
};

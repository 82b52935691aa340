/* agent/session/tools_outline.c: the reading tools of the page outline (seed 000,
 * seed 003; agent/session/outline.h): get_outline (what the model reads each
 * step), focus_region (one region in full), list_headings (the table of
 * contents), extract_with_index (pick by content: a wide CSS query and a
 * text filter give a numbered list, seed 003).
 *
 * The session keeps the previous read's region signatures (s->ol_prev), so
 * a region unchanged since the last get_outline prints as one line, and
 * the URL of that read: the budget is AGENT_OL_CAP_FIRST for a page seen
 * for the first time and AGENT_OL_CAP_SAME for the same URL again (the
 * model has its first view in context). The marks come from the session's
 * latest vision epoch, so [n] in the outline is [Vn] on the screenshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/session/outline.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/json_get.h"

#define OL_OUT_MAX (4u << 20)

void agent__outline_forget(fovea_session *s)
{
    if (s->ol_prev) {
        agent_outline_sig_fini(s->ol_prev);
        base_free(s->ol_prev);
        s->ol_prev = NULL;
    }
}

void fovea_session_outline_swap(fovea_session *s, struct agent_outline_sig **sig)
{
    struct agent_outline_sig *t = s->ol_prev;
    s->ol_prev = *sig;
    *sig = t;
}

void fovea_session_outline_copy(fovea_session *s, struct agent_outline_sig **sig)
{
    *sig = NULL;
    if (!s->ol_prev)
        return;
    agent_outline_sig *c = base_calloc(1, sizeof *c);
    char err[BASE_ERRBUF_SIZE];
    if (c && agent_outline_sig_copy(c, s->ol_prev, err) == BASE_OK) {
        *sig = c;
        return;
    }
    base_free(c);
}

void fovea_session_outline_hold(fovea_session *s)
{
    for (int i = 0; s->ol_prev && i < s->ol_prev->n; i++)
        s->ol_prev->r[i].full = 0;
}

void fovea_session_outline_free(struct agent_outline_sig *sig)
{
    if (sig) {
        agent_outline_sig_fini(sig);
        base_free(sig);
    }
}

/* The element index of a reference "\x01" digits "\x02" at p; -1 if malformed. */
static int atoi_ref(const char *p)
{
    int v = 0, any = 0;
    for (p++; *p >= '0' && *p <= '9' && v < 100000000; p++) {
        v = v * 10 + (*p - '0');
        any = 1;
    }
    return any && *p == '\x02' ? v : -1;
}

/* The session's latest vision epoch (the pass scheduled after the last
 * action, waited for up to the pass budget), acquired; NULL when none. */
static perc_epoch *latest_epoch(fovea_session *s)
{
    perc_epoch *ep = fovea_session_wait_epoch(s, s->pass_budget_ms > 0 ? s->pass_budget_ms : 5000);
    return ep ? ep : perc_prefetch_current(s->pf);
}

/* The page's outline joined with the session's latest marks. */
static int read_outline(fovea_session *s, agent_outline *o, tool_result *r)
{
    perc_epoch *ep = latest_epoch(s);
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_outline_read(s->page, ep, o, err);
    if (ep)
        perc_epoch_release(ep);
    if (e) {
        agent__failf(&r->rec, agent__page_ok(s) ? "error" : "page_gone", "outline: %s", err);
        return 0;
    }
    return 1;
}

/* r->data = {"value": text, extra fields...}; 0 (and r failed) on no memory. */
static cJSON *data_with(tool_result *r, const char *text)
{
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddStringToObject(d, "value", text ? text : "")) {
        cJSON_Delete(d);
        agent__failf(&r->rec, "error", "out of memory");
        return NULL;
    }
    r->data = d;
    return d;
}

static int add_num(tool_result *r, cJSON *d, const char *k, double v)
{
    if (!cJSON_AddNumberToObject(d, k, v)) {
        agent__failf(&r->rec, "error", "out of memory");
        return 0;
    }
    return 1;
}

/* Mode from the argument, else the session's option. */
static int mode_of(fovea_session *s, const cJSON *a)
{
    const char *m = agent__arg_str(a, "mode");
    if (m)
        return strcmp(m, "flat") == 0 ? AGENT_OL_FLAT : AGENT_OL_OUTLINE;
    return s->o.page_text == AGENT_PAGE_TEXT_FLAT ? AGENT_OL_FLAT : AGENT_OL_OUTLINE;
}

/* The screenshot's marks the outline holds (elements on a line with a mark)
 * and how many of them text (the budgeted output) shows as "[n]<". */
static void marks_count(const agent_outline *o, const char *text, int *in, int *shown)
{
    *in = *shown = 0;
    if (o->max_mark <= 0)
        return;
    char *seen = base_calloc((size_t)o->max_mark + 1, 1);
    if (!seen)
        return;
    for (const char *p = strchr(text, '['); p; p = strchr(p + 1, '[')) {
        char *end = NULL;
        long n = strtol(p + 1, &end, 10);
        if (end != p + 1 && end[0] == ']' && end[1] == '<' && n >= 1 && n <= o->max_mark)
            seen[n] = 1;
    }
    /* An element on no line is in no read; count the ones a line carries. */
    for (int l = 0; l < o->n_lines; l++)
        for (const char *p = strchr(o->lines[l].text, '\x01'); p; p = strchr(p + 1, '\x01')) {
            int idx = atoi_ref(p);
            if (idx < 0 || idx >= o->n_els || o->els[idx].mark <= 0 ||
                o->els[idx].mark > o->max_mark || seen[o->els[idx].mark] == 2 ||
                seen[o->els[idx].mark] == 3)
                continue;
            (*in)++;
            *shown += seen[o->els[idx].mark] == 1;
            seen[o->els[idx].mark] += 2; /* counted once */
        }
    base_free(seen);
}

/* The page's content as one hex digest: every line's text and its
 * elements' printed numbers, names and values, whatever the read shows of
 * them (budget, collapsing), so a caller can tell "the same page" from
 * reads that render it differently. */
static void page_digest(const agent_outline *o, char out[17])
{
    uint64_t h = 1469598103934665603ull;
    for (int l = 0; l < o->n_lines; l++) {
        for (const char *c = o->lines[l].text; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        for (const char *p = strchr(o->lines[l].text, '\x01'); p; p = strchr(p + 1, '\x01')) {
            int idx = atoi_ref(p);
            if (idx < 0 || idx >= o->n_els)
                continue;
            const agent_ol_el *e = &o->els[idx];
            h = (h ^ (uint64_t)(unsigned)e->n) * 1099511628211ull;
            for (const char *c = e->name; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ull;
            h = (h ^ 0xffu) * 1099511628211ull;
            for (const char *c = e->val; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ull;
        }
        h = (h ^ 0xfeu) * 1099511628211ull;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static int t_get_outline(fovea_session *s, const cJSON *a, tool_result *r)
{
    agent__copy(r->rec.gate, sizeof r->rec.gate, "-");
    agent_outline o;
    agent_outline_init(&o);
    if (!read_outline(s, &o, r))
        return 0;
    int mode = mode_of(s, a);
    int same = s->ol_prev && strcmp(s->ol_prev->url, o.url) == 0;
    int cap = agent__arg_int(a, "max_chars", same ? AGENT_OL_CAP_SAME : AGENT_OL_CAP_FIRST);
    int fresh = agent__arg_bool(a, "fresh", 0);
    agent_ol_lines l;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_outline_render(&o, fresh ? NULL : s->ol_prev, mode, -1, &l, err);
    base_buf b;
    base_buf_init(&b, OL_OUT_MAX);
    agent_ol_budget st;
    if (!e)
        e = agent_outline_budget(&l, cap, &b, &st, err);
    int collapsed = 0;
    for (int i = 0; !e && i < l.n; i++)
        collapsed += l.v[i].collapsed;
    if (!e) {
        /* What the model got (collapsed and cut regions included) decides
         * what may collapse next time. */
        if (!s->ol_prev && !(s->ol_prev = base_calloc(1, sizeof *s->ol_prev)))
            e = base_errf(err, BASE_ENOMEM, "out of memory");
        else
            e = agent_outline_sig_take(&o, &l, s->ol_prev, err);
    }
    agent_ol_lines_fini(&l);
    if (e) {
        base_buf_fini(&b);
        agent_outline_fini(&o);
        agent__failf(&r->rec, "error", "outline: %s", err);
        return 0;
    }
    /* Text of the page without the outline's own markers: is there any? */
    base_buf plain;
    base_buf_init(&plain, OL_OUT_MAX);
    for (int i = 0; i < o.n_lines; i++) {
        base_buf_append_str(&plain, o.lines[i].text);
        base_buf_append_str(&plain, "\n");
    }
    char why[128] = "";
    int meaningful = o.n_els > 0 || agent_text_meaningful(plain.data ? (char *)plain.data : "",
                                                            why, sizeof why);
    base_buf_fini(&plain);
    int marks_in = 0, marks_shown = 0;
    marks_count(&o, b.data ? (const char *)b.data : "", &marks_in, &marks_shown);
    char digest[17];
    page_digest(&o, digest);
    cJSON *d = data_with(r, b.data ? (char *)b.data : "");
    int ok = d && add_num(r, d, "chars", st.out_chars) &&
             add_num(r, d, "raw_chars", st.in_chars) && add_num(r, d, "lines", st.in_lines) &&
             add_num(r, d, "kept_lines", st.kept_lines) && add_num(r, d, "cap", cap) &&
             add_num(r, d, "regions", o.n_regions) && add_num(r, d, "collapsed", collapsed) &&
             add_num(r, d, "elements", o.n_els) && add_num(r, d, "marks", o.max_mark) &&
             add_num(r, d, "marks_in", marks_in) && add_num(r, d, "marks_shown", marks_shown) &&
             cJSON_AddStringToObject(d, "digest", digest) &&
             cJSON_AddBoolToObject(d, "meaningful", meaningful);
    /* Per kind of line: [kept, in] (what the budget kept of the data lines). */
    cJSON *kinds = ok ? cJSON_AddObjectToObject(d, "kinds") : NULL;
    for (int k = 0; ok && k < AGENT_OL_KIND_COUNT; k++) {
        int pair[2] = {st.kind_kept[k], st.kind_in[k]};
        cJSON *ka = cJSON_CreateIntArray(pair, 2);
        ok = kinds && ka && cJSON_AddItemToObject(kinds, agent_ol_kind_name(k), ka);
        if (!ok) {
            cJSON_Delete(ka);
            agent__failf(&r->rec, "error", "out of memory");
        }
    }
    if (ok) {
        if (!meaningful)
            agent__okf(&r->rec, "%s: no meaningful content (%s)", o.url, why);
        else
            agent__okf(&r->rec, "%s %s: %d regions (%d unchanged), %d elements, %d/%d lines, "
                       "%d chars (cap %d)", mode == AGENT_OL_FLAT ? "flat text" : "outline",
                       o.url, o.n_regions, collapsed, o.n_els, st.kept_lines, st.in_lines,
                       st.out_chars, cap);
    }
    base_buf_fini(&b);
    agent_outline_fini(&o);
    return ok;
}

static int t_focus_region(fovea_session *s, const cJSON *a, tool_result *r)
{
    agent__copy(r->rec.gate, sizeof r->rec.gate, "-");
    const char *spec = agent__arg_str(a, "region");
    agent_outline o;
    agent_outline_init(&o);
    if (!read_outline(s, &o, r))
        return 0;
    char why[512] = "";
    int k = agent_outline_find_region(&o, spec, why, sizeof why);
    if (k < 0) {
        if (k == -1) {
            /* Name what there is, so the next call can pick one. */
            size_t u = (size_t)snprintf(why, sizeof why, "no region '%s'; the page has:", spec);
            for (int i = 0; i < o.n_regions && u < sizeof why; i++)
                u += (size_t)snprintf(why + u, sizeof why - u, " #%d %s%s%s%s", i + 1,
                                      agent_ol_role_label(o.regions[i].role),
                                      o.regions[i].name[0] ? " \"" : "", o.regions[i].name,
                                      o.regions[i].name[0] ? "\"" : "");
            if (!o.n_regions && u < sizeof why)
                snprintf(why + u, sizeof why - u, " no landmark regions");
        }
        agent_outline_fini(&o);
        agent__failf(&r->rec, k == -2 ? "ambiguous" : "not_found", "%s", why);
        return 0;
    }
    agent_ol_lines l;
    char err[BASE_ERRBUF_SIZE] = "";
    base_buf b;
    base_buf_init(&b, OL_OUT_MAX);
    agent_ol_budget st;
    int cap = agent__arg_int(a, "max_chars", AGENT_OL_CAP_FIRST);
    base_err e = agent_outline_render(&o, NULL, AGENT_OL_OUTLINE, k, &l, err);
    if (!e) {
        e = agent_outline_budget(&l, cap, &b, &st, err);
        agent_ol_lines_fini(&l);
    }
    if (e) {
        base_buf_fini(&b);
        agent_outline_fini(&o);
        agent__failf(&r->rec, "error", "outline: %s", err);
        return 0;
    }
    const agent_ol_region *g = &o.regions[k];
    cJSON *d = data_with(r, b.data ? (char *)b.data : "");
    int ok = d && add_num(r, d, "chars", st.out_chars) && add_num(r, d, "lines", st.in_lines);
    if (ok)
        agent__okf(&r->rec, "region %s%s%.80s%s: %d lines, %d chars",
                   agent_ol_role_label(g->role), g->name[0] ? " \"" : "", g->name,
                   g->name[0] ? "\"" : "", st.kept_lines, st.out_chars);
    base_buf_fini(&b);
    agent_outline_fini(&o);
    return ok;
}

static int t_list_headings(fovea_session *s, const cJSON *a, tool_result *r)
{
    (void)a;
    agent__copy(r->rec.gate, sizeof r->rec.gate, "-");
    agent_outline o;
    agent_outline_init(&o);
    if (!read_outline(s, &o, r))
        return 0;
    base_buf b;
    base_buf_init(&b, OL_OUT_MAX);
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent_outline_headings(&o, &b, err);
    int n = 0;
    for (int i = 0; i < o.n_lines; i++)
        n += o.lines[i].kind == AGENT_OL_HEADING;
    agent_outline_fini(&o);
    if (e) {
        base_buf_fini(&b);
        agent__failf(&r->rec, "error", "%s", err);
        return 0;
    }
    cJSON *d = data_with(r, b.data ? (char *)b.data : "");
    int ok = d && add_num(r, d, "headings", n);
    if (ok)
        agent__okf(&r->rec, "%d heading%s", n, n == 1 ? "" : "s");
    base_buf_fini(&b);
    return ok;
}


/* ---- extract_with_index ------------------------------------------------------------ */

/* The vision mark on the element at xpath (top document when top), 0 = none. */
static int mark_of(const perc_epoch *ep, const char *xpath, int top)
{
    if (!ep || !xpath)
        return 0;
    for (int b = 0; b < ep->n; b++) {
        int d = ep->boxes[b].dom_index;
        if (d < 0 || d >= ep->n_map)
            continue;
        const perc_selector *m = &ep->map[d];
        if ((m->frame_id[0] == '\0') == top && strcmp(m->xpath, xpath) == 0)
            return ep->boxes[b].id;
    }
    return 0;
}

/* A string member, "" when absent (base/json_get.h). */
#define jstr(o, k) base_json_str((o), (k), "")

/* One numbered line: [i] <tag> [Vn] selector: S text: "..." attrs. */
static void ex_line(base_buf *b, int i, const cJSON *m, int mark, const char *frame_url)
{
    base_buf_printf(b, "[%d] <%s>", i, jstr(m, "tag"));
    if (mark)
        base_buf_printf(b, " [V%d]", mark);
    base_buf_printf(b, " selector: %s", jstr(m, "selector"));
    if (frame_url)
        base_buf_printf(b, " (frame %.200s)", frame_url);
    base_buf_printf(b, " text: \"%s\"", jstr(m, "text"));
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(m, "attrs"))
    {
        if (!cJSON_IsString(a) || !strcmp(a->string, "id") || !strcmp(a->string, "class"))
            continue;
        base_buf_printf(b, " %s=\"%s\"", a->string, a->valuestring);
    }
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "attrs"),
                                                       "class");
    if (cJSON_IsString(cl))
        base_buf_printf(b, " class=\"%.80s\"", cl->valuestring);
    base_buf_append_str(b, "\n");
}

static int t_extract_with_index(fovea_session *s, const cJSON *a, tool_result *r)
{
    agent__copy(r->rec.gate, sizeof r->rec.gate, "-");
    const char *query = agent__arg_str(a, "query");
    const char *contains = agent__arg_str(a, "contains");
    int max = agent__arg_int(a, "max", 80), pick = agent__arg_int(a, "pick", 0);
    cJSON *q = cJSON_CreateObject();
    cJSON *all = cJSON_CreateArray();
    base_buf lines;
    base_buf_init(&lines, 1u << 20);
    base_buf texts;
    base_buf_init(&texts, 1u << 20);
    perc_epoch *ep = latest_epoch(s);
    /* Marks of another page (before a navigation) must not be offered. */
    if (ep) {
        cJSON *u = NULL;
        int same = 0;
        if (cdp_page_evaluate(s->page, "location.href", &u, 3000, NULL) == BASE_OK &&
            cJSON_IsString(u)) {
            size_t ea = strcspn(ep->url, "#"), ua = strcspn(u->valuestring, "#");
            same = ea == ua && strncmp(ep->url, u->valuestring, ea) == 0;
        }
        cJSON_Delete(u);
        if (!same) {
            perc_epoch_release(ep);
            ep = NULL;
        }
    }
    int ok = 0, total = 0, shown = 0;
    cJSON *picked = NULL;
    if (!q || !all || !cJSON_AddStringToObject(q, "css", query) ||
        (contains && contains[0] && !cJSON_AddStringToObject(q, "text", contains)) ||
        !cJSON_AddNumberToObject(q, "max", max) || !cJSON_AddBoolToObject(q, "visibleOnly", 1) ||
        !cJSON_AddBoolToObject(q, "selectors", 1)) {
        agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    /* The top document (shadow roots and same-origin frames included by the
     * script), then each cross-origin frame through its session. */
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = agent__search_frames(s, q, max, all, &total, err);
    if (e == BASE_EINVAL) {
        agent__failf(&r->rec, "bad_args", "'query' is not a valid CSS selector: %.200s", query);
        goto out;
    }
    if (e) {
        agent__failf(&r->rec, e != BASE_ENOMEM && !agent__page_ok(s) ? "page_gone" : "error",
                     "extract_with_index: %s", err);
        goto out;
    }
    cJSON *c;
    cJSON_ArrayForEach(c, all)
    {
        const char *frame_url = base_json_str(c, "frame_url", NULL);
        int mark = mark_of(ep, jstr(c, "xpath"), !frame_url && !jstr(c, "frame")[0]);
        if (!cJSON_AddNumberToObject(c, "mark", mark)) {
            agent__failf(&r->rec, "error", "out of memory");
            goto out;
        }
        ex_line(&lines, ++shown, c, mark, frame_url);
        base_buf_append_str(&texts, jstr(c, "text"));
        base_buf_append_str(&texts, "\n");
        if (shown == pick)
            picked = c;
    }
    if (!total) {
        agent__failf(&r->rec, "not_found", "no visible element matches '%.120s'%s%.120s%s", query,
                     contains ? " containing \"" : "", contains ? contains : "",
                     contains ? "\"" : "");
        goto out;
    }
    if (pick > shown) {
        agent__failf(&r->rec, "not_found", "no match [%d]: %d listed", pick, shown);
        goto out;
    }
    if (total > shown)
        base_buf_printf(&lines, "(%d more not listed: narrow the query or the text)\n",
                        total - shown);
    char why[128] = "";
    int meaningful = agent_text_meaningful(texts.data ? (char *)texts.data : "", why, sizeof why);
    /* pick: that match's text is the value (save_as keeps it). */
    const char *value = picked ? jstr(picked, "text") : lines.data ? (char *)lines.data : "";
    cJSON *d = data_with(r, value);
    if (!d || !add_num(r, d, "total", total) || !cJSON_AddBoolToObject(d, "meaningful", meaningful) ||
        !cJSON_AddItemToObject(d, "matches", all)) {
        if (d)
            agent__failf(&r->rec, "error", "out of memory");
        goto out;
    }
    all = NULL; /* d owns it */
    if (picked)
        agent__okf(&r->rec, "[%d] <%s> %s: %.120s", pick, jstr(picked, "tag"),
                   jstr(picked, "selector"), jstr(picked, "text"));
    else if (!meaningful)
        agent__okf(&r->rec, "%d match%s, no meaningful content (%s)", total,
                   total == 1 ? "" : "es", why);
    else
        agent__okf(&r->rec, "%d match%s%s", total, total == 1 ? "" : "es",
                   total > shown ? " (first ones listed)" : "");
    ok = 1;
out:
    if (ep)
        perc_epoch_release(ep);
    cJSON_Delete(q);
    cJSON_Delete(all);
    base_buf_fini(&lines);
    base_buf_fini(&texts);
    return ok;
}

const tool_def agent__tools_outline[] = {
    {"get_outline",
     "Read the page as an outline: landmark regions (BANNER, NAV, MAIN, ...), markdown headings, "
     "text lines with interactive elements as [n]<tag>name</tag> ([n] is the screenshot mark "
     "[Vn]). Regions unchanged since the last read print as one line; focus_region expands one.",
     "{\"type\": \"object\", \"properties\": {\"mode\": {\"type\": \"string\", \"enum\": "
     "[\"outline\", \"flat\"]}, \"max_chars\": {\"type\": \"integer\", \"minimum\": 200, "
     "\"maximum\": 1000000}, \"fresh\": {\"type\": \"boolean\", \"description\": \"no "
     "collapsing of unchanged regions\"}}}",
     0, t_get_outline, NULL},
    {"focus_region",
     "Show one region of the page outline in full, e.g. \"MAIN\", \"NAV:Primary\", "
     "\"SEARCH\" or \"#3\" (the third region).",
     "{\"type\": \"object\", \"properties\": {\"region\": {\"type\": \"string\", \"minLength\": "
     "1, \"maxLength\": 200}, \"max_chars\": {\"type\": \"integer\", \"minimum\": 200, "
     "\"maximum\": 1000000}}, \"required\": [\"region\"]}",
     0, t_focus_region, NULL},
    {"list_headings",
     "The page's table of contents: its headings with their region and element counts.",
     "{\"type\": \"object\", \"properties\": {}}", 0, t_list_headings, NULL},
    {"extract_with_index",
     "Pick by content: every visible element matching a wide CSS query (\"dt, dd, code, p\") "
     "whose text contains a string, as a numbered list (tag, [Vn] mark, stable selector, "
     "text, attributes; at most 80). Next turn: click_at \"[Vn]\", or pick: N to read match "
     "N's text as the value.",
     "{\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"string\", "
     "\"minLength\": 1, \"maxLength\": 1000}, \"contains\": {\"type\": \"string\", "
     "\"maxLength\": 500}, \"max\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": "
     "80}, \"pick\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 80}}, "
     "\"required\": [\"query\"]}",
     0, t_extract_with_index, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL},
};

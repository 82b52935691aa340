/* agent/session/outline.c: the outline's pure half (agent/session/outline.h): the page
 * script's reply as regions, lines and elements; rendering with region
 * collapsing; the content-keeping budget; the table of contents; region
 * lookup; the meaningful-output check. No I/O: tests feed canned replies.
 */
#include "agent/session/outline.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/json_get.h"

#define OL_MAX_REGIONS 2000
#define OL_MAX_LINES 40000
#define OL_MAX_ELS 10000

static const char *const KIND_NAMES[AGENT_OL_KIND_COUNT] = {
    "heading", "term", "definition", "pre", "code", "paragraph", "item", "cell", "controls", "text"};
/* The page script's short names, same order. */
static const char *const KIND_JS[AGENT_OL_KIND_COUNT] = {"h",    "term", "def",  "pre", "code",
                                                         "p",    "item", "cell", "ctl", "text"};

const char *agent_ol_kind_name(int kind)
{
    return kind >= 0 && kind < AGENT_OL_KIND_COUNT ? KIND_NAMES[kind] : "?";
}

static const struct {
    const char *role, *label;
} ROLE_LABELS[] = {
    {"banner", "BANNER"},         {"navigation", "NAV"},
    {"main", "MAIN"},             {"complementary", "COMPLEMENTARY"},
    {"contentinfo", "CONTENTINFO"}, {"search", "SEARCH"},
    {"form", "FORM"},             {"region", "REGION"},
};

const char *agent_ol_role_label(const char *role)
{
    for (size_t i = 0; i < sizeof ROLE_LABELS / sizeof ROLE_LABELS[0]; i++)
        if (strcmp(ROLE_LABELS[i].role, role) == 0)
            return ROLE_LABELS[i].label;
    return "REGION";
}

void agent_outline_init(agent_outline *o)
{
    memset(o, 0, sizeof *o);
}

void agent_outline_fini(agent_outline *o)
{
    if (!o)
        return;
    for (int i = 0; i < o->n_regions; i++)
        base_free(o->regions[i].name);
    for (int i = 0; i < o->n_lines; i++)
        base_free(o->lines[i].text);
    for (int i = 0; i < o->n_els; i++) {
        base_free(o->els[i].name);
        base_free(o->els[i].val);
        base_free(o->els[i].xp);
        base_free(o->els[i].frame);
    }
    base_free(o->regions);
    base_free(o->lines);
    base_free(o->els);
    memset(o, 0, sizeof *o);
}

/* ---- parse ---------------------------------------------------------------------- */

/* A string member, "" when absent (base/json_get.h). */
#define jstr(o, k) base_json_str((o), (k), "")

static double jnum(const cJSON *o, const char *k, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

/* An integer field in lo..hi, or dflt when absent; -2^31 when out of range. */
static int jint(const cJSON *o, const char *k, int lo, int hi, int dflt, int *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!v)
        return dflt;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi) {
        *bad = 1;
        return dflt;
    }
    return (int)v->valuedouble;
}

static int kind_of(const char *k)
{
    for (int i = 0; i < AGENT_OL_KIND_COUNT; i++)
        if (strcmp(KIND_JS[i], k) == 0)
            return i;
    return AGENT_OL_TEXT;
}

/* The line's parts as text with element references shifted by base. */
static char *line_text(const cJSON *parts, int base, int n_els_doc, int *bad)
{
    base_buf b;
    base_buf_init(&b, 1u << 20);
    const cJSON *p;
    cJSON_ArrayForEach(p, parts)
    {
        if (cJSON_IsString(p)) {
            /* The reference bytes never come from the page. */
            for (const char *c = p->valuestring; *c; c++)
                if (*c != '\x01' && *c != '\x02' && base_buf_append(&b, c, 1)) {
                    base_buf_fini(&b);
                    return NULL;
                }
        } else if (cJSON_IsNumber(p) && p->valuedouble >= 0 && p->valuedouble < n_els_doc) {
            if (base_buf_printf(&b, "\x01%d\x02", base + (int)p->valuedouble)) {
                base_buf_fini(&b);
                return NULL;
            }
        } else {
            *bad = 1;
        }
    }
    if (!b.data && base_buf_append(&b, "", 0)) {
        base_buf_fini(&b);
        return NULL;
    }
    return (char *)base_buf_steal(&b, NULL);
}

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

base_err agent_outline_parse(const cJSON *page, agent_outline *o, char *err)
{
    const cJSON *jr = cJSON_GetObjectItemCaseSensitive(page, "regions");
    const cJSON *je = cJSON_GetObjectItemCaseSensitive(page, "els");
    const cJSON *jl = cJSON_GetObjectItemCaseSensitive(page, "lines");
    if (!cJSON_IsObject(page) || !cJSON_IsArray(jr) || !cJSON_IsArray(je) || !cJSON_IsArray(jl))
        return base_errf(err, BASE_EPROTO,
                         "outline: the page reply lacks regions, els or lines arrays");
    int nr = cJSON_GetArraySize(jr), ne = cJSON_GetArraySize(je), nl = cJSON_GetArraySize(jl);
    if (o->n_regions + nr > OL_MAX_REGIONS || o->n_els + ne > OL_MAX_ELS ||
        o->n_lines + nl > OL_MAX_LINES)
        return base_errf(err, BASE_EPROTO, "outline: the page has too many regions, elements or "
                                           "lines (%d, %d, %d)",
                         o->n_regions + nr, o->n_els + ne, o->n_lines + nl);
    agent_ol_region *R = base_realloc(o->regions, (size_t)(o->n_regions + nr + 1) * sizeof *R);
    if (R)
        o->regions = R;
    agent_ol_el *E = base_realloc(o->els, (size_t)(o->n_els + ne + 1) * sizeof *E);
    if (E)
        o->els = E;
    agent_ol_line *L = base_realloc(o->lines, (size_t)(o->n_lines + nl + 1) * sizeof *L);
    if (L)
        o->lines = L;
    if (!R || !E || !L)
        return base_errf(err, BASE_ENOMEM, "outline: out of memory");
    int r0 = o->n_regions, e0 = o->n_els, l0 = o->n_lines, bad = 0;
    const char *badf = "";
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, jr)
    {
        agent_ol_region *g = &R[r0 + i];
        memset(g, 0, sizeof *g);
        copy(g->role, sizeof g->role, jstr(x, "role"));
        g->name = base_strdup(jstr(x, "name"));
        int par = jint(x, "parent", -1, i - 1, -1, &bad);
        g->parent = par >= 0 ? r0 + par : -1;
        g->at = l0 + jint(x, "at", 0, nl, 0, &bad);
        g->depth = g->parent >= 0 ? R[g->parent].depth + 1 : 0;
        if (!g->name)
            goto nomem_r;
        i++;
        o->n_regions = r0 + i;
        if (bad && !badf[0])
            badf = "regions";
    }
    i = 0;
    cJSON_ArrayForEach(x, je)
    {
        agent_ol_el *el = &E[e0 + i];
        memset(el, 0, sizeof *el);
        copy(el->tag, sizeof el->tag, jstr(x, "tag"));
        copy(el->role, sizeof el->role, jstr(x, "role"));
        copy(el->type, sizeof el->type, jstr(x, "type"));
        el->name = base_strdup(jstr(x, "name"));
        el->val = base_strdup(jstr(x, "val"));
        el->xp = base_strdup(jstr(x, "xp"));
        el->frame = base_strdup(jstr(x, "frame"));
        double ex = jnum(x, "x", 0), ey = jnum(x, "y", 0), ew = jnum(x, "w", 0), eh = jnum(x, "h", 0);
        el->r = (base_rect){(float)ex, (float)ey, (float)(ex + ew), (float)(ey + eh)};
        i++;
        o->n_els = e0 + i;
        if (!el->name || !el->val || !el->xp || !el->frame)
            goto nomem_r;
    }
    i = 0;
    cJSON_ArrayForEach(x, jl)
    {
        agent_ol_line *ln = &L[l0 + i];
        memset(ln, 0, sizeof *ln);
        int reg = jint(x, "r", -1, nr - 1, -1, &bad);
        ln->region = reg >= 0 ? r0 + reg : -1;
        ln->kind = kind_of(jstr(x, "k"));
        ln->level = jint(x, "lv", 0, 6, 0, &bad);
        const cJSON *parts = cJSON_GetObjectItemCaseSensitive(x, "p");
        if (!cJSON_IsArray(parts)) {
            bad = 1;
            badf = "lines";
        }
        ln->text = line_text(parts, e0, ne, &bad);
        if (!ln->text)
            goto nomem_r;
        i++;
        o->n_lines = l0 + i;
        if (bad && !badf[0])
            badf = "lines";
    }
    if (bad) {
        /* Drop what this document added: the reply is not the script's. */
        agent_outline tail = {0};
        tail.regions = R + r0;
        tail.n_regions = o->n_regions - r0;
        tail.els = E + e0;
        tail.n_els = o->n_els - e0;
        tail.lines = L + l0;
        tail.n_lines = o->n_lines - l0;
        for (int k = 0; k < tail.n_regions; k++)
            base_free(tail.regions[k].name);
        for (int k = 0; k < tail.n_lines; k++)
            base_free(tail.lines[k].text);
        for (int k = 0; k < tail.n_els; k++) {
            base_free(tail.els[k].name);
            base_free(tail.els[k].val);
            base_free(tail.els[k].xp);
            base_free(tail.els[k].frame);
        }
        o->n_regions = r0;
        o->n_els = e0;
        o->n_lines = l0;
        return base_errf(err, BASE_EPROTO, "outline: malformed %s in the page reply",
                         badf[0] ? badf : "lines");
    }
    if (!o->url[0])
        copy(o->url, sizeof o->url, jstr(page, "url"));
    if (!o->title[0])
        copy(o->title, sizeof o->title, jstr(page, "title"));
    return BASE_OK;
nomem_r:
    return base_errf(err, BASE_ENOMEM, "outline: out of memory");
}

/* ---- join, numbering, digests ------------------------------------------------------ */

/* The element index of a reference "\x01" digits "\x02" at p; -1 if malformed. */
static int ref_at(const char *p)
{
    int v = 0, any = 0;
    for (p++; *p >= '0' && *p <= '9' && v < OL_MAX_ELS * 10; p++) {
        v = v * 10 + (*p - '0');
        any = 1;
    }
    return any && *p == '\x02' ? v : -1;
}

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    h ^= 0xff; /* a separator, so "ab"+"c" differs from "a"+"bc" */
    h *= 1099511628211ull;
    return h;
}

/* fnv of s with the element references ("\x01" n "\x02") left out. */
static uint64_t fnv_plain(uint64_t h, const char *s)
{
    for (; *s; s++) {
        if (*s == '\x01') {
            const char *q = strchr(s, '\x02');
            if (!q)
                break;
            s = q;
            h ^= 0x01;
            h *= 1099511628211ull;
            continue;
        }
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static int is_field(const agent_ol_el *e)
{
    static const char *const F[] = {"textbox", "searchbox", "combobox", "listbox", "checkbox",
                                    "radio", "slider", "spinbutton", "switch"};
    if (!strcmp(e->tag, "input") || !strcmp(e->tag, "select") || !strcmp(e->tag, "textarea"))
        return !(!strcmp(e->role, "button"));
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++)
        if (!strcmp(e->role, F[i]))
            return 1;
    return 0;
}

static double rect_dist(base_rect a, base_rect b)
{
    return fabs(a.x0 - b.x0) + fabs(a.y0 - b.y0) + fabs(a.x1 - b.x1) + fabs(a.y1 - b.y1);
}

void agent_outline_join(agent_outline *o, const perc_epoch *ep)
{
    o->max_mark = 0;
    for (int i = 0; i < o->n_els; i++)
        o->els[i].mark = 0;
    /* Marks of another page (an epoch from before a navigation) would join
     * by coincidence of xpaths: only the same URL, fragment aside. */
    if (ep && ep->url[0] && o->url[0]) {
        size_t a = strcspn(ep->url, "#"), b = strcspn(o->url, "#");
        if (a != b || strncmp(ep->url, o->url, a) != 0)
            ep = NULL;
    }
    if (ep) {
        for (int b = 0; b < ep->n; b++) {
            const perc_box *bx = &ep->boxes[b];
            if (bx->dom_index < 0 || bx->dom_index >= ep->n_map)
                continue;
            const perc_selector *m = &ep->map[bx->dom_index];
            int best = -1;
            double bd = 0;
            for (int i = 0; i < o->n_els; i++) {
                agent_ol_el *e = &o->els[i];
                if (e->mark || strcmp(e->xp, m->xpath) != 0)
                    continue;
                /* Top document to top document; a frame's element to a frame's. */
                if ((m->frame_id[0] == '\0') != (e->frame[0] == '\0'))
                    continue;
                double d = rect_dist(e->r, m->r);
                if (best < 0 || d < bd) {
                    best = i;
                    bd = d;
                }
            }
            if (best >= 0) {
                o->els[best].mark = bx->id;
                if (bx->id > o->max_mark)
                    o->max_mark = bx->id;
            }
        }
    }
    int next = o->max_mark;
    /* Reading order is line order; an element on no line keeps its mark or 0. */
    for (int i = 0; i < o->n_els; i++)
        o->els[i].n = o->els[i].mark;
    for (int l = 0; l < o->n_lines; l++) {
        for (const char *p = strchr(o->lines[l].text, '\x01'); p; p = strchr(p + 1, '\x01')) {
            int idx = ref_at(p);
            if (idx >= 0 && idx < o->n_els && o->els[idx].n == 0)
                o->els[idx].n = ++next;
        }
    }
    /* Digests and counts, children after parents: walk regions backwards. */
    for (int r = 0; r < o->n_regions; r++) {
        agent_ol_region *g = &o->regions[r];
        g->n_links = g->n_buttons = g->n_fields = g->n_other = g->n_lines = 0;
        g->digest = fnv(1469598103934665603ull, g->role);
        g->digest = fnv(g->digest, g->name);
        g->ndigest = 1469598103934665603ull;
    }
    for (int l = 0; l < o->n_lines; l++) {
        const agent_ol_line *ln = &o->lines[l];
        if (ln->region < 0)
            continue;
        /* The line's text without its local element numbers, and its
         * elements by identity, into every enclosing region. */
        uint64_t h = fnv_plain(1469598103934665603ull, ln->text);
        uint64_t hn = 1469598103934665603ull;
        int nl = 0, nb = 0, nf = 0, no = 0;
        for (const char *p = strchr(ln->text, '\x01'); p; p = strchr(p + 1, '\x01')) {
            int idx = ref_at(p);
            if (idx < 0 || idx >= o->n_els)
                continue;
            const agent_ol_el *e = &o->els[idx];
            h = fnv(fnv(fnv(fnv(fnv(h, e->tag), e->xp), e->frame), e->name), e->val);
            hn = (hn ^ (uint64_t)(unsigned)e->n) * 1099511628211ull;
            if (!strcmp(e->role, "link"))
                nl++;
            else if (is_field(e))
                nf++;
            else if (!strcmp(e->role, "button"))
                nb++;
            else
                no++;
        }
        for (int r = ln->region; r >= 0; r = o->regions[r].parent) {
            agent_ol_region *g = &o->regions[r];
            g->digest = (g->digest ^ h) * 1099511628211ull;
            g->ndigest = (g->ndigest ^ hn) * 1099511628211ull;
            g->n_links += nl;
            g->n_buttons += nb;
            g->n_fields += nf;
            g->n_other += no;
            g->n_lines++;
        }
    }
    /* Occurrence numbers among regions of the same role and name. */
    for (int r = 0; r < o->n_regions; r++) {
        agent_ol_region *g = &o->regions[r];
        g->occ = 0;
        for (int k = 0; k < r; k++)
            if (!strcmp(o->regions[k].role, g->role) && !strcmp(o->regions[k].name, g->name))
                g->occ++;
    }
}

/* ---- signatures -------------------------------------------------------------------- */

void agent_outline_sig_init(agent_outline_sig *s)
{
    memset(s, 0, sizeof *s);
}

void agent_outline_sig_fini(agent_outline_sig *s)
{
    if (!s)
        return;
    base_free(s->r);
    memset(s, 0, sizeof *s);
}

base_err agent_outline_sig_copy(agent_outline_sig *dst, const agent_outline_sig *src, char *err)
{
    struct agent_ol_sig *v = base_calloc(src->n > 0 ? (size_t)src->n : 1, sizeof *v);
    if (!v)
        return base_errf(err, BASE_ENOMEM, "outline: out of memory");
    if (src->n > 0)
        memcpy(v, src->r, (size_t)src->n * sizeof *v);
    base_free(dst->r);
    memcpy(dst->url, src->url, sizeof dst->url);
    dst->n = src->n;
    dst->r = v;
    return BASE_OK;
}

base_err agent_outline_sig_take(const agent_outline *o, const agent_ol_lines *shown,
                                agent_outline_sig *s, char *err)
{
    struct agent_ol_sig *v = base_calloc(o->n_regions > 0 ? (size_t)o->n_regions : 1, sizeof *v);
    if (!v)
        return base_errf(err, BASE_ENOMEM, "outline: out of memory");
    for (int r = 0; r < o->n_regions; r++) {
        copy(v[r].role, sizeof v[r].role, o->regions[r].role);
        copy(v[r].name, sizeof v[r].name, o->regions[r].name);
        v[r].occ = o->regions[r].occ;
        v[r].digest = o->regions[r].digest;
        v[r].ndigest = o->regions[r].ndigest;
        v[r].full = 1;
    }
    /* A region the model did not get whole — shown as one "unchanged" line
     * (its text is one read further back, which the context may no longer
     * hold) or with lines the budget dropped — is not full, nor is any
     * region around it. A region the render never reached (focus on
     * another) was not shown at all. */
    if (shown) {
        char *seen = base_calloc(o->n_regions > 0 ? (size_t)o->n_regions : 1, 1);
        if (!seen) {
            base_free(v);
            return base_errf(err, BASE_ENOMEM, "outline: out of memory");
        }
        for (int i = 0; i < shown->n; i++) {
            const agent_ol_out *x = &shown->v[i];
            if (x->region < 0 || x->region >= o->n_regions)
                continue;
            seen[x->region] = 1;
            if (x->kept && !x->collapsed)
                continue;
            for (int r = x->region; r >= 0; r = o->regions[r].parent)
                v[r].full = 0;
        }
        for (int r = 0; r < o->n_regions; r++)
            if (!seen[r])
                v[r].full = 0;
        base_free(seen);
    }
    base_free(s->r);
    s->r = v;
    s->n = o->n_regions;
    copy(s->url, sizeof s->url, o->url);
    return BASE_OK;
}

/* 0: changed (or no previous read, or the previous read did not show it
 * whole); 1: unchanged, same [n] numbers; 2: unchanged content whose
 * elements were renumbered (the view moved, so the marks did): the model
 * must not act on the numbers it remembers. A region whose lines the last
 * read dropped for budget is never "unchanged": the model never saw them. */
static int unchanged(const agent_outline_sig *prev, const agent_ol_region *g)
{
    if (!prev)
        return 0;
    for (int i = 0; i < prev->n; i++) {
        const struct agent_ol_sig *p = &prev->r[i];
        if (p->occ == g->occ && p->digest == g->digest && !strcmp(p->role, g->role) &&
            !strncmp(p->name, g->name, sizeof p->name - 1))
            return !p->full ? 0 : p->ndigest == g->ndigest ? 1 : 2;
    }
    return 0;
}

/* ---- rendering --------------------------------------------------------------------- */

void agent_ol_lines_fini(agent_ol_lines *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++)
        base_free(l->v[i].text);
    base_free(l->v);
    memset(l, 0, sizeof *l);
}

static base_err push(agent_ol_lines *l, base_buf *b, int kind, int prio, int region,
                     char *err)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 64;
        agent_ol_out *v = base_realloc(l->v, (size_t)nc * sizeof *v);
        if (!v) {
            base_buf_reset(b);
            return base_errf(err, BASE_ENOMEM, "outline: out of memory");
        }
        l->v = v;
        l->cap = nc;
    }
    if (!b->data && base_buf_append(b, "", 0))
        return base_errf(err, BASE_ENOMEM, "outline: out of memory");
    char *t = (char *)base_buf_steal(b, NULL);
    if (!t)
        return base_errf(err, BASE_ENOMEM, "outline: out of memory");
    l->v[l->n++] = (agent_ol_out){t, kind, prio, region, 0, 0};
    return BASE_OK;
}

static void indent(base_buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        base_buf_append_str(b, "  ");
}

/* The tag an element prints as: native controls by tag, others by role. */
static const char *shown_tag(const agent_ol_el *e)
{
    static const char *const NATIVE[] = {"a", "button", "input", "select", "textarea", "summary",
                                         "option"};
    for (size_t i = 0; i < sizeof NATIVE / sizeof NATIVE[0]; i++)
        if (!strcmp(e->tag, NATIVE[i]))
            return e->tag;
    return e->role[0] ? e->role : e->tag;
}

/* Appends line ln's text with its elements as [n]<tag>name</tag>; sets
 * *marked when an element has a vision mark (it is on the screenshot). */
static void line_body(const agent_outline *o, const agent_ol_line *ln, base_buf *b, int *marked)
{
    const char *s = ln->text;
    while (*s) {
        const char *p = strchr(s, '\x01');
        if (!p) {
            base_buf_append_str(b, s);
            break;
        }
        base_buf_append(b, s, (size_t)(p - s));
        int idx = ref_at(p);
        const char *q = strchr(p, '\x02');
        s = q ? q + 1 : p + strlen(p);
        if (idx < 0 || idx >= o->n_els)
            continue;
        const agent_ol_el *e = &o->els[idx];
        if (e->mark)
            *marked = 1;
        const char *t = shown_tag(e);
        /* Two controls with nothing between them still read as two. */
        if (b->len > 0 && b->data[b->len - 1] == '>')
            base_buf_append_str(b, " ");
        base_buf_printf(b, "[%d]<%s", e->n, t);
        if (e->type[0] && strcmp(e->type, "text") != 0)
            base_buf_printf(b, " type=%s", e->type);
        if (e->val[0])
            base_buf_printf(b, " value=\"%s\"", e->val);
        base_buf_printf(b, ">%s</%s>", e->name, t);
    }
}

int agent_ol_prio(int kind, int marked)
{
    /* What is on the screenshot comes first: the model acts on it now, and
     * a long page's off-screen signatures must not crowd it out (python3-doc
     * os.html showed 27 of its 66 marks when they ranked alike). Terms carry
     * signatures and names: short, dense, what a reader scans for;
     * definitions, code and preformatted lines hold the values. */
    if (marked)
        return 1;
    switch (kind) {
    case AGENT_OL_HEADING:
    case AGENT_OL_TERM:
        return 2;
    case AGENT_OL_DEF:
    case AGENT_OL_PRE:
    case AGENT_OL_CODE:
        return 3;
    case AGENT_OL_PARA:
        return 4;
    case AGENT_OL_CTL:
        return 5;
    case AGENT_OL_ITEM:
    case AGENT_OL_CELL:
        return 6;
    default:
        return 7;
    }
}

static base_err emit_line(const agent_outline *o, int l, int depth, agent_ol_lines *out, char *err)
{
    const agent_ol_line *ln = &o->lines[l];
    base_buf b;
    base_buf_init(&b, 1u << 20);
    indent(&b, depth);
    if (ln->kind == AGENT_OL_HEADING) {
        for (int i = 0; i < (ln->level > 0 ? ln->level : 2); i++)
            base_buf_append_str(&b, "#");
        base_buf_append_str(&b, " ");
    } else if (ln->kind == AGENT_OL_PRE) {
        /* A Markdown code block: a "# comment" in a code sample must not
         * read as a heading. */
        base_buf_append_str(&b, "    ");
    }
    int marked = 0;
    line_body(o, ln, &b, &marked);
    while (b.len > 0 && b.data[b.len - 1] == ' ')
        b.data[--b.len] = '\0';
    base_err e = push(out, &b, ln->kind, agent_ol_prio(ln->kind, marked), ln->region, err);
    base_buf_fini(&b);
    return e;
}

static void counts(base_buf *b, const agent_ol_region *g)
{
    const struct {
        int n;
        const char *one, *many;
    } c[] = {{g->n_links, "link", "links"},
             {g->n_buttons, "button", "buttons"},
             {g->n_fields, "field", "fields"},
             {g->n_other, "other control", "other controls"}};
    int any = 0;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (!c[i].n)
            continue;
        base_buf_printf(b, ", %d %s", c[i].n, c[i].n == 1 ? c[i].one : c[i].many);
        any = 1;
    }
    if (!any)
        base_buf_printf(b, ", %d line%s", g->n_lines, g->n_lines == 1 ? "" : "s");
}

static base_err header(const agent_outline *o, int r, int depth, int collapsed,
                       agent_ol_lines *out, char *err)
{
    const agent_ol_region *g = &o->regions[r];
    base_buf b;
    base_buf_init(&b, 1u << 16);
    indent(&b, depth);
    base_buf_append_str(&b, agent_ol_role_label(g->role));
    base_buf_append_str(&b, ":");
    if (g->name[0])
        base_buf_printf(&b, " \"%s\"", g->name);
    if (collapsed) {
        base_buf_append_str(&b, " (unchanged");
        counts(&b, g);
        if (collapsed == 2 && g->n_links + g->n_buttons + g->n_fields + g->n_other > 0)
            base_buf_append_str(&b, "; renumbered: focus_region for the new [n]");
        base_buf_append_str(&b, ")");
    }
    base_err e = push(out, &b, -1, 0, r, err);
    if (!e && collapsed)
        out->v[out->n - 1].collapsed = 1;
    base_buf_fini(&b);
    return e;
}

static base_err render_region(const agent_outline *o, const agent_outline_sig *prev, int r,
                              int depth, agent_ol_lines *out, char *err)
{
    const agent_ol_region *g = &o->regions[r];
    int u = unchanged(prev, g);
    if (u)
        return header(o, r, depth, u, out, err);
    base_err e = header(o, r, depth, 0, out, err);
    /* Its own lines and its sub-regions, in reading order. */
    int c = r + 1;
    for (int l = g->at; l <= o->n_lines && !e; l++) {
        while (!e && c < o->n_regions && o->regions[c].at <= l) {
            if (o->regions[c].parent == r)
                e = render_region(o, prev, c, depth + 1, out, err);
            c++;
        }
        if (e || l == o->n_lines)
            break;
        if (o->lines[l].region == r)
            e = emit_line(o, l, depth + 1, out, err);
        else {
            /* Past the region's end once a line belongs to no descendant. */
            int in = 0;
            for (int k = o->lines[l].region; k >= 0; k = o->regions[k].parent)
                if (k == r)
                    in = 1;
            if (!in)
                break;
        }
    }
    return e;
}

static base_err struct_line(agent_ol_lines *out, const char *text, char *err)
{
    base_buf b;
    base_buf_init(&b, 1u << 16);
    base_buf_append_str(&b, text);
    base_err e = push(out, &b, -1, 0, -1, err);
    base_buf_fini(&b);
    return e;
}

base_err agent_outline_render(const agent_outline *o, const agent_outline_sig *prev, int mode,
                              int focus, agent_ol_lines *out, char *err)
{
    memset(out, 0, sizeof *out);
    base_err e = BASE_OK;
    if (focus >= 0) {
        if (focus >= o->n_regions)
            return base_errf(err, BASE_EINVAL, "outline: no region %d", focus);
        e = render_region(o, NULL, focus, 0, out, err);
    } else if (mode == AGENT_OL_FLAT) {
        for (int l = 0; l < o->n_lines && !e; l++)
            e = emit_line(o, l, 0, out, err);
    } else {
        char top[1400];
        snprintf(top, sizeof top, "=== PAGE OUTLINE: %.200s — %.1000s ===", o->title, o->url);
        e = struct_line(out, top, err);
        if (!e && o->max_mark > 0) {
            snprintf(top, sizeof top,
                     "([n] is the screenshot's mark [Vn] for n <= %d; a larger n is not on "
                     "screen now: scroll to it or name it by its text)",
                     o->max_mark);
            e = struct_line(out, top, err);
        }
        for (int r = 0; r < o->n_regions && !e; r++)
            if (o->regions[r].parent < 0)
                e = render_region(o, prev, r, 0, out, err);
        int any = 0;
        for (int l = 0; l < o->n_lines && !e; l++) {
            if (o->lines[l].region >= 0)
                continue;
            if (!any && (e = struct_line(out, "(ungrouped):", err)))
                break;
            any = 1;
            e = emit_line(o, l, 1, out, err);
        }
        if (!e)
            e = struct_line(out, "=== END OUTLINE ===", err);
    }
    if (e)
        agent_ol_lines_fini(out);
    return e;
}

/* ---- budget -------------------------------------------------------------------------- */

/* What one "  … N lines omitted (budget C chars)" marker costs, at most. */
#define MARKER_CHARS 48

base_err agent_outline_budget(agent_ol_lines *l, int cap_chars, base_buf *out,
                              agent_ol_budget *st, char *err)
{
    agent_ol_budget s;
    memset(&s, 0, sizeof s);
    s.cap_chars = cap_chars;
    s.in_lines = l->n;
    char *keep = base_calloc(l->n > 0 ? (size_t)l->n : 1, 1);
    if (!keep)
        return base_errf(err, BASE_ENOMEM, "outline: out of memory");
    for (int i = 0; i < l->n; i++) {
        s.in_chars += (int)strlen(l->v[i].text) + 1;
        if (l->v[i].kind >= 0 && l->v[i].kind < AGENT_OL_KIND_COUNT)
            s.kind_in[l->v[i].kind]++;
    }
    if (cap_chars <= 0 || s.in_chars <= cap_chars) {
        memset(keep, 1, (size_t)l->n);
    } else {
        /* Greedy by priority, counting the omission markers exactly: a line
         * kept inside a run of dropped lines splits it (one more marker),
         * at its edge shortens it (no change), alone in it removes it (one
         * fewer). At first everything is one dropped run. */
        int used = l->n > 0 ? MARKER_CHARS : 0;
        for (int prio = 0; prio <= AGENT_OL_PRIO_MAX; prio++) {
            for (int i = 0; i < l->n; i++) {
                if (l->v[i].prio != prio)
                    continue;
                int left = i > 0 && !keep[i - 1], right = i + 1 < l->n && !keep[i + 1];
                int cost = (int)strlen(l->v[i].text) + 1 +
                           (left && right ? MARKER_CHARS : !left && !right ? -MARKER_CHARS : 0);
                /* Structure is always kept; the rest while it fits. */
                if (prio == 0 || used + cost <= cap_chars) {
                    keep[i] = 1;
                    used += cost;
                }
            }
        }
    }
    base_err e = BASE_OK;
    size_t start = out->len;
    for (int i = 0; i < l->n; i++)
        l->v[i].kept = keep[i];
    for (int i = 0; i < l->n && !e; i++) {
        if (keep[i]) {
            s.kept_lines++;
            if (l->v[i].kind >= 0 && l->v[i].kind < AGENT_OL_KIND_COUNT)
                s.kind_kept[l->v[i].kind]++;
            e = base_buf_append_str(out, l->v[i].text);
            if (!e)
                e = base_buf_append_str(out, "\n");
            continue;
        }
        int j = i;
        while (j < l->n && !keep[j])
            j++;
        e = base_buf_printf(out, "  … %d line%s omitted (budget %d chars)\n", j - i,
                            j - i == 1 ? "" : "s", cap_chars);
        i = j - 1;
    }
    base_free(keep);
    if (e)
        return base_errf(err, e, "outline: output too large");
    s.out_chars = (int)(out->len - start);
    if (st)
        *st = s;
    return BASE_OK;
}

/* ---- headings, regions ----------------------------------------------------------------- */

static int line_els(const agent_ol_line *ln)
{
    int n = 0;
    for (const char *p = strchr(ln->text, '\x01'); p; p = strchr(p + 1, '\x01'))
        n++;
    return n;
}

/* Is region r (-1 = none) region a or inside it? Lines outside every
 * region belong to no heading's landmark but their own (-1). */
static int inside(const agent_outline *o, int r, int a)
{
    if (a < 0)
        return r < 0;
    for (; r >= 0; r = o->regions[r].parent)
        if (r == a)
            return 1;
    return 0;
}

/* The top-level region label a line is in ("MAIN", or "" when none). */
static void region_label(const agent_outline *o, int r, char *buf, size_t n)
{
    if (r < 0) {
        snprintf(buf, n, "ungrouped");
        return;
    }
    const agent_ol_region *g = &o->regions[r];
    if (g->name[0])
        snprintf(buf, n, "%s \"%.60s\"", agent_ol_role_label(g->role), g->name);
    else
        snprintf(buf, n, "%s", agent_ol_role_label(g->role));
}

base_err agent_outline_headings(const agent_outline *o, base_buf *out, char *err)
{
    base_err e = BASE_OK;
    int any = 0;
    for (int l = 0; l < o->n_lines && !e; l++) {
        const agent_ol_line *ln = &o->lines[l];
        if (ln->kind != AGENT_OL_HEADING)
            continue;
        int lv = ln->level > 0 ? ln->level : 2, n = line_els(ln);

        for (int k = l + 1; k < o->n_lines; k++) {
            const agent_ol_line *x = &o->lines[k];
            if (x->kind == AGENT_OL_HEADING && (x->level > 0 ? x->level : 2) <= lv)
                break;
            /* A heading's section ends with its landmark (seed 000: headings
             * are scoped to their region). */
            if (!inside(o, x->region, ln->region))
                break;
            n += line_els(x);
        }
        char where[128];
        region_label(o, ln->region, where, sizeof where);
        base_buf b;
        base_buf_init(&b, 1u << 16);
        int marked = 0;
        line_body(o, ln, &b, &marked);
        for (int i = 0; i < lv; i++)
            e = e ? e : base_buf_append_str(out, "#");
        if (!e)
            e = base_buf_printf(out, " %s (%s, %d element%s)\n", b.data ? (char *)b.data : "",
                                where, n, n == 1 ? "" : "s");
        base_buf_fini(&b);
        any = 1;
    }
    if (!e && !any)
        e = base_buf_append_str(out, "(no headings)\n");
    return e ? base_errf(err, e, "outline: output too large") : BASE_OK;
}

/* Case-insensitive: does hay contain needle? */
static int icontains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n)
        return 1;
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

int agent_outline_find_region(const agent_outline *o, const char *spec, char *why, size_t n)
{
    if (why && n)
        why[0] = '\0';
    while (*spec == ' ')
        spec++;
    if (spec[0] == '#') {
        char *end = NULL;
        long k = strtol(spec + 1, &end, 10);
        return end != spec + 1 && k >= 1 && k <= o->n_regions ? (int)k - 1 : -1;
    }
    /* ROLE, then an optional name after ':' or a space, quotes dropped. */
    char role[32] = "", name[160] = "";
    size_t i = 0;
    while (spec[i] && spec[i] != ':' && spec[i] != ' ' && i + 1 < sizeof role) {
        role[i] = spec[i];
        i++;
    }
    role[i] = '\0';
    const char *rest = spec + i;
    while (*rest == ':' || *rest == ' ' || *rest == '"')
        rest++;
    snprintf(name, sizeof name, "%s", rest);
    size_t nl = strlen(name);
    while (nl > 0 && (name[nl - 1] == '"' || name[nl - 1] == ' '))
        name[--nl] = '\0';
    int found = -1, count = 0, exact = -1;
    for (int r = 0; r < o->n_regions; r++) {
        const agent_ol_region *g = &o->regions[r];
        if (strcasecmp(role, g->role) != 0 && strcasecmp(role, agent_ol_role_label(g->role)) != 0)
            continue;
        if (!icontains(g->name, name))
            continue;
        if (name[0] && strcasecmp(g->name, name) == 0 && exact < 0)
            exact = r;
        if (found < 0)
            found = r;
        count++;
    }
    if (exact >= 0)
        return exact;
    if (count > 1) {
        if (why && n) {
            size_t u = (size_t)snprintf(why, n, "%d regions match '%s':", count, spec);
            for (int r = 0; r < o->n_regions && u < n; r++) {
                const agent_ol_region *g = &o->regions[r];
                if ((strcasecmp(role, g->role) == 0 ||
                     strcasecmp(role, agent_ol_role_label(g->role)) == 0) &&
                    icontains(g->name, name))
                    u += (size_t)snprintf(why + u, n - u, " #%d %s \"%s\";", r + 1,
                                          agent_ol_role_label(g->role), g->name);
            }
        }
        return -2;
    }
    return found;
}

/* ---- meaningful output ----------------------------------------------------------------- */

/* Lines that say nothing about a page's content. Compared lower-cased,
 * trimmed, with trailing dots and ellipses dropped. */
static const char *const BOILERPLATE[] = {
    "loading", "please wait", "skip to content", "skip to main content", "skip navigation",
    "menu", "close", "accept", "accept all", "reject all", "ok", "got it",
    "we use cookies", "this site uses cookies", "cookie settings", "cookies",
    "all rights reserved", "privacy policy", "terms of service", "terms of use", "back to top",
    "javascript is required", "please enable javascript", "enable javascript to continue",
    "you need to enable javascript to run this app", "n/a", "none", "-", "—", "…", "...",
    "null", "undefined", "nan", "true", "false",
};

static int boiler_line(const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && (isspace((unsigned char)s[len - 1]) || s[len - 1] == '.'))
        len--;
    /* "…" (3 bytes) at the end. */
    while (len >= 3 && memcmp(s + len - 3, "\xe2\x80\xa6", 3) == 0)
        len -= 3;
    if (!len)
        return 1;
    /* Copyright lines: "© 2026 Acme", "Copyright 2026 ...". */
    if ((len >= 2 && memcmp(s, "\xc2\xa9", 2) == 0) || (len >= 9 && !strncasecmp(s, "copyright", 9)))
        return 1;
    for (size_t i = 0; i < sizeof BOILERPLATE / sizeof BOILERPLATE[0]; i++)
        if (strlen(BOILERPLATE[i]) == len && strncasecmp(s, BOILERPLATE[i], len) == 0)
            return 1;
    return 0;
}

/* A JSON value with nothing in it: null, "", whitespace, {}, [], or only those. */
static int json_empty(const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return 1;
    if (cJSON_IsString(v)) {
        for (const char *c = v->valuestring; *c; c++)
            if (!isspace((unsigned char)*c))
                return boiler_line(v->valuestring, strlen(v->valuestring));
        return 1;
    }
    if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
        const cJSON *c;
        cJSON_ArrayForEach(c, v)
        {
            if (!json_empty(c))
                return 0;
        }
        return 1;
    }
    return 0;
}

int agent_text_meaningful(const char *text, char *why, size_t n)
{
    const char *w = NULL;
    if (!text || !text[0]) {
        w = "empty";
    } else {
        const char *c = text;
        while (*c && isspace((unsigned char)*c))
            c++;
        if (!*c) {
            w = "only whitespace";
        } else if (*c == '{' || *c == '[' || *c == '"') {
            cJSON *v = cJSON_Parse(c);
            if (v && json_empty(v))
                w = cJSON_IsObject(v) || cJSON_IsArray(v) ? "a JSON value with only empty fields"
                                                         : "an empty string";
            cJSON_Delete(v);
        }
        if (!w) {
            int all = 1;
            for (const char *s = c; *s && all;) {
                const char *e = strchr(s, '\n');
                size_t len = e ? (size_t)(e - s) : strlen(s);
                if (!boiler_line(s, len))
                    all = 0;
                s = e ? e + 1 : s + len;
            }
            if (all)
                w = "only boilerplate (null-like words, cookie, loading or copyright lines)";
        }
    }
    if (why && n)
        snprintf(why, n, "%s", w ? w : "");
    return w == NULL;
}

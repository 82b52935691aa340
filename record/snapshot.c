/* record/snapshot.c: a live page -> a self-contained page model -> a
 * snap_scene.
 *
 * Capture. One DOMSnapshot.captureSnapshot per renderer session (the page's
 * own, then every out-of-process iframe's) gives, per document, the node tree,
 * the layout rects in that document's coordinates, a paint order and the
 * computed styles hit testing needs. DOM.getDocument(pierce) on the same
 * session gives the same nodes (matched by backendNodeId) with their shadow
 * roots and the frame id of every iframe's content, from which the xpaths and
 * the iframe -> child document links come. The documents are then flattened
 * top-down: a child document's rects are shifted by the iframe's content-box
 * origin (border + padding) and its own scroll, clipped to that box, and its
 * elements are placed in paint order right after the iframe that shows them
 * (the raw paint orders number each document separately, so a modal of the
 * parent drawn after the iframe must stay in front of the iframe's content).
 *
 * Overflow clips follow containing blocks: a statically positioned element is
 * clipped by its parent's clip, an absolutely positioned one by that of its
 * nearest positioned (or transformed) ancestor, a fixed one only by the frame.
 *
 * What the page kit decides (role, interactive, listener, accessible name,
 * icon hint) is not computed here: the kit answers in the page
 * (assets/js/kit_dump.js, one evaluate per session) and its answers are
 * stored as they are, so replay and the live probe agree by construction.
 * The text and aria fields are the DOMSnapshot's laid-out text.
 *
 * The saved form is fovea's own, compact and stable:
 *   {"format":"fovea-snapshot/1","url":"..","viewport":[w,h],"dsf":1,
 *    "scroll":[x,y],"missing_frames":0,"frames":["","/html[1]/body[1]/iframe[1]"],
 *    "nodes":[{"p":-1,"t":"html","r":[x0,y0,x1,y1],"o":3,"x":"/html[1]","f":0,
 *              "role":"","text":"","aria":"","title":"","name":"","hint":"",
 *              "ex":-1,"hp":1,"dis":1,"cp":1,"int":1,"lis":1,"ifr":1,"pen":1,
 *              "vh":1,"op0":1,"clip":[..]}, ...]}
 * where keys with default values (empty, 0, ex -1, no clip) are left out,
 * "p" is an earlier node's index and "f" an index into "frames".
 */
#include "record/snapshot.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json_alloc.h"
#include "base/num.h"
#include "base/log.h"
#include "base/utf8.h"
#include "base/text.h"
#include "record/js.h"

#define FORMAT_ID "fovea-snapshot/1"
#define MAX_DOCS 64
#define MAX_SESSIONS 32
#define TEXT_CAP 240
#define CALL_TIMEOUT_MS 30000

/* Computed styles requested, in this order (indices below). */
static const char *const STYLES[] = {
    "display",      "visibility",  "pointer-events",    "opacity",         "cursor",
    "overflow-x",   "overflow-y",  "position",          "transform",       "padding-left",
    "padding-top",
};
enum {
    ST_DISPLAY,
    ST_VISIBILITY,
    ST_POINTER_EVENTS,
    ST_OPACITY,
    ST_CURSOR,
    ST_OVERFLOW_X,
    ST_OVERFLOW_Y,
    ST_POSITION,
    ST_TRANSFORM,
    ST_PADDING_LEFT,
    ST_PADDING_TOP,
    ST_COUNT
};

/* ---- Capture: raw CDP replies as flat arrays ----------------------------- */

/* One entry of the backendNodeId -> DOM facts map of a session. */
typedef struct dom_fact {
    int backend;    /* 0 = empty slot */
    char *xpath;    /* owned */
    char *frame_id; /* iframe: its content frame id; owned, may be NULL */
} dom_fact;

/* One element the page kit answered for (assets/js/kit_dump.js). */
typedef struct kit_el {
    char *key;        /* owned: "chain\x01xpath", chain relative to the session's document */
    const cJSON *ans; /* [xpath, role, interactive, listener, name, hint], borrowed */
} kit_el;

typedef struct session_data {
    char sid[64];         /* "" = the page's own session */
    cJSON *snap;          /* DOMSnapshot reply */
    const char **strings; /* snapshot string table */
    int n_strings;
    dom_fact *facts; /* open-addressing table */
    size_t cap_facts, n_facts;
    int *dbg_lis;    /* sorted backendNodeIds DOMDebugger names as having click-like
                        listeners (sessions the kit's recorder did not cover), or NULL */
    int n_dbg_lis;
    cJSON *kit;      /* the page kit's answers (kit_dump.js), parsed; NULL if none */
    kit_el *kit_els; /* sorted by key: one per element the kit answered for */
    int n_kit_els;
    const char *root_chain; /* frame chain of the session's own document (borrowed) */
} session_data;

/* One document of a snapshot, flattened into C arrays. */
typedef struct raw_doc {
    session_data *ses;
    const char *frame_id;
    double scroll_x, scroll_y;
    int n;           /* nodes */
    int *parent;     /* node -> parent node, -1 */
    int *type;       /* nodeType */
    int *name;       /* string index */
    int *backend;    /* backendNodeId */
    int *layout;     /* node -> layout index, -1 */
    char *pseudo;    /* 1 for ::before etc. */
    int *input_value; /* string index or -1 */
    int *value;      /* nodeValue: string index or -1 */
    int *end;        /* node -> one past its last descendant (pre-order) */
    char *selected;  /* option selected */
    const cJSON **attrs; /* node -> attribute array (borrowed) */
    int n_layout;
    double *bounds;  /* 4 per layout entry */
    double *client;  /* 4 per layout entry (clientLeft, clientTop, w, h), 0 if absent */
    int *paint;      /* per layout entry */
    int *text;       /* per layout entry: string index or -1 */
    int *styles;     /* ST_COUNT per layout entry, string index or -1 */
    /* Filled while flattening. */
    int placed;
    int chain;       /* index into the frame chain list */
    int owner;       /* scene node of the iframe showing it, -1 for the top */
} raw_doc;

/* One output element. */
typedef struct out_node {
    int parent; /* out index, -1 */
    int doc;
    int raw_paint;
    int rank;
    int child_doc; /* iframe whose content was captured: that doc, else -1 */
    base_rect r;
    int has_clip;
    base_rect clip;
    const char *tag; /* borrowed from the snapshot strings */
    char *xpath;     /* borrowed from the facts */
    int chain;
    char *role;      /* owned */
    char *text;      /* owned */
    char *aria;      /* owned */
    const char *title;
    char *name;      /* owned: the kit's accessible name */
    char *hint;      /* owned: the kit's icon hint words */
    int ex, hp, dis, cp, inter, ifr, pen, vh, op0, lis;
} out_node;

typedef struct capture {
    cdp_page *page;
    char *err;
    session_data ses[MAX_SESSIONS];
    int n_ses;
    raw_doc docs[MAX_DOCS];
    int n_docs;
    char *chains[MAX_DOCS];
    int n_chains;
    out_node *out;
    int n_out, cap_out;
    int missing;
    int top_late;    /* the recorder missed the top document's start (or is absent) */
} capture;

static base_err call(capture *c, const char *sid, const char *method, cJSON *params, cJSON **res)
{
    if (!sid[0])
        return cdp_page_call(c->page, method, params, res, CALL_TIMEOUT_MS, c->err);
    return cdp_call(cdp_page_conn(c->page), sid, method, params, res, CALL_TIMEOUT_MS, c->err);
}

static const cJSON *obj(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A number from the browser as an int, dflt when it is not a number or
 * does not fit (a hostile page or a broken reply must not reach an
 * undefined float-to-int conversion). Fractions truncate, as CDP never
 * sends any where an int is expected. */
static int json_int(const cJSON *x, int dflt)
{
    int v = dflt;
    if (!cJSON_IsNumber(x) || base_num_to_int(x->valuedouble, INT_MIN, INT_MAX, &v) != BASE_OK)
        return dflt;
    return v;
}

/* Copies a JSON array of numbers into a new int array of exactly n entries
 * (missing entries read `dflt`). */
static base_err int_array(const cJSON *a, int n, int dflt, int **out)
{
    int *v = base_malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v)
        return BASE_ENOMEM;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (i >= n)
            break;
        v[i++] = json_int(it, dflt);
    }
    while (i < n)
        v[i++] = dflt;
    *out = v;
    return BASE_OK;
}

/* Rare-data {index:[..], value:[..]} into a per-node int array (default -1),
 * or a per-node flag array when value is absent. */
static base_err rare_ints(const cJSON *rare, int n, int **out)
{
    int *v = base_malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v)
        return BASE_ENOMEM;
    for (int i = 0; i < n; i++)
        v[i] = -1;
    const cJSON *idx = obj(rare, "index"), *val = obj(rare, "value");
    const cJSON *a = idx ? idx->child : NULL, *b = val ? val->child : NULL;
    for (; a; a = a->next) {
        int k = json_int(a, -1);
        if (k >= 0 && k < n)
            v[k] = b ? json_int(b, -1) : 1;
        if (b)
            b = b->next;
    }
    *out = v;
    return BASE_OK;
}

static void doc_free(raw_doc *d)
{
    base_free(d->parent);
    base_free(d->type);
    base_free(d->name);
    base_free(d->backend);
    base_free(d->layout);
    base_free(d->pseudo);
    base_free(d->input_value);
    base_free(d->value);
    base_free(d->end);
    base_free(d->selected);
    base_free(d->attrs);
    base_free(d->bounds);
    base_free(d->client);
    base_free(d->paint);
    base_free(d->text);
    base_free(d->styles);
    memset(d, 0, sizeof *d);
}

/* Four numbers per layout entry from an array of [x, y, w, h] arrays. */
static base_err rect_array(const cJSON *a, int n, double **out)
{
    double *v = base_calloc((size_t)(n > 0 ? n : 1) * 4, sizeof *v);
    if (!v)
        return BASE_ENOMEM;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (i >= n)
            break;
        int j = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, it)
        {
            if (j < 4 && cJSON_IsNumber(x) && isfinite(x->valuedouble))
                v[i * 4 + j] = x->valuedouble;
            j++;
        }
        i++;
    }
    *out = v;
    return BASE_OK;
}

static const char *str_at(const session_data *s, int i);

static base_err doc_parse(capture *c, session_data *s, const cJSON *jd, raw_doc *d)
{
    memset(d, 0, sizeof *d);
    d->ses = s;
    const cJSON *nodes = obj(jd, "nodes"), *lay = obj(jd, "layout");
    const cJSON *names = obj(nodes, "nodeName");
    if (!cJSON_IsArray(names) || !cJSON_IsObject(lay))
        return base_errf(c->err, BASE_EPROTO, "snapshot: a document has no nodes or layout");
    d->n = cJSON_GetArraySize(names);
    d->n_layout = cJSON_GetArraySize(obj(lay, "nodeIndex"));
    if (d->n > REC_SNAPSHOT_MAX_NODES * 4 || d->n_layout > d->n + REC_SNAPSHOT_MAX_NODES)
        return base_errf(c->err, BASE_ETOOBIG, "snapshot: %d nodes is over the cap", d->n);
    const cJSON *fid = obj(jd, "frameId");
    d->frame_id = str_at(s, json_int(fid, -1));
    const cJSON *sx = obj(jd, "scrollOffsetX"), *sy = obj(jd, "scrollOffsetY");
    d->scroll_x = cJSON_IsNumber(sx) ? sx->valuedouble : 0.0;
    d->scroll_y = cJSON_IsNumber(sy) ? sy->valuedouble : 0.0;
    base_err e;
    int *lay_index = NULL;
    if ((e = int_array(obj(nodes, "parentIndex"), d->n, -1, &d->parent)) ||
        (e = int_array(obj(nodes, "nodeType"), d->n, 0, &d->type)) ||
        (e = int_array(names, d->n, -1, &d->name)) ||
        (e = int_array(obj(nodes, "backendNodeId"), d->n, 0, &d->backend)) ||
        (e = rare_ints(obj(nodes, "inputValue"), d->n, &d->input_value)) ||
        (e = int_array(obj(nodes, "nodeValue"), d->n, -1, &d->value)) ||
        (e = int_array(obj(lay, "nodeIndex"), d->n_layout, -1, &lay_index)) ||
        (e = rect_array(obj(lay, "bounds"), d->n_layout, &d->bounds)) ||
        (e = rect_array(obj(lay, "clientRects"), d->n_layout, &d->client)) ||
        (e = int_array(obj(lay, "paintOrders"), d->n_layout, 0, &d->paint)) ||
        (e = int_array(obj(lay, "text"), d->n_layout, -1, &d->text)))
        goto fail;
    int *pseudo = NULL, *sel = NULL;
    if ((e = rare_ints(obj(nodes, "pseudoType"), d->n, &pseudo)))
        goto fail;
    if ((e = rare_ints(obj(nodes, "optionSelected"), d->n, &sel))) {
        base_free(pseudo);
        goto fail;
    }
    d->pseudo = base_malloc((size_t)(d->n > 0 ? d->n : 1));
    d->selected = base_malloc((size_t)(d->n > 0 ? d->n : 1));
    d->layout = base_malloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *d->layout);
    d->attrs = base_calloc((size_t)(d->n > 0 ? d->n : 1), sizeof *d->attrs);
    d->styles = base_malloc((size_t)(d->n_layout > 0 ? d->n_layout : 1) * ST_COUNT *
                            sizeof *d->styles);
    if (!d->pseudo || !d->selected || !d->layout || !d->attrs || !d->styles) {
        base_free(pseudo);
        base_free(sel);
        e = base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
        goto fail;
    }
    d->end = base_malloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *d->end);
    if (!d->end) {
        base_free(pseudo);
        base_free(sel);
        e = base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
        goto fail;
    }
    for (int i = 0; i < d->n; i++) {
        d->pseudo[i] = pseudo[i] >= 0;
        d->selected[i] = sel[i] >= 0;
        d->layout[i] = -1;
        /* A parent must come earlier (pre-order); anything else is dropped. */
        if (d->parent[i] >= i || d->parent[i] < -1)
            d->parent[i] = -1;
    }
    base_free(pseudo);
    base_free(sel);
    /* Subtree ends: parents come first, so one backward pass suffices. */
    for (int i = 0; i < d->n; i++)
        d->end[i] = i + 1;
    for (int i = d->n - 1; i > 0; i--) {
        int p = d->parent[i];
        if (p >= 0 && d->end[i] > d->end[p])
            d->end[p] = d->end[i];
    }
    for (int l = 0; l < d->n_layout; l++) {
        if (lay_index[l] >= 0 && lay_index[l] < d->n && d->layout[lay_index[l]] < 0)
            d->layout[lay_index[l]] = l;
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, obj(nodes, "attributes"))
    {
        if (i >= d->n)
            break;
        d->attrs[i++] = it;
    }
    i = 0;
    cJSON_ArrayForEach(it, obj(lay, "styles"))
    {
        if (i >= d->n_layout)
            break;
        int j = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, it)
        {
            if (j >= ST_COUNT)
                break;
            d->styles[i * ST_COUNT + j++] = json_int(x, -1);
        }
        while (j < ST_COUNT)
            d->styles[i * ST_COUNT + j++] = -1;
        i++;
    }
    for (; i < d->n_layout; i++) {
        for (int j = 0; j < ST_COUNT; j++)
            d->styles[i * ST_COUNT + j] = -1;
    }
    base_free(lay_index);
    return BASE_OK;
fail:
    base_free(lay_index);
    doc_free(d);
    if (e == BASE_ENOMEM)
        base_errf(c->err, e, "snapshot: out of memory");
    return e;
}

static const char *str_at(const session_data *s, int i)
{
    return i >= 0 && i < s->n_strings && s->strings[i] ? s->strings[i] : "";
}

static const char *style(const raw_doc *d, int l, int st)
{
    return l < 0 ? "" : str_at(d->ses, d->styles[l * ST_COUNT + st]);
}

/* Attribute `name` of node i, or NULL. */
static const char *attr(const raw_doc *d, int i, const char *name)
{
    const cJSON *a = d->attrs[i];
    const cJSON *k = a ? a->child : NULL;
    while (k && k->next) {
        if (cJSON_IsNumber(k) && strcmp(str_at(d->ses, json_int(k, -1)), name) == 0)
            return cJSON_IsNumber(k->next) ? str_at(d->ses, json_int(k->next, -1)) : "";
        k = k->next->next;
    }
    return NULL;
}

/* ---- DOM.getDocument: xpaths and iframe frame ids ------------------------ */

static size_t fact_slot(const session_data *s, int backend)
{
    size_t h = (size_t)(unsigned)backend * 2654435761u;
    size_t i = h & (s->cap_facts - 1);
    while (s->facts[i].backend && s->facts[i].backend != backend)
        i = (i + 1) & (s->cap_facts - 1);
    return i;
}

static const dom_fact *fact_get(const session_data *s, int backend)
{
    if (!s->facts || backend <= 0)
        return NULL;
    const dom_fact *f = &s->facts[fact_slot(s, backend)];
    return f->backend ? f : NULL;
}

static base_err fact_put(session_data *s, int backend, const char *xpath, const char *frame_id)
{
    if (backend <= 0)
        return BASE_OK;
    if ((s->n_facts + 1) * 2 > s->cap_facts) {
        size_t cap = s->cap_facts ? s->cap_facts * 2 : 1024;
        dom_fact *nf = base_calloc(cap, sizeof *nf);
        if (!nf)
            return BASE_ENOMEM;
        dom_fact *old = s->facts;
        size_t old_cap = s->cap_facts;
        s->facts = nf;
        s->cap_facts = cap;
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i].backend)
                s->facts[fact_slot(s, old[i].backend)] = old[i];
        }
        base_free(old);
    }
    dom_fact *f = &s->facts[fact_slot(s, backend)];
    if (f->backend)
        return BASE_OK; /* first wins */
    f->xpath = base_strdup(xpath);
    f->frame_id = frame_id ? base_strdup(frame_id) : NULL;
    if (!f->xpath || (frame_id && !f->frame_id)) {
        base_free(f->xpath);
        base_free(f->frame_id);
        f->xpath = f->frame_id = NULL;
        return BASE_ENOMEM;
    }
    f->backend = backend;
    s->n_facts++;
    return BASE_OK;
}

static const char *node_str(const cJSON *n, const char *k)
{
    const cJSON *v = obj(n, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Lower-case local name of a DOM node into buf. */
static void local_name(const cJSON *n, char *buf, size_t cap)
{
    const char *s = node_str(n, "localName");
    if (!s[0])
        s = node_str(n, "nodeName");
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        buf[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
    buf[i] = '\0';
}

/* Walks the element children of `parent_list` (a DOM "children" array) with
 * xpath prefix `base`, recording each element; recursion follows children,
 * open shadow roots and same-process content documents. */
static base_err walk_children(session_data *s, const cJSON *list, const char *base, int depth)
{
    if (depth > 400)
        return BASE_OK; /* deeper than any real page; cJSON capped the reply anyway */
    const cJSON *n;
    cJSON_ArrayForEach(n, list)
    {
        const cJSON *t = obj(n, "nodeType");
        if (json_int(t, 0) != 1)
            continue;
        char tag[64];
        local_name(n, tag, sizeof tag);
        /* 1-based index among earlier element siblings of the same tag. */
        int idx = 1;
        for (const cJSON *p = list->child; p && p != n; p = p->next) {
            const cJSON *pt = obj(p, "nodeType");
            char ptag[64];
            if (json_int(pt, 0) != 1)
                continue;
            local_name(p, ptag, sizeof ptag);
            idx += strcmp(ptag, tag) == 0;
        }
        size_t need = strlen(base) + strlen(tag) + 16;
        char *path = base_malloc(need);
        if (!path)
            return BASE_ENOMEM;
        snprintf(path, need, "%s/%s[%d]", base, tag, idx);
        const cJSON *bid = obj(n, "backendNodeId");
        const char *fid = node_str(n, "frameId");
        int is_frame = strcmp(tag, "iframe") == 0 || strcmp(tag, "frame") == 0;
        base_err e = fact_put(s, json_int(bid, 0), path,
                              is_frame && fid[0] ? fid : NULL);
        if (!e)
            e = walk_children(s, obj(n, "children"), path, depth + 1);
        const cJSON *sr;
        cJSON_ArrayForEach(sr, obj(n, "shadowRoots"))
        {
            if (e)
                break;
            if (strcmp(node_str(sr, "shadowRootType"), "open") != 0)
                continue;
            size_t need2 = strlen(path) + 16;
            char *spath = base_malloc(need2);
            if (!spath) {
                e = BASE_ENOMEM;
                break;
            }
            snprintf(spath, need2, "%s/#shadow-root", path);
            e = walk_children(s, obj(sr, "children"), spath, depth + 1);
            base_free(spath);
        }
        const cJSON *cd = obj(n, "contentDocument");
        if (!e && cd)
            e = walk_children(s, obj(cd, "children"), "", depth + 1);
        base_free(path);
        if (e)
            return e;
    }
    return BASE_OK;
}


static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Where the kit's recorder did not run (an out-of-process frame, or fovea
 * attached to an open tab), DOMDebugger names the nodes with click-like
 * listeners: one getEventListeners over the whole document (depth -1,
 * pierce), each listener carrying its node's backendNodeId. Best effort: a
 * failure leaves the session without the set. */
static void dbg_listeners(capture *c, session_data *s)
{
    static const char *const ev[] = {"click",      "dblclick",  "auxclick",   "contextmenu",
                                     "mousedown",  "mouseup",   "pointerdown", "pointerup",
                                     "touchstart", "touchend",  "keydown",    "keyup",
                                     "keypress"};
    char err[BASE_ERRBUF_SIZE] = "";
    char *saved = c->err;
    c->err = err;
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "expression", "document");
    cJSON_AddStringToObject(p, "objectGroup", "fovea-snapshot");
    cJSON *res = NULL;
    if (call(c, s->sid, "Runtime.evaluate", p, &res) == BASE_OK) {
        const char *oid = cJSON_GetStringValue(obj(obj(res, "result"), "objectId"));
        cJSON *q = oid ? cJSON_CreateObject() : NULL;
        cJSON *lr = NULL;
        if (q) {
            cJSON_AddStringToObject(q, "objectId", oid);
            cJSON_AddNumberToObject(q, "depth", -1);
            cJSON_AddBoolToObject(q, "pierce", 1);
        }
        if (q && call(c, s->sid, "DOMDebugger.getEventListeners", q, &lr) == BASE_OK) {
            const cJSON *ls = obj(lr, "listeners");
            int n = cJSON_GetArraySize(ls);
            s->dbg_lis = n > 0 ? base_malloc((size_t)n * sizeof *s->dbg_lis) : NULL;
            const cJSON *l;
            cJSON_ArrayForEach(l, ls)
            {
                const char *t = cJSON_GetStringValue(obj(l, "type"));
                const cJSON *b = obj(l, "backendNodeId");
                size_t k = 0;
                while (t && k < sizeof ev / sizeof ev[0] && strcmp(t, ev[k]) != 0)
                    k++;
                if (!s->dbg_lis || !t || !cJSON_IsNumber(b) || s->n_dbg_lis >= n ||
                    k == sizeof ev / sizeof ev[0])
                    continue;
                s->dbg_lis[s->n_dbg_lis++] = (int)b->valuedouble;
            }
            if (s->n_dbg_lis)
                qsort(s->dbg_lis, (size_t)s->n_dbg_lis, sizeof *s->dbg_lis, cmp_int);
        }
        cJSON_Delete(lr);
    }
    cJSON_Delete(res);
    cJSON *rg = cJSON_CreateObject();
    cJSON_AddStringToObject(rg, "objectGroup", "fovea-snapshot");
    call(c, s->sid, "Runtime.releaseObjectGroup", rg, NULL);
    if (err[0])
        base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "snapshot: no DOMDebugger listeners: %s", err);
    c->err = saved;
}

static int dbg_has(const session_data *s, int backend)
{
    return s->n_dbg_lis &&
           bsearch(&backend, s->dbg_lis, (size_t)s->n_dbg_lis, sizeof *s->dbg_lis, cmp_int);
}

/* ---- The page kit's answers ----------------------------------------------
 * Roles, "interactive", listeners, accessible names and icon hints are the
 * page kit's (assets/js/lib/kit.js), asked in the page at capture time:
 * kit_dump.js runs in the session's main world (where lib/listen.js keeps
 * the listener registry) and answers for its document, open shadow roots
 * and same-origin frames. The snapshot stores the answers, so the offline
 * replay reads exactly what the live probe would compute. */

static int cmp_kit_el(const void *a, const void *b)
{
    return strcmp(((const kit_el *)a)->key, ((const kit_el *)b)->key);
}

/* A (chain, xpath) lookup key compared with a kit_el's "chain\x01xpath" in
 * the order strcmp gives the joined string. */
typedef struct kit_key {
    const char *chain, *xpath;
} kit_key;

static int cmp_kit_key(const void *k, const void *e)
{
    const kit_key *a = k;
    const char *b = ((const kit_el *)e)->key;
    size_t n = strlen(a->chain);
    int r = strncmp(a->chain, b, n);
    if (r)
        return r;
    unsigned char bn = (unsigned char)b[n];
    if (bn != 1)
        return bn < 1 ? 1 : -1;
    return strcmp(a->xpath, b + n + 1);
}

/* Asks the page kit about every element of session s. A page or frame that
 * cannot answer leaves s without answers (logged): its elements keep only
 * what DOMSnapshot says and DOMDebugger's listeners. Errors: BASE_ENOMEM. */
static base_err kit_answers(capture *c, session_data *s)
{
    size_t n = fovea_js_kit_dump_len + 8;
    char *expr = base_malloc(n);
    if (!expr)
        return base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
    snprintf(expr, n, "(%s)()", (const char *)fovea_js_kit_dump);
    cJSON *v = NULL;
    char ferr[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_page_evaluate_in(c->page, s->sid, CDP_CTX_FOVEA, expr, &v, CALL_TIMEOUT_MS, ferr);
    base_free(expr);
    cJSON *root = NULL;
    if (!e && cJSON_IsString(v)) {
        /* page text may hold half a surrogate pair (base/utf8.h) */
        size_t vn = strlen(v->valuestring);
        char *fx = NULL;
        base_json_fix_surrogates(v->valuestring, vn, &fx);
        root = cJSON_ParseWithLength(fx ? fx : v->valuestring, vn);
        base_free(fx);
    }
    cJSON_Delete(v);
    if (!root) {
        base_log(BASE_LOG_PERC, BASE_LOG_INFO, "snapshot: no page kit answers%s%s: %s",
                 s->sid[0] ? " from frame session " : "", s->sid, e ? ferr : "bad reply");
        if (!s->sid[0])
            c->top_late = 1;
        return BASE_OK;
    }
    s->kit = root;
    int total = 0;
    const cJSON *doc;
    cJSON_ArrayForEach(doc, obj(root, "docs"))
    {
        int k = cJSON_GetArraySize(obj(doc, "els"));
        total = k > REC_SNAPSHOT_MAX_NODES * 4 - total ? REC_SNAPSHOT_MAX_NODES * 4 : total + k;
    }
    s->kit_els = base_calloc((size_t)(total > 0 ? total : 1), sizeof *s->kit_els);
    if (!s->kit_els)
        return base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
    cJSON_ArrayForEach(doc, obj(root, "docs"))
    {
        const char *chain = cJSON_GetStringValue(obj(doc, "chain"));
        const cJSON *late = obj(doc, "late");
        if (chain && !chain[0] && !s->sid[0])
            c->top_late = cJSON_IsNumber(late) && late->valuedouble != 0;
        const cJSON *el;
        cJSON_ArrayForEach(el, obj(doc, "els"))
        {
            const char *xp = cJSON_GetStringValue(cJSON_GetArrayItem(el, 0));
            if (!chain || !xp || cJSON_GetArraySize(el) != 6 || s->n_kit_els >= total)
                continue;
            size_t k = strlen(chain) + strlen(xp) + 2;
            char *key = base_malloc(k);
            if (!key)
                return base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
            snprintf(key, k, "%s\x01%s", chain, xp);
            s->kit_els[s->n_kit_els].key = key;
            s->kit_els[s->n_kit_els++].ans = el;
        }
    }
    if (s->n_kit_els)
        qsort(s->kit_els, (size_t)s->n_kit_els, sizeof *s->kit_els, cmp_kit_el);
    return BASE_OK;
}

/* The kit's answer for the element (full frame chain, xpath) of session s,
 * or NULL (no answer: every field empty or 0). */
static const cJSON *kit_get(const session_data *s, const char *chain, const char *xpath)
{
    if (!s->n_kit_els || !s->root_chain)
        return NULL;
    /* The session's answers are relative to its own document. */
    size_t n = strlen(s->root_chain);
    if (strncmp(chain, s->root_chain, n) != 0)
        return NULL;
    if (chain[n] == '|' && n > 0)
        n++;
    else if (chain[n] != '\0' && n > 0)
        return NULL;
    kit_key k = {chain + n, xpath};
    const kit_el *e =
        bsearch(&k, s->kit_els, (size_t)s->n_kit_els, sizeof *s->kit_els, cmp_kit_key);
    return e ? e->ans : NULL;
}

static const char *kit_str(const cJSON *ans, int i)
{
    const char *v = ans ? cJSON_GetStringValue(cJSON_GetArrayItem(ans, i)) : NULL;
    return v ? v : "";
}

static int kit_flag(const cJSON *ans, int i)
{
    const cJSON *v = ans ? cJSON_GetArrayItem(ans, i) : NULL;
    return cJSON_IsNumber(v) && v->valuedouble != 0;
}

static base_err session_capture(capture *c, session_data *s)
{
    base_err e;
    cJSON *p = cJSON_CreateObject();
    cJSON *st = cJSON_AddArrayToObject(p, "computedStyles");
    for (int i = 0; i < ST_COUNT; i++)
        cJSON_AddItemToArray(st, cJSON_CreateString(STYLES[i]));
    cJSON_AddBoolToObject(p, "includePaintOrder", 1);
    cJSON_AddBoolToObject(p, "includeDOMRects", 1);
    e = call(c, s->sid, "DOMSnapshot.captureSnapshot", p, &s->snap);
    if (e)
        return e;
    const cJSON *strs = obj(s->snap, "strings");
    if (!cJSON_IsArray(strs) || !cJSON_IsArray(obj(s->snap, "documents")))
        return base_errf(c->err, BASE_EPROTO, "snapshot: reply has no strings or documents");
    s->n_strings = cJSON_GetArraySize(strs);
    s->strings = base_calloc((size_t)(s->n_strings > 0 ? s->n_strings : 1), sizeof *s->strings);
    if (!s->strings)
        return base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, strs)
    {
        if (i < s->n_strings)
            s->strings[i++] = cJSON_IsString(it) ? it->valuestring : "";
    }
    cJSON *dp = cJSON_CreateObject();
    cJSON_AddNumberToObject(dp, "depth", -1);
    cJSON_AddBoolToObject(dp, "pierce", 1);
    cJSON *dom = NULL;
    if ((e = call(c, s->sid, "DOM.getDocument", dp, &dom)))
        return e;
    const cJSON *root = obj(dom, "root");
    e = walk_children(s, obj(root, "children"), "", 0);
    cJSON_Delete(dom);
    if (e == BASE_ENOMEM)
        return base_errf(c->err, e, "snapshot: out of memory");
    /* DOM.getDocument enabled DOM events on this session; stop them. */
    call(c, s->sid, "DOM.disable", NULL, NULL);
    base_errclear(c->err);
    /* The kit is asked after the capture: its questions (computed styles,
     * innerText) make the browser lay out what it had skipped, such as the
     * content of a closed <details>, which the capture must not see. */
    if ((e = kit_answers(c, s)))
        return e;
    if (s->sid[0] || c->top_late)
        dbg_listeners(c, s);
    return BASE_OK;
}

/* ---- Flattening ---------------------------------------------------------- */

static int find_doc(const capture *c, const char *frame_id)
{
    for (int i = 0; i < c->n_docs; i++) {
        if (frame_id && frame_id[0] && strcmp(c->docs[i].frame_id, frame_id) == 0)
            return i;
    }
    return -1;
}

static double px(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return isfinite(v) ? v : 0.0;
}

/* The length of b[0..n) without a UTF-8 sequence the cap cut short, so a
 * capped text stays valid UTF-8 (a "‹" cut after its first byte made the
 * snapshot file unreadable to strict JSON readers). */
static size_t utf8_whole(const char *b, size_t n)
{
    size_t i = n;
    while (i > 0 && ((unsigned char)b[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0)
        return n;
    unsigned char lead = (unsigned char)b[i - 1];
    size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    return (i - 1) + want > n ? i - 1 : n;
}

/* Appends text t to the text accumulator of node i (cap TEXT_CAP). Returns 0
 * when the buffer was already full (ancestors are full too). */
static int text_add(char **acc, int i, const char *t)
{
    char *b = acc[i];
    size_t n = b ? strlen(b) : 0;
    if (n >= TEXT_CAP)
        return 0;
    if (!b) {
        b = base_malloc(TEXT_CAP + 2);
        if (!b)
            return 0;
        b[0] = '\0';
        acc[i] = b;
    }
    if (n > 0 && b[n - 1] != ' ')
        b[n++] = ' ';
    for (const char *p = t; *p && n < TEXT_CAP; p++) {
        char ch = (*p == '\n' || *p == '\t' || *p == '\r') ? ' ' : *p;
        if (ch == ' ' && (n == 0 || b[n - 1] == ' '))
            continue;
        b[n++] = ch;
    }
    n = utf8_whole(b, n);
    b[n] = '\0';
    return 1;
}

static char *trimmed_dup(const char *s)
{
    if (!s)
        s = "";
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == ' ')
        n--;
    return base_strndup(s, n);
}

static int streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}


static base_err out_push(capture *c, out_node **slot)
{
    if (c->n_out >= REC_SNAPSHOT_MAX_NODES)
        return base_errf(c->err, BASE_ETOOBIG, "snapshot: more than %d elements",
                         REC_SNAPSHOT_MAX_NODES);
    if (c->n_out == c->cap_out) {
        int cap = c->cap_out ? c->cap_out * 2 : 256;
        out_node *n = base_realloc(c->out, (size_t)cap * sizeof *n);
        if (!n)
            return base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
        c->out = n;
        c->cap_out = cap;
    }
    *slot = &c->out[c->n_out++];
    memset(*slot, 0, sizeof **slot);
    return BASE_OK;
}

static int frame_chain_add(capture *c, const char *parent_chain, const char *xpath)
{
    if (c->n_chains >= MAX_DOCS)
        return -1;
    size_t n = strlen(parent_chain) + strlen(xpath) + 2;
    char *s = base_malloc(n);
    if (!s)
        return -1;
    snprintf(s, n, "%s%s%s", parent_chain, parent_chain[0] ? "|" : "", xpath);
    c->chains[c->n_chains] = s;
    return c->n_chains++;
}

/* Per-node scratch of one document's flattening. */
typedef struct flat {
    int *scene;     /* node -> out index, -1 */
    int *anc;       /* node -> nearest out index at or above it, -1 */
    int *pos_anc;   /* nearest positioned (or transformed) element at or above, -1 */
    int *tf_anc;    /* nearest transformed element at or above, -1 */
    base_rect *cc;  /* clip a node imposes on its in-flow descendants */
    char **text;    /* accumulated visible text */
} flat;

static void flat_free(flat *f, int n)
{
    if (f->text) {
        for (int i = 0; i < n; i++)
            base_free(f->text[i]);
    }
    base_free(f->scene);
    base_free(f->anc);
    base_free(f->pos_anc);
    base_free(f->tf_anc);
    base_free(f->cc);
    base_free(f->text);
}

/* A bounded string under construction (names are capped anyway). */
static const char *text_by_id(const raw_doc *d, const flat *f, const char *id)
{
    for (int i = 0; i < d->n; i++) {
        if (d->type[i] != 1)
            continue;
        const char *v = attr(d, i, "id");
        if (v && strcmp(v, id) == 0)
            return f->text[i] ? f->text[i] : "";
    }
    return NULL;
}

/* aria-labelledby ids resolved to their texts, joined by spaces. */
static char *labelledby(const raw_doc *d, const flat *f, const char *ids)
{
    char buf[TEXT_CAP + 1] = "";
    size_t n = 0;
    char id[128];
    const char *p = ids;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t k = 0;
        while (p[k] && p[k] != ' ')
            k++;
        if (k > 0 && k < sizeof id) {
            memcpy(id, p, k);
            id[k] = '\0';
            const char *t = text_by_id(d, f, id);
            if (t && t[0] && n < TEXT_CAP) {
                int w = snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", t);
                n = w > 0 ? n + (size_t)w : n;
                if (n > TEXT_CAP)
                    n = utf8_whole(buf, TEXT_CAP);
            }
        }
        p += k;
    }
    buf[n] = '\0';
    return trimmed_dup(buf);
}

static base_rect clip_axis(base_rect cl, base_rect box, int x, int y)
{
    if (x) {
        cl.x0 = fmaxf(cl.x0, box.x0);
        cl.x1 = fminf(cl.x1, box.x1);
    }
    if (y) {
        cl.y0 = fmaxf(cl.y0, box.y0);
        cl.y1 = fminf(cl.y1, box.y1);
    }
    if (cl.x1 < cl.x0)
        cl.x1 = cl.x0;
    if (cl.y1 < cl.y0)
        cl.y1 = cl.y0;
    return cl;
}

/* Flattens document di shown at origin (ox, oy) of the top viewport, clipped
 * to dclip, its <html> parented to scene node `owner`. */
static base_err flatten_doc(capture *c, int di, double ox, double oy, base_rect dclip, int owner,
                            int chain)
{
    raw_doc *d = &c->docs[di];
    d->placed = 1;
    d->chain = chain;
    if (!d->ses->root_chain)
        d->ses->root_chain = c->chains[chain]; /* flattening goes top down */
    d->owner = owner;
    int n = d->n;
    flat f;
    memset(&f, 0, sizeof f);
    size_t nn = (size_t)(n > 0 ? n : 1);
    f.scene = base_malloc(nn * sizeof *f.scene);
    f.anc = base_malloc(nn * sizeof *f.anc);
    f.pos_anc = base_malloc(nn * sizeof *f.pos_anc);
    f.tf_anc = base_malloc(nn * sizeof *f.tf_anc);
    f.cc = base_malloc(nn * sizeof *f.cc);
    f.text = base_calloc(nn, sizeof *f.text);
    if (!f.scene || !f.anc || !f.pos_anc || !f.tf_anc || !f.cc || !f.text) {
        flat_free(&f, n);
        return base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
    }
    /* Visible text: every laid-out text node adds its text to its element
     * ancestors, except text generated by ::before/::after (not innerText). */
    for (int i = 0; i < n; i++) {
        int l = d->layout[i];
        int p = d->parent[i];
        if (d->type[i] != 3 || l < 0 || d->text[l] < 0 || p < 0 || d->pseudo[p])
            continue;
        const char *t = str_at(d->ses, d->text[l]);
        for (int a = p; a >= 0 && d->type[a] == 1; a = d->parent[a]) {
            if (!text_add(f.text, a, t))
                break;
        }
    }
    base_err e = BASE_OK;
    for (int i = 0; i < n && !e; i++) {
        int p = d->parent[i];
        f.scene[i] = -1;
        f.anc[i] = p >= 0 ? f.anc[p] : owner;
        f.pos_anc[i] = p >= 0 ? f.pos_anc[p] : -1;
        f.tf_anc[i] = p >= 0 ? f.tf_anc[p] : -1;
        f.cc[i] = p >= 0 ? f.cc[p] : dclip;
        if (d->type[i] != 1 || d->pseudo[i])
            continue;
        int l = d->layout[i];
        char tag[64];
        snprintf(tag, sizeof tag, "%s", str_at(d->ses, d->name[i]));
        for (char *q = tag; *q; q++)
            *q = (*q >= 'A' && *q <= 'Z') ? (char)(*q + 32) : *q;
        /* Containing block and clips. */
        const char *pos = style(d, l, ST_POSITION);
        const char *tf = style(d, l, ST_TRANSFORM);
        int transformed = l >= 0 && tf[0] && strcmp(tf, "none") != 0;
        base_rect inh;
        if (strcmp(pos, "fixed") == 0) {
            int cb = p >= 0 ? f.tf_anc[p] : -1;
            inh = cb >= 0 ? f.cc[cb] : dclip;
        } else if (strcmp(pos, "absolute") == 0) {
            int cb = p >= 0 ? f.pos_anc[p] : -1;
            inh = cb >= 0 ? f.cc[cb] : dclip;
        } else {
            inh = p >= 0 ? f.cc[p] : dclip;
        }
        f.cc[i] = inh;
        if (transformed)
            f.tf_anc[i] = i;
        if (transformed || (pos[0] && strcmp(pos, "static") != 0))
            f.pos_anc[i] = i;
        if (l < 0)
            continue;
        const double *b = &d->bounds[l * 4];
        base_rect r = {(float)(b[0] - d->scroll_x + ox), (float)(b[1] - d->scroll_y + oy),
                       (float)(b[0] + b[2] - d->scroll_x + ox),
                       (float)(b[1] + b[3] - d->scroll_y + oy)};
        const double *cr = &d->client[l * 4];
        if (strcmp(tag, "html") != 0 && strcmp(tag, "body") != 0) {
            /* overflow other than visible clips descendants to the padding box. */
            base_rect pad = r;
            if (cr[2] > 0 || cr[3] > 0) {
                pad.x0 = r.x0 + (float)cr[0];
                pad.y0 = r.y0 + (float)cr[1];
                pad.x1 = fminf(r.x1, pad.x0 + (float)cr[2]);
                pad.y1 = fminf(r.y1, pad.y0 + (float)cr[3]);
            }
            int cx = strcmp(style(d, l, ST_OVERFLOW_X), "visible") != 0 &&
                     style(d, l, ST_OVERFLOW_X)[0];
            int cy = strcmp(style(d, l, ST_OVERFLOW_Y), "visible") != 0 &&
                     style(d, l, ST_OVERFLOW_Y)[0];
            f.cc[i] = clip_axis(inh, pad, cx, cy);
        }
        const dom_fact *fact = fact_get(d->ses, d->backend[i]);
        if (!fact || base_rect_empty(r))
            continue;
        out_node *o = NULL;
        if ((e = out_push(c, &o)))
            break;
        int idx = c->n_out - 1;
        f.scene[i] = idx;
        o->parent = p >= 0 ? f.anc[p] : owner;
        f.anc[i] = idx;
        o->doc = di;
        o->raw_paint = d->paint[l];
        o->child_doc = -1;
        o->r = r;
        o->has_clip = 1;
        o->clip = inh;
        o->tag = str_at(d->ses, d->name[i]);
        o->xpath = fact->xpath;
        o->chain = chain;
        const cJSON *kit = kit_get(d->ses, c->chains[chain], fact->xpath);
        o->role = base_strdup(kit_str(kit, 1));
        const char *type = attr(d, i, "type");
        const char *text = f.text[i];
        if (strcmp(tag, "input") == 0) {
            int iv = d->input_value[i];
            text = iv >= 0 ? str_at(d->ses, iv) : attr(d, i, "value");
            if (type && (strcmp(type, "checkbox") == 0 || strcmp(type, "radio") == 0))
                text = "";
        }
        /* A secret field's value (a password the browser autofilled, a card
         * number) never goes into a case: it is masked as the page kit masks
         * it in live answers (kit.secretField). */
        if ((strcmp(tag, "input") == 0 || strcmp(tag, "textarea") == 0) && text && text[0] &&
            base_field_secret(type, attr(d, i, "autocomplete")))
            text = "********";
        o->text = trimmed_dup(text);
        const char *al = attr(d, i, "aria-label");
        const char *lb = attr(d, i, "aria-labelledby");
        o->aria = al ? trimmed_dup(al) : lb ? labelledby(d, &f, lb) : trimmed_dup("");
        o->title = attr(d, i, "title");
        if (!o->role || !o->text || !o->aria) {
            e = base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
            break;
        }
        const char *ex = attr(d, i, "aria-expanded");
        o->ex = ex ? (strcmp(ex, "true") == 0 ? 1 : strcmp(ex, "false") == 0 ? 0 : -1) : -1;
        const char *hp = attr(d, i, "aria-haspopup");
        o->hp = hp && strcmp(hp, "false") != 0;
        const char *ad = attr(d, i, "aria-disabled");
        o->dis = (attr(d, i, "disabled") &&
                  (strcmp(tag, "button") == 0 || strcmp(tag, "input") == 0 ||
                   strcmp(tag, "select") == 0 || strcmp(tag, "textarea") == 0 ||
                   strcmp(tag, "option") == 0 || strcmp(tag, "fieldset") == 0)) ||
                 (ad && strcmp(ad, "true") == 0);
        o->cp = strcmp(style(d, l, ST_CURSOR), "pointer") == 0;
        /* A listener DOMDebugger names where the kit's recorder did not
         * run makes the element a control, as kit.isInteractive rules for
         * any listener (html and body never count: frameworks listen there
         * for everything below). */
        int dbg = !streq(tag, "html") && !streq(tag, "body") && dbg_has(d->ses, d->backend[i]);
        o->lis = kit_flag(kit, 3) || dbg;
        o->inter = kit_flag(kit, 2) || dbg;
        o->name = base_strdup(kit_str(kit, 4));
        o->hint = base_strdup(kit_str(kit, 5));
        if (!o->name || !o->hint) {
            e = base_errf(c->err, BASE_ENOMEM, "snapshot: out of memory");
            break;
        }
        o->ifr = strcmp(tag, "iframe") == 0 || strcmp(tag, "frame") == 0;
        o->pen = strcmp(style(d, l, ST_POINTER_EVENTS), "none") == 0;
        o->vh = strcmp(style(d, l, ST_VISIBILITY), "hidden") == 0 ||
                strcmp(style(d, l, ST_VISIBILITY), "collapse") == 0;
        const char *op = style(d, l, ST_OPACITY);
        o->op0 = op[0] && px(op) <= 0.0;
    }
    /* Children documents: the iframe's content box is their viewport. */
    for (int i = 0; i < n && !e; i++) {
        int idx = f.scene[i];
        if (idx < 0 || !c->out[idx].ifr)
            continue;
        const dom_fact *fact = fact_get(d->ses, d->backend[i]);
        int cd = fact ? find_doc(c, fact->frame_id) : -1;
        if (cd < 0 || c->docs[cd].placed) {
            c->missing++;
            continue;
        }
        int l = d->layout[i];
        const double *cr = &d->client[l * 4];
        double cox = c->out[idx].r.x0 + cr[0] + px(style(d, l, ST_PADDING_LEFT));
        double coy = c->out[idx].r.y0 + cr[1] + px(style(d, l, ST_PADDING_TOP));
        /* The child's #document layout box is its viewport size. */
        raw_doc *cdd = &c->docs[cd];
        double vw = cr[2], vh = cr[3];
        for (int k = 0; k < cdd->n; k++) {
            if (cdd->type[k] == 9 && cdd->layout[k] >= 0) {
                vw = cdd->bounds[cdd->layout[k] * 4 + 2];
                vh = cdd->bounds[cdd->layout[k] * 4 + 3];
                break;
            }
        }
        base_rect box = {(float)cox, (float)coy, (float)(cox + vw), (float)(coy + vh)};
        base_rect cl = base_rect_intersect(c->out[idx].clip, box);
        if (base_rect_empty(cl))
            cl = (base_rect){box.x0, box.y0, box.x0, box.y0};
        int ch = frame_chain_add(c, c->chains[chain], c->out[idx].xpath);
        if (ch < 0) {
            c->missing++;
            continue;
        }
        c->out[idx].child_doc = cd;
        c->out[idx].ifr = 0; /* its content is part of the model now */
        e = flatten_doc(c, cd, cox, coy, cl, idx, ch);
    }
    flat_free(&f, n);
    return e;
}

/* Paint ranks: each document's elements in its own paint order (ties in
 * document order), a captured iframe's document right after the iframe. */
static int emit_ranks(capture *c, int di, int rank, int depth)
{
    int m = 0;
    for (int i = 0; i < c->n_out; i++)
        m += c->out[i].doc == di;
    int *list = base_malloc((size_t)(m > 0 ? m : 1) * sizeof *list);
    if (!list)
        return -1;
    int k = 0;
    for (int i = 0; i < c->n_out; i++) {
        if (c->out[i].doc != di)
            continue;
        /* Insertion by raw paint order; stable for document order. Lists
         * are mostly sorted already. */
        int j = k++;
        while (j > 0 && c->out[list[j - 1]].raw_paint > c->out[i].raw_paint) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = i;
    }
    for (int j = 0; j < m && rank >= 0; j++) {
        c->out[list[j]].rank = rank++;
        int cd = c->out[list[j]].child_doc;
        if (cd >= 0 && depth < MAX_DOCS)
            rank = emit_ranks(c, cd, rank, depth + 1);
    }
    base_free(list);
    return rank;
}

static void add_rect(cJSON *o, const char *k, base_rect r)
{
    cJSON *a = cJSON_AddArrayToObject(o, k);
    float v[4] = {r.x0, r.y0, r.x1, r.y1};
    for (int i = 0; i < 4; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(round((double)v[i] * 100.0) / 100.0));
}

static void add_str(cJSON *o, const char *k, const char *v)
{
    if (v && v[0])
        cJSON_AddStringToObject(o, k, v);
}

static void add_flag(cJSON *o, const char *k, int v)
{
    if (v)
        cJSON_AddNumberToObject(o, k, v);
}

static cJSON *to_json(const capture *c, const char *url, int vw, int vh, double dsf, double sx,
                      double sy)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", FORMAT_ID);
    cJSON_AddStringToObject(root, "url", url);
    cJSON *vp = cJSON_AddArrayToObject(root, "viewport");
    cJSON_AddItemToArray(vp, cJSON_CreateNumber(vw));
    cJSON_AddItemToArray(vp, cJSON_CreateNumber(vh));
    cJSON_AddNumberToObject(root, "dsf", dsf);
    cJSON *sc = cJSON_AddArrayToObject(root, "scroll");
    cJSON_AddItemToArray(sc, cJSON_CreateNumber(sx));
    cJSON_AddItemToArray(sc, cJSON_CreateNumber(sy));
    cJSON_AddNumberToObject(root, "missing_frames", c->missing);
    cJSON *fr = cJSON_AddArrayToObject(root, "frames");
    for (int i = 0; i < c->n_chains; i++)
        cJSON_AddItemToArray(fr, cJSON_CreateString(c->chains[i]));
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    for (int i = 0; i < c->n_out; i++) {
        const out_node *o = &c->out[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "p", o->parent);
        char tag[64];
        snprintf(tag, sizeof tag, "%s", o->tag);
        for (char *q = tag; *q; q++)
            *q = (*q >= 'A' && *q <= 'Z') ? (char)(*q + 32) : *q;
        cJSON_AddStringToObject(j, "t", tag);
        add_rect(j, "r", o->r);
        cJSON_AddNumberToObject(j, "o", o->rank);
        cJSON_AddStringToObject(j, "x", o->xpath);
        if (o->chain)
            cJSON_AddNumberToObject(j, "f", o->chain);
        add_str(j, "role", o->role);
        add_str(j, "text", o->text);
        add_str(j, "aria", o->aria);
        add_str(j, "title", o->title);
        add_str(j, "name", o->name);
        add_str(j, "hint", o->hint);
        if (o->ex >= 0)
            cJSON_AddNumberToObject(j, "ex", o->ex);
        add_flag(j, "hp", o->hp);
        add_flag(j, "dis", o->dis);
        add_flag(j, "cp", o->cp);
        add_flag(j, "int", o->inter);
        add_flag(j, "ifr", o->ifr);
        add_flag(j, "pen", o->pen);
        add_flag(j, "vh", o->vh);
        add_flag(j, "op0", o->op0);
        add_flag(j, "lis", o->lis);
        if (o->has_clip && !(o->clip.x0 <= o->r.x0 && o->clip.y0 <= o->r.y0 &&
                             o->clip.x1 >= o->r.x1 && o->clip.y1 >= o->r.y1))
            add_rect(j, "clip", o->clip);
        cJSON_AddItemToArray(nodes, j);
    }
    return root;
}

static void capture_free(capture *c)
{
    for (int i = 0; i < c->n_docs; i++)
        doc_free(&c->docs[i]);
    for (int i = 0; i < c->n_ses; i++) {
        session_data *s = &c->ses[i];
        for (size_t k = 0; k < s->cap_facts; k++) {
            base_free(s->facts[k].xpath);
            base_free(s->facts[k].frame_id);
        }
        base_free(s->facts);
        base_free(s->strings);
        base_free(s->dbg_lis);
        for (int k = 0; k < s->n_kit_els; k++)
            base_free(s->kit_els[k].key);
        base_free(s->kit_els);
        cJSON_Delete(s->kit);
        cJSON_Delete(s->snap);
    }
    for (int i = 0; i < c->n_chains; i++)
        base_free(c->chains[i]);
    for (int i = 0; i < c->n_out; i++) {
        base_free(c->out[i].role);
        base_free(c->out[i].text);
        base_free(c->out[i].aria);
        base_free(c->out[i].name);
        base_free(c->out[i].hint);
    }
    base_free(c->out);
}

base_err rec_snapshot_capture(cdp_page *page, cJSON **out, char *err)
{
    if (!page || !out)
        return base_errf(err, BASE_EINVAL, "snapshot: NULL argument");
    capture *c = base_calloc(1, sizeof *c);
    if (!c)
        return base_errf(err, BASE_ENOMEM, "snapshot: out of memory");
    c->page = page;
    c->err = err;
    base_err e = BASE_OK;
    /* The page's own session first, then one per out-of-process frame. */
    cdp_frame frames[MAX_DOCS];
    int nf = cdp_page_frames(page, frames, MAX_DOCS);
    if (nf > MAX_DOCS)
        nf = MAX_DOCS;
    c->n_ses = 1;
    for (int i = 0; i < nf && c->n_ses < MAX_SESSIONS; i++) {
        if (!frames[i].oopif || !frames[i].session[0])
            continue;
        int dup = 0;
        for (int k = 0; k < c->n_ses; k++)
            dup |= strcmp(c->ses[k].sid, frames[i].session) == 0;
        if (!dup)
            snprintf(c->ses[c->n_ses++].sid, sizeof c->ses[0].sid, "%s", frames[i].session);
    }
    for (int i = 0; i < c->n_ses && !e; i++) {
        e = session_capture(c, &c->ses[i]);
        if (e && i > 0) {
            /* A frame that went away meanwhile: leave it as an opaque iframe. */
            base_errclear(err);
            cJSON_Delete(c->ses[i].snap);
            c->ses[i].snap = NULL;
            e = BASE_OK;
            continue;
        }
        const cJSON *jd;
        cJSON_ArrayForEach(jd, obj(c->ses[i].snap, "documents"))
        {
            if (e || c->n_docs >= MAX_DOCS)
                break;
            e = doc_parse(c, &c->ses[i], jd, &c->docs[c->n_docs]);
            if (!e)
                c->n_docs++;
        }
    }
    if (!e && c->n_docs == 0)
        e = base_errf(err, BASE_EPROTO, "snapshot: the page has no document");
    int vw = 0, vh = 0;
    if (!e) {
        raw_doc *top = &c->docs[0];
        for (int k = 0; k < top->n; k++) {
            if (top->type[k] == 9 && top->layout[k] >= 0) {
                vw = (int)lround(top->bounds[top->layout[k] * 4 + 2]);
                vh = (int)lround(top->bounds[top->layout[k] * 4 + 3]);
                break;
            }
        }
        const cdp_page_opts *po = cdp_page_viewport(page);
        if (vw <= 0 || vh <= 0) {
            vw = po && po->width ? po->width : 1280;
            vh = po && po->height ? po->height : 800;
        }
        c->chains[0] = base_strdup("");
        c->n_chains = c->chains[0] ? 1 : 0;
        if (!c->chains[0])
            e = base_errf(err, BASE_ENOMEM, "snapshot: out of memory");
        else
            e = flatten_doc(c, 0, 0.0, 0.0, (base_rect){0, 0, (float)vw, (float)vh}, -1, 0);
    }
    if (!e && emit_ranks(c, 0, 0, 0) < 0)
        e = base_errf(err, BASE_ENOMEM, "snapshot: out of memory");
    if (!e) {
        const cJSON *ud = obj(c->docs[0].ses->snap, "documents");
        const cJSON *url = obj(ud ? ud->child : NULL, "documentURL");
        const char *u = cJSON_IsNumber(url) ? str_at(&c->ses[0], json_int(url, -1)) : "";
        const cdp_page_opts *po = cdp_page_viewport(page);
        double dsf = po && po->scale > 0 ? po->scale : 1.0;
        /* to_json adds members unchecked: a failed allocation while it ran
         * means a node or field may be missing, and a snapshot that silently
         * lacks one would replay as another page. */
        unsigned long fails0 = base_alloc_thread_failures();
        cJSON *j = to_json(c, u, vw, vh, dsf, c->docs[0].scroll_x, c->docs[0].scroll_y);
        if (j && base_alloc_thread_failures() != fails0) {
            cJSON_Delete(j);
            j = NULL;
        }
        if (!j)
            e = base_errf(err, BASE_ENOMEM, "snapshot: out of memory");
        else
            *out = j;
    }
    capture_free(c);
    base_free(c);
    return e;
}

/* ---- Loading ------------------------------------------------------------- */

/* Copies s into the snapshot's owned strings; "" shares one static. */
static base_err own_str(rec_snapshot *s, const char *v, const char **out)
{
    if (!v || !v[0]) {
        *out = "";
        return BASE_OK;
    }
    if (s->n_strs == s->cap_strs) {
        int cap = s->cap_strs ? s->cap_strs * 2 : 256;
        char **n = base_realloc(s->strs, (size_t)cap * sizeof *n);
        if (!n)
            return BASE_ENOMEM;
        s->strs = n;
        s->cap_strs = cap;
    }
    char *d = base_strdup(v);
    if (!d)
        return BASE_ENOMEM;
    s->strs[s->n_strs++] = d;
    *out = d;
    return BASE_OK;
}

static base_err get_rect(const cJSON *o, const char *k, int i, base_rect *r, int *present,
                         char *err)
{
    const cJSON *a = obj(o, k);
    *present = a != NULL;
    if (!a)
        return BASE_OK;
    float v[4];
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (n >= 4 || !cJSON_IsNumber(x) || !isfinite(x->valuedouble) ||
            fabs(x->valuedouble) > 1e7)
            return base_errf(err, BASE_EPROTO, "snapshot: nodes[%d].%s: expected [x0,y0,x1,y1]",
                             i, k);
        v[n++] = (float)x->valuedouble;
    }
    if (!cJSON_IsArray(a) || n != 4 || v[2] < v[0] || v[3] < v[1])
        return base_errf(err, BASE_EPROTO,
                         "snapshot: nodes[%d].%s: expected [x0,y0,x1,y1] with x0<=x1, y0<=y1", i,
                         k);
    *r = (base_rect){v[0], v[1], v[2], v[3]};
    return BASE_OK;
}

/* Integer field k of node i in lo..hi, dflt when absent. */
static base_err get_int(const cJSON *o, const char *k, int i, int lo, int hi, int dflt, int *v,
                        char *err)
{
    const cJSON *x = obj(o, k);
    if (!x) {
        *v = dflt;
        return BASE_OK;
    }
    if (!cJSON_IsNumber(x) || base_num_to_int_exact(x->valuedouble, lo, hi, v) != BASE_OK)
        return base_errf(err, BASE_EPROTO, "snapshot: nodes[%d].%s: expected an integer in %d..%d",
                         i, k, lo, hi);
    return BASE_OK;
}

static base_err get_str(rec_snapshot *s, const cJSON *o, const char *k, int i, const char **v,
                        char *err)
{
    const cJSON *x = obj(o, k);
    if (!x) {
        *v = "";
        return BASE_OK;
    }
    if (!cJSON_IsString(x))
        return base_errf(err, BASE_EPROTO, "snapshot: nodes[%d].%s: expected a string", i, k);
    if (strlen(x->valuestring) > REC_SNAPSHOT_MAX_STR)
        return base_errf(err, BASE_ETOOBIG, "snapshot: nodes[%d].%s: string longer than %d", i,
                         k, REC_SNAPSHOT_MAX_STR);
    if (own_str(s, x->valuestring, v))
        return base_errf(err, BASE_ENOMEM, "snapshot: out of memory");
    return BASE_OK;
}

static base_err load_node(rec_snapshot *s, const cJSON *o, int i, const char **frames,
                          int n_frames, char *err)
{
    if (!cJSON_IsObject(o))
        return base_errf(err, BASE_EPROTO, "snapshot: nodes[%d]: expected an object", i);
    snap_candidate c;
    snap_scene_node nd;
    memset(&c, 0, sizeof c);
    memset(&nd, 0, sizeof nd);
    int present, f, b;
    base_err e;
    if ((e = get_int(o, "p", i, -1, i - 1, -1, &c.parent, err)) ||
        (e = get_int(o, "o", i, 0, 0x7fffffff, 0, &c.paint_order, err)) ||
        (e = get_int(o, "f", i, 0, n_frames - 1, 0, &f, err)) ||
        (e = get_int(o, "ex", i, -1, 1, -1, &c.aria_expanded, err)) ||
        (e = get_rect(o, "r", i, &c.rect, &present, err)))
        return e;
    if (!present)
        return base_errf(err, BASE_EPROTO, "snapshot: nodes[%d].r: missing", i);
    if ((e = get_rect(o, "clip", i, &nd.clip, &nd.has_clip, err)) ||
        (e = get_str(s, o, "t", i, &c.tag, err)) || (e = get_str(s, o, "x", i, &c.xpath, err)) ||
        (e = get_str(s, o, "role", i, &c.role, err)) ||
        (e = get_str(s, o, "text", i, &c.text, err)) ||
        (e = get_str(s, o, "aria", i, &c.aria_label, err)) ||
        (e = get_str(s, o, "title", i, &c.title, err)) ||
        (e = get_str(s, o, "name", i, &c.name, err)) ||
        (e = get_str(s, o, "hint", i, &c.hint, err)))
        return e;
    if (!c.tag[0] || !c.xpath[0])
        return base_errf(err, BASE_EPROTO, "snapshot: nodes[%d]: missing \"t\" or \"x\"", i);
    c.frame_chain = frames[f];
    static const char *const flags[] = {"hp",  "dis", "cp", "int", "ifr",
                                        "pen", "vh",  "op0", "lis"};
    int *dst[] = {&c.aria_haspopup,  &c.disabled,           &c.cursor_pointer,
                  &c.is_interactive, &c.is_iframe,          &nd.pointer_events_none,
                  &nd.visibility_hidden, &nd.opacity_zero,  &c.has_listener};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        if ((e = get_int(o, flags[k], i, 0, 1, 0, &b, err)))
            return e;
        *dst[k] = b;
    }
    e = snap_scene_add(&s->scene, &c, &nd, NULL);
    if (e)
        return base_errf(err, e, "snapshot: nodes[%d]: %s", i, base_strerror(e));
    return BASE_OK;
}

static base_err get_pair(const cJSON *root, const char *k, double lo, double hi, double *a,
                         double *b, char *err)
{
    const cJSON *v = obj(root, k);
    if (!v) {
        return BASE_OK;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 || !cJSON_IsNumber(v->child) ||
        !cJSON_IsNumber(v->child->next) || !(v->child->valuedouble >= lo) ||
        !(v->child->valuedouble <= hi) || !(v->child->next->valuedouble >= lo) ||
        !(v->child->next->valuedouble <= hi))
        return base_errf(err, BASE_EPROTO, "snapshot: %s: expected two numbers in %g..%g", k,
                         lo, hi);
    *a = v->child->valuedouble;
    *b = v->child->next->valuedouble;
    return BASE_OK;
}

base_err rec_snapshot_load(const cJSON *root, rec_snapshot *out, char *err)
{
    if (!root || !out)
        return base_errf(err, BASE_EINVAL, "snapshot: NULL argument");
    const cJSON *fmt = obj(root, "format");
    if (!cJSON_IsObject(root) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, FORMAT_ID) != 0)
        return base_errf(err, BASE_EPROTO, "snapshot: not a %s document (\"format\")", FORMAT_ID);
    const cJSON *nodes = obj(root, "nodes"), *frames = obj(root, "frames");
    if (!cJSON_IsArray(nodes))
        return base_errf(err, BASE_EPROTO, "snapshot: nodes: expected an array");
    if (frames && !cJSON_IsArray(frames))
        return base_errf(err, BASE_EPROTO, "snapshot: frames: expected an array of strings");
    int nn = cJSON_GetArraySize(nodes);
    int nfr = frames ? cJSON_GetArraySize(frames) : 0;
    if (nn > REC_SNAPSHOT_MAX_NODES)
        return base_errf(err, BASE_ETOOBIG, "snapshot: %d nodes, at most %d", nn,
                         REC_SNAPSHOT_MAX_NODES);
    if (nfr > MAX_DOCS * 4)
        return base_errf(err, BASE_ETOOBIG, "snapshot: %d frames, at most %d", nfr, MAX_DOCS * 4);
    rec_snapshot s;
    memset(&s, 0, sizeof s);
    snap_scene_init(&s.scene);
    s.dsf = 1.0;
    const char *fr[MAX_DOCS * 4 + 1];
    fr[0] = "";
    base_err e = BASE_OK;
    double vw = 0, vh = 0;
    const cJSON *x;
    int i = 0;
    cJSON_ArrayForEach(x, frames)
    {
        if (!cJSON_IsString(x) || strlen(x->valuestring) > REC_SNAPSHOT_MAX_STR) {
            e = base_errf(err, BASE_EPROTO, "snapshot: frames[%d]: expected a string", i);
            goto fail;
        }
        if (own_str(&s, x->valuestring, &fr[i])) {
            e = base_errf(err, BASE_ENOMEM, "snapshot: out of memory");
            goto fail;
        }
        i++;
    }
    if (nfr == 0)
        nfr = 1; /* frame 0, the top document, is implicit */
    if ((e = get_pair(root, "viewport", 1, 16384, &vw, &vh, err)) ||
        (e = get_pair(root, "scroll", -1e7, 1e7, &s.scroll_x, &s.scroll_y, err)))
        goto fail;
    s.vw = (int)vw;
    s.vh = (int)vh;
    const cJSON *dsf = obj(root, "dsf");
    if (dsf && (!cJSON_IsNumber(dsf) || !(dsf->valuedouble >= 0.25 && dsf->valuedouble <= 8))) {
        e = base_errf(err, BASE_EPROTO, "snapshot: dsf: expected a number in 0.25..8");
        goto fail;
    }
    s.dsf = dsf ? dsf->valuedouble : 1.0;
    const cJSON *mf = obj(root, "missing_frames");
    s.missing_frames = 0;
    if (cJSON_IsNumber(mf) && base_num_to_int(mf->valuedouble, 0, 999999, &s.missing_frames))
        s.missing_frames = 0;
    const cJSON *url = obj(root, "url");
    const char *u = "";
    if (url && (!cJSON_IsString(url) || own_str(&s, url->valuestring, &u))) {
        e = base_errf(err, cJSON_IsString(url) ? BASE_ENOMEM : BASE_EPROTO,
                      "snapshot: url: expected a string");
        goto fail;
    }
    s.url = u;
    i = 0;
    cJSON_ArrayForEach(x, nodes)
    {
        if ((e = load_node(&s, x, i, fr, nfr, err)))
            goto fail;
        i++;
    }
    *out = s;
    return BASE_OK;
fail:
    rec_snapshot_fini(&s);
    return e;
}

base_err rec_snapshot_parse(const char *json, size_t len, rec_snapshot *out, char *err)
{
    if (!json || !out)
        return base_errf(err, BASE_EINVAL, "snapshot: NULL argument");
    if (len > REC_SNAPSHOT_MAX_BYTES)
        return base_errf(err, BASE_ETOOBIG, "snapshot: %zu bytes, at most %u", len,
                         REC_SNAPSHOT_MAX_BYTES);
    char *fx = NULL; /* page text may hold half a surrogate pair (base/utf8.h) */
    base_json_fix_surrogates(json, len, &fx);
    cJSON *root = cJSON_ParseWithLength(fx ? fx : json, len);
    if (!root) {
        /* cJSON says NULL for both bad text and no memory: tell them apart. */
        char why[BASE_ERRBUF_SIZE] = "";
        base_err pe = base_json_parse_error(fx ? fx : json, len, why);
        base_free(fx);
        return base_errf(err, pe, "snapshot: %s", pe == BASE_ENOMEM ? why : "not valid JSON");
    }
    base_free(fx);
    base_err e = rec_snapshot_load(root, out, err);
    cJSON_Delete(root);
    return e;
}

base_err rec_snapshot_read_file(const char *path, rec_snapshot *out, char *err)
{
    if (!path || !out)
        return base_errf(err, BASE_EINVAL, "snapshot: NULL argument");
    uint8_t *data = NULL;
    size_t n = 0;
    base_err e = base_read_file(path, &data, &n, REC_SNAPSHOT_MAX_BYTES, err);
    if (e)
        return e;
    e = rec_snapshot_parse((const char *)data, n, out, err);
    base_free(data);
    return e;
}

void rec_snapshot_fini(rec_snapshot *s)
{
    if (!s)
        return;
    snap_scene_fini(&s->scene);
    for (int i = 0; i < s->n_strs; i++)
        base_free(s->strs[i]);
    base_free(s->strs);
    memset(s, 0, sizeof *s);
}

int rec_snapshot_find(const rec_snapshot *s, const char *xpath, const char *frame_chain)
{
    if (!s || !xpath)
        return -1;
    const char *fc = frame_chain ? frame_chain : "";
    for (int i = 0; i < s->scene.n; i++) {
        const snap_candidate *c = &s->scene.cand[i];
        if (strcmp(c->xpath, xpath) == 0 && strcmp(c->frame_chain, fc) == 0)
            return i;
    }
    return -1;
}

/* 1 when path p is q or below it ("/a[1]/b[2]" is below "/a[1]"). */
static int path_within(const char *p, const char *q)
{
    size_t n = strlen(q);
    return strncmp(p, q, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int rec_snapshot_within(const rec_snapshot *s, int cand, const char *xpath,
                         const char *frame_chain)
{
    if (!s || !xpath || cand < 0 || cand >= s->scene.n)
        return 0;
    const snap_candidate *c = &s->scene.cand[cand];
    const char *fc = frame_chain ? frame_chain : "";
    if (strcmp(c->frame_chain, fc) == 0)
        return path_within(c->xpath, xpath);
    /* In a deeper document: the iframe holding it, as seen from fc's
     * document, must be the element or inside it. */
    size_t n = strlen(fc);
    const char *rest = c->frame_chain;
    if (n > 0) {
        if (strncmp(rest, fc, n) != 0 || rest[n] != '|')
            return 0;
        rest += n + 1;
    }
    char first[REC_SNAPSHOT_MAX_STR + 1];
    size_t k = strcspn(rest, "|");
    if (k > REC_SNAPSHOT_MAX_STR)
        return 0;
    memcpy(first, rest, k);
    first[k] = '\0';
    return path_within(first, xpath);
}

/* perception/enrich_frames.c: the selector-map probe over every frame of a
 * page, cross-origin iframes included.
 *
 * assets/js/enrich.js, evaluated in the top document, lists the top
 * document's interactive elements and enters same-origin iframes itself. A
 * cross-origin iframe is closed to it: either it runs in another renderer
 * (an out-of-process iframe, reached through its own flattened CDP session)
 * or it shares the process but not the origin (same site, another port or
 * subdomain: no session of its own, so the script runs in an isolated world
 * created for that frame). Each such frame gets its own pass of the same
 * script, and its elements are then carried up into the top viewport by the
 * script's owner mode, called on the frame's <iframe> element in the parent
 * document (DOM.getFrameOwner + DOM.resolveNode): it adds the content-box
 * origin, clips to the part of the frame visible there and drops elements
 * whose frame is not on top at their centre (a modal over the iframe).
 * Passes are created top-down along the CDP frame tree and translated
 * bottom-up, so nested cross-origin frames compose one level at a time. A
 * frame no part of which shows (scrolled away, display:none, 1x1 beacons
 * clipped by their parent) gets no pass at all, nor do its descendants.
 *
 * The same owner lookup gives same-origin frames their CDP frame ids: the
 * top pass reports, per frame it entered, the xpath of its <iframe>
 * element; the owner of each CDP frame is matched by that xpath under the
 * same parent. A frame that cannot be probed is skipped, logged and counted
 * (perc__probe.n_skipped) rather than silently missing.
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/log.h"
#include "base/num.h"
#include "base/utf8.h"
#include "cdp/frames.h"
#include "perception/enrich_int.h"
#include "perception/js.h"
#include "perception/kit.h"
#include "perception/script_int.h"

#define EF_TOP_TIMEOUT_MS 15000
#define EF_FRAME_TIMEOUT_MS 3000
#define EF_MAX_FRAMES 128
#define EF_MAX_PASSES 64
#define EF_MAX_ITEMS 20000
#define EF_GROUP "fovea_enrich"

/* One run of enrich.js: the top document, or a frame the runs above it
 * could not enter. */
typedef struct pass {
    char frame_id[64];      /* the frame it started in */
    char session[64];       /* session owning that frame */
    int context;            /* isolated world's execution context, 0 = session default */
    int parent;             /* pass holding the frame's <iframe> element, -1 for the top */
    int hops;               /* same-origin frame levels from that element up to the parent's root */
    char owner_session[64]; /* session of the parent frame */
    char owner_obj[160];    /* RemoteObjectId of the <iframe> element there */
    cJSON *reply;
} pass;

/* Where a CDP frame's document was listed: pass and JS frame index (-1 =
 * the pass's own document), or one of the AT_ states. */
typedef struct where {
    int pass, js;
} where;

enum {
    AT_PENDING = -1, /* not placed yet */
    AT_FAILED = -2,  /* could not be probed (logged, counted) */
    AT_HIDDEN = -3   /* no part of it shows: nothing to list */
};

/* An item while passes are merged: space = the pass whose viewport its rect
 * is in now. */
typedef struct slot {
    perc__item it;
    int pass, js, space, alive;
} slot;

typedef struct probe_run {
    cdp_page *page;
    cdp_frame *fr;
    int nf;
    where *at;
    pass *ps;
    int np;
    slot *sl;
    int ns, cap;
    int skipped;
    /* Sessions holding owner references (object group EF_GROUP). */
    char used[EF_MAX_PASSES + 1][64];
    int n_used;
} probe_run;

static double num(const cJSON *o, const char *k, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

cJSON *perc__parse_page_json(const char *text)
{
    size_t n = strlen(text);
    char *fx = NULL;
    base_json_fix_surrogates(text, n, &fx);
    cJSON *r = cJSON_ParseWithLength(fx ? fx : text, n);
    base_free(fx);
    return r;
}

int perc__json_int(const cJSON *o, const char *k, int dflt, int lo, int hi)
{
    int v = dflt;
    return base_num_to_int(num(o, k, dflt), lo, hi, &v) == BASE_OK ? v : dflt;
}

const char *perc__json_str(const cJSON *o, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return s ? s : "";
}

/* The JSON string a Runtime.evaluate / callFunctionOn reply carries, parsed
 * into *out; a thrown exception is BASE_EREMOTE. Consumes res. */
static base_err reply_json(cJSON *res, cJSON **out, char *err)
{
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(res, "exceptionDetails");
    if (ex) {
        const char *d =
            perc__json_str(cJSON_GetObjectItemCaseSensitive(ex, "exception"), "description");
        base_err e = base_errf(err, BASE_EREMOTE, "enrich: page script threw: %.200s",
                               d[0] ? d : perc__json_str(ex, "text"));
        cJSON_Delete(res);
        return e;
    }
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
    cJSON *r = cJSON_IsString(v) ? perc__parse_page_json(v->valuestring) : NULL;
    cJSON_Delete(res);
    if (!r)
        return base_errf(err, BASE_EPROTO, "enrich: probe reply is not a JSON string");
    *out = r;
    return BASE_OK;
}

/* enrich.js (page kit included), installed once per document
 * (perception/script_int.h; key "fovea.enrich.HASH", as before). */
static const perc__script enrich_script = {fovea_js_enrich, &fovea_js_enrich_len, "enrich"};

/* Evaluates (enrich.js)(arg) in session (context 0: fovea's world). The
 * script (with the page kit, tens of KB to parse) is sent once per document
 * (perc__script_call); later passes send the short call. */
static base_err eval_pass(cdp_page *page, const char *session, int context, const char *arg,
                          int timeout_ms, cJSON **out, char *err)
{
    cJSON *r = NULL;
    /* A closed shadow root appeared (the reply says "closed"): hand the
     * document's closed roots to fovea's world and read the page again. */
    for (int round = 0; round < 2; round++) {
        cJSON *v = NULL;
        base_err e = perc__script_call(page, session, context, &enrich_script, arg, timeout_ms,
                                       &v, NULL, err);
        if (e) {
            cJSON_Delete(r);
            return e;
        }
        cJSON_Delete(r);
        r = cJSON_IsString(v) ? perc__parse_page_json(v->valuestring) : NULL;
        cJSON_Delete(v);
        if (!r)
            return base_errf(err, BASE_EPROTO, "enrich: probe reply is not a JSON string");
        const cJSON *closed = cJSON_GetObjectItemCaseSensitive(r, "closed");
        if (round > 0 || !cJSON_IsNumber(closed) || closed->valuedouble != 1)
            break;
        perc_kit_closed_roots(page, session, context);
    }
    int nm = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "map"));
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "map")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "frames")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "boxes")) || nm > EF_MAX_ITEMS) {
        cJSON_Delete(r);
        return base_errf(err, BASE_EPROTO, "enrich: probe reply is not {map, frames, boxes}");
    }
    *out = r;
    return BASE_OK;
}

/* Looks up frame_id's <iframe> element in its parent's (parent_id) session
 * and keeps a remote reference to it (object group EF_GROUP, released at the
 * end), resolved in fovea's isolated world of the parent frame: the call on
 * it then runs there too, out of the page's reach. */
static base_err owner_of(probe_run *r, const char *session, const char *parent_id,
                         const char *frame_id, char *obj, size_t cap, char *err)
{
    cdp_page *page = r->page;
    int backend = 0;
    base_err e = cdp_frame_owner_node(page, session, frame_id, EF_FRAME_TIMEOUT_MS, &backend, err);
    if (e)
        return e;
    int ctx = 0;
    e = cdp_page_world(page, session, parent_id, EF_FRAME_TIMEOUT_MS, &ctx, err);
    if (e)
        return e;
    cJSON *res = NULL;
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddNumberToObject(pa, "backendNodeId", backend) ||
        !cJSON_AddNumberToObject(pa, "executionContextId", ctx) ||
        !cJSON_AddStringToObject(pa, "objectGroup", EF_GROUP)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    }
    res = NULL;
    e = cdp_call(cdp_page_conn(page), session, "DOM.resolveNode", pa, &res, EF_FRAME_TIMEOUT_MS,
                 err);
    if (e)
        return e;
    const char *id = perc__json_str(cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId");
    if (!id[0] || strlen(id) >= cap) {
        cJSON_Delete(res);
        return base_errf(err, BASE_EPROTO, "enrich: DOM.resolveNode gave no usable objectId");
    }
    snprintf(obj, cap, "%s", id);
    cJSON_Delete(res);
    int seen = 0;
    for (int k = 0; k < r->n_used && !seen; k++)
        seen = strcmp(r->used[k], session) == 0;
    if (!seen && r->n_used < EF_MAX_PASSES + 1)
        snprintf(r->used[r->n_used++], sizeof r->used[0], "%s", session);
    return BASE_OK;
}

/* Appends an empty CallArgument to args; NULL on ENOMEM. */
static cJSON *add_arg(cJSON *args)
{
    cJSON *a = cJSON_CreateObject();
    if (a && !cJSON_AddItemToArray(args, a)) {
        cJSON_Delete(a);
        a = NULL;
    }
    return a;
}

/* Calls enrich.js in owner mode on q's <iframe> element: rects (consumed,
 * NULL: identification only) and q's hops. */
static base_err call_owner(cdp_page *page, const pass *q, cJSON *rects, cJSON **out, char *err)
{
    cJSON *pa = cJSON_CreateObject();
    cJSON *args = cJSON_AddArrayToObject(pa, "arguments");
    cJSON *a0 = add_arg(args), *a1 = add_arg(args), *a2 = add_arg(args), *a3 = add_arg(args);
    int ok = a0 && a1 && a2 && a3 && cJSON_AddNullToObject(a0, "value") &&
             cJSON_AddStringToObject(a1, "objectId", q->owner_obj) &&
             cJSON_AddNumberToObject(a3, "value", q->hops) &&
             cJSON_AddStringToObject(pa, "functionDeclaration", (const char *)fovea_js_enrich) &&
             cJSON_AddStringToObject(pa, "objectId", q->owner_obj) &&
             cJSON_AddBoolToObject(pa, "returnByValue", 1);
    if (ok && rects) {
        ok = cJSON_AddItemToObject(a2, "value", rects);
        if (ok)
            rects = NULL;
    } else if (ok) {
        ok = cJSON_AddNullToObject(a2, "value") != NULL;
    }
    cJSON_Delete(rects);
    if (!ok) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    }
    cJSON *res = NULL;
    base_err e = cdp_call(cdp_page_conn(page), q->owner_session, "Runtime.callFunctionOn", pa, &res,
                          EF_FRAME_TIMEOUT_MS, err);
    return e ? e : reply_json(res, out, err);
}

/* Appends pass q's map entries as slots in q's viewport. */
static base_err add_slots(probe_run *r, int q, char *err)
{
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(r->ps[q].reply, "map");
    const cJSON *states = cJSON_GetObjectItemCaseSensitive(r->ps[q].reply, "states");
    int nm = cJSON_GetArraySize(map);
    if (nm > EF_MAX_ITEMS - r->ns)
        return base_errf(err, BASE_EPROTO, "enrich: more than %d elements", EF_MAX_ITEMS);
    if (r->ns + nm > r->cap) {
        int cap = r->ns + nm + 64;
        slot *s = base_realloc(r->sl, (size_t)cap * sizeof *s);
        if (!s)
            return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
        r->sl = s;
        r->cap = cap;
    }
    int base = r->ns, i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, map)
    {
        if (!cJSON_IsObject(m))
            return base_errf(err, BASE_EPROTO, "enrich: map[%d] is not an object", i);
        slot *s = &r->sl[r->ns++];
        memset(s, 0, sizeof *s);
        perc__item *it = &s->it;
        it->sel.r = (base_rect){(float)num(m, "x0", 0), (float)num(m, "y0", 0),
                                (float)num(m, "x1", 0), (float)num(m, "y1", 0)};
        snprintf(it->sel.xpath, sizeof it->sel.xpath, "%s", perc__json_str(m, "xpath"));
        snprintf(it->sel.label, sizeof it->sel.label, "%s", perc__json_str(m, "label"));
        snprintf(it->kind, sizeof it->kind, "%s", perc__json_str(m, "kind"));
        char key[16];
        snprintf(key, sizeof key, "%d", i);
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(states, key);
        it->expanded = perc__json_int(st, "expanded", -1, -1, 1);
        it->active = perc__json_int(st, "active", -1, -1, 1);
        snprintf(it->labelledby, sizeof it->labelledby, "%s", perc__json_str(st, "labelledby"));
        int c = perc__json_int(st, "ctl", -1, -1, nm - 1);
        it->ctl = c >= 0 ? base + c : -1;
        s->pass = s->space = q;
        s->js = perc__json_int(m, "frame", -1, -1, EF_MAX_FRAMES);
        s->alive = 1;
        i++;
    }
    return BASE_OK;
}

/* Frame levels from JS frame j of reply up to its pass's own document. */
static int js_depth(const cJSON *reply, int j)
{
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(reply, "frames");
    int d = 0;
    while (j >= 0 && d < EF_MAX_FRAMES) {
        j = perc__json_int(cJSON_GetArrayItem(frames, j), "parent", -1, -1, j - 1);
        d++;
    }
    return d;
}

static int frame_index(const probe_run *r, const char *id)
{
    for (int i = 0; i < r->nf; i++)
        if (strcmp(r->fr[i].id, id) == 0)
            return i;
    return -1;
}

static void skip_frame(probe_run *r, int i, const char *why)
{
    r->at[i].pass = AT_FAILED;
    r->skipped++;
    /* The frame id, not its URL: URLs may carry tokens. */
    base_log(BASE_LOG_PERC, BASE_LOG_WARN, "enrich: frame %s (%s) not probed: %s", r->fr[i].id,
             r->fr[i].oopif ? "out-of-process" : "in-process", why);
}

/* Places CDP frame i (whose parent frame pi is placed): in the document of
 * a pass that entered it, or in a new pass of its own. */
static base_err place_frame(probe_run *r, int i, int pi, const char *arg, char *err)
{
    const where up = r->at[pi];
    const cdp_frame *f = &r->fr[i];
    char e2[BASE_ERRBUF_SIZE] = "";
    /* ps has one spare entry: q is scratch until the frame gets a pass. */
    pass *q = &r->ps[r->np];
    memset(q, 0, sizeof *q);
    snprintf(q->owner_session, sizeof q->owner_session, "%s", r->fr[pi].session);
    base_err e = owner_of(r, q->owner_session, r->fr[pi].id, f->id, q->owner_obj, sizeof q->owner_obj, e2);
    if (e == BASE_ENOMEM)
        return base_errf(err, e, "%s", e2);
    if (e) {
        skip_frame(r, i, e2);
        return BASE_OK;
    }
    q->parent = up.pass;
    q->hops = js_depth(r->ps[up.pass].reply, up.js);
    /* The <iframe> element's xpath, and whether any of the frame shows. */
    cJSON *id = NULL;
    e = call_owner(r->page, q, NULL, &id, e2);
    if (e == BASE_ENOMEM)
        return base_errf(err, e, "%s", e2);
    if (e) {
        skip_frame(r, i, e2);
        return BASE_OK;
    }
    const char *oxp = perc__json_str(id, "oxp");
    int visible = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(id, "visible"));
    /* In the parent's process: did the parent's pass enter it? */
    const cJSON *jf = NULL;
    int j = 0;
    if (!f->oopif) {
        const cJSON *frames = cJSON_GetObjectItemCaseSensitive(r->ps[up.pass].reply, "frames");
        cJSON_ArrayForEach(jf, frames)
        {
            if (perc__json_int(jf, "parent", -2, -1, EF_MAX_FRAMES) == up.js &&
                strcmp(perc__json_str(jf, "oxp"), oxp) == 0)
                break;
            j++;
        }
    }
    cJSON_Delete(id);
    if (jf) {
        r->at[i] = (where){up.pass, j};
        return BASE_OK;
    }
    if (!visible) {
        r->at[i] = (where){AT_HIDDEN, -1};
        return BASE_OK;
    }
    if (r->np >= EF_MAX_PASSES) {
        skip_frame(r, i, "too many cross-origin frames");
        return BASE_OK;
    }
    if (!f->oopif) {
        /* Chromium keeps one world per name and frame, so repeated probes
         * reuse it. */
        e = cdp_frame_isolated_world(r->page, f->session, f->id, EF_GROUP, EF_FRAME_TIMEOUT_MS,
                                     &q->context, e2);
        if (e) {
            skip_frame(r, i, e2);
            return e == BASE_ENOMEM ? base_errf(err, e, "%s", e2) : BASE_OK;
        }
    }
    snprintf(q->frame_id, sizeof q->frame_id, "%s", f->id);
    snprintf(q->session, sizeof q->session, "%s", f->session);
    e = eval_pass(r->page, q->session, q->context, arg, EF_FRAME_TIMEOUT_MS, &q->reply, e2);
    if (e == BASE_ENOMEM)
        return base_errf(err, e, "%s", e2);
    if (e) {
        skip_frame(r, i, e2);
        return BASE_OK;
    }
    r->at[i] = (where){r->np++, -1};
    return add_slots(r, r->np - 1, err);
}

/* Carries pass q's live slots into its parent's viewport. */
static base_err lift_pass(probe_run *r, int q, char *err)
{
    cJSON *rects = cJSON_CreateArray();
    if (!rects)
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    int n = 0;
    for (int k = 0; k < r->ns; k++) {
        slot *s = &r->sl[k];
        if (!s->alive || s->space != q)
            continue;
        float v[4] = {s->it.sel.r.x0, s->it.sel.r.y0, s->it.sel.r.x1, s->it.sel.r.y1};
        cJSON *a = cJSON_CreateFloatArray(v, 4);
        if (!a || !cJSON_AddItemToArray(rects, a)) {
            cJSON_Delete(a);
            cJSON_Delete(rects);
            return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
        }
        n++;
    }
    if (n == 0) {
        cJSON_Delete(rects);
        return BASE_OK;
    }
    char e2[BASE_ERRBUF_SIZE] = "";
    cJSON *res = NULL;
    base_err e = call_owner(r->page, &r->ps[q], rects, &res, e2);
    if (e == BASE_ENOMEM)
        return base_errf(err, e, "%s", e2);
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(res, "rects");
    if (!e && cJSON_GetArraySize(out) != n)
        e = base_errf(e2, BASE_EPROTO, "owner mode answered %d rects for %d",
                      cJSON_GetArraySize(out), n);
    if (e) {
        r->skipped++;
        base_log(BASE_LOG_PERC, BASE_LOG_WARN, "enrich: frame %s dropped: %s", r->ps[q].frame_id,
                 e2);
    }
    int j = 0;
    for (int k = 0; k < r->ns; k++) {
        slot *s = &r->sl[k];
        if (!s->alive || s->space != q)
            continue;
        const cJSON *a = e ? NULL : cJSON_GetArrayItem(out, j++);
        double v[4];
        int ok = cJSON_GetArraySize(a) == 4;
        for (int c = 0; ok && c < 4; c++) {
            const cJSON *x = cJSON_GetArrayItem(a, c);
            ok = cJSON_IsNumber(x) && isfinite(x->valuedouble);
            v[c] = ok ? x->valuedouble : 0;
        }
        s->alive = ok;
        s->space = r->ps[q].parent;
        s->it.sel.r = (base_rect){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    }
    cJSON_Delete(res);
    return BASE_OK;
}

/* Releases the owner references, one object group per session. */
static void release_owners(probe_run *r)
{
    for (int k = 0; k < r->n_used; k++) {
        cJSON *pa = cJSON_CreateObject();
        if (pa && cJSON_AddStringToObject(pa, "objectGroup", EF_GROUP))
            cdp_call(cdp_page_conn(r->page), r->used[k], "Runtime.releaseObjectGroup", pa, NULL,
                     EF_FRAME_TIMEOUT_MS, NULL);
        else
            cJSON_Delete(pa);
    }
}

/* The CDP frame id of JS frame js of pass q ("" = top document, "?" =
 * a frame the CDP tree does not (yet) have). */
static const char *frame_id_of(const probe_run *r, int q, int js)
{
    if (q == 0 && js < 0)
        return "";
    if (js < 0)
        return r->ps[q].frame_id;
    for (int i = 0; i < r->nf; i++)
        if (r->at[i].pass == q && r->at[i].js == js)
            return r->fr[i].id;
    return "?";
}

/* Walks the frame tree, runs the passes and merges them into out. */
static base_err run(probe_run *r, const char *arg, const char *sub_arg, perc__probe *out, char *err)
{
    base_err e = eval_pass(r->page, cdp_page_session(r->page), 0, arg, EF_TOP_TIMEOUT_MS,
                           &r->ps[0].reply, err);
    if (e)
        return e;
    r->np = 1;
    r->ps[0].parent = -1;
    if ((e = add_slots(r, 0, err)))
        return e;
    int n_top = r->ns;
    for (int i = 0; i < r->nf; i++)
        r->at[i] = (where){r->fr[i].parent_id[0] ? AT_PENDING : 0, -1};
    /* Parents before children; the frame table is in no particular order. */
    for (int progress = 1; progress;) {
        progress = 0;
        for (int i = 0; i < r->nf; i++) {
            if (r->at[i].pass != AT_PENDING)
                continue;
            int pi = frame_index(r, r->fr[i].parent_id);
            if (pi < 0 || r->at[pi].pass == AT_PENDING)
                continue;
            progress = 1;
            if (r->at[pi].pass == AT_HIDDEN)
                r->at[i].pass = AT_HIDDEN;
            else if (r->at[pi].pass == AT_FAILED)
                skip_frame(r, i, "its parent frame was not probed");
            else if ((e = place_frame(r, i, pi, sub_arg, err)))
                return e;
        }
    }
    for (int i = 0; i < r->nf; i++)
        if (r->at[i].pass == AT_PENDING)
            skip_frame(r, i, "its parent is not in the frame tree");
    /* Children were created after their parents: lift in reverse order. */
    for (int q = r->np - 1; q >= 1; q--)
        if ((e = lift_pass(r, q, err)))
            return e;
    int *to = base_calloc(r->ns > 0 ? (size_t)r->ns : 1, sizeof *to);
    perc__item *items = base_calloc(r->ns > 0 ? (size_t)r->ns : 1, sizeof *items);
    if (!to || !items) {
        base_free(to);
        base_free(items);
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    }
    int n = 0;
    for (int k = 0; k < r->ns; k++)
        to[k] = r->sl[k].alive ? n++ : -1;
    for (int k = 0; k < r->ns; k++) {
        const slot *s = &r->sl[k];
        if (!s->alive)
            continue;
        perc__item *it = &items[to[k]];
        *it = s->it;
        snprintf(it->sel.frame_id, sizeof it->sel.frame_id, "%s", frame_id_of(r, s->pass, s->js));
        it->ctl = it->ctl >= 0 ? to[it->ctl] : -1;
    }
    base_free(to);
    out->top = r->ps[0].reply;
    r->ps[0].reply = NULL;
    out->items = items;
    out->n = n;
    out->n_top = n_top;
    out->n_skipped = r->skipped;
    return BASE_OK;
}

base_err perc__probe_run(cdp_page *page, const perc_box *boxes, int n, int want_states,
                         perc__probe *out, char *err)
{
    if (!page || !out || n < 0 || (n > 0 && !boxes))
        return base_errf(err, BASE_EINVAL, "enrich: bad arguments");
    char *arg = NULL;
    if (boxes) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 0; arr && i < n; i++) {
            base_rect b = boxes[i].r;
            if (!isfinite(b.x0) || !isfinite(b.y0) || !isfinite(b.x1) || !isfinite(b.y1)) {
                cJSON_Delete(arr);
                return base_errf(err, BASE_EINVAL, "enrich: box %d has a non-finite coordinate", i);
            }
            float v[4] = {b.x0, b.y0, b.x1, b.y1};
            cJSON *a = cJSON_CreateFloatArray(v, 4);
            if (!a || !cJSON_AddItemToArray(arr, a)) {
                cJSON_Delete(a);
                cJSON_Delete(arr);
                arr = NULL;
            }
        }
        char *s = arr ? cJSON_PrintUnformatted(arr) : NULL;
        cJSON_Delete(arr);
        arg = s ? base_strdup(s) : NULL;
        cJSON_free(s);
    } else {
        arg = base_strdup(want_states ? "\"states\"" : "null");
    }
    probe_run r;
    memset(&r, 0, sizeof r);
    r.page = page;
    r.fr = base_calloc(EF_MAX_FRAMES, sizeof *r.fr);
    r.at = base_calloc(EF_MAX_FRAMES, sizeof *r.at);
    r.ps = base_calloc(EF_MAX_PASSES + 1, sizeof *r.ps);
    base_err e;
    if (!arg || !r.fr || !r.at || !r.ps) {
        e = base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    } else {
        int nf = cdp_page_frames(page, r.fr, EF_MAX_FRAMES);
        r.nf = nf < EF_MAX_FRAMES ? nf : EF_MAX_FRAMES;
        e = run(&r, arg, want_states ? "\"states\"" : "null", out, err);
        release_owners(&r);
    }
    for (int q = 0; r.ps && q < r.np; q++)
        cJSON_Delete(r.ps[q].reply);
    base_free(r.ps);
    base_free(r.at);
    base_free(r.fr);
    base_free(r.sl);
    base_free(arg);
    return e;
}

void perc__probe_fini(perc__probe *p)
{
    if (!p)
        return;
    cJSON_Delete(p->top);
    base_free(p->items);
    memset(p, 0, sizeof *p);
}

static float area(base_rect r)
{
    return fmaxf(0, r.x1 - r.x0) * fmaxf(0, r.y1 - r.y0);
}

int perc__probe_nearest(const perc__probe *p, base_rect b)
{
    int best = -1;
    float best_iou = 0;
    for (int i = 0; i < p->n; i++) {
        base_rect r = p->items[i].sel.r;
        base_rect c = {fmaxf(b.x0, r.x0), fmaxf(b.y0, r.y0), fminf(b.x1, r.x1), fminf(b.y1, r.y1)};
        float ov = area(c);
        if (ov <= 0)
            continue;
        float iou = ov / (area(b) + area(r) - ov);
        if (iou > best_iou) {
            best_iou = iou;
            best = i;
        }
    }
    if (best >= 0 && best_iou >= 0.1f)
        return best;
    float cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
    int small = -1;
    float small_area = INFINITY;
    for (int i = 0; i < p->n; i++) {
        base_rect r = p->items[i].sel.r;
        if (cx >= r.x0 && cx < r.x1 && cy >= r.y0 && cy < r.y1 && area(r) < small_area) {
            small = i;
            small_area = area(r);
        }
    }
    if (small >= 0)
        return small;
    int near = -1;
    float near_d = 40;
    for (int i = 0; i < p->n; i++) {
        base_rect r = p->items[i].sel.r;
        float d = hypotf((r.x0 + r.x1) / 2 - cx, (r.y0 + r.y1) / 2 - cy);
        if (d < near_d) {
            near_d = d;
            near = i;
        }
    }
    return near >= 0 ? near : best;
}

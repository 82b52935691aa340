/* perception/probe.c: the live half of the snapper.
 *
 * perc_probe_box sends the box's 17 lattice points (snap_probe_points, so the
 * live and the offline model ask for exactly the same points) to
 * assets/js/snap_probe.js in ONE Runtime.evaluate; the script adds the
 * candidate points, hit-tests every point through open shadow roots and
 * same-origin iframes, and returns a compact JSON string that is parsed here
 * into owned snap_candidate arrays. The parser trusts nothing: every index,
 * count, number and string type is checked and a bad reply is BASE_EPROTO.
 * The script is compiled once per document (it keeps itself under a
 * Symbol.for key named after its hash); the first probe of a document pays
 * one extra round trip to install it.
 *
 * perc_snap_box runs snap_resolve on that probe. When phase A-alt names an
 * iframe the page script could not enter, the frame is found among the
 * page's frames by its owner element (DOM.getFrameOwner + DOM.getBoxModel,
 * matched on the content box the script reported): a cross-origin frame is
 * probed through its own CDP session, an in-process one the page hides
 * (opaque origin, tampered accessors) through an isolated world created in
 * it. The box is clipped and translated into the frame (snap_frame_box), and
 * the final point is mapped back level by level (snap_frame_point). Last, the
 * final point is hit-tested once more from the top document down the same
 * frames and checked with snap_verify, naming whatever covers the target.
 */
#include "perception/probe.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/num.h"
#include "base/utf8.h"
#include "cdp/frames.h"
#include "perception/js.h"
#include "perception/probe_int.h"
#include "perception/kit.h"
#include "perception/script_int.h"


#define PROBE_MAX_CANDS 8192 /* 49 points x 32 deep + ancestors, with room */
#define PROBE_MAX_FRAMES 64  /* frame contexts one reply may name */
#define PROBE_MAX_EXPR (1u << 20)
#define PROBE_TIMEOUT_MS 10000
#define PROBE_MAX_DESCENT 4      /* nested cross-origin frames followed */
#define PROBE_FRAME_WAIT_MS 2000 /* an iframe target may attach late */
#define PROBE_MAX_TABLE 256      /* frames looked at when matching owners */
#define C_FIELDS 17              /* fields of one candidate entry */
#define FLAG_EXP 1
#define FLAG_EXP_TRUE 2
#define FLAG_POPUP 4
#define FLAG_DISABLED 8
#define FLAG_POINTER 16
#define FLAG_INTERACTIVE 32
#define FLAG_IFRAME 64
#define FLAG_LISTENER 128

void perc_probe_fini(perc_probe *p)
{
    if (!p)
        return;
    base_free(p->cands);
    base_free(p->strings);
    memset(p, 0, sizeof *p);
}

void perc__reply_fini(perc__reply *r)
{
    if (!r)
        return;
    perc_probe_fini(&r->p);
    base_free(r->desc);
    base_free(r->content);
    base_free(r->origin);
    memset(r, 0, sizeof *r);
}

/* ---- reply parsing ------------------------------------------------------- */

static int get_num(const cJSON *x, double *v)
{
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
        return 0;
    *v = x->valuedouble;
    return 1;
}

static int get_int(const cJSON *x, int lo, int hi, int *v)
{
    double d;
    return get_num(x, &d) && base_num_to_int_exact(d, lo, hi, v) == BASE_OK;
}

/* Collects the items of array a into f[0..n-1]; 0 unless it has exactly n. */
static int items(const cJSON *a, const cJSON **f, int n)
{
    if (!cJSON_IsArray(a))
        return 0;
    int k = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (k == n)
            return 0;
        f[k++] = x;
    }
    return k == n;
}

static const cJSON *arr(const cJSON *root, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsArray(a) ? a : NULL;
}

static char *keep(char **cur, const char *s)
{
    char *d = *cur;
    size_t n = strlen(s) + 1;
    memcpy(d, s, n);
    *cur += n;
    return d;
}

/* Checks one candidate entry (pass 1) and adds its string bytes to *bytes. */
static int check_cand(const cJSON *e, int nc, int nf, int self, size_t *bytes)
{
    const cJSON *f[C_FIELDS];
    if (!items(e, f, C_FIELDS))
        return 0;
    static const int str_fields[] = {0, 1, 2, 3, 4, 5, 14, 15, 16};
    for (size_t i = 0; i < sizeof str_fields / sizeof str_fields[0]; i++) {
        if (!cJSON_IsString(f[str_fields[i]]))
            return 0;
        *bytes += strlen(f[str_fields[i]]->valuestring) + 1;
    }
    int v;
    double d;
    if (!get_int(f[6], 0, nf - 1, &v) || !get_int(f[11], 0, 255, &v) ||
        !get_int(f[12], -1, 1 << 30, &v) || !get_int(f[13], -1, nc - 1, &v) || v == self)
        return 0;
    for (int i = 7; i <= 10; i++) {
        if (!get_num(f[i], &d))
            return 0;
    }
    return 1;
}

static base_err parse_root(const cJSON *root, base_rect box, const base_point *sent, int n_sent,
                           perc__reply *r, char *err)
{
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "v");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(ver) || ver->valuedouble != 1)
        return base_errf(err, BASE_EPROTO, "probe: reply is not a version 1 object");
    const cJSON *pts = arr(root, "pts"), *fc = arr(root, "fc"), *st = arr(root, "st");
    const cJSON *fa = arr(root, "f"), *ca = arr(root, "c"), *ifr = arr(root, "ifr");
    const cJSON *late = cJSON_GetObjectItemCaseSensitive(root, "late");
    if (!pts || !fc || !st || !fa || !ca || !ifr)
        return base_errf(err, BASE_EPROTO, "probe: reply lacks pts, fc, st, f, c or ifr");
    int n_pts = cJSON_GetArraySize(pts);
    int max_pts = n_sent == SNAP_PROBE_NGRID ? SNAP_PROBE_MAX_POINTS : n_sent;
    if (n_pts < n_sent || n_pts > max_pts || cJSON_GetArraySize(fc) != n_pts ||
        cJSON_GetArraySize(st) != n_pts)
        return base_errf(err, BASE_EPROTO, "probe: %d points for %d sent, or arrays disagree",
                         n_pts, n_sent);
    int nc = cJSON_GetArraySize(ca), nf = cJSON_GetArraySize(fa);
    if (nc > PROBE_MAX_CANDS || nf < 1 || nf > PROBE_MAX_FRAMES)
        return base_errf(err, BASE_EPROTO, "probe: %d candidates, %d frames", nc, nf);

    /* Pass 1: validate everything and size the string store. */
    size_t bytes = 1;
    const cJSON *x;
    cJSON_ArrayForEach(x, fa)
    {
        const cJSON *f[3];
        double d;
        if (!items(x, f, 3) || !cJSON_IsString(f[0]) || !get_num(f[1], &d) || !get_num(f[2], &d))
            return base_errf(err, BASE_EPROTO, "probe: bad frame entry");
        bytes += strlen(f[0]->valuestring) + 1;
    }
    int i = 0;
    cJSON_ArrayForEach(x, ca)
    {
        if (!check_cand(x, nc, nf, i, &bytes))
            return base_errf(err, BASE_EPROTO, "probe: bad candidate entry %d", i);
        i++;
    }

    size_t n_alloc = nc > 0 ? (size_t)nc : 1;
    r->p.cands = base_calloc(n_alloc, sizeof *r->p.cands);
    r->desc = base_calloc(n_alloc, sizeof *r->desc);
    r->content = base_calloc(n_alloc, sizeof *r->content);
    r->origin = base_calloc(n_alloc, sizeof *r->origin);
    r->p.strings = base_malloc(bytes);
    const char **chain = base_calloc((size_t)nf, sizeof *chain);
    base_point *forig = base_calloc((size_t)nf, sizeof *forig);
    if (!r->p.cands || !r->desc || !r->content || !r->origin || !r->p.strings || !chain || !forig) {
        base_free(chain);
        base_free(forig);
        return base_errf(err, BASE_ENOMEM, "probe: out of memory");
    }
    char *cur = r->p.strings;
    r->p.n = nc;
    r->late = cJSON_IsNumber(late) && late->valuedouble == 1;
    const cJSON *closed = cJSON_GetObjectItemCaseSensitive(root, "closed");
    r->closed = cJSON_IsNumber(closed) && closed->valuedouble == 1;

    /* Pass 2: fill. */
    i = 0;
    cJSON_ArrayForEach(x, fa)
    {
        const cJSON *f[3];
        items(x, f, 3);
        chain[i] = keep(&cur, f[0]->valuestring);
        forig[i].x = (float)f[1]->valuedouble;
        forig[i].y = (float)f[2]->valuedouble;
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(x, ca)
    {
        const cJSON *f[C_FIELDS];
        items(x, f, C_FIELDS);
        snap_candidate *c = &r->p.cands[i];
        c->tag = keep(&cur, f[0]->valuestring);
        c->role = keep(&cur, f[1]->valuestring);
        c->text = keep(&cur, f[2]->valuestring);
        c->aria_label = keep(&cur, f[3]->valuestring);
        c->title = keep(&cur, f[4]->valuestring);
        c->xpath = keep(&cur, f[5]->valuestring);
        int fi = f[6]->valueint;
        c->frame_chain = chain[fi];
        r->origin[i] = forig[fi];
        c->rect.x0 = (float)f[7]->valuedouble;
        c->rect.y0 = (float)f[8]->valuedouble;
        c->rect.x1 = (float)f[9]->valuedouble;
        c->rect.y1 = (float)f[10]->valuedouble;
        r->content[i] = c->rect;
        int fl = f[11]->valueint;
        c->aria_expanded = (fl & FLAG_EXP) ? ((fl & FLAG_EXP_TRUE) ? 1 : 0) : -1;
        c->aria_haspopup = !!(fl & FLAG_POPUP);
        c->disabled = !!(fl & FLAG_DISABLED);
        c->cursor_pointer = !!(fl & FLAG_POINTER);
        c->is_interactive = !!(fl & FLAG_INTERACTIVE);
        c->is_iframe = !!(fl & FLAG_IFRAME);
        c->has_listener = !!(fl & FLAG_LISTENER);
        c->paint_order = f[12]->valueint;
        c->parent = f[13]->valueint;
        r->desc[i] = keep(&cur, f[14]->valuestring);
        c->name = keep(&cur, f[15]->valuestring);
        c->hint = keep(&cur, f[16]->valuestring);
        i++;
    }
    base_free(chain);
    base_free(forig);

    cJSON_ArrayForEach(x, ifr)
    {
        const cJSON *f[5];
        int ci;
        double d[4];
        if (!items(x, f, 5) || !get_int(f[0], 0, nc - 1, &ci) || !get_num(f[1], &d[0]) ||
            !get_num(f[2], &d[1]) || !get_num(f[3], &d[2]) || !get_num(f[4], &d[3]))
            return base_errf(err, BASE_EPROTO, "probe: bad iframe entry");
        r->content[ci] = (base_rect){(float)d[0], (float)d[1], (float)d[2], (float)d[3]};
    }

    /* Points and stacks. */
    snap_probe *pr = &r->p.probe;
    memset(pr, 0, sizeof *pr);
    pr->box = box;
    const cJSON *xp = pts->child, *xf = fc->child, *xs = st->child;
    for (int k = 0; k < n_pts; k++, xp = xp->next, xf = xf->next, xs = xs->next) {
        const cJSON *pf[2];
        double px, py;
        int cand;
        if (!items(xp, pf, 2) || !get_num(pf[0], &px) || !get_num(pf[1], &py))
            return base_errf(err, BASE_EPROTO, "probe: bad point %d", k);
        base_point p = {(float)px, (float)py};
        if (k < n_sent && (p.x != sent[k].x || p.y != sent[k].y))
            return base_errf(err, BASE_EPROTO, "probe: point %d is not the one sent", k);
        if (!get_int(xf, -1, nc - 1, &cand) || (k < n_sent) != (cand < 0))
            return base_errf(err, BASE_EPROTO, "probe: bad candidate of point %d", k);
        if (!cJSON_IsArray(xs) || cJSON_GetArraySize(xs) > SNAP_PROBE_DEPTH)
            return base_errf(err, BASE_EPROTO, "probe: bad stack %d", k);
        /* A candidate point rounded onto the box edge is dropped: the
         * snapper only accepts points strictly inside. */
        if (k >= n_sent && !base_rect_contains(box, p))
            continue;
        int slot = pr->n_points++;
        pr->pt[slot] = p;
        pr->for_cand[slot] = cand;
        int d = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, xs)
        {
            if (!get_int(e, 0, nc - 1, &pr->stack[slot][d]))
                return base_errf(err, BASE_EPROTO, "probe: bad index in stack %d", k);
            d++;
        }
        pr->n[slot] = d;
    }
    for (int k = pr->n_points; k < SNAP_PROBE_MAX_POINTS; k++)
        pr->for_cand[k] = -1;
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(root, "ms");
    base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "probe: %d points, %d candidates, %.3f ms in page",
             pr->n_points, nc, cJSON_IsNumber(ms) ? ms->valuedouble : -1.0);
    return BASE_OK;
}

base_err perc__probe_parse(const char *json, size_t len, base_rect box, const base_point *sent,
                           int n_sent, perc__reply *out, char *err)
{
    if (!json || !sent || !out || n_sent < 1 || n_sent > SNAP_PROBE_MAX_POINTS)
        return base_errf(err, BASE_EINVAL, "probe: bad arguments to the reply parser");
    char *fx = NULL; /* page text may hold half a surrogate pair (base/utf8.h) */
    base_json_fix_surrogates(json, len, &fx);
    cJSON *root = cJSON_ParseWithLength(fx ? fx : json, len);
    base_free(fx);
    if (!root)
        return base_errf(err, BASE_EPROTO, "probe: reply is not JSON");
    perc__reply r;
    memset(&r, 0, sizeof r);
    base_err e = parse_root(root, box, sent, n_sent, &r, err);
    cJSON_Delete(root);
    if (e) {
        perc__reply_fini(&r);
        return e;
    }
    *out = r;
    return BASE_OK;
}

/* ---- page side ------------------------------------------------------------- */

static const char *session_of(cdp_page *page, const char *session)
{
    return session && session[0] ? session : cdp_page_session(page);
}

/* The probe script, installed once per document (perception/script_int.h;
 * its key is "fovea.snap_probe.HASH", as the probe's own copy had it). */
static const perc__script probe_script = {fovea_js_snap_probe, &fovea_js_snap_probe_len,
                                          "snap_probe"};

/* Click-like listener types (the page kit's EVENTS, assets/js/lib/kit.js). */
static int clicky(const char *t)
{
    static const char *const ev[] = {"click",      "dblclick",  "auxclick",   "contextmenu",
                                     "mousedown",  "mouseup",   "pointerdown", "pointerup",
                                     "touchstart", "touchend",  "keydown",    "keyup",
                                     "keypress"};
    for (size_t k = 0; t && k < sizeof ev / sizeof ev[0]; k++) {
        if (strcmp(t, ev[k]) == 0)
            return 1;
    }
    return 0;
}

#define PROBE_MAX_ASK 64 /* candidates asked of DOMDebugger per probe */

/* One wave of calls of `method` over the n objects ids[i] (a string param
 * named key each; NULL ids are skipped), all in flight at once
 * (cdp_call_many): results[i] is call i's result or NULL. */
static void wave(cdp_conn *conn, const char *sid, const char *method, const char *key,
                 char ids[][160], int n, cJSON **results)
{
    cJSON *pa[PROBE_MAX_ASK];
    for (int i = 0; i < n; i++) {
        pa[i] = NULL;
        results[i] = NULL;
    }
    int m = 0, at[PROBE_MAX_ASK];
    for (int i = 0; i < n; i++) {
        if (!ids[i][0])
            continue;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, key, ids[i])) {
            cJSON_Delete(o);
            continue;
        }
        pa[m] = o;
        at[m++] = i;
    }
    cJSON *res[PROBE_MAX_ASK];
    cdp_call_many(conn, sid, method, pa, m, res, PROBE_TIMEOUT_MS, NULL);
    for (int k = 0; k < m; k++)
        results[at[k]] = res[k];
}

/* Hands DOMDebugger's answers (the table rows asked, those with a click-like
 * listener; both consumed) to the probe's lateSeen map through the table
 * object oid, in fovea's world. Best effort. */
static void remember_late(cdp_conn *conn, const char *sid, const char *oid, cJSON *asked,
                          cJSON *yes)
{
    cJSON *pa = cJSON_CreateObject(), *args = cJSON_CreateArray();
    cJSON *a0 = cJSON_CreateObject(), *a1 = cJSON_CreateObject();
    if (!oid || !pa || !args || !a0 || !a1 || !asked || !yes || cJSON_GetArraySize(asked) == 0) {
        cJSON_Delete(pa);
        cJSON_Delete(args);
        cJSON_Delete(a0);
        cJSON_Delete(a1);
        cJSON_Delete(asked);
        cJSON_Delete(yes);
        return;
    }
    cJSON_AddItemToObject(a0, "value", asked);
    cJSON_AddItemToObject(a1, "value", yes);
    cJSON_AddItemToArray(args, a0);
    cJSON_AddItemToArray(args, a1);
    if (!cJSON_AddStringToObject(pa, "objectId", oid) ||
        !cJSON_AddStringToObject(
            pa, "functionDeclaration",
            "function (asked, yes) { const m = globalThis[Symbol.for('fovea.probe.lateSeen')];"
            " if (!m) return 0; for (const i of asked) { const el = this[i];"
            " if (el) m.set(el, yes.indexOf(i) >= 0); } return 0; }")) {
        cJSON_Delete(pa);
        cJSON_Delete(args);
        return;
    }
    cJSON_AddItemToObject(pa, "arguments", args);
    cdp_call(conn, sid, "Runtime.callFunctionOn", pa, NULL, PROBE_TIMEOUT_MS, NULL);
}

/* fovea attached after the document started, so the kit's recorder did not
 * see the listeners added before: ask DOMDebugger.getEventListeners about
 * the candidates that are not interactive yet (the probe kept them under
 * Symbol.for('fovea.probe.late'), in table order). A candidate with a
 * click-like listener of its own becomes interactive with has_listener.
 * DOMDebugger reports the listeners of the world the object lives in, so
 * each isolated-world wrapper is turned into the page's own wrapper of the
 * node first (DOM.describeNode, then DOM.resolveNode without a context).
 * The three steps run as three waves of calls in flight at once
 * (cdp_call_many): three round trips per probe, not three per candidate.
 * Best effort: a failure leaves the reply as it was. */
static void ask_listeners(cdp_page *page, const char *session, int context_id, perc__reply *r)
{
    const char *sid = session_of(page, session);
    cdp_conn *conn = cdp_page_conn(page);
    char err[BASE_ERRBUF_SIZE] = "";
    /* The probe ran in fovea's world (perc__script_call's 0) or in the
     * isolated world it was given: read the table there. */
    if (context_id <= 0 && cdp_page_world(page, session, NULL, PROBE_TIMEOUT_MS, &context_id, err))
        return;
    cJSON *pa = cJSON_CreateObject();
    if (!pa ||
        !cJSON_AddStringToObject(pa, "expression", "globalThis[Symbol.for('fovea.probe.late')]") ||
        !cJSON_AddStringToObject(pa, "objectGroup", "fovea-late") ||
        (context_id && !cJSON_AddNumberToObject(pa, "contextId", context_id))) {
        cJSON_Delete(pa);
        return;
    }
    cJSON *res = NULL;
    if (cdp_call(conn, sid, "Runtime.evaluate", pa, &res, PROBE_TIMEOUT_MS, err))
        return;
    const char *oid = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "objectId"));
    cJSON *props = NULL;
    if (oid) {
        cJSON *gp = cJSON_CreateObject();
        if (gp && (!cJSON_AddStringToObject(gp, "objectId", oid) ||
                   !cJSON_AddBoolToObject(gp, "ownProperties", 1))) {
            cJSON_Delete(gp);
            gp = NULL;
        }
        if (gp) {
            if (cdp_call(conn, sid, "Runtime.getProperties", gp, &props, PROBE_TIMEOUT_MS, err))
                props = NULL;
        }
    }
    /* The candidates to ask about, in table order, at most PROBE_MAX_ASK. */
    char ids[PROBE_MAX_ASK][160];
    int row[PROBE_MAX_ASK];
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(props, "result"))
    {
        if (n >= PROBE_MAX_ASK)
            break;
        const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));
        if (!nm || nm[0] < '0' || nm[0] > '9')
            continue;
        long i = strtol(nm, NULL, 10);
        if (i < 0 || i >= r->p.n)
            continue;
        const snap_candidate *c = &r->p.cands[i];
        if (c->is_interactive || c->is_iframe || !strcmp(c->tag, "html") || !strcmp(c->tag, "body"))
            continue;
        const char *eo = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "value"), "objectId"));
        if (!eo || strlen(eo) >= sizeof ids[0])
            continue;
        snprintf(ids[n], sizeof ids[n], "%s", eo);
        row[n++] = (int)i;
    }
    cJSON *got[PROBE_MAX_ASK];
    /* Wave 1: the backend node of each isolated-world wrapper. */
    wave(conn, sid, "DOM.describeNode", "objectId", ids, n, got);
    for (int k = 0; k < n; k++) {
        int backend = 0;
        ids[k][0] = '\0';
        if (get_int(cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(got[k], "node"), "backendNodeId"),
                    1, 0x7fffffff, &backend))
            snprintf(ids[k], sizeof ids[k], "%d", backend);
        cJSON_Delete(got[k]);
    }
    /* Wave 2: the page's own wrapper of each node (no context: the main
     * world). backendNodeId is a number: built here, not by wave(). */
    {
        cJSON *p2[PROBE_MAX_ASK], *r2[PROBE_MAX_ASK];
        int at[PROBE_MAX_ASK], m = 0;
        for (int k = 0; k < n; k++) {
            got[k] = NULL;
            if (!ids[k][0])
                continue;
            cJSON *o = cJSON_CreateObject();
            if (!o || !cJSON_AddNumberToObject(o, "backendNodeId", atoi(ids[k])) ||
                !cJSON_AddStringToObject(o, "objectGroup", "fovea-late")) {
                cJSON_Delete(o);
                continue;
            }
            p2[m] = o;
            at[m++] = k;
        }
        cdp_call_many(conn, sid, "DOM.resolveNode", p2, m, r2, PROBE_TIMEOUT_MS, NULL);
        for (int j = 0; j < m; j++)
            got[at[j]] = r2[j];
    }
    for (int k = 0; k < n; k++) {
        const char *mo = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(got[k], "object"), "objectId"));
        if (mo && strlen(mo) < sizeof ids[k])
            snprintf(ids[k], sizeof ids[k], "%s", mo);
        else
            ids[k][0] = '\0';
        cJSON_Delete(got[k]);
    }
    /* Wave 3: the listeners of each node in the page's world. */
    wave(conn, sid, "DOMDebugger.getEventListeners", "objectId", ids, n, got);
    cJSON *asked = cJSON_CreateArray(), *yes = cJSON_CreateArray();
    for (int k = 0; k < n; k++) {
        if (!got[k])
            continue;
        cJSON_AddItemToArray(asked, cJSON_CreateNumber(row[k]));
        const cJSON *l;
        cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(got[k], "listeners"))
        {
            if (clicky(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "type")))) {
                snap_candidate *c = &r->p.cands[row[k]];
                c->is_interactive = 1;
                c->has_listener = 1;
                cJSON_AddItemToArray(yes, cJSON_CreateNumber(row[k]));
                break;
            }
        }
        cJSON_Delete(got[k]);
    }
    /* The answers stay with the elements in fovea's world (the probe's
     * lateSeen): listeners added since fovea attached are the recorder's,
     * so no element is asked about twice. */
    remember_late(conn, sid, oid, asked, yes);
    cJSON_Delete(props);
    cJSON_Delete(res);
    cJSON *rg = cJSON_CreateObject();
    if (rg && cJSON_AddStringToObject(rg, "objectGroup", "fovea-late"))
        cdp_call(conn, sid, "Runtime.releaseObjectGroup", rg, NULL, PROBE_TIMEOUT_MS, err);
    else
        cJSON_Delete(rg);
}

/* Evaluates the probe script on `session` (context_id: 0 = the main world,
 * else that isolated world) for
 * box with the points sent[]
 * (cp: add the candidate points) and parses the reply into *out.
 * The script is sent and compiled once per document (perc__script_call):
 * later probes send only the short call. */
static base_err run_probe(cdp_page *page, const char *session, int context_id, base_rect box,
                          const base_point *sent, int n_sent, int cp, perc__reply *out, char *err)
{
    base_buf args;
    base_buf_init(&args, PROBE_MAX_EXPR);
    /* %.9g round-trips a float exactly, so the script's echo of the lattice
     * can be compared for equality. */
    base_err e =
        base_buf_printf(&args, "{\"box\":[%.9g,%.9g,%.9g,%.9g],\"cp\":%d,\"pts\":[", (double)box.x0,
                        (double)box.y0, (double)box.x1, (double)box.y1, cp);
    for (int k = 0; !e && k < n_sent; k++)
        e = base_buf_printf(&args, "%s[%.9g,%.9g]", k ? "," : "", (double)sent[k].x,
                            (double)sent[k].y);
    if (!e)
        e = base_buf_append_str(&args, "]}");
    if (e) {
        base_buf_fini(&args);
        return base_errf(err, e, "probe: cannot build the expression");
    }
    double ms = 0.0;
    cJSON *val = NULL;
    /* A closed shadow root the world does not know yet: hand the document's
     * closed roots over and probe once more (once per new root, not per
     * probe: the recorder says when one appeared). */
    for (int round = 0;; round++) {
        e = perc__script_call(page, session_of(page, session), context_id, &probe_script,
                              (const char *)args.data, PROBE_TIMEOUT_MS, &val, &ms, err);
        if (e)
            break;
        if (!cJSON_IsString(val)) {
            cJSON_Delete(val);
            e = base_errf(err, BASE_EPROTO, "probe: the page returned no JSON string");
            break;
        }
        e = perc__probe_parse(val->valuestring, strlen(val->valuestring), box, sent, n_sent, out,
                              err);
        cJSON_Delete(val);
        val = NULL;
        if (e || !out->closed || round > 0)
            break;
        perc__reply_fini(out);
        int64_t t1 = base_monotime();
        perc_kit_closed_roots(page, session, context_id);
        ms += (double)(base_monotime() - t1) / 1000.0;
    }
    base_buf_fini(&args);
    if (e)
        return e;
    if (!e && out->late) {
        int64_t t1 = base_monotime();
        ask_listeners(page, session, context_id, out);
        ms += (double)(base_monotime() - t1) / 1000.0;
    }
    if (!e)
        out->p.eval_ms = ms;
    return e;
}

static int box_ok(base_rect b)
{
    return isfinite(b.x0) && isfinite(b.y0) && isfinite(b.x1) && isfinite(b.y1) &&
           !base_rect_empty(b);
}

base_err perc_probe_box(cdp_page *page, const char *session, base_rect box, perc_probe *out,
                        char *err)
{
    if (!page || !out)
        return base_errf(err, BASE_EINVAL, "probe: NULL page or output");
    if (!box_ok(box))
        return base_errf(err, BASE_EINVAL, "probe: box is empty or not finite");
    base_point lat[SNAP_PROBE_NGRID];
    snap_probe_points(box, lat);
    perc__reply r;
    base_err e = run_probe(page, session, 0, box, lat, SNAP_PROBE_NGRID, 1, &r, err);
    if (e)
        return e;
    *out = r.p;
    base_free(r.desc);
    base_free(r.content);
    base_free(r.origin);
    return BASE_OK;
}

/* ---- frames ------------------------------------------------------------------ */

/* Finds the child frame of session's document whose owner's content box
 * starts at `origin` (that document's viewport px): an out-of-process one
 * when oopif, else one sharing the session. Fills *out and *content. */
static int find_frame(cdp_page *page, const char *session, base_point origin, int oopif,
                      cdp_frame *out, base_rect *content)
{
    cdp_frame *fr = base_malloc(PROBE_MAX_TABLE * sizeof *fr);
    if (!fr)
        return 0;
    int n = cdp_page_frames(page, fr, PROBE_MAX_TABLE);
    if (n > PROBE_MAX_TABLE)
        n = PROBE_MAX_TABLE;
    int best = -1;
    float best_d = 2.0f; /* px: the script's computed box and the DOM's agree to rounding */
    base_rect best_c = {0, 0, 0, 0};
    for (int k = 0; k < n; k++) {
        if (!fr[k].parent_id[0] || fr[k].oopif != (oopif != 0))
            continue;
        if (!oopif && strcmp(fr[k].session, session) != 0)
            continue;
        /* An out-of-process frame's owner lives in its parent's document. */
        int skip = 0;
        for (int j = 0; oopif && j < n; j++) {
            if (strcmp(fr[j].id, fr[k].parent_id) == 0)
                skip = strcmp(fr[j].session, session) != 0;
        }
        base_rect c;
        if (skip || cdp_frame_owner_box(page, session, fr[k].id, PROBE_TIMEOUT_MS, &c, NULL) ||
            base_rect_empty(c))
            continue;
        float d = fmaxf(fabsf(c.x0 - origin.x), fabsf(c.y0 - origin.y));
        if (d < best_d) {
            best = k;
            best_d = d;
            best_c = c;
        }
    }
    if (best >= 0) {
        *out = fr[best];
        *content = best_c;
    }
    base_free(fr);
    return best >= 0;
}

/* ---- snapping ------------------------------------------------------------- */

/* One document on the way down: the top one, then each cross-origin frame. */
typedef struct level {
    char session[64];   /* "" for the page's own session */
    int context_id;     /* > 0: an isolated world in an in-process frame */
    char frame_id[64];  /* "" for the top document */
    base_point origin;  /* its viewport origin, top-viewport px */
    char *iframe_xpath; /* the iframe we entered it through (in the level above) */
    char *iframe_chain;
} level;

static int find_cand(const perc__reply *r, const char *xpath, const char *chain)
{
    for (int i = 0; i < r->p.n; i++) {
        if (strcmp(r->p.cands[i].xpath, xpath) == 0 &&
            strcmp(r->p.cands[i].frame_chain, chain) == 0)
            return i;
    }
    return -1;
}

static void describe(const perc__reply *r, int i, char *buf, size_t cap)
{
    const snap_candidate *c = &r->p.cands[i];
    const char *t = c->text[0] ? c->text : c->aria_label;
    char shown[48];
    base_utf8_copy(shown, sizeof shown, t);
    if (shown[0])
        snprintf(buf, cap, "%s '%s'", r->desc[i], shown);
    else
        snprintf(buf, cap, "%s", r->desc[i]);
}

/* The hit-target check at the top-viewport point pt: hit-test it again from
 * the top document down through the levels and check the element reached. */
static base_err verify(cdp_page *page, const level *lv, int nlv, base_point pt, const char *xpath,
                       const char *chain, perc_snap *out, char *err)
{
    for (int l = 0; l < nlv; l++) {
        base_point p = {pt.x - lv[l].origin.x, pt.y - lv[l].origin.y};
        base_rect b = {p.x - 0.5f, p.y - 0.5f, p.x + 0.5f, p.y + 0.5f};
        perc__reply r;
        base_err e = run_probe(page, lv[l].session, lv[l].context_id, b, &p, 1, 0, &r, err);
        if (e)
            return e;
        out->probe_ms += r.p.eval_ms;
        int last = l + 1 == nlv;
        int chosen = last ? find_cand(&r, xpath, chain)
                          : find_cand(&r, lv[l + 1].iframe_xpath, lv[l + 1].iframe_chain);
        const int *stack = r.p.probe.stack[0];
        int ns = r.p.probe.n[0];
        int cov = -1;
        snap_verdict v = snap_verify(r.p.cands, r.p.n, stack, ns, chosen, &cov);
        if (v == SNAP_VERIFY_COVERED && cov < 0)
            cov = stack[0]; /* the chosen element is not at the point at all */
        out->verdict = v;
        out->covering[0] = '\0';
        if (v == SNAP_VERIFY_COVERED)
            describe(&r, cov, out->covering, sizeof out->covering);
        perc__reply_fini(&r);
        if (v != SNAP_VERIFY_OK || last)
            return BASE_OK;
    }
    return BASE_OK;
}

/* Fills out from the chosen candidate of reply r at level l. */
static void fill_found(cdp_page *page, const perc__reply *r, const snap_result *res, const level *l,
                       base_rect clip, perc_snap *out)
{
    const snap_candidate *c = &r->p.cands[res->cand];
    out->found = 1;
    base_rect at = {l->origin.x, l->origin.y, l->origin.x, l->origin.y};
    out->pt = snap_frame_point(res->pt, at);
    base_rect rect = {c->rect.x0 + l->origin.x, c->rect.y0 + l->origin.y, c->rect.x1 + l->origin.x,
                      c->rect.y1 + l->origin.y};
    out->rect = base_rect_intersect(rect, clip);
    base_utf8_copy(out->tag, sizeof out->tag, c->tag);
    base_utf8_copy(out->text, sizeof out->text, c->text[0] ? c->text : c->aria_label);
    base_utf8_copy(out->name, sizeof out->name,
              c->name && c->name[0]         ? c->name
              : c->aria_label && c->aria_label[0] ? c->aria_label
                                                  : c->title);
    base_utf8_copy(out->xpath, sizeof out->xpath, c->xpath);
    out->disabled = c->disabled;
    base_utf8_copy(out->session, sizeof out->session, l->session);
    base_utf8_copy(out->frame_id, sizeof out->frame_id, l->frame_id);
    out->frame_offset = l->origin;
    if (c->frame_chain[0]) {
        /* A same-origin frame the script entered: its document has its own
         * frame id, found by the owner's content box. */
        base_point o = r->origin[res->cand];
        out->frame_offset = (base_point){o.x + l->origin.x, o.y + l->origin.y};
        cdp_frame f;
        base_rect cb;
        if (find_frame(page, session_of(page, l->session), o, 0, &f, &cb))
            base_utf8_copy(out->frame_id, sizeof out->frame_id, f.id);
        else
            base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "snap: frame of %s not identified",
                     c->frame_chain);
    }
}

/* Fills out->alt from an ambiguous result of reply r at level l. */
static void fill_alts(const perc__reply *r, const snap_result *res, const level *l,
                      base_rect clip, perc_snap *out)
{
    out->n_alt = 0;
    for (int k = 0; k < res->n_alt && k < SNAP_MAX_ALT; k++) {
        const snap_candidate *c = &r->p.cands[res->alt[k]];
        perc_snap_alt *a = &out->alt[out->n_alt++];
        base_utf8_copy(a->tag, sizeof a->tag, c->tag);
        base_utf8_copy(a->role, sizeof a->role, c->role);
        base_utf8_copy(a->name, sizeof a->name,
                       c->name && c->name[0]               ? c->name
                       : c->text && c->text[0]             ? c->text
                       : c->aria_label && c->aria_label[0] ? c->aria_label
                                                           : c->title);
        base_utf8_copy(a->xpath, sizeof a->xpath, c->xpath);
        base_rect rect = {c->rect.x0 + l->origin.x, c->rect.y0 + l->origin.y,
                          c->rect.x1 + l->origin.x, c->rect.y1 + l->origin.y};
        a->rect = base_rect_intersect(rect, clip);
        a->pt = (base_point){res->alt_pt[k].x + l->origin.x, res->alt_pt[k].y + l->origin.y};
    }
}

base_err perc_snap_box(cdp_page *page, base_rect box, const snap_intent *intent, int verify_pt,
                       perc_snap *out, char *err)
{
    if (!page || !out)
        return base_errf(err, BASE_EINVAL, "snap: NULL page or output");
    if (!box_ok(box))
        return base_errf(err, BASE_EINVAL, "snap: box is empty or not finite");
    perc_snap s;
    memset(&s, 0, sizeof s);
    s.pt = base_rect_center(box);
    s.verdict = SNAP_VERIFY_EMPTY;
    level lv[PROBE_MAX_DESCENT + 1];
    memset(lv, 0, sizeof lv);
    int nlv = 1;
    const cdp_page_opts *vp = cdp_page_viewport(page);
    base_rect lbox = box; /* the box in the current level's viewport */
    /* The part of the top viewport the current level's document shows. */
    base_rect clip = {0, 0, vp && vp->width > 0 ? (float)vp->width : 1280.0f,
                      vp && vp->height > 0 ? (float)vp->height : 800.0f};
    base_err e = BASE_OK;
    char *xp = NULL, *ch = NULL;
    for (;;) {
        level *l = &lv[nlv - 1];
        perc__reply r;
        base_point lat[SNAP_PROBE_NGRID];
        snap_probe_points(lbox, lat);
        e = run_probe(page, l->session, l->context_id, lbox, lat, SNAP_PROBE_NGRID, 1, &r, err);
        if (e)
            goto done;
        s.probe_ms += r.p.eval_ms;
        snap_result res;
        e = snap_resolve(r.p.cands, r.p.n, &r.p.probe, intent, &res, err);
        if (e) {
            perc__reply_fini(&r);
            goto done;
        }
        s.res = res;
        if (res.phase == SNAP_PHASE_A_ALT && res.cand >= 0) {
            if (nlv > PROBE_MAX_DESCENT) {
                s.res.reason = "iframes nested too deep";
                perc__reply_fini(&r);
                break;
            }
            const snap_candidate *fc = &r.p.cands[res.cand];
            base_point o = {r.content[res.cand].x0, r.content[res.cand].y0};
            cdp_frame f;
            base_rect cb;
            int got = 0, ctx = 0;
            const char *ls = session_of(page, l->session);
            /* The iframe's target may still be attaching right after load. */
            for (double t0 = base_monotime_ms();; base_sleep_ms(25)) {
                got = find_frame(page, ls, o, 1, &f, &cb);
                /* An in-process frame the script could not enter (an opaque
                 * origin, e.g. a sandbox): probe it in an isolated world. */
                if (!got && find_frame(page, ls, o, 0, &f, &cb)) {
                    got = !cdp_frame_isolated_world(page, ls, f.id, "fovea_snap_probe",
                                                   PROBE_TIMEOUT_MS, &ctx, NULL);
                    base_utf8_copy(f.session, sizeof f.session, l->session);
                }
                if (got || base_monotime_ms() - t0 > PROBE_FRAME_WAIT_MS)
                    break;
            }
            if (!got) {
                s.res.reason = "iframe: its frame was not found";
                perc__reply_fini(&r);
                break;
            }
            base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "snap: into frame %s (%s) at %.1f,%.1f", f.id,
                     ctx ? "isolated world" : "own session", (double)cb.x0, (double)cb.y0);
            level *nl = &lv[nlv];
            nl->iframe_xpath = base_strdup(fc->xpath);
            nl->iframe_chain = base_strdup(fc->frame_chain);
            perc__reply_fini(&r);
            if (!nl->iframe_xpath || !nl->iframe_chain) {
                e = base_errf(err, BASE_ENOMEM, "snap: out of memory");
                nlv++;
                goto done;
            }
            base_utf8_copy(nl->session, sizeof nl->session, f.session);
            nl->context_id = ctx;
            base_utf8_copy(nl->frame_id, sizeof nl->frame_id, f.id);
            nl->origin = (base_point){l->origin.x + cb.x0, l->origin.y + cb.y0};
            nlv++;
            lbox = snap_frame_box(lbox, cb);
            clip = base_rect_intersect(clip, (base_rect){nl->origin.x, nl->origin.y,
                                                         nl->origin.x + base_rect_w(cb),
                                                         nl->origin.y + base_rect_h(cb)});
            if (!box_ok(lbox)) {
                s.res.reason = "iframe: the box does not overlap its content";
                break;
            }
            continue;
        }
        if (nlv == 1 && snap_neighbour_wanted(intent, &res)) {
            /* Nothing in the box carries the label: a control just outside
             * it that carries it exactly is the one meant (snapper/snap.h).
             * A probe that fails keeps the abstention. */
            base_rect gb = snap_neighbour_box(lbox, clip.x1, clip.y1);
            base_point lat2[SNAP_PROBE_NGRID];
            snap_probe_points(gb, lat2);
            perc__reply r2;
            char e2[BASE_ERRBUF_SIZE];
            if (run_probe(page, l->session, l->context_id, gb, lat2, SNAP_PROBE_NGRID, 1, &r2,
                          e2) == BASE_OK) {
                s.probe_ms += r2.p.eval_ms;
                snap_result res2;
                if (snap_resolve(r2.p.cands, r2.p.n, &r2.p.probe, intent, &res2, NULL) ==
                        BASE_OK &&
                    snap_neighbour_take(&res2)) {
                    perc__reply_fini(&r);
                    r = r2;
                    res = res2;
                    s.res = res2;
                } else {
                    perc__reply_fini(&r2);
                }
            }
        }
        if (!res.found && res.ambiguous)
            fill_alts(&r, &res, l, clip, &s);
        if (res.found) {
            fill_found(page, &r, &res, l, clip, &s);
            xp = base_strdup(r.p.cands[res.cand].xpath);
            ch = base_strdup(r.p.cands[res.cand].frame_chain);
        }
        perc__reply_fini(&r);
        break;
    }
    if (s.found) {
        if (!xp || !ch) {
            e = base_errf(err, BASE_ENOMEM, "snap: out of memory");
            goto done;
        }
        s.res.pt = s.pt; /* the result speaks top-viewport px like the rest */
        if (verify_pt) {
            e = verify(page, lv, nlv, s.pt, xp, ch, &s, err);
            if (e)
                goto done;
        }
    } else {
        s.pt = base_rect_center(box);
        s.res.found = 0;
        s.res.pt = s.pt;
    }
    *out = s;
done:
    base_free(xp);
    base_free(ch);
    for (int i = 0; i < nlv && i <= PROBE_MAX_DESCENT; i++) {
        base_free(lv[i].iframe_xpath);
        base_free(lv[i].iframe_chain);
    }
    return e;
}

/* cascade/hand.c: the hand's page plumbing.
 *
 * A hand acts on one page. The page half of every action is
 * assets/js/cascade_hand.js, evaluated in fovea's isolated world
 * (CDP_WORLD_NAME, shared with perception's scripts, so closed shadow roots
 * handed to that world and the listener bridge are the hand's too) that the
 * hand reaches per frame with Page.createIsolatedWorld: the page's
 * scripts cannot see it, and frames of any origin (same-process or
 * out-of-process) are reached the same way, through the session that owns
 * the frame. The world's context id is cached per frame and re-created when
 * a navigation destroyed it.
 *
 * Coordinates: the page half reports CSS px of its frame's viewport; the
 * hand adds the frame's origin (the content box of its <iframe> element in
 * the parent, recursively) and dispatches every input event on the page's
 * top session in top-viewport px, which Chromium routes into out-of-process
 * iframes itself. The cursor position is tracked here so that the next path
 * starts where the last one ended.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "cascade/cascade_int.h"
#include "cascade/js.h"
#include "cdp/frames.h"
#include "motion/path.h"

#define WORLD_NAME CDP_WORLD_NAME

void cascade_opts_init(cascade_opts *o)
{
    memset(o, 0, sizeof *o);
    o->humanize = 1;
    o->wait_ms = 5000;
    o->effect_ms = 1000;
    o->settle_ms = 500;
    o->typos = 1;
}

base_err cascade_hand_create(cdp_page *page, const cascade_opts *o, cascade_hand **out, char *err)
{
    if (!page || !out)
        return base_errf(err, BASE_EINVAL, "cascade: NULL page or out");
    cascade_hand *h = base_calloc(1, sizeof *h);
    if (!h)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    h->page = page;
    if (o)
        h->o = *o;
    else
        cascade_opts_init(&h->o);
    base_err e = BASE_OK;
    if (h->o.learnings_path && h->o.learnings_path[0]) {
        h->learnings_path = base_strdup(h->o.learnings_path);
        if (!h->learnings_path) {
            e = base_errf(err, BASE_ENOMEM, "cascade: out of memory");
            goto fail;
        }
        e = cascade_learnings_open(h->learnings_path, &h->learn, err);
        if (e)
            goto fail;
    }
    h->o.learnings_path = h->learnings_path;
    if (h->o.wait_ms < 0)
        h->o.wait_ms = 0;
    if (h->o.effect_ms < 0)
        h->o.effect_ms = 0;
    base_rng_seed(&h->rng, h->o.seed);
    e = cascade__fx_start(h, err);
    if (e)
        goto fail;
    /* The cursor starts somewhere in the middle of the viewport, as a
     * person's would after moving to the window. */
    const cdp_page_opts *vp = cdp_page_viewport(page);
    float w = vp && vp->width > 0 ? (float)vp->width : 1280.0f;
    float ht = vp && vp->height > 0 ? (float)vp->height : 800.0f;
    h->cursor.x = (float)base_rng_uniform(&h->rng, 0.3 * w, 0.7 * w);
    h->cursor.y = (float)base_rng_uniform(&h->rng, 0.3 * ht, 0.7 * ht);
    *out = h;
    return BASE_OK;
fail:
    cascade__fx_stop(h);
    cascade_learnings_close(h->learn);
    base_free(h->learnings_path);
    base_free(h);
    return e;
}

void cascade_hand_destroy(cascade_hand *h)
{
    if (!h)
        return;
    cascade__fx_stop(h);
    cascade_learnings_close(h->learn);
    base_free(h->learnings_path);
    base_free(h);
}

base_point cascade_hand_cursor(const cascade_hand *h)
{
    base_point z = {0, 0};
    return h ? h->cursor : z;
}

cascade_learnings *cascade_hand_learnings(cascade_hand *h)
{
    return h ? h->learn : NULL;
}

uint64_t cascade__seed(cascade_hand *h)
{
    return base_rng_u64(&h->rng);
}

const char *cascade_reason_name(cascade_reason r)
{
    switch (r) {
    case CASCADE_OK: return "ok";
    case CASCADE_NOT_FOUND: return "not_found";
    case CASCADE_DISABLED: return "disabled";
    case CASCADE_INVISIBLE: return "invisible";
    case CASCADE_COVERED: return "element_covered";
    case CASCADE_AMBIGUOUS: return "ambiguous";
    case CASCADE_NO_EFFECT: return "no_effect";
    case CASCADE_DEAD_CLICK: return "dead_click";
    case CASCADE_BOT_PROTECTED: return "bot_protected";
    case CASCADE_ERROR: return "error";
    case CASCADE_NO_VISIBLE_EFFECT: return "no_visible_effect";
    }
    return "unknown";
}

/* ---------- results and JSON helpers ---------- */

void cascade__result_init(cascade_result *r)
{
    memset(r, 0, sizeof *r);
    r->reason = CASCADE_ERROR;
}

cascade_try *cascade__try(cascade_result *r, int tier)
{
    if (r->n_tried >= 3)
        return NULL;
    cascade_try *t = &r->tried[r->n_tried++];
    memset(t, 0, sizeof *t);
    t->tier = tier;
    return t;
}

void cascade__alt(cascade_result *r, const char *fmt, ...)
{
    if (r->n_alternatives >= 4)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->alternatives[r->n_alternatives++], sizeof r->alternatives[0], fmt, ap);
    va_end(ap);
}

void cascade__msg(cascade_result *r, cascade_reason why, const char *fmt, ...)
{
    r->reason = why;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

double cascade__num(const cJSON *o, const char *k, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

const char *cascade__str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int cascade__bool(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsTrue(v);
}

/* ---------- frames, sessions, isolated worlds ---------- */

static const char *main_frame_id(cascade_hand *h)
{
    /* A tab's main frame has the id of its target. */
    return cdp_page_target_id(h->page);
}

static const char *norm_frame(cascade_hand *h, const char *frame_id)
{
    return frame_id && frame_id[0] ? frame_id : main_frame_id(h);
}

base_err cascade__session(cascade_hand *h, const char *frame_id, char *buf, char *err)
{
    const char *fid = norm_frame(h, frame_id);
    if (strcmp(fid, main_frame_id(h)) == 0) {
        snprintf(buf, 64, "%s", cdp_page_session(h->page));
        return BASE_OK;
    }
    if (cdp_page_frame_session(h->page, fid, buf))
        return base_errf(err, BASE_ENOTFOUND, "cascade: frame %.64s is not (or no longer) in the page",
                         fid);
    return BASE_OK;
}

void cascade__top_url(cascade_hand *h, char *buf, size_t n)
{
    cdp_page_top_url(h->page, buf, n);
}

void cascade__domain(cascade_hand *h, char *buf, size_t n)
{
    char url[512];
    cascade__top_url(h, url, sizeof url);
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    /* Skip user info, stop at the port, path, query or fragment. */
    const char *at = strchr(p, '@');
    const char *slash = strpbrk(p, "/?#");
    if (at && (!slash || at < slash))
        p = at + 1;
    size_t k = 0;
    if (*p == '[') { /* IPv6 literal: keep the brackets' content */
        p++;
        while (p[k] && p[k] != ']')
            k++;
    } else {
        while (p[k] && !strchr(":/?#", p[k]))
            k++;
    }
    if (k >= n)
        k = n ? n - 1 : 0;
    for (size_t i = 0; i < k; i++)
        buf[i] = (char)((p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32 : p[i]);
    if (n)
        buf[k] = '\0';
}

static cascade__ctx *ctx_find(cascade_hand *h, const char *fid)
{
    for (int i = 0; i < h->nctx; i++)
        if (strcmp(h->ctx[i].frame_id, fid) == 0)
            return &h->ctx[i];
    return NULL;
}

static void ctx_drop(cascade_hand *h, const char *fid)
{
    cascade__ctx *c = ctx_find(h, fid);
    if (c)
        *c = h->ctx[--h->nctx];
}

static base_err ctx_get(cascade_hand *h, const char *fid, cascade__ctx *out, char *err)
{
    cascade__ctx *c = ctx_find(h, fid);
    if (c) {
        *out = *c;
        return BASE_OK;
    }
    char sess[64];
    base_err e = cascade__session(h, fid, sess, err);
    if (e)
        return e;
    int id = 0;
    e = cdp_frame_isolated_world(h->page, sess, fid, WORLD_NAME, 10000, &id, err);
    if (e)
        return e;
    if (h->nctx == CASCADE__MAX_CTX)
        h->ctx[0] = h->ctx[--h->nctx]; /* forget the oldest-ish entry */
    c = &h->ctx[h->nctx++];
    snprintf(c->frame_id, sizeof c->frame_id, "%s", fid);
    snprintf(c->session, sizeof c->session, "%s", sess);
    c->ctx_id = id;
    *out = *c;
    return BASE_OK;
}

/* Runtime.evaluate's params for expr in context ctx_id; NULL on ENOMEM
 * (never a partial object: a command missing a member would do something
 * else). */
static cJSON *eval_params(const char *expr, int ctx_id, int by_value)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "expression", expr) ||
        !cJSON_AddNumberToObject(pa, "contextId", ctx_id) ||
        !cJSON_AddBoolToObject(pa, "returnByValue", by_value) ||
        !cJSON_AddBoolToObject(pa, "awaitPromise", 1)) {
        cJSON_Delete(pa);
        return NULL;
    }
    return pa;
}

/* Runtime.evaluate in the world; *out gets the value (by_value) or the
 * RemoteObject. Context loss is BASE_ENOTFOUND so the caller can retry. */
static base_err eval_in(cascade_hand *h, const cascade__ctx *c, const char *expr, int by_value,
                        cJSON **out, int timeout_ms, char *err)
{
    cJSON *pa = eval_params(expr, c->ctx_id, by_value);
    if (!pa)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    cJSON *res = NULL;
    char e2[BASE_ERRBUF_SIZE] = "";
    base_err e = cdp_call(cdp_page_conn(h->page), c->session, "Runtime.evaluate", pa, &res,
                          timeout_ms, e2);
    if (e == BASE_EREMOTE && (strstr(e2, "context") || strstr(e2, "Context") ||
                              strstr(e2, "target")))
        return BASE_ENOTFOUND; /* destroyed by a navigation: retry in a new world */
    if (e)
        return base_errf(err, e, "%s", e2);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(res, "exceptionDetails");
    if (ex) {
        const cJSON *exc = cJSON_GetObjectItemCaseSensitive(ex, "exception");
        const char *desc = cascade__str(exc, "description");
        const char *text = cascade__str(ex, "text");
        /* A navigation while awaiting a promise surfaces as an exception. */
        if ((desc && strstr(desc, "destroyed")) || (text && strstr(text, "destroyed"))) {
            cJSON_Delete(res);
            return BASE_ENOTFOUND;
        }
        base_errf(err, BASE_EREMOTE, "page script threw: %.200s",
                  desc ? desc : (text ? text : "unknown exception"));
        cJSON_Delete(res);
        return BASE_EREMOTE;
    }
    cJSON *r = cJSON_DetachItemFromObjectCaseSensitive(res, "result");
    cJSON_Delete(res);
    if (!r)
        return base_errf(err, BASE_EPROTO, "cascade: evaluate returned no result");
    if (by_value) {
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(r, "value");
        cJSON_Delete(r);
        if (!v)
            v = cJSON_CreateNull();
        if (!v)
            return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
        *out = v;
    } else {
        *out = r;
    }
    return BASE_OK;
}

cJSON *cascade__xpath_arg(const char *xpath)
{
    cJSON *a = cJSON_CreateObject();
    if (a && !cJSON_AddStringToObject(a, "xpath", xpath ? xpath : "")) {
        cJSON_Delete(a);
        a = NULL;
    }
    return a;
}

static int is_missing(const cJSON *v, int by_value)
{
    if (by_value)
        return cJSON_IsString(v) && strcmp(v->valuestring, "__fovea_missing") == 0;
    const char *val = cascade__str(v, "value");
    return val && strcmp(val, "__fovea_missing") == 0;
}

base_err cascade__call(cascade_hand *h, const char *frame_id, const char *op, cJSON *arg,
                       int by_value, cJSON **out, int timeout_ms, char *err)
{
    char *a = arg ? cJSON_PrintUnformatted(arg) : NULL;
    cJSON_Delete(arg);
    if (arg && !a)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    size_t n = strlen(op) + (a ? strlen(a) : 2) + 128;
    char *expr = base_malloc(n);
    if (!expr) {
        cJSON_free(a);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    snprintf(expr, n,
             "typeof __fovea_hand==='object'?__fovea_hand.%s(%s):'__fovea_missing'", op,
             a ? a : "{}");
    cJSON_free(a);
    const char *fid = norm_frame(h, frame_id);
    base_err e = BASE_OK;
    cJSON *v = NULL;
    /* Attempts: a fresh world after a navigation, then the install. */
    for (int attempt = 0; attempt < 4; attempt++) {
        cascade__ctx c;
        e = ctx_get(h, fid, &c, err);
        if (e)
            break;
        e = eval_in(h, &c, expr, by_value, &v, timeout_ms, err);
        if (e == BASE_ENOTFOUND) {
            ctx_drop(h, fid);
            continue;
        }
        if (e)
            break;
        if (!is_missing(v, by_value))
            break;
        cJSON_Delete(v);
        v = NULL;
        /* First use of this world: install the page half. */
        size_t m = fovea_js_cascade_hand_len + 64;
        char *inst = base_malloc(m);
        if (!inst) {
            e = base_errf(err, BASE_ENOMEM, "cascade: out of memory");
            break;
        }
        snprintf(inst, m, "globalThis.__fovea_hand=%s;0", (const char *)fovea_js_cascade_hand);
        cJSON *ignored = NULL;
        e = eval_in(h, &c, inst, 1, &ignored, timeout_ms, err);
        base_free(inst);
        cJSON_Delete(ignored);
        if (e == BASE_ENOTFOUND) {
            ctx_drop(h, fid);
            continue;
        }
        if (e)
            break;
        e = BASE_EPROTO; /* loop once more to run the op */
    }
    base_free(expr);
    if (e == BASE_ENOTFOUND || e == BASE_EPROTO)
        e = base_errf(err, BASE_ECLOSED, "cascade: the frame's document kept going away");
    if (e) {
        cJSON_Delete(v);
        return e;
    }
    *out = v;
    return BASE_OK;
}

/* ---------- the press point against the browser ---------- */

/* DOM.getNodeForLocation at (x, y) of session's viewport: the backend node
 * the browser's own hit test finds there, and its frame id (fid, 64 bytes).
 * User-agent shadow trees are not entered: their nodes have no script
 * wrapper, and the element that owns one (an <input>) is what a press
 * reaches. 1 on success. */
static int node_at(cascade_hand *h, const char *session, base_point p, const base_point *scroll,
                   int *backend, char *fid)
{
    /* getNodeForLocation speaks document coordinates: add the scroll
     * offset of the session's root document (the caller's, when its probe
     * just measured it; else its visual viewport's). */
    if (scroll) {
        p.x += scroll->x;
        p.y += scroll->y;
    } else {
        cJSON *lm = NULL;
        if (cdp_call(cdp_page_conn(h->page), session, "Page.getLayoutMetrics", NULL, &lm, 10000,
                     NULL) != BASE_OK)
            return 0;
        const cJSON *vv = cJSON_GetObjectItemCaseSensitive(lm, "cssVisualViewport");
        p.x += (float)cascade__num(vv, "pageX", 0);
        p.y += (float)cascade__num(vv, "pageY", 0);
        cJSON_Delete(lm);
    }
    cJSON *pa = cJSON_CreateObject(), *res = NULL;
    if (!pa || !cJSON_AddNumberToObject(pa, "x", (int)floorf(p.x)) ||
        !cJSON_AddNumberToObject(pa, "y", (int)floorf(p.y)) ||
        !cJSON_AddBoolToObject(pa, "includeUserAgentShadowDOM", 0) ||
        !cJSON_AddBoolToObject(pa, "ignorePointerEventsNone", 0)) {
        cJSON_Delete(pa);
        return 0;
    }
    char e2[BASE_ERRBUF_SIZE] = "";
    if (cdp_call(cdp_page_conn(h->page), session, "DOM.getNodeForLocation", pa, &res, 10000,
                 e2) != BASE_OK) {
        base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "press check at %.1f,%.1f: %s", p.x, p.y, e2);
        return 0;
    }
    *backend = (int)cascade__num(res, "backendNodeId", 0);
    const char *f = cascade__str(res, "frameId");
    snprintf(fid, 64, "%s", f ? f : "");
    cJSON_Delete(res);
    return *backend > 0;
}

static void press_released(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)e;
    (void)result;
    (void)msg;
    (void)user;
}

/* Releases the press check's handle without waiting for the answer. */
static void release_press(cascade_hand *h, const char *sess)
{
    cJSON *rg = cJSON_CreateObject();
    if (!rg || !cJSON_AddStringToObject(rg, "objectGroup", "fovea-press")) {
        cJSON_Delete(rg);
        return;
    }
    cdp_call_async(cdp_page_conn(h->page), sess, "Runtime.releaseObjectGroup", rg, 5000,
                   press_released, NULL);
}

base_err cascade__check_press(cascade_hand *h, const char *frame_id, const char *xpath,
                              base_point p, const base_point *scroll, int *ok, char *why,
                              size_t whyn, char *err)
{
    *ok = 1;
    if (!xpath || !xpath[0])
        return BASE_OK; /* a bare point: nothing named to compare with */
    const char *fid = norm_frame(h, frame_id);
    char sess[64];
    base_err e = cascade__session(h, fid, sess, err);
    if (e)
        return e;
    base_point so = {0, 0};
    if (strcmp(sess, cdp_page_session(h->page)) != 0 &&
        (e = cascade__session_origin(h, sess, &so, err)))
        return e;
    int backend = 0;
    char hit_fid[64];
    if (strcmp(sess, cdp_page_session(h->page)) != 0)
        scroll = NULL; /* the caller's scroll is the top document's */
    if (!node_at(h, sess, (base_point){p.x - so.x, p.y - so.y}, scroll, &backend, hit_fid)) {
        *ok = 0;
        snprintf(why, whyn, "the browser finds no element at (%.0f,%.0f)", p.x, p.y);
        return BASE_OK;
    }
    /* The node is in another document of this process than the target's
     * (a frame the hit test did not enter, or a frame laid over the
     * target): a covering frame is refused; the target's own <iframe>
     * owner means the hit test stopped at the frame boundary, and the
     * in-world check (hitOk) stands alone there. */
    if (hit_fid[0] && strcmp(hit_fid, fid) != 0) {
        cdp_frame f;
        if (cdp_frame_find(h->page, fid, &f) && strcmp(f.parent_id, hit_fid) == 0)
            return BASE_OK;
        *ok = 0;
        snprintf(why, whyn, "the browser's hit test at (%.0f,%.0f) is in another frame", p.x, p.y);
        return BASE_OK;
    }
    cascade__ctx c;
    if ((e = ctx_get(h, fid, &c, err)))
        return e;
    cJSON *ra = cJSON_CreateObject(), *res = NULL;
    if (!ra || !cJSON_AddNumberToObject(ra, "backendNodeId", backend) ||
        !cJSON_AddNumberToObject(ra, "executionContextId", c.ctx_id) ||
        !cJSON_AddStringToObject(ra, "objectGroup", "fovea-press")) {
        cJSON_Delete(ra);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    if ((e = cdp_call(cdp_page_conn(h->page), sess, "DOM.resolveNode", ra, &res, 10000, err)))
        return e;
    const char *oid = cascade__str(cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId");
    char node[160] = "";
    if (oid)
        snprintf(node, sizeof node, "%s", oid);
    cJSON_Delete(res);
    if (!node[0])
        return base_errf(err, BASE_EPROTO, "cascade: DOM.resolveNode gave no object");
    cJSON *pa = cJSON_CreateObject(), *args = NULL, *a0 = NULL;
    if (pa)
        args = cJSON_AddArrayToObject(pa, "arguments");
    if (args)
        a0 = cJSON_CreateObject();
    if (a0 && !cJSON_AddItemToArray(args, a0)) {
        cJSON_Delete(a0);
        a0 = NULL;
    }
    if (!a0 || !cJSON_AddStringToObject(a0, "value", xpath) ||
        !cJSON_AddStringToObject(pa, "objectId", node) ||
        !cJSON_AddStringToObject(pa, "functionDeclaration",
                                 "function (xp) { return typeof __fovea_hand === 'object' ?"
                                 " __fovea_hand.pressOk(this, xp) : null; }") ||
        !cJSON_AddBoolToObject(pa, "returnByValue", 1)) {
        cJSON_Delete(pa);
        release_press(h, sess);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    res = NULL;
    e = cdp_call(cdp_page_conn(h->page), sess, "Runtime.callFunctionOn", pa, &res, 10000, err);
    release_press(h, sess);
    if (e)
        return e;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "result"), "value");
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "press check at %.1f,%.1f: node %d -> %s", p.x,
             p.y, backend, cJSON_IsFalse(v) ? "other" : cJSON_IsTrue(v) ? "target" : "unknown");
    if (cJSON_IsFalse(v)) {
        *ok = 0;
        snprintf(why, whyn,
                 "the browser's hit test at (%.0f,%.0f) is another element than the target",
                 p.x, p.y);
    }
    /* null: the hand's half is not in this world (yet) or the xpath named no
     * single element: the probe that just ran would have said so. */
    cJSON_Delete(res);
    return BASE_OK;
}

/* ---------- coordinates ---------- */

base_err cascade__frame_origin(cascade_hand *h, const cascade_target *t, const char *frame_id,
                               base_point *o, char *err)
{
    if (t && t->have_origin) {
        *o = t->origin; /* the caller (the snapper) already measured it */
        return BASE_OK;
    }
    return cdp_frame_origin(h->page, norm_frame(h, frame_id), 10000, o, err);
}

base_err cascade__session_origin(cascade_hand *h, const char *session, base_point *o, char *err)
{
    return cdp_session_origin(h->page, session, 10000, o, err);
}

int cascade__resolve_node(cascade_hand *h, const char *session, int backend, char *oid, size_t n)
{
    cJSON *ra = cJSON_CreateObject(), *res = NULL;
    if (!ra || !cJSON_AddNumberToObject(ra, "backendNodeId", backend)) {
        cJSON_Delete(ra);
        return 0;
    }
    int ok = 0;
    if (cdp_call(cdp_page_conn(h->page), session, "DOM.resolveNode", ra, &res, 10000, NULL) ==
        BASE_OK) {
        const cJSON *id =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId");
        ok = cJSON_IsString(id) && strlen(id->valuestring) < n;
        if (ok)
            snprintf(oid, n, "%s", id->valuestring);
    }
    cJSON_Delete(res);
    return ok;
}

void cascade__release_object(cascade_hand *h, const char *session, const char *oid)
{
    cJSON *rel = cJSON_CreateObject();
    if (!rel || !cJSON_AddStringToObject(rel, "objectId", oid)) {
        cJSON_Delete(rel);
        return;
    }
    cdp_call(cdp_page_conn(h->page), session, "Runtime.releaseObject", rel, NULL, 5000, NULL);
}

/* 1 when the owner element (remote object oid in session) is its
 * document's active element, 0 otherwise or on error. */
static int owner_active(cascade_hand *h, const char *session, const char *oid)
{
    cJSON *pa = cJSON_CreateObject(), *res = NULL;
    if (!pa || !cJSON_AddStringToObject(pa, "objectId", oid) ||
        !cJSON_AddStringToObject(pa, "functionDeclaration",
                                 "function () { return this.ownerDocument.activeElement === this; }") ||
        !cJSON_AddBoolToObject(pa, "returnByValue", 1)) {
        cJSON_Delete(pa);
        return 0;
    }
    int yes = 0;
    if (cdp_call(cdp_page_conn(h->page), session, "Runtime.callFunctionOn", pa, &res, 5000, NULL) ==
        BASE_OK) {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(res, "result");
        yes = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "value"));
    }
    cJSON_Delete(res);
    return yes;
}

int cascade__frame_focus_wait(cascade_hand *h, const char *frame_id, int timeout_ms)
{
    const char *fid = norm_frame(h, frame_id);
    cdp_frame f, parent;
    if (strcmp(fid, main_frame_id(h)) == 0 || !cdp_frame_find(h->page, fid, &f) || !f.oopif ||
        !f.parent_id[0] || !cdp_frame_find(h->page, f.parent_id, &parent))
        return -1;
    char psess[64];
    snprintf(psess, sizeof psess, "%s", parent.session[0] ? parent.session : cdp_page_session(h->page));
    int node = 0;
    if (cdp_frame_owner_node(h->page, psess, fid, 5000, &node, NULL) != BASE_OK)
        return 0;
    char oid[256];
    if (!cascade__resolve_node(h, psess, node, oid, sizeof oid))
        return 0;
    double end = base_monotime_ms() + timeout_ms;
    int yes;
    while (!(yes = owner_active(h, psess, oid)) && base_monotime_ms() < end)
        base_sleep_ms(10);
    cascade__release_object(h, psess, oid);
    return yes;
}

/* ---------- input ---------- */

/* Input.dispatchMouseEvent's params; NULL on ENOMEM, never a partial
 * object (a press without its button or position is another action).
 * button: "left"/"right"; count: the press's clickCount (2 = the second
 * press of a double click). */
static cJSON *mouse_params_b(const char *type, base_point p, int buttons, const char *button,
                             int count)
{
    cJSON *pa = cJSON_CreateObject();
    int press = strcmp(type, "mouseMoved") != 0;
    if (!pa || !cJSON_AddStringToObject(pa, "type", type) ||
        !cJSON_AddNumberToObject(pa, "x", p.x) || !cJSON_AddNumberToObject(pa, "y", p.y) ||
        !cJSON_AddStringToObject(pa, "button", press || buttons ? button : "none") ||
        !cJSON_AddNumberToObject(pa, "buttons", buttons) ||
        (press && !cJSON_AddNumberToObject(pa, "clickCount", count)) ||
        !cJSON_AddStringToObject(pa, "pointerType", "mouse")) {
        cJSON_Delete(pa);
        return NULL;
    }
    return pa;
}

static cJSON *mouse_params(const char *type, base_point p, int buttons)
{
    return mouse_params_b(type, p, buttons, "left", 1);
}

cJSON *cascade__mouse_params(const char *type, base_point p, int buttons)
{
    return mouse_params(type, p, buttons);
}

base_err cascade__mouse(cascade_hand *h, const char *type, base_point p, int buttons, char *err)
{
    cJSON *pa = mouse_params(type, p, buttons);
    if (!pa)
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    base_err e = cdp_page_call(h->page, "Input.dispatchMouseEvent", pa, NULL, 10000, err);
    if (!e)
        h->cursor = p;
    return e;
}

static void path_add(cascade_result *out, base_point p)
{
    if (out && out->n_path < (int)(sizeof out->path / sizeof out->path[0]))
        out->path[out->n_path++] = p;
}

base_err cascade__replay(cascade_hand *h, const motion_path *mp, int buttons, cascade_result *out,
                         char *err)
{
    /* Waypoints are scheduled on an absolute timeline so the time each
     * dispatch takes is absorbed rather than added. */
    double t = base_monotime_ms(), start = t;
    for (int i = 0; i < mp->n; i++) {
        t += mp->pts[i].dt_ms;
        double now = base_monotime_ms();
        if (t > now)
            base_sleep_ms(t - now);
        base_point p = {mp->pts[i].x, mp->pts[i].y};
        base_err e = cascade__mouse(h, "mouseMoved", p, buttons, err);
        if (e)
            return e;
        path_add(out, p);
    }
    if (out)
        out->motion_ms += base_monotime_ms() - start;
    return BASE_OK;
}

/* Pipelined dispatch: every call is queued at once, the replies are awaited
 * together. Chromium handles one session's input in order. */
typedef struct pipe_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int left;
    base_err e;
    char msg[160];
    cJSON *tail;  /* reply of the trailing evaluate (owned copy), if any */
    base_err tail_e;
} pipe_wait;

static void tail_done(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)msg;
    pipe_wait *w = user;
    pthread_mutex_lock(&w->mu);
    w->tail_e = e;
    if (!e && result)
        w->tail = cJSON_Duplicate(result, 1);
    w->left--;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void pipe_done(base_err e, const cJSON *result, const char *msg, void *user)
{
    (void)result;
    pipe_wait *w = user;
    pthread_mutex_lock(&w->mu);
    if (e && !w->e) {
        w->e = e;
        snprintf(w->msg, sizeof w->msg, "%s", msg ? msg : "");
    }
    w->left--;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Queues every call, and then (tail_params non-NULL) a Runtime.evaluate on
 * tail_session whose reply lands in *tail_out; waits for all replies. */
static base_err pipeline_tail(cascade_hand *h, const char *const *methods, cJSON **params, int n,
                              const char *tail_session, cJSON *tail_params, cJSON **tail_out,
                              char *err);

static base_err pipeline(cascade_hand *h, const char *const *methods, cJSON **params, int n,
                         char *err)
{
    return pipeline_tail(h, methods, params, n, NULL, NULL, NULL, err);
}

static base_err pipeline_tail(cascade_hand *h, const char *const *methods, cJSON **params, int n,
                              const char *tail_session, cJSON *tail_params, cJSON **tail_out,
                              char *err)
{
    /* A builder that ran out of memory left a NULL: send nothing at all
     * rather than, say, a press without its release. */
    int missing = 0;
    for (int i = 0; i < n; i++)
        missing |= params[i] == NULL;
    if (missing || (tail_out && !tail_params)) {
        for (int i = 0; i < n; i++)
            cJSON_Delete(params[i]);
        cJSON_Delete(tail_params);
        if (tail_out)
            *tail_out = NULL;
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    pipe_wait w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    cdp_conn *c = cdp_page_conn(h->page);
    const char *s = cdp_page_session(h->page);
    base_err e = BASE_OK;
    int queued = 0;
    for (int i = 0; i < n; i++) {
        if (e) {
            cJSON_Delete(params[i]);
            continue;
        }
        pthread_mutex_lock(&w.mu);
        w.left++;
        pthread_mutex_unlock(&w.mu);
        e = cdp_call_async(c, s, methods[i], params[i], 10000, pipe_done, &w);
        if (e) {
            pthread_mutex_lock(&w.mu);
            w.left--;
            pthread_mutex_unlock(&w.mu);
        } else {
            queued++;
        }
    }
    if (tail_params && !e) {
        pthread_mutex_lock(&w.mu);
        w.left++;
        pthread_mutex_unlock(&w.mu);
        base_err te = cdp_call_async(c, tail_session, "Runtime.evaluate", tail_params,
                                     h->o.effect_ms + 10000, tail_done, &w);
        if (te) {
            pthread_mutex_lock(&w.mu);
            w.left--;
            w.tail_e = te;
            pthread_mutex_unlock(&w.mu);
        }
    } else if (tail_params) {
        cJSON_Delete(tail_params);
        w.tail_e = e;
    }
    pthread_mutex_lock(&w.mu);
    while (w.left > 0)
        pthread_cond_wait(&w.cv, &w.mu); /* every call has a timeout */
    pthread_mutex_unlock(&w.mu);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    if (tail_out)
        *tail_out = w.tail_e ? NULL : w.tail;
    else
        cJSON_Delete(w.tail);
    if (tail_out && w.tail_e)
        cJSON_Delete(w.tail);
    if (e)
        return base_errf(err, e, "cascade: cannot queue input events");
    if (w.e)
        return base_errf(err, w.e, "cascade: input dispatch: %s", w.msg);
    (void)queued;
    return BASE_OK;
}

base_err cascade__pipeline(cascade_hand *h, const char *const *methods, cJSON **params, int n,
                           char *err)
{
    return pipeline(h, methods, params, n, err);
}

base_err cascade__press_at(cascade_hand *h, base_point p, int humanize, cascade__mark_fn mark,
                           void *mark_user, cascade_result *out, char *err)
{
    return cascade__press_kind_at(h, p, humanize, CASCADE_PRESS_CLICK, mark, mark_user, out, err);
}

/* The press and release events of one kind of press at p (at most 4):
 * left click, right click, or the two presses of a double click. */
static int press_events(cascade_press_kind kind, base_point p, cJSON **ev)
{
    if (kind == CASCADE_PRESS_RIGHT) {
        ev[0] = mouse_params_b("mousePressed", p, 2, "right", 1);
        ev[1] = mouse_params_b("mouseReleased", p, 0, "right", 1);
        return 2;
    }
    ev[0] = mouse_params_b("mousePressed", p, 1, "left", 1);
    ev[1] = mouse_params_b("mouseReleased", p, 0, "left", 1);
    if (kind != CASCADE_PRESS_DOUBLE)
        return 2;
    ev[2] = mouse_params_b("mousePressed", p, 1, "left", 2);
    ev[3] = mouse_params_b("mouseReleased", p, 0, "left", 2);
    return 4;
}

static base_err send_one(cascade_hand *h, cJSON *ev, base_point p, char *err)
{
    base_err e = cdp_page_call(h->page, "Input.dispatchMouseEvent", ev, NULL, 10000, err);
    if (!e)
        h->cursor = p;
    return e;
}

base_err cascade__press_kind_at(cascade_hand *h, base_point p, int humanize,
                                cascade_press_kind kind, cascade__mark_fn mark, void *mark_user,
                                cascade_result *out, char *err)
{
    base_err e;
    if (!humanize) {
        cJSON *ev[5] = {mouse_params("mouseMoved", p, 0), NULL, NULL, NULL, NULL};
        int n = kind == CASCADE_PRESS_HOVER ? 1 : 1 + press_events(kind, p, ev + 1);
        static const char *const m[5] = {"Input.dispatchMouseEvent", "Input.dispatchMouseEvent",
                                         "Input.dispatchMouseEvent", "Input.dispatchMouseEvent",
                                         "Input.dispatchMouseEvent"};
        int alive = cdp_page_status(h->page, NULL, 0) == BASE_OK;
        e = pipeline(h, m, ev, n, err);
        if (e) {
            /* The press went out with the move (one pipeline): it may have
             * acted (see below). */
            if (alive && e != BASE_ENOMEM && out && kind != CASCADE_PRESS_HOVER)
                out->delivered = 1;
            return e;
        }
        h->cursor = p;
        path_add(out, p);
        if (out)
            out->clicked_at = p;
        return BASE_OK;
    }
    motion_path mp;
    memset(&mp, 0, sizeof mp);
    e = motion_plan_path(h->cursor, p, MOTION_CLICK, cascade__seed(h), &mp);
    if (e)
        return base_errf(err, e, "cascade: cannot plan a path to (%.0f,%.0f)", p.x, p.y);
    float hes = 0, hold = 0;
    motion_plan_click_timing(cascade__seed(h), &hes, &hold);
    e = cascade__replay(h, &mp, 0, out, err);
    base_point at = kind == CASCADE_PRESS_HOVER ? p : mp.release;
    motion_path_fini(&mp);
    if (e)
        return e;
    if (kind == CASCADE_PRESS_HOVER) {
        /* The path ends near p (release jitter): rest exactly on it. */
        if (h->cursor.x != p.x || h->cursor.y != p.y) {
            e = cascade__mouse(h, "mouseMoved", p, 0, err);
            if (e)
                return e;
            path_add(out, p);
        }
        if (out)
            out->clicked_at = p;
        return BASE_OK;
    }
    /* The effect baseline is taken during the hesitation, so hover effects
     * of the approach do not count as the click's effect. */
    double t0 = base_monotime_ms();
    if (mark) {
        base_point want = at;
        e = mark(h, mark_user, &want, err);
        if (e)
            return e;
        if (want.x != at.x || want.y != at.y) {
            /* The target moved under the approach (a hover animation): a
             * short straight move to where it stands now. */
            at = want;
            e = cascade__mouse(h, "mouseMoved", at, 0, err);
            if (e)
                return e;
            path_add(out, at);
        }
    }
    double left = hes - (base_monotime_ms() - t0);
    if (left > 0)
        base_sleep_ms(left);
    cJSON *ev[4] = {NULL, NULL, NULL, NULL};
    int n = press_events(kind, at, ev);
    /* A press sent to a live page may have acted even when its answer never
     * comes (a click handler that closes the tab or navigates away): from
     * here on, a failure leaves the press delivered, never to be repeated. */
    int alive = cdp_page_status(h->page, NULL, 0) == BASE_OK;
    for (int i = 0; i < n; i++) {
        e = send_one(h, ev[i], at, err);
        ev[i] = NULL;
        if (e) {
            for (int j = i + 1; j < n; j++)
                cJSON_Delete(ev[j]);
            if (alive && e != BASE_ENOMEM && out)
                out->delivered = 1;
            return e;
        }
        if (i + 1 < n) /* a held button; between the two presses of a double, a gap */
            base_sleep_ms(i % 2 == 0 ? hold : 40 + (double)base_rng_below(&h->rng, 50));
    }
    if (out)
        out->clicked_at = at;
    return BASE_OK;
}

base_err cascade__fast_click(cascade_hand *h, base_point p, const char *frame_id, cJSON *effect_arg,
                             cJSON **effect, cascade_result *out, char *err)
{
    *effect = NULL;
    cascade__ctx c;
    char *a = cJSON_PrintUnformatted(effect_arg);
    cJSON_Delete(effect_arg);
    base_err e = a ? ctx_get(h, norm_frame(h, frame_id), &c, err)
                   : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    if (e) {
        cJSON_free(a);
        return e;
    }
    size_t n = strlen(a) + 96;
    char *expr = base_malloc(n);
    if (!expr) {
        cJSON_free(a);
        return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    }
    snprintf(expr, n, "typeof __fovea_hand==='object'?__fovea_hand.effect(%s):'__fovea_missing'",
             a);
    cJSON_free(a);
    cJSON *pa = eval_params(expr, c.ctx_id, 1);
    base_free(expr);
    cJSON *ev[3] = {mouse_params("mouseMoved", p, 0), mouse_params("mousePressed", p, 1),
                    mouse_params("mouseReleased", p, 0)};
    static const char *const m[3] = {"Input.dispatchMouseEvent", "Input.dispatchMouseEvent",
                                     "Input.dispatchMouseEvent"};
    cJSON *reply = NULL;
    e = pipeline_tail(h, m, ev, 3, c.session, pa, &reply, err);
    if (e) {
        cJSON_Delete(reply);
        return e;
    }
    h->cursor = p;
    path_add(out, p);
    if (out)
        out->clicked_at = p;
    /* The effect value, or nothing (the caller then asks again the usual
     * way): a missing world, an exception, a lost context. */
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(reply, "result");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "value");
    if (reply && !cJSON_GetObjectItemCaseSensitive(reply, "exceptionDetails") &&
        cJSON_IsObject(v))
        *effect = cJSON_Duplicate(v, 1);
    cJSON_Delete(reply);
    return BASE_OK;
}

/* cascade/click.c: the three-tier click cascade (seed 002 §6.3, Algorithm 5).
 *
 * Tier 1 probes the target in ONE evaluate of the page half (found,
 * enabled, visible, in viewport; scroll to centre and settle; press point;
 * top-most check through shadow roots), refuses disabled, covered and
 * ambiguous targets with a reason and alternatives, then presses: a
 * humanized Bezier approach from the tracked cursor, hesitation, press,
 * hold, release (or, without humanization, one move + press + release
 * pipelined). The page half records whether the press events reached the
 * target (delivery); a delivered press is never repeated, so tier 2 (wait up
 * to wait_ms for the element, trusted press at the centre of its CDP content
 * quad) and tier 3 (opt-in, never on domains marked bot-protected:
 * el.click()) run only when the earlier press landed elsewhere or nothing
 * was pressed. The effects of a delivered press (DOM and shadow-root
 * mutations, URL, field values and checked states, aria state, focus,
 * selection; requests, new tabs and dialogs from effects.c) make it a
 * success; none makes it "delivered, no visible effect" (a success unless
 * the target requires an effect).
 *
 * The dead-click guard remembers the last click's target and whether it did
 * anything; the same target again after a click without effect is refused
 * with a request for fresh perception, unless the target's active state
 * (checked, aria-pressed, aria-expanded, ...) flipped since.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "cascade/cascade_int.h"

typedef struct click_ctx {
    cascade_hand *h;
    const cascade_target *t;
    const char *fid; /* "" = top */
    base_point origin; /* frame origin, top-viewport px */
    double muts;       /* effect baseline */
    char url[1024];
    cJSON *state;      /* target state before the press (owned) */
    cascade__fx_snap fx0; /* browser-side counters before the press */
    int pressed;       /* a press was dispatched on the target's point */
    cascade_press_kind kind; /* click, double, right, hover */
    char domain[256];  /* of the top document (learnings, bot protection) */
    int bot;           /* the domain is marked bot-protected: no tier 3 */
    int text0;         /* a hover: the rendered text's length before the move, -1 = none */
} click_ctx;

typedef cascade__obs press_obs;

/* The watch of c's target and baseline (observe.c). */
static cascade__watch watch_of(const click_ctx *c)
{
    cascade__watch w = {c->h,   c->fid,   c->t->xpath, c->muts,
                        c->url, c->state, &c->fx0,    c->kind != CASCADE_PRESS_HOVER,
                        c->kind == CASCADE_PRESS_HOVER ? c->text0 : -1};
    return w;
}

static void obs_add_browser(click_ctx *c, press_obs *o, cascade_result *out)
{
    cascade__watch w = watch_of(c);
    cascade__obs_add_browser(&w, o, out);
}

/* How long to wait for an effect: none when the caller expects none. */
static int effect_wait_ms(const click_ctx *c)
{
    return c->t->expect_effect < 0 ? 0 : c->h->o.effect_ms;
}

/* The probe's target ({xpath, x, y} as known); NULL on ENOMEM, never
 * partial (a probe without its xpath or point would find another element). */
static cJSON *target_arg(const cascade_target *t, base_point origin)
{
    cJSON *a = cJSON_CreateObject();
    if (!a || (t->xpath && t->xpath[0] && !cJSON_AddStringToObject(a, "xpath", t->xpath)) ||
        (t->have_pt && (!cJSON_AddNumberToObject(a, "x", t->pt.x - origin.x) ||
                        !cJSON_AddNumberToObject(a, "y", t->pt.y - origin.y)))) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

static base_err oom(char *err)
{
    return base_errf(err, BASE_ENOMEM, "cascade: out of memory");
}

static const char *label_of(const cascade_target *t)
{
    if (t->label && t->label[0])
        return t->label;
    if (t->xpath && t->xpath[0])
        return t->xpath;
    return "the point";
}

/* The effect baseline, taken right before the press in humanized mode; the
 * page half also checks that the press point is still on the target (a
 * hover animation may have moved it during the approach), waits for it to
 * stop, and gives a new point when needed. */
static base_err mark_baseline(cascade_hand *h, void *user, base_point *at, char *err)
{
    click_ctx *c = user;
    cJSON *v = NULL;
    cJSON *a = cJSON_CreateObject();
    if (!a || !cJSON_AddNumberToObject(a, "x", at->x - c->origin.x) ||
        !cJSON_AddNumberToObject(a, "y", at->y - c->origin.y) ||
        !cJSON_AddNumberToObject(a, "settle_ms", h->o.settle_ms)) {
        cJSON_Delete(a);
        return oom(err); /* before the press: nothing has been done */
    }
    base_err e = cascade__call(h, c->fid, "mark", a, 1, &v, h->o.settle_ms + 10000, err);
    if (e)
        return e;
    c->muts = cascade__num(v, "muts", c->muts);
    const char *u = cascade__str(v, "url");
    if (u)
        snprintf(c->url, sizeof c->url, "%s", u);
    if (cascade__bool(v, "moved")) {
        at->x = (float)cascade__num(v, "x", at->x - c->origin.x) + c->origin.x;
        at->y = (float)cascade__num(v, "y", at->y - c->origin.y) + c->origin.y;
    }
    cJSON_Delete(v);
    return BASE_OK;
}

static cJSON *effect_arg(click_ctx *c, int ms)
{
    cascade__watch w = watch_of(c);
    return cascade__effect_arg(&w, ms);
}

#define EFFECT_SLICE_MS CASCADE__EFFECT_SLICE_MS

static base_err wait_effect(click_ctx *c, int ms, press_obs *o, char *err)
{
    cascade__watch w = watch_of(c);
    return cascade__wait_effect(&w, ms, o, err);
}

/* "clicked", "double-clicked", ...: the verb of c's kind of press. */
static const char *verb_of(cascade_press_kind k)
{
    return k == CASCADE_PRESS_DOUBLE  ? "double-clicked"
           : k == CASCADE_PRESS_RIGHT ? "right-clicked"
           : k == CASCADE_PRESS_HOVER ? "hovered"
                                      : "clicked";
}

/* A hover's delivery: the element under the resting cursor at p is the
 * target (or inside it, or its label): landed 1, else -1 naming it. */
static base_err hover_landed(click_ctx *c, base_point p, press_obs *o, char *err)
{
    cascade_target at = *c->t; /* its xpath, with the resting point */
    at.have_pt = 1;
    at.pt = p;
    cJSON *a = target_arg(&at, c->origin);
    if (!a)
        return oom(err);
    cJSON *v = NULL;
    base_err e = cascade__call(c->h, c->fid, "hit", a, 1, &v, 10000, err);
    if (e)
        return e;
    o->landed = cascade__bool(v, "on") ? 1 : -1;
    const char *w = cascade__str(v, "where");
    snprintf(o->where, sizeof o->where, "%s", w ? w : "");
    cJSON_Delete(v);
    return BASE_OK;
}

/* Presses (or, hovering, moves onto) p with c's kind, then waits for the
 * effect into *o. mark: the humanized click's baseline hook. */
static base_err press_and_watch(click_ctx *c, base_point p, int humanize, cascade_result *out,
                                press_obs *o, char *err)
{
    cascade__mark_fn mark = humanize && c->kind != CASCADE_PRESS_HOVER ? mark_baseline : NULL;
    c->text0 = -1;
    if (c->kind == CASCADE_PRESS_HOVER) {
        /* A CSS :hover flyout changes no DOM: its effect is rendered text. */
        cJSON *v = NULL;
        if (cascade__call(c->h, c->fid, "textLen", NULL, 1, &v, 10000, NULL) == BASE_OK &&
            cJSON_IsNumber(v))
            c->text0 = v->valueint;
        cJSON_Delete(v);
    }
    base_err e = cascade__press_kind_at(c->h, p, humanize, c->kind, mark, c, out, err);
    if (e)
        return e;
    c->pressed = 1;
    e = wait_effect(c, effect_wait_ms(c), o, err);
    if (e || c->kind != CASCADE_PRESS_HOVER || (o->fx & CASCADE_FX_URL))
        return e;
    return hover_landed(c, out ? out->clicked_at : p, o, err);
}

static void reset_guard(cascade_hand *h)
{
    h->last_key[0] = '\0';
    h->last_no_effect = 0;
}

static void target_key(const cascade_target *t, char *buf, size_t n)
{
    if (t->xpath && t->xpath[0])
        snprintf(buf, n, "%s|%s", t->frame_id ? t->frame_id : "", t->xpath);
    else
        snprintf(buf, n, "%s|@%d,%d", t->frame_id ? t->frame_id : "",
                 (int)lroundf(t->pt.x / 4.0f), (int)lroundf(t->pt.y / 4.0f));
}

/* The active-state members of a state snapshot (what a toggle flips). */
static void active_state(const cJSON *s, char *buf, size_t n)
{
    static const char *const keys[] = {"checked", "open", "aria-pressed", "aria-expanded",
                                       "aria-checked", "aria-selected"};
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && k + 1 < n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, keys[i]);
        if (!v)
            continue;
        char *p = cJSON_PrintUnformatted(v);
        int w = snprintf(buf + k, n - k, "%s=%s;", keys[i], p ? p : "?");
        cJSON_free(p);
        if (w < 0 || (size_t)w >= n - k)
            break;
        k += (size_t)w;
    }
}

/* Tier 2's press: wait for the element, press the centre of its content quad.
 * *pressed: 1 when a press was dispatched (then *o is its observation). */
static base_err quad_press(click_ctx *c, cascade_result *out, char *why, size_t whyn, int *pressed,
                      press_obs *o, char *err)
{
    *pressed = 0;
    cascade_hand *h = c->h;
    cJSON *a = cascade__xpath_arg(c->t->xpath);
    if (!a || !cJSON_AddNumberToObject(a, "ms", h->o.wait_ms)) {
        cJSON_Delete(a);
        return oom(err);
    }
    cJSON *obj = NULL;
    base_err e = cascade__call(h, c->fid, "waitEl", a, 0, &obj, h->o.wait_ms + 10000, err);
    if (e)
        return e;
    const char *oid = cascade__str(obj, "objectId");
    if (!oid) {
        cJSON_Delete(obj);
        snprintf(why, whyn, "not found or not visible within %d ms", h->o.wait_ms);
        return BASE_OK;
    }
    char sess[64];
    e = cascade__session(h, c->fid, sess, err);
    cJSON *res = NULL;
    if (!e) {
        cJSON *pa = cJSON_CreateObject();
        if (!pa || !cJSON_AddStringToObject(pa, "objectId", oid)) {
            cJSON_Delete(pa);
            e = oom(err);
        } else {
            e = cdp_call(cdp_page_conn(h->page), sess, "DOM.getContentQuads", pa, &res, 10000,
                         err);
        }
    }
    cascade__release_object(h, sess, oid);
    cJSON_Delete(obj);
    if (e)
        return e;
    const cJSON *q = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "quads"), 0);
    if (cJSON_GetArraySize(q) < 8) {
        cJSON_Delete(res);
        snprintf(why, whyn, "no content quad (not rendered)");
        return BASE_OK;
    }
    base_point p = {0, 0};
    for (int i = 0; i < 4; i++) {
        p.x += (float)cJSON_GetArrayItem(q, 2 * i)->valuedouble / 4;
        p.y += (float)cJSON_GetArrayItem(q, 2 * i + 1)->valuedouble / 4;
    }
    cJSON_Delete(res);
    base_point so;
    e = cascade__session_origin(h, sess, &so, err);
    if (e)
        return e;
    p.x += so.x;
    p.y += so.y;
    int here = 1;
    e = cascade__check_press(h, c->fid, c->t->xpath, p, NULL, &here, why, whyn, err);
    if (e || !here)
        return e;
    /* Delivery tracking and the effect baseline on the element. */
    cJSON *aa = cascade__xpath_arg(c->t->xpath);
    if (!aa)
        return oom(err);
    cJSON *ign = NULL;
    e = cascade__call(h, c->fid, "arm", aa, 1, &ign, 10000, err);
    cJSON_Delete(ign);
    if (e)
        return e;
    cascade__fx_snapshot(h, &c->fx0);
    /* Tier 2 has no path and no hesitation: a quick trusted press. */
    if (c->kind != CASCADE_PRESS_CLICK) {
        *pressed = 1;
        e = press_and_watch(c, p, 0, out, o, err);
        if (!e)
            obs_add_browser(c, o, out);
        snprintf(why, whyn, "%s", o->what);
        return e;
    }
    e = cascade__press_at(h, p, 0, NULL, NULL, out, err);
    if (e)
        return e;
    *pressed = 1;
    c->pressed = 1;
    e = wait_effect(c, effect_wait_ms(c), o, err);
    if (!e)
        obs_add_browser(c, o, out);
    snprintf(why, whyn, "%s", o->what);
    return e;
}

static base_err js_click(click_ctx *c, cascade_result *out, char *why, size_t whyn, press_obs *o,
                      char *err)
{
    memset(o, 0, sizeof *o);
    cascade__fx_snapshot(c->h, &c->fx0);
    cJSON *a = cascade__xpath_arg(c->t->xpath);
    if (!a)
        return oom(err);
    cJSON *v = NULL;
    base_err e = cascade__call(c->h, c->fid, "jsClick", a, 1, &v, 10000, err);
    if (e)
        return e;
    int ok = cJSON_IsTrue(v);
    cJSON_Delete(v);
    if (!ok) {
        snprintf(why, whyn, "element not found");
        return BASE_OK;
    }
    e = wait_effect(c, effect_wait_ms(c), o, err);
    if (!e)
        obs_add_browser(c, o, out);
    o->landed = 1; /* el.click() dispatches on the element itself */
    snprintf(why, whyn, "%s", o->what);
    return e;
}

static void finish_learn(cascade_hand *h, const char *domain, int tier)
{
    if (!h->learn || !domain[0])
        return;
    char e2[BASE_ERRBUF_SIZE] = "";
    if (cascade_learnings_record(h->learn, domain, tier, e2))
        base_log(BASE_LOG_CASCADE, BASE_LOG_WARN, "learnings not saved: %s", e2);
}

/* ---------- the tiers, as a table ---------- */

/* What the probe said about the target (borrowed from its reply). */
typedef struct probe_view {
    const cJSON *p;
    int found, has_xpath;
    const char *amb, *dis, *inv, *cov, *desc;
} probe_view;

/* What one tier made of its press: the cascade reads only this. */
typedef enum tier_outcome {
    TIER_NOT_PRESSED = 0, /* nothing pressed (not found, not visible, off screen): next tier */
    TIER_DELIVERED,       /* the press reached the target: the cascade ends */
    TIER_ELSEWHERE,       /* it landed on another element, the page did not react: next tier */
    TIER_STRAY,           /* it landed elsewhere and the page reacted: stop, look again */
    TIER_REFUSED,         /* the tier may not run here (bot-protected): stop */
} tier_outcome;

/* One tier: whether it applies to this call at all (no tried[] entry
 * otherwise), and its run: *oc, *o (what the press did) and why (the
 * tried[] line). */
typedef struct tier_def {
    int tier;
    const char *name;
    int (*applies)(const click_ctx *c, const probe_view *pv, int start);
    base_err (*run)(click_ctx *c, const probe_view *pv, cascade_result *out, tier_outcome *oc,
                    press_obs *o, char *why, size_t whyn, char *err);
} tier_def;

/* The outcome of a press that went out, from where its events landed. */
static tier_outcome landed_outcome(const press_obs *o, char *why, size_t whyn)
{
    if (o->landed >= 0) {
        snprintf(why, whyn, "%s", o->what[0] ? o->what : "delivered, no visible effect");
        return TIER_DELIVERED;
    }
    snprintf(why, whyn, "landed on %.60s%s", o->where, o->fx ? " (the page reacted)" : "");
    return o->fx ? TIER_STRAY : TIER_ELSEWHERE;
}

static int tier1_applies(const click_ctx *c, const probe_view *pv, int start)
{
    (void)c;
    (void)pv;
    return start <= 1;
}

/* Tier 1: a trusted press at the probe's point (humanized: the path,
 * hesitation and hold; otherwise pipelined with the first effect slice). */
static base_err tier1_run(click_ctx *c, const probe_view *pv, cascade_result *out,
                          tier_outcome *oc, press_obs *o, char *why, size_t whyn, char *err)
{
    cascade_hand *h = c->h;
    *oc = TIER_NOT_PRESSED;
    if (!pv->found) {
        snprintf(why, whyn, "%s", pv->has_xpath ? "not found" : "nothing at the point");
        return BASE_OK;
    }
    if (pv->inv && pv->inv[0]) {
        snprintf(why, whyn, "not visible: %s", pv->inv);
        return BASE_OK;
    }
    base_point pt = {(float)cascade__num(pv->p, "x", 0) + c->origin.x,
                     (float)cascade__num(pv->p, "y", 0) + c->origin.y};
    const cdp_page_opts *vp = cdp_page_viewport(h->page);
    if (vp && vp->width > 0 &&
        (pt.x < 0 || pt.y < 0 || pt.x >= vp->width || pt.y >= vp->height)) {
        snprintf(why, whyn, "point (%s) outside the top viewport", "scrolled frame");
        return BASE_OK;
    }
    /* The probe's point came from this world's hit test; the browser's own
     * has the last word before anything is pressed. */
    int here = 1;
    /* The probe ran in the target's frame: its scroll is the top
     * document's only for a target there (cascade__check_press ignores it
     * for another session; a same-process child frame gets its own). */
    base_point scroll = {(float)cascade__num(pv->p, "sx", 0), (float)cascade__num(pv->p, "sy", 0)};
    int top = !c->t->frame_id || !c->t->frame_id[0] ||
              strcmp(c->t->frame_id, cdp_page_target_id(h->page)) == 0;
    base_err e = cascade__check_press(h, c->fid, c->t->xpath, pt,
                                      top && cJSON_GetObjectItemCaseSensitive(pv->p, "sx") ? &scroll
                                                                                      : NULL,
                                      &here, why, whyn, err);
    if (e || !here)
        return e;
    cJSON *fx = NULL;
    cascade__fx_snapshot(h, &c->fx0);
    if (c->kind != CASCADE_PRESS_CLICK)
        e = press_and_watch(c, pt, h->o.humanize, out, o, err);
    else if (h->o.humanize)
        e = cascade__press_at(h, pt, 1, mark_baseline, c, out, err);
    else
        e = cascade__fast_click(h, pt, c->fid,
                                effect_arg(c, effect_wait_ms(c) < EFFECT_SLICE_MS
                                                  ? effect_wait_ms(c)
                                                  : EFFECT_SLICE_MS),
                                &fx, out, err);
    if (!e)
        c->pressed = 1;
    if (!e && fx) {
        cascade__obs_from(fx, o);
        /* Nothing yet within the first slice: wait out the rest. */
        if (!o->what[0] && effect_wait_ms(c) > EFFECT_SLICE_MS &&
            !cascade__fx_changed(h, &c->fx0)) {
            int landed = o->landed;
            e = wait_effect(c, effect_wait_ms(c) - EFFECT_SLICE_MS, o, err);
            if (!e && o->landed == 0)
                o->landed = landed;
        }
    } else if (!e && c->kind == CASCADE_PRESS_CLICK) {
        e = wait_effect(c, effect_wait_ms(c), o, err);
    }
    cJSON_Delete(fx);
    if (e)
        return e;
    obs_add_browser(c, o, out);
    /* The probe's hit-target check passed right before the press:
     * delivered, unless the press events were seen reaching another
     * element (the target moved under the cursor). */
    *oc = landed_outcome(o, why, whyn);
    return BASE_OK;
}

static int tier2_applies(const click_ctx *c, const probe_view *pv, int start)
{
    (void)c;
    return pv->has_xpath && start <= 2; /* needs an element to wait for */
}

static base_err tier2_run(click_ctx *c, const probe_view *pv, cascade_result *out,
                          tier_outcome *oc, press_obs *o, char *why, size_t whyn, char *err)
{
    (void)pv;
    int pressed = 0;
    memset(o, 0, sizeof *o);
    *oc = TIER_NOT_PRESSED;
    base_err e = quad_press(c, out, why, whyn, &pressed, o, err);
    if (e)
        return e;
    if (pressed)
        *oc = landed_outcome(o, why, whyn);
    else if (!why[0])
        snprintf(why, whyn, "not pressed");
    return BASE_OK;
}

static int tier3_applies(const click_ctx *c, const probe_view *pv, int start)
{
    (void)start; /* a learned start tier does not skip the opt-in last resort */
    /* There is no scripted double click, right click or hover. */
    return pv->has_xpath && c->h->o.allow_untrusted && c->kind == CASCADE_PRESS_CLICK;
}

static base_err tier3_run(click_ctx *c, const probe_view *pv, cascade_result *out,
                          tier_outcome *oc, press_obs *o, char *why, size_t whyn, char *err)
{
    memset(o, 0, sizeof *o);
    if (c->bot) {
        snprintf(why, whyn, "refused: %.60s is marked bot-protected", c->domain);
        cascade__msg(out, CASCADE_BOT_PROTECTED,
                     "no trusted press reached %s, and scripted clicks are off on %s "
                     "(bot-protected)",
                     label_of(c->t), c->domain);
        *oc = TIER_REFUSED;
        return BASE_OK;
    }
    (void)pv;
    base_err e = js_click(c, out, why, whyn, o, err);
    if (e)
        return e;
    if (strcmp(why, "element not found") == 0) {
        *oc = TIER_NOT_PRESSED;
        return BASE_OK;
    }
    *oc = TIER_DELIVERED; /* a scripted click is always delivered */
    snprintf(why, whyn, "%s", o->what[0] ? o->what : "delivered, no visible effect");
    return BASE_OK;
}

static const tier_def TIERS[] = {
    {1, "trusted press at the probed point", tier1_applies, tier1_run},
    {2, "trusted press at the content-quad centre", tier2_applies, tier2_run},
    {3, "scripted el.click()", tier3_applies, tier3_run},
};

static void set_try(cascade_try *tr, int ok, double t0, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_try(cascade_try *tr, int ok, double t0, const char *fmt, ...)
{
    if (!tr)
        return;
    tr->success = ok;
    tr->ms = base_monotime_ms() - t0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tr->outcome, sizeof tr->outcome, fmt, ap);
    va_end(ap);
}

/* Runs the tiers from start: each applicable one gets a tried[] entry; a
 * delivered press, a stray one or a refusal ends the cascade (a delivered
 * press is never repeated). *done_tier: the delivering tier (0: none). */
static base_err run_tiers(click_ctx *c, const probe_view *pv, int start, cascade_result *out,
                          int *done_tier, press_obs *ob, int *stray, char *err)
{
    *done_tier = 0;
    *stray = 0;
    for (size_t i = 0; i < sizeof TIERS / sizeof TIERS[0]; i++) {
        const tier_def *td = &TIERS[i];
        if (!td->applies(c, pv, start))
            continue;
        double t0 = base_monotime_ms();
        cascade_try *tr = cascade__try(out, td->tier);
        char why[96] = "";
        press_obs o;
        memset(&o, 0, sizeof o);
        tier_outcome oc = TIER_NOT_PRESSED;
        base_err e = td->run(c, pv, out, &oc, &o, why, sizeof why, err);
        if (e)
            return e;
        set_try(tr, oc == TIER_DELIVERED, t0, "%s", why);
        base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "tier %d (%s): %s", td->tier, td->name, why);
        if (oc == TIER_DELIVERED) {
            *done_tier = td->tier;
            *ob = o;
            return BASE_OK;
        }
        if (oc == TIER_STRAY) {
            *stray = 1;
            return BASE_OK;
        }
        if (oc == TIER_REFUSED)
            return BASE_OK;
    }
    return BASE_OK;
}

/* ---------- the press, step by step ---------- */

/* The probe (one evaluate: found, enabled, visible, scrolled, point,
 * top-most) into *p, and the effect baseline into c. */
static base_err probe_target(click_ctx *c, cJSON **p, char *err)
{
    cascade_hand *h = c->h;
    base_err e = cascade__frame_origin(h, c->t, c->fid, &c->origin, err);
    if (e)
        return e;
    cJSON *a = target_arg(c->t, c->origin);
    /* A disabled target is waited for (the step's budget) before the
     * refusal: forms enable their submit once they validate. */
    if (!cJSON_AddNumberToObject(a, "settle_ms", h->o.settle_ms) ||
        !cJSON_AddNumberToObject(a, "enable_ms", h->o.wait_ms)) {
        cJSON_Delete(a);
        return oom(err);
    }
    e = cascade__call(h, c->fid, "probe", a, 1, p, h->o.settle_ms + h->o.wait_ms + 15000, err);
    if (e)
        return e;
    c->muts = cascade__num(*p, "muts", 0);
    const char *u = cascade__str(*p, "url");
    snprintf(c->url, sizeof c->url, "%s", u ? u : "");
    c->state = cJSON_DetachItemFromObjectCaseSensitive(*p, "state");
    return BASE_OK;
}

/* The refusals before any input (Alg. 5 lines 6, 9, 10, and the dead-click
 * guard): 1 with out's reason and alternatives set. */
static int refuse(click_ctx *c, const probe_view *pv, const char *key, const char *act_now,
                  cascade_result *out)
{
    cascade_hand *h = c->h;
    const char *label = label_of(c->t);
    const char *desc = pv->desc ? pv->desc : "?";
    if (h->last_no_effect && strcmp(h->last_key, key) == 0 && strcmp(act_now, h->last_state) == 0) {
        /* (A state that flipped since means a slow toggle: the click did work.) */
        cascade__msg(out, CASCADE_DEAD_CLICK,
                     "refused: the last click on %s changed nothing; take a fresh look "
                     "(new perception) before clicking it again",
                     label);
        cascade__alt(out, "re-run perception and pick another element");
        cascade__alt(out, "scroll or wait for the page to finish loading, then retry");
        return 1;
    }
    if (!pv->found && pv->amb) {
        cascade__msg(out, CASCADE_AMBIGUOUS, "%s is ambiguous: %s", label, pv->amb);
        cascade__alt(out, "give a more specific XPath (with positions) or a point");
        return 1;
    }
    if (!pv->found)
        return 0;
    if (pv->dis && pv->dis[0]) {
        cascade__msg(out, CASCADE_DISABLED, "%s (%s) is %s; not clicked", label, desc, pv->dis);
        cascade__alt(out, "fill in the required fields first, then retry");
        cascade__alt(out, "look for another control that does the same thing");
        return 1;
    }
    if (pv->cov) {
        cascade__msg(out, CASCADE_COVERED, "%s (%s) is covered by %s", label, desc, pv->cov);
        const cJSON *al;
        cJSON_ArrayForEach(al, cJSON_GetObjectItemCaseSensitive(pv->p, "alternatives"))
        {
            const char *d = cascade__str(al, "desc");
            cascade__alt(out, "click %s at (%.0f,%.0f) to dismiss the cover", d ? d : "?",
                         cascade__num(al, "x", 0) + c->origin.x,
                         cascade__num(al, "y", 0) + c->origin.y);
        }
        cascade__alt(out, "press Escape, or scroll so that the element is not under the cover");
        return 1;
    }
    /* A control inside the target takes a press, but a hover reaches the
     * target all the same (the pointer enters every ancestor). */
    if (pv->amb && c->kind != CASCADE_PRESS_HOVER) {
        cascade__msg(out, CASCADE_AMBIGUOUS, "%s is ambiguous: %s", label, pv->amb);
        cascade__alt(out, "click the inner control itself, or give a point on %s outside it",
                     pv->desc ? pv->desc : "the element");
        return 1;
    }
    return 0;
}

/* The verdict once the tiers ran: success with effects, "delivered, no
 * visible effect", or the failure (and the dead-click guard armed). */
static void verdict(click_ctx *c, const probe_view *pv, int done_tier, const press_obs *ob,
                    int stray, const char *key, const char *act_now, const char *ldomain,
                    cascade_result *out)
{
    cascade_hand *h = c->h;
    const cascade_target *t = c->t;
    const char *label = label_of(t);
    const char *desc = pv->desc ? pv->desc : "?";
    const char *verb = verb_of(c->kind);
    if (done_tier) {
        out->delivered = 1;
        out->effects |= ob->fx;
        if (ob->fx || t->expect_effect <= 0) {
            out->success = 1;
            if (ob->fx)
                cascade__msg(out, CASCADE_OK, "%s %s (tier %d: %s)", verb, label, done_tier,
                             ob->what);
            else /* a listener that only counts or logs, or nothing to show */
                cascade__msg(out, CASCADE_NO_VISIBLE_EFFECT,
                             "%s %s (%s, tier %d): delivered, no visible effect%s", verb, label,
                             desc, done_tier, t->expect_effect < 0 ? " (none expected)" : "");
            reset_guard(h);
            finish_learn(h, ldomain, done_tier);
            return;
        }
        cascade__msg(out, CASCADE_NO_EFFECT,
                     "%s %s (%s, tier %d): delivered, but the page did not react within "
                     "%d ms (an effect was expected); not pressed again",
                     verb, label, desc, done_tier, h->o.effect_ms);
    } else if (out->reason != CASCADE_BOT_PROTECTED) {
        if (!pv->found)
            cascade__msg(out, CASCADE_NOT_FOUND, "%s was not found%s", label,
                         pv->has_xpath ? " (the page may have changed: take a fresh look)" : "");
        else if (pv->inv && pv->inv[0])
            cascade__msg(out, CASCADE_INVISIBLE, "%s (%s) is not visible: %s", label, desc,
                         pv->inv);
        else
            cascade__msg(out, CASCADE_NO_EFFECT, "the press never reached %s (%s)%s%s", label,
                         desc,
                         stray ? ": it landed elsewhere and the page reacted; take a fresh look"
                               : "",
                         stray ? "" : " (it moved or something took the press)");
    }
    if (pv->found && !(pv->inv && pv->inv[0]) && out->reason == CASCADE_NO_EFFECT) {
        snprintf(h->last_key, sizeof h->last_key, "%s", key);
        snprintf(h->last_state, sizeof h->last_state, "%s", act_now);
        h->last_no_effect = 1;
    }
    if (!h->o.allow_untrusted && pv->has_xpath && pv->found && !done_tier &&
        c->kind == CASCADE_PRESS_CLICK)
        cascade__alt(out, "allow untrusted clicks (tier 3, el.click()) if the site accepts them");
    cascade__alt(out, "take a fresh look: the element may not be what reacts to the click");
    finish_learn(h, ldomain, 0);
}

base_err cascade_click(cascade_hand *h, const cascade_target *t, cascade_result *out, char *err)
{
    return cascade_press(h, t, CASCADE_PRESS_CLICK, out, err);
}

base_err cascade_press(cascade_hand *h, const cascade_target *t, cascade_press_kind kind,
                       cascade_result *out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_press: NULL result");
    if (kind < CASCADE_PRESS_CLICK || kind > CASCADE_PRESS_HOVER)
        return base_errf(err, BASE_EINVAL, "cascade_press: bad kind %d", (int)kind);
    cascade__result_init(out);
    if (!h || !t || (!(t->xpath && t->xpath[0]) && !t->have_pt)) {
        cascade__msg(out, CASCADE_ERROR, "invalid target: give an xpath or a point");
        return base_errf(err, BASE_EINVAL, "cascade_click: NULL hand or empty target");
    }
    double t_start = base_monotime_ms();
    click_ctx c;
    memset(&c, 0, sizeof c);
    c.h = h;
    c.t = t;
    c.kind = kind;
    c.fid = t->frame_id ? t->frame_id : "";
    cascade__domain(h, c.domain, sizeof c.domain);
    /* Learnings are about clicks: the other kinds of press do not count. */
    const char *ldomain = kind == CASCADE_PRESS_CLICK ? c.domain : "";
    const char *label = label_of(t);
    char key[600];
    target_key(t, key, sizeof key);
    if (kind != CASCADE_PRESS_CLICK) /* each kind of press has its own guard */
        snprintf(key + strlen(key), sizeof key - strlen(key), "#%d", (int)kind);
    char url_now[512];
    cascade__top_url(h, url_now, sizeof url_now);
    if (strcmp(url_now, h->last_url) != 0)
        reset_guard(h); /* a new page: nothing carries over */

    cJSON *p = NULL;
    base_err e = probe_target(&c, &p, err);
    if (e) {
        cascade__msg(out, CASCADE_ERROR, "could not probe %s: %s", label,
                     err && err[0] ? err : base_strerror(e));
        cJSON_Delete(p);
        cJSON_Delete(c.state);
        out->ms = base_monotime_ms() - t_start;
        return e;
    }
    char act_now[512];
    active_state(c.state, act_now, sizeof act_now);
    probe_view pv = {p,
                     cascade__bool(p, "found"),
                     t->xpath && t->xpath[0],
                     cascade__str(p, "ambiguous"),
                     cascade__str(p, "disabled"),
                     cascade__str(p, "invisible"),
                     cascade__str(p, "covered"),
                     cascade__str(p, "desc")};
    if (!refuse(&c, &pv, key, act_now, out)) {
        /* Where to start: the domain's best tier (tier 3 only when allowed). */
        int start = h->learn ? cascade_learnings_best_tier(h->learn, c.domain) : 0;
        c.bot = h->learn ? cascade_learnings_bot_protected(h->learn, c.domain) : 0;
        if (start < 1 || (start == 3 && (!h->o.allow_untrusted || c.bot)))
            start = 1;
        int done_tier = 0, stray = 0;
        press_obs ob;
        memset(&ob, 0, sizeof ob);
        e = run_tiers(&c, &pv, start, out, &done_tier, &ob, &stray, err);
        if (e) {
            /* The press went out before the failure: it may have acted, so
             * callers must not repeat it. */
            if (c.pressed)
                out->delivered = 1;
            cascade__msg(out, CASCADE_ERROR, "%s on %s failed: %s",
                         kind == CASCADE_PRESS_HOVER ? "hover" : "click", label,
                         err && err[0] ? err : base_strerror(e));
            cJSON_Delete(p);
            cJSON_Delete(c.state);
            out->ms = base_monotime_ms() - t_start;
            return e;
        }
        verdict(&c, &pv, done_tier, &ob, stray, key, act_now, ldomain, out);
    }
    snprintf(h->last_url, sizeof h->last_url, "%s", url_now);
    cJSON_Delete(p);
    cJSON_Delete(c.state);
    out->ms = base_monotime_ms() - t_start;
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "click %s: %s (%s) %.1f ms", label,
             cascade_reason_name(out->reason), out->message, out->ms);
    return BASE_OK;
}

/* cascade/cascade_int.h: what the hand's source files share (not public).
 *
 * hand.c owns the cascade_hand and its page plumbing: evaluating the page
 * half (assets/js/cascade_hand.js) in an isolated world of any frame,
 * translating frame coordinates to the top viewport, and dispatching input
 * through the page's top session. click.c, type.c and drag.c build the three
 * actions on top; learn.c is the per-domain learnings store.
 */
#ifndef FOVEA_CASCADE_CASCADE_INT_H
#define FOVEA_CASCADE_CASCADE_INT_H

#include <cjson/cJSON.h>

#include "base/rng.h"
#include "cascade/cascade.h"
#include "cascade/input.h"

#define CASCADE__MAX_CTX 16

typedef struct cascade__ctx {
    char frame_id[64];
    char session[64];
    int ctx_id;
} cascade__ctx;

struct cascade_hand {
    cdp_page *page;
    cascade_opts o;
    char *learnings_path; /* owned copy of o.learnings_path */
    cascade_learnings *learn;
    base_rng rng;
    base_point cursor;
    cascade__ctx ctx[CASCADE__MAX_CTX];
    int nctx;
    /* Dead-click guard: the last click's target and whether it had an effect. */
    char last_key[600];
    int last_no_effect;
    char last_state[512]; /* JSON of the target's state before that click */
    char last_url[512];
    /* Page events the effect check counts (effects.c): written by cdp event
     * callbacks on the service thread, read by the owner under fx_mu. */
    struct cascade__fx *fx;
};

/* What the hand saw of the page's reaction between two snapshots. */
typedef struct cascade__fx_snap {
    unsigned long requests, tabs, dialogs;
} cascade__fx_snap;

/* Subscribes to Network.requestWillBeSent and Page.javascriptDialogOpening
 * on the page session and Target.targetCreated (opener = this page), and
 * enables the Network domain and target discovery (a refusal of either is
 * logged, not fatal). Errors: BASE_ENOMEM, BASE_ECLOSED (the browser is
 * gone). Owner thread. */
base_err cascade__fx_start(cascade_hand *h, char *err);
/* Unsubscribes and frees (NULL fx: no-op). Owner thread. */
void cascade__fx_stop(cascade_hand *h);
/* The counters now. */
void cascade__fx_snapshot(cascade_hand *h, cascade__fx_snap *s);
/* 1 when a request, tab or dialog arrived since s. */
int cascade__fx_changed(cascade_hand *h, const cascade__fx_snap *s);
/* Adds CASCADE_FX_REQUEST/NEW_TAB/DIALOG to out->effects for what arrived
 * since s (and the new tab's id, the dialog's type and text); returns the
 * bits added. */
unsigned cascade__fx_since(cascade_hand *h, const cascade__fx_snap *s, cascade_result *out);
/* Maps the page half's effect names ("mutation", "shadow", "url", "value",
 * "checked", "focus", "selection") to CASCADE_FX_* bits. */
unsigned cascade__fx_bits(const cJSON *names);

/* {"xpath": xpath}, the argument most page-half operations take; NULL on
 * ENOMEM (a call must then not be made: without its xpath the page half
 * would act on no element, or another). */
cJSON *cascade__xpath_arg(const char *xpath);

/* Evaluates `__fovea_hand.OP(ARG)` (arg: a JSON object, consumed) in the
 * hand's isolated world of frame_id ("" or NULL: the main frame), installing
 * the page half first if the world does not have it yet. by_value 0 returns
 * a remote object (*out gets the "result" RemoteObject). *out: caller frees. */
base_err cascade__call(cascade_hand *h, const char *frame_id, const char *op, cJSON *arg,
                       int by_value, cJSON **out, int timeout_ms, char *err);

/* The session that owns frame_id's document (page session for ""), 64 bytes. */
base_err cascade__session(cascade_hand *h, const char *frame_id, char *buf, char *err);

/* Origin of frame_id's viewport in top-viewport CSS px ((0,0) for the top):
 * t->origin when the target carries it (t may be NULL), else measured over
 * CDP (two round trips per frame level). */
base_err cascade__frame_origin(cascade_hand *h, const cascade_target *t, const char *frame_id,
                               base_point *o, char *err);

/* DOM.resolveNode of a backend node id in session: its remote object id
 * into oid (n bytes), to be released with cascade__release_object. 1 on
 * success, 0 when the node is gone or the call failed. Runner thread. */
int cascade__resolve_node(cascade_hand *h, const char *session, int backend, char *oid, size_t n);

/* The press-point check against the browser: before a press at p (top
 * viewport px) on the element xpath of frame_id, asks CDP which node is there
 * (DOM.getNodeForLocation, the browser's own hit test, which no page script
 * can change) and whether a press there reaches the target (the hand's
 * pressOk in its isolated world: the node is the target or inside it, its
 * label, or the shape under an SVG label). scroll (optional): the top
 * document's scroll offset when the caller just measured it (else one more
 * round trip asks). *ok = 0 with why set when it does not; an empty xpath (a bare point) is always ok. Runner thread. Errors:
 * those of cdp_call, BASE_ENOMEM, BASE_EPROTO; *ok is 1 then. */
base_err cascade__check_press(cascade_hand *h, const char *frame_id, const char *xpath,
                              base_point p, const base_point *scroll, int *ok, char *why,
                              size_t whyn, char *err);

/* Runtime.releaseObject of oid in session, best effort: without memory for
 * the request nothing is sent and the handle lives until its world goes.
 * Runner thread. */
void cascade__release_object(cascade_hand *h, const char *session, const char *oid);

/* Keys go to the frame the BROWSER holds focused, which learns of a focus
 * change inside an out-of-process frame asynchronously: keys sent the
 * moment the frame's own document reports its field focused can still go to
 * the frame that had focus before. For a target in an out-of-process frame
 * this waits (up to timeout_ms, polling) until the frame's <iframe> is its
 * parent document's active element, which the parent learns from the
 * browser, i.e. after the browser moved focus there. Returns 1 confirmed,
 * 0 not confirmed in time (the caller types anyway and verifies), -1 not an
 * out-of-process frame (nothing to wait for). Runner thread. */
int cascade__frame_focus_wait(cascade_hand *h, const char *frame_id, int timeout_ms);

/* Origin of the local root of `session` (the page session: (0,0); an
 * out-of-process iframe's session: that frame's origin). CDP DOM quads are
 * relative to it. */
base_err cascade__session_origin(cascade_hand *h, const char *session, base_point *o, char *err);

/* Mouse event on the top session: type "mouseMoved"/"mousePressed"/
 * "mouseReleased"; buttons is the pressed-button mask after the event. */
base_err cascade__mouse(cascade_hand *h, const char *type, base_point p, int buttons, char *err);

/* Dispatches n calls methods[i](params[i]) (params consumed) on the top
 * session, all queued at once, and waits for every reply. Chromium handles
 * one session's input in order. */
base_err cascade__pipeline(cascade_hand *h, const char *const *methods, cJSON **params, int n,
                           char *err);
/* Params of one Input.dispatchMouseEvent. */
cJSON *cascade__mouse_params(const char *type, base_point p, int buttons);

/* Replays a planned path (sleeping each waypoint's dt_ms) with `buttons`
 * held; appends the points to out->path. Updates the cursor. */
struct motion_path;
base_err cascade__replay(cascade_hand *h, const struct motion_path *mp, int buttons,
                         cascade_result *out, char *err);

/* Press and release at p: humanized (path from the cursor, hesitation, hold)
 * or pipelined (one move, press, release). mark: when non-NULL and the path
 * was replayed, called right before the press (the effect baseline) with
 * the press point, which it may move (the target moved during the
 * approach: a hover animation); the cursor then moves there first. */
typedef base_err (*cascade__mark_fn)(cascade_hand *h, void *user, base_point *at, char *err);
base_err cascade__press_at(cascade_hand *h, base_point p, int humanize, cascade__mark_fn mark,
                           void *mark_user, cascade_result *out, char *err);
/* cascade__press_at for another kind of press (cascade/input.h): a double
 * or right press, or a hover (the path, or one move, onto p; no press and
 * no mark). */
base_err cascade__press_kind_at(cascade_hand *h, base_point p, int humanize,
                                cascade_press_kind kind, cascade__mark_fn mark, void *mark_user,
                                cascade_result *out, char *err);

/* No-humanize tier 1 in one round: move + press + release at p and the
 * page half's effect(effect_arg) in frame_id's world, all queued at once.
 * *effect gets the effect op's value, or NULL when it could not be had this
 * way (the caller then waits for the effect the usual way). */
base_err cascade__fast_click(cascade_hand *h, base_point p, const char *frame_id, cJSON *effect_arg,
                             cJSON **effect, cascade_result *out, char *err);

/* Next plan seed from the hand's stream. */
uint64_t cascade__seed(cascade_hand *h);

/* Host of the top document's URL ("" if none), for the learnings. */
void cascade__domain(cascade_hand *h, char *buf, size_t n);
/* URL of the top document (copied, n bytes). */
void cascade__top_url(cascade_hand *h, char *buf, size_t n);

/* Result helpers. */
void cascade__result_init(cascade_result *r);
cascade_try *cascade__try(cascade_result *r, int tier);
void cascade__alt(cascade_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cascade__msg(cascade_result *r, cascade_reason why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* JSON accessors tolerant of missing members. */
double cascade__num(const cJSON *o, const char *k, double dflt);
const char *cascade__str(const cJSON *o, const char *k);
int cascade__bool(const cJSON *o, const char *k);

/* ---- an action's effect (cascade/observe.c) ---- */

/* What one action did, as the effect check saw it. */
typedef struct cascade__obs {
    char what[96];  /* the first effect seen, "" = none */
    unsigned fx;    /* CASCADE_FX_* bits */
    int landed;     /* 1: the target received the press events; 0: no press event
                       was seen (the page hid them); -1: they reached another element */
    char where[96]; /* landed -1: the element that received them */
} cascade__obs;

/* What to watch: borrowed views of the caller's baseline. */
typedef struct cascade__watch {
    cascade_hand *h;
    const char *fid;              /* frame whose page half watches ("" = top) */
    const char *xpath;            /* the target; NULL/"" = none (keys: the document) */
    double muts;                  /* mutation count at the baseline */
    const char *url;              /* the frame's URL at the baseline */
    const cJSON *state;           /* the target's state at the baseline, or NULL */
    const cascade__fx_snap *fx0;  /* browser-side counters at the baseline */
    int press;                    /* after a mouse press: wait for its events */
    int text0;                    /* a hover: the rendered text's length before, -1 = not watched */
} cascade__watch;

/* The effect wait runs in slices of this many ms. */
#define CASCADE__EFFECT_SLICE_MS 100

/* The page half's effect reply as an observation. */
void cascade__obs_from(const cJSON *v, cascade__obs *o);
/* Adds the browser-side effects since w->fx0 to o and out->effects (naming
 * the first when the page saw none). */
void cascade__obs_add_browser(const cascade__watch *w, cascade__obs *o, cascade_result *out);
/* The argument of the page half's effect op for a wait of ms; NULL on
 * ENOMEM (never partial: the wait must not be asked without its baseline). */
cJSON *cascade__effect_arg(const cascade__watch *w, int ms);
/* Waits up to ms for an effect; a document that went away is "navigated".
 * Errors: the page's status (crashed, closed), transport errors. */
base_err cascade__wait_effect(const cascade__watch *w, int ms, cascade__obs *o, char *err);

/* US-layout code and virtual key code of printable ASCII c (code "" and
 * vk 0 otherwise), and whether it needs Shift (cascade/keys.c). */
void cascade__ascii_key(char c, char *code, size_t n, int *vk, int *shift);

/* The params of one Input.dispatchKeyEvent (cascade/keys.c): type, key, its
 * code and virtual key code (omitted when "" / 0), the text it types
 * (omitted when NULL or ""), CDP modifier bits. Complete or NULL: a key
 * event that lost its text or modifiers would be another key, so the
 * caller sends none of the press then. The caller owns the result. */
cJSON *cascade__key_event(const char *type, const char *key, const char *code, int vk,
                          const char *text, int modifiers);

#endif

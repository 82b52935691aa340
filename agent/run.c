/* agent/run.c: the scripted-task runner.
 *
 * One loop over the task's steps; each attempt of a step fills an
 * agent_step_record as it goes (gate, box, snap, cascade, timings) and ends
 * with the overlay, a trace line and a progress line. The parts:
 *
 *  - ground(): the grounding path for a named target. The gate decides
 *    procedural or declarative and hands back an epoch; the box is chosen in
 *    it by vision index and/or label; when the epoch does not hold it (the
 *    page is still changing: an autocomplete list after its debounce, a new
 *    page after a navigation) a new prefetch is scheduled and waited for,
 *    until the step's timeout. The box then goes to perc_snap_box with the
 *    intent derived from the verb.
 *  - the actions, which hand the snapped element to cascade_* and, for
 *    mutating ones, settle (wait for a navigation the action started) and
 *    schedule the next prefetch so it runs while the next step is prepared.
 *  - text steps, which read the rendered text of every frame
 *    (assets/js/agent_text.js, cross-origin frames through their sessions).
 *
 * Secrets: typed passwords are collected up front; every string of a record
 * is scrubbed before it is written, descriptions mask them, and the rects
 * of fields that received one are painted over in later overlays.
 */
#include "agent/run.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_int.h"
#include "agent/secrets.h"
#include "agent/js.h"
#include "agent/trace.h"
#include "agent/watchdog_int.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "base/log.h"
#include "cascade/cascade.h"
#include "cascade/gate.h"
#include "perception/capture.h"
#include "perception/fingerprint.h"
#include "perception/prefetch.h"
#include "perception/probe.h"
#include "perception/pixel.h"
#include "perception/vision.h"


#define MAX_MASKS 16
#define TEXT_MAX (4u << 20)
/* How long watch_end waits for a navigation to start when the page did not
 * answer its round trip (a busy or unloading page). */
#define SETTLE_GRACE_MS 60
/* How long a requested navigation may take to start loading. */
#define NAV_START_MS 5000

void agent_run_opts_init(agent_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->out_dir = "out/run";
    o->vision = "dom";
    o->humanize = 1;
    o->overlays = AGENT_OVERLAYS_ALL;
}

int agent_overlays_parse(const char *s, agent_overlays *out)
{
    static const char *const names[] = {"all", "failures", "none"};
    for (int i = 0; s && i < 3; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (agent_overlays)i;
            return 0;
        }
    }
    return -1;
}

typedef struct runner {
    cdp_page *page;
    const agent_task *task;
    agent_run_opts o;
    FILE *out;
    perc_vision *vision;
    perc_prefetch *pf;
    cascade_hand *hand;
    agent_trace *trace;
    uint64_t ticket;         /* of the last scheduled prefetch */
    uint64_t last_epoch;     /* id of the epoch the previous step used */
    agent_secrets *sec;      /* every secret value and read-back form (agent/secrets.h) */
    base_rect masks[MAX_MASKS];
    int n_masks;
    char mask_url[1024];     /* masks apply while the page stays on this URL */
    /* Masks for the screenshot of the epoch this attempt grounded on,
     * found when it grounded (the page the screenshot shows), not after an
     * action that may have navigated: n_shot_masks -1 = search failed. */
    const perc_epoch *shot_ep;
    base_rect shot_masks[MAX_MASKS + 64];
    int n_shot_masks;
    char shot_url[1024];
    char main_frame[64];
    agent_step_record *recs; /* one per step (the last attempt) for the summary */
    /* Faults (README "When the page or the endpoint fails"): the frozen-page
     * watchdog, the dialogs and tabs already reported, the deadline given to
     * vision passes, and the tabs the run moved to (closed at the end). */
    agent__watchdog *wd;
    uint64_t dialogs_seen, popups_seen;
    int pass_budget_ms;      /* a vision pass may take this long (see schedule) */
    char fx_tab[64];         /* the hand's CASCADE_FX_NEW_TAB target of this attempt */
    cdp_page *tabs[8];
    int n_tabs;
    cdp_page *home;          /* the caller's page, where the run started */
    int delivered;           /* this attempt's action reached its element: never retried */
} runner;

/* ---- small helpers --------------------------------------------------------- */

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* Normalised copy for label comparison: the snapper's one definition
 * (snap_text_normalize: Unicode spaces, invisible characters, case). */
static void norm(const char *s, char *out, size_t n)
{
    snap_text_normalize(s, out, n);
}

/* How well a box label matches the wanted label, by the snapper's one label
 * matcher (snap_match_kind): an exact (normalised) match always outranks a
 * whole-word one, which outranks a prefix ("Item 4" in "Item 49999"), a
 * substring or a word overlap; a few words of a long list are no match. */
static int label_score(const char *want, const char *have)
{
    switch (snap_match_kind(want, have)) {
    case SNAP_MATCH_EXACT:
        return 100;
    case SNAP_MATCH_WORD:
        return 80;
    case SNAP_MATCH_PREFIX:
        return 50;
    case SNAP_MATCH_SUBSTRING:
        return 40;
    case SNAP_MATCH_FUZZY:
        return 30;
    default:
        return 0;
    }
}

static double now_ms(void)
{
    return base_monotime_ms();
}

/* Schedules a vision pass that must end by deadline_ms (base_monotime_ms;
 * 0 = none): a network provider gives up then instead of holding the run. */
static void schedule_until(runner *rn, const char *subgoal, double deadline_ms)
{
    perc_vision_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.subgoal = subgoal;
    ctx.deadline_ms = deadline_ms;
    rn->ticket = perc_prefetch_schedule(rn->pf, &ctx);
}

/* A pass for the step to come: it may take as long as that step will wait
 * for it (pass_budget_ms: the longer of this step's and the next one's
 * timeout, counted from now, a lower bound of that step's deadline). */
static void schedule(runner *rn, const char *subgoal)
{
    schedule_until(rn, subgoal, rn->pass_budget_ms > 0 ? now_ms() + rn->pass_budget_ms : 0);
}

static void page_url(runner *rn, char *buf, size_t n)
{
    cJSON *v = NULL;
    buf[0] = '\0';
    if (cdp_page_evaluate(rn->page, "location.href", &v, 3000, NULL) == BASE_OK &&
        cJSON_IsString(v))
        agent_secrets_scrub_copy(rn->sec, buf, n, v->valuestring); /* masked before the cut */
    cJSON_Delete(v);
}

/* "[V3] label" of b with secrets masked in the whole label before
 * agent__mark_name cuts it to 40 bytes. */
static void mark_name_masked(runner *rn, const perc_box *b, char *out, size_t n)
{
    perc_box m = *b;
    agent_secrets_scrub_copy(rn->sec, m.label, sizeof m.label, b->label);
    agent__mark_name(&m, out, n);
    agent_secrets_scrub(rn->sec, out, n);
}

/* Records where the page now (the page epoch ep's screenshot shows) has
 * secrets: the fields typed into on this URL and the text that shows one. */
static void shot_masks(runner *rn, const perc_epoch *ep)
{
    if (!ep || rn->shot_ep == ep || rn->o.overlays == AGENT_OVERLAYS_NONE ||
        agent_secrets_count(rn->sec) == 0)
        return;
    rn->shot_ep = ep;
    page_url(rn, rn->shot_url, sizeof rn->shot_url);
    int n = 0;
    for (int i = 0; strcmp(rn->shot_url, rn->mask_url) == 0 && i < rn->n_masks; i++)
        rn->shot_masks[n++] = rn->masks[i];
    int k = agent__secret_rects(rn->page, rn->sec, rn->shot_masks + n, 64);
    rn->n_shot_masks = k < 0 ? -1 : n + k;
}

/* Sets the failure of r: reason code name and a one-line outcome. */
__attribute__((format(printf, 3, 4))) static void failf(agent_step_record *r, const char *reason,
                                                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->outcome, sizeof r->outcome, fmt, ap);
    va_end(ap);
    r->ok = 0;
    if (!r->reason[0] || strcmp(r->reason, "ok") == 0)
        copy(r->reason, sizeof r->reason, reason);
}

/* 0 once the page crashed, was closed or stopped answering: loops that poll
 * it stop at once (run_step then names the cause). */
static int page_ok(runner *rn)
{
    return cdp_page_status(rn->page, NULL, 0) == BASE_OK;
}

/* A stop signal (Ctrl-C, SIGTERM, ...) arrived: marks r as interrupted
 * and returns 1. The runner asks between steps, attempts and inside its
 * waits; a step in flight is abandoned, never retried. */
static int stopped(agent_step_record *r)
{
    int sig = base_interrupted();
    if (!sig)
        return 0;
    if (strcmp(r->reason, "interrupted") != 0) {
        r->reason[0] = '\0';
        failf(r, "interrupted", "interrupted by %s", base_signal_name(sig));
    }
    return 1;
}

/* perc_prefetch_wait in slices, so a stop signal is seen within ~50 ms. */
static perc_epoch *wait_epoch(runner *rn, int timeout_ms)
{
    double end = now_ms() + timeout_ms;
    for (;;) {
        double left = end - now_ms();
        int slice = left > 50 ? 50 : (int)left + 1;
        perc_epoch *e = perc_prefetch_wait(rn->pf, rn->ticket, slice);
        if (e || left <= 50 || base_interrupted())
            return e;
    }
}

/* ---- settling after an action --------------------------------------------- */

static int main_frame_pred(const cJSON *params, void *user)
{
    const char *want = user;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(params, "frameId");
    return cJSON_IsString(f) && strcmp(f->valuestring, want) == 0;
}

typedef struct settle_watch {
    cdp_waiter *requested, *started, *stopped;
} settle_watch;

/* Registered before the action so a navigation it starts cannot be missed. */
static void watch_begin(runner *rn, settle_watch *w)
{
    memset(w, 0, sizeof *w);
    cdp_conn *c = cdp_page_conn(rn->page);
    const char *s = cdp_page_session(rn->page);
    if (cdp_waiter_create(c, s, "Page.frameRequestedNavigation", main_frame_pred, rn->main_frame,
                          &w->requested) != BASE_OK)
        w->requested = NULL;
    if (cdp_waiter_create(c, s, "Page.frameStartedLoading", main_frame_pred, rn->main_frame,
                          &w->started) != BASE_OK)
        w->started = NULL;
    if (cdp_waiter_create(c, s, "Page.frameStoppedLoading", main_frame_pred, rn->main_frame,
                          &w->stopped) != BASE_OK)
        w->stopped = NULL;
}

/* 1 when the waiter's event has arrived (without waiting). */
static int fired(cdp_waiter *w)
{
    return w && cdp_waiter_wait(w, 0, NULL) == BASE_OK;
}

/* cdp_waiter_wait in 50 ms slices, giving up early on a stop signal.
 * Returns 1 when the event arrived. */
static int wait_sliced(cdp_waiter *w, int timeout_ms)
{
    double end = now_ms() + timeout_ms;
    for (;;) {
        double left = end - now_ms();
        int slice = left > 50 ? 50 : (int)left + 1;
        if (cdp_waiter_wait(w, slice, NULL) == BASE_OK)
            return 1;
        if (left <= 50 || base_interrupted())
            return 0;
    }
}

/* After a mutating action: did it start a navigation of the main frame?
 * The renderer emits Page.frameRequestedNavigation while it runs the
 * action's handlers and default action (link, form submit, location =),
 * and a session's events and replies arrive in the order it sent them. So
 * after one round trip to the page every navigation the action requested
 * so far has been announced; then only a navigation needs waiting for
 * (until the main frame stops loading), and a plain DOM update costs one
 * round trip instead of a fixed grace period. A requested navigation that
 * never starts (cancelled, a download, a 204) is given NAV_START_MS. A
 * navigation started later from a timer is not waited for here; the next
 * step's gate sees the new page's fingerprint. Then the next prefetch is
 * scheduled. */
static void watch_end(runner *rn, settle_watch *w, agent_step_record *r, const char *subgoal)
{
    double t0 = now_ms();
    cJSON *v = NULL;
    if (cdp_page_evaluate(rn->page, "0", &v, 2000, NULL) != BASE_OK && w->started)
        cdp_waiter_wait(w->started, SETTLE_GRACE_MS, NULL); /* page busy or gone */
    cJSON_Delete(v);
    int started = fired(w->started);
    if (!started && fired(w->requested))
        started = w->started && wait_sliced(w->started, NAV_START_MS);
    if (started && w->stopped && !wait_sliced(w->stopped, 15000) && !base_interrupted())
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "step %d: page did not finish loading", r->index);
    cdp_waiter_destroy(w->requested);
    cdp_waiter_destroy(w->started);
    cdp_waiter_destroy(w->stopped);
    memset(w, 0, sizeof *w);
    schedule(rn, subgoal);
    r->ms.settle += now_ms() - t0;
}

/* ---- grounding -------------------------------------------------------------- */

/* Index of the best box for t in e, or -1; *source says how it was chosen. */
static int choose_box(const perc_epoch *e, const agent_target *t, const char **source)
{
    if (!e)
        return -1;
    if (t->index > 0) {
        for (int i = 0; i < e->n; i++) {
            if (e->boxes[i].id != t->index)
                continue;
            /* An index alone is trusted; with a label the label must agree,
             * since indices are only stable within one epoch. */
            if (!t->label || label_score(t->label, e->boxes[i].label) > 0) {
                *source = "index";
                return i;
            }
        }
    }
    int best = -1, best_score = 0;
    float best_area = 0;
    for (int i = 0; t->label && i < e->n; i++) {
        int s = label_score(t->label, e->boxes[i].label);
        float area = base_rect_area(e->boxes[i].r);
        /* Ties go to the smaller box: the more specific control. */
        if (s > best_score || (s == best_score && s > 0 && area < best_area)) {
            best = i;
            best_score = s;
            best_area = area;
        }
    }
    if (best >= 0)
        *source = "label";
    return best;
}

/* The result of grounding one target. */
typedef struct grounded {
    perc_epoch *epoch; /* acquired */
    int box;           /* index into epoch->boxes */
    perc_snap snap;
} grounded;

static void grounded_fini(grounded *g)
{
    perc_epoch_release(g->epoch);
    memset(g, 0, sizeof *g);
}



/* Gate, box, snap for target t. do_snap 0 stops after the box (wait_for).
 * Returns 1 with *g filled, 0 with r's failure set. */
static int ground(runner *rn, const agent_step *s, const agent_target *t, snap_intent_kind kind,
                  int do_snap, agent_step_record *r, grounded *g)
{
    memset(g, 0, sizeof *g);
    char err[BASE_ERRBUF_SIZE] = "";
    double deadline = now_ms() + s->timeout_ms;
    double t0 = now_ms();
    cascade_gate_result gr;
    memset(&gr, 0, sizeof gr);
    base_err e = cascade_gate(rn->page, rn->pf, rn->ticket, s->critical, NULL, &gr, err);
    r->ms.gate += now_ms() - t0;
    if (e) {
        failf(r, "error", "gate: %s", err);
        return 0;
    }
    copy(r->gate, sizeof r->gate,
         gr.mode == CASCADE_GATE_PROCEDURAL ? "procedural" : "declarative");
    copy(r->gate_why, sizeof r->gate_why, gr.why);
    r->vision_lag = gr.vision_lag;
    r->ms.fingerprint += gr.now.ms;
    perc_epoch *ep = gr.epoch;
    const char *source = "";
    int bi = choose_box(ep, t, &source);
    /* Not in this epoch: the page may still be changing. Ask for fresh
     * vision until the box shows up or the step's time is spent. */
    int revealed = 0;
    while (bi < 0 && now_ms() < deadline && page_ok(rn) && !base_interrupted()) {
        /* Once per step: an item scrolled out inside a list box has no box
         * until the box is scrolled (agent/reveal.c). */
        if (!revealed && t->label && t->label[0]) {
            revealed = 1;
            agent__reveal(rn->page, t->label);
        }
        schedule_until(rn, r->desc, deadline);
        double w0 = now_ms();
        perc_epoch *next = wait_epoch(rn, (int)(deadline - now_ms()) + 1);
        r->ms.gate += now_ms() - w0;
        if (!next && base_interrupted())
            break;
        if (!next) {
            char why[200] = "";
            perc_prefetch_last_error(rn->pf, why, sizeof why);
            if (why[0]) {
                perc_epoch_release(ep);
                /* "vision endpoint: timed out after N ms" / "rate-limited
                 * (Retry-After N s)" already names the part that failed. */
                int endpoint = strncmp(why, "vision ", 7) == 0; /* the openai provider's */
                failf(r, endpoint ? "vision" : "error", "%s%s", endpoint ? "" : "vision: ", why);
                return 0;
            }
            break;
        }
        perc_epoch_release(ep);
        ep = next;
        copy(r->gate, sizeof r->gate, "declarative");
        copy(r->gate_why, sizeof r->gate_why, "target not in the epoch: waited for fresh vision");
        bi = choose_box(ep, t, &source);
        if (bi < 0)
            base_interrupt_sleep_ms(50);
    }
    if (ep) {
        shot_masks(rn, ep);
        r->epoch_id = ep->id;
        r->n_boxes = ep->n;
        /* Stage times of the vision pass count when this step needed it. */
        if (ep->id != rn->last_epoch && strcmp(r->gate, "declarative") == 0) {
            r->ms.capture = ep->capture_ms;
            r->ms.decode = ep->decode_ms;
            r->ms.vision = ep->vision_ms + ep->enrich_ms;
        }
        rn->last_epoch = ep->id;
    }
    if (bi < 0 && stopped(r)) {
        g->epoch = ep;
        g->box = -1;
        return 0;
    }
    if (bi < 0) {
        if (ep)
            agent__suggest(ep, t, r);
        failf(r, "not_found", "no box for %s%s%s in %d vision boxes (epoch %llu)",
              t->label ? "'" : "", t->label ? t->label : "", t->label ? "'" : "",
              ep ? ep->n : 0, ep ? (unsigned long long)ep->id : 0ULL);
        if (t->index > 0 && !t->label)
            snprintf(r->outcome + strlen(r->outcome), sizeof r->outcome - strlen(r->outcome),
                     " [V%d]", t->index);
        g->epoch = ep;
        g->box = -1;
        return 0;
    }
    const perc_box *b = &ep->boxes[bi];
    r->box_id = b->id;
    agent_secrets_scrub_copy(rn->sec, r->box_label, sizeof r->box_label, b->label);
    copy(r->box_source, sizeof r->box_source, source);
    r->box = b->r;
    g->epoch = ep;
    g->box = bi;
    if (!do_snap)
        return 1;
    snap_intent in = {t->label ? t->label : b->label, kind};
    copy(r->intent, sizeof r->intent, snap_intent_name(kind));
    t0 = now_ms();
    e = perc_snap_box(rn->page, b->r, &in, 0, &g->snap, err);
    r->ms.snap += now_ms() - t0;
    if (e) {
        failf(r, "error", "snap: %s", err);
        return 0;
    }
    const perc_snap *sn = &g->snap;
    r->snapped = sn->found;
    copy(r->phase, sizeof r->phase, snap_phase_name(sn->res.phase));
    r->score_area = sn->res.score.area;
    r->score_label = sn->res.score.label;
    r->score_chevron = sn->res.score.chevron;
    r->score_total = sn->res.score.total;
    r->pt = sn->pt;
    copy(r->el_tag, sizeof r->el_tag, sn->tag);
    agent_secrets_scrub_copy(rn->sec, r->el_text, sizeof r->el_text, sn->text);
    r->el_rect = sn->rect;
    copy(r->snap_reason, sizeof r->snap_reason, sn->res.reason);
    /* Say when the element carries the label only partly (prefix, icon...). */
    if (t->label && sn->found) {
        copy(r->match, sizeof r->match, snap_match_name(sn->res.match));
        r->partial = sn->res.match < SNAP_MATCH_WORD;
    }
    if (!sn->found) {
        failf(r, "not_found", "snapper found no element in [V%d] '%.60s': %s", b->id, b->label,
              sn->res.reason);
        return 0;
    }
    return 1;
}

static cascade_target target_of(const grounded *g, const char *label)
{
    cascade_target t;
    memset(&t, 0, sizeof t);
    t.xpath = g->snap.xpath;
    t.frame_id = g->snap.frame_id;
    t.pt = g->snap.pt;
    t.have_pt = 1;
    t.origin = g->snap.frame_offset;
    t.have_origin = 1;
    t.label = label;
    return t;
}

/* Copies a cascade result into the record; returns its success. */
static int take_result(agent_step_record *r, const cascade_result *c)
{
    r->n_tried = c->n_tried < 3 ? c->n_tried : 3;
    for (int i = 0; i < r->n_tried; i++) {
        r->tried[i].tier = c->tried[i].tier;
        r->tried[i].success = c->tried[i].success;
        r->tried[i].ms = c->tried[i].ms;
        copy(r->tried[i].outcome, sizeof r->tried[i].outcome, c->tried[i].outcome);
    }
    copy(r->reason, sizeof r->reason, c->success ? "ok" : cascade_reason_name(c->reason));
    copy(r->message, sizeof r->message, c->message);
    r->n_alternatives = 0;
    for (int i = 0; i < c->n_alternatives && i < 4; i++)
        copy(r->alternatives[r->n_alternatives++], sizeof r->alternatives[0], c->alternatives[i]);
    r->n_path = c->n_path < AGENT_MAX_PATH ? c->n_path : AGENT_MAX_PATH;
    memcpy(r->path, c->path, (size_t)r->n_path * sizeof r->path[0]);
    if (c->n_tried > 0)
        r->pt = c->clicked_at;
    /* The hit-target check is the cascade's, made right before the press
     * (the snap skips its own: perc_snap_box(..., verify 0, ...)). */
    copy(r->verdict, sizeof r->verdict,
         c->reason == CASCADE_COVERED ? "covered" : c->n_tried > 0 ? "hit ok" : "");
    r->ms.motion += c->motion_ms;
    r->ms.dispatch += c->ms - c->motion_ms;
    r->ok = c->success;
    if (!c->success)
        snprintf(r->outcome, sizeof r->outcome, "%.24s: %.220s", cascade_reason_name(c->reason),
                 c->message);
    return c->success;
}

/* The verdict of a cascade call: a transport or argument error with no
 * tier tried becomes an "error" failure; anything else is the result's. */
static int cascade_outcome(agent_step_record *r, base_err e, const cascade_result *c,
                           const char *err)
{
    if (e && c->n_tried == 0) {
        failf(r, "error", "cascade: %s%s%s", base_strerror(e), err[0] ? ": " : "", err);
        return 0;
    }
    return take_result(r, c);
}

/* ---- page text ----------------------------------------------------------------- */

/* The rendered text of the page and all its frames, one line per line. */
static base_err page_text(runner *rn, base_buf *out, char *err)
{
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate(rn->page, (const char *)fovea_js_agent_text, &v, 5000, err);
    if (e)
        return e;
    if (cJSON_IsString(v)) {
        base_buf_append_str(out, v->valuestring);
        base_buf_append_str(out, "\n");
    }
    cJSON_Delete(v);
    cdp_frame frames[32];
    int n = cdp_page_frames(rn->page, frames, 32);
    for (int i = 1; i < n && i < 32; i++) {
        if (!frames[i].oopif || !frames[i].session[0])
            continue;
        cJSON *fv = NULL;
        if (cdp_page_evaluate_in(rn->page, frames[i].session, 0, (const char *)fovea_js_agent_text,
                                 &fv, 5000, NULL) == BASE_OK &&
            cJSON_IsString(fv)) {
            base_buf_append_str(out, fv->valuestring);
            base_buf_append_str(out, "\n");
        }
        cJSON_Delete(fv);
    }
    return BASE_OK;
}

/* The deadline a pattern match gets: the step's, but never less than a
 * quarter second from now, so a match started just before the step's end
 * (after a slow page read) is not called catastrophic for being late. */
static double re_deadline(double step_deadline)
{
    double floor_ms = now_ms() + 250;
    return step_deadline > floor_ms ? step_deadline : floor_ms;
}

/* Does text contain the step's text (case-insensitive) and match its
 * pattern (compiled at load)? 1 yes, 0 no, -1 when the match hit one of the
 * regex limits (why says which; retrying cannot help). */
static int text_matches(const agent_step *s, const char *text, double deadline, char *why)
{
    if (s->re) {
        int m = 0;
        base_err e = base_regex_match_until(s->re, text, strlen(text), re_deadline(deadline), &m,
                                            why);
        if (e == BASE_ETOOBIG)
            return -1;
        if (e || !m)
            return 0;
    }
    if (s->text)
        return snap_text_contains(text, s->text);
    return 1;
}

/* ---- actions --------------------------------------------------------------------- */

static snap_intent_kind kind_for(const agent_step *s, const char *label, const char *dflt)
{
    return snap_classify_intent(s->verb ? s->verb : dflt, label);
}

static void add_mask(runner *rn, base_rect r)
{
    char url[1024];
    page_url(rn, url, sizeof url);
    if (strcmp(url, rn->mask_url) != 0) {
        rn->n_masks = 0;
        copy(rn->mask_url, sizeof rn->mask_url, url);
    }
    if (rn->n_masks < MAX_MASKS)
        rn->masks[rn->n_masks++] = r;
}

static int act_click_like(runner *rn, const agent_step *s, agent_step_record *r, grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    const char *dflt = s->action == AGENT_TYPE ? "type" : "click";
    if (!ground(rn, s, &s->target, kind_for(s, s->target.label, dflt), 1, r, g))
        return 0;
    cascade_target t = target_of(g, s->target.label);
    t.expect_effect = s->expect_effect;
    cascade_result c;
    memset(&c, 0, sizeof c);
    /* A field that holds a secret by its own markup (type=password,
     * autocomplete=cc-number, one-time-code...) makes the text a secret
     * even when the task did not say so: known before anything is typed
     * or written. */
    int secret = s->password;
    if (s->action == AGENT_TYPE && !secret) {
        cascade_field_info fi;
        if (cascade_field_read(rn->hand, &t, &fi, NULL) == BASE_OK && fi.found &&
            agent_field_sensitive(fi.type, fi.autocomplete))
            secret = 1;
        cascade_field_info_fini(&fi);
        /* A secret the set cannot hold would be written unmasked: nothing
         * is typed. */
        base_err se = secret ? agent_secrets_add(rn->sec, s->text) : BASE_OK;
        if (se) {
            failf(r, "error", "cannot hold this secret for masking (%s); nothing typed",
                  base_strerror(se));
            return 0;
        }
    }
    settle_watch w;
    watch_begin(rn, &w);
    base_err e = s->action == AGENT_TYPE ? cascade_type(rn->hand, &t, s->text, secret, &c, err)
                                         : cascade_click(rn->hand, &t, &c, err);
    rn->delivered |= c.delivered;
    int ok = cascade_outcome(r, e, &c, err);
    if (c.effects & CASCADE_FX_NEW_TAB)
        copy(rn->fx_tab, sizeof rn->fx_tab, c.new_target_id);
    if (s->action == AGENT_TYPE && secret) {
        /* What the field made of it (upper-cased, grouped, cut to its
         * maxlength) is as secret as what was typed. */
        cascade_field_info fi;
        base_err se = BASE_OK;
        if (cascade_field_read(rn->hand, &t, &fi, NULL) == BASE_OK && fi.value)
            se = agent_secrets_add(rn->sec, fi.value);
        cascade_field_info_fini(&fi);
        if (se && ok) {
            failf(r, "error", "cannot hold the field's value for masking (%s)", base_strerror(se));
            ok = 0;
        }
    }
    if (ok && s->action == AGENT_TYPE && secret)
        add_mask(rn, g->snap.rect);
    if (ok) {
        /* Masked whole before the '%.60s' cut. */
        char el[64];
        agent_secrets_scrub_copy(rn->sec, el, sizeof el, g->snap.text);
        snprintf(r->outcome, sizeof r->outcome, "%s <%s> '%s' at (%.0f,%.0f): %s",
                 s->action == AGENT_TYPE ? "typed into" : "clicked", g->snap.tag, el, r->pt.x,
                 r->pt.y, c.n_tried ? c.tried[c.n_tried - 1].outcome : "done");
    }
    watch_end(rn, &w, r, r->desc);
    return ok;
}

/* A native <select> cannot be opened into the page; choose by script. */
static int native_select(runner *rn, const agent_step *s, agent_step_record *r, const grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    cascade_target t = target_of(g, s->target.label);
    cascade_result c;
    memset(&c, 0, sizeof c);
    base_err e = cascade_select(rn->hand, &t, s->value, &c, err);
    int ok = cascade_outcome(r, e, &c, err);
    if (ok)
        snprintf(r->outcome, sizeof r->outcome, "%.200s", c.message);
    return ok;
}

static int act_select(runner *rn, const agent_step *s, agent_step_record *r, grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (!ground(rn, s, &s->target, kind_for(s, s->target.label, "open"), 1, r, g))
        return 0;
    settle_watch w;
    if (strcmp(g->snap.tag, "select") == 0) {
        watch_begin(rn, &w);
        int ok = native_select(rn, s, r, g);
        watch_end(rn, &w, r, r->desc);
        return ok;
    }
    /* Open the control, then choose the option from fresh vision. */
    cascade_target t = target_of(g, s->target.label);
    cascade_result c;
    memset(&c, 0, sizeof c);
    watch_begin(rn, &w);
    base_err e = cascade_click(rn->hand, &t, &c, err);
    rn->delivered |= c.delivered;
    int ok = cascade_outcome(r, e, &c, err);
    watch_end(rn, &w, r, r->desc);
    if (!ok)
        return 0;
    grounded opt;
    agent_target want = {s->value, 0};
    agent_step_record r2 = *r;
    if (!ground(rn, s, &want, kind_for(s, s->value, "select"), 1, &r2, &opt)) {
        grounded_fini(&opt);
        *r = r2;
        snprintf(r->outcome + strlen(r->outcome), sizeof r->outcome - strlen(r->outcome),
                 " (after opening '%.40s')", s->target.label ? s->target.label : "");
        return 0;
    }
    *r = r2;
    t = target_of(&opt, s->value);
    memset(&c, 0, sizeof c);
    watch_begin(rn, &w);
    e = cascade_click(rn->hand, &t, &c, err);
    rn->delivered |= c.delivered;
    ok = cascade_outcome(r, e, &c, err);
    if (ok)
        snprintf(r->outcome, sizeof r->outcome, "opened '%.50s', chose <%s> '%.60s'",
                 s->target.label ? s->target.label : "", opt.snap.tag, opt.snap.text);
    watch_end(rn, &w, r, r->desc);
    /* The overlay shows the option's epoch: keep that one. */
    grounded_fini(g);
    *g = opt;
    return ok;
}

static int act_drag(runner *rn, const agent_step *s, agent_step_record *r, grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (!ground(rn, s, &s->target, kind_for(s, s->target.label, "drag"), 1, r, g))
        return 0;
    base_point to = {s->to_x, s->to_y};
    if (agent_target_set(&s->to)) {
        agent_step_record r2 = *r;
        grounded dst;
        if (!ground(rn, s, &s->to, SNAP_INTENT_ANY, 1, &r2, &dst)) {
            grounded_fini(&dst);
            copy(r->reason, sizeof r->reason, r2.reason);
            snprintf(r->outcome, sizeof r->outcome, "drag destination: %.200s", r2.outcome);
            r->ok = 0;
            return 0;
        }
        to = dst.snap.pt;
        grounded_fini(&dst);
    }
    cascade_target t = target_of(g, s->target.label);
    cascade_result c;
    memset(&c, 0, sizeof c);
    settle_watch w;
    watch_begin(rn, &w);
    base_err e = cascade_drag(rn->hand, &t, to, s->num_value, s->have_num_value, &c, err);
    int ok = cascade_outcome(r, e, &c, err);
    if (ok)
        snprintf(r->outcome, sizeof r->outcome, "dragged <%s> '%.60s' to %s%s", g->snap.tag,
                 g->snap.text, s->have_num_value ? "value " : "",
                 s->have_num_value ? s->value : "the destination");
    watch_end(rn, &w, r, r->desc);
    return ok;
}

/* A trusted wheel scroll at the viewport centre, then wait until scrollY rests. */
static base_err wheel(runner *rn, int dy, char *err)
{
    const cdp_page_opts *vp = cdp_page_viewport(rn->page);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "type", "mouseWheel");
    cJSON_AddNumberToObject(p, "x", (vp->width ? vp->width : 1280) / 2);
    cJSON_AddNumberToObject(p, "y", (vp->height ? vp->height : 800) / 2);
    cJSON_AddNumberToObject(p, "deltaX", 0);
    cJSON_AddNumberToObject(p, "deltaY", dy);
    base_err e = cdp_page_call(rn->page, "Input.dispatchMouseEvent", p, NULL, 5000, err);
    double last = -1;
    for (int i = 0; !e && i < 20; i++) {
        cJSON *v = NULL;
        if (cdp_page_evaluate(rn->page, "window.scrollY", &v, 2000, NULL) != BASE_OK) {
            cJSON_Delete(v);
            break;
        }
        double y = cJSON_IsNumber(v) ? v->valuedouble : -1;
        cJSON_Delete(v);
        if (y == last)
            break;
        last = y;
        base_sleep_ms(30);
    }
    return e;
}

static int act_scroll(runner *rn, const agent_step *s, agent_step_record *r, grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    settle_watch w;
    if (!agent_target_set(&s->target)) {
        watch_begin(rn, &w);
        double t0 = now_ms();
        base_err e = wheel(rn, s->dy, err);
        r->ms.dispatch += now_ms() - t0;
        watch_end(rn, &w, r, r->desc);
        if (e) {
            failf(r, "error", "scroll: %s", err);
            return 0;
        }
        r->ok = 1;
        copy(r->reason, sizeof r->reason, "ok");
        snprintf(r->outcome, sizeof r->outcome, "scrolled by %d px", s->dy);
        return 1;
    }
    /* Scroll until vision sees the target, a viewport at a time. */
    const cdp_page_opts *vp = cdp_page_viewport(rn->page);
    int step_px = (int)((vp->height ? vp->height : 800) * 0.7);
    agent_step once = *s;
    once.timeout_ms = 1200;
    for (int i = 0; i < 12 && !stopped(r); i++) {
        agent_step_record r2 = *r;
        if (ground(rn, &once, &s->target, SNAP_INTENT_ANY, 0, &r2, g)) {
            *r = r2;
            r->ok = 1;
            copy(r->reason, sizeof r->reason, "ok");
            snprintf(r->outcome, sizeof r->outcome, "[V%d] '%.80s' in view after %d scroll%s",
                     r->box_id, r->box_label, i, i == 1 ? "" : "s");
            return 1;
        }
        grounded_fini(g);
        *r = r2;
        watch_begin(rn, &w);
        double t0 = now_ms();
        base_err e = wheel(rn, s->dy < 0 ? -step_px : step_px, err);
        r->ms.dispatch += now_ms() - t0;
        watch_end(rn, &w, r, r->desc);
        if (e) {
            failf(r, "error", "scroll: %s", err);
            return 0;
        }
    }
    return 0;
}

static int act_wait_for(runner *rn, const agent_step *s, agent_step_record *r, grounded *g)
{
    if (agent_target_set(&s->target)) {
        int ok = ground(rn, s, &s->target, SNAP_INTENT_ANY, 0, r, g);
        if (ok) {
            r->ok = 1;
            copy(r->reason, sizeof r->reason, "ok");
            snprintf(r->outcome, sizeof r->outcome, "[V%d] '%.80s' is there (%s)", r->box_id,
                     r->box_label, r->box_source);
        }
        return ok;
    }
    copy(r->gate, sizeof r->gate, "-");
    double deadline = now_ms() + s->timeout_ms;
    char err[BASE_ERRBUF_SIZE] = "";
    do {
        base_buf b;
        base_buf_init(&b, TEXT_MAX);
        base_err e = page_text(rn, &b, err);
        char why[BASE_ERRBUF_SIZE] = "";
        int ok = !e && b.data ? text_matches(s, (const char *)b.data, deadline, why) : 0;
        base_buf_fini(&b);
        if (ok < 0) {
            failf(r, "pattern_limit", "/%.60s/: %s", s->pattern, why);
            return 0;
        }
        if (ok) {
            r->ok = 1;
            copy(r->reason, sizeof r->reason, "ok");
            snprintf(r->outcome, sizeof r->outcome, "'%.120s' is on the page", s->text);
            return 1;
        }
        if (base_interrupt_sleep_ms(100) && stopped(r))
            return 0;
    } while (now_ms() < deadline && page_ok(rn));
    failf(r, "timeout", "'%.120s' did not appear within %d ms", s->text, s->timeout_ms);
    return 0;
}

/* assert_text and extract: text of the target element, or of the page. */
static int act_read(runner *rn, const agent_step *s, agent_step_record *r, grounded *g)
{
    char err[BASE_ERRBUF_SIZE] = "";
    int tgt = agent_target_set(&s->target);
    if (tgt && !ground(rn, s, &s->target, SNAP_INTENT_ANY, 1, r, g))
        return 0;
    if (!tgt)
        copy(r->gate, sizeof r->gate, "-");
    double deadline = now_ms() + s->timeout_ms;
    int ok = 0;
    char *text = NULL;
    do {
        base_free(text);
        text = NULL;
        if (tgt) {
            char both[512];
            snprintf(both, sizeof both, "%s\n%s", g->snap.text, r->box_label);
            text = base_strdup(both);
        } else {
            base_buf b;
            base_buf_init(&b, TEXT_MAX);
            if (page_text(rn, &b, err) == BASE_OK)
                text = base_buf_steal(&b, NULL);
            base_buf_fini(&b);
        }
        char why[BASE_ERRBUF_SIZE] = "";
        ok = text ? text_matches(s, text, deadline, why) : 0;
        if (ok < 0) {
            base_free(text);
            failf(r, "pattern_limit", "/%.60s/: %s", s->pattern, why);
            return 0;
        }
        if (ok || tgt)
            break;
        if (base_interrupt_sleep_ms(100))
            break;
    } while (now_ms() < deadline && page_ok(rn));
    if (s->action == AGENT_EXTRACT && text) {
        /* The lines of the text that match (all non-empty ones without a pattern). */
        char why[BASE_ERRBUF_SIZE] = "";
        base_err re_e = BASE_OK;
        double line_deadline = re_deadline(deadline); /* one budget for all the lines */
        for (char *save = NULL, *line = strtok_r(text, "\n", &save);
             line && r->n_extracted < AGENT_MAX_EXTRACT; line = strtok_r(NULL, "\n", &save)) {
            char n[160];
            norm(line, n, sizeof n);
            int m = 1;
            base_err le = n[0] && s->re ? base_regex_match_until(s->re, line, strlen(line),
                                                                 line_deadline, &m, why)
                                        : BASE_OK;
            if (le == BASE_ETOOBIG || le == BASE_ECANCELED) {
                re_e = le;
                break;
            }
            if (!n[0] || le || !m)
                continue;
            agent_secrets_scrub_copy(rn->sec, r->extracted[r->n_extracted++],
                                     sizeof r->extracted[0], line); /* masked before the cut */
        }
        if (re_e == BASE_ECANCELED) {
            base_free(text);
            stopped(r);
            return 0;
        }
        if (re_e == BASE_ETOOBIG) {
            base_free(text);
            failf(r, "pattern_limit", "/%.60s/: %s", s->pattern, why);
            return 0;
        }
        ok = r->n_extracted > 0;
    }
    base_free(text);
    if (ok) {
        r->ok = 1;
        copy(r->reason, sizeof r->reason, "ok");
        if (s->action == AGENT_EXTRACT)
            snprintf(r->outcome, sizeof r->outcome, "%d line%s extracted", r->n_extracted,
                     r->n_extracted == 1 ? "" : "s");
        else
            snprintf(r->outcome, sizeof r->outcome, "found %s%.100s%s%s", s->text ? "'" : "/",
                     s->text ? s->text : s->pattern, s->text ? "'" : "/",
                     tgt ? " in the target" : " on the page");
        return 1;
    }
    if (stopped(r))
        return 0;
    if (s->action == AGENT_EXTRACT)
        failf(r, "not_found", "nothing matched /%.100s/", s->pattern ? s->pattern : "");
    else
        failf(r, "assert_failed", "%s%.100s%s not found %s within %d ms", s->text ? "'" : "/",
              s->text ? s->text : s->pattern, s->text ? "'" : "/",
              tgt ? "in the target" : "on the page", tgt ? 0 : s->timeout_ms);
    return 0;
}

/* ---- faults: dialogs, new tabs, dead pages ---------------------------------------- */

/* dialog step: the page answers the next JavaScript dialog as told. */
static int act_dialog(runner *rn, const agent_step *s, agent_step_record *r)
{
    copy(r->gate, sizeof r->gate, "-");
    base_err e = cdp_page_dialog_next(rn->page, s->accept, s->prompt_text, s->expect);
    if (e) {
        failf(r, "error", "dialog: %s", base_strerror(e));
        return 0;
    }
    snprintf(r->outcome, sizeof r->outcome, "the next dialog will be %s%s%.80s%s",
             s->accept ? "accepted" : "dismissed", s->prompt_text ? " with '" : "",
             s->prompt_text ? s->prompt_text : "", s->prompt_text ? "'" : "");
    return 1;
}

static base_err move_to(runner *rn, cdp_page *np, char *err);

/* Moves the run to tab target_id (a popup the step opened): the hand, the
 * prefetcher and the fingerprint observer move with it; the tab stays open
 * until the run ends. Returns 1 on success; else r->new_tab says why. */
static int follow_tab(runner *rn, const char *target_id, agent_step_record *r)
{
    char err[BASE_ERRBUF_SIZE] = "";
    if (rn->n_tabs >= (int)(sizeof rn->tabs / sizeof rn->tabs[0])) {
        snprintf(r->new_tab, sizeof r->new_tab, "not followed: too many tabs opened");
        return 0;
    }
    cdp_page *np = NULL;
    base_err e = cdp_page_open_popup(cdp_page_browser(rn->page), target_id,
                                     cdp_page_viewport(rn->page), &np, err);
    /* A popup is often still loading: wait for it, up to 5 s in all (a tab
     * that does not answer is followed anyway; its first step will say). */
    double until = now_ms() + 5000;
    while (!e && now_ms() < until) {
        cJSON *v = NULL;
        base_err ve = cdp_page_evaluate(np, "document.readyState", &v, 1000, NULL);
        int done = ve == BASE_OK && cJSON_IsString(v) && strcmp(v->valuestring, "complete") == 0;
        cJSON_Delete(v);
        if (done || ve == BASE_ETIMEDOUT || ve == BASE_ECLOSED)
            break;
        base_sleep_ms(50);
    }
    if (!e)
        e = perc_fingerprint_install(np, err);
    if (!e)
        e = move_to(rn, np, err);
    if (e) {
        cdp_page_close(np);
        snprintf(r->new_tab, sizeof r->new_tab, "not followed: %.140s", err);
        return 0;
    }
    rn->tabs[rn->n_tabs++] = np;
    char url[400];
    page_url(rn, url, sizeof url);
    snprintf(r->new_tab, sizeof r->new_tab, "followed the new tab %.130s", url);
    schedule(rn, r->desc);
    return 1;
}

/* The followed tab closed itself (a sign-in or payment popup that closes
 * once done): the run goes back to the newest tab still open before it,
 * or the page it started on. Returns 1 when it moved; r->new_tab says
 * where (or why not). */
static int back_to_opener(runner *rn, agent_step_record *r)
{
    char err[BASE_ERRBUF_SIZE] = "";
    cdp_page *to = rn->home;
    for (int t = rn->n_tabs - 1; t >= 0; t--) {
        if (rn->tabs[t] != rn->page && cdp_page_status(rn->tabs[t], NULL, 0) == BASE_OK) {
            to = rn->tabs[t];
            break;
        }
    }
    if (to == rn->page || cdp_page_status(to, NULL, 0) != BASE_OK ||
        move_to(rn, to, err) != BASE_OK) {
        snprintf(r->new_tab, sizeof r->new_tab, "the tab closed; no opener to go back to%s%.100s",
                 err[0] ? ": " : "", err);
        return 0;
    }
    /* Dialogs and popups already reported on the opener stay reported. */
    rn->dialogs_seen = cdp_page_dialog_count(to);
    rn->popups_seen = cdp_page_popup_count(to);
    char url[400];
    page_url(rn, url, sizeof url);
    snprintf(r->new_tab, sizeof r->new_tab, "the tab closed itself; back on %.100s", url);
    schedule(rn, r->desc);
    return 1;
}

/* Moves the hand, the prefetcher and the fingerprint observer's state to
 * np (a page with the fingerprint observer installed). On failure nothing
 * changes. */
static base_err move_to(runner *rn, cdp_page *np, char *err)
{
    perc_prefetch *pf = NULL;
    cascade_hand *hand = NULL;
    perc_prefetch_opts po = {0, rn->o.overlays != AGENT_OVERLAYS_NONE};
    base_err e = perc_prefetch_create(np, rn->vision, &po, &pf, err);
    cascade_opts co;
    cascade_opts_init(&co);
    co.humanize = rn->o.humanize;
    co.seed = rn->o.seed;
    co.allow_untrusted = rn->o.allow_untrusted;
    co.learnings_path = rn->o.learnings;
    if (!e)
        e = cascade_hand_create(np, &co, &hand, err);
    if (e) {
        perc_prefetch_destroy(pf);
        return e;
    }
    cascade_hand_destroy(rn->hand);
    perc_prefetch_destroy(rn->pf);
    rn->hand = hand;
    rn->pf = pf;
    rn->page = np;
    rn->ticket = 0;
    rn->last_epoch = 0;
    rn->n_masks = 0;
    rn->dialogs_seen = 0;
    rn->popups_seen = 0;
    cdp_frame main;
    if (cdp_page_frames(np, &main, 1) > 0)
        copy(rn->main_frame, sizeof rn->main_frame, main.id);
    return BASE_OK;
}

/* After each attempt: report the dialogs the page showed (a dialog that did
 * not show the text a dialog step expected fails the step), follow a tab the
 * step opened, and name a dead page as the cause. Returns 1 when the
 * attempt must not be repeated: its click was delivered (it opened a dialog
 * or a tab) or the page is gone. */
static int step_faults(runner *rn, const agent_step *s, agent_step_record *r, int *ok)
{
    int delivered = 0;
    uint64_t nd = cdp_page_dialog_count(rn->page);
    size_t k = strlen(r->dialog);
    for (uint64_t q = rn->dialogs_seen; q < nd; q++) {
        cdp_dialog d;
        if (!cdp_page_dialog_get(rn->page, q, &d))
            continue;
        delivered = 1;
        char answer[300];
        if (d.accepted && strcmp(d.type, "prompt") == 0)
            snprintf(answer, sizeof answer, "accepted with '%.200s'", d.prompt_text);
        else
            snprintf(answer, sizeof answer, "%s", d.accepted ? "accepted" : "dismissed");
        /* beforeunload dialogs carry no text of the page's (browsers show
         * their own "Leave site?"). */
        if (k < sizeof r->dialog)
            k += (size_t)snprintf(r->dialog + k, sizeof r->dialog - k, "%s%s%s%.200s%s %s",
                                  k ? "; " : "", d.type, d.message[0] ? " '" : "", d.message,
                                  d.message[0] ? "'" : "", answer);
        if (d.mismatch && *ok) {
            *ok = 0;
            failf(r, "dialog", "the %s dialog said '%.100s', not '%.60s' as expected (%s)",
                  d.type, d.message, d.expected, answer);
        }
    }
    rn->dialogs_seen = nd;
    /* The vision endpoint timed out or refused within this step's time: a
     * second attempt would only wait as long again. */
    if (!*ok && strcmp(r->reason, "vision") == 0)
        return 1;
    char why[200] = "";
    if (cdp_page_status(rn->page, why, sizeof why) != BASE_OK && rn->page != rn->home &&
        strncmp(why, "tab closed", 10) == 0 && back_to_opener(rn, r)) {
        base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "step %d: %s", r->index, r->new_tab);
        if (*ok)
            return 0;
        if (!rn->delivered) {
            /* Whatever the step saw, the cause is the closed tab; the
             * attempt may run again, on the opener. */
            copy(r->reason, sizeof r->reason, "page_gone");
            snprintf(r->outcome, sizeof r->outcome, "the tab closed during the step (%.200s)",
                     r->new_tab);
            return 0;
        }
        /* The action reached its element and the tab closed: that is its
         * effect (a sign-in popup's "Allow" closes it), not a failure. */
        *ok = 1;
        r->ok = 1;
        copy(r->reason, sizeof r->reason, "ok");
        snprintf(r->outcome, sizeof r->outcome, "clicked; the tab closed itself");
        return 0;
    }
    if (cdp_page_status(rn->page, why, sizeof why) != BASE_OK) {
        if (!*ok) {
            /* Whatever the step tripped over, this is the cause. */
            copy(r->reason, sizeof r->reason, "page_gone");
            snprintf(r->outcome, sizeof r->outcome, "%.200s", why);
        }
        return 1;
    }
    char tid[64] = "";
    uint64_t np = cdp_page_popup_count(rn->page);
    if (np > rn->popups_seen)
        cdp_page_popup_get(rn->page, np - 1, tid);
    rn->popups_seen = np;
    if (!tid[0] && rn->fx_tab[0])
        copy(tid, sizeof tid, rn->fx_tab);
    if (tid[0] && (s->action == AGENT_CLICK || s->action == AGENT_TYPE ||
                   s->action == AGENT_SELECT)) {
        delivered = 1;
        if (follow_tab(rn, tid, r) && !*ok) {
            /* The click opened a tab: that is its effect, not a dead click. */
            *ok = 1;
            r->ok = 1;
            copy(r->reason, sizeof r->reason, "ok");
            snprintf(r->outcome, sizeof r->outcome, "clicked; it opened a new tab");
        }
        base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "step %d: %s", r->index, r->new_tab);
    }
    if (r->dialog[0] && *ok && !strstr(r->outcome, "dialog"))
        snprintf(r->outcome + strlen(r->outcome), sizeof r->outcome - strlen(r->outcome),
                 " (dialog: %.100s)", r->dialog);
    return delivered && !*ok ? 1 : 0;
}

/* ---- the step loop ----------------------------------------------------------------- */

/* Every string of a record goes through the run's secrets before any sink
 * (trace, overlay caption, progress, summary, on_step) sees it. */
static void scrub_record(runner *rn, agent_step_record *r)
{
    char *fields[] = {r->outcome,   r->message, r->el_text,  r->box_label,    r->url,
                      r->snap_reason, r->desc,  r->gate_why, r->target_label, r->dialog,
                      r->new_tab};
    size_t caps[] = {sizeof r->outcome,     sizeof r->message,  sizeof r->el_text,
                     sizeof r->box_label,   sizeof r->url,      sizeof r->snap_reason,
                     sizeof r->desc,        sizeof r->gate_why, sizeof r->target_label,
                     sizeof r->dialog,      sizeof r->new_tab};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        agent_secrets_scrub(rn->sec, fields[i], caps[i]);
    for (int i = 0; i < r->n_alternatives; i++)
        agent_secrets_scrub(rn->sec, r->alternatives[i], sizeof r->alternatives[i]);
    for (int i = 0; i < r->n_extracted; i++)
        agent_secrets_scrub(rn->sec, r->extracted[i], sizeof r->extracted[i]);
    for (int i = 0; i < r->n_marks; i++)
        agent_secrets_scrub(rn->sec, r->marks[i], sizeof r->marks[i]);
    for (int i = 0; i < r->n_tried; i++)
        agent_secrets_scrub(rn->sec, r->tried[i].outcome, sizeof r->tried[i].outcome);
}

/* The overlay: the epoch's screenshot when the step used one, else a fresh capture. */
static void write_overlay(runner *rn, agent_step_record *r, const grounded *g)
{
    if (rn->o.overlays == AGENT_OVERLAYS_NONE ||
        (rn->o.overlays == AGENT_OVERLAYS_FAILURES && r->ok))
        return;
    double t0 = now_ms();
    char err[BASE_ERRBUF_SIZE] = "";
    perc_image img = {0};
    const perc_epoch *ep = g->epoch;
    base_err e = BASE_OK;
    if (ep && ep->shot.px) {
        e = perc_image_alloc(&img, ep->shot.w, ep->shot.h);
        for (int y = 0; !e && y < img.h; y++)
            memcpy(img.px + (size_t)y * (size_t)img.stride,
                   ep->shot.px + (size_t)y * (size_t)ep->shot.stride, (size_t)img.w * 4);
        img.scale = ep->shot.scale > 0 ? ep->shot.scale : 1.0f;
    } else {
        e = perc_capture(rn->page, NULL, &img, NULL, err);
    }
    perc_mark *marks = NULL;
    char(*labels)[PERC_LABEL_MAX] = NULL;
    int n = 0;
    if (!e && ep && ep->n > 0 && (marks = base_calloc((size_t)ep->n, sizeof *marks)) &&
        (labels = base_calloc((size_t)ep->n, sizeof *labels))) {
        /* Each mark is tagged "[Vn] label" (scrubbed: it is drawn). */
        for (int i = 0; i < ep->n; i++) {
            mark_name_masked(rn, &ep->boxes[i], labels[i], sizeof labels[i]);
            marks[n++] = (perc_mark){ep->boxes[i].r, ep->boxes[i].id, labels[i], 0};
        }
    }
    /* r->url was read right after the step (run_step). Secret fields, and
     * wherever the page shows a secret as text, are painted over. */
    /* A pre-action screenshot gets the masks found when the step grounded
     * on it; those found now only while the page is still on that URL
     * (after a navigation they would land in the wrong places). */
    base_rect all[2 * (MAX_MASKS + 64)];
    int masks = 0, blind = 0;
    int from_shot = !e && ep && ep->shot.px && rn->shot_ep == ep;
    if (from_shot) {
        for (int i = 0; i < rn->n_shot_masks; i++)
            all[masks++] = rn->shot_masks[i];
        blind = rn->n_shot_masks < 0;
    }
    if (!e && (!from_shot || strcmp(r->url, rn->shot_url) == 0)) {
        for (int i = 0; strcmp(r->url, rn->mask_url) == 0 && i < rn->n_masks; i++)
            all[masks++] = rn->masks[i];
        int k = agent__secret_rects(rn->page, rn->sec, all + masks, 64);
        blind |= k < 0;
        masks += k > 0 ? k : 0;
    }
    r->n_masked = masks;
    /* Where the secrets are could not be asked: no picture rather than
     * one that may show them. */
    if (!e && blind && agent_secrets_count(rn->sec) > 0)
        e = base_errf(err, BASE_EREMOTE, "could not find where the page shows secrets");
    if (!e)
        e = agent_trace_overlay(rn->trace, &img, marks, n, all, masks, r, err);
    if (e)
        base_log(BASE_LOG_AGENT, BASE_LOG_WARN, "step %d: no overlay: %s", r->index, err);
    base_free(marks);
    base_free(labels);
    perc_image_fini(&img);
    r->ms.overlay += now_ms() - t0;
}

static const char *tiers_text(const agent_step_record *r, char *buf, size_t n)
{
    if (r->n_tried == 0)
        return "-";
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->n_tried && k + 4 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", r->tried[i].tier);
    return buf;
}

static void progress(runner *rn, const agent_step_record *r)
{
    char tiers[16];
    fprintf(rn->out, "step %d/%d %s gate=%s tier=%s %s %.0f ms\n", r->index, r->total, r->desc,
            r->gate[0] ? r->gate : "-", tiers_text(r, tiers, sizeof tiers),
            r->ok                                   ? "ok"
            : strcmp(r->reason, "interrupted") == 0 ? "INTERRUPTED"
                                                    : "FAILED",
            r->total_ms);
    if (r->dialog[0])
        fprintf(rn->out, "  dialog: %s\n", r->dialog);
    if (r->new_tab[0])
        fprintf(rn->out, "  tab: %s\n", r->new_tab);
    if (!r->ok) {
        fprintf(rn->out, "  reason: %s\n", r->outcome);
        if (r->message[0] && !strstr(r->outcome, r->message))
            fprintf(rn->out, "  cascade: %s\n", r->message);
        for (int i = 0; i < r->n_alternatives; i++)
            fprintf(rn->out, "  try: %s\n", r->alternatives[i]);
    }
    fflush(rn->out);
}

static int run_step(runner *rn, int i, agent_step_record *r)
{
    const agent_step *s = &rn->task->steps[i];
    int ok = 0;
    for (int attempt = 1; attempt <= 1 + s->retries; attempt++) {
        memset(r, 0, sizeof *r);
        rn->delivered = 0;
        r->index = i + 1;
        r->total = rn->task->n_steps;
        r->attempts = attempt;
        copy(r->action, sizeof r->action, agent_action_name(s->action));
        agent_step_describe(s, r->desc, sizeof r->desc);
        copy(r->target_label, sizeof r->target_label, s->target.label);
        r->target_index = s->target.index;
        copy(r->intent, sizeof r->intent, "-");
        /* A followed tab that closed itself after the previous step (its
         * window.close() landed late): this step runs on the opener. */
        char gone[200] = "";
        if (rn->page != rn->home && cdp_page_status(rn->page, gone, sizeof gone) != BASE_OK &&
            strncmp(gone, "tab closed", 10) == 0 && back_to_opener(rn, r))
            base_log(BASE_LOG_AGENT, BASE_LOG_INFO, "step %d: %s", r->index, r->new_tab);
        double t0 = now_ms();
        grounded g;
        memset(&g, 0, sizeof g);
        /* Vision passes get as long as the step that uses them waits (see
         * schedule); the watchdog probes the page once this attempt's time
         * is up. */
        int budget = s->timeout_ms;
        if (i + 1 < rn->task->n_steps && rn->task->steps[i + 1].timeout_ms > budget)
            budget = rn->task->steps[i + 1].timeout_ms;
        rn->pass_budget_ms = budget;
        rn->fx_tab[0] = '\0';
        rn->shot_ep = NULL;
        /* The probe starts a little before the deadline so that a frozen
         * page is named by deadline + AGENT__PROBE_MS - AGENT__PROBE_LEAD_MS. */
        double probe_at = t0 + s->timeout_ms - AGENT__PROBE_LEAD_MS;
        agent__watchdog_arm(rn->wd, rn->page,
                            probe_at > t0 + s->timeout_ms / 2 ? probe_at : t0 + s->timeout_ms / 2);
        switch (s->action) {
        case AGENT_CLICK:
        case AGENT_TYPE:
            ok = act_click_like(rn, s, r, &g);
            break;
        case AGENT_SELECT:
            ok = act_select(rn, s, r, &g);
            break;
        case AGENT_DRAG:
            ok = act_drag(rn, s, r, &g);
            break;
        case AGENT_SCROLL:
            ok = act_scroll(rn, s, r, &g);
            break;
        case AGENT_WAIT_FOR:
            ok = act_wait_for(rn, s, r, &g);
            break;
        case AGENT_DIALOG:
            ok = act_dialog(rn, s, r);
            break;
        default:
            ok = act_read(rn, s, r, &g);
            break;
        }
        agent__watchdog_disarm(rn->wd);
        r->ok = ok;
        if (ok)
            copy(r->reason, sizeof r->reason, "ok");
        int final = step_faults(rn, s, r, &ok);
        page_url(rn, r->url, sizeof r->url);
        r->total_ms = now_ms() - t0;
        /* Any failed step that named a target offers the nearest names,
         * not only one whose box was missing. */
        if (!ok && r->n_alternatives == 0 && g.epoch && agent_target_set(&s->target) &&
            strcmp(r->reason, "interrupted") != 0)
            agent__suggest(g.epoch, &s->target, r);
        for (int k = 0; g.epoch && k < g.epoch->n && r->n_marks < AGENT_MAX_MARKS; k++)
            mark_name_masked(rn, &g.epoch->boxes[k], r->marks[r->n_marks++], sizeof r->marks[0]);
        scrub_record(rn, r);
        write_overlay(rn, r, &g);
        r->total_ms = now_ms() - t0;
        grounded_fini(&g);
        char err[BASE_ERRBUF_SIZE] = "";
        if (agent_trace_step(rn->trace, r, err) != BASE_OK)
            base_log(BASE_LOG_AGENT, BASE_LOG_ERROR, "%s", err);
        if (ok || final || attempt == 1 + s->retries || base_interrupted())
            break;
        if (rn->delivered) {
            /* The press or the keys reached the element: a repeat could
             * submit twice (a second order, a second todo). */
            fprintf(rn->out, "step %d/%d %s: not retried: the action reached the element\n",
                    r->index, r->total, r->desc);
            break;
        }
        fprintf(rn->out, "step %d/%d %s: attempt %d failed (%s), retrying\n", r->index, r->total,
                r->desc, attempt, r->outcome);
        schedule(rn, r->desc);
    }
    progress(rn, r);
    if (rn->o.on_step)
        rn->o.on_step(r, rn->o.on_step_user);
    return ok;
}

static void summary(runner *rn, int n)
{
    FILE *f = stdout;
    fprintf(f, "\n %3s  %-44s %-12s %-6s %-5s %-5s %-14s %7s\n", "#", "step", "gate", "box",
            "snap", "tier", "result", "ms");
    double total = 0;
    for (int i = 0; i < n; i++) {
        const agent_step_record *r = &rn->recs[i];
        char box[16] = "-", tiers[16];
        if (r->box_id > 0)
            snprintf(box, sizeof box, "[V%d]", r->box_id);
        fprintf(f, " %3d  %-44.44s %-12s %-6s %-5s %-5s %-14.14s %7.0f\n", r->index, r->desc,
                r->gate[0] ? r->gate : "-", box, r->phase[0] ? r->phase : "-",
                tiers_text(r, tiers, sizeof tiers), r->ok ? "ok" : r->reason, r->total_ms);
        total += r->total_ms;
    }
    fprintf(f, " %3s  %-44s %-12s %-6s %-5s %-5s %-14s %7.0f\n", "", "total", "", "", "", "", "",
            total);
    fflush(f);
}

static base_err setup(runner *rn, char *err)
{
    /* dom, openai or pixel (perception/vision_named.c). */
    base_err e = perc_vision_create_named(rn->o.vision, &rn->vision, err);
    if (e)
        return e;
    if ((e = perc_fingerprint_install(rn->page, err)))
        return e;
    /* Overlays draw on the epoch's screenshot; without them it is not kept. */
    perc_prefetch_opts po = {0, rn->o.overlays != AGENT_OVERLAYS_NONE};
    if ((e = perc_prefetch_create(rn->page, rn->vision, &po, &rn->pf, err)))
        return e;
    cascade_opts co;
    cascade_opts_init(&co);
    co.humanize = rn->o.humanize;
    co.seed = rn->o.seed;
    co.allow_untrusted = rn->o.allow_untrusted;
    co.learnings_path = rn->o.learnings;
    if ((e = cascade_hand_create(rn->page, &co, &rn->hand, err)))
        return e;
    cdp_frame main;
    if (cdp_page_frames(rn->page, &main, 1) > 0)
        copy(rn->main_frame, sizeof rn->main_frame, main.id);
    /* Secrets the task names are known before anything is written. */
    if ((e = agent_secrets_create(&rn->sec, err)))
        return e;
    for (int i = 0; i < rn->task->n_steps; i++) {
        const agent_step *s = &rn->task->steps[i];
        if (s->action == AGENT_TYPE && s->password && s->text && s->text[0] &&
            (e = agent_secrets_add(rn->sec, s->text)) != BASE_OK)
            return base_errf(err, e, "step %d: cannot hold its secret for masking (%s)", i + 1,
                             base_strerror(e));
        /* A prompt answered with a secret ("secret" on a dialog step). */
        if (s->action == AGENT_DIALOG && s->password && s->prompt_text && s->prompt_text[0] &&
            (e = agent_secrets_add(rn->sec, s->prompt_text)) != BASE_OK)
            return base_errf(err, e, "step %d: cannot hold its secret for masking (%s)", i + 1,
                             base_strerror(e));
    }
    /* The password of a model endpoint URL (user:password@host) is printed
     * nowhere either (the scrub also masks any URL's userinfo). */
    if ((e = agent__add_url_password(rn->sec, getenv("FOVEA_OPENAI_BASE_URL"), err)))
        return e;
    base_log_set_filter(agent_secrets_log_filter, rn->sec);
    rn->recs = base_calloc((size_t)rn->task->n_steps, sizeof *rn->recs);
    if (!rn->recs)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    if (rn->task->n_steps > 0)
        rn->pass_budget_ms = rn->task->steps[0].timeout_ms;
    return agent__watchdog_create(&rn->wd, err);
}

base_err agent_run(cdp_page *page, const agent_task *task, const agent_run_opts *o,
                   agent_run_result *res, char *err)
{
    memset(res, 0, sizeof *res);
    if (!page || !task || !res)
        return base_errf(err, BASE_EINVAL, "agent_run: NULL argument");
    runner rn;
    memset(&rn, 0, sizeof rn);
    rn.page = page;
    rn.home = page;
    rn.task = task;
    if (o)
        rn.o = *o;
    else
        agent_run_opts_init(&rn.o);
    if (!rn.o.out_dir)
        rn.o.out_dir = "out/run";
    if (!rn.o.vision)
        rn.o.vision = "dom";
    rn.out = rn.o.progress ? rn.o.progress : stderr;
    double t0 = now_ms();
    base_err e = setup(&rn, err);
    char url[1024];
    if (!e) {
        page_url(&rn, url, sizeof url);
        agent_secrets_scrub(rn.sec, url, sizeof url);
        agent_trace_info info = {task->name, rn.o.task_file, url, rn.o.vision, rn.o.browser,
                                 task->width, task->height, task->scale, rn.o.humanize,
                                 rn.o.seed, task->n_steps};
        e = agent_trace_open(rn.o.out_dir, &info, &rn.trace, err);
    }
    if (!e) {
        schedule(&rn, task->name);
        int i = 0, ran = 0;
        for (; i < task->n_steps && !base_interrupted(); i++) {
            ran = i + 1;
            if (!run_step(&rn, i, &rn.recs[i]))
                break;
            res->steps_done++;
        }
        res->ok = i == task->n_steps;
        res->total_ms = now_ms() - t0;
        if (!res->ok && base_interrupted()) {
            /* A stop signal: the steps done so far are kept; the end record
             * and the caller's report say it was interrupted. */
            res->interrupted = base_interrupted();
            res->failed_step = i + 1;
            snprintf(res->reason, sizeof res->reason, "interrupted by %s after %d/%d steps",
                     base_signal_name(res->interrupted), res->steps_done, task->n_steps);
        } else if (!res->ok) {
            res->failed_step = i + 1;
            snprintf(res->reason, sizeof res->reason, "step %d: %.236s", i + 1,
                     rn.recs[i].outcome);
        }
        if (rn.page && cdp_page_dialog_pending_plan(rn.page))
            fprintf(rn.out, "note: no dialog opened after the last dialog step\n");
        if (!rn.o.no_summary)
            summary(&rn, ran);
        if (res->interrupted)
            agent_trace_close_interrupted(rn.trace, res->failed_step, res->total_ms, res->reason,
                                          base_signal_name(res->interrupted));
        else
            agent_trace_close(rn.trace, res->ok, res->failed_step, res->total_ms, res->reason);
    }
    agent__watchdog_destroy(rn.wd);
    cascade_hand_destroy(rn.hand);
    perc_prefetch_destroy(rn.pf);
    perc_vision_destroy(rn.vision);
    for (int t = 0; t < rn.n_tabs; t++)
        cdp_page_close(rn.tabs[t]);
    base_free(rn.recs);
    if (rn.sec)
        base_log_set_filter(NULL, NULL);
    agent_secrets_destroy(rn.sec);
    return e;
}

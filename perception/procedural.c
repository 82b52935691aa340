/* perception/procedural.c: the procedural click target
 * (perception/procedural.h).
 *
 * The vision pass that built the epoch already found every interactive
 * element, its xpath, frame and visible rect (the selector map), and the box
 * [Vn] the step chose names one of them (perc_box.dom_index). While the
 * page's fingerprint still equals the epoch's, probing the box again (the
 * snapper's 17-point lattice, candidate tables, scoring) re-derives what the
 * map already says. This file trusts the map only as far as one evaluate can
 * confirm it: the element must still resolve from its xpath, be shown, sit
 * within PERC_PROC_TOL_PX of the rect the pass saw (so the box the agent
 * chose and the element still coincide), and be the element a click at its
 * centre (or one of eight spread points) reaches, through open shadow roots
 * and same-origin frames. Anything else — moved, covered, gone, in a
 * cross-origin frame, or an element that does not carry the step's label —
 * is reported as the reason to ask the snapper instead, never guessed past.
 *
 * Decisions that need no page (no mapped element, box and element not the
 * same shape, an expand intent on something that expands nothing, a frame
 * in another process) are taken before the evaluate, so a fallback costs at
 * most the one round trip.
 */
#include "perception/procedural.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/utf8.h"
#include "perception/enrich_int.h"
#include "perception/js.h"
#include "perception/script_int.h"

#define PROC_TIMEOUT_MS 10000
#define PROC_MIN_IOU 0.5f
#define PROC_MAX_FRAMES 256

static const perc__script epoch_script = {fovea_js_snap_epoch, &fovea_js_snap_epoch_len,
                                          "snap_epoch"};

const char *perc_proc_name(perc_proc_outcome o)
{
    switch (o) {
    case PERC_PROC_HIT:
        return "hit";
    case PERC_PROC_UNMAPPED:
        return "unmapped";
    case PERC_PROC_MISMATCH:
        return "mismatch";
    case PERC_PROC_FRAME:
        return "cross-origin frame";
    case PERC_PROC_GONE:
        return "gone";
    case PERC_PROC_HIDDEN:
        return "hidden";
    case PERC_PROC_MOVED:
        return "moved";
    case PERC_PROC_COVERED:
        return "covered";
    }
    return "?";
}

static base_err decide(perc_proc *why, perc_proc_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets the outcome and its one-line detail; returns BASE_OK for the caller
 * to pass on (a fallback is not an error). */
static base_err decide(perc_proc *why, perc_proc_outcome o, const char *fmt, ...)
{
    why->outcome = o;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why->detail, sizeof why->detail, fmt, ap);
    va_end(ap);
    return BASE_OK;
}

static float iou(base_rect a, base_rect b)
{
    float in = base_rect_area(base_rect_intersect(a, b));
    float un = base_rect_area(a) + base_rect_area(b) - in;
    return un > 0 ? in / un : 0.0f;
}

/* A finite number field of o into *v; 0 when absent or not finite. */
static int num(const cJSON *o, const char *k, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
        return 0;
    *v = x->valuedouble;
    return 1;
}

/* [x0, y0, x1, y1] field k of o; 0 when malformed or empty. */
static int rect_of(const cJSON *o, const char *k, base_rect *r)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 4)
        return 0;
    double v[4];
    for (int i = 0; i < 4; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return 0;
        v[i] = x->valuedouble;
    }
    *r = (base_rect){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    return !base_rect_empty(*r);
}

/* How the element's names carry the step's label: the best of its
 * accessible name, text, aria-label and title (the fields the snapper
 * matches, icon words aside: a label only an icon carries is the
 * snapper's to judge). */
static snap_match best_match(const char *label, const cJSON *o)
{
    static const char *const keys[] = {"name", "text", "aria", "title"};
    snap_match m = SNAP_MATCH_NONE;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *have = perc__json_str(o, keys[i]);
        if (!have[0])
            continue;
        snap_match k = snap_match_kind(label, have);
        if (k > m)
            m = k;
    }
    return m;
}

/* The CDP frame frame_id: 1 found (*oopif and url set), 0 not in the page
 * now, -1 out of memory. */
static int frame_kind(cdp_page *page, const char *frame_id, int *oopif, char *url, size_t cap)
{
    cdp_frame *fr = base_malloc(PROC_MAX_FRAMES * sizeof *fr);
    if (!fr)
        return -1;
    int n = cdp_page_frames(page, fr, PROC_MAX_FRAMES);
    if (n > PROC_MAX_FRAMES)
        n = PROC_MAX_FRAMES;
    int found = 0;
    for (int i = 0; i < n && !found; i++) {
        if (strcmp(fr[i].id, frame_id) == 0) {
            found = 1;
            *oopif = fr[i].oopif;
            /* A URL cut at cdp_frame's size cannot be compared: no filter
             * then (the rect still tells frames apart). */
            snprintf(url, cap, "%s", strlen(fr[i].url) + 1 < sizeof fr[i].url ? fr[i].url : "");
        }
    }
    base_free(fr);
    return found;
}

/* Fills *out from the script's {ok: 1, ...} reply. */
static int fill(const cJSON *o, const perc_selector *sel, snap_match match, double ms,
                perc_snap *out)
{
    double x, y, fx, fy;
    base_rect r;
    if (!num(o, "x", &x) || !num(o, "y", &y) || !num(o, "fx", &fx) || !num(o, "fy", &fy) ||
        !rect_of(o, "r", &r))
        return 0;
    perc_snap s;
    memset(&s, 0, sizeof s);
    s.found = 1;
    s.pt = (base_point){(float)x, (float)y};
    s.res.found = 1;
    s.res.pt = s.pt;
    s.res.cand = -1;
    s.res.phase = SNAP_PHASE_P;
    s.res.match = match;
    s.res.reason = "procedural: the epoch's element, verified in place";
    s.rect = r;
    base_utf8_copy(s.tag, sizeof s.tag, perc__json_str(o, "tag"));
    const char *text = perc__json_str(o, "text");
    base_utf8_copy(s.text, sizeof s.text, text[0] ? text : perc__json_str(o, "aria"));
    const char *name = perc__json_str(o, "name");
    if (!name[0])
        name = perc__json_str(o, "aria");
    if (!name[0])
        name = perc__json_str(o, "title");
    base_utf8_copy(s.name, sizeof s.name, name);
    base_utf8_copy(s.xpath, sizeof s.xpath, sel->xpath);
    base_utf8_copy(s.frame_id, sizeof s.frame_id, sel->frame_id);
    s.frame_offset = (base_point){(float)fx, (float)fy};
    double dis = 0;
    s.disabled = num(o, "dis", &dis) && dis != 0;
    s.verdict = SNAP_VERIFY_OK;
    s.probe_ms = ms;
    *out = s;
    return 1;
}

base_err perc_snap_from_epoch(cdp_page *page, const perc_epoch *ep, int box,
                              const snap_intent *intent, perc_snap *out, perc_proc *why,
                              char *err)
{
    if (!page || !ep || !out || !why)
        return base_errf(err, BASE_EINVAL, "procedural: NULL page, epoch or output");
    if (box < 0 || box >= ep->n || !ep->boxes)
        return base_errf(err, BASE_EINVAL, "procedural: box %d out of range (epoch has %d)", box,
                         ep->n);
    memset(why, 0, sizeof *why);
    const perc_box *b = &ep->boxes[box];
    const char *label = intent && intent->label ? intent->label : "";
    if (b->dom_index < 0 || b->dom_index >= ep->n_map || !ep->map)
        return decide(why, PERC_PROC_UNMAPPED, "[V%d] has no element in the selector map", b->id);
    const perc_selector *sel = &ep->map[b->dom_index];
    /* A model's box around a whole row maps to its nearest control, which
     * need not be what the agent meant inside it: that is the snapper's
     * question. */
    float ov = iou(b->r, sel->r);
    if (ov < PROC_MIN_IOU)
        return decide(why, PERC_PROC_UNMAPPED, "[V%d] and its element overlap by IoU %.2f",
                      b->id, (double)ov);
    if (intent && intent->kind == SNAP_INTENT_EXPAND && b->expanded < 0 &&
        strcmp(b->kind, "chevron") != 0)
        return decide(why, PERC_PROC_MISMATCH,
                      "expand intent and [V%d] is no expand control: the snapper looks for one",
                      b->id);
    int sub = sel->frame_id[0] != '\0';
    char furl[512] = "";
    if (sub) {
        int oopif = 0;
        int k = frame_kind(page, sel->frame_id, &oopif, furl, sizeof furl);
        if (k < 0)
            return base_errf(err, BASE_ENOMEM, "procedural: out of memory");
        if (k == 0)
            return decide(why, PERC_PROC_GONE, "frame %.64s is no longer in the page",
                          sel->frame_id);
        if (oopif)
            return decide(why, PERC_PROC_FRAME, "element in an out-of-process frame");
    }

    const double e4[4] = {sel->r.x0, sel->r.y0, sel->r.x1, sel->r.y1};
    cJSON *args = cJSON_CreateObject();
    cJSON *r = cJSON_CreateDoubleArray(e4, 4);
    int built = args && r && cJSON_AddItemToObject(args, "r", r);
    if (!built)
        cJSON_Delete(r); /* not owned by args */
    built = built && cJSON_AddStringToObject(args, "xp", sel->xpath) &&
            cJSON_AddStringToObject(args, "url", furl) &&
            cJSON_AddNumberToObject(args, "sub", sub) &&
            cJSON_AddNumberToObject(args, "tol", PERC_PROC_TOL_PX);
    char *text = built ? cJSON_PrintUnformatted(args) : NULL;
    cJSON_Delete(args);
    if (!text)
        return base_errf(err, BASE_ENOMEM, "procedural: out of memory");
    cJSON *val = NULL;
    double ms = 0;
    base_err e = perc__script_call(page, NULL, 0, &epoch_script, text, PROC_TIMEOUT_MS, &val, &ms,
                                   err);
    cJSON_free(text);
    if (e)
        return e;
    cJSON *o = cJSON_IsString(val) ? perc__parse_page_json(val->valuestring) : NULL;
    cJSON_Delete(val);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return base_errf(err, BASE_EPROTO, "procedural: the page returned no JSON object");
    }
    why->eval_ms = ms;
    double okv = 0;
    const char *w = perc__json_str(o, "why");
    if (num(o, "ok", &okv) && okv == 1) {
        /* xpaths are positional: after a removal the next sibling of the
         * same tag takes the name, possibly the place too. The label the
         * map recorded (copied the way enrich_frames.c copies it) tells
         * them apart. */
        char now[PERC_LABEL_MAX];
        snprintf(now, sizeof now, "%s", perc__json_str(o, "label"));
        snap_match m = label[0] ? best_match(label, o) : SNAP_MATCH_NONE;
        if (strcmp(now, sel->label) != 0) {
            char was[64], is[64];
            base_utf8_copy(was, sizeof was, sel->label);
            base_utf8_copy(is, sizeof is, now);
            /* Another element, or the same one relabelled (a field named
             * by its value): either way not what the epoch mapped. */
            decide(why, PERC_PROC_GONE, "the element at [V%d]'s xpath is now '%s', was '%s'",
                   b->id, is, was);
        } else if (label[0] && m == SNAP_MATCH_NONE) {
            char name[64];
            base_utf8_copy(name, sizeof name, perc__json_str(o, "name"));
            decide(why, PERC_PROC_MISMATCH, "[V%d]'s element '%s' does not carry '%.60s'", b->id,
                   name, label);
        } else if (fill(o, sel, m, ms, out)) {
            decide(why, PERC_PROC_HIT, "[V%d] %s at (%.0f,%.0f)", b->id, out->tag,
                   (double)out->pt.x, (double)out->pt.y);
        } else {
            e = base_errf(err, BASE_EPROTO, "procedural: malformed reply");
        }
    } else if (strcmp(w, "gone") == 0) {
        decide(why, PERC_PROC_GONE, "%s%s names no element", sub ? "frame element " : "",
               sel->xpath);
    } else if (strcmp(w, "xo") == 0) {
        decide(why, PERC_PROC_FRAME, "element not in any same-origin frame (cross-origin ones "
                                     "are closed to the check)");
    } else if (strcmp(w, "hidden") == 0) {
        decide(why, PERC_PROC_HIDDEN, "[V%d]'s element is not shown", b->id);
    } else if (strcmp(w, "moved") == 0) {
        double d = 0;
        num(o, "d", &d);
        decide(why, PERC_PROC_MOVED, "[V%d]'s element moved %.0f px since the vision pass", b->id,
               d);
    } else if (strcmp(w, "covered") == 0) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "cover");
        const char *desc = cJSON_GetStringValue(cJSON_GetArrayItem(c, 0));
        const char *ct = cJSON_GetStringValue(cJSON_GetArrayItem(c, 1));
        char shown[48];
        base_utf8_copy(shown, sizeof shown, ct ? ct : "");
        if (shown[0])
            decide(why, PERC_PROC_COVERED, "[V%d]'s element is covered by %.80s '%s'", b->id,
                   desc ? desc : "?", shown);
        else
            decide(why, PERC_PROC_COVERED, "[V%d]'s element is covered by %.80s", b->id,
                   desc && desc[0] ? desc : "nothing (outside the page)");
    } else {
        e = base_errf(err, BASE_EPROTO, "procedural: unexpected reply (why '%.40s')", w);
    }
    cJSON_Delete(o);
    if (!e)
        base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "procedural: %s: %s",
                 perc_proc_name(why->outcome), why->detail);
    return e;
}

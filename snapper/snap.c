/* snapper/snap.c: Algorithm 4 (vision-bbox snap) with the E.3 scoring function.
 *
 * The caller has already hit-tested the 17 probe points of the box (live in
 * the page or offline in a snap_scene); this file only reads those stacks.
 * Phase A takes the first interactive element at the centre and accepts it
 * when the expected label matches; an iframe there ends the call with
 * SNAP_PHASE_A_ALT so that the caller, who owns the I/O, re-probes inside the
 * frame. Phase B scores every distinct interactive element hit at the 16
 * interior grid points by area x label x chevron and clicks the grid point of
 * the winner nearest to its visible centre. Where the paper is ambiguous (the
 * chevron cap, what "area" means for nested elements, the intent) the rules
 * are written down in snapper/DESIGN.md; the constants below cite it.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "snapper/snap_int.h"

/* E.3 eq. (12): chi = 1 + CHI_AMP * Row(B) * 1[K >= 1] * tanh(K / CHI_K_SCALE). */
#define CHI_AMP 2.0f
#define CHI_K_SCALE 2.0f
/* Row(B) of E.3: width >= 60 px and height >= 24 px. */
#define ROW_MIN_W_PX 60.0f
#define ROW_MIN_H_PX 24.0f
/* Section 6.2: the boost only wins within 30 % of the area-only leader. */
#define CAP_AREA_RATIO 0.7f
/* Phase A needs |label| >= 3 (Algorithm 4 line 18). */
#define PHASE_A_MIN_LABEL 3
/* Compound-row test: side by side, vertical overlap >= half the smaller height,
 * horizontal gap <= max(COMPOUND_GAP_PX, smaller height). Ours, not the paper's. */
#define COMPOUND_GAP_PX 8.0f
/* Label factor kept by non-matching candidates when another one matches. */
#define NONMATCH_WEIGHT 0.25f
/* Label qualities closer than this count as equal. */
#define QUALITY_MARGIN 0.05f
/* Quality of a label held as whole words inside a longer text (a card's
 * heading): below every match, used only when nothing matches. */
#define CONTAINED_QUALITY 0.3f
/* Quality of an icon-only match (icons.c): below every text match, used only
 * when no element in the box carries the label by text or name. */
#define ICON_QUALITY 0.6f
/* Quality of a label carried by the text of the row a control is alone in
 * (row_text_carries): below a whole-word match of its own names. */
#define ROW_TEXT_QUALITY 0.8f
/* Ambiguity (DESIGN.md "Ambiguity"): when two or more controls in the box
 * carry the label equally (or there is no label, or nothing named otherwise
 * is left), geometry settles the tie only when it is decisive: the control at
 * the box centre covers at least DECISIVE_SHARE of the box and every other
 * tied control at most DECISIVE_RATIO of the centre control's part of it.
 * Measured on the perturbed benchmark (bench/RESULTS.md, issue 21). */
#define DECISIVE_SHARE 0.3f
#define DECISIVE_RATIO 0.25f

void snap_probe_points(base_rect box, base_point out[SNAP_PROBE_NGRID])
{
    float w = box.x1 - box.x0, h = box.y1 - box.y0;
    out[0] = base_rect_center(box);
    for (int i = 1; i <= 4; i++) {
        for (int j = 1; j <= 4; j++) {
            base_point p = {box.x0 + w * (float)i / 5.0f, box.y0 + h * (float)j / 5.0f};
            out[1 + (i - 1) * 4 + (j - 1)] = p;
        }
    }
}

void snap_probe_init(snap_probe *p, base_rect box)
{
    memset(p, 0, sizeof *p);
    p->box = box;
    p->n_points = SNAP_PROBE_NGRID;
    snap_probe_points(box, p->pt);
    for (int k = 0; k < SNAP_PROBE_MAX_POINTS; k++)
        p->for_cand[k] = -1;
}

base_point snap_visible_center(base_rect rect, base_rect box)
{
    base_rect v = base_rect_intersect(rect, box);
    return base_rect_center(base_rect_empty(v) ? box : v);
}

int snap_probe_add_point(snap_probe *p, int cand, base_rect rect)
{
    if (p->n_points < SNAP_PROBE_NGRID || p->n_points >= SNAP_PROBE_MAX_POINTS)
        return -1;
    if (base_rect_empty(base_rect_intersect(rect, p->box)))
        return -1;
    int k = p->n_points++;
    p->pt[k] = snap_visible_center(rect, p->box);
    p->for_cand[k] = cand;
    p->n[k] = 0;
    return k;
}

const char *snap_phase_name(snap_phase p)
{
    switch (p) {
    case SNAP_PHASE_A:
        return "A";
    case SNAP_PHASE_A_ALT:
        return "A-alt";
    case SNAP_PHASE_B:
        return "B";
    case SNAP_PHASE_P:
        return "P";
    default:
        return "-";
    }
}

const char *snap_intent_name(snap_intent_kind k)
{
    return k == SNAP_INTENT_SELECT ? "select" : k == SNAP_INTENT_EXPAND ? "expand" : "any";
}

snap_intent_kind snap_classify_intent(const char *verb, const char *label)
{
    static const char *const expand_verbs[] = {"open",   "expand",      "collapse",  "toggle",
                                               "unfold", "show more",   "drop down", "dropdown",
                                               "reveal", "show options"};
    static const char *const select_verbs[] = {"select", "choose",    "pick",
                                               "option", "set value", "set"};
    static const char *const expand_labels[] = {"expand", "collapse",  "toggle",
                                                "more",   "open menu", "show more"};
    char fv[SNAP__FOLD_CAP], fl[SNAP__FOLD_CAP];
    snap__fold(verb, fv, sizeof fv);
    snap__fold(label, fl, sizeof fl);
    /* The verb phrase decides when it starts with a known verb (whole words). */
    for (size_t i = 0; i < sizeof expand_verbs / sizeof expand_verbs[0]; i++) {
        size_t n = strlen(expand_verbs[i]);
        if (strncmp(fv, expand_verbs[i], n) == 0 && (fv[n] == '\0' || fv[n] == ' '))
            return SNAP_INTENT_EXPAND;
    }
    for (size_t i = 0; i < sizeof select_verbs / sizeof select_verbs[0]; i++) {
        size_t n = strlen(select_verbs[i]);
        if (strncmp(fv, select_verbs[i], n) == 0 && (fv[n] == '\0' || fv[n] == ' '))
            return SNAP_INTENT_SELECT;
    }
    /* A plain click whose label asks for expansion is an expansion. */
    if (snap__has_glyph(label))
        return SNAP_INTENT_EXPAND;
    for (size_t i = 0; i < sizeof expand_labels / sizeof expand_labels[0]; i++) {
        size_t n = strlen(expand_labels[i]);
        for (const char *p = strstr(fl, expand_labels[i]); p; p = strstr(p + 1, expand_labels[i])) {
            if ((p == fl || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
                return SNAP_INTENT_EXPAND;
        }
    }
    return SNAP_INTENT_ANY;
}

base_rect snap_frame_box(base_rect box, base_rect iframe_rect)
{
    base_rect c = base_rect_intersect(box, iframe_rect);
    if (base_rect_empty(c))
        return c;
    base_rect r = {c.x0 - iframe_rect.x0, c.y0 - iframe_rect.y0, c.x1 - iframe_rect.x0,
                   c.y1 - iframe_rect.y0};
    return r;
}

base_point snap_frame_point(base_point inner, base_rect iframe_rect)
{
    base_point p = {inner.x + iframe_rect.x0, inner.y + iframe_rect.y0};
    return p;
}

int snap_is_ancestor(const snap_candidate *cands, int n, int a, int d)
{
    if (!cands || a < 0 || d < 0 || a >= n || d >= n || a == d)
        return 0;
    /* Parent links first; the step bound guards against cyclic input. */
    int p = cands[d].parent;
    for (int steps = 0; p >= 0 && p < n && steps < n; steps++) {
        if (p == a)
            return 1;
        p = cands[p].parent;
    }
    const char *xa = cands[a].xpath, *xd = cands[d].xpath;
    if (!xa || !xd || !xa[0])
        return 0;
    const char *fa = cands[a].frame_chain ? cands[a].frame_chain : "";
    const char *fd = cands[d].frame_chain ? cands[d].frame_chain : "";
    size_t la = strlen(xa);
    return strcmp(fa, fd) == 0 && strncmp(xa, xd, la) == 0 && xd[la] == '/';
}

snap_verdict snap_verify(const snap_candidate *cands, int n, const int *stack, int n_stack,
                         int chosen, int *covering)
{
    if (!stack || n_stack <= 0)
        return SNAP_VERIFY_EMPTY;
    int t = stack[0];
    if (!cands || t < 0 || t >= n || chosen < 0 || chosen >= n) {
        if (covering)
            *covering = -1;
        return SNAP_VERIFY_COVERED;
    }
    if (t == chosen || snap_is_ancestor(cands, n, chosen, t))
        return SNAP_VERIFY_OK;
    /* Name the covering subtree by its root: climb while the parent is not an
     * ancestor of the chosen element, so a modal is named, not its inner span. */
    int r = t;
    for (int steps = 0; steps < n; steps++) {
        int p = cands[r].parent;
        if (p < 0 || p >= n || p == chosen || snap_is_ancestor(cands, n, p, chosen))
            break;
        r = p;
    }
    if (covering)
        *covering = r;
    return SNAP_VERIFY_COVERED;
}

static int str_eq(const char *a, const char *b)
{
    return a && strcmp(a, b) == 0;
}

int snap__clickable(const snap_candidate *c)
{
    if (c->is_interactive || c->is_iframe)
        return 1;
    /* A listener of its own makes a span, a div, a table header or an <a>
     * without href a control (issue 10, class 1); on <html>/<body> it is the
     * page's delegation and says nothing about the element under the box. */
    return c->has_listener && !str_eq(c->tag, "html") && !str_eq(c->tag, "body");
}

int snap_candidate_clickable(const snap_candidate *c)
{
    return c ? snap__clickable(c) : 0;
}

/* First element of a stack that is interactive (an iframe counts: it is a hit
 * target that needs descent); -1 when none. */
static int first_interactive(const snap_candidate *c, const int *stack, int n)
{
    for (int k = 0; k < n; k++) {
        if (snap__clickable(&c[stack[k]]))
            return stack[k];
    }
    return -1;
}

static float chi_of(int k)
{
    return 1.0f + CHI_AMP * tanhf((float)k / CHI_K_SCALE);
}

/* Chevron beside (or inside, or around) the leader on the same row. */
static int compound(const snap_candidate *cands, int n, int c, int l)
{
    if (snap_is_ancestor(cands, n, c, l) || snap_is_ancestor(cands, n, l, c))
        return 1;
    base_rect a = cands[c].rect, b = cands[l].rect;
    float hmin = fminf(base_rect_h(a), base_rect_h(b));
    float overlap = fminf(a.y1, b.y1) - fmaxf(a.y0, b.y0);
    float gap = fmaxf(0.0f, fmaxf(a.x0 - b.x1, b.x0 - a.x1));
    return hmin > 0.0f && overlap >= 0.5f * hmin && gap <= fmaxf(COMPOUND_GAP_PX, hmin);
}

/* An expand control that is not itself the labelled value: SELECT avoids it. */
static int pure_expand(const snap_candidate *c, int k, const char *label)
{
    if (k < 1)
        return 0;
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) == 0)
        return 1;
    return !snap__text_match(label, c->text);
}

static void set_none(snap_result *r, base_rect box, snap_phase phase, int cand, int n_scored,
                     const char *reason)
{
    memset(r, 0, sizeof *r);
    r->found = 0;
    r->pt = base_rect_center(box);
    r->cand = cand;
    r->phase = phase;
    r->n_scored = n_scored;
    r->reason = reason;
}

static base_err check_input(const snap_candidate *cands, int n, const snap_probe *probe,
                            snap_result *out, char *err)
{
    if (!probe || !out || n < 0 || (n > 0 && !cands))
        return base_errf(err, BASE_EINVAL, "snap_resolve: NULL argument or negative count");
    base_rect b = probe->box;
    if (!isfinite(b.x0) || !isfinite(b.y0) || !isfinite(b.x1) || !isfinite(b.y1) ||
        base_rect_empty(b))
        return base_errf(err, BASE_EINVAL, "snap_resolve: box is empty or not finite");
    if (probe->n_points < SNAP_PROBE_NGRID || probe->n_points > SNAP_PROBE_MAX_POINTS)
        return base_errf(err, BASE_EINVAL, "snap_resolve: bad point count %d", probe->n_points);
    for (int k = 0; k < probe->n_points; k++) {
        if (probe->n[k] < 0 || probe->n[k] > SNAP_PROBE_DEPTH)
            return base_errf(err, BASE_EINVAL, "snap_resolve: stack %d has bad count %d", k,
                             probe->n[k]);
        if (!base_rect_contains(b, probe->pt[k]))
            return base_errf(err, BASE_EINVAL, "snap_resolve: probe point %d outside the box", k);
        for (int s = 0; s < probe->n[k]; s++) {
            if (probe->stack[k][s] < 0 || probe->stack[k][s] >= n)
                return base_errf(err, BASE_EINVAL, "snap_resolve: stack %d index %d out of range",
                                 k, probe->stack[k][s]);
        }
    }
    return BASE_OK;
}

/* One distinct phase-B candidate. */
typedef struct scored {
    int idx;
    uint64_t hits; /* bit k: first interactive at probe point k */
    int k;         /* chevron indicators */
    float a, lambda, chi, sigma;
} scored;

/* Picks the click point for the winner: among the probe points where it was
 * the first interactive element and which lie inside its rect, the one
 * nearest the centre of rect & box (any hit point if the rect disagrees). */
static base_point choose_point(const snap_probe *probe, const snap_candidate *c, uint64_t hits)
{
    base_rect vis = base_rect_intersect(c->rect, probe->box);
    base_point target = base_rect_center(base_rect_empty(vis) ? probe->box : vis);
    int best = -1, best_inside = 0;
    float best_d = 0.0f;
    for (int k = 0; k < probe->n_points; k++) {
        if (!(hits & ((uint64_t)1 << k)))
            continue;
        int inside = base_rect_contains(c->rect, probe->pt[k]);
        float d = base_point_dist(probe->pt[k], target);
        if (best < 0 || inside > best_inside || (inside == best_inside && d < best_d)) {
            best = k;
            best_inside = inside;
            best_d = d;
        }
    }
    BASE_ASSERT(best >= 0);
    return probe->pt[best];
}

/* A form control a <label> can point at. */
static int form_control(const snap_candidate *c)
{
    static const char *const roles[] = {"checkbox",  "radio",      "switch", "textbox", "combobox",
                                        "searchbox", "spinbutton", "slider", "listbox"};
    if (str_eq(c->tag, "select") || str_eq(c->tag, "textarea"))
        return 1;
    if (str_eq(c->tag, "input"))
        return 1;
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        if (str_eq(c->role, roles[i]))
            return 1;
    }
    return 0;
}

/* The candidate as scored: a form control without a name takes the text of
 * the <label> that wraps it (accname's wrapping-label rule), found through
 * parent links, so scenes and probes without the page kit's names still
 * name a checkbox by its label. *tmp holds the copy; the result is valid
 * until the next call with the same tmp. */
static const snap_candidate *as_named(const snap_candidate *cands, int n, int i,
                                      snap_candidate *tmp)
{
    const snap_candidate *c = &cands[i];
    if ((c->name && c->name[0]) || !form_control(c))
        return c;
    int p = c->parent;
    for (int steps = 0; p >= 0 && p < n && steps < 4; steps++, p = cands[p].parent) {
        if (str_eq(cands[p].tag, "label")) {
            *tmp = *c;
            tmp->name = cands[p].text;
            return tmp;
        }
    }
    return c;
}
#define NAMED(i) as_named(cands, n, (i), &named_tmp)

/* 1 when candidates a and b are one control for the purpose of ambiguity:
 * nested (an <li> and the <a> inside it with the same text, a button and its
 * icon), or a <label> and the form control it wraps or names. */
static int same_unit(const snap_candidate *cands, int n, int a, int b)
{
    if (a == b || snap_is_ancestor(cands, n, a, b) || snap_is_ancestor(cands, n, b, a))
        return 1;
    for (int k = 0; k < 2; k++) {
        const snap_candidate *l = &cands[k ? b : a], *c = &cands[k ? a : b];
        if (str_eq(l->tag, "label") && form_control(c) && c->name && c->name[0] &&
            snap_match_kind(l->text, c->name) >= SNAP_MATCH_WORD)
            return 1;
    }
    return 0;
}

/* 1 when the text a person reads beside control i carries the label: its
 * nearest non-clickable ancestors (up to 3, each at most a row tall: twice
 * its height or 24 px more) whose text carries the label as whole words
 * (>= SNAP_MATCH_WORD) while no other clickable candidate lies inside them.
 * The chevron of a row "Canada ▾" named "Show provinces" is the row's
 * control; "Delete account" in a toolbar "Save | Delete account" is not
 * "Save"'s (the toolbar holds Save too). */
static int row_text_carries(const snap_candidate *cands, int n, int i, const char *label)
{
    const snap_candidate *c = &cands[i];
    float h = base_rect_h(c->rect);
    int a = c->parent;
    for (int steps = 0; a >= 0 && a < n && steps < 3; steps++, a = cands[a].parent) {
        const snap_candidate *p = &cands[a];
        if (snap__clickable(p) || base_rect_h(p->rect) > fmaxf(2.0f * h, h + 24.0f))
            return 0;
        if (snap_match_kind(label, p->text) < SNAP_MATCH_WORD)
            continue;
        for (int j = 0; j < n; j++) {
            if (j != i && snap__clickable(&cands[j]) && snap_is_ancestor(cands, n, a, j))
                return 0;
        }
        return 1;
    }
    return 0;
}

static float fit_of(base_rect r, base_rect box)
{
    float inter = base_rect_area(base_rect_intersect(r, box));
    float uni = base_rect_area(r) + base_rect_area(box) - inter;
    return uni > 0.0f ? inter / uni : 0.0f;
}

/* Index into s[] of candidate idx, -1 when it was not hit at points 1.. */
static int find_scored(const scored *s, int ns, int idx)
{
    for (int i = 0; i < ns; i++) {
        if (s[i].idx == idx)
            return i;
    }
    return -1;
}

/* 1 when candidate c holds (as a descendant) an interactive element that the
 * label names (as an icon when icon is set, else by its text or name) and that
 * was not hit in the box: the label is that element's, not c's. */
static int label_outside(const snap_candidate *cands, int n, const scored *s, int ns, int c,
                         const char *label, int icon)
{
    snap_candidate named_tmp;
    for (int j = 0; j < n; j++) {
        if (j == c || !cands[j].is_interactive || !snap_is_ancestor(cands, n, c, j))
            continue;
        if (icon ? !snap__icon_match(NAMED(j), label)
                 : snap__label_quality(NAMED(j), label) < 1.0f)
            continue;
        if (find_scored(s, ns, j) < 0)
            return 1;
    }
    return 0;
}

/* After a winner w is chosen: (1) a container whose labelled interactive
 * descendant was hit in the box gives way to the smallest such descendant,
 * unless the box fits the container better (the row the box names, with a
 * checkbox inside); (2) a <label> gives way to the form control it names
 * when that control was hit in the box (DESIGN.md "Containers", "Labels").
 * The box "fits" an element by IoU(box, rect).
 * Returns the final candidate; *why is set when it changed. */
static int refine(const snap_candidate *cands, int n, const snap_probe *probe, const scored *s,
                  int ns, int w, const char *label, int icon_stage, const char **why)
{
    snap_candidate named_tmp;
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) > 0 && !cands[w].is_iframe) {
        /* In the icon stage nothing carries the label by text: a container
         * carries the icon words of what it holds (a row with a star in it),
         * so the icon inside it counts as carrying the label as well. */
        float qw = snap__label_quality(NAMED(w), label);
        if (icon_stage && qw <= 0.0f)
            qw = ICON_QUALITY;
        int d = -1;
        for (int i = 0; i < ns; i++) {
            const snap_candidate *c = &cands[s[i].idx];
            int icon = icon_stage && snap__icon_match(NAMED(s[i].idx), label);
            if (!snap_is_ancestor(cands, n, w, s[i].idx) || c->is_iframe ||
                (!icon && !snap__label_match(NAMED(s[i].idx), label)))
                continue;
            float qd = snap__label_quality(NAMED(s[i].idx), label);
            if (icon && qd <= 0.0f)
                qd = ICON_QUALITY;
            if (qd <= 0.0f || qd < qw - QUALITY_MARGIN)
                continue;
            if (d < 0 || base_rect_area(c->rect) < base_rect_area(cands[d].rect))
                d = s[i].idx;
        }
        if (d >= 0) {
            float fw = fit_of(cands[w].rect, probe->box), fd = fit_of(cands[d].rect, probe->box);
            /* One control, two elements (issue 21, class 7): an <li> and the
             * <a> filling it, both named the label exactly, press the inner. */
            int one = snap__match_of(NAMED(d), label) == SNAP_MATCH_EXACT &&
                      snap__match_of(NAMED(w), label) == SNAP_MATCH_EXACT &&
                      base_rect_area(cands[d].rect) >= 0.5f * base_rect_area(cands[w].rect);
            if (fd >= fw || one) {
                w = d;
                *why = "the smallest control inside the container that carries the label";
            }
        }
    }
    if (str_eq(cands[w].tag, "label")) {
        int ctl = -1;
        for (int i = 0; i < ns && ctl < 0; i++) {
            const snap_candidate *c = &cands[s[i].idx];
            if (s[i].idx == w || !form_control(c) || c->is_iframe)
                continue;
            /* Wrapped by the label, or named by it (<label for>: the control's
             * accessible name is the label's text). */
            if (snap_is_ancestor(cands, n, w, s[i].idx) ||
                (c->name && c->name[0] &&
                 snap_match_kind(cands[w].text, c->name) >= SNAP_MATCH_WORD))
                ctl = s[i].idx;
        }
        if (ctl >= 0) {
            w = ctl;
            *why = "the form control the label names";
        }
    }
    return w;
}

/* A container chosen for a label that an interactive element inside it
 * carries exactly, when the box missed that element (a dialog title bar whose
 * only text is its close button's "Close", a toolbar around the box's
 * button): clicking the container would act on something else, so the answer
 * is none (abstain rather than mis-click). Returns 1 with *r set then. */
static int named_outside(const snap_candidate *cands, int n, const scored *s, int ns, int w,
                         const char *label, snap_result *r, base_rect box)
{
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) == 0 || cands[w].is_iframe ||
        !label_outside(cands, n, s, ns, w, label, 0))
        return 0;
    set_none(r, box, SNAP_PHASE_NONE, -1, ns,
             "the control the label names lies outside the box (only its container is in it)");
    return 1;
}

/* Writes a found result for candidate w into *r. */
static void set_found(snap_result *r, const snap_candidate *cands, const snap_probe *probe,
                      const scored *s, int ns, int ea, int w, snap_phase phase)
{
    int j = find_scored(s, ns, w);
    uint64_t hits = j >= 0 ? s[j].hits : 0;
    if (ea == w)
        hits |= 1; /* the centre hit it too: it may serve as the point */
    r->found = 1;
    r->cand = w;
    r->pt = choose_point(probe, &cands[w], hits);
    r->phase = phase;
    r->n_scored = ns;
}

/* Reading order of two rects: top to bottom (rows overlapping by half the
 * smaller height count as one row), then left to right. */
static int reads_before(base_rect a, base_rect b)
{
    float hmin = fminf(base_rect_h(a), base_rect_h(b));
    float overlap = fminf(a.y1, b.y1) - fmaxf(a.y0, b.y0);
    if (overlap >= 0.5f * hmin)
        return a.x0 < b.x0;
    return a.y0 < b.y0;
}

/* Settles a tie among the scored candidates with tied[i] set (indices into
 * s[]; `best` is one of them, the caller's choice). The tied candidates are
 * grouped into controls (same_unit). One control: returns best. Several:
 * when geometry is decisive (the control holding the box centre covers at
 * least DECISIVE_SHARE of the box, every other at most DECISIVE_RATIO of
 * its part) returns best if it is that control's, else that control's
 * highest-scored member; otherwise returns -1 and writes the ambiguous
 * answer to *r, listing each control's inner member (a form control rather
 * than its <label>) with a click point. */
static int settle_tie(const snap_candidate *cands, int n, const snap_probe *probe,
                      const scored *s, int ns, const int *tied, int best, int ea,
                      const char *reason, snap_result *r)
{
    int unit[SNAP_PROBE_MAX_POINTS];
    int nu = 0;
    for (int i = 0; i < ns; i++) {
        unit[i] = -1;
        if (!tied[i])
            continue;
        for (int j = 0; j < i; j++) {
            if (unit[j] < 0 || !same_unit(cands, n, s[i].idx, s[j].idx))
                continue;
            if (unit[i] < 0) {
                unit[i] = unit[j];
            } else if (unit[j] != unit[i]) {
                /* i joins two groups: they are one control. */
                int from = unit[j];
                for (int k = 0; k < i; k++) {
                    if (unit[k] == from)
                        unit[k] = unit[i];
                }
            }
        }
        if (unit[i] < 0)
            unit[i] = nu++;
    }
    /* Compact the unit numbers and take each unit's figures. */
    int map[SNAP_PROBE_MAX_POINTS], rep[SNAP_PROBE_MAX_POINTS], top[SNAP_PROBE_MAX_POINTS];
    float inter[SNAP_PROBE_MAX_POINTS];
    for (int u = 0; u < nu; u++)
        map[u] = -1;
    int m = 0, centre = -1;
    for (int i = 0; i < ns; i++) {
        if (unit[i] < 0)
            continue;
        if (map[unit[i]] < 0) {
            map[unit[i]] = m;
            rep[m] = top[m] = i;
            inter[m] = 0.0f;
            m++;
        }
        int u = map[unit[i]];
        const snap_candidate *c = &cands[s[i].idx];
        inter[u] = fmaxf(inter[u], base_rect_area(base_rect_intersect(c->rect, probe->box)));
        /* The inner member is the one pressed: not a <label> when its
         * control is there, else the smaller. */
        const snap_candidate *rc = &cands[s[rep[u]].idx];
        int lab_c = str_eq(c->tag, "label"), lab_r = str_eq(rc->tag, "label");
        if (lab_c < lab_r ||
            (lab_c == lab_r && base_rect_area(c->rect) < base_rect_area(rc->rect)))
            rep[u] = i;
        if (s[i].sigma > s[top[u]].sigma)
            top[u] = i;
        if (ea >= 0 && same_unit(cands, n, ea, s[i].idx))
            centre = u;
    }
    if (m <= 1)
        return best;
    float box_area = base_rect_area(probe->box);
    int decisive = centre >= 0 && inter[centre] >= DECISIVE_SHARE * box_area;
    for (int u = 0; decisive && u < m; u++) {
        if (u != centre && inter[u] > DECISIVE_RATIO * inter[centre])
            decisive = 0;
    }
    if (decisive)
        return unit[best] >= 0 && map[unit[best]] == centre ? best : top[centre];
    /* Ambiguous: list the controls in reading order. */
    int order[SNAP_PROBE_MAX_POINTS];
    for (int u = 0; u < m; u++) {
        int k = u;
        while (k > 0 && reads_before(cands[s[rep[u]].idx].rect, cands[s[order[k - 1]].idx].rect)) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = rep[u];
    }
    set_none(r, probe->box, SNAP_PHASE_B, -1, ns, reason);
    r->ambiguous = 1;
    r->n_alt = m < SNAP_MAX_ALT ? m : SNAP_MAX_ALT;
    for (int k = 0; k < r->n_alt; k++) {
        const scored *a = &s[order[k]];
        r->alt[k] = a->idx;
        r->alt_pt[k] = choose_point(probe, &cands[a->idx], a->hits);
    }
    return -1;
}

base_err snap_resolve(const snap_candidate *cands, int n, const snap_probe *probe,
                      const snap_intent *intent, snap_result *out, char *err)
{
    base_err e = check_input(cands, n, probe, out, err);
    if (e != BASE_OK)
        return e;
    snap_candidate named_tmp;
    snap_intent_kind kind = intent ? intent->kind : SNAP_INTENT_ANY;
    const char *label = intent ? intent->label : NULL;
    char fl[SNAP__FOLD_CAP];
    size_t label_len = snap__fold(label, fl, sizeof fl);
    base_rect box = probe->box;
    float box_area = base_rect_area(box);
    snap_result r;

    /* The distinct first-interactive elements of points 1.. (the 16 interior
     * grid points, then the candidate points), for phase B and refinement. */
    scored s[SNAP_PROBE_MAX_POINTS];
    int ns = 0, iframe = -1;
    for (int k = 1; k < probe->n_points; k++) {
        int h = first_interactive(cands, probe->stack[k], probe->n[k]);
        if (h < 0)
            continue;
        if (cands[h].is_iframe) {
            if (iframe < 0)
                iframe = h;
            continue;
        }
        int j = find_scored(s, ns, h);
        if (j < 0) {
            j = ns;
            memset(&s[ns], 0, sizeof s[ns]);
            s[ns++].idx = h;
        }
        s[j].hits |= (uint64_t)1 << k;
    }

    /* Phase A: pinpoint at the centre. */
    int ea = first_interactive(cands, probe->stack[0], probe->n[0]);
    if (ea >= 0 && cands[ea].is_iframe) {
        set_none(&r, box, SNAP_PHASE_A_ALT, ea, 0, "iframe at the centre: re-probe inside it");
        *out = r;
        return BASE_OK;
    }
    /* The centre only wins outright when no other element in the box carries
     * the label better ("Remove Copper Spur" vs "Increase Copper Spur"). */
    int centre_best = 1;
    if (ea >= 0 && label_len >= PHASE_A_MIN_LABEL) {
        float qa = snap__label_quality(NAMED(ea), label);
        for (int i = 0; i < ns && centre_best; i++) {
            if (s[i].idx == ea)
                continue;
            float qi = snap__label_quality(NAMED(s[i].idx), label);
            if (qi > qa + QUALITY_MARGIN)
                centre_best = 0;
            /* Another control carrying the label as well: a tie, which
             * phase B settles by geometry only when it is decisive. */
            else if (qi > 0.0f && qi >= qa - QUALITY_MARGIN && !same_unit(cands, n, ea, s[i].idx))
                centre_best = 0;
        }
    }
    if (ea >= 0 && label_len >= PHASE_A_MIN_LABEL && centre_best &&
        snap__label_match(NAMED(ea), label)) {
        int k = snap__chevron_count(&cands[ea]);
        /* The intent gates the shortcut: EXPAND wants an expand control, SELECT
         * must not land on one; otherwise phase B decides. */
        int ok = kind == SNAP_INTENT_EXPAND   ? k >= 1
                 : kind == SNAP_INTENT_SELECT ? !pure_expand(&cands[ea], k, label)
                                              : 1;
        if (ok) {
            const char *why = NULL;
            int w = refine(cands, n, probe, s, ns, ea, label, 0, &why);
            if (named_outside(cands, n, s, ns, w, label, &r, box)) {
                *out = r;
                return BASE_OK;
            }
            memset(&r, 0, sizeof r);
            set_found(&r, cands, probe, s, ns, ea, w, SNAP_PHASE_A);
            r.n_scored = 0;
            r.score.area = base_rect_area(base_rect_intersect(cands[w].rect, box)) / box_area;
            r.score.label = snap__label_factor(NAMED(w), label);
            r.score.chevron = 1.0f;
            r.score.total = r.score.area * r.score.label;
            snap_match m0 = snap__match_of(NAMED(ea), label), m1 = snap__match_of(NAMED(w), label);
            r.match = m1 > m0 ? m1 : m0;
            r.reason = why ? why : "pinpoint: the label matched at the centre";
            *out = r;
            return BASE_OK;
        }
    }

    /* Phase B over the distinct elements hit. */
    if (ns == 0) {
        if (iframe >= 0)
            set_none(&r, box, SNAP_PHASE_A_ALT, iframe, 0,
                     "only an iframe in the box: re-probe inside it");
        else
            set_none(&r, box, SNAP_PHASE_NONE, -1, 0, "no interactive element in the box");
        *out = r;
        return BASE_OK;
    }

    /* Area factor: the part of R & B not taken by scored interactive
     * descendants (where this element is the one hit), at least one grid cell. */
    int lead = 0;
    for (int i = 0; i < ns; i++) {
        const snap_candidate *c = &cands[s[i].idx];
        float inter = base_rect_area(base_rect_intersect(c->rect, box));
        float excl = inter;
        for (int j = 0; j < ns; j++) {
            if (j != i && snap_is_ancestor(cands, n, s[i].idx, s[j].idx))
                excl -= base_rect_area(base_rect_intersect(cands[s[j].idx].rect, box));
        }
        float floor_area = fminf(inter, box_area / 25.0f);
        s[i].a = fmaxf(excl, floor_area) / box_area;
        s[i].lambda = snap__label_factor(NAMED(s[i].idx), label);
        s[i].k = snap__chevron_count(c);
        if (s[i].a > s[lead].a)
            lead = i;
    }

    /* How well each candidate carries the label (0: not at all). When no
     * element carries it by text or name, icon words and synonyms may
     * (icons.c); when nothing does, the box geometry decides below. */
    float qmax = 0.0f, q[SNAP_PROBE_MAX_POINTS];
    int icon_stage = 0, geometry = 0;
    for (int i = 0; i < ns; i++) {
        q[i] = label_len > 0 && s[i].lambda >= SNAP__MATCH_MIN
                   ? snap__label_quality(NAMED(s[i].idx), label)
                   : 0.0f;
        if (q[i] > qmax)
            qmax = q[i];
    }
    /* The only control of a row whose text is the label (a chevron beside
     * "Canada") carries it as a person reads it, below its own name. */
    for (int i = 0; label_len > 0 && i < ns; i++) {
        if (q[i] == 0.0f && row_text_carries(cands, n, s[i].idx, label)) {
            q[i] = ROW_TEXT_QUALITY;
            s[i].lambda = fmaxf(s[i].lambda, 1.0f);
            if (q[i] > qmax)
                qmax = q[i];
        }
    }
    /* A container whose long text holds the label (a card and its heading)
     * carries it weakly: it beats elements that do not, never a match. */
    for (int i = 0; label_len > 0 && qmax < CONTAINED_QUALITY && i < ns; i++) {
        if (q[i] == 0.0f && s[i].lambda > 0.0f && snap__label_contained(NAMED(s[i].idx), label))
            q[i] = CONTAINED_QUALITY;
    }
    for (int i = 0; i < ns; i++) {
        if (q[i] > qmax)
            qmax = q[i];
    }
    int icon_elsewhere = 0;
    if (label_len > 0 && qmax == 0.0f) {
        for (int i = 0; i < ns; i++) {
            if (s[i].lambda > 0.0f && snap__icon_match(NAMED(s[i].idx), label)) {
                /* A container carries the icon words of what it holds (a row's
                 * hint includes its star's class): when the icon itself is
                 * not among the elements hit in the box, the label names
                 * that icon, not the container around the box. */
                if (label_outside(cands, n, s, ns, s[i].idx, label, 1)) {
                    icon_elsewhere = 1;
                    continue;
                }
                q[i] = ICON_QUALITY;
                s[i].lambda = 1.0f;
                qmax = ICON_QUALITY;
                icon_stage = 1;
            }
        }
        geometry = !icon_stage;
    }
    if (geometry && icon_elsewhere) {
        set_none(&r, box, SNAP_PHASE_NONE, -1, ns,
                 "the icon the label names lies outside the box (only its container is in it)");
        *out = r;
        return BASE_OK;
    }

    /* Exclusive label: once some candidate carries the expected label, the
     * others (and those carrying it clearly worse) keep only NONMATCH_WEIGHT
     * of their label factor, so a large unrelated element cannot win on area
     * alone. The expand control of a
     * compound row whose label matches keeps its factor (the chevron case),
     * except for SELECT, which never wants it. (DESIGN.md, ours.) */
    for (int i = 0; qmax > 0.0f && i < ns; i++) {
        if (q[i] >= qmax - QUALITY_MARGIN)
            continue;
        /* Only a glyph-only expand control (its text has no words: "▾", "⋮")
         * is the labelled row's chevron; a card ending in "›" whose text
         * names another city is not. */
        char ft[SNAP__FOLD_CAP];
        int glyph_only = snap__fold(cands[s[i].idx].text, ft, sizeof ft) == 0 ||
                         snap__symbol_word(cands[s[i].idx].text) != NULL;
        int keep = 0;
        for (int j = 0; kind != SNAP_INTENT_SELECT && s[i].k >= 1 && glyph_only && j < ns && !keep;
             j++)
            keep = q[j] >= qmax - QUALITY_MARGIN && compound(cands, n, s[i].idx, s[j].idx);
        /* A control whose name says something else is never pressed for
         * this label (issue 21, class 2): not by area, not as a neighbour
         * of the match. An unnamed one keeps the weak share. */
        if (!keep)
            s[i].lambda *= (q[i] == 0.0f && !snap__unnamed(NAMED(s[i].idx))) ||
                                   (q[i] > 0.0f && qmax >= 1.0f)
                               ? 0.0f
                               : NONMATCH_WEIGHT;
    }

    int row = base_rect_w(box) >= ROW_MIN_W_PX && base_rect_h(box) >= ROW_MIN_H_PX;
    int prefer_expand = 0;
    for (int i = 0; i < ns; i++) {
        float chi = 1.0f;
        switch (kind) {
        case SNAP_INTENT_ANY:
            /* E.3 on row boxes; the 6.2 cap outside compound rows (DESIGN.md). */
            if (row && s[i].k >= 1 &&
                (i == lead || s[i].a >= CAP_AREA_RATIO * s[lead].a ||
                 compound(cands, n, s[i].idx, s[lead].idx)))
                chi = chi_of(s[i].k);
            break;
        case SNAP_INTENT_EXPAND:
            /* Explicit intent: no row predicate, no cap. */
            if (s[i].k >= 1)
                chi = chi_of(s[i].k);
            break;
        case SNAP_INTENT_SELECT:
            /* Mirror of the boost for expand controls that are not the value. */
            if (pure_expand(&cands[s[i].idx], s[i].k, label))
                chi = 1.0f / chi_of(s[i].k);
            break;
        }
        s[i].chi = chi;
        s[i].sigma = s[i].a * s[i].lambda * chi;
        if (kind == SNAP_INTENT_EXPAND && s[i].k >= 1 && s[i].lambda > 0.0f)
            prefer_expand = 1;
    }

    int best = -1;
    int tied[SNAP_PROBE_MAX_POINTS];
    memset(tied, 0, sizeof tied);
    int named_otherwise = 0;
    if (geometry) {
        /* Nothing in the box carries the label: trust where the box is. The
         * control at the box centre wins (the centre click), else the one
         * whose rect is nearest the centre, the smaller on ties, not the
         * larger area: the neighbour of an unnamed icon must not win on size. */
        base_point ctr = base_rect_center(box);
        float best_d = 0.0f;
        for (int i = 0; i < ns; i++) {
            /* A value field with no words (no value, no name known) has
             * λ = 0 (it cannot be shown to carry the label), but it cannot be
             * shown not to either: geometry may pick it. */
            int unknown_field = s[i].lambda == 0.0f &&
                                snap__widget_of(&cands[s[i].idx]) == SNAP__W_VALUE &&
                                snap__unnamed(NAMED(s[i].idx));
            if ((prefer_expand && s[i].k < 1) || (s[i].sigma <= 0.0f && !unknown_field))
                continue;
            /* A control named otherwise contradicts the label (issue 21,
             * class 2): geometry only chooses among controls with no
             * words of their own. */
            if (label_len > 0 && !unknown_field && !snap__unnamed(NAMED(s[i].idx))) {
                named_otherwise = 1;
                continue;
            }
            /* A row around the box whose control of that exact name lies
             * outside the box: the box missed that control; clicking the row
             * would act on something else. */
            if (label_len > 0 && label_outside(cands, n, s, ns, s[i].idx, label, 0)) {
                icon_elsewhere = 1;
                continue;
            }
            base_rect rr = cands[s[i].idx].rect;
            float dx = fmaxf(0.0f, fmaxf(rr.x0 - ctr.x, ctr.x - rr.x1));
            float dy = fmaxf(0.0f, fmaxf(rr.y0 - ctr.y, ctr.y - rr.y1));
            float d = s[i].idx == ea ? -1.0f : sqrtf(dx * dx + dy * dy);
            tied[i] = 1;
            if (best < 0 || d < best_d ||
                (d == best_d && base_rect_area(rr) < base_rect_area(cands[s[best].idx].rect))) {
                best = i;
                best_d = d;
            }
        }
    } else {
        /* argmax sigma, first in grid order on ties (Algorithm 4's strict '>'). */
        for (int i = 0; i < ns; i++) {
            if (prefer_expand && s[i].k < 1)
                continue;
            if (s[i].sigma > 0.0f && (best < 0 || s[i].sigma > s[best].sigma))
                best = i;
            /* Tied: as good a carrier of the label as the best (any
             * control when there is no label). */
            tied[i] = s[i].sigma > 0.0f && (label_len == 0 || q[i] >= qmax - QUALITY_MARGIN);
        }
    }
    if (best < 0) {
        set_none(&r, box, SNAP_PHASE_NONE, -1, ns,
                 icon_elsewhere ? "the element the label names lies outside the box (only its "
                                  "container is in it)"
                 : named_otherwise ? "no control in the box carries the label; the ones in it "
                                     "are named otherwise"
                                   : "no candidate in the box matches the label");
        *out = r;
        return BASE_OK;
    }
    /* Several controls carry the label alike (or there is none): geometry
     * settles it only when decisive, else the answer is ambiguous. */
    if (tied[best]) {
        const char *why_amb =
            label_len == 0 ? "ambiguous: no label, and the box holds several controls"
            : geometry     ? "ambiguous: nothing in the box carries the label, and it holds "
                             "several unnamed controls"
                           : "ambiguous: the label does not tell the controls in the box apart";
        best = settle_tie(cands, n, probe, s, ns, tied, best, ea, why_amb, &r);
        if (best < 0) {
            *out = r;
            return BASE_OK;
        }
    }

    const char *why = NULL;
    int w = refine(cands, n, probe, s, ns, s[best].idx, label, icon_stage, &why);
    if (!geometry && named_outside(cands, n, s, ns, w, label, &r, box)) {
        *out = r;
        return BASE_OK;
    }
    memset(&r, 0, sizeof r);
    set_found(&r, cands, probe, s, ns, ea, w, SNAP_PHASE_B);
    r.score.area = s[best].a;
    r.score.label = s[best].lambda;
    r.score.chevron = s[best].chi;
    r.score.total = s[best].sigma;
    if (label_len == 0) {
        r.match = SNAP_MATCH_NONE;
    } else if (geometry) {
        r.match = SNAP_MATCH_GEOMETRY;
    } else {
        snap_match m0 = snap__match_of(NAMED(s[best].idx), label);
        snap_match m1 = snap__match_of(NAMED(w), label);
        r.match = m1 > m0 ? m1 : m0;
        if (icon_stage && q[best] == ICON_QUALITY && r.match < SNAP_MATCH_ICON)
            r.match = SNAP_MATCH_ICON;
        if (q[best] == CONTAINED_QUALITY && r.match < SNAP_MATCH_SUBSTRING)
            r.match = SNAP_MATCH_SUBSTRING;
    }
    r.reason = why        ? why
               : geometry ? "geometry: no element in the box carries the label; nearest the centre"
               : icon_stage ? "icon: the label names the icon the control carries"
                            : "grid: best of the scored candidates";
    *out = r;
    return BASE_OK;
}

int snap_neighbour_wanted(const snap_intent *intent, const snap_result *res)
{
    if (!intent || !res || res->found || res->ambiguous || res->phase == SNAP_PHASE_A_ALT)
        return 0;
    char fl[SNAP__FOLD_CAP];
    return snap__fold(intent->label, fl, sizeof fl) > 0 || snap__symbol_word(intent->label) != NULL;
}

base_rect snap_neighbour_box(base_rect box, float vw, float vh)
{
    float mx = fminf(fmaxf(base_rect_w(box), SNAP_NEIGHBOUR_MIN_PX), SNAP_NEIGHBOUR_MAX_PX);
    float my = fminf(fmaxf(base_rect_h(box), SNAP_NEIGHBOUR_MIN_PX), SNAP_NEIGHBOUR_MAX_PX);
    base_rect g = {box.x0 - mx, box.y0 - my, box.x1 + mx, box.y1 + my};
    if (vw > 0.0f && vh > 0.0f)
        g = base_rect_intersect(g, (base_rect){0.0f, 0.0f, vw, vh});
    return g;
}

int snap_neighbour_take(snap_result *res2)
{
    if (!res2 || !res2->found || res2->match != SNAP_MATCH_EXACT)
        return 0;
    res2->reason = "neighbour: nothing in the box carries the label; the control next to it does";
    return 1;
}

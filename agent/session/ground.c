/* agent/session/ground.c: the grounding path of a named target — gate, box
 * (snap_pick_box), fresh vision while the page still changes, snap — and
 * what the hand's answer becomes in the record; the page's rendered text
 * for text tools.
 *
 * agent__ground: the gate decides procedural or declarative and hands back
 * an epoch; the box is chosen in it by vision index and/or label; when the
 * epoch does not hold it (an autocomplete list after its debounce, a new
 * page after a navigation) a new prefetch is scheduled and waited for,
 * until the call's timeout. The box then goes to perc_snap_box with the
 * intent derived from the verb; when the gate said procedural, the epoch's
 * element for the box is tried first (agent/session/ground_epoch.c) and the snapper
 * probes only when that element is refused.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "agent/session/agent_int.h"
#include "agent/session/js.h"
#include "agent/session/ground_int.h"
#include "agent/session/session_int.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/interrupt.h"
#include "cascade/gate.h"

/* ---- grounding -------------------------------------------------------------- */

/* Rank of a label match for choosing a box, as snap_pick_box ranks it
 * (0 = none). */
static int match_rank(const char *want, const char *have)
{
    snap_match m = snap_match_kind(want, have);
    return m >= SNAP_MATCH_FUZZY ? (int)m - (int)SNAP_MATCH_FUZZY + 1 : 0;
}

/* The name of the element enrichment matched to box b, when b's centre lies
 * on it; NULL otherwise. */
static const char *element_name(const perc_epoch *e, const perc_box *b)
{
    int di = b->dom_index;
    if (!e->map || di < 0 || di >= e->n_map ||
        !base_rect_contains(e->map[di].r, base_rect_center(b->r)))
        return NULL;
    return e->map[di].label;
}

/* Index of the best box for t in e, or -1; *source says how it was chosen
 * (the snapper's box chooser, snap_pick_box). A provider that labels what
 * it sees (pixel's OCR) can leave a target with no box reading as it (an
 * icon button reads as nothing) or with several reading alike (a "Select"
 * on every result row): then the element enrichment matched to each box
 * decides, by its name ("element"; the box's label stays as it was read). */
static int choose_box(const perc_epoch *e, const agent_target *t, const char **source)
{
    if (!e || e->n <= 0)
        return -1;
    snap_box_cand *c = base_calloc((size_t)e->n, sizeof *c);
    if (!c)
        return -1;
    for (int i = 0; i < e->n; i++)
        c[i] = (snap_box_cand){e->boxes[i].label, e->boxes[i].r, e->boxes[i].id};
    int k = snap_pick_box(c, e->n, t->label, t->index, source);
    if (!t->label || !t->label[0] || !e->map || (k >= 0 && strcmp(*source, "label") != 0)) {
        base_free(c);
        return k;
    }
    /* The boxes tied with the best label match (all of them when none
     * matches), by their elements' names. */
    int best = k >= 0 ? match_rank(t->label, e->boxes[k].label) : 0;
    int tied = 0, any = 0;
    for (int i = 0; i < e->n; i++) {
        const char *name = element_name(e, &e->boxes[i]);
        int same = (k < 0 || match_rank(t->label, e->boxes[i].label) == best) && name;
        c[i].label = same ? name : "";
        tied += k >= 0 && match_rank(t->label, e->boxes[i].label) == best;
        any |= same;
    }
    if (any && (k < 0 || (tied > 1 && best < match_rank(t->label, t->label)))) {
        const char *by = NULL;
        int j = snap_pick_box(c, e->n, t->label, 0, &by);
        if (j >= 0) {
            k = j;
            *source = "element";
        }
    }
    base_free(c);
    return k;
}

/* The boxes of e that a label names as well as box k (same match rank, by
 * the box label or, when source is "element", by the element's name), one
 * per control (a box whose centre lies in another's rect is that control:
 * an <li> and its <a>; plain text beside a control named alike is its label
 * and left out). Writes up to SNAP_MAX_ALT box indices and returns their
 * number (k may be left out for the control its text names): 2 or more
 * means the label does not single out one control (issue 21, class 1). */
static int box_ties(const perc_epoch *e, int k, const char *label, const char *source, int *out)
{
    int by_el = strcmp(source, "element") == 0;
    const char *nk = by_el ? element_name(e, &e->boxes[k]) : e->boxes[k].label;
    int best = match_rank(label, nk);
    int n = 0;
    out[n++] = k;
    if (best <= 0)
        return n;
    for (int i = 0; i < e->n && n < SNAP_MAX_ALT; i++) {
        const char *ni = by_el ? element_name(e, &e->boxes[i]) : e->boxes[i].label;
        if (i == k || !ni || match_rank(label, ni) != best)
            continue;
        int same = 0;
        for (int j = 0; j < n && !same; j++) {
            base_rect a = e->boxes[i].r, b = e->boxes[out[j]].r;
            same = base_rect_contains(a, base_rect_center(b)) ||
                   base_rect_contains(b, base_rect_center(a));
        }
        if (!same)
            out[n++] = i;
    }
    /* Plain text named like a control is that control's label (the words
     * beside a painted checkbox): the controls are the candidates. */
    int controls = 0;
    for (int j = 0; j < n; j++)
        controls += strcmp(e->boxes[out[j]].kind, "text") != 0;
    if (controls > 0 && controls < n) {
        int m = 0;
        for (int j = 0; j < n; j++) {
            if (strcmp(e->boxes[out[j]].kind, "text") != 0)
                out[m++] = out[j];
        }
        n = m;
    }
    return n;
}

void agent__grounded_fini(agent__grounded *g)
{
    perc_epoch_release(g->epoch);
    memset(g, 0, sizeof *g);
}



int agent__toggle_want(const char *verb)
{
    static const struct {
        const char *w;
        int want;
    } verbs[] = {{"check", 1},  {"tick", 1},  {"uncheck", 0}, {"untick", 0},
                 {"clear", 0},  {"toggle", 2}};
    for (size_t i = 0; verb && i < sizeof verbs / sizeof verbs[0]; i++) {
        size_t n = strlen(verbs[i].w);
        if (strncasecmp(verb, verbs[i].w, n) == 0 && (verb[n] == '\0' || verb[n] == ' '))
            return verbs[i].want;
    }
    return -1;
}

static int toggle_kind(const char *kind)
{
    return strcmp(kind, "checkbox") == 0 || strcmp(kind, "radio") == 0 ||
           strcmp(kind, "switch") == 0 || strcmp(kind, "menuitemcheckbox") == 0 ||
           strcmp(kind, "menuitemradio") == 0;
}

/* Vertical overlap of a and b as a share of the lower one's height. */
static float row_overlap(base_rect a, base_rect b)
{
    float h = fminf(base_rect_h(a), base_rect_h(b));
    float o = fminf(a.y1, b.y1) - fmaxf(a.y0, b.y0);
    return h > 0.0f ? o / h : 0.0f;
}

#define ROW_TOGGLE_GAP_PX 160.0f /* text to its checkbox, at most */

/* The toggle on text box k's row: the checkbox / radio / switch box sharing
 * its row (overlapping by half the smaller height), nearest it (at most
 * ROW_TOGGLE_GAP_PX apart), with no other control of the row between
 * them. Returns its index, -1 when none, -2 when two lie at the same
 * distance (pair[0], pair[1] get them). */
static int row_toggle(const perc_epoch *e, int k, int pair[2])
{
    base_rect L = e->boxes[k].r;
    int best = -1, second = -1;
    float best_gap = 0.0f;
    for (int i = 0; i < e->n; i++) {
        base_rect T = e->boxes[i].r;
        if (i == k || !toggle_kind(e->boxes[i].kind) || row_overlap(L, T) < 0.5f)
            continue;
        /* A toggle inside the text's box (a label wrapping its checkbox). */
        float gap = fmaxf(0.0f, fmaxf(L.x0 - T.x1, T.x0 - L.x1));
        if (gap > ROW_TOGGLE_GAP_PX)
            continue;
        /* Another control of the row between them breaks the pair. */
        float gx0 = fminf(L.x1, T.x1), gx1 = fmaxf(L.x0, T.x0);
        int blocked = 0;
        for (int j = 0; j < e->n && !blocked && gap > 0.0f; j++) {
            base_rect X = e->boxes[j].r;
            if (j == i || j == k || base_rect_contains(X, base_rect_center(L)) ||
                base_rect_contains(X, base_rect_center(T)))
                continue;
            blocked = row_overlap(L, X) >= 0.5f && X.x0 >= gx0 - 1.0f && X.x1 <= gx1 + 1.0f;
        }
        if (blocked)
            continue;
        if (best < 0 || gap < best_gap - 4.0f) {
            best = i;
            second = -1;
            best_gap = gap;
        } else if (gap <= best_gap + 4.0f) {
            second = i;
        }
    }
    if (best >= 0 && second >= 0) {
        pair[0] = best;
        pair[1] = second;
        return -2;
    }
    return best;
}

/* Colour words a target may lead with ("the green Choose"): the names
 * agent_colours.js gives computed colours. */
static const char *const COLOURS[] = {"red",    "orange", "yellow", "green", "teal",  "blue",
                                      "purple", "pink",   "brown",  "black", "white", "gray",
                                      "grey"};

/* When label is "[the] COLOUR rest" with a colour word of COLOURS, copies
 * the word ("grey" as "gray") to colour and rest to rest and returns 1. */
static int parse_colour(const char *label, char *colour, size_t ccap, char *rest, size_t rcap)
{
    if (!label)
        return 0;
    const char *p = label;
    while (*p == ' ')
        p++;
    if (strncasecmp(p, "the ", 4) == 0)
        p += 4;
    for (size_t i = 0; i < sizeof COLOURS / sizeof COLOURS[0]; i++) {
        size_t n = strlen(COLOURS[i]);
        if (strncasecmp(p, COLOURS[i], n) != 0 || p[n] != ' ')
            continue;
        const char *r = p + n;
        while (*r == ' ')
            r++;
        if (!*r)
            return 0;
        snprintf(colour, ccap, "%s", strcmp(COLOURS[i], "grey") == 0 ? "gray" : COLOURS[i]);
        snprintf(rest, rcap, "%s", r);
        return 1;
    }
    return 0;
}

/* "Delete in the row of Alice", "Edit next to Invoice 7": copies what
 * names the control to rest and the row's text to ctx and returns 1. */
static int parse_row_context(const char *label, char *rest, size_t rcap, char *ctx, size_t ccap)
{
    static const char *const seps[] = {" in the row of ", " in the row with ", " in the row for ",
                                       " in row ", " next to ", " beside "};
    if (!label)
        return 0;
    for (size_t i = 0; i < sizeof seps / sizeof seps[0]; i++) {
        size_t n = strlen(seps[i]);
        for (const char *p = label; *p; p++) {
            if (strncasecmp(p, seps[i], n) != 0)
                continue;
            const char *c = p + n;
            while (*c == ' ' || *c == '\'' || *c == '"')
                c++;
            if (p == label || !*c)
                return 0;
            snprintf(rest, rcap, "%.*s", (int)(p - label), label);
            snprintf(ctx, ccap, "%s", c);
            size_t cl = strlen(ctx);
            while (cl > 0 && (ctx[cl - 1] == '\'' || ctx[cl - 1] == '"' || ctx[cl - 1] == ' '))
                ctx[--cl] = '\0';
            return cl > 0;
        }
    }
    return 0;
}

/* "Delete link", "Subscribe button": the control type a label ends with,
 * as the vision box kinds it covers (|-separated), and the rest. */
static int parse_kind_word(const char *label, char *rest, size_t rcap, const char **kinds)
{
    static const struct {
        const char *word, *kinds;
    } words[] = {{"button", "button"},          {"link", "link"},
                 {"checkbox", "checkbox|switch"}, {"radio", "radio"},
                 {"tab", "tab"},                {"field", "input|textbox|searchbox|combobox"},
                 {"box", "input|textbox|searchbox|combobox"},
                 {"dropdown", "select|combobox|listbox"}, {"menu item", "menuitem|option"}};
    size_t ll = label ? strlen(label) : 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (ll <= n + 1 || label[ll - n - 1] != ' ' || strcasecmp(label + ll - n, words[i].word) != 0)
            continue;
        const char *st = label;
        if (strncasecmp(st, "the ", 4) == 0)
            st += 4;
        size_t rl = (size_t)(label + ll - n - 1 - st);
        if (rl == 0)
            return 0;
        snprintf(rest, rcap, "%.*s", (int)rl, st);
        *kinds = words[i].kinds;
        return 1;
    }
    return 0;
}

/* 1 when kind is one of the |-separated kinds. */
static int kind_in(const char *kind, const char *kinds)
{
    size_t k = strlen(kind);
    for (const char *p = kinds; p && *p;) {
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == k && strncmp(p, kind, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* Keeps the boxes of ties[0..nt-1] that the qualifiers allow, in order:
 * colour (the element's background colour word, else, when no box has it
 * as background, its text colour), ctx (its row holds that text), kinds
 * (its box kind). Writes what each box was to seen, for the message.
 * Returns the count kept, -1 when the page could not be read (err set). */
static int filter_qualified(fovea_session *se, const perc_epoch *ep, int *ties, int nt,
                            const char *colour, const char *ctx, const char *kinds, char *seen,
                            size_t seen_cap, char *err)
{
    int keep[SNAP_MAX_ALT], m = 0;
    size_t used = 0;
    seen[0] = '\0';
    if (kinds) {
        for (int k = 0; k < nt; k++) {
            const perc_box *b = &ep->boxes[ties[k]];
            if (kind_in(b->kind, kinds))
                keep[m++] = ties[k];
            int w = snprintf(seen + used, seen_cap - used, "%s[V%d] %s", k ? ", " : "", b->id,
                             b->kind);
            used = w > 0 && (size_t)w < seen_cap - used ? used + (size_t)w : seen_cap - 1;
        }
        for (int k = 0; k < m; k++)
            ties[k] = keep[k];
        nt = m;
        if (nt == 0 || (!colour[0] && !ctx[0]))
            return nt;
        m = 0;
        used = 0;
        seen[0] = '\0';
    }
    cJSON *xps = cJSON_CreateArray();
    for (int k = 0; xps && k < nt; k++) {
        const perc_box *b = &ep->boxes[ties[k]];
        const char *xp = b->dom_index >= 0 && b->dom_index < ep->n_map &&
                                 !ep->map[b->dom_index].frame_id[0]
                             ? ep->map[b->dom_index].xpath
                             : "";
        cJSON *x = cJSON_CreateString(xp);
        if (!x || !cJSON_AddItemToArray(xps, x)) {
            cJSON_Delete(x);
            cJSON_Delete(xps);
            xps = NULL;
        }
    }
    cJSON *cj = cJSON_CreateString(ctx);
    char *arg = xps ? cJSON_PrintUnformatted(xps) : NULL;
    char *carg = cj ? cJSON_PrintUnformatted(cj) : NULL;
    cJSON_Delete(xps);
    cJSON_Delete(cj);
    const char *js = (const char *)fovea_js_agent_qualify;
    size_t n = arg && carg ? strlen(js) + strlen(arg) + strlen(carg) + 8 : 0;
    char *expr = n ? base_malloc(n) : NULL;
    if (expr)
        snprintf(expr, n, "(%s)(%s,%s)", js, arg, carg);
    cJSON_free(arg);
    cJSON_free(carg);
    if (!expr) {
        snprintf(err, BASE_ERRBUF_SIZE, "out of memory");
        return -1;
    }
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate_in(se->page, NULL, CDP_CTX_FOVEA, expr, &v, 3000, err);
    base_free(expr);
    if (e || !cJSON_IsArray(v) || cJSON_GetArraySize(v) != nt) {
        if (!e)
            snprintf(err, BASE_ERRBUF_SIZE, "the page gave no answer");
        cJSON_Delete(v);
        return -1;
    }
    int ok[SNAP_MAX_ALT];
    for (int k = 0; k < nt; k++) {
        const cJSON *it = cJSON_GetArrayItem(v, k);
        ok[k] = !ctx[0] || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "row"));
        const char *bg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "bg"));
        int w = snprintf(seen + used, seen_cap - used, "%s[V%d] %s", k ? ", " : "",
                         ep->boxes[ties[k]].id,
                         colour[0] ? (bg && bg[0] ? bg : "no colour")
                                   : ok[k] ? "in that row" : "in another row");
        used = w > 0 && (size_t)w < seen_cap - used ? used + (size_t)w : seen_cap - 1;
    }
    for (int pass = 0; pass < (colour[0] ? 2 : 1) && m == 0; pass++) {
        for (int k = 0; k < nt; k++) {
            const char *c = cJSON_GetStringValue(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(v, k), pass ? "fg" : "bg"));
            if (ok[k] && (!colour[0] || (c && strcmp(c, colour) == 0)))
                keep[m++] = ties[k];
        }
    }
    for (int k = 0; k < m; k++)
        ties[k] = keep[k];
    cJSON_Delete(v);
    return m;
}

/* Gate, box, snap for target t. do_snap 0 stops after the box (wait_for).
 * Returns 1 with *g filled, 0 with r's failure set. */
int agent__ground(fovea_session *se, const agent_step *s, const agent_target *t, snap_intent_kind kind,
                  int do_snap, agent_step_record *r, agent__grounded *g)
{
    memset(g, 0, sizeof *g);
    /* "second Delete", "the last Delete": the ordinal picks one of the
     * controls the rest of the label names alike, in reading order. */
    char qrest[256];
    agent_target tq;
    int ordinal = t->label && t->index <= 0 ? snap_parse_ordinal(t->label, qrest, sizeof qrest) : 0;
    char err[BASE_ERRBUF_SIZE] = "";
    double deadline = base_monotime_ms() + s->timeout_ms;
    double t0 = base_monotime_ms();
    cascade_gate_result gr;
    memset(&gr, 0, sizeof gr);
    base_err e = cascade_gate(se->page, se->pf, se->ticket, s->critical, NULL, &gr, err);
    r->ms.gate += base_monotime_ms() - t0;
    if (e) {
        agent__failf(r, "error", "gate: %s", err);
        return 0;
    }
    agent__copy(r->gate, sizeof r->gate,
         gr.mode == CASCADE_GATE_PROCEDURAL ? "procedural" : "declarative");
    agent__copy(r->gate_why, sizeof r->gate_why, gr.why);
    r->vision_lag = gr.vision_lag;
    r->ms.fingerprint += gr.now.ms;
    perc_epoch *ep = gr.epoch;
    /* "First name" and "Last name" are names, not ordinals: the ordinal
     * reading applies only when no box carries the whole label. */
    for (int i = 0; ordinal != 0 && ep && i < ep->n; i++) {
        const char *en = element_name(ep, &ep->boxes[i]);
        if (snap_text_contains(ep->boxes[i].label, t->label) ||
            (en && snap_text_contains(en, t->label)))
            ordinal = 0;
    }
    if (ordinal != 0) {
        tq = *t;
        tq.label = qrest;
        t = &tq;
    }
    /* "the green Choose": a colour word picks among the controls the rest
     * names alike, by their computed colour (issue 21, class 5); a box
     * carrying the whole label ("Blue Ridge tour") is just that name. */
    /* "Delete in the row of Alice" and "the Delete link" likewise, by the
     * row's text and the box kind. */
    char colour[16] = "", ctx[128] = "", crest[256], q1[256], q2[256];
    const char *kinds = NULL;
    if (ordinal == 0 && t->label && t->index <= 0) {
        int whole = 0;
        for (int i = 0; ep && i < ep->n && !whole; i++) {
            const char *en = element_name(ep, &ep->boxes[i]);
            whole = snap_text_contains(ep->boxes[i].label, t->label) ||
                    (en && snap_text_contains(en, t->label));
        }
        char *lab = t->label;
        if (!whole && parse_row_context(lab, q1, sizeof q1, ctx, sizeof ctx))
            lab = q1;
        if (!whole && parse_kind_word(lab, q2, sizeof q2, &kinds))
            lab = q2;
        if (!whole && parse_colour(lab, colour, sizeof colour, crest, sizeof crest))
            lab = crest;
        if (lab != t->label) {
            tq = *t;
            tq.label = lab;
            t = &tq;
        }
    }
    int qualified = colour[0] || ctx[0] || kinds;
    const char *source = "";
    int bi = choose_box(ep, t, &source);
    /* Not in this epoch: the page may still be changing. Ask for fresh
     * vision until the box shows up or the step's time is spent. */
    int revealed = 0;
    while (bi < 0 && base_monotime_ms() < deadline && agent__page_ok(se) && !base_interrupted()) {
        /* Once per step: an item scrolled out inside a list box has no box
         * until the box is scrolled (agent/session/reveal.c). */
        if (!revealed && t->label && t->label[0]) {
            revealed = 1;
            agent__reveal(se->page, t->label);
        }
        agent__schedule_until(se, r->desc, deadline);
        double w0 = base_monotime_ms();
        perc_epoch *next = fovea_session_wait_epoch(se, (int)(deadline - base_monotime_ms()) + 1);
        r->ms.gate += base_monotime_ms() - w0;
        if (!next && base_interrupted())
            break;
        if (!next) {
            char why[200] = "";
            perc_prefetch_last_error(se->pf, why, sizeof why);
            if (why[0]) {
                perc_epoch_release(ep);
                /* "vision endpoint: timed out after N ms" / "rate-limited
                 * (Retry-After N s)" already names the part that failed. */
                int endpoint = strncmp(why, "vision ", 7) == 0; /* the openai provider's */
                agent__failf(r, endpoint ? "vision" : "error", "%s%s", endpoint ? "" : "vision: ", why);
                return 0;
            }
            break;
        }
        perc_epoch_release(ep);
        ep = next;
        agent__copy(r->gate, sizeof r->gate, "declarative");
        agent__copy(r->gate_why, sizeof r->gate_why, "target not in the epoch: waited for fresh vision");
        bi = choose_box(ep, t, &source);
        if (bi < 0)
            base_interrupt_sleep_ms(50);
    }
    if (ep) {
        agent__shot_masks(se, ep);
        r->epoch_id = ep->id;
        r->n_boxes = ep->n;
        /* Stage times of the vision pass count when this step needed it. */
        if (ep->id != se->last_epoch && strcmp(r->gate, "declarative") == 0) {
            r->ms.capture = ep->capture_ms;
            r->ms.decode = ep->decode_ms;
            r->ms.vision = ep->vision_ms + ep->enrich_ms;
        }
        se->last_epoch = ep->id;
    }
    if (bi < 0 && agent__stopped(r)) {
        g->epoch = ep;
        g->box = -1;
        return 0;
    }
    if (bi < 0) {
        if (ep)
            agent__suggest(ep, t, r);
        agent__failf(r, "not_found", "no box for %s%s%s in %d vision boxes (epoch %llu)",
              t->label ? "'" : "", t->label ? t->label : "", t->label ? "'" : "",
              ep ? ep->n : 0, ep ? (unsigned long long)ep->id : 0ULL);
        if (t->index > 0 && !t->label)
            snprintf(r->outcome + strlen(r->outcome), sizeof r->outcome - strlen(r->outcome),
                     " [V%d]", t->index);
        g->epoch = ep;
        g->box = -1;
        return 0;
    }
    /* "check 'Walk the dog'": the text names the row; the verb wants its
     * checkbox (issue 21, class 5). */
    int via_row = 0;
    if (s->verb && agent__toggle_want(s->verb) >= 0 && !toggle_kind(ep->boxes[bi].kind)) {
        int pair[2] = {-1, -1};
        int tb = row_toggle(ep, bi, pair);
        if (tb == -2) {
            r->n_alternatives = 0;
            for (int k = 0; k < 2; k++) {
                const perc_box *x = &ep->boxes[pair[k]];
                snprintf(r->alternatives[r->n_alternatives++], sizeof r->alternatives[0],
                         "[V%d] <%s> '%.80s' at (%.0f,%.0f)", x->id, x->kind, x->label,
                         base_rect_center(x->r).x, base_rect_center(x->r).y);
            }
            agent__failf(r, "ambiguous",
                         "'%.60s' lies between two %ss at the same distance: name one by its "
                         "mark",
                         t->label ? t->label : "", ep->boxes[pair[0]].kind);
            g->epoch = ep;
            g->box = -1;
            return 0;
        }
        if (tb >= 0) {
            bi = tb;
            via_row = 1;
            source = "row";
        }
    }
    const perc_box *b = &ep->boxes[bi];
    r->box_id = b->id;
    agent_secrets_scrub_copy(se->sec, r->box_label, sizeof r->box_label, b->label);
    agent__copy(r->box_source, sizeof r->box_source, source);
    r->box = b->r;
    g->epoch = ep;
    g->box = bi;
    if (!do_snap)
        return 1;
    /* Named by label alone and several controls carry it alike ("Delete"
     * on every row): nothing is pressed; the step fails "ambiguous" and
     * lists them by mark, for the caller to name one ([Vn], a qualifier). */
    /* Without a tie check the chosen box is the only one (ties[0]). */
    int ties[SNAP_MAX_ALT];
    ties[0] = bi;
    int nt = !via_row && (t->index <= 0 || ordinal != 0 || qualified) && t->label && t->label[0] &&
                     (strcmp(source, "label") == 0 || strcmp(source, "element") == 0)
                 ? box_ties(ep, bi, t->label, source, ties)
                 : 1;
    if (nt >= 2 || ordinal != 0) {
        /* In reading order, like the snapper's list. */
        for (int a = 1; a < nt; a++) {
            for (int b2 = a; b2 > 0; b2--) {
                base_rect p = ep->boxes[ties[b2 - 1]].r, q = ep->boxes[ties[b2]].r;
                if (q.y0 < p.y0 - 0.5f * base_rect_h(p) ||
                    (fabsf(q.y0 - p.y0) <= 0.5f * base_rect_h(p) && q.x0 < p.x0)) {
                    int tmp = ties[b2];
                    ties[b2] = ties[b2 - 1];
                    ties[b2 - 1] = tmp;
                }
            }
        }
    }
    if (qualified) {
        char seen[200], cerr[BASE_ERRBUF_SIZE] = "";
        int m = filter_qualified(se, ep, ties, nt, colour, ctx, kinds, seen, sizeof seen, cerr);
        if (m < 0) {
            agent__failf(r, "error", "qualifiers of '%.60s': %s", t->label, cerr);
            return 0;
        }
        if (m == 0) {
            agent__failf(r, "not_found", "no %s%s'%.60s'%s%s%s%s: %s", colour, colour[0] ? " " : "",
                         t->label, kinds ? " " : "", kinds ? kinds : "",
                         ctx[0] ? " in the row of " : "", ctx, seen);
            return 0;
        }
        nt = m;
        if (nt == 1)
            bi = -1; /* taken below as the control its colour names */
    }
    if (ordinal == 0 && nt == 1 && ties[0] != bi) {
        /* The box chosen was the text that names a control: take the control. */
        bi = ties[0];
        b = &ep->boxes[bi];
        r->box_id = b->id;
        agent_secrets_scrub_copy(se->sec, r->box_label, sizeof r->box_label, b->label);
        r->box = b->r;
        g->box = bi;
    }
    if (ordinal != 0) {
        int pick = ordinal > 0 ? ordinal - 1 : nt - 1;
        if (pick >= nt) {
            agent__failf(r, "not_found", "'%.60s' names %d control%s; there is no %d%s", t->label,
                         nt, nt == 1 ? "" : "s", ordinal,
                         ordinal == 1 ? "st" : ordinal == 2 ? "nd" : ordinal == 3 ? "rd" : "th");
            return 0;
        }
        bi = ties[pick];
        b = &ep->boxes[bi];
        r->box_id = b->id;
        agent_secrets_scrub_copy(se->sec, r->box_label, sizeof r->box_label, b->label);
        r->box = b->r;
        g->box = bi;
        nt = 1;
    }
    if (nt >= 2) {
        perc_snap *sn = &g->snap;
        memset(sn, 0, sizeof *sn);
        sn->res.ambiguous = 1;
        sn->res.reason = "ambiguous: the label names several controls alike";
        char list[160] = "";
        size_t used = 0;
        r->n_alternatives = 0;
        for (int k = 0; k < nt; k++) {
            const perc_box *x = &ep->boxes[ties[k]];
            perc_snap_alt *al = &sn->alt[sn->n_alt++];
            agent__copy(al->tag, sizeof al->tag, x->kind);
            agent__copy(al->role, sizeof al->role, x->kind);
            agent_secrets_scrub_copy(se->sec, al->name, sizeof al->name, x->label);
            al->rect = x->r;
            al->pt = base_rect_center(x->r);
            int n = snprintf(list + used, sizeof list - used, "%s[V%d]", k ? ", " : "", x->id);
            used = n > 0 && (size_t)n < sizeof list - used ? used + (size_t)n : sizeof list - 1;
            if (r->n_alternatives < 4)
                snprintf(r->alternatives[r->n_alternatives++], sizeof r->alternatives[0],
                         "[V%d] '%.100s' at (%.0f,%.0f)", x->id, al->name, al->pt.x, al->pt.y);
        }
        agent__failf(r, "ambiguous", "'%.60s' names %d controls alike: %s; name one by its mark",
                     t->label, nt, list);
        return 0;
    }
    /* On the row's toggle the label was the text beside it: the snapper
     * takes the toggle by its own name (often none). */
    snap_intent in = {t->label && !via_row ? t->label : b->label, via_row ? SNAP_INTENT_ANY : kind};
    agent__copy(r->intent, sizeof r->intent, snap_intent_name(kind));
    t0 = base_monotime_ms();
    /* The page still equals the epoch: its element, checked in one
     * evaluate, before the snapper's probe (agent/session/ground_epoch.c). */
    int took = 0;
    perc_proc pv = {PERC_PROC_HIT, "", 0};
    if (strcmp(r->gate, "procedural") == 0) {
        took = agent__snap_procedural(se->page, ep, bi, &in, se->o.procedural, se->o.seed,
                                      r, &g->snap, &pv, err);
        if (took < 0) {
            r->ms.snap += base_monotime_ms() - t0;
            agent__failf(r, "error", "snap: %s", err);
            return 0;
        }
    }
    e = took ? BASE_OK : perc_snap_box(se->page, b->r, &in, 0, &g->snap, err);
    r->ms.snap += base_monotime_ms() - t0;
    if (e) {
        agent__failf(r, "error", "snap: %s", err);
        return 0;
    }
    const perc_snap *sn = &g->snap;
    r->snap = *sn; /* the record keeps the snapper's answer whole */
    agent__copy(r->phase, sizeof r->phase, snap_phase_name(sn->res.phase));
    r->pt = sn->pt;
    if (!sn->found && pv.outcome == PERC_PROC_COVERED) {
        /* The epoch's element is there, in place, under something that
         * takes the click: the snapper's empty box says less than that. */
        agent__failf(r, "covered", "%.200s", pv.detail);
        return 0;
    }
    if (!sn->found && sn->res.ambiguous && sn->n_alt > 0) {
        /* Nothing pressed: the label does not say which of these was
         * meant. The step fails "ambiguous" and names them, so the model
         * (or the task's author) can pick one by its mark or point. */
        char list[200] = "";
        size_t used = 0;
        for (int k = 0; k < sn->n_alt && used + 1 < sizeof list; k++) {
            const perc_snap_alt *a = &sn->alt[k];
            int n = snprintf(list + used, sizeof list - used, "%s<%s> '%.24s'", k ? ", " : "",
                             a->tag, a->name);
            used = n > 0 && (size_t)n < sizeof list - used ? used + (size_t)n : sizeof list - 1;
        }
        agent__failf(r, "ambiguous", "'%.40s' does not tell apart %d controls in [V%d]: %s",
                     in.label ? in.label : "", sn->n_alt, b->id, list);
        r->n_alternatives = 0;
        for (int k = 0; k < sn->n_alt && r->n_alternatives < 4; k++) {
            const perc_snap_alt *a = &sn->alt[k];
            int v = agent__mark_of(ep, a->rect);
            char mark[16] = "";
            if (v > 0)
                snprintf(mark, sizeof mark, "[V%d] ", v);
            snprintf(r->alternatives[r->n_alternatives++], sizeof r->alternatives[0],
                     "%s<%s> '%.80s' at (%.0f,%.0f)", mark, a->tag, a->name, a->pt.x, a->pt.y);
        }
        return 0;
    }
    if (!sn->found) {
        agent__failf(r, "not_found", "snapper found no element in [V%d] '%.60s': %s", b->id, b->label,
              sn->res.reason);
        return 0;
    }
    return 1;
}

int agent__mark_of(const perc_epoch *e, base_rect rect)
{
    /* The smallest vision box whose centre lies on the element. */
    int best = 0;
    float best_a = 0.0f;
    for (int k = 0; e && k < e->n; k++) {
        const perc_box *b = &e->boxes[k];
        if (!base_rect_contains(rect, base_rect_center(b->r)))
            continue;
        float a = base_rect_area(b->r);
        if (!best || a < best_a) {
            best = b->id;
            best_a = a;
        }
    }
    return best;
}

cJSON *agent__ambiguous_json(const perc_snap *sn, const perc_epoch *e)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(d, "candidates");
    for (int k = 0; arr && k < sn->n_alt; k++) {
        const perc_snap_alt *a = &sn->alt[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", a->name);
        cJSON_AddStringToObject(o, "role", a->role[0] ? a->role : a->tag);
        int v = agent__mark_of(e, a->rect);
        if (v > 0) {
            char mark[16];
            snprintf(mark, sizeof mark, "[V%d]", v);
            cJSON_AddStringToObject(o, "mark", mark);
        }
        cJSON *rc = cJSON_AddArrayToObject(o, "rect");
        const float rv[4] = {a->rect.x0, a->rect.y0, a->rect.x1, a->rect.y1};
        for (int i = 0; rc && i < 4; i++)
            cJSON_AddItemToArray(rc, cJSON_CreateNumber((double)(int)rv[i]));
        cJSON *pt = cJSON_AddArrayToObject(o, "point");
        if (pt) {
            cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)(int)a->pt.x));
            cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)(int)a->pt.y));
        }
        cJSON_AddItemToArray(arr, o);
    }
    return d;
}

cascade_target agent__target_of(const agent__grounded *g, const char *label)
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

/* The hand's answer goes into the record whole; returns its success. */
static int take_result(agent_step_record *r, const cascade_result *c)
{
    r->hand = *c;
    agent__copy(r->reason, sizeof r->reason, c->success ? "ok" : cascade_reason_name(c->reason));
    if (c->n_tried > 0)
        r->pt = c->clicked_at;
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
int agent__cascade_outcome(fovea_session *se, agent_step_record *r, base_err e, const cascade_result *c,
                           const char *err)
{
    if (e && c->n_tried == 0) {
        agent__failf(r, "error", "cascade: %s%s%s", base_strerror(e), err[0] ? ": " : "", err);
        return 0;
    }
    se->effects |= c->effects;
    return take_result(r, c);
}

/* ---- page text ----------------------------------------------------------------- */

/* The rendered text of the page and all its frames, one line per line. */
base_err agent__page_text(fovea_session *se, base_buf *out, char *err)
{
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate_in(se->page, NULL, CDP_CTX_FOVEA,
                                      (const char *)fovea_js_agent_text, &v, 5000, err);
    if (e)
        return e;
    if (cJSON_IsString(v)) {
        base_buf_append_str(out, v->valuestring);
        base_buf_append_str(out, "\n");
    }
    cJSON_Delete(v);
    cdp_frame frames[32];
    int n = cdp_page_frames(se->page, frames, 32);
    for (int i = 1; i < n && i < 32; i++) {
        if (!frames[i].oopif || !frames[i].session[0])
            continue;
        cJSON *fv = NULL;
        if (cdp_page_evaluate_in(se->page, frames[i].session, CDP_CTX_FOVEA,
                                 (const char *)fovea_js_agent_text,
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
double agent__re_deadline(double step_deadline)
{
    double floor_ms = base_monotime_ms() + 250;
    return step_deadline > floor_ms ? step_deadline : floor_ms;
}

/* Does text contain the step's text (case-insensitive) and match its
 * pattern (compiled at load)? 1 yes, 0 no, -1 when the match hit one of the
 * regex limits (why says which; retrying cannot help). */
int agent__text_matches(const agent_step *s, const char *text, double deadline, char *why)
{
    if (s->re) {
        int m = 0;
        base_err e = base_regex_match_until(s->re, text, strlen(text), agent__re_deadline(deadline), &m,
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

int agent__ground_arg(fovea_session *s, const cJSON *args, const char *key, const char *tool,
                      const char *verb, int timeout_ms, int do_snap, agent_step_record *rec,
                      agent_step *st_out)
{
    static const char *const keys[] = {"timeout_ms", "retries", "critical", "verb"};
    char err[BASE_ERRBUF_SIZE] = "";
    agent_step st;
    memset(&st, 0, sizeof st);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(args, key);
    if (!t) {
        agent__failf(rec, "bad_args", "%s: '%s' is needed (a label, \"[V4]\" or {label, index})",
                     tool, key);
        return 0;
    }
    /* The step the task parser would read: the target under "target",
     * and the keys that steer grounding. */
    cJSON *sub = cJSON_CreateObject();
    cJSON *tc = cJSON_Duplicate(t, 1);
    int built = sub && tc && cJSON_AddItemToObject(sub, "target", tc);
    if (!built)
        cJSON_Delete(tc); /* not owned by sub */
    for (size_t i = 0; built && i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, keys[i]);
        if (!v || (i == 0 && timeout_ms > 0))
            continue;
        cJSON *d = cJSON_Duplicate(v, 1);
        if (!d || !cJSON_AddItemToObject(sub, keys[i], d)) {
            cJSON_Delete(d);
            built = 0;
        }
    }
    if (built && timeout_ms > 0 && !cJSON_AddNumberToObject(sub, "timeout_ms", timeout_ms))
        built = 0;
    if (!built) {
        cJSON_Delete(sub);
        agent__failf(rec, "error", "%s: out of memory", tool);
        return 0;
    }
    base_err e = agent_step_from_args(sub, AGENT_WAIT_FOR, tool, &st, err);
    cJSON_Delete(sub);
    if (e) {
        agent_step_fini(&st);
        agent__failf(rec, "bad_args", "%s", err);
        return 0;
    }
    if (st.target.index > 0)
        rec->target_index = st.target.index;
    if (st.target.label)
        agent__copy(rec->target_label, sizeof rec->target_label, st.target.label);
    snap_intent_kind k = verb || st.verb ? snap_classify_intent(st.verb ? st.verb : verb,
                                                                st.target.label)
                                         : SNAP_INTENT_ANY;
    agent__grounded_fini(&s->call_g);
    int ok = agent__ground(s, &st, &st.target, k, do_snap, rec, &s->call_g);
    if (st_out)
        *st_out = st;
    else
        agent_step_fini(&st);
    return ok;
}

/* snapper/snap.h: vision box + expected label -> the element and point meant.
 *
 * The snapper is pure: it takes plain data (candidate elements and, for each
 * probe point of the box, the hit-test stack front to back) and returns plain
 * data. The same code runs live (a JS probe in the page fills a snap_probe)
 * and offline (snap_scene, a recorded page model, fills it). It implements
 * Algorithm 4 and the scoring function of Appendix E.3 of the SuperBrowser
 * paper, made intent-aware; snapper/DESIGN.md gives the formulas, constants
 * and the decisions taken where the paper is ambiguous.
 *
 * Strings in snap_candidate are BORROWED: the snapper reads them during a call
 * and never keeps a pointer past it. NULL strings read as "". Every function
 * here is reentrant and may be called from any thread; none allocates except
 * the snap_scene functions, which use base_malloc.
 */
#ifndef FOVEA_SNAPPER_SNAP_H
#define FOVEA_SNAPPER_SNAP_H

#include <stddef.h>

#include "base/err.h"
#include "base/geom.h"

/* One element as seen by a hit test. rect is the visible border box in CSS px,
 * page-viewport coordinates (the frame's own viewport for elements inside an
 * iframe being probed). */
typedef struct snap_candidate {
    base_rect rect;
    const char *tag;         /* lower-case tag name ("button") */
    const char *role;        /* explicit or implicit ARIA role, "" if none */
    const char *text;        /* visible text, trimmed (innerText) */
    const char *aria_label;  /* aria-label or aria-labelledby text */
    const char *title;       /* title attribute */
    const char *name;        /* accessible name as browsers compute it (accname:
                                aria-labelledby, aria-label, <label for>/wrapping label,
                                alt, SVG <title>, title, placeholder); NULL/"" unknown */
    const char *hint;        /* words an icon carries when it has no name: class tokens,
                                icon-font glyph names, SVG <use> ids; space separated */
    const char *xpath;       /* unique id within its frame, e.g. "/html/body/div[2]" */
    const char *frame_chain; /* "" for the top document */
    int aria_expanded;       /* -1 absent, 0 "false", 1 "true" */
    int aria_haspopup;       /* 1 when aria-haspopup is set and not "false" */
    int disabled;            /* reported, not skipped: the caller refuses disabled targets */
    int cursor_pointer;      /* computed cursor is pointer */
    int is_interactive;      /* decided by the probe (a, button, input, [role=button]...) */
    int has_listener;        /* a click/mousedown/pointerdown/... listener or on* handler is
                                attached to it (not inherited by delegation) */
    int is_iframe;           /* an <iframe>/<frame>: a hit here needs descent */
    int paint_order;         /* larger paints later, i.e. nearer the viewer */
    int parent;              /* index of the nearest ancestor in the array, -1 if none
                                or unknown (then xpath prefixes decide ancestry) */
} snap_candidate;

/* Probe points: [0] is the box centre, [1 + (i-1)*4 + (j-1)] for i, j in 1..4
 * is (x0 + w*i/5, y0 + h*j/5), the 16 interior lattice points of a 5x5
 * division in Algorithm 4's loop order (i over x, outer). */
#define SNAP_PROBE_NGRID 17
/* Candidate points: after the lattice, the probe may add the visible centre
 * (centre of rect & box) of up to 32 interactive elements intersecting the
 * box, so that controls narrower than the lattice spacing (w/5), e.g. a
 * chevron at the right end of a row, are seen. See DESIGN.md. */
#define SNAP_PROBE_MAX_POINTS (SNAP_PROBE_NGRID + 32)
/* At most this many stack entries are kept per point (the front-most ones). */
#define SNAP_PROBE_DEPTH 32

/* The hit-test stacks of one box: stack[k][0..n[k]-1] are indices into the
 * caller's candidate array, front to back, as document.elementsFromPoint
 * returns them at pt[k], for k < n_points. for_cand[k] is the candidate whose
 * visible centre pt[k] is, -1 for the 17 lattice points. Plain value,
 * caller-owned (about 7 KB). */
typedef struct snap_probe {
    base_rect box;
    int n_points;
    base_point pt[SNAP_PROBE_MAX_POINTS];
    int for_cand[SNAP_PROBE_MAX_POINTS];
    int n[SNAP_PROBE_MAX_POINTS];
    int stack[SNAP_PROBE_MAX_POINTS][SNAP_PROBE_DEPTH];
} snap_probe;

/* The 17 lattice probe points of box, in the order above, so that the live
 * probe and the offline model ask for exactly the same points. Writes
 * out[0..16]. Any thread. Errors: none (an empty box gives degenerate points;
 * snap_resolve rejects such boxes). */
void snap_probe_points(base_rect box, base_point out[SNAP_PROBE_NGRID]);

/* Sets p->box and the 17 lattice points for box, no candidate points, and
 * empties every stack, ready for a probe to fill n[] and stack[][]. p is the
 * caller's. Any thread. Errors: none. */
void snap_probe_init(snap_probe *p, base_rect box);

/* The visible centre of an element in the box: the centre of rect & box,
 * strictly inside the box when they overlap. Any thread. Errors: none; the box
 * centre when they do not overlap. */
base_point snap_visible_center(base_rect rect, base_rect box);

/* Appends the candidate point of element `cand` (its visible centre) to p with
 * an empty stack for the caller to fill. Returns its index, or -1 when p is
 * full or rect does not overlap p->box. Any thread. */
int snap_probe_add_point(snap_probe *p, int cand, base_rect rect);

/* The snapper's notion of a hit target: is_interactive, or a click listener of
 * its own (not on <html>/<body>, where it is page-wide delegation), or an
 * iframe. Benchmarks use it for the centre-click baseline so both clickers see
 * the same controls. Any thread. Errors: 0 for NULL. */
int snap_candidate_clickable(const snap_candidate *c);

typedef enum snap_intent_kind {
    SNAP_INTENT_ANY = 0, /* plain click: the paper's behaviour */
    SNAP_INTENT_SELECT,  /* choose a value/option/link: never divert to an expand control */
    SNAP_INTENT_EXPAND,  /* open/expand/toggle: prefer the chevron / expand control */
} snap_intent_kind;

typedef struct snap_intent {
    const char *label; /* expected label, borrowed; NULL or "" when unknown */
    snap_intent_kind kind;
} snap_intent;

/* Maps an action verb and its label to an intent kind: open, expand, collapse,
 * toggle, show more, unfold, drop down -> EXPAND; select, choose, pick, option,
 * set value -> SELECT; anything else (click, tap, press) -> ANY unless the
 * label itself asks to expand ("expand", "collapse", "more", "open menu", a
 * chevron glyph) -> EXPAND. Case-insensitive; NULL reads "". Borrows both
 * strings for the call. Any thread. Errors: none. */
snap_intent_kind snap_classify_intent(const char *verb, const char *label);

typedef enum snap_phase {
    SNAP_PHASE_NONE = 0, /* nothing chosen */
    SNAP_PHASE_A,        /* pinpoint: the centre hit a label-matching element */
    SNAP_PHASE_A_ALT,    /* the centre hit an iframe: re-probe inside it */
    SNAP_PHASE_B,        /* grid scan with the chevron tiebreaker */
    SNAP_PHASE_P,        /* procedural: the vision epoch's element, verified in place
                            (perception/procedural.h), no box probe */
} snap_phase;

/* Short names for traces and tables: "A", "A-alt", "B", "P", "-"; and "any",
 * "select", "expand". Static strings. Any thread. */
const char *snap_phase_name(snap_phase p);
const char *snap_intent_name(snap_intent_kind k);

/* How the chosen element's names (text, aria-label, title, accessible name,
 * icon words) carry the expected label, best first in numeric order. A
 * caller reports anything below SNAP_MATCH_WORD as a partial match. */
typedef enum snap_match {
    SNAP_MATCH_NONE = 0,  /* no label, or nothing of the element matches it */
    SNAP_MATCH_GEOMETRY,  /* nothing in the box matched: the control nearest the centre */
    SNAP_MATCH_ICON,      /* only an icon word or a synonym ("Delete" ~ "trash") */
    SNAP_MATCH_FUZZY,     /* word overlap (Jaccard >= 0.5, numbers kept) */
    SNAP_MATCH_SUBSTRING, /* inside a word, or a few words of a long text */
    SNAP_MATCH_PREFIX,    /* the text starts with the label mid-word ("Item 4" / "Item 49999") */
    SNAP_MATCH_WORD,      /* whole words of one are a run of the other's ("Add to cart" / "Add
                             to cart $35") */
    SNAP_MATCH_EXACT,     /* equal once normalised and folded */
} snap_match;

/* Short names "none", "geometry", "icon", "fuzzy", "substring", "prefix",
 * "word", "exact". Static strings. Any thread. Errors: none. */
const char *snap_match_name(snap_match m);

/* The grade a result reports beside "clicked <what was clicked>": "exact"
 * (SNAP_MATCH_EXACT), "partial" (WORD down to ICON: some of the element's words
 * or icon words carry the label) or "none" (GEOMETRY, NONE: nothing of the
 * element carries it). Static strings. Any thread. Errors: none ("none" for
 * out-of-range values). */
const char *snap_match_grade(snap_match m);

/* How the text `have` carries the label `want` (the one label matcher: the
 * snapper's per-field rule, also used by the runner to choose a vision box by
 * label). Both are folded (snap_text_normalize, punctuation separates words).
 * EXACT when equal; WORD when one is a run of whole words of the other, the
 * shorter >= 3 characters and at least half the longer; FUZZY for a word
 * Jaccard >= 0.5 with every number of want present; PREFIX when have starts
 * with want but not at a word end; SUBSTRING for other character containment,
 * and for whole-word containment in a text of at most SNAP_LIST_WORDS words;
 * NONE otherwise, which includes a label that is only a few words of a longer
 * list ("Button" in a select listing "Button Input Textarea Select Checkbox
 * Radio Range"). Borrows. Any thread. Errors: none; NULL reads "". */
snap_match snap_match_kind(const char *want, const char *have);
/* Texts with more words than this are lists, not names (see snap_match_kind). */
#define SNAP_LIST_WORDS 6

/* One vision box as a candidate for a label (snap_pick_box). */
typedef struct snap_box_cand {
    const char *label; /* borrowed; NULL reads "" */
    base_rect r;
    int id;            /* the box's [Vn], 0 = none */
} snap_box_cand;

/* The box a target names, out of n vision boxes: by index (id == index; trusted
 * alone, and with a label the label must match at least SNAP_MATCH_FUZZY, since
 * indices are stable only within one epoch), else by label (the best
 * snap_match_kind; ties go to the smaller box, the more specific control).
 * label NULL = index only; index 0 = label only. Returns the candidate's
 * position or -1; *by (may be NULL) is set to "index" or "label". Borrows. Any
 * thread. Errors: none. */
int snap_pick_box(const snap_box_cand *c, int n, const char *label, int index, const char **by);

/* Splits an ordinal qualifier off a target label (the target grammar,
 * docs/grounding.md): "[the] ORD REST" where ORD is first..tenth,
 * 1st/2nd/3rd/Nth (up to 99th) or last, case-insensitive. Returns the ordinal
 * (1-based; -1 for last) and writes REST into rest (cap bytes, cut when
 * longer); 0 when the label has no ordinal or nothing after it, and rest is
 * untouched then. The parse is syntactic: "First name" gives 1 and "name", so a
 * caller first checks whether the whole label names a control. Borrows label.
 * Any thread. Errors: none (0 for NULL arguments). */
int snap_parse_ordinal(const char *label, char *rest, size_t cap);

/* ---- Text normalisation: ONE definition for every text comparison ---------- */

/* The normalised form of s into out (cap bytes including the NUL): invisible
 * characters dropped (ZWSP U+200B, ZWNJ, ZWJ, word joiner, BOM U+FEFF, soft
 * hyphen U+00AD, bidi marks), every Unicode space (ASCII whitespace, NBSP
 * U+00A0, U+1680, U+2000..200A, U+2028/2029, U+202F, U+205F, U+3000) made one
 * ASCII space, runs folded, ends trimmed, letters lower-cased (ASCII, Latin-1,
 * basic Cyrillic). Punctuation is kept. Truncates on a character boundary.
 * Returns the length written. Borrows s; NULL reads "". Any thread. Errors:
 * none (0 when out is NULL or cap is 0). */
size_t snap_text_normalize(const char *s, char *out, size_t cap);

/* 1 when a and b are equal once normalised. Any length, no allocation. Any
 * thread. Errors: none; NULL reads "". */
int snap_text_equal(const char *a, const char *b);

/* 1 when the normalised needle occurs in the normalised hay (plain substring;
 * an empty needle is contained in everything). Any length, no allocation,
 * O(|hay|·|needle|) worst case. Any thread. Errors: none; NULL reads "". */
int snap_text_contains(const char *hay, const char *needle);

typedef struct snap_score {
    float area, label, chevron, total;
} snap_score;

/* At most this many candidates are listed in an ambiguous answer. */
#define SNAP_MAX_ALT 8

typedef struct snap_result {
    int found;     /* 1: click pt on cand. 0: see phase and reason (and ambiguous) */
    base_point pt; /* always strictly inside the box (the centre when !found) */
    int cand;      /* chosen candidate, the iframe for A_ALT, else -1 */
    snap_phase phase;
    snap_score score;   /* factors of the chosen candidate (zero when none) */
    int n_scored;       /* distinct candidates scored in phase B */
    snap_match match;   /* how the chosen element carries the label (NONE without one) */
    const char *reason; /* static string, never NULL */
    /* Ambiguous (found == 0, ambiguous == 1): the box holds n_alt (>= 2)
     * controls that the label does not tell apart (no label, the same label
     * on each, a label only their shared words), and the box geometry is not
     * decisive (DESIGN.md "Ambiguity"). alt[] are candidate indices in
     * reading order (top to bottom, then left to right), each the inner
     * element of its unit; alt_pt[k] is a click point on alt[k] inside the
     * box. Nothing is pressed: the caller lists them. */
    int ambiguous;
    int n_alt;
    int alt[SNAP_MAX_ALT];
    base_point alt_pt[SNAP_MAX_ALT];
} snap_result;

/* Runs phase A, A-alt and B (DESIGN.md) over cands[0..n-1] and the probe
 * stacks, for intent (NULL means ANY without label). Borrows everything for the
 * call; *out gets static reason strings. Any thread. Errors: BASE_EINVAL (NULL
 * pointers, n < 0, a box that is empty or not finite, a stack index or count
 * out of range) with a message in err (optional, BASE_ERRBUF_SIZE bytes); *out
 * is untouched on failure. "No candidate" is not an error: BASE_OK with
 * out->found == 0. */
base_err snap_resolve(const snap_candidate *cands, int n, const snap_probe *probe,
                      const snap_intent *intent, snap_result *out, char *err);

/* The neighbour search after an abstention (issue 21, class 2, DESIGN.md
 * "Neighbours"): when nothing in a box carries a non-empty label, a control
 * that carries it exactly and lies next to the box, within about the box's
 * own size, is the one meant (a box shifted onto the neighbouring checkbox).
 * snap_neighbour_wanted says whether res (the box's answer for intent) calls
 * for the search: not found, not ambiguous, not an iframe descent, a label
 * with a word or symbol. snap_neighbour_box is the box to probe: box grown on
 * each side by its own size on that axis, at least SNAP_NEIGHBOUR_MIN_PX and
 * at most SNAP_NEIGHBOUR_MAX_PX, clipped to [0, vw) x [0, vh) (vw, vh <= 0:
 * unclipped). snap_neighbour_take says whether res2 (snap_resolve on the grown
 * box) stands for the box: found with SNAP_MATCH_EXACT; it then sets res2's
 * reason. The point of a taken answer lies in the grown box, not in box. All
 * pure, any thread; borrow their arguments for the call. Errors: none. */
#define SNAP_NEIGHBOUR_MIN_PX 12.0f
#define SNAP_NEIGHBOUR_MAX_PX 48.0f
int snap_neighbour_wanted(const snap_intent *intent, const snap_result *res);
base_rect snap_neighbour_box(base_rect box, float vw, float vh);
int snap_neighbour_take(snap_result *res2);

/* The box to probe inside an iframe after SNAP_PHASE_A_ALT: box clipped to the
 * iframe's rect and translated to the frame's coordinates, so any inner result
 * lies inside the outer box too. Any thread. Errors: none; an empty rect when
 * they do not overlap. */
base_rect snap_frame_box(base_rect box, base_rect iframe_rect);

/* Translates a point from an iframe's coordinates back to the outer viewport.
 * Any thread. Errors: none. */
base_point snap_frame_point(base_point inner, base_rect iframe_rect);

/* 1 when cands[a] is a strict ancestor of cands[d]: by parent links when d's
 * chain reaches a, else (no parent info) when both share frame_chain and
 * xpath(d) starts with xpath(a) + "/". Any thread. Errors: 0 for out of range
 * indices. */
int snap_is_ancestor(const snap_candidate *cands, int n, int a, int d);

typedef enum snap_verdict {
    SNAP_VERIFY_OK = 0,  /* the hit target is the chosen element or inside it */
    SNAP_VERIFY_COVERED, /* something else receives the click */
    SNAP_VERIFY_EMPTY,   /* nothing at the point */
} snap_verdict;

/* The Playwright-style hit-target check at the final point. stack is the
 * hit-test stack there, front to back. OK when stack[0] is `chosen` or a
 * descendant of it; otherwise COVERED and *covering (optional) is the root of
 * the covering subtree: the outermost ancestor of stack[0] that is not an
 * ancestor of `chosen` (stack[0] itself without parent information), e.g. the
 * modal overlay. Borrows. Any thread. Errors: EMPTY for an empty stack;
 * out-of-range indices count as COVERED by -1. */
snap_verdict snap_verify(const snap_candidate *cands, int n, const int *stack, int n_stack,
                         int chosen, int *covering);

/* ---- Offline hit-test model ------------------------------------------------ */

/* Hit-test properties of one scene element (computed values). */
typedef struct snap_scene_node {
    int pointer_events_none; /* not hit-testable (elementsFromPoint skips it) */
    int visibility_hidden;   /* not hit-testable */
    int opacity_zero;        /* still hit-testable, as in browsers */
    int has_clip;            /* clip holds the ancestors' overflow clip */
    base_rect clip;          /* viewport coords; a point outside it misses */
} snap_scene_node;

/* A recorded page: element i is cand[i] with node[i]; cand[i].parent and
 * paint_order give the tree and the stacking. Strings in cand stay borrowed
 * from whoever filled the scene. Caller-owned struct: init/fini. */
typedef struct snap_scene {
    snap_candidate *cand;
    snap_scene_node *node;
    int n, cap;
} snap_scene;

/* An empty scene. Any thread. Errors: none. */
void snap_scene_init(snap_scene *s);
/* Frees the arrays (not the borrowed strings); s is empty after. NULL is a
 * no-op. On the owner's thread. Errors: none. */
void snap_scene_fini(snap_scene *s);

/* Appends element c with node (NULL: plain, hit-testable) and stores its index
 * in *index (optional). c->parent must be -1 or an earlier index. Copies the
 * structs; strings stay borrowed. On the owner's thread. Errors: BASE_EINVAL
 * (bad parent, NULL), BASE_ETOOBIG (over 1<<20 elements), BASE_ENOMEM; the
 * scene is unchanged on failure. */
base_err snap_scene_add(snap_scene *s, const snap_candidate *c, const snap_scene_node *node,
                        int *index);

/* The elements at p front to back as elementsFromPoint returns them: rect (and
 * clip) contain p, pointer-events:none and visibility:hidden are skipped;
 * larger paint_order first, and an ancestor always after each of its hit
 * descendants. Writes up to max indices (the front-most) to out and the number
 * written to *n_out. Borrows s. Any thread (read only). Errors: BASE_EINVAL
 * (NULL, max < 0), BASE_ENOMEM; outputs untouched. */
base_err snap_scene_hit(const snap_scene *s, base_point p, int *out, int max, int *n_out);

/* Fills *probe for box exactly as a live probe should: the 17 lattice points,
 * then the visible centres of the hit-testable interactive elements (and
 * iframes) overlapping the box, smallest overlap first, up to the capacity;
 * each stack SNAP_PROBE_DEPTH deep. Any thread. Errors: BASE_EINVAL,
 * BASE_ENOMEM; *probe untouched on failure. */
base_err snap_scene_probe(const snap_scene *s, base_rect box, snap_probe *probe);

#endif

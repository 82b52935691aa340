/* cascade/cascade.h: the hand — three-tier click, typing, drag, per-domain
 * learnings (seed 002 §6.3–6.4, Algorithms 5 and 6).
 *
 * A cascade_hand belongs to one page and tracks its cursor position and the
 * dead-click guard. All functions: the thread that owns the hand (not the cdp
 * service thread).
 */
#ifndef FOVEA_CASCADE_CASCADE_H
#define FOVEA_CASCADE_CASCADE_H

#include <stdint.h>

#include "base/err.h"
#include "base/geom.h"
#include "cdp/browser.h"

typedef struct cascade_hand cascade_hand;

typedef struct cascade_opts {
    int humanize;          /* 1 (default): Bezier path, hesitation, press/release timing */
    int allow_untrusted;   /* tier 3 (el.click()) allowed; default 0 */
    uint64_t seed;         /* motion/typing seed */
    int wait_ms;           /* tier 2 wait for the element; default 5000 */
    const char *learnings_path; /* per-domain learnings file, NULL = none */
} cascade_opts;

void cascade_opts_init(cascade_opts *o);

base_err cascade_hand_create(cdp_page *page, const cascade_opts *o, cascade_hand **out, char *err);
void cascade_hand_destroy(cascade_hand *h);
/* Last known cursor position (top-viewport CSS px). */
base_point cascade_hand_cursor(const cascade_hand *h);

/* What to act on. Either an element (xpath within frame_id, as perc_snap
 * gives it) with the point to press, or a bare point. */
typedef struct cascade_target {
    const char *xpath;    /* NULL/"" = bare point */
    const char *frame_id; /* NULL/"" = top document */
    base_point pt;        /* top-viewport CSS px; used when set (have_pt) */
    int have_pt;
    const char *label;    /* for messages */
} cascade_target;

typedef enum cascade_reason {
    CASCADE_OK = 0,
    CASCADE_NOT_FOUND,
    CASCADE_DISABLED,
    CASCADE_INVISIBLE,
    CASCADE_COVERED,
    CASCADE_AMBIGUOUS,
    CASCADE_NO_EFFECT,     /* every tier ran, nothing changed */
    CASCADE_DEAD_CLICK,    /* refused: same target twice without mutation */
    CASCADE_BOT_PROTECTED, /* tier 3 refused on this domain */
    CASCADE_ERROR,         /* transport or page error (see message) */
} cascade_reason;

const char *cascade_reason_name(cascade_reason r);

typedef struct cascade_try {
    int tier;          /* 1, 2, 3 */
    int success;
    double ms;
    char outcome[96];  /* "mutation", "url changed", "no effect", "covered by ..." */
} cascade_try;

typedef struct cascade_result {
    int success;
    cascade_reason reason;
    cascade_try tried[3];
    int n_tried;
    char message[256];        /* one human line */
    char alternatives[4][160]; /* concrete suggestions, e.g. "close button 'Accept' at (640,700)" */
    int n_alternatives;
    base_point clicked_at;    /* where the press happened */
    base_point path[256];     /* cursor path replayed (for overlays), up to 256 points */
    int n_path;
    double ms;
} cascade_result;

base_err cascade_click(cascade_hand *h, const cascade_target *t, cascade_result *out, char *err);
base_err cascade_type(cascade_hand *h, const cascade_target *t, const char *text, int password,
                      cascade_result *out, char *err);
/* Drags from the target (a slider thumb or range input) to `to`, or, for a
 * range input/slider, to value (when have_value). */
base_err cascade_drag(cascade_hand *h, const cascade_target *t, base_point to, double value,
                      int have_value, cascade_result *out, char *err);

#endif

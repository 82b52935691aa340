/* perception/probe.h: the live half of the snapper.
 *
 * One batched Runtime.evaluate of assets/js/snap_probe.js collects, for the
 * probe points of a box (snap_probe_points + the visible centres of the
 * interactive elements in the box), the hit-test stacks front to back, walking
 * open shadow roots and same-origin iframes (coordinates translated). A stack
 * holds the element a click there is delivered to and then only its
 * ancestors: what a popup layer or backdrop paints over is not in it.
 * Candidates carry the page kit's accessible name, icon hint and listener
 * flag (perception/kit.h; "interactive" includes listener-only controls; on a
 * document the listener recorder missed, DOMDebugger is asked). A stack
 * that ends on a cross-origin iframe is continued through that frame's own CDP
 * session (phase A-alt). snap_resolve then picks the element and point, and
 * the hit target at the final point is verified the way Playwright does.
 *
 * Any thread except the cdp service thread; one call at a time per page.
 */
#ifndef FOVEA_PERCEPTION_PROBE_H
#define FOVEA_PERCEPTION_PROBE_H

#include <cjson/cJSON.h>

#include "cdp/browser.h"
#include "snapper/snap.h"

/* The candidates and stacks of one box as the page reported them. All strings
 * in cands[] point into memory owned by the struct; free with
 * perc_probe_fini. */
typedef struct perc_probe {
    snap_candidate *cands;
    int n;
    snap_probe probe;
    char *strings; /* owned backing store of the candidate strings */
    double eval_ms; /* time of the page evaluate(s) */
} perc_probe;

/* Probes box (viewport CSS px of the document reached through `session`, NULL
 * = the page's top session) in one evaluate. *out is the caller's, filled on
 * success; perc_probe_fini frees it. Errors: BASE_EINVAL (empty box), cdp
 * errors, BASE_EPROTO (bad reply). */
base_err perc_probe_box(cdp_page *page, const char *session, base_rect box, perc_probe *out,
                        char *err);
/* Frees what p holds and zeroes it; p itself stays the caller's. NULL:
 * no-op. */
void perc_probe_fini(perc_probe *p);

/* One control of an ambiguous answer, in top-viewport CSS px. */
typedef struct perc_snap_alt {
    char tag[32];
    char role[32];
    char name[96];   /* accessible name, else visible text, aria-label, title; "" none */
    char xpath[256]; /* unique within its frame */
    base_rect rect;  /* its visible rect */
    base_point pt;   /* a click point on it, inside the box */
} perc_snap_alt;

/* What the snapper chose on a live page, in top-viewport CSS px. */
typedef struct perc_snap {
    int found;               /* 1: click pt on the element below */
    base_point pt;           /* top-viewport CSS px; the box centre when !found */
    snap_result res;         /* phase, score breakdown, reason */
    base_rect rect;          /* the chosen element's visible rect, top-viewport */
    char tag[32];
    char text[128];          /* visible text or aria-label, trimmed */
    char name[128];          /* accessible name (snap_candidate.name), else aria-label,
                                else title; "" when the element has none */
    char xpath[512];         /* unique within its frame */
    char frame_id[64];       /* CDP frame id of the element's document ("" = top) */
    char session[64];        /* CDP session of that frame ("" = the page's own) */
    base_point frame_offset; /* the frame's viewport origin in top-viewport px */
    int disabled;
    snap_verdict verdict;    /* hit-target check at pt */
    char covering[160];      /* when COVERED: what receives the click, e.g.
                                "div#cookie-banner 'We use cookies'" */
    double probe_ms;         /* total time spent in page evaluates */
    int n_alt;               /* res.ambiguous: the controls the label does not tell
                                apart (snap_result.alt), nothing chosen */
    perc_snap_alt alt[SNAP_MAX_ALT];
} perc_snap;

/* Snaps a vision box (top-viewport CSS px) for intent on a live page: probe,
 * snap_resolve, A-alt descent into iframes (same- and cross-origin), then,
 * when verify is set, the hit-target check at the final point (verdict,
 * covering; one more evaluate per frame level). The cascade repeats that
 * check right before it presses, so a caller that clicks next passes 0
 * (verdict then stays SNAP_VERIFY_EMPTY and covering ""). "No candidate" is
 * BASE_OK with out->found == 0 and out->res.reason saying why; an ambiguous
 * box is found == 0 with out->res.ambiguous set and out->alt[0..n_alt-1] the
 * controls the label does not tell apart. *out is the caller's. Errors: as
 * perc_probe_box. */
base_err perc_snap_box(cdp_page *page, base_rect box, const snap_intent *intent, int verify,
                       perc_snap *out, char *err);

/* ---- The snap answer as JSON (snap_json.c) ------------------------------
 * One form for every writer (the `fovea snap` protocol, trace.jsonl,
 * `fovea snaptest --json`): CSS px rounded to 0.1, scores to 0.001, a
 * number that is not finite written as 0. */

/* Rounds v to 0.1 (CSS px), resp. to 0.001 (scores, ms), for JSON writers.
 * Any thread; cannot fail (not finite gives 0). */
double perc_json_px(double v);
double perc_json_score(double v);

/* Makes [x, y] resp. [x0, y0, x1, y1] in 0.1 CSS px: a new array the
 * caller frees (cJSON_Delete or by adding it to a tree). Any thread; NULL
 * when out of memory. */
cJSON *perc_json_point(base_point p);
cJSON *perc_json_rect(base_rect r);

/* The hit-target verdict's name: "ok", "covered" or "empty".
 * Any thread; cannot fail (a static string). */
const char *perc_verdict_name(snap_verdict v);

/* A snapper result as {"phase", "found", "point" [x,y], "score"
 * {area, label, chevron, total}, "match" (when found: snap_match_grade,
 * exact|partial|none) and "match_kind" (snap_match_name), "ambiguous" (only
 * when set), "reason"}.
 * Returns a new object the caller frees; r is borrowed. Any thread.
 * Errors: NULL for a NULL r or when out of memory (also when any member
 * could not be added: no partial answer). */
cJSON *perc_snap_result_json(const snap_result *r);

/* A live snap answer: perc_snap_result_json of sn->res with
 * "found" and "point" of the answer (top-viewport px) and, when found,
 * "element" {tag, text, name, xpath, frame (CDP frame id, "" = top), rect,
 * disabled}; when ambiguous, "candidates" [{name, role, tag, rect, point,
 * xpath}]. The hit verdict and timings are the writer's (they depend on
 * whether it clicked). Ownership and errors: as perc_snap_result_json. */
cJSON *perc_snap_json(const perc_snap *sn);

#endif

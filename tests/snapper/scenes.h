/* tests/snapper/scenes.h: synthetic pages for the snapper tests.
 *
 * sc_build_page lays out one page holding every widget family the snapper
 * must handle (compound filter rows, a listbox, a calendar, a time picker,
 * product cards, an icon toolbar, checkboxes with long labels) and returns the
 * targets a vision model could have boxed on it, each with its acceptable
 * answers. test_snap and test_accuracy both use it.
 */
#ifndef FOVEA_TESTS_SNAPPER_SCENES_H
#define FOVEA_TESTS_SNAPPER_SCENES_H

#include "snapper/snap.h"

#define SC_MAX_OK 3

typedef struct sc_target {
    const char *name;
    base_rect box; /* the ideal vision box */
    const char *label;
    snap_intent_kind kind;
    int ok[SC_MAX_OK]; /* acceptable candidates */
    int n_ok;
    int neighbour; /* candidate to merge the box with, -1 for none */
    int has_row;   /* row_box: the chip + chevron merged row */
    base_rect row_box;
} sc_target;

/* Adds an element: parent index or -1, rect, tag, role, text, aria-label and
 * whether it is interactive. paint_order is the index (later paints on top).
 * Aborts on allocation failure (tests only). */
int sc_add(snap_scene *s, int parent, base_rect r, const char *tag, const char *role,
           const char *text, const char *aria, int interactive);

/* Builds the page into an initialised empty scene; writes up to max targets
 * and returns their number. */
int sc_build_page(snap_scene *s, sc_target *t, int max);

/* 1 when cand is one of the target's acceptable answers. */
int sc_target_ok(const sc_target *t, int cand);

/* Index of the first interactive element at the box centre: a naive click. */
int sc_naive_centre(const snap_scene *s, base_rect box);

/* Probes box in s and snaps it for label and kind into *r; 1 when that
 * worked and the point lies in the box (and in the chosen element when one
 * was found), 0 otherwise. */
int sc_snap_box(const snap_scene *s, base_rect box, const char *label, snap_intent_kind kind,
                snap_result *r);

/* Initialises s as an empty 1280x800 page (html > body); returns body's index. */
int sc_page(snap_scene *s);

#endif

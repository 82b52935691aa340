/* perception/enrich_int.h: the page-wide enrichment probe shared by the
 * `dom` provider (vision.c) and perc_vision_enrich (enrich.c), run by
 * enrich_frames.c. Module-internal. */
#ifndef FOVEA_PERCEPTION_ENRICH_INT_H
#define FOVEA_PERCEPTION_ENRICH_INT_H

#include <cjson/cJSON.h>

#include "perception/vision.h"

/* One selector-map entry with its element's state. */
typedef struct perc__item {
    perc_selector sel;               /* rect in top-viewport CSS px, xpath, CDP frame id */
    char kind[24];                   /* "button", "link", "input", ... */
    int expanded, active;            /* -1 unknown / not applicable */
    int ctl;                         /* item index of the element's expand control, -1 */
    char labelledby[PERC_LABEL_MAX]; /* aria-labelledby text */
} perc__item;

/* The probe of a page: one pass of assets/js/enrich.js in the top document
 * (which enters same-origin iframes itself) plus one pass per frame it cannot
 * enter (out-of-process iframes in their own CDP session, same-site
 * cross-origin iframes in an isolated world), merged into top-viewport
 * coordinates. */
typedef struct perc__probe {
    cJSON *top;        /* the top pass reply {map, frames, boxes, states} */
    perc__item *items; /* items[i] = top map entry i for i < n_top, then the other frames' */
    int n, n_top;
    int n_skipped; /* frames that could not be probed (each logged at warn level) */
} perc__probe;

/* Runs the probe. boxes (n >= 0) are passed to the top pass for enrichment
 * (NULL: selector map only); want_states also reads the state of every element
 * of the other frames (the top pass gives the states of the elements the boxes
 * refer to). A frame that fails (detached mid-probe, context gone) is skipped
 * and counted, the top pass failing is an error. *out is filled on success;
 * perc__probe_fini frees it. Any thread but the cdp service thread. Errors: cdp
 * errors of the top pass, BASE_ENOMEM, BASE_EINVAL, BASE_EPROTO (the top reply
 * is not the expected JSON). */
base_err perc__probe_run(cdp_page *page, const perc_box *boxes, int n, int want_states,
                         perc__probe *out, char *err);

/* JSON helpers: integer field k of o in [lo, hi] (else dflt, no
 * out-of-range casts); string field k ("" when absent). */
int perc__json_int(const cJSON *o, const char *k, int dflt, int lo, int hi);
const char *perc__json_str(const cJSON *o, const char *k);
/* cJSON_Parse of JSON text a page script made (JSON.stringify), whose
 * strings may hold half a surrogate pair (base/utf8.h): those become
 * U+FFFD instead of failing the whole reply. NULL when not JSON or out of
 * memory; the caller frees the tree. Any thread. */
cJSON *perc__parse_page_json(const char *text);

/* Frees what perc__probe_run filled (NULL or zeroed: no-op). */
void perc__probe_fini(perc__probe *p);

/* The index of the item a box at r most likely means: best overlap (IoU >=
 * 0.1), else the smallest item containing r's centre, else the nearest
 * centre within 40 px; -1 when none (the rules of enrich.js's nearest). */
int perc__probe_nearest(const perc__probe *p, base_rect r);

#endif

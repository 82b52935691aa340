/* perception/fingerprint.h: page fingerprints (seed 002 §4.5).
 *
 * assets/js/fp_observer.js is injected at document start (and into the
 * current document) and counts added/removed nodes and attribute changes with
 * a MutationObserver; assets/js/fingerprint.js computes, in one evaluate,
 * h_dom over the interactive element list, h_text over the rendered text plus
 * the scroll position in 100 px buckets, h_frame over iframe descendants
 * (cross-origin ones through their sessions) and the URL.
 * Any thread except the cdp service thread.
 */
#ifndef FOVEA_PERCEPTION_FINGERPRINT_H
#define FOVEA_PERCEPTION_FINGERPRINT_H

#include <stdint.h>

#include "cdp/browser.h"

typedef struct perc_fingerprint {
    uint64_t h_dom, h_text, h_frame;
    char url[1024];
    uint32_t mutation_count; /* cumulative, since the observer was installed */
    int scroll_bucket_y;     /* scrollY / 100 */
    double ms;               /* time the evaluate(s) took */
} perc_fingerprint;

/* Installs the observer for this and every later document of page
 * (Page.addScriptToEvaluateOnNewDocument + one evaluate now). Idempotent.
 * page is borrowed. Any thread except the cdp service thread. Errors:
 * BASE_EINVAL (NULL page), BASE_ENOMEM, those of cdp_call. */
base_err perc_fingerprint_install(cdp_page *page, char *err);

/* Takes the page's fingerprint now into *out (the caller's). Any thread
 * except the cdp service thread. Errors: BASE_EINVAL (NULL argument),
 * BASE_ENOMEM, BASE_EPROTO (a malformed probe reply), those of cdp_call. */
base_err perc_fingerprint_take(cdp_page *page, perc_fingerprint *out, char *err);

/* 1 when the hashes and URL are equal, else 0 (mutation_count is compared by
 * the gate). Pure; any thread. */
int perc_fingerprint_equal(const perc_fingerprint *a, const perc_fingerprint *b);

#endif

/* perception/dom_boxes.h: interactive-element boxes of a live page.
 *
 * One Runtime.evaluate of assets/js/dom_boxes.js lists the visible,
 * uncovered interactive elements of the top document in viewport CSS
 * pixels. It is what `fovea overlay --url` marks, and the seed of the `dom`
 * vision provider. Any thread except the cdp service thread.
 */
#ifndef FOVEA_PERCEPTION_DOM_BOXES_H
#define FOVEA_PERCEPTION_DOM_BOXES_H

#include "cdp/browser.h"
#include "perception/som.h"

/* On success *marks (labels copied; free with perc_marks_free) and *n.
 * Errors: those of cdp_page_evaluate, BASE_EPROTO for a malformed reply. */
base_err perc_dom_boxes(cdp_page *page, perc_mark **marks, int *n, char *err);

#endif

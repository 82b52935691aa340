/* perception/dom_boxes.h: interactive-element boxes of a live page as
 * Set-of-Marks marks: the `dom` vision provider's boxes (perception/vision.h:
 * the visible part, inside viewport, frames and scroll containers, of the
 * page kit's interactive elements, listener-only controls included, that a
 * click can reach somewhere, labelled with their accessible name; in
 * top-viewport CSS pixels). It is what `fovea overlay --url` marks.
 * Any thread except the cdp service thread.
 */
#ifndef FOVEA_PERCEPTION_DOM_BOXES_H
#define FOVEA_PERCEPTION_DOM_BOXES_H

#include "cdp/browser.h"
#include "image/som.h"

/* Detects the page's interactive boxes with the `dom` provider. On success
 * *marks (labels copied; free with img_marks_free) and *n; page is borrowed.
 * Any thread except the cdp service thread. Errors: those of the dom
 * provider (cdp errors, BASE_EPROTO for a malformed reply), BASE_ENOMEM. */
base_err perc_dom_boxes(cdp_page *page, img_mark **marks, int *n, char *err);

#endif

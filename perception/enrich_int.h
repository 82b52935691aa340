/* perception/enrich_int.h: the enrichment probe shared by the `dom` provider
 * (vision.c) and perc_vision_enrich (enrich.c). Module-internal. */
#ifndef FOVEA_PERCEPTION_ENRICH_INT_H
#define FOVEA_PERCEPTION_ENRICH_INT_H

#include <cjson/cJSON.h>

#include "perception/vision.h"

/* Evaluates assets/js/enrich.js on page with boxes (n >= 0) or, when boxes
 * is NULL, for the selector map only. *root receives the parsed reply
 * ({map, frames, boxes}; caller cJSON_Deletes). Errors: cdp errors,
 * BASE_ENOMEM, BASE_EPROTO (reply is not the expected JSON). */
base_err perc__enrich_eval(cdp_page *page, const perc_box *boxes, int n, cJSON **root, char *err);

/* Converts root's "map" into a selector array (*out, base_free; *n), with
 * frame indices resolved to CDP frame ids through the page's frame tree.
 * Errors: BASE_ENOMEM, BASE_EPROTO. */
base_err perc__enrich_map(cdp_page *page, const cJSON *root, perc_selector **out, int *n,
                          char *err);

#endif

/* perception/js.h: page scripts embedded from assets/js at build time.
 * Each assets/js/NAME.js becomes fovea_js_NAME[] (NUL-terminated) and
 * fovea_js_NAME_len; see perception/CMakeLists.txt. Read-only, any thread. */
#ifndef FOVEA_PERCEPTION_JS_H
#define FOVEA_PERCEPTION_JS_H

#include <stddef.h>

/* fingerprints and DOM enrichment (perception/fingerprint.c, enrich.c) */
extern const unsigned char fovea_js_fp_observer[];
extern const size_t fovea_js_fp_observer_len;
extern const unsigned char fovea_js_fingerprint[];
extern const size_t fovea_js_fingerprint_len;
extern const unsigned char fovea_js_enrich[];
extern const size_t fovea_js_enrich_len;

#endif

/* perception/js.h: the page scripts perception embeds from assets/js at
 * build time (perception/CMakeLists.txt lists them). Each becomes
 * fovea_js_NAME[] (NUL-terminated) and fovea_js_NAME_len; a script that uses
 * the page kit is embedded as (() => { <assets/js/lib/kit.js>; return
 * (<script>); })(), so its text is still one expression of the same shape.
 * Read-only, any thread. Other modules embed their own scripts (cascade/js.h,
 * agent/session/js.h). */
#ifndef FOVEA_PERCEPTION_JS_H
#define FOVEA_PERCEPTION_JS_H

#include <stddef.h>

/* fingerprints (perception/fingerprint.c): the mutation counter installed at
 * document start, and the probe evaluated after it */
extern const unsigned char fovea_js_fp_observer[];
extern const size_t fovea_js_fp_observer_len;
extern const unsigned char fovea_js_fingerprint[];
extern const size_t fovea_js_fingerprint_len;
/* the selector map, DOM enrichment and the `dom` provider (enrich_frames.c) */
extern const unsigned char fovea_js_enrich[];
extern const size_t fovea_js_enrich_len;
/* the live snapper probe (probe.c) */
extern const unsigned char fovea_js_snap_probe[];
extern const size_t fovea_js_snap_probe_len;
/* the procedural click's check of the epoch's element (procedural.c) */
extern const unsigned char fovea_js_snap_epoch[];
extern const size_t fovea_js_snap_epoch_len;
/* CSS selector -> fovea xpath and frame chain (`fovea record`) */
extern const unsigned char fovea_js_snap_locate[];
extern const size_t fovea_js_snap_locate_len;
/* the listener tracker installed at document start in the main world, and
 * its bridge in fovea's isolated world (kit.c): both functions of a nonce */
extern const unsigned char fovea_js_listen[];
extern const size_t fovea_js_listen_len;
extern const unsigned char fovea_js_bridge[];
extern const size_t fovea_js_bridge_len;

#endif

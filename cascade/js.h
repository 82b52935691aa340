/* cascade/js.h: the page script the cascade embeds (cascade/CMakeLists.txt):
 * assets/js/cascade_hand.js after the page kit (assets/js/lib/kit.js), as
 * fovea_js_cascade_hand[] (NUL-terminated) and its length. Read-only, any
 * thread. */
#ifndef FOVEA_CASCADE_JS_H
#define FOVEA_CASCADE_JS_H

#include <stddef.h>

extern const unsigned char fovea_js_cascade_hand[];
extern const size_t fovea_js_cascade_hand_len;

#endif

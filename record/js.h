/* record/js.h: the page script record/ embeds (record/CMakeLists.txt): the
 * page kit's answers per element of a document (assets/js/kit_dump.js after
 * assets/js/lib/kit.js), stored in each snapshot by snapshot.c.
 * NUL-terminated, read-only, any thread. */
#ifndef FOVEA_RECORD_JS_H
#define FOVEA_RECORD_JS_H

#include <stddef.h>

extern const unsigned char fovea_js_kit_dump[];
extern const size_t fovea_js_kit_dump_len;

#endif

/* perception/kit.h: the page kit's document-start half.
 *
 * The page scripts share one kit (assets/js/lib/kit.js, prepended at build
 * time): the notion of "interactive", roles, the accessible name, icon hint
 * words, xpaths, frame boxes and hit testing. Knowing which elements have
 * click-like listeners needs a script that runs before the page's own
 * (assets/js/lib/listen.js); perc_kit_install sets it up.
 */
#ifndef FOVEA_PERCEPTION_KIT_H
#define FOVEA_PERCEPTION_KIT_H

#include <stddef.h>

#include "base/err.h"
#include "cdp/browser.h"

/* Purpose: makes every later document of the page (its main frame, its
 * in-process iframes and the out-of-process iframes present now) record
 * click/mouse/pointer/touch/key listeners from document start, and installs
 * the recorder in the current document too (where listeners added before
 * this call stay unknown: the registry says so, and the probe then asks
 * DOMDebugger). Idempotent per document. Ownership: borrows page. Thread:
 * the caller's (blocking CDP calls, not the service thread). Errors:
 * BASE_EINVAL for NULL page, CDP errors of the main frame (a failing
 * out-of-process frame is only logged: it may be going away). */
base_err perc_kit_install(cdp_page *page, char *err);

/* Purpose: the kit's text normalisation (kit.norm in assets/js/lib/kit.js)
 * for UTF-8: NBSP and the other Unicode spaces become spaces, zero-width
 * characters (U+200B-U+200D, U+2060, U+FEFF) and soft hyphens vanish, runs
 * of whitespace fold to one space, the ends are trimmed; at most max_chars
 * code points are kept (0: no limit) and never more than cap - 1 bytes, cut
 * on a character boundary. Writes a NUL-terminated string to out (cap > 0)
 * and returns its length. Thread: any. Errors: none; NULL s reads as "". */
size_t perc_kit_norm(const char *s, char *out, size_t cap, size_t max_chars);

#endif

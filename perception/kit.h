/* perception/kit.h: the page kit's document-start half.
 *
 * The page scripts share one kit (assets/js/lib/kit.js, prepended at build
 * time): the notion of "interactive", roles, the accessible name, icon hint
 * words, xpaths, frame boxes and hit testing. Knowing which elements have
 * click-like listeners needs a script that runs before the page's own
 * (assets/js/lib/listen.js); perc_kit_install sets it up.
 *
 * Blocking CDP calls: any thread except the cdp service thread.
 */
#ifndef FOVEA_PERCEPTION_KIT_H
#define FOVEA_PERCEPTION_KIT_H

#include "base/err.h"
#include "cdp/browser.h"

/* Makes every later document of the page (its main frame, its in-process
 * iframes and the out-of-process iframes present now) record
 * click/mouse/pointer/touch/key listeners from document start, and installs
 * the recorder in the current document too (where listeners added before this
 * call stay unknown: the registry says so, and the probe then asks
 * DOMDebugger). Idempotent per document. Borrows page. On the caller's thread
 * (blocking CDP calls, not the service thread). Errors: BASE_EINVAL for NULL
 * page, CDP errors of the main frame (a failing out-of-process frame is only
 * logged: it may be going away). */
base_err perc_kit_install(cdp_page *page, char *err);

/* Hands the closed shadow roots of session's root document (NULL or "" = the
 * page's own session) to fovea's isolated world there (context_id > 0: that
 * world; else fovea's world of the session's root frame), whose
 * Element.prototype.shadowRoot then returns them (assets/js/lib/bridge.js),
 * so every fovea script walks into them as into open roots. Called when a
 * script reports "closed" (kit.closedNew(): the recorder saw a closed root
 * appear). Best effort: failures leave the roots unseen. Borrows page. On
 * the caller's thread (blocking CDP calls, not the service thread). */
void perc_kit_closed_roots(cdp_page *page, const char *session, int context_id);

#endif

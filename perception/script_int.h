/* perception/script_int.h: calling an embedded page script that stays
 * compiled in the document (module-internal).
 *
 * A page script with the page kit is tens of KB of JavaScript; parsing it on
 * every call costs more than the call. The script is therefore sent once per
 * document and kept there under a Symbol.for key named after its hash; a call
 * sends only `f(args)`, and a document that does not have it yet (a fresh
 * navigation, another frame) answers null, after which the whole script goes
 * in the same evaluate as the call. Every page script of the module that
 * stays in the document (probe, enrich, procedural) goes through it.
 */
#ifndef FOVEA_PERCEPTION_SCRIPT_INT_H
#define FOVEA_PERCEPTION_SCRIPT_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "cdp/browser.h"

/* One embedded script: its text (perception/js.h) and a short name for the
 * key ("fovea.NAME.HASH"). The key is computed on first use. */
typedef struct perc__script {
    const unsigned char *text;
    const size_t *len;
    const char *name;
} perc__script;

/* Evaluates (script)(args) (args: JSON text of the arguments, without the
 * parentheses) on session (NULL/"" = the page's own) in context context_id (0 =
 * fovea's isolated world of the session's root frame, CDP_CTX_FOVEA: never the
 * page's main world), installing the script first when the document lacks it.
 * *value receives the result by value; *ms (optional) accumulates the wall time
 * of the evaluate(s). *value is the caller's (cJSON_Delete). Any thread but the
 * cdp service thread. Errors: as cdp_page_evaluate_in (a thrown exception is
 * BASE_EREMOTE), BASE_ENOMEM; *value untouched on failure. */
base_err perc__script_call(cdp_page *page, const char *session, int context_id,
                           const perc__script *s, const char *args, int timeout_ms,
                           cJSON **value, double *ms, char *err);

#endif

/* cascade/select.c: choosing an option of a native <select>.
 *
 * A native select's popup is drawn by the browser outside the page: it is in
 * no screenshot and no page click reaches its options. So once the element
 * is resolved (the snapper found the <select>), the option is chosen in the
 * page half (assets/js/cascade_hand.js, op selectOption) through the native
 * value setter with the input/change events a user's choice fires. This is a
 * scripted action and is reported as tier 3, in any frame the hand reaches.
 */
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "cascade/cascade_int.h"

base_err cascade_select(cascade_hand *h, const cascade_target *t, const char *option,
                        cascade_result *out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_select: NULL result");
    cascade__result_init(out);
    if (!h || !t || !(t->xpath && t->xpath[0]) || !option) {
        cascade__msg(out, CASCADE_ERROR, "invalid arguments: a select needs an element's xpath "
                                         "and an option");
        return base_errf(err, BASE_EINVAL, "cascade_select: bad hand, target or option");
    }
    double t0 = base_monotime_ms();
    const char *fid = t->frame_id ? t->frame_id : "";
    const char *label = t->label && t->label[0] ? t->label : t->xpath;
    cJSON *a = cascade__xpath_arg(t->xpath);
    if (a && !cJSON_AddStringToObject(a, "text", option)) {
        cJSON_Delete(a);
        a = NULL; /* without its text the page half would pick no option, or another */
    }
    cJSON *v = NULL;
    base_err e = a ? cascade__call(h, fid, "selectOption", a, 1, &v, 10000, err)
                   : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    cascade_try *tr = cascade__try(out, 3);
    if (e) {
        cascade__msg(out, CASCADE_ERROR, "select on %s failed: %s", label,
                     err && err[0] ? err : base_strerror(e));
        out->ms = base_monotime_ms() - t0;
        return e;
    }
    const char *why = cascade__str(v, "why");
    if (cascade__bool(v, "ok")) {
        out->success = 1;
        out->reason = CASCADE_OK;
        snprintf(out->message, sizeof out->message, "chose '%.100s' in <select> %.100s (scripted)",
                 cascade__str(v, "chosen") ? cascade__str(v, "chosen") : option, label);
        snprintf(tr->outcome, sizeof tr->outcome, "native <select> set (scripted)");
    } else if (why && strcmp(why, "disabled") == 0) {
        cascade__msg(out, CASCADE_DISABLED, "<select> %s is disabled; nothing chosen", label);
    } else if (why && strcmp(why, "no such option") == 0) {
        cascade__msg(out, CASCADE_NOT_FOUND, "<select> %s has no option '%.80s'", label, option);
        const cJSON *o;
        cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(v, "options"))
        {
            if (cJSON_IsString(o))
                cascade__alt(out, "option '%.120s'", o->valuestring);
        }
    } else {
        cascade__msg(out, CASCADE_NOT_FOUND, "%s is not a <select> (%s)", label,
                     why ? why : "not found");
    }
    tr->success = out->success;
    if (!out->success)
        snprintf(tr->outcome, sizeof tr->outcome, "%.95s", why ? why : "failed");
    cJSON_Delete(v);
    out->ms = base_monotime_ms() - t0;
    tr->ms = out->ms;
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "select %s: %s (%s)", label,
             cascade_reason_name(out->reason), out->message);
    return BASE_OK;
}

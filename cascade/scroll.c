/* cascade/scroll.c: scrolling as a person does it — the cursor goes to
 * what should scroll, the wheel turns in notches, and the hand waits until
 * the page comes to rest (a smooth-scrolling page keeps moving for a few
 * hundred ms after the last notch).
 *
 * The page half (`scrollState` in assets/js/cascade_hand.js) names the box
 * a wheel at the point scrolls and where it stands; the rest test compares
 * that position between polls. Frames: the position is read in the top
 * document, so a wheel over an iframe scrolls the frame but is measured as
 * "no movement" of the page.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/interrupt.h"
#include "cascade/cascade_int.h"
#include "motion/path.h"

#define NOTCH_PX 120.0
#define REST_POLL_MS 40
#define REST_MAX_MS 1000

base_err cascade_scroll_where(cascade_hand *h, base_point at, int page, cascade_scroll_pos *out,
                              char *err)
{
    memset(out, 0, sizeof *out);
    cJSON *a = cJSON_CreateObject();
    if (!a || !cJSON_AddNumberToObject(a, "x", at.x) || !cJSON_AddNumberToObject(a, "y", at.y) ||
        !cJSON_AddBoolToObject(a, "page", page)) {
        cJSON_Delete(a);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    cJSON *v = NULL;
    base_err e = cascade__call(h, "", "scrollState", a, 1, &v, 5000, err);
    if (!e) {
        out->box = cascade__bool(v, "box");
        out->top = cascade__num(v, "top", 0);
        out->max = cascade__num(v, "max", 0);
        out->view = cascade__num(v, "view", 0);
        const char *d = cascade__str(v, "desc");
        snprintf(out->desc, sizeof out->desc, "%s", d ? d : "");
    }
    cJSON_Delete(v);
    return e;
}

static base_err wheel(cascade_hand *h, base_point at, double dy, char *err)
{
    cJSON *p = cascade__mouse_params("mouseWheel", at, 0);
    if (!p || !cJSON_AddNumberToObject(p, "deltaX", 0) || !cJSON_AddNumberToObject(p, "deltaY", dy)) {
        cJSON_Delete(p);
        return base_errf(err, BASE_ENOMEM, "out of memory");
    }
    return cdp_page_call(h->page, "Input.dispatchMouseEvent", p, NULL, 5000, err);
}

base_err cascade_scroll(cascade_hand *h, base_point at, double dy, int page,
                        cascade_scroll_pos *before, cascade_scroll_pos *after,
                        cascade_result *out, char *err)
{
    if (!isfinite(dy) || !isfinite(at.x) || !isfinite(at.y))
        return base_errf(err, BASE_EINVAL, "scroll: not a finite amount or point");
    cascade_result local;
    if (!out)
        out = &local;
    cascade__result_init(out);
    double t0 = base_monotime_ms();
    cascade_scroll_pos p0, p1;
    base_err e = cascade_scroll_where(h, at, page, &p0, err);
    if (e)
        return e;
    if (h->o.humanize) {
        motion_path mp;
        memset(&mp, 0, sizeof mp);
        e = motion_plan_path(h->cursor, at, MOTION_CLICK, cascade__seed(h), &mp);
        if (!e)
            e = cascade__replay(h, &mp, 0, out, err);
        motion_path_fini(&mp);
        if (e)
            return e;
    } else if ((e = cascade__mouse(h, "mouseMoved", at, 0, err)) != BASE_OK) {
        return e;
    }
    h->cursor = at;
    /* Notches: a person's wheel moves ~100-120 px a click; humanized, a
     * short irregular pause between them. */
    double left = dy;
    base_rng *rng = &h->rng;
    while (fabs(left) > 0.5 && !base_interrupted()) {
        double step = fabs(left) > NOTCH_PX ? (left > 0 ? NOTCH_PX : -NOTCH_PX) : left;
        if ((e = wheel(h, at, step, err)) != BASE_OK)
            return e;
        left -= step;
        if (h->o.humanize && fabs(left) > 0.5)
            base_sleep_ms(18 + 30 * base_rng_unit(rng));
    }
    /* Rest: the same position twice in a row. */
    double until = base_monotime_ms() + REST_MAX_MS;
    p1 = p0;
    for (int same = 0; same < 2 && base_monotime_ms() < until && !base_interrupted();) {
        base_sleep_ms(REST_POLL_MS);
        cascade_scroll_pos q;
        if ((e = cascade_scroll_where(h, at, page, &q, err)) != BASE_OK)
            return e;
        same = fabs(q.top - p1.top) < 0.5 ? same + 1 : 0;
        p1 = q;
    }
    out->success = fabs(p1.top - p0.top) >= 0.5;
    out->ms = base_monotime_ms() - t0;
    snprintf(out->message, sizeof out->message, "%s %s by %.0f px (%.0f -> %.0f of %.0f)",
             out->success ? "scrolled" : "did not scroll", p0.desc, p1.top - p0.top, p0.top,
             p1.top, p1.max);
    if (before)
        *before = p0;
    if (after)
        *after = p1;
    return BASE_OK;
}

/* cascade/drag.c: drags, for sliders and range inputs (seed 002 §6.4).
 *
 * For a value: the page half describes the slider (a native range input:
 * min/max/step and its rect; a role=slider widget: aria-valuemin/max/now,
 * its thumb and the track found around it), the hand computes the point
 * that means that value, presses on the thumb, and moves there along a
 * logistic-eased drag path from motion/ with its micro-pauses, releasing
 * exactly on the point. The value is read back; a miss is corrected by up to
 * two more drags aimed by the observed error, then by arrow keys (what a
 * person does for the last step). For a point (no value): press on the
 * target, drag to `to`, release, and report the page's reaction.
 * Everything works inside shadow roots and frames, because the page half
 * resolves shadow paths and the hand adds frame origins.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "cascade/cascade_int.h"
#include "motion/path.h"

typedef struct slider {
    int kind; /* 0 none, 1 range, 2 aria */
    double min, max, step, value;
    base_rect track, thumb;
    int vertical, self_track;
} slider;

static base_rect rect_of(const cJSON *o, base_point org)
{
    base_rect r = {(float)cascade__num(o, "x0", 0) + org.x, (float)cascade__num(o, "y0", 0) + org.y,
                   (float)cascade__num(o, "x1", 0) + org.x, (float)cascade__num(o, "y1", 0) + org.y};
    return r;
}

static base_err read_slider(cascade_hand *h, const char *fid, const cascade_target *t,
                            base_point org, slider *s, char *desc, size_t dn, char *err)
{
    cJSON *a = cascade__xpath_arg(t->xpath);
    cJSON *v = NULL;
    base_err e = a ? cascade__call(h, fid, "slider", a, 1, &v, 10000, err)
                   : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
    if (e)
        return e;
    memset(s, 0, sizeof *s);
    if (desc && dn)
        snprintf(desc, dn, "%s", cascade__str(v, "desc") ? cascade__str(v, "desc") : "");
    const char *k = cascade__str(v, "kind");
    if (cascade__bool(v, "found") && k) {
        s->kind = strcmp(k, "range") == 0 ? 1 : strcmp(k, "aria") == 0 ? 2 : 0;
        s->min = cascade__num(v, "min", 0);
        s->max = cascade__num(v, "max", 100);
        s->step = cascade__num(v, "step", 0);
        s->value = cascade__num(v, "value", s->min);
        s->track = rect_of(cJSON_GetObjectItemCaseSensitive(v, "rect"), org);
        s->thumb = rect_of(cJSON_GetObjectItemCaseSensitive(v, "thumb"), org);
        s->vertical = cascade__bool(v, "vertical");
        s->self_track = cascade__bool(v, "self_track");
        const char *dis = cascade__str(v, "disabled");
        if (dis && dis[0])
            s->kind = -1;
    } else if (!cascade__bool(v, "found")) {
        s->kind = -2;
    }
    cJSON_Delete(v);
    return BASE_OK;
}

static double frac_of(const slider *s, double v)
{
    if (s->max <= s->min)
        return 0;
    double f = (v - s->min) / (s->max - s->min);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Where on screen the slider shows value v. A native range input's thumb
 * travels the track minus the thumb's own width (Chromium's default thumb is
 * about 16 px, capped by the input's height). */
static base_point point_for(const slider *s, double v)
{
    double f = frac_of(s, v);
    base_point p;
    if (s->kind == 1) {
        float along = s->vertical ? base_rect_h(s->track) : base_rect_w(s->track);
        float across = s->vertical ? base_rect_w(s->track) : base_rect_h(s->track);
        float th = across < 16 ? across : 16;
        float off = th / 2 + (float)f * (along - th);
        if (s->vertical) /* vertical ranges grow upwards */
            p = (base_point){(s->track.x0 + s->track.x1) / 2, s->track.y1 - off};
        else
            p = (base_point){s->track.x0 + off, (s->track.y0 + s->track.y1) / 2};
        return p;
    }
    base_point c = base_rect_center(s->thumb);
    if (s->vertical)
        p = (base_point){c.x, s->track.y1 - (float)f * base_rect_h(s->track)};
    else
        p = (base_point){s->track.x0 + (float)f * base_rect_w(s->track), c.y};
    return p;
}

/* Where to press to grab the thumb now. */
static base_point grab_point(const slider *s)
{
    if (s->kind == 1)
        return point_for(s, s->value);
    if (s->self_track)
        return point_for(s, s->value);
    return base_rect_center(s->thumb);
}

static double tolerance(const slider *s)
{
    double span = s->max - s->min;
    if (s->step > 0)
        return s->step / 2;
    return span > 0 ? span * 0.005 : 0.5;
}

static double snap_value(const slider *s, double v)
{
    if (v < s->min)
        v = s->min;
    if (v > s->max)
        v = s->max;
    if (s->step > 0)
        v = s->min + round((v - s->min) / s->step) * s->step;
    return v;
}

/* Press at `from`, drag to `to` along a drag path, release exactly there. */
static base_err drag_once(cascade_hand *h, base_point from, base_point to, cascade_result *out,
                          char *err)
{
    base_err e;
    if (h->o.humanize) {
        motion_path ap;
        memset(&ap, 0, sizeof ap);
        e = motion_plan_path(h->cursor, from, MOTION_CLICK, cascade__seed(h), &ap);
        if (e)
            return base_errf(err, e, "cascade: cannot plan the approach");
        e = cascade__replay(h, &ap, 0, out, err);
        base_point at = ap.release;
        motion_path_fini(&ap);
        if (e)
            return e;
        float hes = 0, hold = 0;
        motion_plan_click_timing(cascade__seed(h), &hes, &hold);
        base_sleep_ms(hes);
        from = at;
    } else {
        e = cascade__mouse(h, "mouseMoved", from, 0, err);
        if (e)
            return e;
    }
    e = cascade__mouse(h, "mousePressed", from, 1, err);
    if (e)
        return e;
    motion_path dp;
    memset(&dp, 0, sizeof dp);
    e = motion_plan_path(from, to, MOTION_DRAG, cascade__seed(h), &dp);
    if (e)
        return base_errf(err, e, "cascade: cannot plan the drag");
    if (h->o.humanize) {
        e = cascade__replay(h, &dp, 1, out, err);
    } else {
        /* No humanization: the same points without the waits, pipelined. */
        const char *m[512];
        cJSON *pa[512];
        int n = dp.n < 512 ? dp.n : 512;
        for (int i = 0; i < n; i++) {
            m[i] = "Input.dispatchMouseEvent";
            pa[i] = cascade__mouse_params(
                "mouseMoved", (base_point){dp.pts[i].x, dp.pts[i].y}, 1);
        }
        e = cascade__pipeline(h, m, pa, n, err);
    }
    motion_path_fini(&dp);
    if (e)
        return e;
    if (h->o.humanize)
        base_sleep_ms(base_rng_uniform(&h->rng, 40, 120)); /* settle before letting go */
    e = cascade__mouse(h, "mouseReleased", to, 0, err);
    if (!e && out)
        out->clicked_at = to;
    return e;
}

static base_err press_key(cascade_hand *h, const char *key, int vk, int times, char *err)
{
    for (int i = 0; i < times; i++) {
        const char *m[2] = {"Input.dispatchKeyEvent", "Input.dispatchKeyEvent"};
        cJSON *pa[2];
        for (int k = 0; k < 2; k++) {
            pa[k] = cJSON_CreateObject();
            if (pa[k] && (!cJSON_AddStringToObject(pa[k], "type", k ? "keyUp" : "rawKeyDown") ||
                          !cJSON_AddStringToObject(pa[k], "key", key) ||
                          !cJSON_AddStringToObject(pa[k], "code", key) ||
                          !cJSON_AddNumberToObject(pa[k], "windowsVirtualKeyCode", vk))) {
                cJSON_Delete(pa[k]);
                pa[k] = NULL; /* the pipeline then sends neither event */
            }
        }
        base_err e = cascade__pipeline(h, m, pa, 2, err);
        if (e)
            return e;
        if (h->o.humanize)
            base_sleep_ms(base_rng_uniform(&h->rng, 60, 140));
    }
    return BASE_OK;
}

base_err cascade_drag(cascade_hand *h, const cascade_target *t, base_point to, double value,
                      int have_value, cascade_result *out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_drag: NULL result");
    cascade__result_init(out);
    if (!h || !t || !(t->xpath && t->xpath[0]) ||
        (have_value ? !isfinite(value) : !(isfinite(to.x) && isfinite(to.y)))) {
        cascade__msg(out, CASCADE_ERROR, "invalid arguments: a drag needs an element's xpath "
                                         "and a finite value or point");
        return base_errf(err, BASE_EINVAL, "cascade_drag: bad hand, target, value or point");
    }
    double t0 = base_monotime_ms();
    const char *fid = t->frame_id ? t->frame_id : "";
    const char *label = t->label && t->label[0] ? t->label : t->xpath;
    base_point org;
    base_err e = cascade__frame_origin(h, t, fid, &org, err);
    slider s;
    char desc[160] = "";
    if (!e)
        e = read_slider(h, fid, t, org, &s, desc, sizeof desc, err);
    if (e)
        goto transport;
    if (s.kind == -2) {
        cascade__msg(out, CASCADE_NOT_FOUND, "%s was not found (take a fresh look)", label);
        goto done;
    }
    if (s.kind == -1) {
        cascade__msg(out, CASCADE_DISABLED, "%s (%s) is disabled; not dragged", label, desc);
        goto done;
    }
    if (have_value && s.kind == 0) {
        cascade__msg(out, CASCADE_NOT_FOUND,
                     "%s (%s) is neither a range input nor a role=slider widget", label, desc);
        cascade__alt(out, "drag to a point instead, or point at the slider's thumb");
        goto done;
    }

    if (!have_value) {
        /* A plain drag from the element's centre (or the thumb) to `to`. */
        base_point from = s.kind > 0 ? grab_point(&s) : base_rect_center(s.thumb);
        if (s.kind == 0) {
            cJSON *a = cascade__xpath_arg(t->xpath);
            cJSON *p = NULL;
            e = a ? cascade__call(h, fid, "probe", a, 1, &p, 15000, err)
                  : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
            if (e)
                goto transport;
            if (!cascade__bool(p, "found") || cascade__str(p, "covered") ||
                cascade__str(p, "invisible")) {
                const char *cov = cascade__str(p, "covered");
                cascade__msg(out, cov ? CASCADE_COVERED : CASCADE_INVISIBLE,
                             "%s cannot be grabbed: %s", label,
                             cov ? cov : cascade__str(p, "invisible") ? cascade__str(p, "invisible")
                                                                      : "not found");
                cJSON_Delete(p);
                goto done;
            }
            from = (base_point){(float)cascade__num(p, "x", 0) + org.x,
                                (float)cascade__num(p, "y", 0) + org.y};
            cJSON_Delete(p);
        }
        double ts = base_monotime_ms();
        cascade_try *tr = cascade__try(out, 1);
        e = drag_once(h, from, to, out, err);
        if (e)
            goto transport;
        if (tr) {
            tr->success = 1;
            tr->ms = base_monotime_ms() - ts;
            snprintf(tr->outcome, sizeof tr->outcome, "dragged (%.0f,%.0f) -> (%.0f,%.0f)",
                     from.x, from.y, to.x, to.y);
        }
        out->success = 1;
        cascade__msg(out, CASCADE_OK, "dragged %s to (%.0f,%.0f)", label, to.x, to.y);
        goto done;
    }

    double want = snap_value(&s, value);
    double tol = tolerance(&s);
    double got = s.value;
    base_point aim = point_for(&s, want);
    for (int attempt = 0; attempt < 3 && fabs(got - want) > tol; attempt++) {
        double ts = base_monotime_ms();
        cascade_try *tr = cascade__try(out, attempt + 1);
        e = drag_once(h, grab_point(&s), aim, out, err);
        if (e)
            goto transport;
        e = read_slider(h, fid, t, org, &s, NULL, 0, err);
        if (e)
            goto transport;
        got = s.value;
        if (tr) {
            tr->success = fabs(got - want) <= tol;
            tr->ms = base_monotime_ms() - ts;
            snprintf(tr->outcome, sizeof tr->outcome, "drag to (%.0f,%.0f): value %g", aim.x,
                     aim.y, got);
        }
        /* Aim again by the observed error (the widget's mapping may be
         * offset or nonlinear near the ends). */
        base_point now = point_for(&s, got), ideal = point_for(&s, want);
        aim.x += ideal.x - now.x;
        aim.y += ideal.y - now.y;
    }
    if (fabs(got - want) > tol) {
        /* The last steps by keyboard, as people do with a focused slider. */
        double step = s.step > 0 ? s.step : (s.max - s.min) / 100;
        int n = step > 0 ? (int)lround(fabs(want - got) / step) : 0;
        if (n > 0 && n <= 100) {
            cJSON *a = cascade__xpath_arg(t->xpath);
            cJSON *v = NULL;
            e = a ? cascade__call(h, fid, "focusEl", a, 1, &v, 10000, err)
                  : base_errf(err, BASE_ENOMEM, "cascade: out of memory");
            cJSON_Delete(v);
            if (!e) {
                int up = want > got;
                e = press_key(h, up ? "ArrowRight" : "ArrowLeft", up ? 39 : 37, n, err);
            }
            if (e)
                goto transport;
            e = read_slider(h, fid, t, org, &s, NULL, 0, err);
            if (e)
                goto transport;
            got = s.value;
            if (out->n_tried > 0) {
                cascade_try *last = &out->tried[out->n_tried - 1];
                size_t l = strlen(last->outcome);
                snprintf(last->outcome + l, sizeof last->outcome - l, "; %d arrow keys: %g", n,
                         got);
                last->success = fabs(got - want) <= tol;
            }
        }
    }
    if (fabs(got - want) <= tol) {
        out->success = 1;
        cascade__msg(out, CASCADE_OK, "%s is at %g (asked %g)", label, got, value);
    } else {
        cascade__msg(out, CASCADE_NO_EFFECT, "%s stays at %g, asked %g (range %g..%g)", label, got,
                     value, s.min, s.max);
        cascade__alt(out, "the slider may need a click on its track, or a typed value");
    }
    goto done;

transport:
    cascade__msg(out, CASCADE_ERROR, "drag on %s failed: %s", label,
                 err && err[0] ? err : base_strerror(e));
    out->ms = base_monotime_ms() - t0;
    return e;
done:
    out->ms = base_monotime_ms() - t0;
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "drag %s: %s (%s)", label,
             cascade_reason_name(out->reason), out->message);
    return BASE_OK;
}

/* motion/path.c: humanized cursor paths (SuperBrowser Algorithm 6) and the
 * click waits of Algorithm 5.
 *
 * A path is a cubic Bezier from the current cursor position to the (jittered)
 * target. Its two control points sit at U(0.25,0.40) and U(0.60,0.80) of the
 * way along the chord, pushed sideways along the chord's normal by
 * N(0, (0.12 d)^2), which gives the gentle arc of a wrist movement. The curve
 * is sampled at N = max(ceil(d/12), 12) eased parameters, sine easing for
 * clicks and logistic easing for drags, and each waypoint waits
 * T/N (1 + 0.4 (1 - phi'(i/N))) + U(0,5) ms, so steps are short in time where
 * the hand moves fast. Clicks then wobble around the press point; drags may
 * pause briefly mid-way and, on long distances, overshoot and correct.
 *
 * All randomness comes from one base_rng seeded by the caller, drawn in a
 * fixed order, so a plan is a pure function of its inputs. Geometry is done in
 * double and stored as float; end points are assigned exactly rather than
 * evaluated, so "ends on the target" holds bit for bit.
 */
#include "motion/path.h"

#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"

/* Algorithm 6, step 0: point count and duration. */
#define STEP_PX 12.0
#define MIN_POINTS 12
#define MS_PER_PX 1.8
#define MIN_MS 100.0
#define MAX_MS 800.0
/* Click target jitter sigma_T = 2 px (paper), truncated to a 2 px disk so the
 * press always lands within +-2 px (our choice; see DESIGN.md). */
#define CLICK_SIGMA_PX 2.0
#define CLICK_RADIUS_PX 2.0
/* Step 1: control points. */
#define ALPHA1_LO 0.25
#define ALPHA1_HI 0.40
#define ALPHA2_LO 0.60
#define ALPHA2_HI 0.80
#define ARC_SIGMA 0.12
/* Step 2: logistic steepness. */
#define LOGISTIC_K 8.0
/* Step 3: timing. */
#define TIMING_GAIN 0.4
#define TIMING_JITTER_MS 5.0
#define MICRO_PAUSE_P 0.05
#define MICRO_PAUSE_LO_MS 40.0
#define MICRO_PAUSE_HI_MS 120.0
/* Step 4: wobble. */
#define WOBBLE_SIGMA_PX 1.2
#define WOBBLE_LO_MS 8.0
#define WOBBLE_HI_MS 18.0
/* Drag overshoot (paper: "5-15 % on long drags"; exact rule is ours). */
#define OVERSHOOT_MIN_PX 300.0
#define OVERSHOOT_SPAN_PX 700.0
#define OVERSHOOT_P_LO 0.05
#define OVERSHOOT_P_HI 0.15
#define OVERSHOOT_FRAC_LO 0.03
#define OVERSHOOT_FRAC_HI 0.07
#define OVERSHOOT_MAX_PX 50.0
#define CORRECT_POINTS 6
#define CORRECT_BASE_MS 60.0
#define CORRECT_REACT_LO_MS 80.0
#define CORRECT_REACT_HI_MS 200.0
/* Click waits (Algorithm 5), truncated to sane positive ranges. */
#define HESITATE_MEAN_MS 100.0
#define HESITATE_SD_MS 50.0
#define HESITATE_LO_MS 20.0
#define HESITATE_HI_MS 300.0
#define HOLD_MEAN_MS 90.0
#define HOLD_SD_MS 25.0
#define HOLD_LO_MS 30.0
#define HOLD_HI_MS 200.0

static const double PI = 3.14159265358979323846;

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static double logistic(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

double motion_ease(motion_mode mode, double t)
{
    /* The comparisons are written so that NaN falls into the first branch. */
    if (!(t > 0.0))
        return 0.0;
    if (!(t < 1.0))
        return 1.0;
    if (mode == MOTION_DRAG) {
        /* The paper's sigma(8(t - 0.5)) only reaches 0.982 at t = 1, which
         * would stop a drag 1.8 % short; rescaling keeps its shape and makes
         * the release exact. */
        double lo = logistic(-LOGISTIC_K / 2.0);
        double hi = logistic(LOGISTIC_K / 2.0);
        return (logistic(LOGISTIC_K * (t - 0.5)) - lo) / (hi - lo);
    }
    return 0.5 * (1.0 - cos(PI * t));
}

double motion_ease_slope(motion_mode mode, double t)
{
    t = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
    if (mode == MOTION_DRAG) {
        double lo = logistic(-LOGISTIC_K / 2.0);
        double hi = logistic(LOGISTIC_K / 2.0);
        double s = logistic(LOGISTIC_K * (t - 0.5));
        return LOGISTIC_K * s * (1.0 - s) / (hi - lo);
    }
    return 0.5 * PI * sin(PI * t);
}

/* Normal deviate truncated to [lo, hi] by rejection, so the density keeps its
 * shape instead of piling up at the bounds. The acceptance rate of every use
 * here is above 90 %; the cap only guards against a pathological stream. */
static double trunc_normal(base_rng *r, double mean, double sd, double lo, double hi)
{
    for (int i = 0; i < 64; i++) {
        double v = base_rng_normal(r, mean, sd);
        if (v >= lo && v <= hi)
            return v;
    }
    return clampd(mean, lo, hi);
}

static int coord_ok(float v)
{
    return isfinite(v) && fabsf(v) <= MOTION_COORD_LIMIT_PX;
}

/* One waypoint's wait, Algorithm 6 line 18, for sample i of n over a segment
 * lasting seg_ms. */
static double step_ms(base_rng *r, motion_mode mode, double seg_ms, int i, int n)
{
    double s = (double)i / n;
    return seg_ms / n * (1.0 + TIMING_GAIN * (1.0 - motion_ease_slope(mode, s))) +
           base_rng_uniform(r, 0.0, TIMING_JITTER_MS);
}

base_err motion_plan_path(base_point from, base_point to, motion_mode mode, uint64_t seed,
                          motion_path *out)
{
    if (!out || (mode != MOTION_CLICK && mode != MOTION_DRAG))
        return BASE_EINVAL;
    if (!coord_ok(from.x) || !coord_ok(from.y) || !coord_ok(to.x) || !coord_ok(to.y))
        return BASE_EINVAL;

    base_rng rng;
    base_rng_seed(&rng, seed);
    base_rng *r = &rng;

    double x0 = from.x, y0 = from.y;
    double d = hypot((double)to.x - x0, (double)to.y - y0);
    double nd = ceil(d / STEP_PX);
    int n_curve = nd > MIN_POINTS ? (int)nd : MIN_POINTS;
    double dur = clampd(d * MS_PER_PX, MIN_MS, MAX_MS);

    /* Step 0: where the hand presses. Clicks land near the centre, drags
     * release exactly where asked (sigma_T = 0). */
    base_point release = to;
    if (mode == MOTION_CLICK) {
        /* Rejection keeps the normal's shape inside the disk; acceptance is
         * 39 %, so 64 tries fail with probability ~1e-14 (then: no jitter). */
        double jx = 0.0, jy = 0.0;
        for (int tries = 0; tries < 64; tries++) {
            double ax = base_rng_normal(r, 0.0, CLICK_SIGMA_PX);
            double ay = base_rng_normal(r, 0.0, CLICK_SIGMA_PX);
            if (ax * ax + ay * ay <= CLICK_RADIUS_PX * CLICK_RADIUS_PX) {
                jx = ax;
                jy = ay;
                break;
            }
        }
        release.x = (float)(to.x + jx);
        release.y = (float)(to.y + jy);
    }

    /* Unit direction of the chord (an arbitrary axis for a zero move). */
    double ux = 1.0, uy = 0.0;
    if (d > 1e-6) {
        ux = ((double)to.x - x0) / d;
        uy = ((double)to.y - y0) / d;
    }

    /* Long drags sometimes overshoot along the chord and come back. */
    int overshoot = 0;
    double ov = 0.0;
    if (mode == MOTION_DRAG && d >= OVERSHOOT_MIN_PX) {
        double p = OVERSHOOT_P_LO + (OVERSHOOT_P_HI - OVERSHOOT_P_LO) *
                                        fmin(1.0, (d - OVERSHOOT_MIN_PX) / OVERSHOOT_SPAN_PX);
        if (base_rng_chance(r, p)) {
            overshoot = 1;
            ov = fmin(base_rng_uniform(r, OVERSHOOT_FRAC_LO, OVERSHOOT_FRAC_HI) * d,
                      OVERSHOOT_MAX_PX);
        }
    }
    /* The sweep's end: the press point, or the overshoot point. */
    base_point end = release;
    if (overshoot) {
        end.x = (float)(to.x + ux * ov);
        end.y = (float)(to.y + uy * ov);
    }

    /* Step 1: control points along the sweep's own chord (which differs from
     * from->to by the click jitter or the overshoot), arc amplitude from d. */
    double ex = end.x, ey = end.y;
    double cx = ex - x0, cy = ey - y0;
    double cl = hypot(cx, cy);
    double tx = cl > 1e-6 ? cx / cl : ux;
    double ty = cl > 1e-6 ? cy / cl : uy;
    double nx = -ty, ny = tx;
    double a1 = base_rng_uniform(r, ALPHA1_LO, ALPHA1_HI);
    double a2 = base_rng_uniform(r, ALPHA2_LO, ALPHA2_HI);
    double b1 = base_rng_normal(r, 0.0, ARC_SIGMA * d);
    double b2 = base_rng_normal(r, 0.0, ARC_SIGMA * d);
    double c1x = x0 + a1 * cx + b1 * nx, c1y = y0 + a1 * cy + b1 * ny;
    double c2x = x0 + a2 * cx + b2 * nx, c2y = y0 + a2 * cy + b2 * ny;

    int n_extra = 0;
    if (mode == MOTION_CLICK)
        n_extra = 2 + (int)base_rng_below(r, 2);
    else if (overshoot)
        n_extra = CORRECT_POINTS;
    int n = n_curve + n_extra;
    motion_waypoint *pts = base_calloc((size_t)n, sizeof *pts);
    if (!pts)
        return BASE_ENOMEM;

    /* Steps 2-3: eased samples of the Bezier with variable timing. */
    double total = 0.0;
    for (int i = 1; i <= n_curve; i++) {
        double tau = motion_ease(mode, (double)i / n_curve);
        double v = 1.0 - tau;
        double w0 = v * v * v, w1 = 3.0 * v * v * tau, w2 = 3.0 * v * tau * tau;
        double w3 = tau * tau * tau;
        motion_waypoint *p = &pts[i - 1];
        if (i == n_curve) {
            p->x = end.x;
            p->y = end.y;
        } else {
            p->x = (float)(w0 * x0 + w1 * c1x + w2 * c2x + w3 * ex);
            p->y = (float)(w0 * y0 + w1 * c1y + w2 * c2y + w3 * ey);
        }
        double dt = step_ms(r, mode, dur, i, n_curve);
        if (mode == MOTION_DRAG && base_rng_chance(r, MICRO_PAUSE_P))
            dt += base_rng_uniform(r, MICRO_PAUSE_LO_MS, MICRO_PAUSE_HI_MS);
        p->dt_ms = (float)dt;
        total += p->dt_ms;
    }

    if (mode == MOTION_CLICK) {
        /* Step 4: the hand settles with a few small corrections; the last one
         * lands on the press point so press and path agree. */
        for (int k = 0; k < n_extra; k++) {
            motion_waypoint *p = &pts[n_curve + k];
            if (k == n_extra - 1) {
                p->x = release.x;
                p->y = release.y;
            } else {
                p->x = (float)(release.x + base_rng_normal(r, 0.0, WOBBLE_SIGMA_PX));
                p->y = (float)(release.y + base_rng_normal(r, 0.0, WOBBLE_SIGMA_PX));
            }
            p->dt_ms = (float)base_rng_uniform(r, WOBBLE_LO_MS, WOBBLE_HI_MS);
            total += p->dt_ms;
        }
    } else if (overshoot) {
        /* Correction: notice the overshoot, then a short straight logistic
         * move back onto the exact target. */
        double seg = CORRECT_BASE_MS + MS_PER_PX * ov;
        for (int j = 1; j <= n_extra; j++) {
            double tau = motion_ease(MOTION_DRAG, (double)j / n_extra);
            motion_waypoint *p = &pts[n_curve + j - 1];
            if (j == n_extra) {
                p->x = to.x;
                p->y = to.y;
            } else {
                p->x = (float)(ex + tau * ((double)to.x - ex));
                p->y = (float)(ey + tau * ((double)to.y - ey));
            }
            double dt = step_ms(r, MOTION_DRAG, seg, j, n_extra);
            if (j == 1)
                dt += base_rng_uniform(r, CORRECT_REACT_LO_MS, CORRECT_REACT_HI_MS);
            p->dt_ms = (float)dt;
            total += p->dt_ms;
        }
    }

    memset(out, 0, sizeof *out);
    out->pts = pts;
    out->n = n;
    out->n_curve = n_curve;
    out->duration_ms = (float)dur;
    out->total_ms = (float)total;
    out->from = from;
    out->target = to;
    out->release = release;
    out->overshoot = overshoot;
    return BASE_OK;
}

void motion_path_fini(motion_path *path)
{
    if (!path)
        return;
    base_free(path->pts);
    memset(path, 0, sizeof *path);
}

base_err motion_plan_click_timing(uint64_t seed, float *hesitate_ms, float *hold_ms)
{
    base_rng r;
    base_rng_seed(&r, seed);
    /* Both are drawn regardless of which the caller wants, so the hold of a
     * seed does not depend on whether the hesitation was asked for. */
    double h = trunc_normal(&r, HESITATE_MEAN_MS, HESITATE_SD_MS, HESITATE_LO_MS,
                            HESITATE_HI_MS);
    double k = trunc_normal(&r, HOLD_MEAN_MS, HOLD_SD_MS, HOLD_LO_MS, HOLD_HI_MS);
    if (hesitate_ms)
        *hesitate_ms = (float)h;
    if (hold_ms)
        *hold_ms = (float)k;
    return BASE_OK;
}

/* motion/path.h: humanized cursor paths and click timing (SuperBrowser
 * Algorithm 6 and the waits of Algorithm 5).
 *
 * Pure functions: plain data and a seed in, plain data out. The same inputs
 * and seed always give the same plan, bit for bit, so a recorded step can be
 * replayed offline. Nothing here does I/O, logs, reads a clock or keeps
 * global state; every function may be called from any thread. Constants and
 * their sources are in motion/DESIGN.md.
 */
#ifndef FOVEA_MOTION_PATH_H
#define FOVEA_MOTION_PATH_H

#include <stdint.h>

#include "base/err.h"
#include "base/geom.h"

/* Coordinates beyond +-MOTION_COORD_LIMIT_PX are rejected: they bound the
 * number of waypoints (and so the allocation) a caller can ask for. */
#define MOTION_COORD_LIMIT_PX 1.0e6f

typedef enum motion_mode {
    MOTION_CLICK = 0, /* sine easing, target jitter, terminal wobble */
    MOTION_DRAG = 1,  /* logistic easing, exact release, micro-pauses, overshoot */
} motion_mode;

/* One cursor position to dispatch, after waiting dt_ms since the previous one
 * (or since the start of the replay for the first waypoint). */
typedef struct motion_waypoint {
    float x, y;
    float dt_ms;
} motion_waypoint;

/* A planned cursor path. pts[0, n_curve) is the Bezier sweep of Algorithm 6;
 * pts[n_curve, n) is the terminal wobble (clicks, 2-3 points, the last one
 * exactly on `release`) or the overshoot correction (drags with overshoot,
 * the last one exactly on `target`). The cursor is assumed to sit at `from`
 * already, so `from` itself is not emitted. */
typedef struct motion_path {
    motion_waypoint *pts; /* owned; freed by motion_path_fini */
    int n;                /* total waypoints */
    int n_curve;          /* waypoints of the main Bezier sweep */
    float duration_ms;    /* nominal sweep duration T = clamp(1.8 d, 100, 800) */
    float total_ms;       /* sum of every dt_ms (jitter, pauses, wobble included) */
    base_point from;      /* start as given */
    base_point target;    /* end as given */
    base_point release;   /* where to press/release: target + jitter (click), target (drag) */
    int overshoot;        /* 1 when a drag overshoots and corrects, else 0 */
} motion_path;

/* Plans a humanized cursor path from `from` to `to` (Algorithm 6) using only
 * the random stream of `seed`. On success fills *out, which the caller owns
 * and releases with motion_path_fini. Any thread.
 * Errors: BASE_EINVAL for a NULL out, an unknown mode, or a non-finite
 * coordinate or one beyond +-MOTION_COORD_LIMIT_PX; BASE_ENOMEM. On failure
 * *out is untouched. from == to is valid (12 points near the target). */
base_err motion_plan_path(base_point from, base_point to, motion_mode mode, uint64_t seed,
                          motion_path *out);

/* Frees the waypoints of a path and zeroes it. NULL or an already finalized
 * path is a no-op. Any thread (the one owning the path). Cannot fail. */
void motion_path_fini(motion_path *path);

/* Draws the two waits around a click (Algorithm 5): the hesitation before
 * pressing, N(100, 50) ms truncated to [20, 300], and the press-to-release
 * hold, N(90, 25) ms truncated to [30, 200]. Either out pointer may be NULL
 * when the caller does not need it. Any thread. Cannot fail; returns BASE_OK. */
base_err motion_plan_click_timing(uint64_t seed, float *hesitate_ms, float *hold_ms);

/* The velocity profile phi(t) of `mode` for t in [0, 1]: sine easing for
 * clicks, logistic easing (rescaled so phi(0) = 0 and phi(1) = 1) for drags.
 * t outside [0, 1] (or NaN) is clamped. Pure; any thread; cannot fail. */
double motion_ease(motion_mode mode, double t);

/* The derivative phi'(t) of motion_ease, used by the per-waypoint timing.
 * Same clamping. Pure; any thread; cannot fail. */
double motion_ease_slope(motion_mode mode, double t);

#endif

/* tests/motion/test_motion.c: property tests for motion/ over thousands of
 * seeds: path geometry and timing against Algorithm 6, click waits, typing
 * cadence statistics, round trips, determinism and input validation. */
#include <stdint.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/rng.h"
#include "check.h"
#include "motion/path.h"
#include "motion/typing.h"

#define SEEDS 4000

static double dist(double ax, double ay, double bx, double by)
{
    return hypot(ax - bx, ay - by);
}

/* The reference point count and duration, recomputed independently. */
static int expect_n(base_point a, base_point b)
{
    double d = hypot((double)b.x - a.x, (double)b.y - a.y);
    int n = (int)ceil(d / 12.0);
    return n > 12 ? n : 12;
}

static double expect_ms(base_point a, base_point b)
{
    double d = hypot((double)b.x - a.x, (double)b.y - a.y);
    return fmin(fmax(1.8 * d, 100.0), 800.0);
}

static base_point rand_point(base_rng *r)
{
    base_point p = {(float)base_rng_uniform(r, 0, 1920), (float)base_rng_uniform(r, 0, 1080)};
    return p;
}

/* Structural properties every path must have, for both modes. */
static void path_endpoints(void)
{
    base_rng r;
    base_rng_seed(&r, 42);
    for (int s = 0; s < SEEDS; s++) {
        for (int m = 0; m < 2; m++) {
            motion_mode mode = m ? MOTION_DRAG : MOTION_CLICK;
            base_point a = rand_point(&r), b = rand_point(&r);
            double d = dist(a.x, a.y, b.x, b.y);
            motion_path p;
            CHECK_OK(motion_plan_path(a, b, mode, (uint64_t)s, &p));
            int n = p.n, nc = p.n_curve, extra = p.n - p.n_curve;
            motion_waypoint first = p.pts[0], last = p.pts[p.n - 1];
            motion_waypoint cend = p.pts[nc - 1];
            double sum = 0.0;
            int finite = 1;
            for (int i = 0; i < n; i++) {
                sum += p.pts[i].dt_ms;
                finite &= isfinite(p.pts[i].x) && isfinite(p.pts[i].y) && p.pts[i].dt_ms > 0;
            }
            motion_path q = p;
            motion_path_fini(&p);
            CHECK(finite);
            CHECK_EQ(nc, expect_n(a, b));
            CHECK_NEAR(q.duration_ms, expect_ms(a, b), 1e-3);
            CHECK(q.duration_ms >= 100.0f && q.duration_ms <= 800.0f);
            CHECK_NEAR(q.total_ms, sum, 1e-3 * sum);
            CHECK(q.target.x == b.x && q.target.y == b.y);
            /* The first waypoint is one small eased step away from `from`. */
            CHECK_MSG(dist(first.x, first.y, a.x, a.y) <= 0.1 * d + 1.0, "first step %g of %g",
                      dist(first.x, first.y, a.x, a.y), d);
            if (mode == MOTION_CLICK) {
                CHECK(extra == 2 || extra == 3);
                CHECK(last.x == q.release.x && last.y == q.release.y);
                CHECK(cend.x == q.release.x && cend.y == q.release.y);
                CHECK(dist(q.release.x, q.release.y, b.x, b.y) <= 2.0 + 1e-3);
                CHECK_EQ(q.overshoot, 0);
            } else {
                CHECK(last.x == b.x && last.y == b.y);
                CHECK(q.release.x == b.x && q.release.y == b.y);
                CHECK_EQ(extra, q.overshoot ? 6 : 0);
            }
        }
    }
}

/* Every sweep waypoint waits T/N (1 + 0.4 (1 - phi'(i/N))) + U(0,5) ms, plus
 * U(40,120) for a drag micro-pause; clicks' sweep sums to T within the
 * Riemann error and jitter; wobble steps take 8-18 ms. */
static void path_timing(void)
{
    base_rng r;
    base_rng_seed(&r, 7);
    long pauses = 0, steps = 0;
    for (int s = 0; s < SEEDS; s++) {
        for (int m = 0; m < 2; m++) {
            motion_mode mode = m ? MOTION_DRAG : MOTION_CLICK;
            base_point a = rand_point(&r), b = rand_point(&r);
            motion_path p;
            CHECK_OK(motion_plan_path(a, b, mode, (uint64_t)s * 3 + 1, &p));
            double T = p.duration_ms, sum = 0.0;
            int N = p.n_curve, bad = 0, badwob = 0;
            for (int i = 1; i <= N; i++) {
                double base = T / N * (1.0 + 0.4 * (1.0 - motion_ease_slope(mode, (double)i / N)));
                double res = p.pts[i - 1].dt_ms - base;
                sum += p.pts[i - 1].dt_ms;
                steps += mode == MOTION_DRAG;
                if (res >= -1e-3 && res <= 5.0 + 1e-3)
                    continue;
                if (mode == MOTION_DRAG && res >= 40.0 - 1e-3 && res <= 125.0 + 1e-3) {
                    pauses++;
                    continue;
                }
                bad++;
            }
            for (int i = N; mode == MOTION_CLICK && i < p.n; i++)
                badwob += !(p.pts[i].dt_ms >= 8.0f && p.pts[i].dt_ms <= 18.0f);
            motion_path_fini(&p);
            CHECK_EQ(bad, 0);
            CHECK_EQ(badwob, 0);
            if (mode == MOTION_CLICK)
                CHECK_MSG(sum >= 0.98 * T && sum <= 1.02 * T + 5.0 * N, "sweep %g ms, T %g", sum,
                          T);
        }
    }
    double rate = (double)pauses / (double)steps;
    CHECK_MSG(rate > 0.045 && rate < 0.055, "micro-pause rate %g", rate);
}

/* Projection of a waypoint onto the line through a with direction (ux, uy). */
static double proj(motion_waypoint w, base_point a, double ux, double uy)
{
    return (w.x - a.x) * ux + (w.y - a.y) * uy;
}

/* The eased parameter is monotone, and so is the sweep's progress: the control
 * points' projections onto the sweep's own chord are increasing, so the
 * Bezier's projection is non-decreasing in tau exactly (float rounding
 * aside). On the requested from->to axis a click can step back only through
 * the tilt its +-2 px end jitter gives the chord, which is at most ~1 px. */
static void path_monotone(void)
{
    for (int m = 0; m < 2; m++) {
        motion_mode mode = m ? MOTION_DRAG : MOTION_CLICK;
        CHECK(motion_ease(mode, 0.0) == 0.0 && motion_ease(mode, 1.0) == 1.0);
        double prev = 0.0;
        for (int i = 1; i <= 1000; i++) {
            double t = i / 1000.0, v = motion_ease(mode, t);
            CHECK(v >= prev);
            CHECK_NEAR(motion_ease(mode, 1.0 - t), 1.0 - v, 1e-12);
            prev = v;
        }
    }
    base_rng r;
    base_rng_seed(&r, 99);
    for (int s = 0; s < SEEDS; s++) {
        for (int m = 0; m < 2; m++) {
            motion_mode mode = m ? MOTION_DRAG : MOTION_CLICK;
            base_point a = rand_point(&r), b = rand_point(&r);
            double d = dist(a.x, a.y, b.x, b.y);
            if (d < 20.0)
                continue;
            motion_path p;
            CHECK_OK(motion_plan_path(a, b, mode, (uint64_t)s + 1000, &p));
            motion_waypoint e = p.pts[p.n_curve - 1];
            double el = dist(e.x, e.y, a.x, a.y);
            double ex = (e.x - a.x) / el, ey = (e.y - a.y) / el;
            double ux = (b.x - a.x) / d, uy = (b.y - a.y) / d;
            double own_back = 0.0, axis_back = 0.0, pown = 0.0, paxis = 0.0;
            for (int i = 0; i < p.n_curve; i++) {
                double po = proj(p.pts[i], a, ex, ey), pa = proj(p.pts[i], a, ux, uy);
                own_back = fmax(own_back, pown - po);
                axis_back = fmax(axis_back, paxis - pa);
                pown = fmax(pown, po);
                paxis = fmax(paxis, pa);
            }
            /* A drag's correction runs straight back to the target. */
            double corr_fwd = 0.0;
            for (int i = p.n_curve; mode == MOTION_DRAG && i < p.n; i++) {
                double pa = proj(p.pts[i], a, ux, uy), pp = proj(p.pts[i - 1], a, ux, uy);
                corr_fwd = fmax(corr_fwd, pa - pp);
            }
            motion_path_fini(&p);
            CHECK_MSG(own_back <= 1e-3, "own-chord backstep %g", own_back);
            CHECK_MSG(axis_back <= (mode == MOTION_CLICK ? 2.0 : 1e-3), "axis backstep %g",
                      axis_back);
            CHECK_MSG(corr_fwd <= 1e-3, "correction moves away %g", corr_fwd);
        }
    }
}

/* Sine easing starts and ends at rest and peaks at pi/2; the logistic is
 * steeper in the middle and already moving at the ends. On real paths a
 * click's middle third is several times faster than its first and last
 * tenths. */
static void path_easing_shape(void)
{
    CHECK_NEAR(motion_ease_slope(MOTION_CLICK, 0.0), 0.0, 1e-12);
    CHECK_NEAR(motion_ease_slope(MOTION_CLICK, 1.0), 0.0, 1e-12);
    CHECK_NEAR(motion_ease_slope(MOTION_CLICK, 0.5), 3.14159265358979 / 2, 1e-9);
    CHECK_NEAR(motion_ease(MOTION_CLICK, 0.5), 0.5, 1e-12);
    CHECK_NEAR(motion_ease(MOTION_DRAG, 0.5), 0.5, 1e-12);
    CHECK(motion_ease_slope(MOTION_DRAG, 0.5) > 2.0);
    CHECK(motion_ease_slope(MOTION_DRAG, 0.0) > 0.0);
    CHECK(motion_ease_slope(MOTION_DRAG, 0.0) < 0.2);
    /* Logistic is slower than sine early on, faster through the middle. */
    CHECK(motion_ease(MOTION_DRAG, 0.2) < motion_ease(MOTION_CLICK, 0.2));
    CHECK(motion_ease(MOTION_DRAG, 0.4) < motion_ease(MOTION_CLICK, 0.4));
    CHECK(isfinite(motion_ease(MOTION_CLICK, NAN)) && motion_ease(MOTION_CLICK, 2.0) == 1.0);

    for (int m = 0; m < 2; m++) {
        motion_mode mode = m ? MOTION_DRAG : MOTION_CLICK;
        double mid = 0.0, ends = 0.0;
        for (int s = 0; s < 500; s++) {
            motion_path p;
            CHECK_OK(motion_plan_path((base_point){100, 500}, (base_point){900, 500}, mode,
                                      (uint64_t)s, &p));
            int N = p.n_curve;
            for (int i = 1; i < N; i++) {
                double v = dist(p.pts[i].x, p.pts[i].y, p.pts[i - 1].x, p.pts[i - 1].y) /
                           p.pts[i].dt_ms;
                if (i >= N / 3 && i < 2 * N / 3)
                    mid += v / (N / 3);
                else if (i < N / 10 || i >= N - N / 10)
                    ends += v / (2 * (N / 10));
            }
            motion_path_fini(&p);
        }
        CHECK_MSG(mid > 3.0 * ends, "mode %d: middle speed %g vs ends %g", m, mid, ends);
    }
}

static void path_zero_distance(void)
{
    base_point t = {300.5f, 200.25f};
    for (int s = 0; s < 500; s++) {
        motion_path c, g;
        CHECK_OK(motion_plan_path(t, t, MOTION_CLICK, (uint64_t)s, &c));
        CHECK_OK(motion_plan_path(t, t, MOTION_DRAG, (uint64_t)s, &g));
        int ok_c = c.n_curve == 12 && (c.n == 14 || c.n == 15) && c.duration_ms == 100.0f;
        for (int i = 0; i < c.n_curve; i++)
            ok_c &= dist(c.pts[i].x, c.pts[i].y, t.x, t.y) <= 2.0 + 1e-3;
        for (int i = c.n_curve; i < c.n; i++)
            ok_c &= dist(c.pts[i].x, c.pts[i].y, t.x, t.y) <= 12.0;
        int ok_g = g.n == 12 && g.n_curve == 12 && !g.overshoot;
        for (int i = 0; i < g.n; i++)
            ok_g &= g.pts[i].x == t.x && g.pts[i].y == t.y;
        motion_path_fini(&c);
        motion_path_fini(&g);
        CHECK(ok_c);
        CHECK(ok_g);
    }
}

static void path_invalid(void)
{
    motion_path p, sentinel;
    memset(&sentinel, 0xAB, sizeof sentinel);
    base_point ok = {10, 10};
    base_point bad[] = {{NAN, 0}, {0, INFINITY}, {-INFINITY, 0}, {2e6f, 0}, {0, -1.5e6f}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = sentinel;
        CHECK_EQ(motion_plan_path(bad[i], ok, MOTION_CLICK, 1, &p), BASE_EINVAL);
        CHECK_EQ(motion_plan_path(ok, bad[i], MOTION_DRAG, 1, &p), BASE_EINVAL);
        CHECK(memcmp(&p, &sentinel, sizeof p) == 0);
    }
    CHECK_EQ(motion_plan_path(ok, ok, (motion_mode)7, 1, &p), BASE_EINVAL);
    CHECK_EQ(motion_plan_path(ok, ok, MOTION_CLICK, 1, NULL), BASE_EINVAL);
    CHECK(memcmp(&p, &sentinel, sizeof p) == 0);
    /* The only allocation failing gives a clean ENOMEM. */
    base_alloc_fail_after(1);
    base_err e = motion_plan_path(ok, (base_point){500, 80}, MOTION_CLICK, 1, &p);
    base_alloc_fail_after(0);
    CHECK_EQ(e, BASE_ENOMEM);
    CHECK(memcmp(&p, &sentinel, sizeof p) == 0);
    motion_path_fini(NULL);
}

static int same_path(const motion_path *a, const motion_path *b)
{
    return a->n == b->n && a->n_curve == b->n_curve && a->total_ms == b->total_ms &&
           a->release.x == b->release.x && a->release.y == b->release.y &&
           a->overshoot == b->overshoot &&
           memcmp(a->pts, b->pts, (size_t)a->n * sizeof *a->pts) == 0;
}

static void path_determinism(void)
{
    base_point a = {12, 700}, b = {1500, 90};
    for (int m = 0; m < 2; m++) {
        motion_mode mode = m ? MOTION_DRAG : MOTION_CLICK;
        for (uint64_t s = 0; s < 200; s++) {
            motion_path p, q, o;
            CHECK_OK(motion_plan_path(a, b, mode, s, &p));
            CHECK_OK(motion_plan_path(a, b, mode, s, &q));
            CHECK_OK(motion_plan_path(a, b, mode, s + 0x9E3779B9u, &o));
            int same = same_path(&p, &q), diff = !same_path(&p, &o);
            motion_path_fini(&p);
            motion_path_fini(&q);
            motion_path_fini(&o);
            CHECK(same);
            CHECK(diff);
        }
    }
}

/* Overshoot rate of drags over `trials` seeds at distance d (random heading). */
static double overshoot_rate(double d, int trials, double *max_ov)
{
    base_rng r;
    base_rng_seed(&r, (uint64_t)d);
    int hits = 0;
    *max_ov = 0.0;
    for (int s = 0; s < trials; s++) {
        double ang = base_rng_uniform(&r, 0, 6.283185307179586);
        base_point a = {1000, 1000};
        base_point b = {(float)(1000 + d * cos(ang)), (float)(1000 + d * sin(ang))};
        motion_path p;
        if (motion_plan_path(a, b, MOTION_DRAG, (uint64_t)s, &p) != BASE_OK)
            return -1.0;
        if (p.overshoot) {
            hits++;
            motion_waypoint e = p.pts[p.n_curve - 1];
            *max_ov = fmax(*max_ov, dist(e.x, e.y, b.x, b.y));
            /* The overshoot point lies beyond the target, on the axis. */
            if (dist(e.x, e.y, a.x, a.y) <= dist(b.x, b.y, a.x, a.y))
                *max_ov = 1e9;
        }
        motion_path_fini(&p);
    }
    return (double)hits / trials;
}

/* Rule: no overshoot below 300 px; p = 0.05 + 0.10 min(1, (d - 300) / 700). */
static void path_overshoot(void)
{
    double mx = 0.0;
    CHECK_NEAR(overshoot_rate(299.5, 4000, &mx), 0.0, 0.0);
    CHECK_NEAR(overshoot_rate(300.5, 20000, &mx), 0.05, 0.008);
    CHECK(mx >= 0.03 * 300 - 0.01 && mx <= 0.07 * 300 + 0.01);
    CHECK_NEAR(overshoot_rate(650.0, 20000, &mx), 0.10, 0.01);
    CHECK(mx <= 0.07 * 650 + 0.01);
    CHECK_NEAR(overshoot_rate(1000.0, 20000, &mx), 0.15, 0.012);
    CHECK(mx <= 50.01);
    CHECK_NEAR(overshoot_rate(1800.0, 20000, &mx), 0.15, 0.012);
    CHECK(mx <= 50.01);
    /* Clicks never overshoot. */
    motion_path p;
    for (uint64_t s = 0; s < 2000; s++) {
        CHECK_OK(motion_plan_path((base_point){0, 0}, (base_point){1500, 0}, MOTION_CLICK, s, &p));
        int ov = p.overshoot;
        motion_path_fini(&p);
        CHECK_EQ(ov, 0);
    }
}

/* Truncated normals: N(100,50) on [20,300] has mean ~105.9; N(90,25) on
 * [30,200] has mean ~90.6. */
static void click_timing(void)
{
    double hs = 0, hs2 = 0, ks = 0;
    const int n = 40000;
    for (int s = 0; s < n; s++) {
        float h = 0, k = 0;
        CHECK_OK(motion_plan_click_timing((uint64_t)s, &h, &k));
        CHECK(h >= 20.0f && h <= 300.0f);
        CHECK(k >= 30.0f && k <= 200.0f);
        hs += h;
        hs2 += (double)h * h;
        ks += k;
        float h2 = 0;
        CHECK_OK(motion_plan_click_timing((uint64_t)s, &h2, NULL));
        CHECK(h2 == h);
    }
    double hm = hs / n, hsd = sqrt(hs2 / n - hm * hm);
    CHECK_MSG(hm > 103.0 && hm < 109.0, "hesitation mean %g", hm);
    CHECK_MSG(hsd > 40.0 && hsd < 50.0, "hesitation sd %g", hsd);
    CHECK_MSG(ks / n > 89.5 && ks / n < 91.7, "hold mean %g", ks / n);
}

/* ---- typing ---------------------------------------------------------------- */

/* Decodes valid UTF-8 into code points (test-side reference). */
static size_t decode_all(const char *s, size_t n, uint32_t *cps)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned char b = (unsigned char)s[i];
        int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        uint32_t v = len == 1 ? b : len == 2 ? (b & 0x1Fu) : len == 3 ? (b & 0x0Fu) : (b & 7u);
        for (int j = 1; j < len; j++)
            v = (v << 6) | ((unsigned char)s[i + j] & 0x3Fu);
        cps[k++] = v;
        i += (size_t)len;
    }
    return k;
}

static int t_space(uint32_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xA0;
}

static int t_punct(uint32_t c)
{
    return c < 128 && c > 32 && c != 127 && !((c >= '0' && c <= '9') ||
                                              (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

static int t_alnum(uint32_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Builds a long pseudo-prose text with punctuation, newlines and non-ASCII
 * words. Caller frees. */
static char *make_text(uint64_t seed, size_t target, size_t *len)
{
    static const char *const words[] = {
        "the", "quick", "brown", "fox", "Jumps", "over", "lazy", "dog", "United", "States",
        "search", "filter", "apply", "2024", "café", "naïve", "東京", "straße", "ok", "Zebra",
        "mp3", "QWERTY", "input", "value", "price", "x"};
    static const char *const seps[] = {" ", " ", " ", " ", ", ", ". ", "! ", "\n", " (", ") "};
    base_rng r;
    base_rng_seed(&r, seed);
    char *s = base_malloc(target + 64);
    size_t n = 0;
    while (s && n < target) {
        const char *w = words[base_rng_below(&r, sizeof words / sizeof words[0])];
        const char *p = seps[base_rng_below(&r, sizeof seps / sizeof seps[0])];
        memcpy(s + n, w, strlen(w));
        n += strlen(w);
        memcpy(s + n, p, strlen(p));
        n += strlen(p);
    }
    *len = n;
    return s;
}

static int roundtrip(const char *s, size_t n, unsigned flags, uint64_t seed)
{
    motion_typing t;
    if (motion_plan_typing(s, n, flags, seed, &t, NULL) != BASE_OK)
        return 0;
    char *buf = base_malloc(n + 8);
    size_t len = 0;
    int ok = buf && motion_typing_result(&t, buf, n + 8, &len) == BASE_OK && len == n &&
             memcmp(buf, s, n) == 0 && buf[n] == '\0';
    base_free(buf);
    motion_typing_fini(&t);
    return ok;
}

static void typing_roundtrip(void)
{
    static const char *const texts[] = {"", "a", "hello world", "Ünïcödé ✓ 東京 🙂 ok",
                                        "p@ss W0rd!", "tab\tnew\nline", "QQQQQQQQQQ zzzz 1111"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        for (uint64_t s = 0; s < 300; s++)
            CHECK_MSG(roundtrip(texts[i], strlen(texts[i]), 0, s), "text %zu seed %llu", i,
                      (unsigned long long)s);
    size_t n = 0;
    char *big = make_text(3, 20000, &n);
    CHECK(big);
    for (uint64_t s = 0; s < 20; s++) {
        int ok = roundtrip(big, n, 0, s);
        if (!ok) {
            base_free(big);
            CHECK(ok);
        }
    }
    base_free(big);
    motion_typing t;
    CHECK_OK(motion_plan_typing(NULL, 0, 0, 1, &t, NULL));
    CHECK_EQ(t.n, 0);
    motion_typing_fini(&t);
    motion_typing_fini(NULL);
}

/* Walks a plan against its input. For every input code point records the
 * delay of its first attempt and whether that attempt was a typo; checks
 * every typo is a different ASCII key, followed by Backspace and the right
 * character. Returns 0 on a structural mismatch. */
static int walk_plan(const motion_typing *t, const uint32_t *cps, size_t ncp, float *first,
                     unsigned char *typo)
{
    size_t idx = 0;
    int j = 0;
    while (j < t->n) {
        const motion_key *k = &t->keys[j];
        if (idx >= ncp || k->kind != MOTION_KEY_CHAR)
            return 0;
        first[idx] = k->delay_ms;
        typo[idx] = 0;
        if (j + 1 < t->n && t->keys[j + 1].kind == MOTION_KEY_BACKSPACE) {
            if (j + 2 >= t->n || t->keys[j + 2].kind != MOTION_KEY_CHAR ||
                t->keys[j + 2].cp != cps[idx] || k->cp == cps[idx] || k->cp >= 128 ||
                !t_alnum(cps[idx]))
                return 0;
            typo[idx] = 1;
            j += 3;
        } else {
            if (k->cp != cps[idx])
                return 0;
            j += 1;
        }
        idx++;
    }
    return idx == ncp;
}

static void typing_stats(void)
{
    size_t n = 0;
    char *text = make_text(11, 200000, &n);
    uint32_t *cps = base_malloc(n * sizeof *cps);
    float *first = base_malloc(n * sizeof *first);
    unsigned char *typo = base_malloc(n);
    CHECK(text && cps && first && typo);
    size_t ncp = decode_all(text, n, cps);
    motion_typing t;
    base_err e = motion_plan_typing(text, n, 0, 2024, &t, NULL);
    int walked = e == BASE_OK && walk_plan(&t, cps, ncp, first, typo);

    double ord_sum = 0, ord_min = 1e9, ord_max = 0;
    long ord_n = 0, bounds = 0, pauses = 0, bad_after = 0, bad_pause = 0;
    long elig = 0, typos = 0;
    for (size_t i = 0; walked && i < ncp; i++) {
        uint32_t prev = i ? cps[i - 1] : 'a';
        float d = first[i];
        elig += t_alnum(cps[i]);
        typos += typo[i];
        if (t_space(prev) && !t_space(cps[i])) {
            bounds++;
            if (d >= 200.0f) {
                pauses++;
                bad_pause += d > 600.0f;
                continue;
            }
        }
        if (t_space(prev))
            bad_after += !(d >= 50.0f && d <= 180.0f);
        else if (t_punct(prev))
            bad_after += !(d >= 70.0f && d <= 195.0f);
        else {
            ord_sum += d;
            ord_n++;
            ord_min = fmin(ord_min, d);
            ord_max = fmax(ord_max, d);
        }
    }
    int counts_ok = walked && t.n_typos == typos && t.n_pauses == pauses &&
                    t.n == (int)(ncp + 2 * (size_t)typos);
    if (e == BASE_OK)
        motion_typing_fini(&t);
    base_free(text);
    base_free(cps);
    base_free(first);
    base_free(typo);
    CHECK_OK(e);
    CHECK(walked);
    CHECK(counts_ok);
    CHECK_MSG(ord_min >= 30.0 && ord_max <= 120.0, "ordinary delays %g..%g", ord_min, ord_max);
    CHECK_MSG(fabs(ord_sum / ord_n - 75.0) < 1.0, "ordinary mean %g", ord_sum / ord_n);
    CHECK_EQ(bad_after, 0);
    CHECK_EQ(bad_pause, 0);
    double pr = (double)pauses / bounds, tr = (double)typos / elig;
    CHECK_MSG(bounds > 10000 && fabs(pr - 0.10) <= 0.02, "pause rate %g over %ld", pr, bounds);
    CHECK_MSG(elig > 50000 && fabs(tr - 0.02) <= 0.007, "typo rate %g over %ld", tr, elig);
}

static void typing_no_typos(void)
{
    size_t n = 0;
    char *text = make_text(5, 50000, &n);
    CHECK(text);
    unsigned flags[] = {MOTION_TYPING_PASSWORD, MOTION_TYPING_NO_TYPOS,
                        MOTION_TYPING_PASSWORD | MOTION_TYPING_NO_TYPOS};
    int bad = 0;
    for (int f = 0; f < 3; f++) {
        for (uint64_t s = 0; s < 10; s++) {
            motion_typing t;
            if (motion_plan_typing(text, n, flags[f], s, &t, NULL) != BASE_OK) {
                bad++;
                continue;
            }
            bad += t.n_typos != 0;
            for (int i = 0; i < t.n; i++)
                bad += t.keys[i].kind == MOTION_KEY_BACKSPACE;
            motion_typing_fini(&t);
            bad += !roundtrip(text, n, flags[f], s);
        }
    }
    base_free(text);
    CHECK_EQ(bad, 0);
}

static void typing_invalid(void)
{
    static const struct {
        const char *s;
        size_t n;
    } bad[] = {
        {"\xC0\xAF", 2},         /* overlong '/' */
        {"\xE0\x80\xAF", 3},     /* overlong, 3 bytes */
        {"\xED\xA0\x80", 3},     /* UTF-16 surrogate */
        {"\xF4\x90\x80\x80", 4}, /* above U+10FFFF */
        {"ab\xE2\x82", 4},       /* truncated */
        {"\x80x", 2},            /* stray continuation */
        {"\xFF", 1},             /* never valid */
        {"a\0b", 3},             /* NUL */
        {"ok\xC3(", 4},          /* bad continuation */
    };
    motion_typing t, sentinel;
    memset(&sentinel, 0x5A, sizeof sentinel);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[BASE_ERRBUF_SIZE] = "";
        t = sentinel;
        CHECK_EQ(motion_plan_typing(bad[i].s, bad[i].n, 0, 1, &t, err), BASE_EINVAL);
        CHECK_MSG(strstr(err, "byte") != NULL, "case %zu: err \"%s\"", i, err);
        CHECK(memcmp(&t, &sentinel, sizeof t) == 0);
    }
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(motion_plan_typing("a", 1, 0x80, 1, &t, err), BASE_EINVAL);
    CHECK(err[0] != '\0');
    CHECK_EQ(motion_plan_typing(NULL, 3, 0, 1, &t, NULL), BASE_EINVAL);
    CHECK_EQ(motion_plan_typing("a", 1, 0, 1, NULL, NULL), BASE_EINVAL);
    CHECK_EQ(motion_plan_typing("a", MOTION_TYPING_MAX_BYTES + 1, 0, 1, &t, NULL),
             BASE_ETOOBIG);
    CHECK(memcmp(&t, &sentinel, sizeof t) == 0);
    base_alloc_fail_after(1);
    base_err e = motion_plan_typing("hello", 5, 0, 1, &t, NULL);
    base_alloc_fail_after(0);
    CHECK_EQ(e, BASE_ENOMEM);
    CHECK(memcmp(&t, &sentinel, sizeof t) == 0);

    /* A buffer too small for the text is refused, never overrun. */
    CHECK_OK(motion_plan_typing("hello world", 11, MOTION_TYPING_NO_TYPOS, 1, &t, NULL));
    char small[6];
    size_t len = 99;
    CHECK_EQ(motion_typing_result(&t, small, sizeof small, &len), BASE_ETOOBIG);
    CHECK_EQ(len, 99);
    CHECK_STR(small, "hello");
    motion_typing_fini(&t);
}

static void typing_determinism(void)
{
    size_t n = 0;
    char *text = make_text(8, 5000, &n);
    CHECK(text);
    int same = 1, diff = 1;
    for (uint64_t s = 0; s < 50; s++) {
        motion_typing a, b, c;
        CHECK_OK(motion_plan_typing(text, n, 0, s, &a, NULL));
        CHECK_OK(motion_plan_typing(text, n, 0, s, &b, NULL));
        CHECK_OK(motion_plan_typing(text, n, 0, s + 1, &c, NULL));
        same &= a.n == b.n && memcmp(a.keys, b.keys, (size_t)a.n * sizeof *a.keys) == 0 &&
                a.total_ms == b.total_ms;
        diff &= a.n != c.n || memcmp(a.keys, c.keys, (size_t)a.n * sizeof *a.keys) != 0;
        motion_typing_fini(&a);
        motion_typing_fini(&b);
        motion_typing_fini(&c);
    }
    base_free(text);
    CHECK(same);
    CHECK(diff);
}

static const check_case cases[] = {
    {"path_endpoints", path_endpoints},
    {"path_timing", path_timing},
    {"path_monotone", path_monotone},
    {"path_easing_shape", path_easing_shape},
    {"path_zero_distance", path_zero_distance},
    {"path_invalid", path_invalid},
    {"path_determinism", path_determinism},
    {"path_overshoot", path_overshoot},
    {"click_timing", click_timing},
    {"typing_roundtrip", typing_roundtrip},
    {"typing_stats", typing_stats},
    {"typing_no_typos", typing_no_typos},
    {"typing_invalid", typing_invalid},
    {"typing_determinism", typing_determinism},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

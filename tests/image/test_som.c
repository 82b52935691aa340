/* tests/image/test_som.c: Set-of-Marks rendering, debug drawing, the
 * model view and boxes JSON.
 *
 * The central property is that every SIMD kernel and every OpenMP thread
 * count produce exactly the bytes of the scalar single-threaded reference,
 * on awkward inputs: odd image sizes, marks clipped by the edges or lying
 * outside, zero-size marks, dashed marks, and 0 or 500 marks.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/rng.h"
#include "check.h"
#include "test_util.h"
#include "image/font.h"
#include "image/som.h"
#include "image/som_int.h"


static img_image clone(const img_image *a)
{
    img_image b = {0};
    if (img_alloc(&b, a->w, a->h) == BASE_OK) {
        memcpy(b.px, a->px, (size_t)a->stride * a->h);
        b.scale = a->scale;
    }
    return b;
}

static img_mark *random_marks(int n, int w, int h, uint64_t seed)
{
    base_rng r;
    base_rng_seed(&r, seed);
    img_mark *m = base_calloc(n ? (size_t)n : 1, sizeof(*m));
    for (int i = 0; i < n; i++) {
        float x = (float)base_rng_uniform(&r, -60, w + 20);
        float y = (float)base_rng_uniform(&r, -60, h + 20);
        float bw = (float)base_rng_uniform(&r, 0, w / 3.0);
        float bh = (float)base_rng_uniform(&r, 0, h / 4.0);
        if (i % 9 == 4)
            bw = 0; /* zero-size */
        m[i].r = (base_rect){x, y, x + bw, y + bh};
        m[i].id = i + 1;
        m[i].style = i % 5 == 3 ? IMG_MARK_DASHED : IMG_MARK_SOLID;
        m[i].label = "x";
    }
    return m;
}

static void span_kernels_exact(void)
{
    /* div255 as used by the kernels is the exact rounded quotient. */
    for (unsigned v = 0; v <= 255u * 255u; v++) {
        unsigned t = v + 128;
        unsigned q = (t + (t >> 8)) >> 8;
        CHECK_EQ(q, (v * 2 + 255) / 510);
    }
    uint8_t a[4 * 37];
    uint8_t b[4 * 37];
    uint8_t c[4 * 37];
    base_rng r;
    base_rng_seed(&r, 9);
    for (int alpha = 0; alpha < 256; alpha++) {
        uint8_t rgb[3] = {(uint8_t)base_rng_u64(&r), (uint8_t)base_rng_u64(&r),
                          (uint8_t)(alpha * 7)};
        int n = 1 + alpha % 37;
        for (int i = 0; i < 4 * n; i++)
            a[i] = b[i] = c[i] = (uint8_t)(i * 251 + alpha * 3);
        img__span_scalar(a, n, rgb, alpha);
        img__span_sse2(b, n, rgb, alpha);
        CHECK_MSG(memcmp(a, b, 4 * (size_t)n) == 0, "sse2 differs at alpha %d n %d", alpha, n);
        if (img_have_avx2()) {
            img__span_avx2(c, n, rgb, alpha);
            CHECK_MSG(memcmp(a, c, 4 * (size_t)n) == 0, "avx2 differs at alpha %d", alpha);
        }
    }
}

static void simd_matches_scalar(void)
{
    const int sizes[][2] = {{97, 61}, {333, 257}, {1, 1}, {640, 37}};
    const int counts[] = {0, 1, 17, 500};
    const img_kernel ks[] = {IMG_KERNEL_SSE2, IMG_KERNEL_AVX2, IMG_KERNEL_AUTO,
                              IMG_KERNEL_SCALAR};
    int max_threads = omp_get_max_threads();
    for (int si = 0; si < 4; si++)
        for (int ci = 0; ci < 4; ci++) {
            int w = sizes[si][0];
            int h = sizes[si][1];
            int n = counts[ci];
            img_image base = {0};
            random_image(&base, w, h, (uint64_t)(si * 10 + ci));
            CHECK(base.px);
            base.scale = ci == 2 ? 1.5f : 1.0f;
            img_mark *marks = random_marks(n, w, h, (uint64_t)(si * 100 + ci));
            img_som_opts o;
            img_som_opts_init(&o);
            o.kernel = IMG_KERNEL_SCALAR;
            o.font_px = 10 + ci;
            img_image ref = clone(&base);
            omp_set_num_threads(1);
            char err[BASE_ERRBUF_SIZE] = "";
            base_err e = img_som_draw(&ref, marks, n, &o, err);
            CHECK_MSG(e == BASE_OK, "draw: %s", err);
            if (n == 0)
                CHECK(memcmp(ref.px, base.px, (size_t)ref.stride * h) == 0);
            for (int t = 1; t <= 2; t++)
                for (int k = 0; k < 4; k++) {
                    if (ks[k] == IMG_KERNEL_AVX2 && !img_have_avx2())
                        continue;
                    img_image out = clone(&base);
                    omp_set_num_threads(t);
                    o.kernel = ks[k];
                    CHECK_OK(img_som_draw(&out, marks, n, &o, err));
                    CHECK_MSG(memcmp(out.px, ref.px, (size_t)ref.stride * h) == 0,
                              "%dx%d, %d marks, kernel %s, %d threads differ from scalar", w, h, n,
                              img_som_kernel_name(ks[k]), t);
                    img_fini(&out);
                }
            omp_set_num_threads(max_threads);
            img_fini(&ref);
            img_fini(&base);
            base_free(marks);
        }
}

static int rects_overlap(const img_som_label *a, const img_som_label *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static void label_placement(void)
{
    /* Four well separated marks with room around them: tags go outside the
     * marks (placement < 6), stay inside the image and do not overlap. */
    img_mark m[5] = {
        {.r = {0, 0, 60, 20}, .id = 1}, /* top-left corner: no room above */
        {.r = {100, 40, 180, 70}, .id = 2},    {.r = {20, 80, 90, 110}, .id = 12},
        {.r = {150, 95, 200, 120}, .id = 123}, /* bottom-right corner */
        {.r = {100, 72, 180, 90}, .id = 5},    /* right under mark 2 */
    };
    img_som_label L[5];
    char err[BASE_ERRBUF_SIZE] = "";
    img_som_opts o;
    img_som_opts_init(&o);
    o.font_px = 11;
    CHECK_OK(img_som_layout(200, 120, m, 5, &o, L, err));
    for (int i = 0; i < 5; i++) {
        CHECK_MSG(L[i].placement >= 0, "mark %d unplaced", i);
        CHECK(L[i].x0 >= 0 && L[i].y0 >= 0 && L[i].x1 <= 200 && L[i].y1 <= 120);
        CHECK(L[i].x1 > L[i].x0 && L[i].y1 > L[i].y0);
        for (int j = 0; j < i; j++)
            CHECK_MSG(!rects_overlap(&L[i], &L[j]), "tags %d and %d overlap", i, j);
        img_som_label own = {
            .x0 = (int)m[i].r.x0, .y0 = (int)m[i].r.y0, .x1 = (int)m[i].r.x1, .y1 = (int)m[i].r.y1};
        CHECK_MSG(!rects_overlap(&L[i], &own), "tag %d covers its own mark (placement %d)", i,
                  L[i].placement);
    }
    /* Mark 1 has no room above: its tag goes below or beside, not up. */
    CHECK(L[0].y0 >= 20 || L[0].x0 >= 60);
    /* Mark 2 has room above-left, the first choice. */
    CHECK_EQ(L[1].placement, 0);
    CHECK_EQ(L[1].x0, 100);
    CHECK_EQ(L[1].y1, 40);
    /* Neighbouring marks 2 and 5 get distinct colours. */
    CHECK(memcmp(L[1].rgb, L[4].rgb, 3) != 0);

    /* Crowded: 60 marks on a small image still keep every tag inside. */
    img_mark *many = random_marks(60, 160, 90, 5);
    img_som_label *LL = base_malloc(60 * sizeof(*LL));
    CHECK_OK(img_som_layout(160, 90, many, 60, &o, LL, err));
    for (int i = 0; i < 60; i++)
        if (LL[i].placement >= 0)
            CHECK(LL[i].x0 >= 0 && LL[i].y0 >= 0 && LL[i].x1 <= 160 && LL[i].y1 <= 90);
    base_free(LL);
    base_free(many);

    /* The scale maps CSS boxes to image pixels. */
    o.scale = 2.0f;
    CHECK_OK(img_som_layout(400, 240, &m[1], 1, &o, L, err));
    CHECK_EQ(L[0].x0, 200);
    CHECK_EQ(L[0].y1, 80);
}

/* ---- golden images for label placement ---------------------------------
 * Small scenes of crowded and edge cases drawn with the scalar kernel and
 * compared pixel for pixel with tests/image/data/golden/som_NAME.png.
 * FOVEA_UPDATE_GOLDEN=1 rewrites the goldens instead (look at them before
 * committing). On a mismatch the test names the first differing pixel and
 * writes the actual image to <build>/tests/perception/golden-actual/. The
 * goldens assume the default font (DejaVu Sans Bold of fonts-dejavu-core). */

#define GOLDEN_DIR FOVEA_SOURCE_DIR "/tests/image/data/golden/"
#define ACTUAL_DIR FOVEA_BINARY_DIR "/tests/image/golden-actual/"
#define GW 160
#define GH 100

/* A page-like background: light left part with grey rules, dark right part,
 * so tags and fills are seen on both. */
static void golden_background(img_image *img)
{
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++) {
            uint8_t *p = img->px + (size_t)y * img->stride + 4 * (size_t)x;
            int dark = x >= img->w * 5 / 8;
            int rule = y % 10 == 0 || x % 40 == 0;
            int v = dark ? 32 + (y % 10 == 0 ? 20 : 0) : (rule ? 220 : 250 - (x + y) % 7);
            p[0] = (uint8_t)v;
            p[1] = (uint8_t)v;
            p[2] = (uint8_t)(dark ? v + 4 : v);
            p[3] = 255;
        }
}

/* Compares img with the golden NAME (or rewrites it). Returns 1 when they
 * match; otherwise explains, saves the actual image and returns 0. */
static int golden_compare(const char *name, const img_image *img, char *why, size_t why_n)
{
    char gpath[512];
    snprintf(gpath, sizeof(gpath), GOLDEN_DIR "som_%s.png", name);
    uint8_t *enc = NULL;
    size_t en = 0;
    if (img_encode_png(img, 0, &enc, &en, NULL) != BASE_OK) {
        snprintf(why, why_n, "cannot encode the actual image");
        return 0;
    }
    const char *upd = getenv("FOVEA_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = base_write_file(gpath, enc, en, err);
        base_free(enc);
        if (e)
            snprintf(why, why_n, "cannot update the golden: %s", err);
        else
            fprintf(stderr, "updated golden %s\n", gpath);
        return e == BASE_OK;
    }
    uint8_t *gd = NULL;
    size_t gn = 0;
    img_image g = {0};
    char err[BASE_ERRBUF_SIZE] = "";
    int ok = 0;
    if (base_read_file(gpath, &gd, &gn, 1u << 20, err) != BASE_OK ||
        img_decode(gd, gn, &g, err) != BASE_OK) {
        snprintf(why, why_n, "golden %s unusable (%s); run with FOVEA_UPDATE_GOLDEN=1", gpath,
                 err);
    } else if (g.w != img->w || g.h != img->h) {
        snprintf(why, why_n, "golden %s is %dx%d, actual %dx%d", gpath, g.w, g.h, img->w,
                 img->h);
    } else {
        long ndiff = 0;
        int fx = -1;
        int fy = -1;
        for (int y = 0; y < g.h; y++)
            for (int x = 0; x < g.w; x++)
                if (memcmp(g.px + (size_t)y * g.stride + 4 * x,
                           img->px + (size_t)y * img->stride + 4 * x, 4) != 0) {
                    if (!ndiff++) {
                        fx = x;
                        fy = y;
                    }
                }
        ok = ndiff == 0;
        if (!ok) {
            const uint8_t *e = g.px + (size_t)fy * g.stride + 4 * fx;
            const uint8_t *a = img->px + (size_t)fy * img->stride + 4 * fx;
            snprintf(why, why_n,
                     "%ld pixels differ from %s; first at (%d,%d): golden %d,%d,%d,%d actual "
                     "%d,%d,%d,%d",
                     ndiff, gpath, fx, fy, e[0], e[1], e[2], e[3], a[0], a[1], a[2], a[3]);
        }
    }
    if (!ok) {
        mkdir(ACTUAL_DIR, 0755);
        char apath[512];
        snprintf(apath, sizeof(apath), ACTUAL_DIR "som_%s.png", name);
        if (base_write_file(apath, enc, en, NULL) == BASE_OK) {
            size_t l = strlen(why);
            snprintf(why + l, why_n - l, "; actual image written to %s", apath);
        }
    }
    img_fini(&g);
    base_free(gd);
    base_free(enc);
    return ok;
}

typedef struct golden_scene {
    const char *name;
    img_mark marks[24];
    int n;
    int label_fmt;
    float scale;
    int room; /* 1: there is room, so tags must avoid each other and their marks */
} golden_scene;

/* Eight 16x12 buttons 2 px apart. */
#define TOOLBAR_MARKS                                                                          \
    {                                                                                          \
        {.r = {4, 40, 20, 52}, .id = 1}, {.r = {22, 40, 38, 52}, .id = 2},                     \
            {.r = {40, 40, 56, 52}, .id = 3}, {.r = {58, 40, 74, 52}, .id = 4},                \
            {.r = {76, 40, 92, 52}, .id = 5}, {.r = {94, 40, 110, 52}, .id = 6},               \
            {.r = {112, 40, 128, 52}, .id = 7}, {.r = {130, 40, 146, 52}, .id = 8},            \
    }

static const golden_scene scenes[] = {
    /* Marks flush with every edge and corner, and two hanging off it. */
    {"edges",
     {{.r = {0, 0, 30, 14}, .id = 1},
      {.r = {130, 0, 160, 14}, .id = 2},
      {.r = {0, 86, 30, 100}, .id = 3},
      {.r = {130, 86, 160, 100}, .id = 4},
      {.r = {-10, 40, 20, 60}, .id = 5},
      {.r = {148, 44, 175, 58}, .id = 6, .style = IMG_MARK_DASHED}},
     6, IMG_LABEL_VID, 1.0f, 1},
    /* A toolbar of eight small buttons: the tags do not fit above them
     * side by side, so some must go below. */
    {"toolbar",
     TOOLBAR_MARKS,
     8, IMG_LABEL_VID, 1.0f, 1},
    /* The same toolbar with bare numbers, which fit above every button. */
    {"toolbar_num",
     TOOLBAR_MARKS,
     8, IMG_LABEL_NUM, 1.0f, 1},
    /* A container with marks inside, an overlapping pair, a zero-size mark
     * (no tag) and a dashed previous-pass mark. */
    {"nested",
     {{.r = {8, 20, 150, 92}, .id = 10},
      {.r = {16, 30, 60, 48}, .id = 11},
      {.r = {70, 30, 140, 48}, .id = 12, .style = IMG_MARK_DASHED},
      {.r = {16, 60, 80, 84}, .id = 13},
      {.r = {60, 66, 120, 88}, .id = 14},
      {.r = {130, 70, 130, 70}, .id = 15}},
     6, IMG_LABEL_VID, 1.0f, 0},
    /* Too many marks for the canvas: tags must still stay inside. */
    {"dense",
     {{.r = {2, 2, 26, 22}, .id = 1},      {.r = {28, 2, 52, 22}, .id = 2},
      {.r = {54, 2, 78, 22}, .id = 3},     {.r = {80, 2, 104, 22}, .id = 4},
      {.r = {106, 2, 130, 22}, .id = 5},   {.r = {132, 2, 158, 22}, .id = 6},
      {.r = {2, 26, 26, 46}, .id = 7},     {.r = {28, 26, 52, 46}, .id = 8},
      {.r = {54, 26, 78, 46}, .id = 9},    {.r = {80, 26, 104, 46}, .id = 10},
      {.r = {106, 26, 130, 46}, .id = 11}, {.r = {132, 26, 158, 46}, .id = 12},
      {.r = {2, 50, 26, 70}, .id = 13},    {.r = {28, 50, 52, 70}, .id = 14},
      {.r = {54, 50, 78, 70}, .id = 15},   {.r = {80, 50, 104, 70}, .id = 16},
      {.r = {106, 50, 130, 70}, .id = 17}, {.r = {132, 50, 158, 70}, .id = 18},
      {.r = {2, 74, 26, 98}, .id = 19},    {.r = {28, 74, 52, 98}, .id = 20},
      {.r = {54, 74, 78, 98}, .id = 21},   {.r = {80, 74, 104, 98}, .id = 22},
      {.r = {106, 74, 130, 98}, .id = 23}, {.r = {132, 74, 158, 98}, .id = 24}},
     24, IMG_LABEL_VID, 1.0f, 0},
    /* Text labels at device scale 2 (CSS boxes on an 80x50 viewport). */
    {"text_scale2",
     {{.r = {4, 12, 40, 22}, .id = 1, .label = "Search"},
      {.r = {44, 12, 76, 22}, .id = 2, .label = "Go"},
      {.r = {4, 30, 76, 40}, .id = 3, .label = "Results"}},
     3, IMG_LABEL_TEXT, 2.0f, 1},
};

static img_som_label box_of(const img_mark *m, float scale)
{
    img_som_label b = {.x0 = (int)floorf(m->r.x0 * scale),
                        .y0 = (int)floorf(m->r.y0 * scale),
                        .x1 = (int)ceilf(m->r.x1 * scale),
                        .y1 = (int)ceilf(m->r.y1 * scale)};
    return b;
}

static void label_golden(void)
{
    const char *font = getenv("FOVEA_FONT");
    if (font && *font)
        SKIP("goldens are drawn with the default font; FOVEA_FONT is set");
    int max_threads = omp_get_max_threads();
    for (size_t si = 0; si < sizeof(scenes) / sizeof(scenes[0]); si++) {
        const golden_scene *sc = &scenes[si];
        img_som_opts o;
        img_som_opts_init(&o);
        o.kernel = IMG_KERNEL_SCALAR;
        o.font_px = 11;
        o.scale = sc->scale;
        o.label_fmt = sc->label_fmt;
        char err[BASE_ERRBUF_SIZE] = "";

        /* Placement properties, asserted on the layout itself. */
        img_som_label L[24];
        CHECK_OK(img_som_layout(GW, GH, sc->marks, sc->n, &o, L, err));
        for (int i = 0; i < sc->n; i++) {
            img_som_label own = box_of(&sc->marks[i], sc->scale);
            int empty = own.x1 <= own.x0 || own.y1 <= own.y0;
            CHECK_MSG(empty ? L[i].placement < 0 : L[i].placement >= 0,
                      "%s: mark %d placement %d", sc->name, sc->marks[i].id, L[i].placement);
            if (L[i].placement < 0)
                continue;
            CHECK_MSG(L[i].x0 >= 0 && L[i].y0 >= 0 && L[i].x1 <= GW && L[i].y1 <= GH,
                      "%s: tag of mark %d at %d,%d-%d,%d leaves the %dx%d image", sc->name,
                      sc->marks[i].id, L[i].x0, L[i].y0, L[i].x1, L[i].y1, GW, GH);
            if (!sc->room)
                continue;
            CHECK_MSG(!rects_overlap(&L[i], &own),
                      "%s: tag of mark %d (placement %d) covers its own mark", sc->name,
                      sc->marks[i].id, L[i].placement);
            for (int j = 0; j < i; j++)
                if (L[j].placement >= 0)
                    CHECK_MSG(!rects_overlap(&L[i], &L[j]), "%s: tags of marks %d and %d overlap",
                              sc->name, sc->marks[i].id, sc->marks[j].id);
        }

        /* The drawing, pixel for pixel. */
        img_image img = {0};
        CHECK_OK(img_alloc(&img, GW, GH));
        golden_background(&img);
        img_image simd = clone(&img);
        omp_set_num_threads(1);
        base_err e = img_som_draw(&img, sc->marks, sc->n, &o, err);
        omp_set_num_threads(max_threads);
        CHECK_MSG(e == BASE_OK, "%s: %s", sc->name, err);
        char why[768] = "";
        int same = golden_compare(sc->name, &img, why, sizeof(why));
        /* The SIMD kernels draw the same bytes, so the goldens hold for them. */
        o.kernel = IMG_KERNEL_AUTO;
        CHECK_OK(img_som_draw(&simd, sc->marks, sc->n, &o, err));
        int simd_same = memcmp(simd.px, img.px, (size_t)img.stride * GH) == 0;
        img_fini(&simd);
        img_fini(&img);
        CHECK_MSG(same, "%s: %s", sc->name, why);
        CHECK_MSG(simd_same, "%s: the %s kernel differs from scalar", sc->name,
                  img_som_kernel_name(IMG_KERNEL_AUTO));
    }
}

static void draw_effects(void)
{
    img_image img = {0};
    CHECK_OK(img_alloc(&img, 120, 80));
    memset(img.px, 255, (size_t)img.stride * img.h); /* white page */
    img_mark m = {.r = {30, 30, 90, 60}, .id = 7};
    img_som_opts o;
    img_som_opts_init(&o);
    CHECK_OK(img_som_draw(&img, &m, 1, &o, NULL));
    /* Inside: tinted, not white; outline pixel: fully the mark colour;
     * outside far away: untouched. */
    const uint8_t *in = img.px + 45 * img.stride + 60 * 4;
    const uint8_t *edge = img.px + 30 * img.stride + 60 * 4;
    const uint8_t *far = img.px + 75 * img.stride + 5 * 4;
    CHECK(in[0] != 255 || in[1] != 255 || in[2] != 255);
    img_som_label L;
    CHECK_OK(img_som_layout(120, 80, &m, 1, &o, &L, NULL));
    CHECK(memcmp(edge, L.rgb, 3) == 0);
    CHECK(far[0] == 255 && far[1] == 255 && far[2] == 255 && far[3] == 255);
    /* The tag holds both its colour and contrasting text pixels. */
    int bg = 0;
    int text = 0;
    for (int y = L.y0; y < L.y1; y++)
        for (int x = L.x0; x < L.x1; x++) {
            const uint8_t *p = img.px + y * img.stride + x * 4;
            if (memcmp(p, L.rgb, 3) == 0)
                bg++;
            else if ((p[0] > 200 && p[1] > 200 && p[2] > 200) ||
                     (p[0] < 40 && p[1] < 40 && p[2] < 40))
                text++;
        }
    CHECK(bg > 0 && text > 0);
    /* Errors leave the image alone. */
    CHECK_EQ(img_som_draw(&img, &m, -1, &o, NULL), BASE_EINVAL);
    o.fill_alpha = 300;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(img_som_draw(&img, &m, 1, &o, err), BASE_EINVAL);
    CHECK(strstr(err, "som:"));
    img_fini(&img);
}

static void debug_draw(void)
{
    img_image img = {0};
    CHECK_OK(img_alloc(&img, 200, 120));
    CHECK_OK(img_draw_crosshair(&img, (base_point){100, 60}, 10, 0xff0000ffu, NULL));
    CHECK_EQ(img.px[60 * img.stride + 100 * 4], 255); /* centre dot */
    CHECK_EQ(img.px[60 * img.stride + 92 * 4], 255);  /* left arm */
    base_point path[] = {{0, 0}, {50, 20}, {120, 100}, {400, 400}};
    CHECK_OK(img_draw_polyline(&img, path, 4, 3, 0x00ff00ffu, NULL));
    CHECK_EQ(img.px[20 * img.stride + 50 * 4 + 1], 255);
    CHECK_OK(img_draw_highlight(&img, (base_rect){10, 10, 40, 30}, 0x0000ffffu, NULL));
    CHECK_EQ(img.px[8 * img.stride + 20 * 4 + 2], 255);
    CHECK_OK(img_draw_caption(&img,
                               "step 3 - click [V4] 'United States' - ok, and a long tail "
                               "that cannot possibly fit in two hundred pixels",
                               NULL));
    /* The strip darkened the bottom rows. */
    CHECK(img.px[118 * img.stride + 199 * 4 + 3] >= 190);
    CHECK_EQ(img_draw_polyline(&img, NULL, 3, 1, 0, NULL), BASE_EINVAL);
    img_fini(&img);
}

static void font_missing(void)
{
    img_font_shutdown();
    setenv("FOVEA_FONT", "/nonexistent/DejaVuSans-Bold.ttf", 1);
    img_image img = {0};
    CHECK_OK(img_alloc(&img, 50, 50));
    img_mark m = {.r = {5, 5, 20, 20}, .id = 1};
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = img_som_draw(&img, &m, 1, NULL, err);
    unsetenv("FOVEA_FONT");
    CHECK_EQ(e, BASE_ENOTFOUND);
    CHECK(strstr(err, "/nonexistent/DejaVuSans-Bold.ttf") && strstr(err, "fonts-dejavu-core"));
    for (int i = 0; i < 50 * 50 * 4; i++)
        CHECK_EQ(img.px[i], 0);
    /* Without labels no font is needed; with it restored, labels work. */
    img_som_opts o;
    img_som_opts_init(&o);
    o.label_fmt = IMG_LABEL_NONE;
    CHECK_OK(img_som_draw(&img, &m, 1, &o, NULL));
    CHECK_OK(img_som_draw(&img, &m, 1, NULL, NULL));
    img_fini(&img);
}

static void model_view(void)
{
    img_image src = {0};
    random_image(&src, 1280, 800, 1);
    CHECK(src.px);
    img_image out = {0};
    float s = 0;
    CHECK_OK(img_model_view(&src, 1024, &out, &s));
    CHECK_EQ(out.w, 1024);
    CHECK_EQ(out.h, 640);
    CHECK_NEAR(s, 0.8, 1e-6);
    CHECK_NEAR(out.scale, 0.8, 1e-6);
    img_fini(&out);
    src.scale = 2.0f; /* HiDPI: 2 device px per CSS px */
    CHECK_OK(img_model_view(&src, 0, &out, &s));
    CHECK_NEAR(s, 1.6, 1e-6);
    img_fini(&out);
    /* Narrower than the target: an exact copy. */
    CHECK_OK(img_model_view(&src, 4000, &out, NULL));
    CHECK_EQ(out.w, 1280);
    CHECK(memcmp(out.px, src.px, (size_t)src.stride * src.h) == 0);
    img_fini(&out);
    /* Round trip of an overlay through PNG is exact. */
    img_mark *marks = random_marks(50, 1280, 800, 3);
    CHECK_OK(img_som_draw(&src, marks, 50, NULL, NULL));
    uint8_t *png = NULL;
    size_t n = 0;
    CHECK_OK(img_encode_png(&src, 1, &png, &n, NULL));
    img_image back = {0};
    CHECK_OK(img_decode(png, n, &back, NULL));
    CHECK(memcmp(back.px, src.px, (size_t)src.stride * src.h) == 0);
    base_free(png);
    base_free(marks);
    img_fini(&back);
    img_fini(&src);
}

/* The fixed-point downscaler matches stbir (the reference) closely, and is
 * identical for 1 and 2 threads. */
static void model_view_vs_stbir(void)
{
    const int sizes[][3] = {{1280, 800, 1024}, {333, 97, 100}, {2560, 1600, 1024}, {5, 3, 2}};
    int max_threads = omp_get_max_threads();
    for (int i = 0; i < 4; i++) {
        img_image src = {0};
        random_image(&src, sizes[i][0], sizes[i][1], (uint64_t)i);
        CHECK(src.px);
        /* Smooth the noise a little so the test measures the filter, not
         * the last bit of rounding on white noise. */
        for (int y = 0; y < src.h; y++)
            for (int x = 0; x < src.w * 4; x++)
                src.px[y * src.stride + x] =
                    (uint8_t)((src.px[y * src.stride + x] >> 2) + x / 4 % 128);
        img_image a = {0};
        img_image b = {0};
        img_image c = {0};
        omp_set_num_threads(1);
        CHECK_OK(img_model_view(&src, sizes[i][2], &a, NULL));
        omp_set_num_threads(2);
        CHECK_OK(img_model_view(&src, sizes[i][2], &c, NULL));
        omp_set_num_threads(max_threads);
        CHECK_OK(img_resize(&src, a.w, a.h, &b));
        CHECK(memcmp(a.px, c.px, (size_t)a.stride * a.h) == 0);
        int maxd = 0;
        long sum = 0;
        for (int y = 1; y + 1 < a.h; y++)
            for (int x = 4; x + 4 < a.w * 4; x++) {
                int d = abs(a.px[y * a.stride + x] - b.px[y * b.stride + x]);
                maxd = d > maxd ? d : maxd;
                sum += d;
            }
        CHECK_MSG(maxd <= 2, "%dx%d -> %d: max diff %d vs stbir (sum %ld)", src.w, src.h, a.w, maxd,
                  sum);
        img_fini(&a);
        img_fini(&b);
        img_fini(&c);
        img_fini(&src);
    }
}

static void boxes_json(void)
{
    img_mark *m = NULL;
    int n = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    const char *a = "[{\"x0\":1,\"y0\":2,\"x1\":30,\"y1\":40,\"label\":\"Search\",\"id\":4},"
                    "{\"x0\":50,\"y0\":60,\"x1\":5,\"y1\":6,\"style\":\"dashed\"}]";
    CHECK_OK(img_marks_parse_json(a, strlen(a), 0, 0, &m, &n, err));
    CHECK_EQ(n, 2);
    CHECK_EQ(m[0].id, 4);
    CHECK_STR(m[0].label, "Search");
    CHECK_NEAR(m[0].r.x1, 30, 0);
    CHECK_EQ(m[1].id, 2);
    CHECK(m[1].label == NULL);
    CHECK_EQ(m[1].style, IMG_MARK_DASHED);
    CHECK_NEAR(m[1].r.x0, 5, 0); /* corners normalised */
    img_marks_free(m, n);

    const char *b = "{\"boxes\":[{\"box\":[100,200,300,400],\"label\":\"OK\"}]}";
    CHECK_OK(img_marks_parse_json(b, strlen(b), 1280, 800, &m, &n, err));
    CHECK_EQ(n, 1);
    CHECK_NEAR(m[0].r.x0, 256, 1e-3);
    CHECK_NEAR(m[0].r.y0, 80, 1e-3);
    CHECK_NEAR(m[0].r.x1, 512, 1e-3);
    CHECK_NEAR(m[0].r.y1, 240, 1e-3);
    img_marks_free(m, n);
    CHECK_OK(img_marks_parse_json(b, strlen(b), 0, 0, &m, &n, err));
    CHECK_NEAR(m[0].r.x0, 200, 0);
    img_marks_free(m, n);

    struct {
        const char *json;
        const char *msg;
    } bad[] = {
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4},{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4},"
         "{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4},{\"x0\":1,\"y0\":2,\"x1\":\"3\",\"y1\":4}]",
         "boxes[3].x1: expected a number"},
        {"[{\"x0\":1,\"y0\":2,\"x1\":3}]", "boxes[0].y1: missing"},
        {"[{\"box\":[1,2,3]}]", "boxes[0].box: expected 4 numbers"},
        {"[{\"box\":[1,2,null,4]}]", "boxes[0].box[2]: expected a number"},
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4,\"label\":5}]",
         "boxes[0].label: expected a string"},
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4,\"id\":1.5}]", "boxes[0].id: expected an integer"},
        /* Out of int range: rejected before any conversion ((int)1e30 is
         * undefined behaviour, which UBSan builds abort on). */
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4,\"id\":1e30}]",
         "boxes[0].id: expected an integer in -1000000000..1000000000"},
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4,\"id\":-1e30}]", "boxes[0].id: expected"},
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4,\"id\":1e308}]", "boxes[0].id: expected"},
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4,\"id\":2147483648}]", "boxes[0].id: expected"},
        {"[{\"x0\":1,\"y0\":2,\"x1\":3,\"y1\":4,\"style\":\"dotted\"}]", "boxes[0].style"},
        {"[1]", "boxes[0]: expected an object"},
        {"{\"boxes\":3}", "boxes: expected an array"},
        {"{\"marks\":[]}", "boxes: missing"},
        {"[{\"x0\":1,", "boxes: invalid JSON"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        m = NULL;
        n = -1;
        base_err e = img_marks_parse_json(bad[i].json, strlen(bad[i].json), 0, 0, &m, &n, err);
        CHECK_MSG(e == BASE_EPROTO, "case %zu: error %d", i, e);
        CHECK_MSG(strstr(err, bad[i].msg), "case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
        CHECK(m == NULL && n == -1);
    }
    CHECK_OK(img_marks_parse_json("[]", 2, 0, 0, &m, &n, err));
    CHECK_EQ(n, 0);
    img_marks_free(m, n);
}

static const check_case cases[] = {
    {"span_kernels_exact", span_kernels_exact},
    {"simd_matches_scalar", simd_matches_scalar},
    {"label_placement", label_placement},
    {"label_golden", label_golden},
    {"draw_effects", draw_effects},
    {"debug_draw", debug_draw},
    {"font_missing", font_missing},
    {"model_view", model_view},
    {"model_view_vs_stbir", model_view_vs_stbir},
    {"boxes_json", boxes_json},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    img_font_shutdown();
    return rc;
}

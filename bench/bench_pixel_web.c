/* bench/bench_pixel_web.c: the pixel provider per class on the web fixture
 * set (bench/RESULTS.md, "Pixel provider on the web", issue 27).
 *
 *   build/bench/bench_pixel_web [--reps N] [--dump] [--save DIR] [FIXTURE_PATH]...
 *
 * Each page of the set (tests/perception/webset.c; default all of
 * tests/fixtures/pages/pixel/web) is opened in headless Chromium at
 * 1280x800, scale 1, its truth read from its DOM and the screen captured
 * once. On that screenshot, as `fovea overlay --shot X --vision pixel` runs
 * it (no page: every box is read):
 *   - time: the provider's detect (detection + OCR of every box on 2
 *     Tesseract engines), a fresh provider per rep so the OCR cache is cold
 *     (engine load excluded), median of N reps; and perc_pixel_detect alone
 *     (default threads), median of N reps;
 *   - score (webset.h): centre-hit, centre-hit one box per control,
 *     recall@IoU0.5, precision of all boxes and of control guesses (kind
 *     not "text"), OCR agreement (every word of the control's shown text
 *     in its box's label).
 * Per class (one class a page) and over the set. --dump lists misses and
 * boxes; --save DIR writes each screenshot (DIR/NAME.png) and its truth
 * (DIR/NAME.json) for offline runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/stats.h"
#include "harness.h"
#include "perception/pixel.h"
#include "webset.h"

static double median(double *v, int n)
{
    return base_summarize(v, n).median;
}

static double pct(int a, int b)
{
    return b ? 100.0 * a / b : 0;
}

static void row(const char *name, const pw_score *s, double det_ms, double prov_ms)
{
    printf("| %s | %d | %d (%d) | %.1f %% | **%.1f %%** | %.1f %% | %.1f %% | **%.1f %%** | %.1f %% (%d) "
           "| %.1f | **%.1f** |\n",
           name, s->truth, s->boxes, s->ctl, pct(s->hit, s->truth), pct(s->hit1, s->truth),
           pct(s->iou, s->truth), pct(s->prec, s->boxes), pct(s->ctl_prec, s->ctl),
           pct(s->ocr_ok, s->ocr_n), s->ocr_n, det_ms, prov_ms);
}

/* Writes pg's screenshot and truth under dir. */
static void save(const char *dir, const pw_page *pg)
{
    const char *base = strrchr(pg->path, '/');
    char name[128], path[512], err[256] = "";
    snprintf(name, sizeof name, "%s", base ? base + 1 : pg->path);
    char *dot = strrchr(name, '.');
    if (dot)
        *dot = '\0';
    uint8_t *png = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    if (img_encode_png(&pg->shot, 1, &png, &n, err) || base_write_file(path, png, n, err))
        fprintf(stderr, "%s: %s\n", path, err);
    base_free(png);
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "{\"class\": \"%s\", \"controls\": [\n", pg->cls);
    for (int k = 0; k < pg->nt; k++)
        fprintf(f, "  {\"x0\": %.1f, \"y0\": %.1f, \"x1\": %.1f, \"y1\": %.1f}%s\n", pg->t[k].r.x0,
                pg->t[k].r.y0, pg->t[k].r.x1, pg->t[k].r.y1, k + 1 < pg->nt ? "," : "");
    fprintf(f, "]}\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    int reps = 5, dump = 0;
    const char *save_dir = NULL;
    const char *paths[32];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = (int)strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dump") == 0)
            dump = 1;
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save_dir = argv[++i];
        else if (np < 32)
            paths[np++] = argv[i];
    }
    if (np == 0)
        for (const char *const *p = pw_set; *p && np < 32; p++)
            paths[np++] = *p;
    if (reps < 1)
        reps = 1;
    if (reps > 64)
        reps = 64;
    harness *h = harness_get();
    if (!h) {
        fprintf(stderr, "bench_pixel_web: no browser: %s\n", harness_error());
        return 1;
    }
    cdp_page *p = harness_open(1280, 800, 1, NULL);
    if (!p)
        return 1;
    pw_score all;
    memset(&all, 0, sizeof all);
    double det_all[32], prov_all[32];
    printf("| class (page) | controls | boxes (controls) | centre-hit | one box per control | "
           "recall@IoU0.5 | precision | precision, controls | OCR agrees | detect ms | "
           "provider ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int pi = 0; pi < np; pi++) {
        char err[256] = "";
        pw_page *pg = base_calloc(1, sizeof *pg);
        if (!pg || pw_page_load(p, paths[pi], pg, err)) {
            fprintf(stderr, "%s: %s\n", paths[pi], err);
            base_free(pg);
            return 1;
        }
        if (save_dir)
            save(save_dir, pg);
        double det[64], prov[64];
        perc_detection d;
        memset(&d, 0, sizeof d);
        for (int r = 0; r < reps; r++) {
            perc_pixel_elem *el = NULL;
            int n = 0;
            double t0 = base_monotime_ms();
            if (perc_pixel_detect(&pg->shot, NULL, &el, &n, err))
                fprintf(stderr, "%s: detect: %s\n", paths[pi], err);
            det[r] = base_monotime_ms() - t0;
            base_free(el);
            /* A fresh provider (cold OCR cache), its engines' load untimed. */
            perc_pixel_config c;
            perc_pixel_config_init(&c);
            perc_vision *v = NULL;
            if (perc_vision_pixel_create(&c, &v, err)) {
                fprintf(stderr, "pixel provider: %s\n", err);
                return 1;
            }
            perc_detection_fini(&d);
            memset(&d, 0, sizeof d);
            t0 = base_monotime_ms();
            if (perc_vision_detect(v, NULL, &pg->shot, NULL, &d, err))
                fprintf(stderr, "%s: provider: %s\n", paths[pi], err);
            prov[r] = base_monotime_ms() - t0;
            perc_vision_destroy(v);
        }
        pw_score s;
        memset(&s, 0, sizeof s);
        pw_score_add(pg, &d, &s);
        pw_score_add(pg, &d, &all);
        det_all[pi] = median(det, reps);
        prov_all[pi] = median(prov, reps);
        char name[160];
        snprintf(name, sizeof name, "%s (%s)", pg->cls, strrchr(pg->path, '/') + 1);
        row(name, &s, det_all[pi], prov_all[pi]);
        if (dump)
            pw_dump(pg, &d, stderr);
        perc_detection_fini(&d);
        pw_page_fini(pg);
        base_free(pg);
    }
    double dm = median(det_all, np), pm = median(prov_all, np);
    row("**all pages** (median of page medians)", &all, dm, pm);
    cdp_page_close(p);
    return 0;
}

/* bench/bench_pixel.c: the pixel vision provider's figures (bench/RESULTS.md,
 * "Pixel provider").
 *
 *   build/bench/bench_pixel [--reps N] [--dump] [--site DIR URLPATH]... [FIXTURE_PATH]...
 *
 * Each page (a fixture path served by the test harness from
 * tests/fixtures/pages, or a page of any folder given with --site, served on
 * 127.0.0.1 by serve_httpd) is opened in headless Chromium at 1280x800, scale
 * 1, and captured once. On that screenshot:
 *   - detection time (perc_pixel_detect, no OCR): median of N reps on 1 and
 *     on 2 OpenMP threads, in the same process, alternating;
 *   - OCR time for the boxes' text on a 1- and a 2-engine pool (cache
 *     emptied: a new pool per rep; the engines' load time is excluded);
 *   - ground truth = the dom provider's boxes (visible interactive
 *     elements); pixel boxes (geometry + raw OCR, no DOM names) are matched:
 *     recall@IoU0.5 (truth boxes with a pixel box of IoU >= 0.5),
 *     precision@IoU0.5 (pixel boxes with a truth box of IoU >= 0.5),
 *     centre-hit recall (truth boxes containing some pixel box's centre),
 *     OCR word accuracy (words of a truth label found in the OCR text of the
 *     pixel box whose centre hits it, over truth words, for truth labels of
 *     at most 6 words: longer ones are a section's whole text, not a name).
 * On a page that publishes window.controls (the painted canvas fixture) those
 * rects are the truth instead (the DOM has only the canvas).
 * OCR is timed on a fresh pool of 1 and of 2 engines (cold cache) and again
 * on the 2-engine pool (repeated pass: the crop cache answers).
 * The provider line: perc_vision_pixel_create's provider on the live page
 * (detect + DOM enrichment + OCR of every box left, as `fovea run --vision
 * pixel` uses it): its boxes' precision and centre-hit against
 * the same truth, and its wall time on a first pass (cold OCR cache) and a
 * second pass on the same screenshot.
 * --dump prints every detected element and every missed truth box. Totals
 * are summed over pages.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "serve/httpd.h"
#include "harness.h"
#include "perception/capture.h"
#include "perception/kit.h"
#include "perception/pixel.h"
#include "webset.h"

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, dbl_cmp);
    return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

/* OCR variants to compare (--ocr-variant NAME=KEY:VALUE&KEY:VALUE): each
 * sets the OCR pool's tuning environment (FOVEA_OCR_VARS, FOVEA_OCR_PX;
 * pixel_ocr.c reads them when a pool is created), is timed cold on a 2- and
 * a 1-engine pool alternating with the others in the same process, and
 * scored for word accuracy. */
#define MAX_VARIANTS 8
static char variant_spec[MAX_VARIANTS][256];
static int n_variants;
static double var_ms[MAX_VARIANTS], var_ms1[MAX_VARIANTS];
static int var_ok[MAX_VARIANTS], var_words[MAX_VARIANTS];

/* Applies variant v's settings (clearing the others): ENV is KEY:VALUE
 * pairs separated by '&'. */
static void variant_env(int v)
{
    unsetenv("FOVEA_OCR_VARS");
    unsetenv("FOVEA_OCR_PX");
    char buf[256];
    const char *eq = strchr(variant_spec[v], '=');
    snprintf(buf, sizeof buf, "%s", eq ? eq + 1 : "");
    for (char *tok = buf; tok && *tok;) {
        char *amp = strchr(tok, '&');
        if (amp)
            *amp = '\0';
        char *c = strchr(tok, ':');
        if (c) {
            *c = '\0';
            setenv(tok, c + 1, 1);
        }
        tok = amp ? amp + 1 : NULL;
    }
}

/* Words of truth labels (<= 6 words) found in the OCR text of the box whose
 * centre hits them: *ok of *all. */
static void word_score(const perc_detection *gt, const perc_pixel_elem *el, int n,
                       const int *item_of, const perc_ocr_item *items, int *ok, int *all)
{
    for (int g = 0; g < gt->n; g++) {
        int got_hit = -1;
        for (int i = 0; i < n && got_hit < 0; i++) {
            base_rect pr = {(float)el[i].x0, (float)el[i].y0, (float)el[i].x1, (float)el[i].y1};
            if (base_rect_contains(gt->boxes[g].r, base_rect_center(pr)))
                got_hit = i;
        }
        if (got_hit < 0 || item_of[got_hit] < 0)
            continue;
        char tw[32][32], pw[32][32];
        int nt = pw_words(gt->boxes[g].label, tw);
        int np = pw_words(items[item_of[got_hit]].text, pw);
        if (nt > 6)
            nt = 0;
        for (int x = 0; x < nt; x++) {
            int found = 0;
            for (int y = 0; y < np && !found; y++)
                found = strcmp(tw[x], pw[y]) == 0;
            (*all)++;
            *ok += found;
        }
    }
}

typedef struct totals {
    int truth, pred, rec_iou, prec_iou, hit, ocr_words, ocr_ok;
    double ms1, ms2, ocr_ms, ocr1_ms, ocr_rep_ms;
    int pages;
    int pv_n, pv_prec, pv_hit;
    double pv1, pv2, dom_ms;
} totals;

static void measure(cdp_page *p, const char *name, int reps, int dump, perc_ocr *ocr_unused,
                    totals *t)
{
    (void)ocr_unused;
    char err[256] = "";
    img_image img = {0};
    if (perc_capture(p, NULL, &img, NULL, err)) {
        fprintf(stderr, "%s: capture: %s\n", name, err);
        return;
    }
    /* Ground truth. */
    perc_vision *dom = NULL;
    perc_detection gt;
    memset(&gt, 0, sizeof gt);
    if (perc_vision_dom_create(&dom, err) || perc_vision_detect(dom, p, NULL, NULL, &gt, err)) {
        fprintf(stderr, "%s: dom: %s\n", name, err);
        perc_vision_destroy(dom);
        img_fini(&img);
        return;
    }
    perc_vision_destroy(dom);
    /* A painted page (tests/fixtures/pages/pixel/canvas.html) publishes its
     * controls' rects in window.controls: they are the truth there, since
     * the DOM has only the canvas. */
    cJSON *cv = NULL;
    if (cdp_page_evaluate(p, "window.controls ? JSON.stringify(window.controls) : ''", &cv, 5000,
                          NULL) == BASE_OK &&
        cJSON_IsString(cv) && cv->valuestring[0]) {
        cJSON *arr = cJSON_Parse(cv->valuestring);
        int k = cJSON_GetArraySize(arr);
        perc_box *nb = k > 0 ? base_calloc((size_t)k, sizeof *nb) : NULL;
        if (nb) {
            for (int i = 0; i < k; i++) {
                const cJSON *o = cJSON_GetArrayItem(arr, i);
                nb[i].r = (base_rect){(float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "x0")),
                                      (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "y0")),
                                      (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "x1")),
                                      (float)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "y1"))};
                snprintf(nb[i].label, sizeof nb[i].label, "%s",
                         cJSON_GetStringValue(cJSON_GetObjectItem(o, "name")));
                snprintf(nb[i].kind, sizeof nb[i].kind, "painted");
            }
            double ms = gt.ms;
            perc_detection_fini(&gt);
            gt.boxes = nb;
            gt.n = k;
            gt.ms = ms;
        }
        cJSON_Delete(arr);
    }
    cJSON_Delete(cv);
    /* Timing: alternate 1 and 2 threads. */
    double *a = base_calloc((size_t)reps, sizeof *a), *b = base_calloc((size_t)reps, sizeof *b);
    perc_pixel_elem *el = NULL;
    int n = 0;
    for (int r = 0; r < reps; r++) {
        for (int th = 1; th <= 2; th++) {
            perc_pixel_opts o;
            perc_pixel_opts_init(&o);
            o.threads = th;
            base_free(el);
            el = NULL;
            double t0 = base_monotime_ms();
            perc_pixel_detect(&img, &o, &el, &n, err);
            (th == 1 ? a : b)[r] = base_monotime_ms() - t0;
        }
    }
    double ms1 = median(a, reps), ms2 = median(b, reps);
    /* OCR, cold cache: a fresh pool per rep, its load excluded. */
    perc_ocr_item *items = base_calloc(n > 0 ? (size_t)n : 1, sizeof *items);
    int *item_of = base_calloc(n > 0 ? (size_t)n : 1, sizeof *item_of);
    int ni = 0;
    for (int i = 0; i < n; i++) {
        item_of[i] = -1;
        if (el[i].tx1 > el[i].tx0) {
            items[ni] = (perc_ocr_item){el[i].tx0 - 3, el[i].ty0 - 3, el[i].tx1 + 3, el[i].ty1 + 3,
                                        "", 0};
            item_of[i] = ni++;
        }
    }
    /* A fresh pool of 1 and of 2 engines per rep (cold cache), alternating;
     * then a repeated read on the 2-engine pool (the cache answers). */
    int oreps = reps < 3 ? reps : 3;
    double *oc = base_calloc((size_t)oreps, sizeof *oc);
    double *oc1 = base_calloc((size_t)oreps, sizeof *oc1);
    double *ocr_rep = base_calloc((size_t)oreps, sizeof *ocr_rep);
    for (int r = 0; r < oreps; r++) {
        for (int th = 1; th <= 2; th++) {
            perc_ocr *ocr = NULL;
            if (perc_ocr_create(th, &ocr, err)) {
                fprintf(stderr, "ocr: %s\n", err);
                break;
            }
            double t0 = base_monotime_ms();
            perc_ocr_read(ocr, &img, items, ni, err);
            (th == 1 ? oc1 : oc)[r] = base_monotime_ms() - t0;
            if (th == 2) {
                t0 = base_monotime_ms();
                perc_ocr_read(ocr, &img, items, ni, err);
                ocr_rep[r] = base_monotime_ms() - t0;
            }
            perc_ocr_destroy(ocr);
        }
    }
    double ocr_ms = median(oc, oreps), ocr1_ms = median(oc1, oreps);
    double ocr_rep_ms = median(ocr_rep, oreps);
    /* OCR variants, alternating in this process (cold 2-engine pools). */
    if (n_variants > 0) {
        perc_ocr_item *vi = base_calloc(ni > 0 ? (size_t)ni : 1, sizeof *vi);
        double vt[MAX_VARIANTS][3], vt1[MAX_VARIANTS][3];
        for (int r = 0; r < oreps; r++) {
            for (int v = 0; v < n_variants; v++) {
                for (int th = 2; th >= 1; th--) {
                    variant_env(v);
                    perc_ocr *ocr = NULL;
                    if (perc_ocr_create(th, &ocr, err))
                        continue;
                    memcpy(vi, items, (size_t)ni * sizeof *vi);
                    double t0 = base_monotime_ms();
                    perc_ocr_read(ocr, &img, vi, ni, err);
                    (th == 2 ? vt : vt1)[v][r] = base_monotime_ms() - t0;
                    perc_ocr_destroy(ocr);
                    if (r == oreps - 1 && th == 2)
                        word_score(&gt, el, n, item_of, vi, &var_ok[v], &var_words[v]);
                }
            }
        }
        for (int v = 0; v < n_variants; v++) {
            double m = median(vt[v], oreps), m1 = median(vt1[v], oreps);
            var_ms[v] += m;
            var_ms1[v] += m1;
            const char *eq = strchr(variant_spec[v], '=');
            int name_len = eq ? (int)(eq - variant_spec[v]) : 12;
            printf("%-34s variant %-12.*s ocr %6.1f ms (2 thr) %6.1f ms (1 thr)\n", name, name_len,
                   variant_spec[v], m, m1);
        }
        unsetenv("FOVEA_OCR_VARS");
        unsetenv("FOVEA_OCR_PX");
        base_free(vi);
    }
    /* Matching (CSS px = device px at scale 1). */
    int rec = 0, hit = 0, prec = 0, ow = 0, ook = 0;
    for (int g = 0; g < gt.n; g++) {
        base_rect tr = gt.boxes[g].r;
        int got_iou = 0, got_hit = -1;
        for (int i = 0; i < n; i++) {
            base_rect pr = {(float)el[i].x0, (float)el[i].y0, (float)el[i].x1, (float)el[i].y1};
            if (base_rect_iou(pr, tr) >= 0.5f)
                got_iou = 1;
            if (got_hit < 0 && base_rect_contains(tr, base_rect_center(pr)))
                got_hit = i;
        }
        rec += got_iou;
        hit += got_hit >= 0;
        if (dump && got_hit < 0)
            printf("  MISS %-8s %6.1f %6.1f %6.1f %6.1f '%s'\n", gt.boxes[g].kind, tr.x0, tr.y0,
                   tr.x1, tr.y1, gt.boxes[g].label);
        if (got_hit >= 0 && item_of[got_hit] >= 0) {
            char tw[32][32], pw[32][32];
            int nt = pw_words(gt.boxes[g].label, tw);
            int np = pw_words(items[item_of[got_hit]].text, pw);
            if (nt > 6)
                nt = 0; /* a section's whole text, not a control's name */
            int miss = 0;
            for (int x = 0; x < nt; x++) {
                int found = 0;
                for (int y = 0; y < np && !found; y++)
                    found = strcmp(tw[x], pw[y]) == 0;
                ow++;
                ook += found;
                miss += !found;
            }
            if (dump && miss)
                printf("  OCR '%s' -> '%s'\n", gt.boxes[g].label, items[item_of[got_hit]].text);
        }
    }
    for (int i = 0; i < n; i++) {
        base_rect pr = {(float)el[i].x0, (float)el[i].y0, (float)el[i].x1, (float)el[i].y1};
        for (int g = 0; g < gt.n; g++) {
            if (base_rect_iou(pr, gt.boxes[g].r) >= 0.5f) {
                prec++;
                break;
            }
        }
        if (dump)
            printf("  %-8s %4d %4d %4d %4d  text %4d %4d %4d %4d '%s'\n",
                   perc_pixel_class_name(el[i].cls), el[i].x0, el[i].y0, el[i].x1, el[i].y1,
                   el[i].tx0, el[i].ty0, el[i].tx1, el[i].ty1,
                   item_of[i] >= 0 ? items[item_of[i]].text : "");
    }
    /* The provider as a run uses it: detect + enrichment (one CDP probe) +
     * OCR of every box left; a second pass on the same
     * screen answers OCR from the cache. */
    double pv1 = 0, pv2 = 0;
    int pn = 0, pprec = 0, phit = 0;
    perc_vision *pv = NULL;
    if (perc_vision_pixel_create(NULL, &pv, err) == BASE_OK) {
        for (int pass = 0; pass < 2; pass++) {
            perc_detection d;
            memset(&d, 0, sizeof d);
            double t0 = base_monotime_ms();
            if (perc_vision_detect(pv, p, &img, NULL, &d, err)) {
                fprintf(stderr, "%s: provider: %s\n", name, err);
                break;
            }
            *(pass ? &pv2 : &pv1) = base_monotime_ms() - t0;
            for (int i = 0; dump && pass == 0 && i < d.n; i++) {
                const perc_box *bx = &d.boxes[i];
                base_rect mr = bx->dom_index >= 0 && bx->dom_index < d.n_map
                                   ? d.map[bx->dom_index].r
                                   : (base_rect){0, 0, 0, 0};
                printf("  PV %-8s %6.1f %6.1f %6.1f %6.1f dom %3d (%.0f,%.0f,%.0f,%.0f) '%s'\n",
                       bx->kind, bx->r.x0, bx->r.y0, bx->r.x1, bx->r.y1, bx->dom_index, mr.x0,
                       mr.y0, mr.x1, mr.y1, bx->label);
            }
            if (pass == 0) {
                pn = d.n;
                for (int i = 0; i < d.n; i++) {
                    for (int g = 0; g < gt.n; g++) {
                        if (base_rect_iou(d.boxes[i].r, gt.boxes[g].r) >= 0.5f) {
                            pprec++;
                            break;
                        }
                    }
                }
                for (int g = 0; g < gt.n; g++) {
                    for (int i = 0; i < d.n; i++) {
                        if (base_rect_contains(gt.boxes[g].r, base_rect_center(d.boxes[i].r))) {
                            phit++;
                            break;
                        }
                    }
                }
            }
            perc_detection_fini(&d);
        }
    }
    perc_vision_destroy(pv);
    printf("%-34s provider: %3d boxes  precision@0.5 %5.1f%%  centre-hit %5.1f%%  pass 1 %6.1f ms  "
           "pass 2 %6.1f ms  (dom provider %6.1f ms)\n",
           name, pn, pn ? 100.0 * pprec / pn : 0, gt.n ? 100.0 * phit / gt.n : 0, pv1, pv2, gt.ms);
    t->dom_ms += gt.ms;
    t->pv_n += pn;
    t->pv_prec += pprec;
    t->pv_hit += phit;
    t->pv1 += pv1;
    t->pv2 += pv2;
    printf("%-34s truth %3d pixel %3d  recall@0.5 %5.1f%%  precision@0.5 %5.1f%%  centre-hit "
           "%5.1f%%  ocr words %5.1f%% (%d)  detect %6.1f ms (1 thr) %6.1f ms (2 thr)  ocr %6.1f "
           "ms (%d crops; 1 thr %.1f ms, repeated %.1f ms)\n",
           name, gt.n, n, gt.n ? 100.0 * rec / gt.n : 0, n ? 100.0 * prec / n : 0,
           gt.n ? 100.0 * hit / gt.n : 0, ow ? 100.0 * ook / ow : 0, ow, ms1, ms2, ocr_ms, ni,
           ocr1_ms, ocr_rep_ms);
    fflush(stdout);
    t->truth += gt.n;
    t->pred += n;
    t->rec_iou += rec;
    t->prec_iou += prec;
    t->hit += hit;
    t->ocr_words += ow;
    t->ocr_ok += ook;
    t->ms1 += ms1;
    t->ms2 += ms2;
    t->ocr_ms += ocr_ms;
    t->ocr1_ms += ocr1_ms;
    t->ocr_rep_ms += ocr_rep_ms;
    t->pages++;
    base_free(a);
    base_free(b);
    base_free(oc);
    base_free(oc1);
    base_free(ocr_rep);
    base_free(items);
    base_free(item_of);
    base_free(el);
    perc_detection_fini(&gt);
    img_fini(&img);
}

int main(int argc, char **argv)
{
    int reps = 15, dump = 0;
    harness *h = harness_get();
    if (!h) {
        fprintf(stderr, "bench_pixel: %s\n", harness_error());
        return 1;
    }
    totals t;
    memset(&t, 0, sizeof t);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 15;
            continue;
        }
        if (strcmp(argv[i], "--dump") == 0) {
            dump = 1;
            continue;
        }
        if (strcmp(argv[i], "--ocr-variant") == 0 && i + 1 < argc && n_variants < MAX_VARIANTS) {
            snprintf(variant_spec[n_variants++], sizeof variant_spec[0], "%s", argv[++i]);
            continue;
        }
        cdp_page *p = NULL;
        char name[300], url[512], err[256] = "";
        serve_httpd *srv = NULL;
        if (strcmp(argv[i], "--site") == 0 && i + 2 < argc) {
            serve_httpd_opts o = {.root = argv[i + 1]};
            if (serve_httpd_start(&o, &srv, err)) {
                fprintf(stderr, "serve %s: %s\n", argv[i + 1], err);
                return 1;
            }
            snprintf(url, sizeof url, "http://127.0.0.1:%d%s", serve_httpd_port(srv), argv[i + 2]);
            snprintf(name, sizeof name, "%s", argv[i + 2]);
            i += 2;
        } else {
            harness_url(0, argv[i], url, sizeof url);
            snprintf(name, sizeof name, "%s", argv[i]);
        }
        /* As fovea's sessions open pages: the kit's listener recorder first,
         * so listener-only controls count as interactive. */
        p = harness_open(1280, 800, 1, NULL);
        if (p && (perc_kit_install(p, err) || cdp_page_navigate(p, url, 20000, err))) {
            fprintf(stderr, "open %s: %s\n", url, err);
            cdp_page_close(p);
            p = NULL;
        }
        if (!p) {
            fprintf(stderr, "open %s failed\n", name);
            serve_httpd_destroy(srv);
            continue;
        }
        base_sleep_ms(300); /* fonts and late layout */
        measure(p, name, reps, dump, NULL, &t);
        cdp_page_close(p);
        serve_httpd_destroy(srv);
    }
    if (t.pages)
        printf("ALL %d pages: truth %d pixel %d  recall@0.5 %.1f%%  precision@0.5 %.1f%%  "
               "centre-hit %.1f%%  ocr words %.1f%% (%d)  detect mean of medians %.1f ms (1 thr) "
               "%.1f ms (2 thr)  ocr %.1f ms/page (2 thr; 1 thr %.1f; repeated %.1f)\n",
               t.pages, t.truth, t.pred, 100.0 * t.rec_iou / t.truth, 100.0 * t.prec_iou / t.pred,
               100.0 * t.hit / t.truth, t.ocr_words ? 100.0 * t.ocr_ok / t.ocr_words : 0,
               t.ocr_words, t.ms1 / t.pages, t.ms2 / t.pages, t.ocr_ms / t.pages,
               t.ocr1_ms / t.pages, t.ocr_rep_ms / t.pages);
    if (t.pages)
        printf("ALL provider: %d boxes  precision@0.5 %.1f%%  centre-hit %.1f%%  pass 1 %.1f ms  "
               "pass 2 %.1f ms (mean per page; dom provider %.1f ms)\n",
               t.pv_n, t.pv_n ? 100.0 * t.pv_prec / t.pv_n : 0, 100.0 * t.pv_hit / t.truth,
               t.pv1 / t.pages, t.pv2 / t.pages, t.dom_ms / t.pages);
    for (int v = 0; t.pages && v < n_variants; v++)
        printf("ALL variant %s: ocr %.1f ms/page (2 thr) %.1f ms/page (1 thr)  ocr words %.1f%% "
               "(%d)\n",
               variant_spec[v], var_ms[v] / t.pages, var_ms1[v] / t.pages,
               var_words[v] ? 100.0 * var_ok[v] / var_words[v] : 0, var_words[v]);
    return 0;
}

/* bench/bench_overlay.c: Set-of-Marks overlay and model-bound pipeline
 * timings for bench/RESULTS.md.
 *
 * Usage: bench_overlay [PNG [BOXES_JSON [REPS]]] (defaults: the committed
 * 1280x800 screenshot bench/data/page50.png with its 50 boxes, 100 reps).
 * Prints medians of:
 *   1. img_som_draw with 50 labelled marks, scalar kernel vs the SIMD kernel
 *      chosen at run time, at 1 thread and at the default OpenMP threads;
 *   2. the pipeline a vision call needs: decode PNG -> 50 marks -> resize to
 *      1024 wide -> JPEG q80, with a per-stage breakdown.
 * The image is restored from a pristine copy outside the timed region.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/fs.h"
#include "base/json_alloc.h"
#include "base/stats.h"
#include "image/image.h"
#include "image/som.h"

static double median(double *v, int n)
{
    return base_summarize(v, n).median;
}

static double time_draw(const img_image *pristine, img_image *work, const img_mark *m, int n,
                        img_kernel k, int reps, double *samples)
{
    img_som_opts o;
    img_som_opts_init(&o);
    o.kernel = k;
    for (int r = -3; r < reps; r++) {
        memcpy(work->px, pristine->px, (size_t)pristine->stride * pristine->h);
        double t0 = base_monotime_ms();
        if (img_som_draw(work, m, n, &o, NULL) != BASE_OK) {
            fprintf(stderr, "draw failed\n");
            exit(1);
        }
        if (r >= 0)
            samples[r] = base_monotime_ms() - t0;
    }
    return median(samples, reps);
}

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    const char *png_path =
        argc > 1 && argv[1][0] ? argv[1] : FOVEA_SOURCE_DIR "/bench/data/page50.png";
    const char *box_path =
        argc > 2 && argv[2][0] ? argv[2] : FOVEA_SOURCE_DIR "/bench/data/boxes50.json";
    int reps = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 100;
    if (reps < 1)
        reps = 1;
    /* As the fovea binary does (tools/fovea.c); FOVEA_BENCH_MALLOC_DEFAULT=1
     * measures glibc's default thresholds instead. */
    if (!getenv("FOVEA_BENCH_MALLOC_DEFAULT"))
        base_alloc_keep_large_buffers();
    char err[BASE_ERRBUF_SIZE] = "";
    uint8_t *png = NULL;
    size_t png_n = 0;
    uint8_t *js = NULL;
    size_t js_n = 0;
    img_mark *marks = NULL;
    int n = 0;
    img_image pristine = {0};
    if (base_read_file(png_path, &png, &png_n, 64u << 20, err) ||
        base_read_file(box_path, &js, &js_n, 16u << 20, err) ||
        img_marks_parse_json((const char *)js, js_n, 0, 0, &marks, &n, err) ||
        img_decode(png, png_n, &pristine, err)) {
        fprintf(stderr, "bench_overlay: %s\n", err);
        return 1;
    }
    img_image work = {0};
    if (img_alloc(&work, pristine.w, pristine.h) != BASE_OK)
        return 1;
    double *s = malloc(sizeof(double) * (size_t)reps);
    double *s2 = malloc(sizeof(double) * (size_t)reps * 5);
    if (!s || !s2)
        return 1;
    printf("image %dx%d (%zu bytes PNG), %d marks, %d reps, simd kernel: %s, omp threads: %d\n",
           pristine.w, pristine.h, png_n, n, reps, img_som_kernel_name(IMG_KERNEL_AUTO),
           omp_get_max_threads());

    int maxt = omp_get_max_threads();
    for (int pass = 0; pass < 2; pass++) {
        int t = pass == 0 ? 1 : maxt;
        omp_set_num_threads(t);
        double sc = time_draw(&pristine, &work, marks, n, IMG_KERNEL_SCALAR, reps, s);
        double si = time_draw(&pristine, &work, marks, n, IMG_KERNEL_AUTO, reps, s);
        printf("overlay %d thread(s): scalar %.3f ms, simd %.3f ms, simd/scalar %.2fx\n", t, sc, si,
               si / sc);
    }
    omp_set_num_threads(maxt);

    /* The model-bound pipeline, one full run per rep. */
    double *dec = s2;
    double *drw = s2 + reps;
    double *rsz = s2 + 2 * reps;
    double *enc = s2 + 3 * reps;
    double *tot = s2 + 4 * reps;
    size_t jpeg_len = 0;
    for (int r = -3; r < reps; r++) {
        img_image img = {0};
        img_image view = {0};
        uint8_t *jpg = NULL;
        double t0 = base_monotime_ms();
        base_err e = img_decode(png, png_n, &img, err);
        double t1 = base_monotime_ms();
        if (!e)
            e = img_som_draw(&img, marks, n, NULL, err);
        double t2 = base_monotime_ms();
        if (!e)
            e = img_model_view(&img, 1024, &view, NULL);
        double t3 = base_monotime_ms();
        if (!e)
            e = img_encode_jpeg(&view, 80, &jpg, &jpeg_len, err);
        double t4 = base_monotime_ms();
        if (e) {
            fprintf(stderr, "pipeline failed: %s\n", err);
            return 1;
        }
        if (r >= 0) {
            dec[r] = t1 - t0;
            drw[r] = t2 - t1;
            rsz[r] = t3 - t2;
            enc[r] = t4 - t3;
            tot[r] = t4 - t0;
        }
        base_free(jpg);
        img_fini(&view);
        img_fini(&img);
    }
    /* BENCH_OVERLAY_OUT=path.png saves one overlay to look at. */
    const char *save = getenv("BENCH_OVERLAY_OUT");
    if (save) {
        img_image img = {0};
        uint8_t *out = NULL;
        size_t out_n = 0;
        if (img_decode(png, png_n, &img, err) || img_som_draw(&img, marks, n, NULL, err) ||
            img_draw_caption(&img, "step 3 - click [V4] 'Account 5' - ok", err) ||
            img_encode_png(&img, 1, &out, &out_n, err) ||
            base_write_file(save, out, out_n, err))
            fprintf(stderr, "bench_overlay: %s\n", err);
        base_free(out);
        img_fini(&img);
    }
    printf("pipeline stages (median ms): decode %.3f, marks %.3f, resize %.3f, jpeg %.3f\n",
           median(dec, reps), median(drw, reps), median(rsz, reps), median(enc, reps));
    printf("pipeline fovea: %.3f ms median (jpeg %zu bytes)\n", median(tot, reps), jpeg_len);
    free(s);
    free(s2);
    img_marks_free(marks, n);
    img_fini(&work);
    img_fini(&pristine);
    base_free(png);
    base_free(js);
    return 0;
}

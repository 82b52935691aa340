/* bench/vips_pipeline.c: the libvips baseline for bench/run_pipeline.sh.
 *
 * Same pipeline as bench_overlay's: decode the PNG (forced into memory),
 * draw 50 marks (2 px outlines and a solid tag per mark; libvips has no
 * cheap translucent fill or glyph drawing, so it does less work than fovea
 * here), resize to 1024 wide, encode JPEG q80. Prints the median.
 * Usage: vips_pipeline PNG [REPS [nomarks]]. Boxes are the bench page's 5x10
 * grid. vips_draw_rect costs about 1 ms per call on an in-memory image, so
 * "nomarks" also measures decode -> resize -> JPEG alone, a lower bound
 * for libvips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vips/vips.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (VIPS_INIT(argv[0]) || argc < 2)
        return 1;
    int reps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 50;
    if (reps < 1)
        reps = 1;
    gchar *data = NULL;
    gsize n = 0;
    if (!g_file_get_contents(argv[1], &data, &n, NULL))
        return 1;
    double *t = calloc((size_t)reps, sizeof(double));
    if (!t)
        return 1;
    int marks = !(argc > 3 && strcmp(argv[3], "nomarks") == 0);
    for (int r = -3; r < reps; r++) {
        double t0 = now_ms();
        VipsImage *in = vips_image_new_from_buffer(data, n, "", NULL);
        VipsImage *img = NULL;
        if (!in || vips_copy(in, &img, NULL) || vips_image_wio_input(img))
            vips_error_exit("decode");
        double t1 = now_ms();
        double ink[4] = {230, 25, 75, 255};
        int bands = vips_image_get_bands(img);
        for (int i = 0; i < 50 * marks; i++) {
            int x = 40 + (i % 5) * 244;
            int y = 90 + (i / 5) * 70;
            vips_draw_rect(img, ink, bands, x, y, 220, 54, "fill", FALSE, NULL);
            vips_draw_rect(img, ink, bands, x + 1, y + 1, 218, 52, "fill", FALSE, NULL);
            vips_draw_rect(img, ink, bands, x, y - 16, 40, 16, "fill", TRUE, NULL);
        }
        double t2 = now_ms();
        VipsImage *small = NULL;
        void *jpg = NULL;
        size_t jn = 0;
        if (vips_resize(img, &small, 1024.0 / vips_image_get_width(img), "kernel",
                        VIPS_KERNEL_LINEAR, NULL) ||
            vips_jpegsave_buffer(small, &jpg, &jn, "Q", 80, NULL))
            vips_error_exit("pipeline");
        if (r >= 0)
            t[r] = now_ms() - t0;
        if (r == reps - 1)
            printf("vips stages (last rep, ms): decode %.3f, marks %.3f, resize+jpeg %.3f\n",
                   t1 - t0, t2 - t1, now_ms() - t2);
        g_free(jpg);
        g_object_unref(small);
        g_object_unref(img);
        g_object_unref(in);
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_d);
    /* Median as base_summarize computes it for fovea (mean of the two middle
     * values for an even count), so the ratios compare like with like. */
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    printf("pipeline vips%s: %.3f ms median\n", marks ? "" : " (no marks)", med);
    free(t);
    g_free(data);
    vips_shutdown();
    return 0;
}

/* perception/pixel_int.h: the pixel detector's kernels, shared by
 * pixel_kernels.c, pixel_avx2.c, pixel_detect.c and the tests. Not a public
 * header.
 *
 * The edge kernel computes, per pixel, the largest absolute difference of any
 * colour channel (R, G or B; alpha ignored) to its right and lower neighbour
 * (a missing neighbour counts as the pixel itself). That is pure integer
 * max/abs on bytes, so the SSE2 and AVX2 versions are bit-exact with the
 * scalar reference by construction, and a row depends only on itself and the
 * next row, so rows split over threads give the same map.
 */
#ifndef FOVEA_PERCEPTION_PIXEL_INT_H
#define FOVEA_PERCEPTION_PIXEL_INT_H

#include <stdint.h>

#include "perception/pixel.h"

/* One row of the edge map: cur and down are RGBA rows of w pixels (down may
 * equal cur for the last row), out gets w strength bytes. */
typedef void (*pixel_edge_fn)(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w);

void perc__pixel_edge_scalar(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w);
void perc__pixel_edge_sse2(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w);
void perc__pixel_edge_avx2(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w);

/* Threads for a w x h image: `threads` when > 0, else OpenMP's default for
 * images of at least PIXEL_PARALLEL_MIN_PX pixels and 1 below. */
#define PIXEL_PARALLEL_MIN_PX (2 * 1000 * 1000)
int perc__pixel_threads(int threads, int w, int h);

/* The kernel for k, or NULL when the CPU lacks it. */
pixel_edge_fn perc__pixel_edge_pick(img_kernel k);

/* Whole-image edge map into out (w*h bytes, caller's buffer), rows split over
 * perc__pixel_threads(threads, w, h) OpenMP threads. */
void perc__pixel_edge_map(const img_image *img, uint8_t *out, pixel_edge_fn fn, int threads);

/* A horizontal run of edge pixels [x0, x1) on row y. */
typedef struct pixel_run {
    int y, x0, x1;
} pixel_run;

/* Runs of edge[] >= thr, row-major, left to right. *runs (base_free) holds
 * *n of them; rows are scanned in parallel (count, prefix sum, fill), so the
 * list is the same for any thread count. Errors: BASE_ENOMEM, BASE_ETOOBIG
 * (more than max_runs runs: an image too busy to segment). */
base_err perc__pixel_runs(const uint8_t *edge, int w, int h, int thr, int threads, int max_runs,
                          pixel_run **runs, int *n);

/* A connected component (8-connected) of edge pixels. */
typedef struct pixel_comp {
    int x0, y0, x1, y1; /* bounding box, half-open */
    int npx;            /* edge pixels */
    int nborder;        /* edge pixels within 3 px of the box's border */
    int side[4];        /* edge pixels within 3 px of the top, bottom, left, right side */
    int sx, sy, slen;   /* the middle pixel of its longest run (the first, row-major, of
                           equal ones) and that run's length: a pixel inside its widest part */
} pixel_comp;

/* Components of the runs, sorted by (y0, x0, y1, x1). *comps (base_free).
 * Errors: BASE_ENOMEM. */
base_err perc__pixel_components(const pixel_run *runs, int n, pixel_comp **comps, int *nc);

/* The index of the text element (TEXT or LINK with text) that labels
 * element i when it is a FIELD or a CHECKBOX: the nearest text line directly
 * above it (left-aligned within about a line height, bottom within ~1.5 line
 * heights of the box) or on its row to the left, or for a checkbox to its
 * right; -1 when there is none or i is another class. Pure geometry on el
 * (perception/pixel_label.c); deterministic, ties to the lower index. */
int perc__pixel_label_of(const perc_pixel_elem *el, int n, int i);

#endif

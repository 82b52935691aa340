/* image/som_int.h: the drawing-op list and compositing kernels shared
 * by som.c, draw.c and the SIMD sources. Not a public header.
 *
 * Everything an overlay draws is first turned into a list of ops in image
 * pixels (translucent rectangles, dashed rectangles, text runs), and then
 * one pass composites the list row by row: rows are independent, so the
 * pass is split across OpenMP threads by rows and gives the same bytes for
 * any thread count. Only the span kernel (a constant colour blended over a
 * run of pixels) has SIMD versions; they are bit-exact with the scalar one
 * because all three compute the same integer formula.
 */
#ifndef FOVEA_IMAGE_SOM_INT_H
#define FOVEA_IMAGE_SOM_INT_H

#include <stdint.h>

#include "image/font.h"
#include "image/image.h"
#include "image/som.h"

enum { SOM_OP_FILL = 0, SOM_OP_TEXT = 1 };

#define SOM_TEXT_MAX 128

typedef struct som_op {
    int kind;
    int x0, y0, x1, y1;   /* clip/extent in image pixels, half-open */
    uint8_t rgb[3];
    uint8_t alpha;        /* 0..255 */
    int dash;             /* FILL: dash period in px (0 = solid) */
    int dash_axis;        /* FILL: 0 = dashes along x, 1 = along y */
    int pen_x, base_y;    /* TEXT: pen start and baseline */
    const img_font *font;
    char text[SOM_TEXT_MAX];
} som_op;

typedef struct som_oplist {
    som_op *ops;
    int n, cap;
} som_oplist;

/* Blends the constant colour (rgb, alpha a; alpha channel treated as 255)
 * over n RGBA pixels: out = div255(a*c + (255-a)*d) per channel, where
 * div255(v) = ((v+128) + ((v+128)>>8)) >> 8 is the exact rounded v/255. */
typedef void (*som_span_fn)(uint8_t *px, int n, const uint8_t rgb[3], int a);

void img__span_scalar(uint8_t *px, int n, const uint8_t rgb[3], int a);
void img__span_sse2(uint8_t *px, int n, const uint8_t rgb[3], int a);
void img__span_avx2(uint8_t *px, int n, const uint8_t rgb[3], int a);

/* Appends an op; BASE_ENOMEM on failure (the list is unchanged). */
base_err img__ops_push(som_oplist *l, const som_op *op);
void img__ops_fini(som_oplist *l);

/* Composites ops in order onto img with the chosen kernel, rows split over
 * OpenMP threads. Allocates its row index before the parallel region. */
base_err img__ops_apply(img_image *img, const som_oplist *l, img_kernel k, char *err);

/* Pushes a rectangle outline of thickness t (dashed when dash > 0), drawn
 * inside [x0,x1)x[y0,y1). */
base_err img__ops_outline(som_oplist *l, int x0, int y0, int x1, int y1, int t, int dash,
                           const uint8_t rgb[3], int alpha);

#endif

/* image/som_kernels.c: op lists and the row compositor for overlays.
 *
 * The compositor walks the image row by row; each row looks up the ops that
 * touch its 32-row band (an index built before the parallel region, the
 * only allocation here) and applies them in list order, so the result
 * equals drawing the ops one after another. Rows are independent, which is
 * why splitting them across OpenMP threads cannot change a single byte.
 *
 * Blending is "constant colour over pixel" with 8-bit alpha, computed as
 * div255(a*c + (255-a)*d) with the exact rounding division
 * ((v+128) + ((v+128)>>8)) >> 8 (v <= 255*255). The alpha channel is blended
 * with c = 255, i.e. "over" onto the page. Every intermediate fits in an
 * unsigned 16-bit lane, which is what lets the SSE2/AVX2 kernels compute
 * exactly the same bytes as the scalar one. Glyph coverage (text) is
 * blended per pixel with the scalar formula in every kernel: text is a tiny
 * share of the pixels and sharing the code keeps it trivially identical.
 */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define SOM_X86 1
#else
#define SOM_X86 0
#endif

#include "base/alloc.h"
#include "image/som_int.h"

#define BAND 32

static inline unsigned div255(unsigned v)
{
    v += 128;
    return (v + (v >> 8)) >> 8;
}

void img__span_scalar(uint8_t *px, int n, const uint8_t rgb[3], int a)
{
    unsigned ia = 255u - (unsigned)a;
    unsigned c0 = (unsigned)a * rgb[0];
    unsigned c1 = (unsigned)a * rgb[1];
    unsigned c2 = (unsigned)a * rgb[2];
    unsigned c3 = (unsigned)a * 255u;
    for (int i = 0; i < n; i++) {
        uint8_t *p = px + 4 * i;
        p[0] = (uint8_t)div255(c0 + ia * p[0]);
        p[1] = (uint8_t)div255(c1 + ia * p[1]);
        p[2] = (uint8_t)div255(c2 + ia * p[2]);
        p[3] = (uint8_t)div255(c3 + ia * p[3]);
    }
}

#if SOM_X86
/* Blends 8 16-bit lanes: ((d*ia + ac) + 128), then the div255 trick. */
static inline __m128i blend16_sse2(__m128i d, __m128i ia, __m128i ac, __m128i k128)
{
    __m128i v = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(d, ia), ac), k128);
    return _mm_srli_epi16(_mm_add_epi16(v, _mm_srli_epi16(v, 8)), 8);
}

void img__span_sse2(uint8_t *px, int n, const uint8_t rgb[3], int a)
{
    const __m128i zero = _mm_setzero_si128();
    /* Products up to 65025 are stored as their 16-bit pattern; the lanes are
     * only ever used as unsigned. */
    const short r = (short)(uint16_t)(a * rgb[0]);
    const short g = (short)(uint16_t)(a * rgb[1]);
    const short b = (short)(uint16_t)(a * rgb[2]);
    const short w = (short)(uint16_t)(a * 255);
    const __m128i ac = _mm_setr_epi16(r, g, b, w, r, g, b, w);
    const __m128i ia = _mm_set1_epi16((short)(255 - a));
    const __m128i k128 = _mm_set1_epi16(128);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(px + 4 * i));
        __m128i lo = blend16_sse2(_mm_unpacklo_epi8(d, zero), ia, ac, k128);
        __m128i hi = blend16_sse2(_mm_unpackhi_epi8(d, zero), ia, ac, k128);
        _mm_storeu_si128((__m128i *)(void *)(px + 4 * i), _mm_packus_epi16(lo, hi));
    }
    img__span_scalar(px + 4 * i, n - i, rgb, a);
}

int img_have_sse2(void)
{
    return 1; /* part of the x86-64 baseline; i386 builds assume it too */
}
#else
void img__span_sse2(uint8_t *px, int n, const uint8_t rgb[3], int a)
{
    img__span_scalar(px, n, rgb, a);
}

int img_have_sse2(void)
{
    return 0;
}
#endif

base_err img__ops_push(som_oplist *l, const som_op *op)
{
    if (l->n == l->cap) {
        int ncap = l->cap ? l->cap * 2 : 64;
        if (ncap > (1 << 24))
            return BASE_ETOOBIG;
        som_op *grown = base_realloc(l->ops, (size_t)ncap * sizeof(*grown));
        if (!grown)
            return BASE_ENOMEM;
        l->ops = grown;
        l->cap = ncap;
    }
    l->ops[l->n++] = *op;
    return BASE_OK;
}

void img__ops_fini(som_oplist *l)
{
    base_free(l->ops);
    memset(l, 0, sizeof(*l));
}

static base_err push_fill(som_oplist *l, int x0, int y0, int x1, int y1, int dash, int axis,
                          const uint8_t rgb[3], int alpha)
{
    if (x1 <= x0 || y1 <= y0)
        return BASE_OK;
    som_op op = {.kind = SOM_OP_FILL, .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1,
                 .alpha = (uint8_t)alpha, .dash = dash, .dash_axis = axis};
    memcpy(op.rgb, rgb, 3);
    return img__ops_push(l, &op);
}

base_err img__ops_outline(som_oplist *l, int x0, int y0, int x1, int y1, int t, int dash,
                           const uint8_t rgb[3], int alpha)
{
    if (x1 <= x0 || y1 <= y0 || t < 1)
        return BASE_OK;
    /* A box thinner than two strokes is simply filled. */
    if (x1 - x0 <= 2 * t || y1 - y0 <= 2 * t)
        return push_fill(l, x0, y0, x1, y1, dash, 0, rgb, alpha);
    base_err e = push_fill(l, x0, y0, x1, y0 + t, dash, 0, rgb, alpha);
    if (!e)
        e = push_fill(l, x0, y1 - t, x1, y1, dash, 0, rgb, alpha);
    if (!e)
        e = push_fill(l, x0, y0 + t, x0 + t, y1 - t, dash, 1, rgb, alpha);
    if (!e)
        e = push_fill(l, x1 - t, y0 + t, x1, y1 - t, dash, 1, rgb, alpha);
    return e;
}

static inline void blend1(uint8_t *p, const uint8_t rgb[3], unsigned a)
{
    unsigned ia = 255u - a;
    p[0] = (uint8_t)div255(a * rgb[0] + ia * p[0]);
    p[1] = (uint8_t)div255(a * rgb[1] + ia * p[1]);
    p[2] = (uint8_t)div255(a * rgb[2] + ia * p[2]);
    p[3] = (uint8_t)div255(a * 255u + ia * p[3]);
}

static void row_fill(const som_op *op, uint8_t *row, int y, int w, som_span_fn span)
{
    int xs = op->x0 < 0 ? 0 : op->x0;
    int xe = op->x1 > w ? w : op->x1;
    if (xe <= xs)
        return;
    if (op->dash <= 0) {
        span(row + 4 * xs, xe - xs, op->rgb, op->alpha);
        return;
    }
    if (op->dash_axis == 1) {
        /* Vertical dashes: a whole row is either on or off. */
        if (((y - op->y0) / op->dash) % 2 == 0)
            span(row + 4 * xs, xe - xs, op->rgb, op->alpha);
        return;
    }
    for (int s = op->x0; s < xe; s += 2 * op->dash) {
        int a = s < xs ? xs : s;
        int b = s + op->dash > xe ? xe : s + op->dash;
        if (b > a)
            span(row + 4 * a, b - a, op->rgb, op->alpha);
    }
}

static void row_text(const som_op *op, uint8_t *row, int y, int w)
{
    int xs = op->x0 < 0 ? 0 : op->x0;
    int xe = op->x1 > w ? w : op->x1;
    int pen = op->pen_x;
    for (int i = 0; op->text[i]; i++) {
        const img_glyph *g = img_font_glyph(op->font, (unsigned char)op->text[i]);
        int gy = y - (op->base_y + g->yoff);
        if (g->cov && gy >= 0 && gy < g->h) {
            const uint8_t *cov = g->cov + (size_t)gy * (size_t)g->w;
            int gx0 = pen + g->xoff;
            for (int k = 0; k < g->w; k++) {
                int x = gx0 + k;
                if (x < xs || x >= xe || !cov[k])
                    continue;
                blend1(row + 4 * x, op->rgb, div255((unsigned)cov[k] * op->alpha));
            }
        }
        pen += g->advance;
    }
}

static som_span_fn pick_kernel(img_kernel k)
{
    switch (k) {
    case IMG_KERNEL_SCALAR:
        return img__span_scalar;
    case IMG_KERNEL_SSE2:
        return img_have_sse2() ? img__span_sse2 : NULL;
    case IMG_KERNEL_AVX2:
        return img_have_avx2() ? img__span_avx2 : NULL;
    case IMG_KERNEL_AUTO:
        if (img_have_avx2())
            return img__span_avx2;
        if (img_have_sse2())
            return img__span_sse2;
        return img__span_scalar;
    }
    return NULL;
}

const char *img_som_kernel_name(img_kernel k)
{
    som_span_fn f = pick_kernel(k);
    if (f == img__span_avx2)
        return "avx2";
    if (f == img__span_sse2)
        return "sse2";
    if (f == img__span_scalar)
        return "scalar";
    return "unavailable";
}

/* Rows [*y0, *y1) of the image that op touches; 0 when it touches none. */
static int op_rows(const som_op *op, int w, int h, int *y0, int *y1)
{
    *y0 = op->y0 < 0 ? 0 : op->y0;
    *y1 = op->y1 > h ? h : op->y1;
    return *y1 > *y0 && op->x1 > 0 && op->x0 < w;
}

base_err img__ops_apply(img_image *img, const som_oplist *l, img_kernel k, char *err)
{
    som_span_fn span = pick_kernel(k);
    if (!span)
        return base_errf(err, BASE_EINVAL, "som: kernel %d not available on this CPU", (int)k);
    if (l->n == 0)
        return BASE_OK;
    int h = img->h;
    int w = img->w;
    int nb = (h + BAND - 1) / BAND;
    /* Band index: start[b]..start[b+1] in idx lists the ops touching band b,
     * in draw order. */
    int *start = base_calloc((size_t)nb + 1, sizeof(int));
    if (!start)
        return base_errf(err, BASE_ENOMEM, "som: out of memory");
    size_t total = 0;
    for (int i = 0; i < l->n; i++) {
        int y0, y1;
        if (!op_rows(&l->ops[i], w, h, &y0, &y1))
            continue;
        for (int b = y0 / BAND; b <= (y1 - 1) / BAND; b++) {
            start[b + 1]++;
            total++;
        }
    }
    for (int b = 0; b < nb; b++)
        start[b + 1] += start[b];
    int *idx = base_malloc((total ? total : 1) * sizeof(int));
    int *fill = base_malloc((size_t)nb * sizeof(int));
    if (!idx || !fill) {
        base_free(start);
        base_free(idx);
        base_free(fill);
        return base_errf(err, BASE_ENOMEM, "som: out of memory");
    }
    memcpy(fill, start, (size_t)nb * sizeof(int));
    for (int i = 0; i < l->n; i++) {
        int y0, y1;
        if (!op_rows(&l->ops[i], w, h, &y0, &y1))
            continue;
        for (int b = y0 / BAND; b <= (y1 - 1) / BAND; b++)
            idx[fill[b]++] = i;
    }
    base_free(fill);

    const som_op *ops = l->ops;
    uint8_t *px = img->px;
    size_t stride = (size_t)img->stride;
    long long work = (long long)w * h;
#pragma omp parallel for schedule(dynamic, 16) if (work > 65536)
    for (int y = 0; y < h; y++) {
        int b = y / BAND;
        uint8_t *row = px + stride * (size_t)y;
        for (int j = start[b]; j < start[b + 1]; j++) {
            const som_op *op = &ops[idx[j]];
            if (y < op->y0 || y >= op->y1)
                continue;
            if (op->kind == SOM_OP_FILL)
                row_fill(op, row, y, w, span);
            else
                row_text(op, row, y, w);
        }
    }
    base_free(idx);
    base_free(start);
    return BASE_OK;
}

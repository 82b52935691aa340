/* perception/pixel_kernels.c: the pixel detector's low-level passes — edge
 * map, edge runs and connected components.
 *
 * Edge strength (see pixel_int.h) is max over R, G, B of |p - right| and
 * |p - down|. The SSE2 kernel takes 16 pixels per step: absolute differences
 * of unsigned bytes are subs_epu8 both ways OR-ed, the channel maximum folds
 * bytes 1 and 2 of each 32-bit pixel onto byte 0 with two shift+max steps,
 * and packs gather byte 0 of each pixel. No rounding anywhere, so the bytes
 * equal the scalar loop's.
 *
 * Segmentation works on runs of strong edge pixels rather than on pixels: a
 * screenshot of a page is mostly flat, so a 1280x800 frame has tens of
 * thousands of runs against a million pixels. Runs are found per row in
 * parallel (count, prefix sum, fill: each row writes its own slice), and then
 * joined serially with union-find over adjacent rows; components are sorted
 * by geometry, so nothing downstream can see how the rows were split.
 */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define PIX_X86 1
#else
#define PIX_X86 0
#endif

#include <omp.h>

#include "base/alloc.h"
#include "perception/pixel_int.h"
#include "image/som.h"

/* Width of the border bands of a component (see pixel_comp.side): an
 * anti-aliased 1.5 px stroke leaves edge pixels 3 deep. */
#define BAND 3

static inline int absd(int a, int b)
{
    return a > b ? a - b : b - a;
}

static inline int max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

/* Strength of one pixel against its right (r) and lower (d) neighbours. */
static inline uint8_t edge1(const uint8_t *p, const uint8_t *r, const uint8_t *d)
{
    int h = max3(absd(p[0], r[0]), absd(p[1], r[1]), absd(p[2], r[2]));
    int v = max3(absd(p[0], d[0]), absd(p[1], d[1]), absd(p[2], d[2]));
    return (uint8_t)(h > v ? h : v);
}

void perc__pixel_edge_scalar(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w)
{
    for (int x = 0; x < w; x++) {
        const uint8_t *p = cur + 4 * x;
        const uint8_t *r = x + 1 < w ? p + 4 : p;
        out[x] = edge1(p, r, down + 4 * x);
    }
}

#if PIX_X86
/* Four pixels: channel-max of |p - right| and |p - down| in byte 0 of each
 * 32-bit lane, zero elsewhere. */
static inline __m128i edge4_sse2(const uint8_t *p, const uint8_t *d)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i r = _mm_loadu_si128((const __m128i *)(const void *)(p + 4));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)d);
    __m128i dh = _mm_or_si128(_mm_subs_epu8(a, r), _mm_subs_epu8(r, a));
    __m128i dv = _mm_or_si128(_mm_subs_epu8(a, b), _mm_subs_epu8(b, a));
    __m128i m = _mm_max_epu8(dh, dv);
    m = _mm_max_epu8(m, _mm_srli_epi32(m, 8));
    m = _mm_max_epu8(m, _mm_srli_epi32(m, 8));
    return _mm_and_si128(m, _mm_set1_epi32(0xff));
}

void perc__pixel_edge_sse2(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w)
{
    int x = 0;
    /* Reading the right neighbour of pixel x+15 needs x+17 <= w. */
    for (; x + 17 <= w; x += 16) {
        const uint8_t *p = cur + 4 * x;
        const uint8_t *d = down + 4 * x;
        __m128i e0 = edge4_sse2(p, d);
        __m128i e1 = edge4_sse2(p + 16, d + 16);
        __m128i e2 = edge4_sse2(p + 32, d + 32);
        __m128i e3 = edge4_sse2(p + 48, d + 48);
        __m128i lo = _mm_packs_epi32(e0, e1);
        __m128i hi = _mm_packs_epi32(e2, e3);
        _mm_storeu_si128((__m128i *)(void *)(out + x), _mm_packus_epi16(lo, hi));
    }
    for (; x < w; x++) {
        const uint8_t *p = cur + 4 * x;
        out[x] = edge1(p, x + 1 < w ? p + 4 : p, down + 4 * x);
    }
}

static int have_sse2(void)
{
    return 1; /* part of the x86-64 baseline */
}
#else
void perc__pixel_edge_sse2(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w)
{
    perc__pixel_edge_scalar(cur, down, out, w);
}

static int have_sse2(void)
{
    return 0;
}
#endif

int perc__pixel_threads(int threads, int w, int h)
{
    if (threads > 0)
        return threads;
    /* A 1280x800 frame takes about a millisecond on one core; waking a
     * second thread on a busy 2-vCPU machine costs more than that. */
    return (long long)w * h >= PIXEL_PARALLEL_MIN_PX ? omp_get_max_threads() : 1;
}

pixel_edge_fn perc__pixel_edge_pick(img_kernel k)
{
    switch (k) {
    case IMG_KERNEL_SCALAR:
        return perc__pixel_edge_scalar;
    case IMG_KERNEL_SSE2:
        return have_sse2() ? perc__pixel_edge_sse2 : NULL;
    case IMG_KERNEL_AVX2:
        return img_have_avx2() ? perc__pixel_edge_avx2 : NULL;
    case IMG_KERNEL_AUTO:
        if (img_have_avx2())
            return perc__pixel_edge_avx2;
        if (have_sse2())
            return perc__pixel_edge_sse2;
        return perc__pixel_edge_scalar;
    }
    return NULL;
}

void perc__pixel_edge_map(const img_image *img, uint8_t *out, pixel_edge_fn fn, int threads)
{
    int w = img->w;
    int h = img->h;
    const uint8_t *px = img->px;
    size_t stride = (size_t)img->stride;
    int nt = perc__pixel_threads(threads, w, h);
    /* A row reads only itself and the next one: any split gives the same map. */
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < h; y++) {
        const uint8_t *cur = px + stride * (size_t)y;
        const uint8_t *down = y + 1 < h ? cur + stride : cur;
        fn(cur, down, out + (size_t)w * (size_t)y, w);
    }
}

/* Runs on one row: counts them (dst NULL) or writes them. */
static int row_runs(const uint8_t *e, int w, int y, int thr, pixel_run *dst)
{
    int n = 0;
    int x = 0;
    while (x < w) {
        while (x < w && e[x] < thr)
            x++;
        if (x >= w)
            break;
        int s = x;
        while (x < w && e[x] >= thr)
            x++;
        if (dst)
            dst[n] = (pixel_run){y, s, x};
        n++;
    }
    return n;
}

base_err perc__pixel_runs(const uint8_t *edge, int w, int h, int thr, int threads, int max_runs,
                          pixel_run **runs, int *n)
{
    int *start = base_calloc((size_t)h + 1, sizeof *start);
    if (!start)
        return BASE_ENOMEM;
    int nt = perc__pixel_threads(threads, w, h);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < h; y++)
        start[y + 1] = row_runs(edge + (size_t)w * (size_t)y, w, y, thr, NULL);
    long long total = 0;
    for (int y = 0; y < h; y++) {
        total += start[y + 1];
        if (total > max_runs) {
            base_free(start);
            return BASE_ETOOBIG;
        }
        start[y + 1] = (int)total;
    }
    pixel_run *r = base_malloc((total ? (size_t)total : 1) * sizeof *r);
    if (!r) {
        base_free(start);
        return BASE_ENOMEM;
    }
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < h; y++)
        row_runs(edge + (size_t)w * (size_t)y, w, y, thr, r + start[y]);
    base_free(start);
    *runs = r;
    *n = (int)total;
    return BASE_OK;
}

static int imin2(int a, int b)
{
    return a < b ? a : b;
}

static int imax2(int a, int b)
{
    return a > b ? a : b;
}

static int uf_find(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void uf_union(int *parent, int a, int b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    /* The smaller index becomes the root, so roots do not depend on order. */
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

static int comp_cmp(const void *pa, const void *pb)
{
    const pixel_comp *a = pa;
    const pixel_comp *b = pb;
    if (a->y0 != b->y0)
        return a->y0 < b->y0 ? -1 : 1;
    if (a->x0 != b->x0)
        return a->x0 < b->x0 ? -1 : 1;
    if (a->y1 != b->y1)
        return a->y1 < b->y1 ? -1 : 1;
    if (a->x1 != b->x1)
        return a->x1 < b->x1 ? -1 : 1;
    return a->npx < b->npx ? -1 : a->npx > b->npx;
}

base_err perc__pixel_components(const pixel_run *runs, int n, pixel_comp **comps, int *nc)
{
    int *parent = base_malloc((n ? (size_t)n : 1) * sizeof *parent);
    int *slot = base_malloc((n ? (size_t)n : 1) * sizeof *slot);
    if (!parent || !slot) {
        base_free(parent);
        base_free(slot);
        return BASE_ENOMEM;
    }
    for (int i = 0; i < n; i++)
        parent[i] = i;
    /* Runs are row-major: walk the previous row's runs alongside this row's
     * with two pointers; 8-connectivity joins runs that overlap after
     * widening by one pixel. */
    int prev0 = 0, prev1 = 0; /* previous row's runs [prev0, prev1) */
    int i = 0;
    while (i < n) {
        int y = runs[i].y;
        int j = i;
        while (j < n && runs[j].y == y)
            j++;
        if (prev1 > prev0 && runs[prev0].y != y - 1)
            prev0 = prev1; /* the previous row with runs is not adjacent */
        int k = prev0;
        for (int a = i; a < j; a++) {
            while (k < prev1 && runs[k].x1 < runs[a].x0)
                k++;
            for (int m = k; m < prev1 && runs[m].x0 <= runs[a].x1; m++)
                uf_union(parent, a, m);
        }
        prev0 = i;
        prev1 = j;
        i = j;
    }
    int count = 0;
    for (int a = 0; a < n; a++) {
        int r = uf_find(parent, a);
        slot[a] = r == a ? count++ : -1;
    }
    pixel_comp *c = base_calloc(count ? (size_t)count : 1, sizeof *c);
    if (!c) {
        base_free(parent);
        base_free(slot);
        return BASE_ENOMEM;
    }
    for (int a = 0; a < count; a++)
        c[a] = (pixel_comp){1 << 30, 1 << 30, -1, -1, 0, 0, {0, 0, 0, 0}, 0, 0, 0};
    for (int a = 0; a < n; a++) {
        pixel_comp *p = &c[slot[uf_find(parent, a)]];
        const pixel_run *r = &runs[a];
        if (r->x0 < p->x0)
            p->x0 = r->x0;
        if (r->x1 > p->x1)
            p->x1 = r->x1;
        if (r->y < p->y0)
            p->y0 = r->y;
        if (r->y + 1 > p->y1)
            p->y1 = r->y + 1;
        p->npx += r->x1 - r->x0;
        if (r->x1 - r->x0 > p->slen) {
            p->slen = r->x1 - r->x0;
            p->sx = (r->x0 + r->x1) / 2;
            p->sy = r->y;
        }
    }
    /* Second pass, now that boxes are known: pixels near each side. A
     * drawn rectangle has all four sides nearly full; a glyph like "o" or
     * "F" has its pixels near the border too, but not along every side. */
    for (int a = 0; a < n; a++) {
        pixel_comp *p = &c[slot[uf_find(parent, a)]];
        const pixel_run *r = &runs[a];
        int len = r->x1 - r->x0;
        int top = r->y < p->y0 + BAND;
        int bot = r->y >= p->y1 - BAND;
        if (top)
            p->side[0] += len;
        if (bot)
            p->side[1] += len;
        /* Columns [x0, x0+2) and [x1-2, x1) covered by this run. */
        int l = imin2(r->x1, p->x0 + BAND) - imax2(r->x0, p->x0);
        int rr = imin2(r->x1, p->x1) - imax2(r->x0, p->x1 - BAND);
        l = l > 0 ? l : 0;
        rr = rr > 0 ? rr : 0;
        p->side[2] += l;
        p->side[3] += rr;
        if (top || bot) {
            p->nborder += len;
        } else {
            int both = l + rr;
            p->nborder += both < len ? both : len;
        }
    }
    base_free(parent);
    base_free(slot);
    qsort(c, (size_t)count, sizeof *c, comp_cmp);
    *comps = c;
    *nc = count;
    return BASE_OK;
}

/* perception/pixel_avx2.c: the AVX2 edge kernel (32 pixels per step).
 *
 * Built for the baseline target with only this function compiled for AVX2
 * (target attribute) and called after the run-time check in
 * perc__pixel_edge_pick. The arithmetic is the SSE2 kernel's on 256-bit
 * vectors; the packs work within 128-bit halves, so one cross-lane
 * permutation puts the 32 result bytes back in pixel order.
 */
#include "perception/pixel_int.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("avx2"))) static inline __m256i edge8_avx2(const uint8_t *p,
                                                                 const uint8_t *d)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i r = _mm256_loadu_si256((const __m256i *)(const void *)(p + 4));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)d);
    __m256i dh = _mm256_or_si256(_mm256_subs_epu8(a, r), _mm256_subs_epu8(r, a));
    __m256i dv = _mm256_or_si256(_mm256_subs_epu8(a, b), _mm256_subs_epu8(b, a));
    __m256i m = _mm256_max_epu8(dh, dv);
    m = _mm256_max_epu8(m, _mm256_srli_epi32(m, 8));
    m = _mm256_max_epu8(m, _mm256_srli_epi32(m, 8));
    return _mm256_and_si256(m, _mm256_set1_epi32(0xff));
}

__attribute__((target("avx2"))) void perc__pixel_edge_avx2(const uint8_t *cur,
                                                           const uint8_t *down, uint8_t *out,
                                                           int w)
{
    /* packs/packus interleave the 128-bit halves: dword groups come out as
     * a0 b0 c0 d0 a1 b1 c1 d1 (x0 = pixels 0-3 of the vector, x1 = 4-7). */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int x = 0;
    for (; x + 33 <= w; x += 32) {
        const uint8_t *p = cur + 4 * x;
        const uint8_t *d = down + 4 * x;
        __m256i e0 = edge8_avx2(p, d);
        __m256i e1 = edge8_avx2(p + 32, d + 32);
        __m256i e2 = edge8_avx2(p + 64, d + 64);
        __m256i e3 = edge8_avx2(p + 96, d + 96);
        __m256i lo = _mm256_packs_epi32(e0, e1);
        __m256i hi = _mm256_packs_epi32(e2, e3);
        __m256i v = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(lo, hi), order);
        _mm256_storeu_si256((__m256i *)(void *)(out + x), v);
    }
    perc__pixel_edge_sse2(cur + 4 * x, down + 4 * x, out + x, w - x);
}
#else
void perc__pixel_edge_avx2(const uint8_t *cur, const uint8_t *down, uint8_t *out, int w)
{
    perc__pixel_edge_scalar(cur, down, out, w);
}
#endif

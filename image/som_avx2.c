/* image/som_avx2.c: the AVX2 span kernel (8 pixels per step).
 *
 * Compiled for the baseline target; only this function is built for AVX2
 * via the target attribute, and it is called only after a run-time check
 * (__builtin_cpu_supports), so the binary still runs on CPUs without AVX2.
 * The arithmetic is the same as the scalar and SSE2 kernels (see
 * som_kernels.c), lane for lane: unpack and pack both work within 128-bit
 * halves, so the byte order survives the round trip.
 */
#include "image/som_int.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("avx2"))) static inline __m256i blend16_avx2(__m256i d, __m256i ia,
                                                                   __m256i ac, __m256i k128)
{
    __m256i v = _mm256_add_epi16(_mm256_add_epi16(_mm256_mullo_epi16(d, ia), ac), k128);
    return _mm256_srli_epi16(_mm256_add_epi16(v, _mm256_srli_epi16(v, 8)), 8);
}

__attribute__((target("avx2"))) void img__span_avx2(uint8_t *px, int n, const uint8_t rgb[3],
                                                     int a)
{
    const __m256i zero = _mm256_setzero_si256();
    const short r = (short)(uint16_t)(a * rgb[0]);
    const short g = (short)(uint16_t)(a * rgb[1]);
    const short b = (short)(uint16_t)(a * rgb[2]);
    const short w = (short)(uint16_t)(a * 255);
    const __m256i ac = _mm256_setr_epi16(r, g, b, w, r, g, b, w, r, g, b, w, r, g, b, w);
    const __m256i ia = _mm256_set1_epi16((short)(255 - a));
    const __m256i k128 = _mm256_set1_epi16(128);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(px + 4 * i));
        __m256i lo = blend16_avx2(_mm256_unpacklo_epi8(d, zero), ia, ac, k128);
        __m256i hi = blend16_avx2(_mm256_unpackhi_epi8(d, zero), ia, ac, k128);
        _mm256_storeu_si256((__m256i *)(void *)(px + 4 * i), _mm256_packus_epi16(lo, hi));
    }
    img__span_sse2(px + 4 * i, n - i, rgb, a);
}

int img_have_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}
#else
void img__span_avx2(uint8_t *px, int n, const uint8_t rgb[3], int a)
{
    img__span_scalar(px, n, rgb, a);
}

int img_have_avx2(void)
{
    return 0;
}
#endif

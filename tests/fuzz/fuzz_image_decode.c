/* tests/fuzz/fuzz_image_decode.c: PNG/JPEG header inspection and decoding
 * of arbitrary bytes, followed by re-encoding whatever decoded.
 *
 * Inputs are capped at 1 MiB, and images whose header promises more than
 * 4 Mpixel are only inspected: the real limits (IMG_MAX_PIXELS) would
 * let a 40-byte input allocate 400 MB, which is correct behaviour but makes
 * a fuzzer slow and memory-bound without finding bugs.
 */
#include "fuzz.h"

#include "base/alloc.h"
#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (1u << 20))
        return 0;
    char err[BASE_ERRBUF_SIZE] = "";
    int w = 0;
    int h = 0;
    if (img_info(d, n, NULL, &w, &h, err) != BASE_OK)
        w = h = 1; /* still let the decoder reject it on its own */
    if ((long long)w * h > 4LL * 1000 * 1000)
        return 0;
    img_image img = {0};
    err[0] = 0;
    if (img_decode(d, n, &img, err) != BASE_OK)
        return 0;
    if ((long long)img.w * img.h <= 256LL * 256) {
        uint8_t *out = NULL;
        size_t len = 0;
        if (img_encode_png(&img, 1, &out, &len, NULL) == BASE_OK)
            base_free(out);
        if (img_encode_jpeg(&img, 75, &out, &len, NULL) == BASE_OK)
            base_free(out);
    }
    img_fini(&img);
    return 0;
}

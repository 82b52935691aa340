/* tests/fuzz/fuzz_base64.c: base64 decode of arbitrary bytes, and a
 * round trip of the input through encode/decode. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (1u << 20))
        return 0;
    uint8_t *out = base_malloc(base64_decoded_max(n) + 1);
    if (!out)
        return 0;
    size_t got = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = base64_decode((const char *)d, n, out, &got, err);
    if (e == BASE_OK && got > base64_decoded_max(n))
        abort();
    if (e != BASE_OK && (e != BASE_EDECODE || err[0] == '\0'))
        abort();
    base_free(out);
    /* Encoding any bytes and decoding them again gives the bytes back. */
    char *enc = base_malloc(base64_encoded_len(n) + 1);
    uint8_t *back = base_malloc(n + 1);
    if (enc && back) {
        size_t en = base64_encode(d, n, enc);
        size_t bn = 0;
        if (base64_decode(enc, en, back, &bn, NULL) != BASE_OK || bn != n ||
            (n && memcmp(back, d, n) != 0))
            abort();
    }
    base_free(enc);
    base_free(back);
    return 0;
}

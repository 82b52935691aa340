/* base/base64.c: table-driven base64.
 *
 * Decoding looks each character up in a 256-entry table whose invalid
 * entries have the high bit set; OR-ing four lookups detects any invalid
 * character with one branch per quad, which keeps the inner loop short. The
 * slow path re-scans only to report where the bad byte was.
 */
#include "base/base64.h"

#include <string.h>

static const char enc_tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* 0x80 marks a byte that is not in the alphabet. Built once, lazily. */
static uint8_t dec_tab[256];
static int dec_ready;

static void build_dec(void)
{
    /* Racing initialisers write identical bytes, so no lock is needed for
     * correctness; the flag is written last. */
    uint8_t t[256];
    memset(t, 0x80, sizeof t);
    for (int i = 0; i < 64; i++)
        t[(uint8_t)enc_tab[i]] = (uint8_t)i;
    memcpy(dec_tab, t, sizeof t);
    __atomic_store_n(&dec_ready, 1, __ATOMIC_RELEASE);
}

size_t base64_decoded_max(size_t n)
{
    return (n / 4 + (n % 4 != 0)) * 3;
}

size_t base64_encoded_len(size_t n)
{
    size_t q = n / 3 + (n % 3 != 0);
    if (q > ((size_t)-1) / 4)
        return 0;
    return q * 4;
}

static base_err bad(const char *in, size_t n, char *err)
{
    for (size_t i = 0; i < n; i++) {
        if (dec_tab[(uint8_t)in[i]] & 0x80)
            return base_errf(err, BASE_EDECODE, "base64: invalid byte 0x%02x at offset %zu",
                             (unsigned)(uint8_t)in[i], i);
    }
    return base_errf(err, BASE_EDECODE, "base64: malformed input");
}

base_err base64_decode(const char *in, size_t n, uint8_t *out, size_t *out_len, char *err)
{
    if (!__atomic_load_n(&dec_ready, __ATOMIC_ACQUIRE))
        build_dec();
    /* Strip up to two '=' of padding; then the length mod 4 must not be 1. */
    size_t len = n;
    if (len % 4 == 0 && len >= 4) {
        if (in[len - 1] == '=')
            len--;
        if (in[len - 1] == '=')
            len--;
    }
    if (len % 4 == 1)
        return base_errf(err, BASE_EDECODE, "base64: truncated input (%zu characters)", n);
    const uint8_t *p = (const uint8_t *)in;
    uint8_t *o = out;
    size_t full = len / 4;
    for (size_t q = 0; q < full; q++) {
        uint32_t a = dec_tab[p[0]], b = dec_tab[p[1]], c = dec_tab[p[2]], d = dec_tab[p[3]];
        if ((a | b | c | d) & 0x80)
            return bad(in, len, err);
        uint32_t v = (a << 18) | (b << 12) | (c << 6) | d;
        o[0] = (uint8_t)(v >> 16);
        o[1] = (uint8_t)(v >> 8);
        o[2] = (uint8_t)v;
        o += 3;
        p += 4;
    }
    size_t rest = len % 4;
    if (rest) {
        uint32_t a = dec_tab[p[0]], b = dec_tab[p[1]];
        uint32_t c = rest == 3 ? dec_tab[p[2]] : 0;
        if ((a | b | c) & 0x80)
            return bad(in, len, err);
        uint32_t v = (a << 18) | (b << 12) | (c << 6);
        *o++ = (uint8_t)(v >> 16);
        if (rest == 3)
            *o++ = (uint8_t)(v >> 8);
    }
    /* Padding characters that survive stripping (e.g. "A=BC") are invalid
     * and were caught above because '=' is not in the table. */
    *out_len = (size_t)(o - out);
    return BASE_OK;
}

size_t base64_encode(const uint8_t *in, size_t n, char *out)
{
    char *o = out;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = ((uint32_t)in[i] << 16) | ((uint32_t)in[i + 1] << 8) | in[i + 2];
        o[0] = enc_tab[(v >> 18) & 63];
        o[1] = enc_tab[(v >> 12) & 63];
        o[2] = enc_tab[(v >> 6) & 63];
        o[3] = enc_tab[v & 63];
        o += 4;
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        o[0] = enc_tab[(v >> 18) & 63];
        o[1] = enc_tab[(v >> 12) & 63];
        o[2] = i + 1 < n ? enc_tab[(v >> 6) & 63] : '=';
        o[3] = '=';
        o += 4;
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* base/utf8.c: RFC 3629 validation and U+FFFD repair (see base/utf8.h).
 *
 * One decoder, base_utf8_seq_len, is shared by the check and the repair so
 * that what the check calls valid is exactly what the repair keeps. The
 * second byte's range depends on the lead byte (E0 needs A0..BF to rule
 * out overlongs, ED needs 80..9F to rule out surrogates, F0 and F4 bound
 * the plane range), which is the table in RFC 3629 section 4.
 */
#include "base/utf8.h"

#include <stdint.h>
#include <string.h>

#include "base/alloc.h"

size_t base_utf8_seq_len(const char *s, size_t n)
{
    if (!n)
        return 0;
    const uint8_t *p = (const uint8_t *)s;
    uint8_t c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint8_t lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0; /* 80..C1 (continuation or overlong lead), F5..FF */
    }
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++) {
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    }
    return len;
}

size_t base_utf8_check(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* ASCII runs are the common case; skip them a byte at a time
         * without the full decoder. */
        if ((uint8_t)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = base_utf8_seq_len(s + i, n - i);
        if (!k)
            return i;
        i += k;
    }
    return n;
}

size_t base_utf8_repair(const char *s, size_t n, char *dst, size_t cap)
{
    if (!cap)
        return 0;
    size_t o = 0;
    size_t i = 0;
    while (i < n) {
        size_t k = base_utf8_seq_len(s + i, n - i);
        const char *src = s + i;
        size_t out = k;
        if (!k) {
            src = "\xef\xbf\xbd";
            out = 3;
            k = 1;
        }
        if (o + out + 1 > cap)
            break;
        memcpy(dst + o, src, out);
        o += out;
        i += k;
    }
    dst[o] = '\0';
    return o;
}

void base_utf8_copy(char *dst, size_t cap, const char *src)
{
    src = src ? src : "";
    base_utf8_repair(src, strlen(src), dst, cap);
}

/* The value of the 4 hex digits at p, or -1. */
static long hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char ch = p[i];
        int d = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Any backslash in valid JSON is inside a string, so escapes are found by
 * pairing backslashes, without tracking strings. The rewrite keeps the
 * length, so offsets in error messages still match the original. */
base_err base_json_fix_surrogates(const char *text, size_t n, char **fixed)
{
    *fixed = NULL;
    char *out = NULL;
    for (size_t i = 0; i + 1 < n; i++) {
        if (text[i] != '\\')
            continue;
        if (text[i + 1] != 'u' || i + 6 > n) {
            i++; /* \" \\ \n ...: skip the escaped character */
            continue;
        }
        long v = hex4(text + i + 2);
        if (v < 0xD800 || v > 0xDFFF) {
            i += 5;
            continue;
        }
        if (v <= 0xDBFF && i + 12 <= n && text[i + 6] == '\\' && text[i + 7] == 'u') {
            long lo = hex4(text + i + 8);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                i += 11; /* a proper pair */
                continue;
            }
        }
        if (!out) {
            out = base_malloc(n ? n : 1);
            if (!out)
                return BASE_ENOMEM;
            memcpy(out, text, n);
        }
        memcpy(out + i + 2, "fffd", 4);
        i += 5;
    }
    *fixed = out;
    return BASE_OK;
}

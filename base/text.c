/* base/text.c: the page kit's text normalisation in C (kit.norm in
 * assets/js/lib/kit.js), so text computed in C (the snapshot loader, the
 * snapper) compares with what the page scripts report. Pure. */
#include "base/text.h"

#include <string.h>

/* Bytes of the whitespace character at s (ASCII or Unicode space), 0 if
 * none. The set is JavaScript's \s plus U+1680 and U+2000-U+200A, which \s
 * already holds: kit.js folds the same characters. */
static size_t space_at(const unsigned char *s)
{
    if (s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r'))
        return 1;
    if (s[0] == 0xc2 && s[1] == 0xa0)
        return 2; /* U+00A0 */
    if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
        return 3; /* U+1680 */
    if (s[0] == 0xe2 && s[1] == 0x80 && ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 ||
                                         s[2] == 0xa9 || s[2] == 0xaf))
        return 3; /* U+2000-U+200A, U+2028, U+2029, U+202F */
    if (s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f)
        return 3; /* U+205F */
    if (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80)
        return 3; /* U+3000 */
    return 0;
}

/* Bytes of the invisible character at s (dropped), 0 if none. */
static size_t zero_at(const unsigned char *s)
{
    if (s[0] == 0xc2 && s[1] == 0xad)
        return 2; /* U+00AD soft hyphen */
    if (s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0x8b && s[2] <= 0x8d)
        return 3; /* U+200B-U+200D */
    if (s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0xa0)
        return 3; /* U+2060 */
    if (s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
        return 3; /* U+FEFF */
    return 0;
}

static size_t char_len(unsigned char c)
{
    return c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

size_t base_text_norm(const char *s, char *out, size_t cap, size_t max_chars)
{
    if (!out || cap == 0)
        return 0;
    size_t n = 0, chars = 0;
    int pending = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t k = zero_at(p);
        if (k) {
            p += k;
            continue;
        }
        k = space_at(p);
        if (k) {
            p += k;
            pending = 1;
            continue;
        }
        size_t len = char_len(*p);
        for (size_t j = 1; j < len; j++) {
            if (!p[j]) {
                len = j; /* truncated sequence: copy what is there */
                break;
            }
        }
        size_t need = len + (pending && n > 0 ? 1 : 0);
        if ((max_chars && chars + (need > len ? 1 : 0) + 1 > max_chars) || n + need >= cap)
            break;
        if (pending && n > 0) {
            out[n++] = ' ';
            chars++;
        }
        pending = 0;
        memcpy(out + n, p, len);
        n += len;
        chars++;
        p += len;
    }
    out[n] = '\0';
    return n;
}

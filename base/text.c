/* base/text.c: the one classification of spaces and invisible characters
 * (base_text_char_class) and the page kit's text normalisation in C (kit.norm
 * in assets/js/lib/kit.js), so text computed in C (the snapshot loader, the
 * snapper's norm.c and fold) compares with what the page scripts report. The
 * SPACES and ZERO regexes in kit.js must list exactly the characters this file
 * classifies (tests/base/test_text.c walks them). Pure. */
#include "base/text.h"

#include <ctype.h>
#include <string.h>

base_text_class base_text_char_class(const char *s, size_t *len)
{
    const unsigned char *u = (const unsigned char *)s;
    *len = 1;
    if (u[0] < 0x80) {
        if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r'))
            return BASE_TEXT_SPACE;
        return BASE_TEXT_OTHER;
    }
    /* Length of a well-formed UTF-8 sequence; a stray or truncated byte
     * stays alone (the NUL terminator is never a continuation byte, so the
     * scan stops at it). */
    size_t n = (u[0] & 0xe0) == 0xc0   ? 2
               : (u[0] & 0xf0) == 0xe0 ? 3
               : (u[0] & 0xf8) == 0xf0 ? 4
                                       : 1;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            n = 1;
            break;
        }
    }
    *len = n;
    if (n == 2 && u[0] == 0xc2) {
        if (u[1] == 0xa0 || u[1] == 0x85) /* NBSP, NEL */
            return BASE_TEXT_SPACE;
        if (u[1] == 0xad) /* soft hyphen */
            return BASE_TEXT_INVISIBLE;
    }
    if (n == 3 && u[0] == 0xe2 && u[1] == 0x80) {
        if (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 ||
            u[2] == 0xaf) /* U+2000..200A, LS, PS, NNBSP */
            return BASE_TEXT_SPACE;
        if ((u[2] >= 0x8b && u[2] <= 0x8f) || (u[2] >= 0xaa && u[2] <= 0xae))
            return BASE_TEXT_INVISIBLE; /* ZWSP, ZWNJ, ZWJ, LRM, RLM, bidi embeddings */
    }
    if (n == 3 && u[0] == 0xe2 && u[1] == 0x81) {
        if (u[2] == 0x9f) /* medium mathematical space */
            return BASE_TEXT_SPACE;
        if ((u[2] >= 0xa0 && u[2] <= 0xa4) || (u[2] >= 0xa6 && u[2] <= 0xaf))
            return BASE_TEXT_INVISIBLE; /* word joiner, invisible operators, bidi isolates */
    }
    if (n == 3 && u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80) /* ogham space */
        return BASE_TEXT_SPACE;
    if (n == 3 && u[0] == 0xe1 && u[1] == 0xa0 && u[2] == 0x8e) /* Mongolian vowel separator */
        return BASE_TEXT_INVISIBLE;
    if (n == 3 && u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80) /* ideographic space */
        return BASE_TEXT_SPACE;
    if (n == 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) /* BOM / ZWNBSP */
        return BASE_TEXT_INVISIBLE;
    return BASE_TEXT_OTHER;
}

size_t base_text_norm(const char *s, char *out, size_t cap, size_t max_chars)
{
    if (!out || cap == 0)
        return 0;
    size_t n = 0, chars = 0;
    int pending = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t len = 0;
        base_text_class k = base_text_char_class((const char *)p, &len);
        if (k == BASE_TEXT_INVISIBLE) {
            p += len;
            continue;
        }
        if (k == BASE_TEXT_SPACE) {
            p += len;
            pending = 1;
            continue;
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

int base_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void base_text_excerpt(const char *s, size_t len, char *out, size_t n)
{
    if (!out || n == 0)
        return;
    if (!s)
        len = 0;
    while (len > 0 && (*s == ' ' || (*s >= '\t' && *s <= '\r'))) {
        s++;
        len--;
    }
    while (len > 0 && (s[len - 1] == ' ' || (s[len - 1] >= '\t' && s[len - 1] <= '\r')))
        len--;
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out[k++] = (char)(c < 0x20 || c == 0x7f ? ' ' : c >= 0x80 ? '?' : c);
    }
    out[k] = '\0';
}

void base_text_line(char *dst, size_t dn, const char *src, size_t n)
{
    while (n > 0 && isspace((unsigned char)*src)) {
        src++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)src[n - 1]))
        n--;
    if (n > dn - 1) {
        n = dn - 1;
        /* Back off to the start of a UTF-8 sequence (continuation bytes are
         * 10xxxxxx) so that the copy stays valid text. */
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (char)(c < 0x20 || c == 0x7f ? ' ' : c);
    }
    dst[n] = '\0';
}

/* 1 when attr holds the token want (prefix: a token starting with want), as
 * blank-separated, case-insensitive words. */
static int has_token(const char *attr, const char *want, int prefix)
{
    size_t wl = strlen(want);
    for (const char *p = attr; p && *p;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        const char *e = p;
        while (*e && !isspace((unsigned char)*e))
            e++;
        size_t n = (size_t)(e - p);
        if (n >= wl && (prefix || n == wl)) {
            size_t k = 0;
            while (k < wl && tolower((unsigned char)p[k]) == want[k])
                k++;
            if (k == wl)
                return 1;
        }
        p = e;
    }
    return 0;
}

int base_field_secret(const char *type, const char *autocomplete)
{
    if (has_token(type, "password", 0))
        return 1;
    return has_token(autocomplete, "cc-", 1) || has_token(autocomplete, "current-password", 0) ||
           has_token(autocomplete, "new-password", 0) ||
           has_token(autocomplete, "one-time-code", 0);
}

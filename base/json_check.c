/* base/json_check.c: the strict JSON syntax checker of base/json_check.h.
 *
 * An iterative recogniser (no recursion, so hostile nesting cannot exhaust
 * the C stack) with a small explicit stack of open containers, one bit
 * each. It only recognises: building values is cJSON's job afterwards. Two
 * pre-passes find a raw NUL and invalid UTF-8 first, because those are
 * byte-level problems whose position should be reported as such, not as a
 * grammar error somewhere later. Each error names what the grammar expected
 * at that point and what it found, which is the part of a message a person
 * needs to fix a hand-edited file.
 */
#include "base/json_check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

#define DEPTH_CAP 4096 /* hard ceiling whatever the caller asks */

typedef struct jc {
    const char *s;
    size_t n, i;
    char *err;
} jc;

/* Line and column (in characters) of byte offset off, both from 1. */
static void line_col(const char *s, size_t n, size_t off, size_t *line, size_t *col)
{
    size_t l = 1;
    size_t c = 1;
    for (size_t i = 0; i < off && i < n; i++) {
        uint8_t b = (uint8_t)s[i];
        if (b == '\n') {
            l++;
            c = 1;
        } else if ((b & 0xc0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* What is at the current position, for "got ...". */
static void got(const jc *j, char *buf, size_t n)
{
    if (j->i >= j->n) {
        snprintf(buf, n, "the end of the input");
        return;
    }
    uint8_t c = (uint8_t)j->s[j->i];
    if (c == '\n')
        snprintf(buf, n, "a line break");
    else if (c > 0x20 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02X", c);
}

__attribute__((format(printf, 2, 3))) static base_err bad(const jc *j, const char *fmt, ...)
{
    size_t line = 0;
    size_t col = 0;
    line_col(j->s, j->n, j->i, &line, &col);
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return base_errf(j->err, BASE_EPROTO, "invalid JSON near line %zu, column %zu: %s", line, col,
                     what);
}

static base_err expected(const jc *j, const char *what)
{
    char g[32];
    got(j, g, sizeof g);
    return bad(j, "expected %s, got %s", what, g);
}

static void ws(jc *j)
{
    while (j->i < j->n) {
        char c = j->s[j->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        j->i++;
    }
}

static int hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hexval(char c)
{
    if (c >= '0' && c <= '9')
        return (unsigned)(c - '0');
    if (c >= 'a' && c <= 'f')
        return (unsigned)(c - 'a' + 10);
    return (unsigned)(c - 'A' + 10);
}

/* A string starting at the opening quote. */
static base_err string(jc *j)
{
    j->i++;
    for (;;) {
        if (j->i >= j->n)
            return expected(j, "'\"' to close the string");
        uint8_t c = (uint8_t)j->s[j->i];
        if (c == '"') {
            j->i++;
            return BASE_OK;
        }
        if (c < 0x20)
            return bad(j, "a control character (byte 0x%02X) inside a string; write it as an "
                          "escape such as \\n",
                       c);
        if (c != '\\') {
            j->i++;
            continue;
        }
        j->i++;
        if (j->i >= j->n)
            return expected(j, "an escape after '\\'");
        char e = j->s[j->i];
        if (e == 'u') {
            if (j->n - j->i < 5 || !hex(j->s[j->i + 1]) || !hex(j->s[j->i + 2]) ||
                !hex(j->s[j->i + 3]) || !hex(j->s[j->i + 4]))
                return expected(j, "four hex digits after \\u");
            if (memcmp(j->s + j->i + 1, "0000", 4) == 0)
                return bad(j, "\\u0000 (a NUL character) is not allowed in a string");
            /* UTF-16 surrogates must come in pairs (high then low); a lone
             * one has no character to stand for. */
            unsigned v = 0;
            for (int k = 1; k <= 4; k++)
                v = v * 16 + hexval(j->s[j->i + k]);
            if (v >= 0xdc00 && v <= 0xdfff)
                return bad(j, "a lone low surrogate \\u%04X (not preceded by a high one)", v);
            j->i += 5;
            if (v >= 0xd800 && v <= 0xdbff) {
                unsigned lo = 0;
                if (j->n - j->i >= 6 && j->s[j->i] == '\\' && j->s[j->i + 1] == 'u' &&
                    hex(j->s[j->i + 2]) && hex(j->s[j->i + 3]) && hex(j->s[j->i + 4]) &&
                    hex(j->s[j->i + 5])) {
                    for (int k = 2; k <= 5; k++)
                        lo = lo * 16 + hexval(j->s[j->i + k]);
                }
                if (lo < 0xdc00 || lo > 0xdfff)
                    return expected(j, "a low surrogate \\uDC00..\\uDFFF after a high one");
                j->i += 6;
            }
        } else if (e && strchr("\"\\/bfnrt", e)) {
            j->i++;
        } else {
            return expected(j, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)");
        }
    }
}

static int digit(const jc *j)
{
    return j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9';
}

static base_err number_body(jc *j)
{
    if (j->s[j->i] == '-')
        j->i++;
    if (!digit(j))
        return expected(j, "a digit");
    if (j->s[j->i] == '0') {
        j->i++;
        if (digit(j))
            return bad(j, "a number with a leading zero");
    } else {
        while (digit(j))
            j->i++;
    }
    if (j->i < j->n && j->s[j->i] == '.') {
        j->i++;
        if (!digit(j))
            return expected(j, "a digit after the decimal point");
        while (digit(j))
            j->i++;
    }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
            j->i++;
        if (!digit(j))
            return expected(j, "a digit in the exponent");
        while (digit(j))
            j->i++;
    }
    return BASE_OK;
}

/* cJSON copies a number into a 64-byte buffer before strtod and fails on
 * anything longer; no real number needs more. */
#define NUMBER_MAX 63

static base_err number(jc *j)
{
    size_t start = j->i;
    base_err e = number_body(j);
    if (!e && j->i - start > NUMBER_MAX) {
        j->i = start;
        return bad(j, "a number longer than %d characters", NUMBER_MAX);
    }
    return e;
}

static base_err literal(jc *j, const char *word)
{
    size_t k = strlen(word);
    if (j->n - j->i < k || memcmp(j->s + j->i, word, k) != 0)
        return expected(j, "a value (a string, number, object, array, true, false or null)");
    j->i += k;
    return BASE_OK;
}

base_err base_json_check(const char *s, size_t n, int max_depth, char *err)
{
    jc j = {s, n, 0, err};
    if (!s)
        return base_errf(err, BASE_EINVAL, "invalid JSON: no input");
    const char *nul = memchr(s, '\0', n);
    if (nul) {
        j.i = (size_t)(nul - s);
        return bad(&j, "a NUL byte (JSON text cannot contain one)");
    }
    size_t u = base_utf8_check(s, n);
    if (u < n) {
        j.i = u;
        return bad(&j, "invalid UTF-8 (byte 0x%02X); save the file as UTF-8", (uint8_t)s[u]);
    }
    if (max_depth < 1 || max_depth > DEPTH_CAP)
        max_depth = DEPTH_CAP;
    /* One bit per open container: 1 = object, 0 = array. */
    uint8_t stack[DEPTH_CAP / 8];
    int depth = 0;
    base_err e;
    enum { VALUE, KEY, AFTER } st = VALUE;
    for (;;) {
        ws(&j);
        if (st == VALUE) {
            if (j.i >= n)
                return expected(&j, "a value");
            char c = s[j.i];
            if (c == '{' || c == '[') {
                if (depth >= max_depth)
                    return bad(&j, "nesting deeper than %d levels", max_depth);
                int obj = c == '{';
                if (obj)
                    stack[depth / 8] |= (uint8_t)(1u << (depth % 8));
                else
                    stack[depth / 8] &= (uint8_t) ~(1u << (depth % 8));
                depth++;
                j.i++;
                ws(&j);
                if (j.i < n && s[j.i] == (obj ? '}' : ']')) {
                    depth--;
                    j.i++;
                    st = AFTER;
                } else {
                    st = obj ? KEY : VALUE;
                }
                continue;
            }
            if (c == '"')
                e = string(&j);
            else if (c == '-' || (c >= '0' && c <= '9'))
                e = number(&j);
            else if (c == 't')
                e = literal(&j, "true");
            else if (c == 'f')
                e = literal(&j, "false");
            else if (c == 'n')
                e = literal(&j, "null");
            else
                return expected(&j, "a value (a string, number, object, array, true, false or "
                                    "null)");
            if (e)
                return e;
            st = AFTER;
        } else if (st == KEY) {
            if (j.i >= n || s[j.i] != '"')
                return expected(&j, "a key in double quotes");
            e = string(&j);
            if (e)
                return e;
            ws(&j);
            if (j.i >= n || s[j.i] != ':')
                return expected(&j, "':' after the key");
            j.i++;
            st = VALUE;
        } else {
            if (depth == 0) {
                if (j.i < n)
                    return expected(&j, "the end of the input after the JSON value");
                return BASE_OK;
            }
            int obj = (stack[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1;
            if (j.i < n && s[j.i] == ',') {
                j.i++;
                st = obj ? KEY : VALUE;
            } else if (j.i < n && s[j.i] == (obj ? '}' : ']')) {
                j.i++;
                depth--;
            } else {
                return expected(&j, obj ? "',' or '}'" : "',' or ']'");
            }
        }
    }
}

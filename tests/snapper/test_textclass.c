/* tests/snapper/test_textclass.c: one text normalisation (issue 10, class 10).
 *
 * base_text_char_class (base/text.c) is the single classification of spaces
 * and invisible characters; base_text_norm and the snapper's snap_text_* both
 * go through it. This walks every Unicode scalar value and checks (1) the
 * classification is exactly the set written below (the union the two former
 * copies held between them), and (2) both C paths fold the character the same
 * way inside a word. The page side (kit.js) is checked against the same
 * function by tests/kit (kit_text_classes). */
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "check.h"
#include "snapper/snap.h"

/* The expected sets, written from Unicode's White_Space and Default_Ignorable
 * format characters, not read from base/text.c. */
static const unsigned spaces[][2] = {
    {0x09, 0x0d}, {0x20, 0x20}, {0x85, 0x85}, {0xa0, 0xa0}, {0x1680, 0x1680}, {0x2000, 0x200a},
    {0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f}, {0x3000, 0x3000},
};
static const unsigned invisible[][2] = {
    {0xad, 0xad},     {0x180e, 0x180e}, {0x200b, 0x200f}, {0x202a, 0x202e},
    {0x2060, 0x2064}, {0x2066, 0x206f}, {0xfeff, 0xfeff},
};

static int in(const unsigned (*set)[2], size_t n, unsigned cp)
{
    for (size_t i = 0; i < n; i++) {
        if (cp >= set[i][0] && cp <= set[i][1])
            return 1;
    }
    return 0;
}

static size_t utf8(unsigned cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Every scalar value: the class is the written set, and base_text_norm and
 * snap_text_normalize turn "x<cp>y" into the same text ("x y", "xy", or the
 * character kept; the snapper also lower-cases, so the base form is compared
 * after the snapper's own normalisation). */
static void every_code_point(void)
{
    size_t nsp = sizeof spaces / sizeof spaces[0], niv = sizeof invisible / sizeof invisible[0];
    int bad = 0, seen_space = 0, seen_inv = 0;
    for (unsigned cp = 1; cp <= 0x10ffff && bad < 10; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue; /* surrogates are not characters in UTF-8 */
        char ch[5] = {0}, in_s[8] = {0};
        size_t n = utf8(cp, ch);
        base_text_class want = in(spaces, nsp, cp)      ? BASE_TEXT_SPACE
                               : in(invisible, niv, cp) ? BASE_TEXT_INVISIBLE
                                                        : BASE_TEXT_OTHER;
        size_t len = 0;
        base_text_class got = base_text_char_class(ch, &len);
        if (got != want || len != n) {
            CHECK_MSG(0, "U+%04X: class %d len %zu, want %d len %zu", cp, got, len, want, n);
            bad++;
            continue;
        }
        seen_space += got == BASE_TEXT_SPACE;
        seen_inv += got == BASE_TEXT_INVISIBLE;
        in_s[0] = 'x';
        memcpy(in_s + 1, ch, n);
        in_s[1 + n] = 'y';
        char b[16], s[16], bs[16];
        base_text_norm(in_s, b, sizeof b, 0);
        snap_text_normalize(in_s, s, sizeof s);
        snap_text_normalize(b, bs, sizeof bs);
        const char *exp = want == BASE_TEXT_SPACE ? "x y" : want == BASE_TEXT_INVISIBLE ? "xy" : NULL;
        if ((exp && (strcmp(b, exp) != 0 || strcmp(s, exp) != 0)) || strcmp(s, bs) != 0 ||
            !snap_text_equal(in_s, b)) {
            CHECK_MSG(0, "U+%04X: base '%s', snapper '%s'", cp, b, s);
            bad++;
        }
    }
    CHECK_EQ(seen_space, 25);
    CHECK_EQ(seen_inv, 28);
}

/* A malformed or truncated sequence is one visible byte to both paths, and the
 * class never reads past the NUL. */
static void malformed(void)
{
    static const char *t[] = {"\xe2\x80", "\xe2", "\xc2", "\x80\x80", "\xf0\x9f\x98"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t len = 0;
        CHECK_EQ(base_text_char_class(t[i], &len), BASE_TEXT_OTHER);
        CHECK_EQ(len, 1);
        char b[16], s[16];
        base_text_norm(t[i], b, sizeof b, 0);
        snap_text_normalize(t[i], s, sizeof s);
        CHECK_STR(b, t[i]);
        CHECK_STR(s, t[i]);
    }
}

static const check_case cases[] = {
    {"every_code_point", every_code_point},
    {"malformed", malformed},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

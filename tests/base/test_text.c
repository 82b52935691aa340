/* tests/base/test_text.c: base_text_norm, the C side of the page kit's text
 * rule (kit.norm in assets/js/lib/kit.js). The expected strings are what
 * JavaScript's norm gives for the same input (written out by hand). */
#include <string.h>

#include "base/text.h"
#include "check.h"

static void folds_spaces(void)
{
    static const struct {
        const char *in, *want;
    } t[] = {
        {"", ""},
        {"  plain  ", "plain"},
        {"a\t\n\r\f b", "a b"},
        {"Save\xc2\xa0\xc2\xa0" "draft", "Save draft"},              /* NBSP */
        {"\xe2\x80\x83" "em\xe2\x80\x89thin\xe3\x80\x80" "ideo", "em thin ideo"},
        {"zero\xe2\x80\x8bwidth\xe2\x80\x8d" "joiner\xef\xbb\xbf", "zerowidthjoiner"},
        {"soft\xc2\xadhyphen", "softhyphen"},
        {"\xe2\x80\xaf" "narrow\xe2\x81\x9f" "math\xe2\x80\xa8line", "narrow math line"},
        {"caf\xc3\xa9 \xe2\x96\xbe", "caf\xc3\xa9 \xe2\x96\xbe"},   /* other UTF-8 kept */
        {"\xe2\x80\x8b \xc2\xa0", ""},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char out[64];
        size_t n = base_text_norm(t[i].in, out, sizeof out, 0);
        CHECK_MSG(strcmp(out, t[i].want) == 0, "case %zu: '%s', want '%s'", i, out, t[i].want);
        CHECK_EQ(n, strlen(t[i].want));
    }
    char out[8];
    CHECK_EQ(base_text_norm(NULL, out, sizeof out, 0), 0);
    CHECK_STR(out, "");
    CHECK_EQ(base_text_norm("x", out, 0, 0), 0);
}

static void caps(void)
{
    char out[64];
    /* max_chars counts code points; a cut never leaves a trailing space. */
    base_text_norm("abc def", out, sizeof out, 4);
    CHECK_STR(out, "abc");
    base_text_norm("abc def", out, sizeof out, 5);
    CHECK_STR(out, "abc d");
    base_text_norm("\xc3\xa9\xc3\xa9\xc3\xa9", out, sizeof out, 2);
    CHECK_STR(out, "\xc3\xa9\xc3\xa9");
    /* The byte cap cuts on a character boundary. */
    char small[4];
    base_text_norm("\xc3\xa9\xc3\xa9", small, sizeof small, 0);
    CHECK_STR(small, "\xc3\xa9");
}

/* base_text_excerpt: one ASCII line, trimmed, cut. */
static void excerpt(void)
{
    char out[16];
    const char *s = "  line\none\tcaf\xC3\xA9 \x7f ok  ";
    base_text_excerpt(s, strlen(s), out, sizeof out);
    CHECK_STR(out, "line one caf?? ");
    base_text_excerpt("\xE2\x82\xAC", 2, out, sizeof out); /* a cut sequence */
    CHECK_STR(out, "??");
    base_text_excerpt(NULL, 5, out, sizeof out);
    CHECK_STR(out, "");
    base_text_excerpt("abc", 3, out, 3);
    CHECK_STR(out, "ab");
}

/* One line of text: trimmed, controls as spaces, non-ASCII kept, a cut
 * that never splits a UTF-8 sequence. */
static void line(void)
{
    char out[16];
    base_text_line(out, sizeof out, "  a\tb\nc  ", 9);
    CHECK_STR(out, "a b c");
    base_text_line(out, sizeof out, "caf\xc3\xa9", 5);
    CHECK_STR(out, "caf\xc3\xa9");
    /* 14 ASCII bytes then a 2-byte sequence: 15 bytes fit, the sequence does not. */
    base_text_line(out, sizeof out, "abcdefghijklmn\xc3\xa9", 16);
    CHECK_STR(out, "abcdefghijklmn");
    base_text_line(out, sizeof out, "", 0);
    CHECK_STR(out, "");
}

static const check_case cases[] = {
    {"line", line},
    {"folds_spaces", folds_spaces},
    {"excerpt", excerpt},
    {"caps", caps},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

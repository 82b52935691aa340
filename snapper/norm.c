/* snapper/norm.c: the one definition of "the same text" used by fovea.
 *
 * Pages write the same words in many byte forms: a no-break space between
 * "Add" and "to cart", a zero-width space a framework left in a template, a
 * soft hyphen in a long word, runs of spaces and newlines from indentation,
 * capitals from CSS-less markup. A check that compares bytes fails on them
 * (issue 10, class 10). Every text comparison in fovea (the snapper's label
 * matching, the runner's text checks and box choice, the cascade's option
 * matching) goes through the character classes of base_text_char_class
 * (base/text.c, also behind base_text_norm and kit.js), so they all agree on
 * what a space and what an invisible character is.
 *
 * Normalised form: invisible format characters are dropped, every Unicode
 * space (ASCII whitespace, NBSP, the U+2000 block, ideographic space...)
 * becomes one ASCII space, runs of spaces fold to one, leading and trailing
 * spaces go, and letters are lower-cased (ASCII, Latin-1 and basic Cyrillic;
 * other scripts are compared as written). Punctuation is kept: "9:30" stays
 * "9:30". The snapper's word folding (snap__fold) uses the same classes and
 * additionally turns punctuation into word separators.
 *
 * Nothing here allocates: comparisons stream both strings through an
 * iterator that yields normalised bytes.
 */
#include <string.h>

#include "base/text.h"
#include "snapper/snap_int.h"

/* The classes themselves live in base/text.c (base_text_char_class), the one
 * definition shared with base_text_norm, the snapshot loader and, mirrored,
 * the page kit's regexes: a character the snapper drops is dropped everywhere. */
snap__char_class snap__char_at(const char *s, size_t *len)
{
    switch (base_text_char_class(s, len)) {
    case BASE_TEXT_SPACE:
        return SNAP__CH_SPACE;
    case BASE_TEXT_INVISIBLE:
        return SNAP__CH_INVISIBLE;
    case BASE_TEXT_OTHER:
        break;
    }
    return SNAP__CH_OTHER;
}

void snap__lower_char(const char *s, size_t len, char out[4])
{
    const unsigned char *u = (const unsigned char *)s;
    memcpy(out, s, len);
    if (len == 1 && u[0] >= 'A' && u[0] <= 'Z') {
        out[0] = (char)(u[0] - 'A' + 'a');
    } else if (len == 2 && u[0] == 0xc3 && u[1] >= 0x80 && u[1] <= 0x9e && u[1] != 0x97) {
        out[1] = (char)(u[1] + 0x20); /* Latin-1 capitals (not the multiplication sign) */
    } else if (len == 2 && u[0] == 0xd0 && u[1] >= 0x90 && u[1] <= 0x9f) {
        out[1] = (char)(u[1] + 0x20); /* Cyrillic А..П -> а..п */
    } else if (len == 2 && u[0] == 0xd0 && u[1] >= 0xa0 && u[1] <= 0xaf) {
        out[0] = (char)0xd1; /* Cyrillic Р..Я -> р..я */
        out[1] = (char)(u[1] - 0x20);
    }
}

/* Streams the normalised bytes of a string. */
typedef struct norm_it {
    const char *p;
    int pending;  /* a space is owed before the next visible character */
    int started;  /* a visible character has been produced */
    char cur[4];  /* the current character, lower-cased */
    size_t n, at; /* its length and the next byte to yield */
} norm_it;

static void it_init(norm_it *it, const char *s)
{
    memset(it, 0, sizeof *it);
    it->p = s ? s : "";
}

/* The next normalised byte, or -1 at the end. */
static int it_next(norm_it *it)
{
    if (it->at < it->n)
        return (unsigned char)it->cur[it->at++];
    while (*it->p) {
        size_t len = 0;
        snap__char_class k = snap__char_at(it->p, &len);
        const char *c = it->p;
        it->p += len;
        if (k == SNAP__CH_INVISIBLE)
            continue;
        if (k == SNAP__CH_SPACE) {
            it->pending = it->started;
            continue;
        }
        it->started = 1;
        snap__lower_char(c, len, it->cur);
        it->n = len;
        it->at = 0;
        if (it->pending) {
            it->pending = 0;
            return ' ';
        }
        return (unsigned char)it->cur[it->at++];
    }
    return -1;
}

size_t snap_text_normalize(const char *s, char *out, size_t cap)
{
    if (!out || cap == 0)
        return 0;
    norm_it it;
    it_init(&it, s);
    size_t n = 0;
    for (;;) {
        /* Copy whole characters only, so a cut never leaves half a code point. */
        norm_it save = it;
        int b = it_next(&it);
        if (b < 0)
            break;
        size_t need = b == ' ' ? 1 : it.n;
        if (n + need + 1 > cap) {
            it = save;
            break;
        }
        out[n++] = (char)b;
        while (b != ' ' && it.at < it.n)
            out[n++] = it.cur[it.at++];
    }
    if (n > 0 && out[n - 1] == ' ')
        n--; /* a cut right after a space */
    out[n] = '\0';
    return n;
}

int snap_text_equal(const char *a, const char *b)
{
    norm_it ia, ib;
    it_init(&ia, a);
    it_init(&ib, b);
    for (;;) {
        int x = it_next(&ia), y = it_next(&ib);
        if (x != y)
            return 0;
        if (x < 0)
            return 1;
    }
}

int snap_text_contains(const char *hay, const char *needle)
{
    norm_it ih, in;
    it_init(&in, needle);
    if (it_next(&in) < 0)
        return 1; /* every text contains the empty text */
    it_init(&ih, hay);
    /* Naive search over the two streams: texts are page-sized at most and
     * needles short, and nothing has to be allocated. */
    for (;;) {
        norm_it h = ih, nd;
        it_init(&nd, needle);
        for (;;) {
            int y = it_next(&nd);
            if (y < 0)
                return 1;
            int x = it_next(&h);
            if (x < 0)
                return 0;
            if (x != y)
                break;
        }
        if (it_next(&ih) < 0)
            return 0;
    }
}

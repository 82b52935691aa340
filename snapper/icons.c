/* snapper/icons.c: what an icon-only control carries, matched to a label.
 *
 * Icon-only controls (a trash can, a star, a gear, an "x") have no text the
 * label can match, but they carry words all the same: class tokens of icon
 * fonts ("fa-trash", "bi-star-fill", "material-symbols-outlined"), glyph or
 * ligature names, SVG <use href="#icon-close"> ids (the page kit collects
 * them into snap_candidate.hint), and the glyph itself as text ("×", "☰").
 * A vision model names the control by its meaning ("Delete", "Favorite"), so
 * the match goes through a small table of concepts: a label and an element
 * match when some word of each falls in the same concept, or when a label
 * word is literally one of the element's icon words ("github" ~
 * "fa-github"). The table is data, documented in snapper/DESIGN.md; it is
 * consulted only when no element in the box carries the label by its text or
 * name (snap.c), so it never overrules a written label.
 */
#include <string.h>

#include "snapper/snap_int.h"

/* One concept: its words (folded, space separated) and glyphs (UTF-8, space
 * separated; matched anywhere in the raw text, name or hint). */
typedef struct icon_concept {
    const char *words;
    const char *glyphs;
} icon_concept;

static const icon_concept CONCEPTS[] = {
    {"delete remove trash bin garbage rubbish wastebasket discard erase destroy",
     "\xf0\x9f\x97\x91"},
    {"close dismiss x times xmark cross clear cancel",
     "\xc3\x97 \xe2\x9c\x95 \xe2\x9c\x96 \xe2\x9c\x97 \xe2\x9c\x98 \xe2\xa8\xaf \xe2\x95\xb3"},
    {"favorite favourite fav star starred heart like love wishlist",
     "\xe2\x98\x85 \xe2\x98\x86 \xe2\x99\xa5 \xe2\x99\xa1 \xe2\x9d\xa4"},
    {"settings setting gear gears cog cogs preferences preference options config configure tune "
     "sliders wrench",
     "\xe2\x9a\x99"},
    {"search find magnifier magnifying loupe lookup",
     "\xf0\x9f\x94\x8d \xf0\x9f\x94\x8e \xe2\x8c\x95"},
    {"menu hamburger bars navicon burger navigation", "\xe2\x98\xb0 \xe2\x89\xa1"},
    {"edit pencil pen modify rename compose", "\xe2\x9c\x8e \xe2\x9c\x8f \xe2\x9c\x90"},
    {"add plus create new increase increment insert", "+ \xef\xbc\x8b \xe2\x9e\x95"},
    {"subtract minus decrease decrement remove less", "\xe2\x88\x92 \xe2\x9e\x96 \xe2\x80\x93"},
    {"share", ""},
    {"download", "\xe2\xac\x87"},
    {"upload", "\xe2\xac\x86"},
    {"home house", "\xf0\x9f\x8f\xa0"},
    {"account user profile person avatar", "\xf0\x9f\x91\xa4"},
    {"cart basket bag shopping trolley", "\xf0\x9f\x9b\x92"},
    {"more ellipsis dots kebab meatballs overflow",
     "\xe2\x8b\xae \xe2\x8b\xaf \xe2\x80\xa6 \xef\xb8\x99"},
    {"back previous prev left", "\xe2\x86\x90 \xe2\x80\xb9 \xc2\xab"},
    {"next forward right", "\xe2\x86\x92 \xe2\x80\xba \xc2\xbb"},
    {"refresh reload sync retry rotate", "\xe2\x86\xbb \xe2\x9f\xb3"},
    {"copy duplicate clone", ""},
    {"notifications notification bell alerts alert", "\xf0\x9f\x94\x94"},
    {"help question info support", "?"},
    {"filter funnel", ""},
    {"calendar date", "\xf0\x9f\x93\x85"},
    {"mail email envelope message inbox", "\xe2\x9c\x89"},
    {"print printer", "\xf0\x9f\x96\xa8"},
    {"save floppy disk", "\xf0\x9f\x92\xbe"},
    {"link chain hyperlink url", "\xf0\x9f\x94\x97"},
    {"attach attachment paperclip", "\xf0\x9f\x93\x8e"},
    {"logout signout", ""},
    {"show view eye visible visibility reveal", "\xf0\x9f\x91\x81"},
    {"done check complete tick confirm", "\xe2\x9c\x93 \xe2\x9c\x94"},
    {"play", "\xe2\x96\xb6"},
    {"pause", "\xe2\x8f\xb8"},
    {"undo", "\xe2\x86\xb6"},
    {"redo", "\xe2\x86\xb7"},
};
#define N_CONCEPTS (sizeof CONCEPTS / sizeof CONCEPTS[0])

/* Icon-set and utility class words that name no meaning: a label word
 * equal to one of them proves nothing. */
static const char *const STOP =
    " icon icons fa fas far fab fal fad bi mdi material symbols outlined outline rounded sharp"
    " filled fill glyphicon btn button svg lg sm md xs xl ic ti la ion ionicon feather lucide"
    " heroicon solid regular light fw inline block small large primary secondary the and for to"
    " of a an on in ";

/* 1 when word w (n bytes, folded) is one of the space-separated words of list. */
static int in_list(const char *list, const char *w, size_t n)
{
    const char *p = list;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        if ((size_t)(e - p) == n && n > 0 && memcmp(p, w, n) == 0)
            return 1;
        p = e;
    }
    return 0;
}

/* Word lookups try the word as written, then without trailing digits
 * ("trash3", "x-lg") and a plural s ("favorites", "settings"). */
static int stem_len(const char *w, size_t n)
{
    while (n > 1 && w[n - 1] >= '0' && w[n - 1] <= '9')
        n--;
    if (n > 3 && w[n - 1] == 's' && w[n - 2] != 's')
        n--;
    return (int)n;
}

static int concept_has_word(size_t c, const char *w, size_t n)
{
    return in_list(CONCEPTS[c].words, w, n) ||
           in_list(CONCEPTS[c].words, w, (size_t)stem_len(w, n));
}

/* Bit set of the concepts of a folded word list (at most 64 concepts). */
static unsigned long long concepts_of_words(const char *folded)
{
    unsigned long long m = 0;
    const char *p = folded;
    while (*p) {
        const char *e = strchr(p, ' ');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        for (size_t c = 0; c < N_CONCEPTS; c++) {
            if (concept_has_word(c, p, n))
                m |= 1ull << c;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return m;
}

/* Concepts whose glyph occurs in raw s. A one-byte ASCII glyph ("+", "?")
 * counts only when it is the whole trimmed text, so "C++" or "Why?" are not
 * icons. */
static unsigned long long concepts_of_glyphs(const char *s)
{
    unsigned long long m = 0;
    if (!s || !s[0])
        return 0;
    char norm[64];
    snap_text_normalize(s, norm, sizeof norm);
    for (size_t c = 0; c < N_CONCEPTS; c++) {
        const char *p = CONCEPTS[c].glyphs;
        while (*p) {
            while (*p == ' ')
                p++;
            const char *e = p;
            while (*e && *e != ' ')
                e++;
            char g[16];
            size_t n = (size_t)(e - p);
            if (n > 0 && n < sizeof g) {
                memcpy(g, p, n);
                g[n] = '\0';
                if (n == 1 ? strcmp(norm, g) == 0 : strstr(s, g) != NULL)
                    m |= 1ull << c;
            }
            p = e;
        }
    }
    return m;
}

/* The hint with camelCase split ("IconTrash" -> "Icon Trash") and folded. */
static void fold_hint(const char *hint, char *buf, size_t cap)
{
    char split[2 * SNAP__FOLD_CAP];
    size_t n = 0;
    for (const char *p = hint ? hint : ""; *p && n + 2 < sizeof split; p++) {
        if (p > hint && *p >= 'A' && *p <= 'Z' && p[-1] >= 'a' && p[-1] <= 'z')
            split[n++] = ' ';
        split[n++] = *p;
    }
    split[n] = '\0';
    snap__fold(split, buf, cap);
}

int snap__icon_match(const snap_candidate *c, const char *label)
{
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) == 0)
        return 0;
    unsigned long long want = concepts_of_words(fl);
    const char *fields[5] = {c->text, c->aria_label, c->title, c->name, c->hint};
    unsigned long long have = 0;
    char fh[SNAP__FOLD_CAP];
    fold_hint(c->hint, fh, sizeof fh);
    for (int i = 0; i < 5; i++) {
        char f[SNAP__FOLD_CAP];
        if (i == 4)
            memcpy(f, fh, sizeof f);
        else
            snap__fold(fields[i], f, sizeof f);
        have |= concepts_of_words(f) | concepts_of_glyphs(fields[i]);
    }
    if (want & have)
        return 1;
    /* A label word that is literally an icon word of the element. */
    const char *p = fl;
    while (*p) {
        const char *e = strchr(p, ' ');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n >= 3 && !in_list(STOP, p, n)) {
            int sl = stem_len(p, n);
            const char *q = fh;
            while (*q) {
                const char *qe = strchr(q, ' ');
                size_t qn = qe ? (size_t)(qe - q) : strlen(q);
                if ((qn == n && memcmp(q, p, n) == 0) ||
                    (stem_len(q, qn) == sl && memcmp(q, p, (size_t)sl) == 0))
                    return 1;
                if (!qe)
                    break;
                q = qe + 1;
            }
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

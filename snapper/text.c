/* snapper/text.c: label matching and expand-control detection.
 *
 * Everything textual the snapper decides goes through one folding step: ASCII
 * is lower-cased, punctuation, whitespace and chevron glyphs separate words,
 * and words are joined by single spaces. On folded strings a "substring" is a
 * run of whole words, so "9:30" never matches inside "19:30" and "Red" never
 * inside "Reddish". Numbers are treated as identities: a fuzzy word-overlap
 * match also needs every number of the label to be present, because times,
 * dates and prices differ only in their numbers. The widget-type-dependent
 * label factor and the chevron count are E.3 eqs. (10) and (11).
 */
#include <string.h>

#include "snapper/snap_int.h"

/* The element's own names the label is compared with. */
#define N_OWN 4

/* Chevron and disclosure glyphs (UTF-8): the paper's filled and hollow
 * triangles, the common chevrons, the ellipses of "more" buttons (vertical,
 * horizontal, presentation form) and the menu "hamburger". */
static const char *const glyphs[] = {
    "\xe2\x96\xbe", /* ▾ */ "\xe2\x96\xbc", /* ▼ */ "\xe2\x96\xbf", /* ▿ */
    "\xe2\x96\xbd", /* ▽ */ "\xe2\x96\xb8", /* ▸ */ "\xe2\x96\xb6", /* ▶ */
    "\xe2\x96\xb9", /* ▹ */ "\xe2\x96\xb7", /* ▷ */ "\xe2\x96\xba", /* ► */
    "\xe2\x97\x82", /* ◂ */ "\xe2\x97\x80", /* ◀ */ "\xe2\x97\x83", /* ◃ */
    "\xe2\x97\x81", /* ◁ */ "\xe2\x97\x84", /* ◄ */ "\xe2\x96\xb4", /* ▴ */
    "\xe2\x96\xb2", /* ▲ */ "\xe2\x96\xb5", /* ▵ */ "\xe2\x96\xb3", /* △ */
    "\xe2\x8c\x84", /* ⌄ */ "\xe2\x8c\x83", /* ⌃ */ "\xe2\x80\xba", /* › */
    "\xe2\x80\xb9", /* ‹ */ "\xe2\x9d\xaf", /* ❯ */ "\xe2\x9d\xae", /* ❮ */
    "\xcb\x85",     /* ˅ */ "\xcb\x84",     /* ˄ */ "\xe2\x8b\xae", /* ⋮ */
    "\xe2\x8b\xaf", /* ⋯ */ "\xe2\x80\xa6", /* … */ "\xef\xb8\x99", /* ︙ */
    "\xe2\x98\xb0", /* ☰ */
};
#define N_GLYPHS (sizeof glyphs / sizeof glyphs[0])

/* Length of the glyph starting at s, 0 if none does. */
static size_t glyph_at(const char *s)
{
    if ((unsigned char)s[0] < 0x80)
        return 0;
    for (size_t i = 0; i < N_GLYPHS; i++) {
        size_t n = strlen(glyphs[i]);
        if (strncmp(s, glyphs[i], n) == 0)
            return n;
    }
    return 0;
}

int snap__has_glyph(const char *s)
{
    if (!s)
        return 0;
    for (; *s; s++) {
        if (glyph_at(s))
            return 1;
    }
    return 0;
}

/* Unicode punctuation and symbols that separate words like ASCII punctuation
 * does: Latin-1 punctuation and signs (U+00A1..00BF, the multiplication and
 * division signs) and the General Punctuation block (dashes, quotes, bullets,
 * U+2010..2027, U+2030..205E). Letters and digits of every script stay word
 * characters. */
static int is_unicode_punct(const unsigned char *u, size_t len)
{
    if (len == 2 && u[0] == 0xc2 && u[1] >= 0xa1 && u[1] <= 0xbf)
        return 1;
    if (len == 2 && u[0] == 0xc3 && (u[1] == 0x97 || u[1] == 0xb7))
        return 1;
    if (len == 3 && u[0] == 0xe2 && u[1] == 0x80 && u[2] >= 0x90)
        return 1;
    if (len == 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] <= 0x9e)
        return 1;
    return 0;
}

static int is_ascii_word(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Symbols a label or a control may be in full (issue 21, class 3): each
 * folds to the word of its meaning, so "-" is not "+" and "×" is "close". */
static const struct {
    const char *word;
    const char *sym[8];
} SYMBOLS[] = {
    {"plus", {"+", "\xef\xbc\x8b", "\xe2\x9e\x95", NULL}},
    {"minus",
     {"-", "\xe2\x88\x92", "\xe2\x80\x93", "\xe2\x80\x94", "\xe2\x9e\x96", "\xe2\x80\x90",
      NULL}},
    {"close",
     {"x", "X", "\xc3\x97", "\xe2\x9c\x95", "\xe2\x9c\x96", "\xe2\xa8\xaf", NULL}},
    {"check", {"\xe2\x9c\x93", "\xe2\x9c\x94", NULL}},
    {"star", {"\xe2\x98\x85", "\xe2\x98\x86", "\xe2\xad\x90", NULL}},
    {"next", {"\xe2\x80\xba", "\xc2\xbb", ">", "\xe2\x86\x92", "\xe2\x9d\xaf", NULL}},
    {"previous", {"\xe2\x80\xb9", "\xc2\xab", "<", "\xe2\x86\x90", "\xe2\x9d\xae", NULL}},
    {"more", {"\xe2\x80\xa6", "...", "\xe2\x8b\xaf", "\xe2\x8b\xae", NULL}},
};

const char *snap__symbol_word(const char *s)
{
    if (!s)
        return NULL;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n == 0 || n > 4)
        return NULL;
    for (size_t i = 0; i < sizeof SYMBOLS / sizeof SYMBOLS[0]; i++) {
        for (int k = 0; SYMBOLS[i].sym[k]; k++) {
            if (strlen(SYMBOLS[i].sym[k]) == n && memcmp(SYMBOLS[i].sym[k], s, n) == 0)
                return SYMBOLS[i].word;
        }
    }
    return NULL;
}

size_t snap__fold(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    int pending_space = 0;
    if (cap == 0)
        return 0;
    /* A text that is one symbol in full reads as its meaning. */
    const char *sw = snap__symbol_word(s);
    if (sw) {
        size_t l = strlen(sw);
        if (l >= cap)
            l = cap - 1;
        memcpy(buf, sw, l);
        buf[l] = '\0';
        return l;
    }
    while (s && *s) {
        size_t g = glyph_at(s);
        if (g) {
            s += g;
            pending_space = 1;
            continue;
        }
        size_t len = 0;
        snap__char_class k = snap__char_at(s, &len);
        const unsigned char *u = (const unsigned char *)s;
        s += len;
        /* Invisible characters vanish without splitting the word they sit in
         * ("Sub<shy>mit" is "submit"); spaces and punctuation separate. */
        if (k == SNAP__CH_INVISIBLE)
            continue;
        if (k == SNAP__CH_SPACE || (len == 1 && !is_ascii_word(u[0]) && u[0] < 0x80) ||
            is_unicode_punct(u, len)) {
            pending_space = 1;
            continue;
        }
        /* A separator is only written between two words, never leading. */
        if (pending_space && n > 0) {
            if (n + 1 >= cap)
                break;
            buf[n++] = ' ';
        }
        pending_space = 0;
        if (n + len >= cap)
            break;
        snap__lower_char((const char *)u, len, buf + n);
        n += len;
    }
    buf[n] = '\0';
    return n;
}

/* A word of a folded string. */
typedef struct word {
    const char *p;
    size_t n;
} word;

#define MAX_WORDS 64

static int split_words(const char *folded, word *w, int max)
{
    int k = 0;
    const char *s = folded;
    while (*s && k < max) {
        const char *e = strchr(s, ' ');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        w[k].p = s;
        w[k].n = n;
        k++;
        if (!e)
            break;
        s = e + 1;
    }
    return k;
}

static int word_eq(word a, word b)
{
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

static int word_in(word a, const word *set, int n)
{
    for (int i = 0; i < n; i++) {
        if (word_eq(a, set[i]))
            return 1;
    }
    return 0;
}

static int word_is_number(word a)
{
    for (size_t i = 0; i < a.n; i++) {
        if (a.p[i] < '0' || a.p[i] > '9')
            return 0;
    }
    return a.n > 0;
}

/* Whole-word substring: needle occurs in hay delimited by spaces or ends. */
static int contains_words(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);
    if (nl == 0)
        return 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
        int left = p == hay || p[-1] == ' ';
        int right = p[nl] == '\0' || p[nl] == ' ';
        if (left && right)
            return 1;
    }
    return 0;
}

/* Jaccard overlap of the distinct words of a and b (folded), in [0, 1]. */
static float jaccard(const word *a, int na, const word *b, int nb)
{
    int inter = 0, ua = 0;
    for (int i = 0; i < na; i++) {
        if (word_in(a[i], a, i))
            continue; /* duplicate within a */
        ua++;
        if (word_in(a[i], b, nb))
            inter++;
    }
    int ub = 0;
    for (int j = 0; j < nb; j++) {
        if (!word_in(b[j], b, j))
            ub++;
    }
    int uni = ua + ub - inter;
    return uni > 0 ? (float)inter / (float)uni : 0.0f;
}

static int numbers_covered(const word *l, int nl, const word *e, int ne)
{
    for (int i = 0; i < nl; i++) {
        if (word_is_number(l[i]) && !word_in(l[i], e, ne))
            return 0;
    }
    return 1;
}

static int has_number(const word *w, int n)
{
    for (int i = 0; i < n; i++) {
        if (word_is_number(w[i]))
            return 1;
    }
    return 0;
}

/* Ordered match for options and menu items, whose labels often differ only
 * in word order ("Price: high to low" / "Price: low to high"): the shorter
 * word list is a subsequence of the longer, covers at least half of it and
 * has 3+ characters, and every number of the label is present. */
static int ordered_match(const char *fl, const char *fe)
{
    word wl[MAX_WORDS], we[MAX_WORDS];
    int nl = split_words(fl, wl, MAX_WORDS);
    int ne = split_words(fe, we, MAX_WORDS);
    if (nl == 0 || ne == 0)
        return 0;
    const word *sw = nl <= ne ? wl : we, *lw = nl <= ne ? we : wl;
    int ns = nl <= ne ? nl : ne, nlong = nl <= ne ? ne : nl;
    size_t chars = 0;
    int j = 0;
    for (int i = 0; i < ns; i++) {
        while (j < nlong && !word_eq(sw[i], lw[j]))
            j++;
        if (j == nlong)
            return 0;
        j++;
        chars += sw[i].n;
    }
    return chars >= 3 && 2 * ns >= nlong && numbers_covered(wl, nl, we, ne);
}

/* Match quality on folded strings, the generic match of DESIGN.md "Match
 * rule": 1 when equal, QUALITY_CONTAINS for a whole-word substring, the word
 * Jaccard (>= 0.5) for a fuzzy match, 0 for none. */
#define QUALITY_CONTAINS 0.9f
static float folded_quality(const char *fl, const char *fe)
{
    size_t ll = strlen(fl), le = strlen(fe);
    if (ll == 0 || le == 0)
        return 0.0f;
    if (strcmp(fl, fe) == 0)
        return 1.0f;
    size_t shorter = ll < le ? ll : le, longer = ll < le ? le : ll;
    if (shorter >= 3 && 2 * shorter >= longer) {
        if (ll <= le ? contains_words(fe, fl) : contains_words(fl, fe))
            return QUALITY_CONTAINS;
    }
    word wl[MAX_WORDS], we[MAX_WORDS];
    int nl = split_words(fl, wl, MAX_WORDS);
    int ne = split_words(fe, we, MAX_WORDS);
    float j = jaccard(wl, nl, we, ne);
    /* Below a containment: a fuzzy match never outranks a clean one. */
    if (j > 0.85f)
        j = 0.85f;
    return j >= 0.5f && numbers_covered(wl, nl, we, ne) ? j : 0.0f;
}

static int folded_match(const char *fl, const char *fe)
{
    return folded_quality(fl, fe) > 0.0f;
}

int snap__text_match(const char *a, const char *b)
{
    char fa[SNAP__FOLD_CAP], fb[SNAP__FOLD_CAP];
    snap__fold(a, fa, sizeof fa);
    snap__fold(b, fb, sizeof fb);
    return folded_match(fa, fb);
}

static int str_is(const char *s, const char *v)
{
    return s && strcmp(s, v) == 0;
}

/* Text that is only a day number, 1..31. */
static int is_day_number(const char *s)
{
    char f[SNAP__FOLD_CAP];
    size_t n = snap__fold(s, f, sizeof f);
    if (n < 1 || n > 2)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (f[i] < '0' || f[i] > '9')
            return 0;
    }
    int v = n == 1 ? f[0] - '0' : (f[0] - '0') * 10 + (f[1] - '0');
    return v >= 1 && v <= 31;
}

snap__widget snap__widget_of(const snap_candidate *c)
{
    const char *role = c->role ? c->role : "";
    if (str_is(role, "gridcell") || is_day_number(c->text))
        return SNAP__W_DAY;
    if (str_is(role, "option") || str_is(role, "menuitem") || str_is(role, "menuitemradio") ||
        str_is(role, "menuitemcheckbox") || str_is(role, "treeitem") || str_is(c->tag, "option"))
        return SNAP__W_OPTION;
    if (str_is(c->tag, "select") || str_is(role, "combobox") || str_is(role, "listbox") ||
        str_is(role, "spinbutton") || str_is(role, "searchbox") || str_is(role, "textbox"))
        return SNAP__W_VALUE;
    /* A popup trigger showing words (a time picker's "10:30 AM") bears a
     * value; a glyph-only chevron does not. */
    char f[SNAP__FOLD_CAP];
    if (c->aria_haspopup && snap__fold(c->text, f, sizeof f) > 0)
        return SNAP__W_VALUE;
    return SNAP__W_GENERIC;
}

/* The words of the element's text, aria-label, title and accessible name together. */
static int element_words(const snap_candidate *c, char *buf, size_t cap, word *w, int max)
{
    char a[SNAP__FOLD_CAP], b[SNAP__FOLD_CAP], t[SNAP__FOLD_CAP], m[SNAP__FOLD_CAP];
    snap__fold(c->text, a, sizeof a);
    snap__fold(c->aria_label, b, sizeof b);
    snap__fold(c->title, t, sizeof t);
    snap__fold(c->name, m, sizeof m);
    size_t n = 0;
    const char *parts[4] = {a, b, t, m};
    for (int i = 0; i < 4; i++) {
        size_t pl = strlen(parts[i]);
        if (pl == 0 || n + pl + 2 > cap)
            continue;
        if (n > 0)
            buf[n++] = ' ';
        memcpy(buf + n, parts[i], pl);
        n += pl;
    }
    buf[n] = '\0';
    return split_words(buf, w, max);
}

float snap__label_factor(const snap_candidate *c, const char *label)
{
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) == 0)
        return 1.0f; /* no label: the factor does not discriminate */
    word wl[MAX_WORDS];
    int nl = split_words(fl, wl, MAX_WORDS);
    char eb[4 * SNAP__FOLD_CAP];
    word we[4 * MAX_WORDS];
    int ne = element_words(c, eb, sizeof eb, we, 4 * MAX_WORDS);
    const char *own[N_OWN] = {c->text, c->aria_label, c->title, c->name};

    switch (snap__widget_of(c)) {
    case SNAP__W_DAY:
        /* 1[Tokens(l) subset of TextTokens(e)]: exact words, no leniency. */
        for (int i = 0; i < nl; i++) {
            if (!word_in(wl[i], we, ne))
                return 0.0f;
        }
        return 1.0f;
    case SNAP__W_OPTION:
        /* Substr(l, e.text) on whole words, or the words in order: options
         * of one list often share all their words (DESIGN.md). */
        for (int i = 0; i < N_OWN; i++) {
            char fe[SNAP__FOLD_CAP];
            snap__fold(own[i], fe, sizeof fe);
            if (contains_words(fe, fl) || ordered_match(fl, fe))
                return 1.0f;
        }
        return 0.0f;
    case SNAP__W_VALUE: {
        /* Jaccard over text and aria words; 0.7 for a shared word of >= 3 chars. */
        float j = jaccard(wl, nl, we, ne);
        /* A select's text lists all its options: one shared word with a
         * long list is not a name ("Button" vs "Button Input Textarea ..."). */
        for (int i = 0; i < nl && ne <= SNAP_LIST_WORDS; i++) {
            if (wl[i].n >= 3 && word_in(wl[i], we, ne) && j < 0.7f)
                j = 0.7f;
        }
        /* Nor is it a fallback target when nothing else matches: refused. */
        if (j < SNAP__MATCH_MIN && ne > SNAP_LIST_WORDS && jaccard(wl, nl, we, ne) > 0.0f)
            return 0.0f;
        return j;
    }
    case SNAP__W_GENERIC:
    default:
        for (int i = 0; i < N_OWN; i++) {
            char fe[SNAP__FOLD_CAP];
            snap__fold(own[i], fe, sizeof fe);
            if (folded_match(fl, fe))
                return 1.0f;
        }
        /* Numbers are identities: an element whose words hold numbers, none
         * of them the label's, names something else ("Item 49999" is not
         * "Item 4", page 3 is not page 2). It is refused, not down-weighted. */
        if (has_number(wl, nl) && has_number(we, ne) && !numbers_covered(wl, nl, we, ne))
            return 0.0f;
        return 0.5f;
    }
}

float snap__label_quality(const snap_candidate *c, const char *label)
{
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) == 0)
        return 1.0f;
    const char *own[N_OWN] = {c->text, c->aria_label, c->title, c->name};
    float q = 0.0f;
    switch (snap__widget_of(c)) {
    case SNAP__W_DAY:
    case SNAP__W_VALUE:
        return snap__label_factor(c, label);
    case SNAP__W_OPTION:
        for (int i = 0; i < N_OWN; i++) {
            char fe[SNAP__FOLD_CAP];
            snap__fold(own[i], fe, sizeof fe);
            float qi = strcmp(fe, fl) == 0                                 ? 1.0f
                       : contains_words(fe, fl) || ordered_match(fl, fe) ? QUALITY_CONTAINS
                                                                          : 0.0f;
            if (qi > q)
                q = qi;
        }
        return q;
    case SNAP__W_GENERIC:
    default:
        for (int i = 0; i < N_OWN; i++) {
            char fe[SNAP__FOLD_CAP];
            snap__fold(own[i], fe, sizeof fe);
            float qi = folded_quality(fl, fe);
            if (qi > q)
                q = qi;
        }
        return q;
    }
}

int snap__label_match(const snap_candidate *c, const char *label)
{
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) == 0)
        return 0;
    return snap__label_factor(c, label) >= SNAP__MATCH_MIN;
}

/* 1 when the folded s has one of the expand words as a whole word. */
static int has_expand_word(const char *s)
{
    static const char *const words[] = {"expand", "collapse", "toggle", "more"};
    char f[SNAP__FOLD_CAP];
    snap__fold(s, f, sizeof f);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (contains_words(f, words[i]))
            return 1;
    }
    return 0;
}

int snap__chevron_count(const snap_candidate *c)
{
    int k = 0;
    k += c->aria_expanded >= 0;
    k += c->aria_haspopup != 0;
    k += snap__has_glyph(c->text) || snap__has_glyph(c->aria_label);
    /* The title stands in for a missing aria-label (icon buttons often use it). */
    const char *name = c->aria_label && c->aria_label[0] ? c->aria_label : c->title;
    k += has_expand_word(name);
    return k;
}

const char *snap_match_name(snap_match m)
{
    static const char *const names[] = {"none",      "geometry", "icon", "fuzzy",
                                        "substring", "prefix",   "word", "exact"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "none";
}

const char *snap_match_grade(snap_match m)
{
    if (m == SNAP_MATCH_EXACT)
        return "exact";
    return m >= SNAP_MATCH_ICON && m < SNAP_MATCH_EXACT ? "partial" : "none";
}

static int count_words(const char *folded)
{
    int n = 0;
    for (const char *p = folded; *p; p++)
        n += p == folded || p[-1] == ' ';
    return n;
}

snap_match snap_match_kind(const char *want, const char *have)
{
    char fl[SNAP__FOLD_CAP], fe[SNAP__FOLD_CAP];
    size_t ll = snap__fold(want, fl, sizeof fl), le = snap__fold(have, fe, sizeof fe);
    if (ll == 0 || le == 0)
        return SNAP_MATCH_NONE;
    float q = folded_quality(fl, fe);
    if (q >= 1.0f)
        return SNAP_MATCH_EXACT;
    if (q >= QUALITY_CONTAINS)
        return SNAP_MATCH_WORD;
    if (q > 0.0f)
        return SNAP_MATCH_FUZZY;
    /* Whole-word containment that fails the half-length rule: a few words of
     * a longer text. A list (a select's options) is refused outright. */
    if (ll <= le ? contains_words(fe, fl) : contains_words(fl, fe))
        return count_words(ll <= le ? fe : fl) > SNAP_LIST_WORDS ? SNAP_MATCH_NONE
                                                                 : SNAP_MATCH_SUBSTRING;
    if (strncmp(fe, fl, ll) == 0)
        return SNAP_MATCH_PREFIX;
    if (strstr(fe, fl))
        return SNAP_MATCH_SUBSTRING;
    return SNAP_MATCH_NONE;
}

snap_match snap__match_of(const snap_candidate *c, const char *label)
{
    const char *own[N_OWN] = {c->text, c->aria_label, c->title, c->name};
    snap_match best = SNAP_MATCH_NONE;
    for (int i = 0; i < N_OWN; i++) {
        snap_match m = snap_match_kind(label, own[i]);
        if (m > best)
            best = m;
    }
    return best;
}

int snap__label_contained(const snap_candidate *c, const char *label)
{
    char fl[SNAP__FOLD_CAP];
    if (snap__fold(label, fl, sizeof fl) < 3 || snap__widget_of(c) != SNAP__W_GENERIC)
        return 0;
    const char *own[N_OWN] = {c->text, c->aria_label, c->title, c->name};
    for (int i = 0; i < N_OWN; i++) {
        char fe[SNAP__FOLD_CAP];
        snap__fold(own[i], fe, sizeof fe);
        if (contains_words(fe, fl))
            return 1;
    }
    return 0;
}

int snap__unnamed(const snap_candidate *c)
{
    const char *own[N_OWN] = {c->text, c->aria_label, c->title, c->name};
    for (int i = 0; i < N_OWN; i++) {
        char f[SNAP__FOLD_CAP];
        if (snap__fold(own[i], f, sizeof f) > 0)
            return 0;
    }
    return 1;
}

/* snapper/pick.c: which vision box a target names (snap_pick_box).
 *
 * The one box chooser: the runner, the tools and the snap service all pick
 * a box for "[V4] Stops" or "Stops" here, with the one label matcher
 * (snap_match_kind). Pure.
 */
#include <stdio.h>
#include <string.h>

#include "snapper/snap.h"

/* Rank of a match kind for choosing a box; 0 = no match. */
static int rank(snap_match m)
{
    switch (m) {
    case SNAP_MATCH_EXACT:
        return 5;
    case SNAP_MATCH_WORD:
        return 4;
    case SNAP_MATCH_PREFIX:
        return 3;
    case SNAP_MATCH_SUBSTRING:
        return 2;
    case SNAP_MATCH_FUZZY:
        return 1;
    default:
        return 0;
    }
}

int snap_pick_box(const snap_box_cand *c, int n, const char *label, int index, const char **by)
{
    if (!c || n <= 0)
        return -1;
    if (index > 0) {
        for (int i = 0; i < n; i++) {
            if (c[i].id != index)
                continue;
            if (!label || rank(snap_match_kind(label, c[i].label)) > 0) {
                if (by)
                    *by = "index";
                return i;
            }
        }
    }
    int best = -1, best_rank = 0;
    float best_area = 0;
    for (int i = 0; label && i < n; i++) {
        int k = rank(snap_match_kind(label, c[i].label));
        float area = base_rect_area(c[i].r);
        if (k > best_rank || (k == best_rank && k > 0 && area < best_area)) {
            best = i;
            best_rank = k;
            best_area = area;
        }
    }
    if (best >= 0 && by)
        *by = "label";
    return best;
}

/* Ordinal words of the target grammar (docs/grounding.md), 1-based. */
static const char *const ORDINALS[] = {"first",   "second", "third", "fourth", "fifth",
                                       "sixth",   "seventh", "eighth", "ninth", "tenth"};

/* 1 when word w (n bytes, ASCII case-insensitive) equals lit. */
static int word_is(const char *w, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    if (n != l)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = w[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != lit[i])
            return 0;
    }
    return 1;
}

/* The ordinal a word states: "second" / "2nd" -> 2, "last" -> -1, else 0. */
static int ordinal_of(const char *w, size_t n)
{
    for (size_t i = 0; i < sizeof ORDINALS / sizeof ORDINALS[0]; i++) {
        if (word_is(w, n, ORDINALS[i]))
            return (int)i + 1;
    }
    if (word_is(w, n, "last"))
        return -1;
    /* 1st, 2nd, 3rd, 4th ... 99th */
    size_t d = 0;
    int v = 0;
    while (d < n && d < 2 && w[d] >= '0' && w[d] <= '9')
        v = v * 10 + (w[d++] - '0');
    if (d == 0 || v == 0 || n - d != 2)
        return 0;
    const char *suf = w + d;
    if (word_is(suf, 2, "st") || word_is(suf, 2, "nd") || word_is(suf, 2, "rd") ||
        word_is(suf, 2, "th"))
        return v;
    return 0;
}

int snap_parse_ordinal(const char *label, char *rest, size_t cap)
{
    if (!label || !rest || cap == 0)
        return 0;
    const char *p = label;
    while (*p == ' ')
        p++;
    /* An optional leading "the". */
    const char *w = p;
    size_t n = strcspn(w, " ");
    if (word_is(w, n, "the") && w[n] == ' ') {
        p = w + n;
        while (*p == ' ')
            p++;
        w = p;
        n = strcspn(w, " ");
    }
    int ord = ordinal_of(w, n);
    const char *r = w + n;
    while (*r == ' ')
        r++;
    if (ord == 0 || !*r)
        return 0;
    snprintf(rest, cap, "%s", r);
    return ord;
}

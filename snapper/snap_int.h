/* snapper/snap_int.h: helpers shared by the snapper's files (and its tests). */
#ifndef FOVEA_SNAPPER_SNAP_INT_H
#define FOVEA_SNAPPER_SNAP_INT_H

#include <stddef.h>

#include "snapper/snap.h"

/* Folded strings are truncated to this many bytes (long container texts). */
#define SNAP__FOLD_CAP 512

/* Widget types of the label factor, E.3 eq. (10). */
typedef enum snap__widget {
    SNAP__W_GENERIC = 0,
    SNAP__W_DAY,    /* calendar day cell: every label word must be present */
    SNAP__W_OPTION, /* dropdown option / menu item: substring */
    SNAP__W_VALUE,  /* value-bearing trigger (select, combobox, time picker) */
} snap__widget;

/* Character classes of the one text normalisation (norm.c). */
typedef enum snap__char_class {
    SNAP__CH_OTHER = 0, /* a visible character */
    SNAP__CH_SPACE,     /* any Unicode space: ASCII whitespace, NBSP, U+2000..200A, ... */
    SNAP__CH_INVISIBLE, /* dropped: ZWSP, ZWNJ, ZWJ, word joiner, BOM, soft hyphen, bidi marks */
} snap__char_class;

/* Class of the character starting at s (not at its NUL) and its byte length in *len
 * (1 for a malformed byte). */
snap__char_class snap__char_at(const char *s, size_t *len);

/* The lower-case form of the len-byte character at s into out (same length). */
void snap__lower_char(const char *s, size_t len, char out[4]);

/* Folds s into buf (cap bytes incl. NUL): lower-cased words (snap__lower_char)
 * joined by single spaces; Unicode spaces (snap__char_at), ASCII and common
 * Unicode punctuation and chevron glyphs separate words; invisible characters
 * are dropped; other non-ASCII characters are word characters. Returns the
 * folded length. */
size_t snap__fold(const char *s, char *buf, size_t cap);

/* The word a text means when it is one symbol in full ("+" plus, "-" or
 * "−" minus, "×" or "x" close, "✓" check, "★" star, "›" next, "‹" previous,
 * "…" more), surrounding ASCII whitespace ignored; NULL otherwise. snap__fold
 * folds such a text to that word (issue 21, class 3). */
const char *snap__symbol_word(const char *s);

/* The generic match "a ~ b" of DESIGN.md on raw strings (folded inside). */
int snap__text_match(const char *a, const char *b);

snap__widget snap__widget_of(const snap_candidate *c);

/* lambda(e, label) of E.3 eq. (10); 1 when label is NULL or folds to "". */
float snap__label_factor(const snap_candidate *c, const char *label);

/* Phase A's LabelMatch: lambda >= SNAP__MATCH_MIN. */
#define SNAP__MATCH_MIN 0.7f
int snap__label_match(const snap_candidate *c, const char *label);
/* How well c carries the label, in [0, 1]: 1 equal, 0.9 whole-word
 * containment (or words in order for options), the word Jaccard (capped at
 * 0.85) for a fuzzy match, the label factor for days and value widgets, 0
 * for no match; 1 without a label. Ranks candidates that all match. */
float snap__label_quality(const snap_candidate *c, const char *label);

/* The best snap_match_kind of label against c's text, aria-label, title and name. */
snap_match snap__match_of(const snap_candidate *c, const char *label);

/* 1 when c carries the label only as an icon: a concept of the synonym
 * table (icons.c) shared by the label and c's icon words, glyphs or names,
 * or a label word that is one of c's hint words. */
int snap__icon_match(const snap_candidate *c, const char *label);

/* The snapper's notion of a hit target: interactive by the probe, or
 * carrying a click listener of its own (not <html>/<body>, whose listeners
 * are page-wide delegation), or an iframe. */
int snap__clickable(const snap_candidate *c);

/* 1 when a generic element's text (or aria, title, name) holds the folded
 * label (>= 3 chars) as a run of whole words, however long the text: a card
 * whose heading is the label. Weaker than any match (see snap.c). */
int snap__label_contained(const snap_candidate *c, const char *label);

/* 1 when c has no words at all in its text, aria-label, title or name. */
int snap__unnamed(const snap_candidate *c);

/* K(e) of E.3 eq. (11): number of expand-control indicators (0..4). */
int snap__chevron_count(const snap_candidate *c);

/* 1 when s contains one of the chevron / disclosure glyphs. */
int snap__has_glyph(const char *s);

#endif

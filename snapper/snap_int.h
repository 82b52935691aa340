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

/* Folds s into buf (cap bytes incl. NUL): ASCII lower-cased words joined by
 * single spaces; punctuation, whitespace and chevron glyphs separate words;
 * bytes >= 0x80 outside glyphs are word bytes. Returns the folded length. */
size_t snap__fold(const char *s, char *buf, size_t cap);

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

/* K(e) of E.3 eq. (11): number of expand-control indicators (0..4). */
int snap__chevron_count(const snap_candidate *c);

/* 1 when s contains one of the chevron / disclosure glyphs. */
int snap__has_glyph(const char *s);

#endif

/* perception/pixel_label.c: which text line labels a field or a checkbox,
 * by geometry alone.
 *
 * Web forms name most inputs with text outside the box (a <label> above or
 * to the left; a checkbox's text to its right), so OCR of the box finds only
 * a placeholder or nothing. A person reads the nearest text line in the
 * usual label places; this does the same on the detector's elements: pure
 * arithmetic on the sorted list, so the answer is the same for any thread
 * count or kernel. Ties go to the lower index (the list's top-to-bottom,
 * left-to-right order).
 */
#include <stdlib.h>

#include "perception/pixel_int.h"

static int is_text(const perc_pixel_elem *e)
{
    return (e->cls == PERC_PIXEL_TEXT || e->cls == PERC_PIXEL_LINK) && e->tx1 > e->tx0 &&
           e->ty1 > e->ty0;
}

int perc__pixel_label_of(const perc_pixel_elem *el, int n, int i)
{
    if (!el || i < 0 || i >= n)
        return -1;
    const perc_pixel_elem *f = &el[i];
    int cb = f->cls == PERC_PIXEL_CHECKBOX;
    if (f->cls != PERC_PIXEL_FIELD && !cb)
        return -1;
    int best = -1;
    long best_score = 0;
    for (int k = 0; k < n; k++) {
        const perc_pixel_elem *t = &el[k];
        if (k == i || !is_text(t))
            continue;
        int lh = t->ty1 - t->ty0;
        if (lh < 4)
            continue;
        /* A label sits beside the box, never on it. */
        if (t->tx0 < f->x1 && t->tx1 > f->x0 && t->ty0 < f->y1 && t->ty1 > f->y0)
            continue;
        int cy = (t->ty0 + t->ty1) / 2;
        int same_row = cy >= f->y0 - lh / 2 && cy <= f->y1 + lh / 2;
        long score = -1;
        /* Above: bottom within ~1.5 line heights of the box's top, its
         * start aligned with the box's left edge (labels sit flush with the
         * outline; a little slack for padding and OCR-less glyph bounds). */
        int gap_above = f->y0 - t->ty1;
        int tol = lh + 4;
        if (!same_row && gap_above >= -2 && 2 * gap_above <= 3 * lh + 4 &&
            abs(t->tx0 - f->x0) <= tol && t->tx0 < f->x1)
            score = gap_above < 0 ? 0 : gap_above;
        /* Left on the same row: a label column beside the inputs. */
        int gap_left = f->x0 - t->tx1;
        if (same_row && gap_left >= -2 && gap_left <= 4 * lh) {
            long s = (gap_left < 0 ? 0 : gap_left) + (cb ? 2L * lh : 0);
            if (score < 0 || s < score)
                score = s;
        }
        /* Right on the same row: a checkbox's (or radio's) own text. */
        int gap_right = t->tx0 - f->x1;
        if (cb && same_row && gap_right >= -2 && gap_right <= 2 * lh) {
            long s = gap_right < 0 ? 0 : gap_right;
            if (score < 0 || s < score)
                score = s;
        }
        if (score >= 0 && (best < 0 || score < best_score)) {
            best = k;
            best_score = score;
        }
    }
    return best;
}

/* snapper/pick.c: which vision box a target names (snap_pick_box).
 *
 * The one box chooser: the runner, the tools and the snap service all pick
 * a box for "[V4] Stops" or "Stops" here, with the one label matcher
 * (snap_match_kind). Pure.
 */
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

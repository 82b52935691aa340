/* agent/session/names.c: how the runner names marks and suggests targets.
 *
 * A user (or an agent) who names a target that the page does not have needs
 * the names the page does have: every mark is shown as "[V3] Cancel order"
 * in overlays and the report, and a failed step lists the nearest labels.
 * Nearness is edit distance, over the whole labels and over runs of words
 * of about the wanted length, so a misspelt or partial name still finds the
 * control meant; when the target named an index, the box nearest that
 * index's box on the page is offered too.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "agent/session/agent_int.h"

/* Lower-cased, whitespace-collapsed, trimmed copy (as the runner compares
 * labels). */
static void fold(const char *s, char *out, size_t n)
{
    size_t k = 0;
    int space = 0;
    for (; s && *s && k + 1 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (isspace(c)) {
            space = k > 0;
            continue;
        }
        if (space && k + 2 < n)
            out[k++] = ' ';
        space = 0;
        out[k++] = (char)tolower(c);
    }
    out[k] = '\0';
}

/* Levenshtein distance of a and b (bytes; both at most 127 long). */
static int lev(const char *a, size_t na, const char *b, size_t nb)
{
    int row[128];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int v = diag + cost;
            if (row[j] + 1 < v)
                v = row[j] + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
        }
    }
    return row[nb];
}

/* How alike two normalised labels are, 0..1: the edit-distance ratio of
 * the whole strings, or (slightly less) of want against the best run of
 * words of have of about its length ("Serch" in "Search flights"). */
static double name_similarity(const char *w, const char *h)
{
    size_t nw = strlen(w), nh = strlen(h);
    if (nw > 127)
        nw = 127;
    if (nh > 127)
        nh = 127;
    if (!nw || !nh)
        return 0;
    size_t mx = nw > nh ? nw : nh;
    double best = 1.0 - (double)lev(w, nw, h, nh) / (double)mx;
    /* At most 16 word starts: this runs for every box of a failed step. */
    int starts = 0;
    for (size_t at = 0; nh > nw && at < nh && starts < 16; at++) {
        if (at > 0 && h[at - 1] != ' ')
            continue;
        starts++;
        for (size_t len = nw > 2 ? nw - 2 : 1; len <= nw + 2 && at + len <= nh; len++) {
            size_t m = nw > len ? nw : len;
            double r = 0.9 * (1.0 - (double)lev(w, nw, h + at, len) / (double)m);
            if (r > best)
                best = r;
        }
    }
    return best;
}

/* Up to 4 "try:" lines, never none when the epoch has boxes: the boxes
 * whose labels are nearest the wanted one by text (edit distance, so a
 * misspelt name finds the right control), and, when the target named an
 * index whose box disagreed with the label, the boxes nearest that box on
 * the page. Labelled boxes come first; an unlabelled one is named only
 * when nothing else is there. */
void agent__suggest(const perc_epoch *e, const agent_target *t, agent_step_record *r)
{
    if (!e || e->n <= 0)
        return;
    char w[256];
    fold(t->label, w, sizeof w);
    int n = e->n < 512 ? e->n : 512;
    double score[512];
    int pick[4], npick = 0;
    const perc_box *at = NULL;
    for (int i = 0; t->index > 0 && i < e->n; i++)
        if (e->boxes[i].id == t->index)
            at = &e->boxes[i];
    for (int i = 0; i < n; i++) {
        char h[256];
        fold(e->boxes[i].label, h, sizeof h);
        score[i] = h[0] ? 1.0 + name_similarity(w, h) : 0.0;
    }
    /* The nearest box to the indexed one (its neighbour on the page). */
    int near = -1;
    if (at) {
        base_point c0 = base_rect_center(at->r);
        double dbest = 1e30;
        for (int i = 0; i < n; i++) {
            base_point c = base_rect_center(e->boxes[i].r);
            double d = (c.x - c0.x) * (c.x - c0.x) + (c.y - c0.y) * (c.y - c0.y);
            if (&e->boxes[i] != at && score[i] > 0 && d < dbest) {
                dbest = d;
                near = i;
            }
        }
    }
    /* Up to three by name, then the neighbour, then by name again. */
    unsigned char taken[512] = {0};
    while (npick < 4) {
        int best = -1;
        if (npick == 3 && near >= 0 && !taken[near]) {
            best = near;
        } else {
            for (int i = 0; i < n; i++)
                if (!taken[i] && i != near && (best < 0 || score[i] > score[best]))
                    best = i;
        }
        /* Unlabelled boxes only when no labelled one was named. */
        if (best < 0 || (score[best] == 0 && npick > 0))
            break;
        taken[best] = 1;
        pick[npick++] = best;
    }
    if (near >= 0 && !taken[near] && npick < 4)
        pick[npick++] = near;
    for (int k = 0; k < npick && r->n_alternatives < 4; k++) {
        const perc_box *b = &e->boxes[pick[k]];
        base_point c = base_rect_center(b->r);
        snprintf(r->alternatives[r->n_alternatives++], sizeof r->alternatives[0],
                 "[V%d] '%.100s' at (%.0f,%.0f)", b->id, b->label, c.x, c.y);
    }
}

/* "[V3] Cancel order": a mark as overlays and the report name it. The
 * label keeps its case, loses runs of whitespace and is clipped to 40 bytes
 * on a UTF-8 character boundary. */
void agent__mark_name(const perc_box *b, char *out, size_t n)
{
    char l[48];
    size_t k = 0;
    int space = 0;
    const char *p = b->label;
    for (; *p && k < 40; p++) {
        if (isspace((unsigned char)*p)) {
            space = k > 0;
            continue;
        }
        if (space && k < 39)
            l[k++] = ' ';
        space = 0;
        l[k++] = *p;
    }
    if (((unsigned char)*p & 0xc0) == 0x80) {
        /* The clip cut a multi-byte character: drop its first bytes. */
        while (k > 0 && ((unsigned char)l[k - 1] & 0xc0) == 0x80)
            k--;
        if (k > 0 && ((unsigned char)l[k - 1] & 0xc0) == 0xc0)
            k--;
    }
    l[k] = '\0';
    if (l[0])
        snprintf(out, n, "[V%d] %s", b->id, l);
    else
        snprintf(out, n, "[V%d]", b->id);
}

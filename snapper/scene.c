/* snapper/scene.c: an offline model of document.elementsFromPoint.
 *
 * A snap_scene is a flat list of elements (rect, parent, paint order and the
 * computed hit-test properties) recorded from a page, e.g. by perception from
 * DOMSnapshot.captureSnapshot. snap_scene_hit answers a point the way the
 * browser does for the cases the snapper cares about: elements with
 * pointer-events:none or visibility:hidden are transparent to hits, an
 * element clipped by an ancestor's overflow misses outside the clip, nearer
 * paint order comes first, and an ancestor always follows its descendants.
 * opacity:0 elements stay hit-testable, as in browsers (a transparent native
 * checkbox over a styled one is the real target). snap_scene_probe builds the
 * same snap_probe a live probe would, so whole snaps replay offline.
 */
#include <string.h>

#include "base/alloc.h"
#include "snapper/snap_int.h"

#define SCENE_MAX 1048576

void snap_scene_init(snap_scene *s)
{
    memset(s, 0, sizeof *s);
}

void snap_scene_fini(snap_scene *s)
{
    if (!s)
        return;
    base_free(s->cand);
    base_free(s->node);
    memset(s, 0, sizeof *s);
}

base_err snap_scene_add(snap_scene *s, const snap_candidate *c, const snap_scene_node *node,
                        int *index)
{
    if (!s || !c || c->parent < -1 || c->parent >= s->n)
        return BASE_EINVAL;
    if (s->n >= SCENE_MAX)
        return BASE_ETOOBIG;
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        /* Grow both arrays before committing either, so failure leaves s as it was. */
        snap_candidate *nc = base_malloc((size_t)cap * sizeof *nc);
        snap_scene_node *nn = base_malloc((size_t)cap * sizeof *nn);
        if (!nc || !nn) {
            base_free(nc);
            base_free(nn);
            return BASE_ENOMEM;
        }
        if (s->n > 0) {
            memcpy(nc, s->cand, (size_t)s->n * sizeof *nc);
            memcpy(nn, s->node, (size_t)s->n * sizeof *nn);
        }
        base_free(s->cand);
        base_free(s->node);
        s->cand = nc;
        s->node = nn;
        s->cap = cap;
    }
    s->cand[s->n] = *c;
    if (node)
        s->node[s->n] = *node;
    else
        memset(&s->node[s->n], 0, sizeof s->node[s->n]);
    if (index)
        *index = s->n;
    s->n++;
    return BASE_OK;
}

static int hit_testable(const snap_scene *s, int i, base_point p)
{
    const snap_scene_node *nd = &s->node[i];
    if (nd->pointer_events_none || nd->visibility_hidden)
        return 0;
    if (!base_rect_contains(s->cand[i].rect, p))
        return 0;
    return !nd->has_clip || base_rect_contains(nd->clip, p);
}

base_err snap_scene_hit(const snap_scene *s, base_point p, int *out, int max, int *n_out)
{
    if (!s || !n_out || max < 0 || (max > 0 && !out))
        return BASE_EINVAL;
    int m = 0;
    for (int i = 0; i < s->n; i++)
        m += hit_testable(s, i, p);
    int *list = NULL;
    if (m > 0) {
        list = base_malloc((size_t)m * sizeof *list);
        if (!list)
            return BASE_ENOMEM;
    }
    /* Insertion sort, nearest first: larger paint order, then later in the
     * list (document order) on ties. Scenes per point are small. */
    int k = 0;
    for (int i = 0; i < s->n; i++) {
        if (!hit_testable(s, i, p))
            continue;
        int j = k++;
        while (j > 0 && s->cand[list[j - 1]].paint_order <= s->cand[i].paint_order) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = i;
    }
    /* Ancestors after all their hit descendants, whatever the paint orders
     * say: a topological order of the ancestor relation that, among the
     * elements free to go next, always takes the nearest by paint order. */
    /* blockers[j]: hit descendants of list[j] not placed yet. O(m^2)
     * ancestor tests once, then each placement releases its ancestors. */
    int *order = NULL, *blockers = NULL;
    char *placed = NULL;
    if (m > 0) {
        order = base_malloc((size_t)m * sizeof *order);
        blockers = base_calloc((size_t)m, sizeof *blockers);
        placed = base_calloc((size_t)m, 1);
        if (!order || !blockers || !placed) {
            base_free(order);
            base_free(blockers);
            base_free(placed);
            base_free(list);
            return BASE_ENOMEM;
        }
    }
    for (int j = 0; j < m; j++) {
        for (int u = 0; u < m; u++)
            blockers[j] += u != j && snap_is_ancestor(s->cand, s->n, list[j], list[u]);
    }
    for (int o = 0; o < m; o++) {
        int pick = -1;
        for (int j = 0; j < m && pick < 0; j++) {
            if (!placed[j] && blockers[j] == 0)
                pick = j;
        }
        /* The relation is acyclic (parents precede children), so some element
         * is always free; a cyclic xpath oddity falls back to paint order. */
        if (pick < 0) {
            for (pick = 0; placed[pick]; pick++)
                ;
        }
        placed[pick] = 1;
        order[o] = list[pick];
        for (int a = 0; a < m; a++) {
            if (!placed[a] && blockers[a] > 0 && snap_is_ancestor(s->cand, s->n, list[a], list[pick]))
                blockers[a]--;
        }
    }
    base_free(blockers);
    base_free(placed);
    base_free(list);
    list = order;
    int w = m < max ? m : max;
    if (w > 0)
        memcpy(out, list, (size_t)w * sizeof *out);
    *n_out = w;
    base_free(list);
    return BASE_OK;
}

base_err snap_scene_probe(const snap_scene *s, base_rect box, snap_probe *probe)
{
    if (!s || !probe)
        return BASE_EINVAL;
    snap_probe *tmp = base_malloc(sizeof *tmp);
    int *order = s->n > 0 ? base_malloc((size_t)s->n * sizeof *order) : NULL;
    if (!tmp || (s->n > 0 && !order)) {
        base_free(tmp);
        base_free(order);
        return BASE_ENOMEM;
    }
    snap_probe_init(tmp, box);
    /* Candidate points: hit-testable interactive elements overlapping the
     * box, smallest overlap first (the lattice already sees large ones). */
    int m = 0;
    for (int i = 0; i < s->n; i++) {
        const snap_candidate *c = &s->cand[i];
        const snap_scene_node *nd = &s->node[i];
        if (!snap__clickable(c) || nd->pointer_events_none || nd->visibility_hidden)
            continue;
        base_rect v = base_rect_intersect(c->rect, box);
        if (nd->has_clip)
            v = base_rect_intersect(v, nd->clip);
        if (base_rect_empty(v))
            continue;
        float a = base_rect_area(base_rect_intersect(c->rect, box));
        int j = m++;
        while (j > 0 && base_rect_area(base_rect_intersect(s->cand[order[j - 1]].rect, box)) > a) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (int j = 0; j < m; j++) {
        base_rect v = s->cand[order[j]].rect;
        if (s->node[order[j]].has_clip)
            v = base_rect_intersect(v, s->node[order[j]].clip);
        if (snap_probe_add_point(tmp, order[j], v) < 0)
            break;
    }
    base_free(order);
    for (int k = 0; k < tmp->n_points; k++) {
        base_err e = snap_scene_hit(s, tmp->pt[k], tmp->stack[k], SNAP_PROBE_DEPTH, &tmp->n[k]);
        if (e != BASE_OK) {
            base_free(tmp);
            return e;
        }
        /* As the live probe does (assets/js/snap_probe.js): a click there
         * reaches the top hit and its ancestors only, so what lies under a
         * layer that takes the click is not listed (issue 10, item 7). */
        int kept = tmp->n[k] > 0 ? 1 : 0;
        for (int d = 1; d < tmp->n[k]; d++) {
            if (snap_is_ancestor(s->cand, s->n, tmp->stack[k][d], tmp->stack[k][0]))
                tmp->stack[k][kept++] = tmp->stack[k][d];
        }
        tmp->n[k] = kept;
    }
    *probe = *tmp;
    base_free(tmp);
    return BASE_OK;
}

/* perception/enrich.c: DOM enrichment of vision boxes (seed 002 §4.3).
 *
 * A vision model sees pixels; the bridge knows the DOM. One evaluate of
 * assets/js/enrich.js lists the page's visible interactive elements (the
 * selector map a procedural click uses later) and, for every box, finds the
 * element it most likely means and reads what the pixels cannot show:
 * aria-expanded, the checked/pressed/selected state, the aria-labelledby
 * text and the control that expands the element's container. A box that
 * holds a chip and its chevron is split here into two boxes, so the agent can
 * address either one.
 *
 * The probe (enrich_frames.c) answers in selector-map indices; this file
 * turns them into box indices after splitting and renumbers the boxes 1..n
 * (the [Vn] ids of the epoch). The top document's script matches boxes to its
 * own elements; a box that lies over a cross-origin iframe is matched here,
 * with the same rules, against the elements the probe found in that frame.
 */
#include "perception/enrich_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/num.h"

#define ENRICH_MAX_ITEMS 20000

/* Rect from a JSON [x0, y0, x1, y1, dom] array; -1 when malformed. */
static int part_rect(const cJSON *a, base_rect *r, int *dom)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 5)
        return -1;
    double v[5];
    for (int i = 0; i < 5; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return -1;
        v[i] = x->valuedouble;
    }
    *r = (base_rect){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    if (base_num_to_int(v[4], -1, ENRICH_MAX_ITEMS, dom) != BASE_OK)
        *dom = -1;
    return base_rect_empty(*r) ? -1 : 0;
}

/* Fills b's DOM fields from the state of item dom; returns the item index
 * of its expand control (-1 none). */
static int apply_state(perc_box *b, int dom, const perc__probe *p)
{
    b->dom_index = dom >= 0 && dom < p->n ? dom : -1;
    b->expanded = -1;
    b->active = -1;
    b->labelledby[0] = '\0';
    b->expand_control = -1;
    if (b->dom_index < 0)
        return -1;
    const perc__item *it = &p->items[dom];
    b->expanded = it->expanded;
    b->active = it->active;
    snprintf(b->labelledby, sizeof b->labelledby, "%s", it->labelledby);
    return it->ctl;
}

base_err perc_vision_enrich(cdp_page *page, perc_detection *d, perc_selector **map, int *n_map,
                            char *err)
{
    if (!page || !d || !map || !n_map || d->n < 0 || (d->n > 0 && !d->boxes))
        return base_errf(err, BASE_EINVAL, "enrich: bad arguments");
    if (d->map) { /* the provider read the DOM itself (dom): already enriched */
        *map = d->map;
        *n_map = d->n_map;
        d->map = NULL;
        d->n_map = 0;
        return BASE_OK;
    }
    perc__probe p;
    base_err e = perc__probe_run(page, d->boxes, d->n, 1, &p, err);
    if (e)
        return e;
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p.top, "boxes")) != d->n) {
        perc__probe_fini(&p);
        return base_errf(err, BASE_EPROTO, "enrich: probe reply has the wrong number of boxes");
    }
    /* At most two boxes per input box. */
    perc_selector *sel = base_calloc(p.n > 0 ? (size_t)p.n : 1, sizeof *sel);
    perc_box *nb = base_calloc(d->n > 0 ? 2 * (size_t)d->n : 1, sizeof *nb);
    int *ctl = base_calloc(d->n > 0 ? 2 * (size_t)d->n : 1, sizeof *ctl);
    if (!sel || !nb || !ctl) {
        base_free(sel);
        base_free(nb);
        base_free(ctl);
        perc__probe_fini(&p);
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    }
    for (int i = 0; i < p.n; i++)
        sel[i] = p.items[i].sel;
    const cJSON *jb = cJSON_GetObjectItemCaseSensitive(p.top, "boxes");
    int k = 0;
    for (int i = 0; i < d->n; i++) {
        const cJSON *o = cJSON_GetArrayItem(jb, i);
        perc_box b = d->boxes[i];
        int dom = perc__json_int(o, "dom", -1, -1, ENRICH_MAX_ITEMS);
        const cJSON *split = cJSON_GetObjectItemCaseSensitive(o, "split");
        base_rect rc, rv;
        int dc, dv;
        if (cJSON_IsObject(split) &&
            part_rect(cJSON_GetObjectItemCaseSensitive(split, "chip"), &rc, &dc) == 0 &&
            part_rect(cJSON_GetObjectItemCaseSensitive(split, "chev"), &rv, &dv) == 0) {
            perc_box chev = b;
            b.r = rc;
            chev.r = rv;
            snprintf(chev.kind, sizeof chev.kind, "chevron");
            if (dv >= 0 && dv < p.n && dv != dc && sel[dv].label[0])
                snprintf(chev.label, sizeof chev.label, "%s", sel[dv].label);
            else
                snprintf(chev.label, sizeof chev.label, "expand %.100s", b.label);
            ctl[k] = apply_state(&b, dc, &p);
            nb[k++] = b;
            ctl[k] = apply_state(&chev, dv, &p);
            nb[k++] = chev;
        } else {
            /* The top script knows only the top pass's elements (the first
             * n_top items); the same rules over all items pick a frame's. */
            int any = perc__probe_nearest(&p, b.r);
            if (any >= p.n_top)
                dom = any;
            ctl[k] = apply_state(&b, dom, &p);
            nb[k++] = b;
        }
    }
    /* Item indices of expand controls -> box indices (a chevron box first). */
    for (int i = 0; i < k; i++) {
        nb[i].id = i + 1;
        if (ctl[i] < 0)
            continue;
        for (int j = 0; j < k; j++) {
            if (j != i && nb[j].dom_index == ctl[i] &&
                (nb[i].expand_control < 0 || strcmp(nb[j].kind, "chevron") == 0))
                nb[i].expand_control = j;
        }
    }
    base_free(ctl);
    *n_map = p.n;
    perc__probe_fini(&p);
    base_free(d->boxes);
    d->boxes = nb;
    d->n = k;
    *map = sel;
    return BASE_OK;
}

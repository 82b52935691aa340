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
 * The JS answers in map indices; this file turns them into box indices after
 * splitting, renumbers the boxes 1..n (the [Vn] ids of the epoch) and
 * resolves the JS frame indices to CDP frame ids through the page's frame
 * tree (same parent, same URL, same rank among equal URLs).
 */
#include "perception/enrich_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "perception/js.h"

#define ENRICH_TIMEOUT_MS 15000
#define ENRICH_MAX_FRAMES 128
#define ENRICH_MAX_ITEMS 20000

static int finite_rect(base_rect r)
{
    return isfinite(r.x0) && isfinite(r.y0) && isfinite(r.x1) && isfinite(r.y1);
}

base_err perc__enrich_eval(cdp_page *page, const perc_box *boxes, int n, cJSON **root, char *err)
{
    if (!page || !root || (boxes == NULL && n > 0) || n < 0)
        return base_errf(err, BASE_EINVAL, "enrich: bad arguments");
    char *arg = NULL;
    if (boxes) {
        cJSON *arr = cJSON_CreateArray();
        if (!arr)
            return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
        for (int i = 0; i < n; i++) {
            if (!finite_rect(boxes[i].r)) {
                cJSON_Delete(arr);
                return base_errf(err, BASE_EINVAL, "enrich: box %d has a non-finite coordinate",
                                 i);
            }
            float v[4] = {boxes[i].r.x0, boxes[i].r.y0, boxes[i].r.x1, boxes[i].r.y1};
            cJSON *b = cJSON_CreateFloatArray(v, 4);
            if (!b || !cJSON_AddItemToArray(arr, b)) {
                cJSON_Delete(b);
                cJSON_Delete(arr);
                return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
            }
        }
        arg = cJSON_PrintUnformatted(arr);
        cJSON_Delete(arr);
    } else {
        arg = base_strdup("null");
    }
    if (!arg)
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    size_t len = fovea_js_enrich_len + strlen(arg) + 4;
    char *expr = base_malloc(len);
    if (!expr) {
        cJSON_free(arg);
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    }
    snprintf(expr, len, "%s(%s)", (const char *)fovea_js_enrich, arg);
    if (boxes)
        cJSON_free(arg);
    else
        base_free(arg);
    cJSON *v = NULL;
    base_err e = cdp_page_evaluate(page, expr, &v, ENRICH_TIMEOUT_MS, err);
    base_free(expr);
    if (e)
        return e;
    cJSON *r = cJSON_IsString(v) ? cJSON_Parse(v->valuestring) : NULL;
    cJSON_Delete(v);
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "map")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "frames")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "boxes"))) {
        cJSON_Delete(r);
        return base_errf(err, BASE_EPROTO, "enrich: probe reply is not {map, frames, boxes}");
    }
    int nm = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "map"));
    int nb = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "boxes"));
    if (nm > ENRICH_MAX_ITEMS || (boxes && nb != n)) {
        cJSON_Delete(r);
        return base_errf(err, BASE_EPROTO, "enrich: probe reply has %d map entries, %d boxes", nm,
                         nb);
    }
    *root = r;
    return BASE_OK;
}

static double num(const cJSON *o, const char *k, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

/* An integer field in [lo, hi], else dflt (no out-of-range casts). */
static int inum(const cJSON *o, const char *k, int dflt, int lo, int hi)
{
    double v = num(o, k, dflt);
    return v >= lo && v <= hi ? (int)v : dflt;
}

static const char *str(const cJSON *o, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return s ? s : "";
}

/* Resolves the JS frame list to CDP frame ids (ids[i], "" when unknown). */
static void resolve_frames(cdp_page *page, const cJSON *frames, char (*ids)[64], int nf)
{
    cdp_frame *fr = base_calloc(ENRICH_MAX_FRAMES, sizeof *fr);
    int n = fr ? cdp_page_frames(page, fr, ENRICH_MAX_FRAMES) : 0;
    if (n > ENRICH_MAX_FRAMES)
        n = ENRICH_MAX_FRAMES;
    const char *main_id = "";
    for (int i = 0; i < n; i++) {
        if (!fr[i].parent_id[0]) {
            main_id = fr[i].id;
            break;
        }
    }
    for (int j = 0; j < nf; j++) {
        const cJSON *f = cJSON_GetArrayItem(frames, j);
        int parent = inum(f, "parent", -1, -1, ENRICH_MAX_FRAMES);
        int k = inum(f, "k", 0, 0, ENRICH_MAX_FRAMES);
        const char *url = str(f, "url");
        const char *pid = parent >= 0 && parent < j ? ids[parent] : main_id;
        ids[j][0] = '\0';
        if (!pid[0])
            continue;
        for (int i = 0; i < n; i++) {
            /* cdp_frame.url may be truncated: compare the stored prefix. */
            size_t ul = strlen(fr[i].url);
            if (strcmp(fr[i].parent_id, pid) == 0 && ul > 0 && strncmp(fr[i].url, url, ul) == 0 &&
                k-- == 0) {
                snprintf(ids[j], 64, "%s", fr[i].id);
                break;
            }
        }
    }
    base_free(fr);
}

base_err perc__enrich_map(cdp_page *page, const cJSON *root, perc_selector **out, int *n,
                          char *err)
{
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "map");
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(root, "frames");
    int nm = cJSON_GetArraySize(map);
    int nf = cJSON_GetArraySize(frames);
    if (nf > ENRICH_MAX_FRAMES)
        nf = ENRICH_MAX_FRAMES;
    perc_selector *sel = base_calloc(nm > 0 ? (size_t)nm : 1, sizeof *sel);
    char(*ids)[64] = base_calloc(nf > 0 ? (size_t)nf : 1, 64);
    if (!sel || !ids) {
        base_free(sel);
        base_free(ids);
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    }
    if (nf > 0)
        resolve_frames(page, frames, ids, nf);
    int i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, map)
    {
        if (!cJSON_IsObject(m)) {
            base_free(sel);
            base_free(ids);
            return base_errf(err, BASE_EPROTO, "enrich: map[%d] is not an object", i);
        }
        perc_selector *s = &sel[i];
        s->r.x0 = (float)num(m, "x0", 0);
        s->r.y0 = (float)num(m, "y0", 0);
        s->r.x1 = (float)num(m, "x1", 0);
        s->r.y1 = (float)num(m, "y1", 0);
        snprintf(s->xpath, sizeof s->xpath, "%s", str(m, "xpath"));
        snprintf(s->label, sizeof s->label, "%s", str(m, "label"));
        int f = inum(m, "frame", -1, -1, ENRICH_MAX_FRAMES);
        if (f >= 0)
            snprintf(s->frame_id, sizeof s->frame_id, "%s", f < nf && ids[f][0] ? ids[f] : "?");
        i++;
    }
    base_free(ids);
    *out = sel;
    *n = nm;
    return BASE_OK;
}

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
    *dom = v[4] >= -1 && v[4] <= ENRICH_MAX_ITEMS ? (int)v[4] : -1;
    return base_rect_empty(*r) ? -1 : 0;
}

/* Fills b's DOM fields from the state of map entry dom; returns the map
 * index of its expand control (-1 none). */
static int apply_state(perc_box *b, int dom, int nsel, const cJSON *states)
{
    b->dom_index = dom >= 0 && dom < nsel ? dom : -1;
    b->expanded = -1;
    b->active = -1;
    b->labelledby[0] = '\0';
    b->expand_control = -1;
    if (b->dom_index < 0)
        return -1;
    char key[16];
    snprintf(key, sizeof key, "%d", dom);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(states, key);
    if (!cJSON_IsObject(st))
        return -1;
    b->expanded = inum(st, "expanded", -1, -1, 1);
    b->active = inum(st, "active", -1, -1, 1);
    snprintf(b->labelledby, sizeof b->labelledby, "%s", str(st, "labelledby"));
    int c = inum(st, "ctl", -1, -1, ENRICH_MAX_ITEMS);
    return c >= 0 && c < nsel ? c : -1;
}

base_err perc_vision_enrich(cdp_page *page, perc_detection *d, perc_selector **map, int *n_map,
                            char *err)
{
    if (!page || !d || !map || !n_map || d->n < 0 || (d->n > 0 && !d->boxes))
        return base_errf(err, BASE_EINVAL, "enrich: bad arguments");
    cJSON *root = NULL;
    base_err e = perc__enrich_eval(page, d->boxes ? d->boxes : NULL, d->n, &root, err);
    if (e)
        return e;
    perc_selector *sel = NULL;
    int nsel = 0;
    e = perc__enrich_map(page, root, &sel, &nsel, err);
    if (e) {
        cJSON_Delete(root);
        return e;
    }
    /* At most two boxes per input box. */
    perc_box *nb = base_calloc(d->n > 0 ? 2 * (size_t)d->n : 1, sizeof *nb);
    int *ctl = base_calloc(d->n > 0 ? 2 * (size_t)d->n : 1, sizeof *ctl);
    if (!nb || !ctl) {
        base_free(nb);
        base_free(ctl);
        base_free(sel);
        cJSON_Delete(root);
        return base_errf(err, BASE_ENOMEM, "enrich: out of memory");
    }
    const cJSON *jb = cJSON_GetObjectItemCaseSensitive(root, "boxes");
    const cJSON *states = cJSON_GetObjectItemCaseSensitive(root, "states");
    int k = 0;
    for (int i = 0; i < d->n; i++) {
        const cJSON *o = cJSON_GetArrayItem(jb, i);
        perc_box b = d->boxes[i];
        int dom = inum(o, "dom", -1, -1, ENRICH_MAX_ITEMS);
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
            if (dv >= 0 && dv < nsel && dv != dc && sel[dv].label[0])
                snprintf(chev.label, sizeof chev.label, "%s", sel[dv].label);
            else
                snprintf(chev.label, sizeof chev.label, "expand %.100s", b.label);
            ctl[k] = apply_state(&b, dc, nsel, states);
            nb[k++] = b;
            ctl[k] = apply_state(&chev, dv, nsel, states);
            nb[k++] = chev;
        } else {
            ctl[k] = apply_state(&b, dom, nsel, states);
            nb[k++] = b;
        }
    }
    /* Map indices of expand controls -> box indices (a chevron box first). */
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
    cJSON_Delete(root);
    base_free(d->boxes);
    d->boxes = nb;
    d->n = k;
    *map = sel;
    *n_map = nsel;
    return BASE_OK;
}

/* perception/pixel_vision.c: the `pixel` vision provider.
 *
 * Boxes come from the screenshot alone (perc_pixel_detect) and their labels
 * from Tesseract (perc_ocr_read) on the text inside each box; device pixels
 * are divided by the shot's scale into top-viewport CSS px. Nothing here
 * reads the DOM to find a box, so canvas-drawn controls are seen like any
 * other, and the snapper gets the noisy boxes a model would give.
 *
 * With a live page, detect then runs the same DOM enrichment every provider
 * gets (perc_vision_enrich) and hands the selector map over in the
 * detection, as the dom provider does. Doing it here lets one thing happen
 * that the generic step cannot: a box whose text OCR could not read (an icon
 * button, a date cell showing "14") takes the accessible name of the element
 * it was matched to when that name is empty-for-OCR or carries the OCR words
 * (config dom_names), so a task can name the control as the page does. A
 * label OCR read and the DOM contradicts is kept.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "perception/pixel.h"
#include "snapper/snap.h"

typedef struct pixel_prov {
    perc_vision v;
    perc_pixel_config c;
    perc_ocr *ocr; /* NULL when c.ocr == 0 */
} pixel_prov;

void perc_pixel_config_init(perc_pixel_config *c)
{
    memset(c, 0, sizeof *c);
    c->threads = 2;
    c->ocr = 1;
    c->dom_names = 1;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

/* Fills empty or partial OCR labels from the matched element's name. */
static void take_dom_names(perc_detection *d, const perc_selector *map, int n_map)
{
    for (int i = 0; i < d->n; i++) {
        perc_box *b = &d->boxes[i];
        if (b->dom_index < 0 || b->dom_index >= n_map || !map[b->dom_index].label[0])
            continue;
        const char *name = map[b->dom_index].label;
        if (b->label[0]) {
            snap_match k = snap_match_kind(name, b->label);
            if (k < SNAP_MATCH_WORD || strlen(name) <= strlen(b->label))
                continue;
        }
        snprintf(b->label, sizeof b->label, "%s", name);
    }
}

static base_err pixel_detect(perc_vision *v, cdp_page *page, const perc_image *shot,
                             const perc_vision_ctx *ctx, perc_detection *out, char *err)
{
    (void)ctx;
    pixel_prov *p = v->self;
    if (!shot || !shot->px || shot->w < 1 || shot->h < 1)
        return base_errf(err, BASE_EINVAL, "vision pixel: needs the screenshot");
    perc_pixel_opts po;
    perc_pixel_opts_init(&po);
    po.threads = p->c.threads;
    perc_pixel_elem *el = NULL;
    int n = 0;
    base_err e = perc_pixel_detect(shot, &po, &el, &n, err);
    if (e)
        return e;
    perc_box *boxes = base_calloc(n > 0 ? (size_t)n : 1, sizeof *boxes);
    perc_ocr_item *items = base_calloc(n > 0 ? (size_t)n : 1, sizeof *items);
    int *item_of = base_malloc((n > 0 ? (size_t)n : 1) * sizeof *item_of);
    if (!boxes || !items || !item_of) {
        base_free(el);
        base_free(boxes);
        base_free(items);
        base_free(item_of);
        return base_errf(err, BASE_ENOMEM, "vision pixel: out of memory");
    }
    float s = shot->scale > 0 ? shot->scale : 1.0f;
    int ni = 0;
    for (int i = 0; i < n; i++) {
        const perc_pixel_elem *x = &el[i];
        perc_box *b = &boxes[i];
        b->r = (base_rect){(float)x->x0 / s, (float)x->y0 / s, (float)x->x1 / s, (float)x->y1 / s};
        b->id = i + 1;
        snprintf(b->kind, sizeof b->kind, "%s", perc_pixel_class_name(x->cls));
        b->confidence = x->confidence;
        b->intent_relevant = -1;
        b->dom_index = -1;
        b->expanded = -1;
        b->active = -1;
        b->expand_control = -1;
        item_of[i] = -1;
        if (p->ocr && x->tx1 > x->tx0) {
            /* The text plus a small margin, kept inside the element. */
            int m = (int)(3 * s);
            items[ni] = (perc_ocr_item){imax(x->x0, x->tx0 - m), imax(x->y0, x->ty0 - m),
                                        imin(x->x1, x->tx1 + m), imin(x->y1, x->ty1 + m), "", 0};
            item_of[i] = ni++;
        }
    }
    base_free(el);
    if (ni > 0 && (e = perc_ocr_read(p->ocr, shot, items, ni, err))) {
        base_free(boxes);
        base_free(items);
        base_free(item_of);
        return e;
    }
    for (int i = 0; i < n; i++)
        if (item_of[i] >= 0)
            snprintf(boxes[i].label, sizeof boxes[i].label, "%s", items[item_of[i]].text);
    base_free(items);
    base_free(item_of);
    out->boxes = boxes;
    out->n = n;
    out->calls = 0;
    snprintf(out->model, sizeof out->model, "pixel");
    if (!page)
        return BASE_OK;
    perc_selector *map = NULL;
    int n_map = 0;
    if ((e = perc_vision_enrich(page, out, &map, &n_map, err))) {
        base_free(out->boxes);
        out->boxes = NULL;
        out->n = 0;
        return e;
    }
    if (p->c.dom_names)
        take_dom_names(out, map, n_map);
    out->map = map;
    out->n_map = n_map;
    return BASE_OK;
}

static void pixel_destroy(perc_vision *v)
{
    pixel_prov *p = v->self;
    perc_ocr_destroy(p->ocr);
    base_free(p);
}

static const perc_vision_ops pixel_ops = {"pixel", pixel_detect, pixel_destroy, 1, NULL};

base_err perc_vision_pixel_create(const perc_pixel_config *c, perc_vision **out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "vision pixel: NULL out");
    pixel_prov *p = base_calloc(1, sizeof *p);
    if (!p)
        return base_errf(err, BASE_ENOMEM, "vision pixel: out of memory");
    if (c)
        p->c = *c;
    else
        perc_pixel_config_init(&p->c);
    if (p->c.threads < 1)
        p->c.threads = 2;
    if (p->c.ocr) {
        base_err e = perc_ocr_create(p->c.threads, &p->ocr, err);
        if (e) {
            base_free(p);
            return e;
        }
    }
    p->v.ops = &pixel_ops;
    p->v.self = p;
    *out = &p->v;
    return BASE_OK;
}

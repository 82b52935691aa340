/* perception/pixel_vision.c: the `pixel` vision provider.
 *
 * Boxes come from the screenshot alone (perc_pixel_detect) and their labels
 * from Tesseract (perc_ocr_read) on the text inside each box; device pixels
 * are divided by the shot's scale into top-viewport CSS px. Nothing here
 * reads the DOM to find or to name a box, so canvas-drawn controls are seen
 * like any other, and the snapper gets the noisy boxes and labels a model
 * would give.
 *
 * With a live page, detect then runs the same DOM enrichment every provider
 * gets (perc_vision_enrich) and hands the selector map over in the
 * detection, as the dom provider does. Doing it here lets the provider drop
 * text and icon guesses that are no interactive element's own (page text,
 * not controls). The label stays what OCR read: an icon button's label is
 * empty, a date cell's "14". Only the opt-in `pixel-dom` variant (config
 * dom_names) lets a box take the accessible name of the element it lies on.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "perception/pixel.h"
#include "perception/pixel_int.h"

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
    c->dom_names = 0;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

/* After enrichment: a box whose centre lies on its matched element is that
 * element's own when the element is not many times larger, or when few boxes
 * share it (a list row read as two phrases, a card with a title and a price);
 * weak boxes on one line of the same own element merge into one box (the
 * row is one control).
 * With names, it takes the element's accessible name (the pixel-dom variant);
 * otherwise the label stays for OCR. A weak guess (text, coloured text, a
 * lone icon) that is no element's own is page text and is dropped, unless it
 * lies on an unnamed element (a canvas: the DOM cannot say what is painted
 * there). Boxes are renumbered 1..n. */
static base_err apply_dom(perc_detection *d, const perc_selector *map, int n_map, int names)
{
    int *to = base_malloc((d->n > 0 ? (size_t)d->n : 1) * sizeof *to);
    int *share = base_calloc(n_map > 0 ? (size_t)n_map : 1, sizeof *share);
    if (!to || !share) {
        base_free(to);
        base_free(share);
        return BASE_ENOMEM;
    }
    /* How many boxes lie on each element (centre inside it). */
    for (int i = 0; i < d->n; i++) {
        int di = d->boxes[i].dom_index;
        if (di >= 0 && di < n_map && base_rect_contains(map[di].r, base_rect_center(d->boxes[i].r)))
            share[di]++;
    }
    int k = 0;
    for (int i = 0; i < d->n; i++) {
        perc_box b = d->boxes[i];
        base_point c = base_rect_center(b.r);
        const perc_selector *el = b.dom_index >= 0 && b.dom_index < n_map ? &map[b.dom_index] : NULL;
        /* The element is this box's own when the box's centre is on it and
         * it is not many times larger (a page-wide clickable wrapper holds
         * every box but is none of them). */
        int on = el && base_rect_contains(el->r, c);
        float ratio = base_rect_area(el ? el->r : b.r) / (base_rect_area(b.r) + 1e-3f);
        int own = on && (ratio <= 9 || (share[b.dom_index] <= 3 && ratio <= 40));
        /* An unnamed element (a canvas, a bare svg) is opaque to the DOM:
         * what is painted inside is all there is to go by. */
        int opaque = on && !el->label[0];
        int weak = strcmp(b.kind, "text") == 0 || strcmp(b.kind, "icon") == 0 ||
                   strcmp(b.kind, "link") == 0;
        /* An outline with nothing inside (the detector's 0.5) that no
         * element is near is a picture's frame or a swatch. */
        int empty_frame = !el && b.confidence <= 0.5f && strcmp(b.kind, "button") == 0;
        to[i] = -1;
        if ((weak && !own && !opaque) || empty_frame)
            continue;
        /* Phrases on one line of the same element are one control: a list
         * row ("Lisbon, Portugal" ... "LIS"), a menu item and its shortcut.
         * The first box of the line grows over the others. */
        int into = -1;
        for (int j = 0; weak && own && j < k && into < 0; j++) {
            const perc_box *a = &d->boxes[j];
            int a_weak = strcmp(a->kind, "text") == 0 || strcmp(a->kind, "icon") == 0 ||
                         strcmp(a->kind, "link") == 0;
            float ov = base_rect_h(base_rect_intersect(
                (base_rect){0, a->r.y0, 1, a->r.y1}, (base_rect){0, b.r.y0, 1, b.r.y1}));
            float hmin = fminf(base_rect_h(a->r), base_rect_h(b.r));
            if (a_weak && a->dom_index == b.dom_index && 2 * ov >= hmin)
                into = j;
        }
        if (into >= 0) {
            perc_box *a = &d->boxes[into];
            a->r = base_rect_union(a->r, b.r);
            if (strcmp(a->kind, "icon") == 0)
                snprintf(a->kind, sizeof a->kind, "%s", b.kind);
            to[i] = into;
            continue;
        }
        /* Enrichment named a split-off chevron after the box's label, which
         * had none yet: name it after the element it opens. */
        if (strcmp(b.kind, "chevron") == 0) {
            if (on && names && el->label[0] && strcmp(b.label, "expand ") == 0)
                snprintf(b.label, sizeof b.label, "expand %.100s", el->label);
        } else if (own && names && el->label[0]) {
            snprintf(b.label, sizeof b.label, "%s", el->label);
        }
        to[i] = k;
        d->boxes[k++] = b;
    }
    /* expand_control indexes boxes: follow the moves, or drop the link. */
    for (int i = 0; i < k; i++) {
        perc_box *b = &d->boxes[i];
        b->id = i + 1;
        if (b->expand_control >= 0)
            b->expand_control = b->expand_control < d->n ? to[b->expand_control] : -1;
    }
    d->n = k;
    base_free(to);
    base_free(share);
    return BASE_OK;
}

/* The detector element box b came from (same rect), or -1 when enrichment
 * split it off. */
static int elem_of(const perc_box *b, const perc_pixel_elem *el, int n, float s)
{
    int bx0 = (int)(b->r.x0 * s + 0.5f), by0 = (int)(b->r.y0 * s + 0.5f);
    int bx1 = (int)(b->r.x1 * s + 0.5f), by1 = (int)(b->r.y1 * s + 0.5f);
    for (int i = 0; i < n; i++) {
        const perc_pixel_elem *x = &el[i];
        if (x->x0 == bx0 && x->y0 == by0 && x->x1 == bx1 && x->y1 == by1)
            return i;
    }
    return -1;
}

/* The OCR crop of element x's text plus a small margin; 0 when it holds
 * none. */
static int text_crop(const perc_pixel_elem *x, float s, perc_ocr_item *it)
{
    if (x->tx1 <= x->tx0)
        return 0;
    int m = (int)(3 * s);
    *it = (perc_ocr_item){imax(x->x0, x->tx0 - m), imax(x->y0, x->ty0 - m),
                          imin(x->x1, x->tx1 + m), imin(x->y1, x->ty1 + m), "", 0};
    return 1;
}

/* The OCR crop for box b: the text of the element it came from plus a small
 * margin, or the box itself when enrichment split it. 0 when there is
 * nothing to read. */
static int crop_of(const perc_box *b, const perc_pixel_elem *el, int n, float s, perc_ocr_item *it)
{
    int i = elem_of(b, el, n, s);
    if (i >= 0)
        return text_crop(&el[i], s, it);
    int bx0 = (int)(b->r.x0 * s + 0.5f), by0 = (int)(b->r.y0 * s + 0.5f);
    int bx1 = (int)(b->r.x1 * s + 0.5f), by1 = (int)(b->r.y1 * s + 0.5f);
    *it = (perc_ocr_item){bx0 + 2, by0 + 2, bx1 - 2, by1 - 2, "", 0};
    return bx1 - bx0 > 6 && by1 - by0 > 6;
}

/* OCR for every box still without a label (all of them unless pixel-dom
 * named some). A field or checkbox also reads
 * the text line that labels it from outside (perc__pixel_label_of), as a
 * person does: that line becomes its label, and what the box itself shows
 * (a placeholder, a value) is kept after it in parentheses. */
static base_err read_labels(pixel_prov *p, const img_image *shot, perc_detection *d,
                            const perc_pixel_elem *el, int n, char *err)
{
    if (!p->ocr || d->n == 0)
        return BASE_OK;
    float s = shot->scale > 0 ? shot->scale : 1.0f;
    perc_ocr_item *items = base_calloc(2 * (size_t)d->n, sizeof *items);
    int *label_item = base_malloc((size_t)d->n * sizeof *label_item);
    int *own_item = base_malloc((size_t)d->n * sizeof *own_item);
    if (!items || !label_item || !own_item) {
        base_free(items);
        base_free(label_item);
        base_free(own_item);
        return base_errf(err, BASE_ENOMEM, "vision pixel: out of memory");
    }
    int ni = 0;
    for (int i = 0; i < d->n; i++) {
        label_item[i] = own_item[i] = -1;
        if (d->boxes[i].label[0])
            continue;
        if (crop_of(&d->boxes[i], el, n, s, &items[ni]))
            own_item[i] = ni++;
        int fi = elem_of(&d->boxes[i], el, n, s);
        int li = fi >= 0 ? perc__pixel_label_of(el, n, fi) : -1;
        if (li >= 0 && text_crop(&el[li], s, &items[ni]))
            label_item[i] = ni++;
    }
    base_err e = ni > 0 ? perc_ocr_read(p->ocr, shot, items, ni, err) : BASE_OK;
    for (int i = 0; !e && i < d->n; i++) {
        perc_box *b = &d->boxes[i];
        const char *own = own_item[i] >= 0 ? items[own_item[i]].text : "";
        const char *lab = label_item[i] >= 0 ? items[label_item[i]].text : "";
        if (label_item[i] < 0 && own_item[i] < 0)
            continue;
        if (lab[0] && own[0] && strcmp(lab, own) != 0)
            snprintf(b->label, sizeof b->label, "%.60s (%.60s)", lab, own);
        else
            snprintf(b->label, sizeof b->label, "%s", lab[0] ? lab : own);
    }
    base_free(items);
    base_free(label_item);
    base_free(own_item);
    return e;
}

static base_err pixel_detect(perc_vision *v, cdp_page *page, const img_image *shot,
                             const perc_vision_ctx *ctx, perc_detection *out, char *err)
{
    (void)ctx;
    pixel_prov *p = v->self;
    if (!shot || !shot->px || shot->w < 1 || shot->h < 1)
        return base_errf(err, BASE_EINVAL, "vision pixel: needs the screenshot");
    perc_pixel_opts po;
    perc_pixel_opts_init(&po); /* kernels: auto thread count */
    perc_pixel_elem *el = NULL;
    int n = 0;
    base_err e = perc_pixel_detect(shot, &po, &el, &n, err);
    if (e)
        return e;
    perc_box *boxes = base_calloc(n > 0 ? (size_t)n : 1, sizeof *boxes);
    if (!boxes) {
        base_free(el);
        return base_errf(err, BASE_ENOMEM, "vision pixel: out of memory");
    }
    float s = shot->scale > 0 ? shot->scale : 1.0f;
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
    }
    out->boxes = boxes;
    out->n = n;
    out->calls = 0;
    snprintf(out->model, sizeof out->model, "pixel");
    /* With a page: enrichment first, so the page filter runs before OCR
     * (text guesses that are no control's own are not read). The
     * detection's boxes are freed by perc_vision_detect on any error. */
    if (page) {
        perc_selector *map = NULL;
        int n_map = 0;
        if ((e = perc_vision_enrich(page, out, &map, &n_map, err))) {
            base_free(el);
            return e;
        }
        out->map = map;
        out->n_map = n_map;
        if ((e = apply_dom(out, map, n_map, p->c.dom_names))) {
            base_free(el);
            return base_errf(err, e, "vision pixel: out of memory");
        }
        /* Enrichment names a chevron it splits off after the DOM element it
         * opens; without DOM names, OCR reads it like every other box. */
        for (int i = 0; !p->c.dom_names && i < out->n; i++)
            out->boxes[i].label[0] = '\0';
    }
    e = read_labels(p, shot, out, el, n, err);
    base_free(el);
    /* A split-off chevron shows an arrow, which reads as nothing: it is
     * named after the chip it was split from (enrichment puts the chip
     * right before it), as enrichment names one without a DOM name. */
    for (int i = 1; !e && !p->c.dom_names && i < out->n; i++) {
        perc_box *b = &out->boxes[i];
        const perc_box *chip = &out->boxes[i - 1];
        if (strcmp(b->kind, "chevron") == 0 && !b->label[0] && strcmp(chip->kind, "chevron") != 0) {
            char name[PERC_LABEL_MAX];
            snprintf(name, sizeof name, "expand %.100s", chip->label);
            memcpy(b->label, name, sizeof name);
        }
    }
    return e;
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

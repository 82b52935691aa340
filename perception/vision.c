/* perception/vision.c: the provider-independent half of perception/vision.h
 * and the `dom` provider.
 *
 * The `dom` provider does not look at the screenshot at all: it asks the
 * page for its visible, reachable interactive elements (the page kit's
 * notion, listener-only controls included; boxes clipped to their scroll
 * containers; labels are accessible names) through the same
 * probe that builds the selector map (assets/js/enrich.js, which walks the
 * document, open shadow roots and same-origin iframes; enrich_frames.c adds
 * cross-origin iframes). Its boxes are therefore exact, in
 * top-viewport CSS px at any device scale factor, and box i is selector-map entry i. It is the
 * default when no model endpoint is configured and the paper's cold-start fallback.
 */
#include "perception/vision.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "perception/enrich_int.h"

void perc_detection_fini(perc_detection *d)
{
    if (!d)
        return;
    base_free(d->boxes);
    base_free(d->map);
    memset(d, 0, sizeof *d);
}

base_err perc_vision_detect(perc_vision *v, cdp_page *page, const img_image *shot,
                            const perc_vision_ctx *ctx, perc_detection *out, char *err)
{
    if (!v || !v->ops || !v->ops->detect || !out)
        return base_errf(err, BASE_EINVAL, "vision: NULL provider or output");
    perc_detection d;
    memset(&d, 0, sizeof d);
    double t0 = base_monotime_ms();
    base_err e = v->ops->detect(v, page, shot, ctx, &d, err);
    if (e) {
        perc_detection_fini(&d);
        return e;
    }
    if (d.n < 0 || (d.n > 0 && !d.boxes)) {
        perc_detection_fini(&d);
        return base_errf(err, BASE_EPROTO, "vision: provider %s returned an invalid detection",
                         v->ops->name ? v->ops->name : "?");
    }
    if (d.ms <= 0)
        d.ms = base_monotime_ms() - t0;
    if (!d.model[0])
        snprintf(d.model, sizeof d.model, "%s", v->ops->name ? v->ops->name : "");
    *out = d;
    return BASE_OK;
}

void perc_vision_cancel(perc_vision *v, int on)
{
    if (v && v->ops && v->ops->cancel)
        v->ops->cancel(v, on);
}

void perc_vision_destroy(perc_vision *v)
{
    if (!v)
        return;
    if (v->ops && v->ops->destroy)
        v->ops->destroy(v);
    else
        base_free(v);
}

/* ---------- the dom provider ---------- */

static base_err dom_detect(perc_vision *v, cdp_page *page, const img_image *shot,
                           const perc_vision_ctx *ctx, perc_detection *out, char *err)
{
    (void)v;
    (void)shot;
    (void)ctx;
    if (!page)
        return base_errf(err, BASE_EINVAL, "vision dom: needs a live page");
    /* One probe gives the boxes, their states and the selector map: box i
     * is element i, so enrichment needs no second pass. */
    perc__probe p;
    base_err e = perc__probe_run(page, NULL, 0, 1, &p, err);
    if (e)
        return e;
    perc_box *boxes = base_calloc(p.n > 0 ? (size_t)p.n : 1, sizeof *boxes);
    perc_selector *map = base_calloc(p.n > 0 ? (size_t)p.n : 1, sizeof *map);
    if (!boxes || !map) {
        base_free(boxes);
        base_free(map);
        perc__probe_fini(&p);
        return base_errf(err, BASE_ENOMEM, "vision dom: out of memory");
    }
    for (int i = 0; i < p.n; i++) {
        perc_box *b = &boxes[i];
        b->r = p.items[i].sel.r;
        b->id = i + 1;
        snprintf(b->label, sizeof b->label, "%s", p.items[i].sel.label);
        snprintf(b->kind, sizeof b->kind, "%s", p.items[i].kind);
        b->confidence = 1.0f;
        b->intent_relevant = -1;
        b->dom_index = i;
        b->expanded = p.items[i].expanded;
        b->active = p.items[i].active;
        snprintf(b->labelledby, sizeof b->labelledby, "%s", p.items[i].labelledby);
        b->expand_control = p.items[i].ctl >= 0 && p.items[i].ctl < p.n ? p.items[i].ctl : -1;
        map[i] = p.items[i].sel;
    }
    out->boxes = boxes;
    out->n = p.n;
    out->map = map;
    out->n_map = p.n;
    snprintf(out->model, sizeof out->model, "dom");
    out->calls = 0;
    perc__probe_fini(&p);
    return BASE_OK;
}

static void dom_destroy(perc_vision *v)
{
    base_free(v);
}

static const perc_vision_ops dom_ops = {"dom", dom_detect, dom_destroy, 0, NULL};

base_err perc_vision_dom_create(perc_vision **out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "vision dom: NULL out");
    perc_vision *v = base_calloc(1, sizeof *v);
    if (!v)
        return base_errf(err, BASE_ENOMEM, "vision dom: out of memory");
    v->ops = &dom_ops;
    *out = v;
    return BASE_OK;
}

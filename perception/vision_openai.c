/* perception/vision_openai.c: the `openai` vision provider.
 *
 * Any OpenAI-compatible chat-completions endpoint with image input (OpenAI,
 * Gemini's compatible endpoint, vLLM, llama.cpp server, Ollama) can name the
 * interactive elements of a screenshot. One detect call:
 *
 *   1. shrinks the screenshot to the model width (img_model_view) and, when
 *      the previous pass is recent and on the same URL, draws its boxes on it
 *      as dashed [Vn] marks (Set-of-Marks anchoring, seed 002 §4.3);
 *   2. sends it as a JPEG data: URL with a prompt asking for
 *      {"page_type", "boxes": [{"box_2d": [ymin, xmin, ymax, xmax] in
 *      0..1000, "label", "kind", "intent_relevant"}]} for the active subgoal;
 *   3. reads the answer with perception/model_json.c, which recovers boxes
 *      from fenced, chatty or truncated output;
 *   4. if the caller expected labels that no box carries, asks once more with
 *      a larger cap and the missing labels listed (coverage pass) and merges;
 *   5. maps the boxes to top-viewport CSS pixels. The model image covers the
 *      whole screenshot, so box/1000 * model size / resize scale / device
 *      scale factor reduces to box/1000 * the CSS viewport size, exactly,
 *      whatever rounding the resize did to the image height.
 *
 * Tiering: a page answered as "complex" (or one whose answer hit the box cap
 * or was cut off) is remembered per provider, which is per session, by URL;
 * later passes on it go straight to the fallback model.
 *
 * Transport: model/endpoint.c, shared with the agent's LLM client: one
 * libcurl handle per provider (connection reuse), a timeout per attempt cut
 * to the detect's deadline, retries with backoff on 429, 5xx, timeouts and
 * broken connections honouring Retry-After, and every message scrubbed of
 * the API key (some endpoints echo part of a bad key in their error text).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/base64.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "model/endpoint.h"
#include "perception/model_json.h"
#include "model/chat_json.h"
#include "model/normalize.h"
#include "image/som.h"
#include "perception/vision.h"

#define COVERAGE_CAP 60           /* box cap of the coverage pass (seed 002 §4.3) */
#define ANCHOR_MAX_AGE_MS 10000.0 /* older previous passes are not drawn */
#define COMPLEX_URLS 64           /* URLs remembered as complex per provider */
#define JPEG_QUALITY 80

typedef struct oai {
    perc_vision v; /* first, so that the vision pointer is the allocation */
    char *model, *fallback;
    int model_width, max_boxes;
    model_endpoint *ep; /* base URL + /chat/completions, key, retries */
    char *complex_urls[COMPLEX_URLS]; /* ring of URLs (fragment cut) */
    int n_complex, next_complex;
    double deadline_ms; /* of the detect in progress (perc_vision_ctx), 0 = none */
} oai;

/* ---- messages ------------------------------------------------------ */

/* Errors and logs go through the endpoint, which scrubs the key out of
 * them (model/endpoint.h). */
#define oerr(o, ...) model_endpoint_errf((o)->ep, __VA_ARGS__)
#define olog(o, ...) model_endpoint_log((o)->ep, __VA_ARGS__)

/* ---- configuration --------------------------------------------------- */

void perc_openai_config_init(perc_openai_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->model = "gpt-4o-mini";
    c->timeout_ms = 30000;
    c->max_retries = 3;
    c->model_width = 1024;
    c->max_boxes = 40;
}

base_err perc_openai_config_from_env(perc_openai_config *c, char *err)
{
    if (!c)
        return base_errf(err, BASE_EINVAL, "openai config: NULL argument");
    perc_openai_config t = *c;
    t.base_url = base_env("FOVEA_OPENAI_BASE_URL", "OPENAI_BASE_URL");
    if (!t.base_url)
        return base_errf(err, BASE_ENOTFOUND,
                         "no vision endpoint configured (set FOVEA_OPENAI_BASE_URL or "
                         "OPENAI_BASE_URL)");
    t.api_key = base_env("FOVEA_OPENAI_API_KEY", "OPENAI_API_KEY");
    const char *m = base_env("FOVEA_VISION_MODEL", NULL);
    if (m)
        t.model = m;
    const char *f = base_env("FOVEA_VISION_FALLBACK_MODEL", NULL);
    if (f)
        t.fallback_model = f;
    static const char *const names[] = {"FOVEA_VISION_TIMEOUT_MS", "FOVEA_VISION_MAX_RETRIES",
                                        "FOVEA_VISION_WIDTH", "FOVEA_VISION_MAX_BOXES"};
    int *fields[] = {&t.timeout_ms, &t.max_retries, &t.model_width, &t.max_boxes};
    for (int i = 0; i < 4; i++) {
        base_err e = base_env_int(names[i], 0, 10000000, fields[i], err);
        if (e)
            return e;
    }
    *c = t;
    return BASE_OK;
}

/* ---- prompt and request ---------------------------------------------- */

static const char system_prompt[] =
    "You find the interactive elements of web page screenshots. You answer with one JSON "
    "object and nothing else: no prose, no code fences.";

/* The user text of one request. missing (n_missing) lists labels the caller
 * expected and the previous answer lacked (coverage pass). */
static base_err build_prompt(const perc_vision_ctx *ctx, int cap, int anchor,
                             const char *const *missing, int n_missing, base_buf *b)
{
    base_err e = base_buf_printf(
        b,
        "Find the interactive elements in this screenshot%s%.300s: buttons, links, text "
        "inputs, checkboxes, radio buttons, dropdowns, options, tabs, menu items, chevrons and "
        "any other control a person can click or type into.\n"
        "Answer with one JSON object of this shape:\n"
        "{\"page_type\": \"...\", \"boxes\": [{\"box_2d\": [ymin, xmin, ymax, xmax], "
        "\"label\": \"...\", \"kind\": \"...\", \"intent_relevant\": false}]}\n"
        "- box_2d: integers from 0 to 1000, relative to the image height (y) and width (x); "
        "the box tightly covers the element.\n"
        "- label: the element's visible text, or a name of 1 to 4 words when it has none.\n"
        "- kind: one of button, link, input, checkbox, radio, select, option, tab, menu, "
        "chevron, image, other.\n"
        "- page_type: one of form, login, search_results, product_listing, article, "
        "checkout_form, map_or_booking, dashboard, complex, other. Use complex for pages dense "
        "with controls (many filters, long forms, large result grids).\n"
        "- List at most %d boxes, the most useful first.\n",
        ctx->url ? " of " : "", ctx->url ? ctx->url : "", cap);
    if (!e && ctx->subgoal && ctx->subgoal[0])
        e = base_buf_printf(b,
                            "The user's immediate subgoal is: \"%.500s\". Set intent_relevant "
                            "to true only for elements that serve this subgoal, not the wider "
                            "task.\n",
                            ctx->subgoal);
    else if (!e)
        e = base_buf_append_str(b, "No subgoal is known: set intent_relevant to false.\n");
    if (!e && anchor)
        e = base_buf_append_str(
            b, "Dashed rectangles labelled [V1], [V2], ... are the marks of your previous "
               "answer. First find the boxes in the current screenshot; then compare: keep a "
               "mark's coordinates where it still covers the same element and drop marks whose "
               "element is gone. Never box the dashed marks or their tags themselves.\n");
    if (!e && n_missing > 0) {
        e = base_buf_append_str(b, "Your previous answer missed these expected elements; "
                                   "include each one that is visible, with its exact label:");
        for (int i = 0; i < n_missing && !e; i++)
            e = base_buf_printf(b, "%s \"%.100s\"", i ? "," : "", missing[i]);
        if (!e)
            e = base_buf_append_str(b, ".\n");
    }
    return e;
}

/* The JSON request body, a new string (base_free). */
static base_err build_body(const char *model, const char *prompt, const char *data_url, char **out,
                           size_t *n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *msgs = root ? cJSON_AddArrayToObject(root, "messages") : NULL;
    cJSON *sys = cJSON_CreateObject();
    cJSON *user = cJSON_CreateObject();
    cJSON *parts = user ? cJSON_AddArrayToObject(user, "content") : NULL;
    cJSON *text = cJSON_CreateObject();
    cJSON *img = cJSON_CreateObject();
    cJSON *iu = img ? cJSON_AddObjectToObject(img, "image_url") : NULL;
    base_err e = BASE_ENOMEM;
    if (!msgs || !sys || !parts || !text || !iu)
        goto fail;
    if (!cJSON_AddStringToObject(root, "model", model) ||
        !cJSON_AddStringToObject(sys, "role", "system") ||
        !cJSON_AddStringToObject(sys, "content", system_prompt) ||
        !cJSON_AddStringToObject(user, "role", "user") ||
        !cJSON_AddStringToObject(text, "type", "text") ||
        !cJSON_AddStringToObject(text, "text", prompt) ||
        !cJSON_AddStringToObject(img, "type", "image_url") ||
        !cJSON_AddStringToObject(iu, "url", data_url))
        goto fail;
    cJSON_AddItemToArray(parts, text);
    text = NULL;
    cJSON_AddItemToArray(parts, img);
    img = NULL;
    cJSON_AddItemToArray(msgs, sys);
    sys = NULL;
    cJSON_AddItemToArray(msgs, user);
    user = NULL;
    /* The one request shape of every model call (model/normalize.h). */
    cJSON *wire = NULL;
    if (model_wire_messages(msgs, NULL, 0, &wire, NULL) != BASE_OK)
        goto fail;
    cJSON_ReplaceItemInObjectCaseSensitive(root, "messages", wire);
    char *s = cJSON_PrintUnformatted(root);
    if (!s)
        goto fail;
    /* cJSON allocates with malloc; hand the caller a base_ copy. */
    *n = strlen(s);
    *out = base_strndup(s, *n);
    free(s);
    e = *out ? BASE_OK : BASE_ENOMEM;
fail:
    cJSON_Delete(root);
    cJSON_Delete(sys);
    cJSON_Delete(user);
    cJSON_Delete(text);
    cJSON_Delete(img);
    return e;
}

/* One question to the model: prompt + request + transport + parsing. */
static base_err ask(oai *o, const char *model, const char *data_url, const perc_vision_ctx *ctx,
                    int anchor, int cap, const char *const *missing, int n_missing,
                    perc_model_reply *rep, int *calls, char *err)
{
    base_buf prompt;
    base_buf_init(&prompt, 64u << 10);
    char *body = NULL, *content = NULL;
    size_t n = 0;
    base_err e = build_prompt(ctx, cap, anchor, missing, n_missing, &prompt);
    if (!e)
        e = build_body(model, (const char *)prompt.data, data_url, &body, &n);
    base_buf_fini(&prompt);
    if (e) {
        e = oerr(o, err, e, "vision request: %s", base_strerror(e));
        goto done;
    }
    olog(o, BASE_LOG_DEBUG, "POST %s model %s cap %d anchor %d missing %d (%zu bytes)", model_endpoint_shown(o->ep),
         model, cap, anchor, n_missing, n);
    perc_post_info pi;
    e = model_endpoint_post(o->ep, body, n, o->deadline_ms, &pi, err);
    *calls += pi.attempts;
    if (e)
        goto done;
    size_t rlen = 0;
    const char *resp = model_endpoint_body(o->ep, &rlen);
    char perr[BASE_ERRBUF_SIZE] = "";
    int cut = 0;
    e = model_chat_reply_parse(resp, rlen, &content, &cut, perr);
    if (!e)
        e = perc_model_reply_parse(content, strlen(content), cap, rep, perr);
    if (e) {
        e = oerr(o, err, e, "vision model %s: %s", model, perr);
        goto done;
    }
    rep->truncated |= cut;
    olog(o, BASE_LOG_DEBUG, "model %s: %d boxes, page_type \"%s\"%s, %d dropped%s%s", model, rep->n,
         rep->page_type, rep->truncated ? " (truncated)" : "", rep->dropped,
         rep->note[0] ? ": " : "", rep->note);
done:
    base_free(body);
    base_free(content);
    return e;
}

/* ---- tiering, coverage, anchoring ------------------------------------ */

/* The URL without its fragment, into buf. */
static void url_key(const char *url, char *buf, size_t n)
{
    if (!url) {
        buf[0] = '\0';
        return;
    }
    size_t l = strcspn(url, "#");
    snprintf(buf, n, "%.*s", (int)(l < n - 1 ? l : n - 1), url);
}

static int is_complex_url(const oai *o, const char *key)
{
    if (!key[0])
        return 0;
    for (int i = 0; i < o->n_complex; i++)
        if (strcmp(o->complex_urls[i], key) == 0)
            return 1;
    return 0;
}

static void remember_complex(oai *o, const char *key)
{
    if (!key[0] || is_complex_url(o, key))
        return;
    char *dup = base_strdup(key);
    if (!dup)
        return; /* tiering is an optimisation: forgetting is safe */
    int slot = o->n_complex < COMPLEX_URLS ? o->n_complex++ : o->next_complex;
    base_free(o->complex_urls[slot]);
    o->complex_urls[slot] = dup;
    o->next_complex = (slot + 1) % COMPLEX_URLS;
}

/* Lower-case ASCII letters and digits of s, other runs folded to one space,
 * trimmed: "  Add to-Cart " -> "add to cart". */
static void norm_label(const char *s, char *out, size_t n)
{
    size_t k = 0;
    int gap = 0;
    for (; s && *s && k + 2 < n; s++) {
        unsigned char c = (unsigned char)*s;
        int word =
            (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
        if (!word) {
            gap = k > 0;
            continue;
        }
        if (gap)
            out[k++] = ' ';
        gap = 0;
        out[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    out[k] = '\0';
}

static int reply_is_complex(const perc_model_reply *r, int cap)
{
    char pt[sizeof r->page_type];
    norm_label(r->page_type, pt, sizeof pt);
    return strstr(pt, "complex") != NULL || r->truncated || r->n + r->dropped >= cap;
}

/* True when some box's label is the expected label or contains it. */
static int label_covered(const perc_model_reply *r, const char *expected)
{
    char want[PERC_LABEL_MAX], have[PERC_LABEL_MAX];
    norm_label(expected, want, sizeof want);
    if (!want[0])
        return 1;
    for (int i = 0; i < r->n; i++) {
        norm_label(r->boxes[i].label, have, sizeof have);
        if (strstr(have, want))
            return 1;
    }
    return 0;
}

static double iou(const perc_model_box *a, const perc_model_box *b)
{
    double x0 = fmax(a->xmin, b->xmin), y0 = fmax(a->ymin, b->ymin);
    double x1 = fmin(a->xmax, b->xmax), y1 = fmin(a->ymax, b->ymax);
    double in = x1 > x0 && y1 > y0 ? (x1 - x0) * (y1 - y0) : 0;
    double ua = (double)(a->xmax - a->xmin) * (a->ymax - a->ymin) +
                (double)(b->xmax - b->xmin) * (b->ymax - b->ymin) - in;
    return ua > 0 ? in / ua : 0;
}

/* Appends the coverage pass's boxes that are not already there (IoU >= 0.5
 * with an existing box) to r. */
static base_err merge(perc_model_reply *r, const perc_model_reply *add)
{
    for (int i = 0; i < add->n; i++) {
        int dup = 0;
        for (int j = 0; j < r->n && !dup; j++)
            dup = iou(&r->boxes[j], &add->boxes[i]) >= 0.5;
        if (dup)
            continue;
        if (r->n >= PERC_MODEL_BOXES_MAX)
            break;
        perc_model_box *nb = base_realloc(r->boxes, (size_t)(r->n + 1) * sizeof *nb);
        if (!nb)
            return BASE_ENOMEM;
        r->boxes = nb;
        r->boxes[r->n++] = add->boxes[i];
    }
    return BASE_OK;
}

/* Anchoring applies when there are previous boxes, they are at most 10 s
 * old and they were taken on this URL (an unknown previous URL counts as
 * the same page). */
static int anchoring_applies(const perc_vision_ctx *ctx)
{
    if (!ctx->previous || ctx->n_previous <= 0)
        return 0;
    if (!(ctx->previous_age_ms >= 0 && ctx->previous_age_ms <= ANCHOR_MAX_AGE_MS))
        return 0;
    if (ctx->previous_url && ctx->url && strcmp(ctx->previous_url, ctx->url) != 0)
        return 0;
    return 1;
}

/* Draws the previous boxes dashed on the model view (CSS px -> view px
 * through view->scale). Returns 1 when drawn. */
static int draw_anchors(oai *o, img_image *view, const perc_vision_ctx *ctx)
{
    img_mark *marks = base_calloc((size_t)ctx->n_previous, sizeof *marks);
    if (!marks)
        return 0;
    for (int i = 0; i < ctx->n_previous; i++) {
        marks[i].r = ctx->previous[i].r;
        marks[i].id = ctx->previous[i].id > 0 ? ctx->previous[i].id : i + 1;
        marks[i].label = NULL;
        marks[i].style = IMG_MARK_DASHED;
    }
    img_som_opts so;
    img_som_opts_init(&so);
    so.label_fmt = IMG_LABEL_VID;
    char derr[BASE_ERRBUF_SIZE] = "";
    base_err e = img_som_draw(view, marks, ctx->n_previous, &so, derr);
    base_free(marks);
    if (e)
        olog(o, BASE_LOG_WARN, "anchoring marks not drawn: %s", derr);
    return e == BASE_OK;
}

/* The model view as a JPEG data: URL (base_free). */
static base_err data_url(const img_image *view, char **out, char *err)
{
    uint8_t *jpg = NULL;
    size_t n = 0;
    base_err e = img_encode_jpeg(view, JPEG_QUALITY, &jpg, &n, err);
    if (e)
        return e;
    static const char prefix[] = "data:image/jpeg;base64,";
    size_t bl = base64_encoded_len(n);
    char *s = bl ? base_malloc(sizeof prefix + bl) : NULL;
    if (!s) {
        base_free(jpg);
        return base_errf(err, BASE_ENOMEM, "vision request: out of memory for the image");
    }
    memcpy(s, prefix, sizeof prefix - 1);
    base64_encode(jpg, n, s + sizeof prefix - 1);
    base_free(jpg);
    *out = s;
    return BASE_OK;
}

/* ---- the provider ---------------------------------------------------- */

static base_err oai_detect(perc_vision *v, cdp_page *page, const img_image *shot,
                           const perc_vision_ctx *ctx_in, perc_detection *out, char *err)
{
    (void)page; /* the model sees pixels only; DOM enrichment is separate */
    oai *o = v->self;
    if (!shot || !shot->px || shot->w < 1 || shot->h < 1 || !out)
        return base_errf(err, BASE_EINVAL, "openai detect: no screenshot");
    double t0 = base_monotime_ms();
    perc_vision_ctx none;
    memset(&none, 0, sizeof none);
    const perc_vision_ctx *ctx = ctx_in ? ctx_in : &none;
    o->deadline_ms = ctx->deadline_ms;
    char key[2048];
    url_key(ctx->url, key, sizeof key);
    const char *model = o->fallback && is_complex_url(o, key) ? o->fallback : o->model;

    img_image view = {0};
    char *url = NULL;
    perc_model_reply rep, cov;
    memset(&rep, 0, sizeof rep);
    memset(&cov, 0, sizeof cov);
    perc_box *boxes = NULL;
    int calls = 0;
    base_err e = img_model_view(shot, o->model_width, &view, NULL);
    if (e) {
        e = base_errf(err, e, "openai detect: model view: %s", base_strerror(e));
        goto done;
    }
    int anchor = anchoring_applies(ctx) && draw_anchors(o, &view, ctx);
    e = data_url(&view, &url, err);
    if (e)
        goto done;
    char aerr[BASE_ERRBUF_SIZE] = "";
    e = ask(o, model, url, ctx, anchor, o->max_boxes, NULL, 0, &rep, &calls, aerr);
    if (e == BASE_EPROTO && o->fallback && model != o->fallback) {
        /* The small model's answer was unusable (often cut off on a dense
         * page): remember the page as complex and ask the larger model. */
        olog(o, BASE_LOG_INFO, "%s; asking the fallback model %s", aerr, o->fallback);
        remember_complex(o, key);
        model = o->fallback;
        base_errclear(aerr);
        e = ask(o, model, url, ctx, anchor, o->max_boxes, NULL, 0, &rep, &calls, aerr);
    }
    if (e) {
        base_errf(err, e, "%s", aerr);
        goto done;
    }
    if (reply_is_complex(&rep, o->max_boxes))
        remember_complex(o, key);

    /* Coverage pass: expected labels that no box carries. */
    const char **missing = NULL;
    int n_missing = 0;
    if (ctx->n_expected > 0 && ctx->expected) {
        missing = base_calloc((size_t)ctx->n_expected, sizeof *missing);
        if (!missing) {
            e = base_errf(err, BASE_ENOMEM, "openai detect: out of memory");
            goto done;
        }
        for (int i = 0; i < ctx->n_expected; i++)
            if (ctx->expected[i] && !label_covered(&rep, ctx->expected[i]))
                missing[n_missing++] = ctx->expected[i];
    }
    if (n_missing > 0) {
        int cap = o->max_boxes > COVERAGE_CAP ? o->max_boxes : COVERAGE_CAP;
        char cerr[BASE_ERRBUF_SIZE] = "";
        base_err ce = ask(o, model, url, ctx, anchor, cap, missing, n_missing, &cov, &calls, cerr);
        if (ce == BASE_OK)
            ce = merge(&rep, &cov);
        if (ce == BASE_ENOMEM) {
            base_free(missing);
            e = base_errf(err, ce, "openai detect: out of memory");
            goto done;
        }
        /* A failed coverage pass leaves the first answer standing. */
        if (ce)
            olog(o, BASE_LOG_WARN, "coverage pass failed: %s", cerr);
    }
    base_free(missing);

    /* Map 0..1000 of the model image to top-viewport CSS px (see the file
     * comment: the model image spans the whole screenshot). */
    double dsf = shot->scale > 0 ? shot->scale : 1.0;
    double css_w = shot->w / dsf, css_h = shot->h / dsf;
    if (rep.n > 0) {
        boxes = base_calloc((size_t)rep.n, sizeof *boxes);
        if (!boxes) {
            e = base_errf(err, BASE_ENOMEM, "openai detect: out of memory");
            goto done;
        }
    }
    for (int i = 0; i < rep.n; i++) {
        const perc_model_box *m = &rep.boxes[i];
        perc_box *b = &boxes[i];
        b->r.x0 = (float)(m->xmin / 1000.0 * css_w);
        b->r.y0 = (float)(m->ymin / 1000.0 * css_h);
        b->r.x1 = (float)(m->xmax / 1000.0 * css_w);
        b->r.y1 = (float)(m->ymax / 1000.0 * css_h);
        b->id = i + 1;
        snprintf(b->label, sizeof b->label, "%s", m->label);
        snprintf(b->kind, sizeof b->kind, "%s", m->kind);
        b->confidence = m->confidence;
        b->intent_relevant = m->intent_relevant;
        b->dom_index = -1;
        b->expanded = -1;
        b->active = -1;
        b->labelledby[0] = '\0';
        b->expand_control = -1;
    }
    memset(out, 0, sizeof *out);
    out->boxes = boxes;
    boxes = NULL;
    out->n = rep.n;
    snprintf(out->page_type, sizeof out->page_type, "%s", rep.page_type);
    snprintf(out->model, sizeof out->model, "%s", model);
    out->calls = calls;
    out->ms = base_monotime_ms() - t0;
    olog(o, BASE_LOG_DEBUG, "%d boxes from %s in %d call(s), %.0f ms", out->n, model, calls,
         out->ms);
done:
    base_free(boxes);
    perc_model_reply_fini(&rep);
    perc_model_reply_fini(&cov);
    base_free(url);
    img_fini(&view);
    return e;
}

static void oai_destroy(perc_vision *v)
{
    if (!v)
        return;
    oai *o = v->self;
    model_endpoint_destroy(o->ep);
    for (int i = 0; i < o->n_complex; i++)
        base_free(o->complex_urls[i]);
    base_free(o->model);
    base_free(o->fallback);
    base_free(o);
}

static void oai_cancel(perc_vision *v, int on)
{
    oai *o = (oai *)v;
    model_endpoint_cancel(o->ep, on);
}

static const perc_vision_ops oai_ops = {"openai", oai_detect, oai_destroy, 1, oai_cancel};

base_err perc_vision_openai_create(const perc_openai_config *c, perc_vision **out, char *err)
{
    if (!c || !out)
        return base_errf(err, BASE_EINVAL, "openai provider: NULL argument");
    if (!c->base_url ||
        (strncmp(c->base_url, "http://", 7) != 0 && strncmp(c->base_url, "https://", 8) != 0))
        return base_errf(err, BASE_EINVAL,
                         "openai provider: base URL must start with http:// "
                         "or https://");
    if (!c->model || !c->model[0])
        return base_errf(err, BASE_EINVAL, "openai provider: no model name");
    if (c->timeout_ms < 0 || c->max_retries < 0 || c->max_retries > 20 || c->model_width < 0 ||
        c->model_width > IMG_MAX_DIM || c->max_boxes < 0 ||
        c->max_boxes > PERC_MODEL_BOXES_MAX)
        return base_errf(err, BASE_EINVAL,
                         "openai provider: bad limits (timeout %d ms, retries %d, width %d, "
                         "boxes %d)",
                         c->timeout_ms, c->max_retries, c->model_width, c->max_boxes);
    if (c->api_key && strpbrk(c->api_key, "\r\n"))
        return base_errf(err, BASE_EINVAL, "openai provider: the API key contains a line break");
    oai *o = base_calloc(1, sizeof *o);
    if (!o)
        return base_errf(err, BASE_ENOMEM, "openai provider: out of memory");
    o->v.ops = &oai_ops;
    o->v.self = o;
    o->model_width = c->model_width ? c->model_width : 1024;
    o->max_boxes = c->max_boxes ? c->max_boxes : 40;
    o->model = base_strdup(c->model);
    o->fallback = c->fallback_model && c->fallback_model[0] ? base_strdup(c->fallback_model) : NULL;
    if (!o->model || (c->fallback_model && c->fallback_model[0] && !o->fallback)) {
        oai_destroy(&o->v);
        return base_errf(err, BASE_ENOMEM, "openai provider: out of memory");
    }
    model_endpoint_config ec;
    memset(&ec, 0, sizeof ec);
    ec.base_url = c->base_url;
    ec.path = "/chat/completions";
    ec.api_key = c->api_key;
    ec.what = "vision endpoint";
    ec.budget = "step";
    ec.log_tag = "openai";
    ec.log_comp = BASE_LOG_PERC;
    ec.timeout_ms = c->timeout_ms;
    ec.max_retries = c->max_retries;
    char eerr[BASE_ERRBUF_SIZE] = "";
    base_err e = model_endpoint_create(&ec, &o->ep, eerr);
    if (e) {
        oai_destroy(&o->v);
        return base_errf(err, e, "openai provider: %s", eerr);
    }
    olog(o, BASE_LOG_DEBUG, "endpoint %s model %s fallback %s key %s", model_endpoint_shown(o->ep),
         o->model, o->fallback ? o->fallback : "(none)", c->api_key && c->api_key[0] ? "set" : "unset");
    *out = &o->v;
    return BASE_OK;
}

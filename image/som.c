/* image/som.c: Set-of-Marks layout and drawing, plus debug drawing.
 *
 * img_som_draw works in three steps: map each mark from CSS to image
 * pixels, lay out colours and label tags (img_som_layout), and emit ops
 * (fills, then outlines, then tags, so tags are never covered) that one
 * compositor pass applies (som_kernels.c).
 *
 * Colours come from a 12-colour palette of saturated mid-luminance hues
 * that stand out on both white and dark pages. A mark prefers the colour of
 * its id (so a mark keeps its colour between passes) but takes the next
 * free one when a nearby mark already has it. Tag text is black or white,
 * whichever contrasts with the tag colour.
 *
 * Label placement tries ten candidate positions around each mark, outside
 * first (above-left, above-right, below, beside) then the inside corners,
 * each shifted into the image, and keeps the cheapest: overlap with tags
 * already placed costs most, then overlap with the mark's own box, then
 * with other marks. Ties keep the earlier candidate, so layout is stable.
 */
#include "image/som.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "image/som_int.h"

static const uint8_t palette[12][3] = {
    {230, 25, 75},  {60, 180, 75},  {67, 99, 216},  {245, 130, 49},
    {145, 30, 180}, {0, 160, 200},  {240, 50, 230}, {128, 128, 0},
    {0, 128, 128},  {154, 99, 36},  {128, 0, 0},    {0, 0, 117},
};
#define NPAL 12
#define NCAND 10

void img_som_opts_init(img_som_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->scale = 0.0f;
    opts->label_fmt = IMG_LABEL_VID;
    opts->fill_alpha = 64;
    opts->outline_px = 2;
    opts->font_px = 14;
    opts->dash_px = 6;
    opts->kernel = IMG_KERNEL_AUTO;
}

typedef struct irect {
    int x0, y0, x1, y1;
} irect;

static long overlap(irect a, irect b)
{
    int x0 = a.x0 > b.x0 ? a.x0 : b.x0;
    int y0 = a.y0 > b.y0 ? a.y0 : b.y0;
    int x1 = a.x1 < b.x1 ? a.x1 : b.x1;
    int y1 = a.y1 < b.y1 ? a.y1 : b.y1;
    if (x1 <= x0 || y1 <= y0)
        return 0;
    return (long)(x1 - x0) * (y1 - y0);
}

static int to_px(float v, float s)
{
    float f = floorf(v * s + 0.5f);
    if (!(f > -1e7f))
        return -10000000;
    if (f > 1e7f)
        return 10000000;
    return (int)f;
}

/* Mark box in image pixels, clipped to the image (may be empty). */
static irect mark_box(const img_mark *m, float s, int w, int h)
{
    irect r = {to_px(m->r.x0, s), to_px(m->r.y0, s), to_px(m->r.x1, s), to_px(m->r.y1, s)};
    r.x0 = r.x0 < 0 ? 0 : r.x0;
    r.y0 = r.y0 < 0 ? 0 : r.y0;
    r.x1 = r.x1 > w ? w : r.x1;
    r.y1 = r.y1 > h ? h : r.y1;
    return r;
}

static int rect_empty(irect r)
{
    return r.x1 <= r.x0 || r.y1 <= r.y0;
}

static void label_text(const img_mark *m, int fmt, char *out, size_t cap)
{
    if (fmt == IMG_LABEL_NUM || (fmt == IMG_LABEL_TEXT && !m->label))
        snprintf(out, cap, "%d", m->id);
    else if (fmt == IMG_LABEL_TEXT)
        snprintf(out, cap, "%.40s", m->label);
    else
        snprintf(out, cap, "[V%d]", m->id);
}

static int text_dark(const uint8_t rgb[3])
{
    return 299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2] > 150000;
}

typedef struct som_ctx {
    float scale;
    img_som_opts o;
    const img_font *font;
    int pad_x, pad_y;
} som_ctx;

static base_err ctx_init(som_ctx *c, const img_som_opts *opts, float img_scale, char *err)
{
    if (opts)
        c->o = *opts;
    else
        img_som_opts_init(&c->o);
    c->scale = c->o.scale > 0 ? c->o.scale : (img_scale > 0 ? img_scale : 1.0f);
    if (!(c->scale < 1000.0f))
        return base_errf(err, BASE_EINVAL, "som: scale %g out of range", (double)c->scale);
    if (c->o.fill_alpha < 0 || c->o.fill_alpha > 255 || c->o.outline_px < 0 ||
        c->o.outline_px > 64 || c->o.dash_px < 0)
        return base_errf(err, BASE_EINVAL, "som: invalid options");
    if (c->o.label_fmt < IMG_LABEL_VID || c->o.label_fmt > IMG_LABEL_NONE)
        return base_errf(err, BASE_EINVAL, "som: invalid label format %d", c->o.label_fmt);
    if (c->o.font_px <= 0)
        c->o.font_px = 14;
    c->font = NULL;
    if (c->o.label_fmt != IMG_LABEL_NONE) {
        base_err e = img_font_get(c->o.font_px, &c->font, err);
        if (e)
            return e;
    }
    c->pad_x = c->o.font_px / 5 > 2 ? c->o.font_px / 5 : 2;
    c->pad_y = 1;
    return BASE_OK;
}

/* Layout with a resolved context; out has n entries. */
static base_err layout(const som_ctx *c, int w, int h, const img_mark *marks, int n,
                       img_som_label *out, char *err)
{
    irect *boxes = base_malloc(((size_t)n + 1) * sizeof(*boxes));
    irect *tags = base_malloc(((size_t)n + 1) * sizeof(*tags));
    if (!boxes || !tags) {
        base_free(boxes);
        base_free(tags);
        return base_errf(err, BASE_ENOMEM, "som: out of memory");
    }
    for (int i = 0; i < n; i++)
        boxes[i] = mark_box(&marks[i], c->scale, w, h);
    int ntags = 0;
    for (int i = 0; i < n; i++) {
        img_som_label *L = &out[i];
        irect b = boxes[i];
        /* Colour: the id's own, unless a nearby earlier mark took it. */
        unsigned used = 0;
        irect near = {b.x0 - 24, b.y0 - 24, b.x1 + 24, b.y1 + 24};
        for (int j = 0; j < i; j++)
            if (overlap(near, boxes[j]) > 0 || (rect_empty(b) && rect_empty(boxes[j])))
                for (int k = 0; k < NPAL; k++)
                    if (memcmp(out[j].rgb, palette[k], 3) == 0)
                        used |= 1u << k;
        int want = (int)((unsigned)(marks[i].id < 0 ? -marks[i].id : marks[i].id) % NPAL);
        int pick = want;
        for (int k = 0; k < NPAL; k++)
            if (!(used & (1u << ((want + k) % NPAL)))) {
                pick = (want + k) % NPAL;
                break;
            }
        memcpy(L->rgb, palette[pick], 3);
        L->x0 = L->y0 = L->x1 = L->y1 = 0;
        L->placement = -1;
        if (!c->font || rect_empty(b))
            continue;
        char text[SOM_TEXT_MAX];
        label_text(&marks[i], c->o.label_fmt, text, sizeof(text));
        int lw = img_font_text_width(c->font, text, -1) + 2 * c->pad_x;
        int lh = c->font->line_h + 2 * c->pad_y;
        const int cand[NCAND][2] = {
            {b.x0, b.y0 - lh}, {b.x1 - lw, b.y0 - lh}, {b.x0, b.y1},      {b.x1 - lw, b.y1},
            {b.x0 - lw, b.y0}, {b.x1, b.y0},           {b.x0, b.y0},      {b.x1 - lw, b.y0},
            {b.x0, b.y1 - lh}, {b.x1 - lw, b.y1 - lh},
        };
        long best = -1;
        for (int k = 0; k < NCAND; k++) {
            int x = cand[k][0];
            int y = cand[k][1];
            x = x > w - lw ? w - lw : x;
            y = y > h - lh ? h - lh : y;
            x = x < 0 ? 0 : x;
            y = y < 0 ? 0 : y;
            irect t = {x, y, x + lw, y + lh};
            long cost = 4 * overlap(t, b);
            for (int j = 0; j < ntags; j++)
                cost += 1000 * overlap(t, tags[j]);
            for (int j = 0; j < n && (best < 0 || cost < best); j++)
                if (j != i)
                    cost += overlap(t, boxes[j]);
            if (best < 0 || cost < best) {
                best = cost;
                L->x0 = t.x0;
                L->y0 = t.y0;
                L->x1 = t.x1 > w ? w : t.x1;
                L->y1 = t.y1 > h ? h : t.y1;
                L->placement = k;
            }
        }
        tags[ntags++] = (irect){L->x0, L->y0, L->x1, L->y1};
    }
    base_free(boxes);
    base_free(tags);
    return BASE_OK;
}

base_err img_som_layout(int w, int h, const img_mark *marks, int n, const img_som_opts *opts,
                         img_som_label *out, char *err)
{
    if (w < 1 || h < 1 || n < 0 || (n > 0 && (!marks || !out)))
        return base_errf(err, BASE_EINVAL, "som: invalid layout arguments");
    som_ctx c;
    base_err e = ctx_init(&c, opts, 1.0f, err);
    if (e)
        return e;
    return layout(&c, w, h, marks, n, out, err);
}

static base_err check_image(const img_image *img, char *err)
{
    if (!img || !img->px || img->w < 1 || img->h < 1 || img->stride < img->w * 4)
        return base_errf(err, BASE_EINVAL, "som: invalid image");
    return BASE_OK;
}

/* Pushes a tag: opaque background and contrasting text. */
static base_err push_tag(som_oplist *l, const som_ctx *c, const img_som_label *L,
                         const char *text)
{
    static const uint8_t black[3] = {0, 0, 0};
    static const uint8_t white[3] = {255, 255, 255};
    som_op bg = {.kind = SOM_OP_FILL, .x0 = L->x0, .y0 = L->y0, .x1 = L->x1, .y1 = L->y1,
                 .alpha = 255};
    memcpy(bg.rgb, L->rgb, 3);
    base_err e = img__ops_push(l, &bg);
    if (e)
        return e;
    som_op t = {.kind = SOM_OP_TEXT, .x0 = L->x0, .y0 = L->y0, .x1 = L->x1, .y1 = L->y1,
                .alpha = 255, .pen_x = L->x0 + c->pad_x,
                .base_y = L->y0 + c->pad_y + c->font->ascent, .font = c->font};
    memcpy(t.rgb, text_dark(L->rgb) ? black : white, 3);
    snprintf(t.text, sizeof(t.text), "%s", text);
    return img__ops_push(l, &t);
}

base_err img_som_draw(img_image *img, const img_mark *marks, int n, const img_som_opts *opts,
                       char *err)
{
    base_err e = check_image(img, err);
    if (e)
        return e;
    if (n < 0 || (n > 0 && !marks))
        return base_errf(err, BASE_EINVAL, "som: invalid marks");
    som_ctx c;
    e = ctx_init(&c, opts, img->scale, err);
    if (e)
        return e;
    if (n == 0)
        return BASE_OK;
    img_som_label *labels = base_malloc((size_t)n * sizeof(*labels));
    if (!labels)
        return base_errf(err, BASE_ENOMEM, "som: out of memory");
    e = layout(&c, img->w, img->h, marks, n, labels, err);
    som_oplist l = {0};
    int t = c.o.outline_px;
    /* Fills first, outlines over them, tags on top of everything. */
    for (int i = 0; i < n && !e; i++) {
        irect b = mark_box(&marks[i], c.scale, img->w, img->h);
        int a = marks[i].style == IMG_MARK_DASHED ? c.o.fill_alpha / 2 : c.o.fill_alpha;
        if (rect_empty(b) || a == 0)
            continue;
        som_op f = {.kind = SOM_OP_FILL, .x0 = b.x0, .y0 = b.y0, .x1 = b.x1, .y1 = b.y1,
                    .alpha = (uint8_t)a};
        memcpy(f.rgb, labels[i].rgb, 3);
        e = img__ops_push(&l, &f);
    }
    for (int i = 0; i < n && !e; i++) {
        irect b = mark_box(&marks[i], c.scale, img->w, img->h);
        int dash = marks[i].style == IMG_MARK_DASHED ? (c.o.dash_px > 0 ? c.o.dash_px : 6) : 0;
        e = img__ops_outline(&l, b.x0, b.y0, b.x1, b.y1, t, dash, labels[i].rgb, 255);
    }
    for (int i = 0; i < n && !e && c.font; i++) {
        if (labels[i].placement < 0)
            continue;
        char text[SOM_TEXT_MAX];
        label_text(&marks[i], c.o.label_fmt, text, sizeof(text));
        e = push_tag(&l, &c, &labels[i], text);
    }
    if (e == BASE_ENOMEM || e == BASE_ETOOBIG)
        base_errf(err, e, "som: out of memory for %d marks", n);
    if (!e)
        e = img__ops_apply(img, &l, c.o.kernel, err);
    img__ops_fini(&l);
    base_free(labels);
    return e;
}

/* ---- debug drawing ------------------------------------------------------ */

static float img_scale(const img_image *img)
{
    return img->scale > 0 ? img->scale : 1.0f;
}

static void unpack(uint32_t rgba, uint8_t rgb[3], int *a)
{
    rgb[0] = (uint8_t)(rgba >> 24);
    rgb[1] = (uint8_t)(rgba >> 16);
    rgb[2] = (uint8_t)(rgba >> 8);
    *a = (int)(rgba & 0xff);
}

static base_err push_rect(som_oplist *l, int x0, int y0, int x1, int y1, const uint8_t rgb[3],
                          int a)
{
    if (x1 <= x0 || y1 <= y0)
        return BASE_OK;
    som_op f = {.kind = SOM_OP_FILL, .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1, .alpha = (uint8_t)a};
    memcpy(f.rgb, rgb, 3);
    return img__ops_push(l, &f);
}

static base_err finish(img_image *img, som_oplist *l, base_err e, char *err)
{
    if (e)
        e = base_errf(err, e, "draw: out of memory");
    else
        e = img__ops_apply(img, l, IMG_KERNEL_AUTO, err);
    img__ops_fini(l);
    return e;
}

base_err img_draw_crosshair(img_image *img, base_point p, int radius_px, uint32_t rgba,
                             char *err)
{
    base_err e = check_image(img, err);
    if (e)
        return e;
    uint8_t rgb[3];
    int a = 0;
    unpack(rgba, rgb, &a);
    int r = radius_px > 0 ? radius_px : 12;
    int x = to_px(p.x, img_scale(img));
    int y = to_px(p.y, img_scale(img));
    som_oplist l = {0};
    /* Two arms each side of a 3 px gap so the exact point stays visible,
     * then a centre dot. */
    e = push_rect(&l, x - r, y - 1, x - 2, y + 1, rgb, a);
    if (!e)
        e = push_rect(&l, x + 3, y - 1, x + r + 1, y + 1, rgb, a);
    if (!e)
        e = push_rect(&l, x - 1, y - r, x + 1, y - 2, rgb, a);
    if (!e)
        e = push_rect(&l, x - 1, y + 3, x + 1, y + r + 1, rgb, a);
    if (!e)
        e = push_rect(&l, x, y, x + 1, y + 1, rgb, a);
    return finish(img, &l, e, err);
}

base_err img_draw_polyline(img_image *img, const base_point *pts, int n, int width_px,
                            uint32_t rgba, char *err)
{
    base_err e = check_image(img, err);
    if (e)
        return e;
    if (n < 0 || (n > 0 && !pts))
        return base_errf(err, BASE_EINVAL, "draw: invalid points");
    uint8_t rgb[3];
    int a = 0;
    unpack(rgba, rgb, &a);
    int wpx = width_px > 0 ? width_px : 2;
    float s = img_scale(img);
    som_oplist l = {0};
    /* Each segment is stamped with squares one pixel apart: simple, and with
     * an opaque colour indistinguishable from a stroked line. */
    for (int i = 0; i + 1 < n && !e; i++) {
        float x0 = pts[i].x * s;
        float y0 = pts[i].y * s;
        float dx = pts[i + 1].x * s - x0;
        float dy = pts[i + 1].y * s - y0;
        float len = fabsf(dx) > fabsf(dy) ? fabsf(dx) : fabsf(dy);
        int steps = len < 1.0f ? 1 : (len > 20000.0f ? 20000 : (int)len);
        for (int k = (i == 0 ? 0 : 1); k <= steps && !e; k++) {
            int cx = to_px(x0 + dx * (float)k / (float)steps, 1.0f);
            int cy = to_px(y0 + dy * (float)k / (float)steps, 1.0f);
            int lo = wpx / 2;
            if (cx + wpx < 0 || cy + wpx < 0 || cx - wpx > img->w || cy - wpx > img->h)
                continue;
            e = push_rect(&l, cx - lo, cy - lo, cx - lo + wpx, cy - lo + wpx, rgb, a);
        }
    }
    return finish(img, &l, e, err);
}

base_err img_draw_highlight(img_image *img, base_rect r, uint32_t rgba, char *err)
{
    base_err e = check_image(img, err);
    if (e)
        return e;
    uint8_t rgb[3];
    int a = 0;
    unpack(rgba, rgb, &a);
    img_mark m = {.r = r};
    irect b = mark_box(&m, img_scale(img), img->w, img->h);
    som_oplist l = {0};
    e = push_rect(&l, b.x0, b.y0, b.x1, b.y1, rgb, a / 5);
    if (!e)
        e = img__ops_outline(&l, b.x0 - 2, b.y0 - 2, b.x1 + 2, b.y1 + 2, 4, 0, rgb, a);
    return finish(img, &l, e, err);
}

base_err img_draw_caption(img_image *img, const char *text, char *err)
{
    base_err e = check_image(img, err);
    if (e)
        return e;
    if (!text)
        return base_errf(err, BASE_EINVAL, "draw: no caption text");
    const img_font *f = NULL;
    int fpx = img->h / 40 > 12 ? img->h / 40 : 12;
    e = img_font_get(fpx > 24 ? 24 : fpx, &f, err);
    if (e)
        return e;
    int pad = 4;
    int sh = f->line_h + 2 * pad;
    som_op t = {.kind = SOM_OP_TEXT, .x0 = 0, .y0 = img->h - sh, .x1 = img->w, .y1 = img->h,
                .alpha = 255, .pen_x = pad, .base_y = img->h - sh + pad + f->ascent, .font = f};
    t.rgb[0] = t.rgb[1] = t.rgb[2] = 255;
    /* Cut the text to the strip, ending with "..." when shortened. */
    size_t len = strlen(text);
    size_t keep = len < SOM_TEXT_MAX - 1 ? len : SOM_TEXT_MAX - 1;
    int avail = img->w - 2 * pad;
    int dots = img_font_text_width(f, "...", -1);
    while (keep > 0 && img_font_text_width(f, text, (int)keep) + (keep < len ? dots : 0) > avail)
        keep--;
    snprintf(t.text, sizeof(t.text), "%.*s%s", (int)keep, text, keep < len ? "..." : "");
    static const uint8_t black[3] = {0, 0, 0};
    som_oplist l = {0};
    e = push_rect(&l, 0, img->h - sh, img->w, img->h, black, 190);
    if (!e)
        e = img__ops_push(&l, &t);
    return finish(img, &l, e, err);
}

/* perception/pixel_detect.c: from edge components to controls.
 *
 * Web controls are drawn in a few recognisable ways, and this file looks for
 * exactly those: a closed rectangular outline, from a border or from a filled
 * background against the page (buttons, text fields, checkboxes), and runs
 * of glyphs (text: coloured runs read as links, short plain runs as nav items
 * or labels, small isolated shapes as icons). Components come from
 * pixel_kernels.c; everything here is serial, integer and order-stable, so
 * the output depends only on the pixels.
 *
 * Steps:
 *  1. Each component is a separator (a thin line: ignored), a frame (its
 *     edge pixels lie on its bounding box's border), a mark (small: a glyph,
 *     a glyph cluster or an icon) or a big blob (pictures: ignored).
 *  2. Marks that share a baseline band and sit close together become
 *     phrases (union-find; gap < 0.9 x the taller mark): letters into words
 *     and words into the text of one control, while column gaps split.
 *  3. Frames that hold other frames, span most of the screen or hold
 *     several lines of text are containers (cards, toolbars, dialogs) and
 *     are dropped; their contents stay.
 *  4. Every remaining frame takes the marks inside it (icon + text = one
 *     control) and is classed by shape: small square = checkbox, wide with
 *     no text or text on the left = field, else button.
 *  5. Phrases outside frames are split into runs by ink colour: saturated
 *     runs are links, short plain phrases are "text", a lone square mark is
 *     an icon; an icon right before a text phrase joins it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "perception/pixel_int.h"

#define PIX_MAX_RUNS (4 * 1000 * 1000)
#define PIX_MAX_ELEMS 4000

enum { K_NONE = 0, K_SEP, K_FRAME, K_MARK, K_BLOB };

typedef struct mark {
    int x0, y0, x1, y1;
    int dash;    /* a dash: thin and wide, no other stroke stacked on it ("=" is two) */
    int phrase;  /* union-find parent, then phrase index */
    int used;    /* taken by a control frame */
    int comp;    /* component index */
    int sframe;  /* a small closed outline: a checkbox, or a glyph like "o" */
} mark;

typedef struct phrase {
    int x0, y0, x1, y1;
    int first, n; /* range in the x-sorted mark order */
    int used;
} phrase;

void perc_pixel_opts_init(perc_pixel_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kernel = IMG_KERNEL_AUTO;
}

const char *perc_pixel_class_name(perc_pixel_class c)
{
    switch (c) {
    case PERC_PIXEL_BUTTON:
        return "button";
    case PERC_PIXEL_FIELD:
        return "input";
    case PERC_PIXEL_LINK:
        return "link";
    case PERC_PIXEL_TEXT:
        return "text";
    case PERC_PIXEL_ICON:
        return "icon";
    case PERC_PIXEL_CHECKBOX:
        return "checkbox";
    }
    return "?";
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static const uint8_t *pix(const img_image *img, int x, int y)
{
    x = x < 0 ? 0 : (x >= img->w ? img->w - 1 : x);
    y = y < 0 ? 0 : (y >= img->h ? img->h - 1 : y);
    return img->px + (size_t)img->stride * (size_t)y + 4 * (size_t)x;
}

/* Ink of a mark: the pixel inside its box farthest from the background (the
 * colour at the box's top-left outside corner); saturated ink = link-like. */
static int ink_colored(const img_image *img, const mark *m)
{
    const uint8_t *bg = pix(img, m->x0 - 1, m->y0 - 1);
    int best = -1;
    const uint8_t *ink = bg;
    for (int y = m->y0; y < m->y1; y++) {
        const uint8_t *row = pix(img, m->x0, y);
        for (int x = 0; x < m->x1 - m->x0; x++) {
            const uint8_t *p = row + 4 * x;
            int d = abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]);
            if (d > best) {
                best = d;
                ink = p;
            }
        }
    }
    int mx = imax(ink[0], imax(ink[1], ink[2]));
    int mn = imin(ink[0], imin(ink[1], ink[2]));
    return mx - mn >= 60;
}

static int uf(int *p, int i)
{
    while (p[i] != i) {
        p[i] = p[p[i]];
        i = p[i];
    }
    return i;
}

static int mark_x_cmp(const void *pa, const void *pb)
{
    const mark *a = pa;
    const mark *b = pb;
    if (a->x0 != b->x0)
        return a->x0 < b->x0 ? -1 : 1;
    if (a->y0 != b->y0)
        return a->y0 < b->y0 ? -1 : 1;
    if (a->x1 != b->x1)
        return a->x1 < b->x1 ? -1 : 1;
    return a->y1 < b->y1 ? -1 : a->y1 > b->y1;
}

static int inside(int x0, int y0, int x1, int y1, int X0, int Y0, int X1, int Y1)
{
    return x0 >= X0 && y0 >= Y0 && x1 <= X1 && y1 <= Y1;
}

/* A mark the size and shape of an icon glyph (10-40 px, nearly square):
 * larger than the letters of body text, squarer than the letter clusters
 * of a bold word ("Em"), so two of them standing apart are two icons. */
static int icon_sized(int w, int h, float s)
{
    int lo = (int)(10 * s), hi = (int)(40 * s);
    return w >= lo && h >= lo && w <= hi && h <= hi && w * 10 <= h * 13 && h * 10 <= w * 13;
}

/* Two icon-sized glyphs a clear gap apart (half their height: more than
 * the letters of a large heading or a word space leave, at least 3 px) are
 * separate icons: a star and a trash can side by side in a row of icon
 * buttons are two controls, not one word. */
static int icons_apart(int ax0, int ay0, int ax1, int ay1, int bx0, int by0, int bx1, int by1,
                       float s)
{
    if (!icon_sized(ax1 - ax0, ay1 - ay0, s) || !icon_sized(bx1 - bx0, by1 - by0, s))
        return 0;
    int gap = imax(ax0, bx0) - imin(ax1, bx1);
    int hmax = imax(ay1 - ay0, by1 - by0);
    int wmin = imin(ax1 - ax0, bx1 - bx0);
    /* Letters of a bold or large word merge into components of icon size
     * too; a word space is narrower than most of such a component. */
    return gap >= imax((int)(3 * s), hmax / 2) && gap * 10 >= wmin * 6;
}

/* Two marks belong to one phrase: same text band, similar size, close. */
static int joinable(const mark *a, const mark *b, float s)
{
    if (icons_apart(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0, b->x1, b->y1, s))
        return 0;
    int ha = a->y1 - a->y0;
    int hb = b->y1 - b->y0;
    int hmax = imax(ha, hb);
    int hmin = imin(ha, hb);
    int ov = imin(a->y1, b->y1) - imax(a->y0, b->y0);
    if (ov < (hmin + 1) / 2)
        return 0;
    /* Glyph heights differ (x-height vs ascenders) but not by 3x, except
     * for punctuation-sized marks. */
    if (hmax > 3 * hmin && hmin > (int)(4 * s))
        return 0;
    int gap = imax(a->x0, b->x0) - imin(a->x1, b->x1);
    /* A shape over twice the height of the glyphs beside it and apart from
     * them is its own control (a date picker's ringed or filled "today"),
     * not a letter; an icon before its label is joined later, as a whole
     * (step 5). */
    if (hmax > 2 * hmin && hmin > (int)(4 * s) && gap >= (int)(2 * s)) {
        const mark *big = ha > hb ? a : b, *small = ha > hb ? b : a;
        int bw = big->x1 - big->x0;
        /* Round or square, at least 16 px, and reaching well above and
         * below the glyphs: a disc around a day, not a "g" beside a "+". */
        if (hmax >= (int)(16 * s) && bw * 10 >= hmax * 8 && bw * 10 <= hmax * 12 &&
            small->y0 - big->y0 >= hmin / 3 && big->y1 - small->y1 >= hmin / 3)
            return 0;
    }
    int lim = (int)(0.9f * (float)hmax + 1.0f * s);
    /* A dash sits a space or less from its words ("co-op", "A - B"); one
     * farther off is a control of its own (a stepper's minus). */
    if (a->dash || b->dash)
        lim = (int)(0.4f * (float)hmax + 1.0f * s);
    /* A small outline is a letter only when it touches its neighbours the
     * way letters do; a checkbox keeps a margin from its label. */
    if (a->sframe || b->sframe) {
        lim = (int)(2 * s);
        /* A letter never holds another; an outline holding a mark is a
         * control with its icon (a chevron button). */
        if (inside(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0, b->x1, b->y1) ||
            inside(b->x0, b->y0, b->x1, b->y1, a->x0, a->y0, a->x1, a->y1))
            return 0;
    }
    return gap <= lim;
}

typedef struct gbox {
    int x0, y0, x1, y1, root, n, sframe;
} gbox;

static int gbox_cmp(const void *pa, const void *pb)
{
    const gbox *a = pa;
    const gbox *b = pb;
    if (a->x0 != b->x0)
        return a->x0 < b->x0 ? -1 : 1;
    return a->root - b->root;
}

/* Unions groups of marks (roots of par) whose boxes are on one line and a
 * word space apart. Allocation failure leaves the letter-level groups. */
static void merge_groups(const mark *m, int *par, int nm, float s)
{
    gbox *g = base_malloc((nm ? (size_t)nm : 1) * sizeof *g);
    int *slot = base_malloc((nm ? (size_t)nm : 1) * sizeof *slot);
    if (!g || !slot) {
        base_free(g);
        base_free(slot);
        return;
    }
    int ng = 0;
    for (int i = 0; i < nm; i++) {
        int r = uf(par, i);
        if (r == i) {
            slot[i] = ng;
            g[ng++] = (gbox){m[i].x0, m[i].y0, m[i].x1, m[i].y1, i, 0, 0};
        }
    }
    for (int i = 0; i < nm; i++) {
        gbox *b = &g[slot[uf(par, i)]];
        b->x0 = imin(b->x0, m[i].x0);
        b->y0 = imin(b->y0, m[i].y0);
        b->x1 = imax(b->x1, m[i].x1);
        b->y1 = imax(b->y1, m[i].y1);
        b->n++;
        b->sframe = m[i].sframe;
    }
    qsort(g, (size_t)ng, sizeof *g, gbox_cmp);
    int maxh = 0;
    for (int i = 0; i < ng; i++)
        maxh = imax(maxh, g[i].y1 - g[i].y0);
    for (int i = 0; i < ng; i++) {
        if (g[i].n == 1 && g[i].sframe)
            continue;
        int hi = g[i].y1 - g[i].y0;
        for (int j = i + 1; j < ng && g[j].x0 <= g[i].x1 + maxh; j++) {
            if (g[j].n == 1 && g[j].sframe)
                continue;
            int hj = g[j].y1 - g[j].y0;
            int hmin = imin(hi, hj), hmax = imax(hi, hj);
            int ov = imin(g[i].y1, g[j].y1) - imax(g[i].y0, g[j].y0);
            int gap = g[j].x0 - g[i].x1;
            if (ov * 10 < hmin * 6 || hmax > 2 * hmin || gap > (int)(0.6f * (float)hmax + s))
                continue;
            if (g[i].n == 1 && g[j].n == 1 &&
                icons_apart(g[i].x0, g[i].y0, g[i].x1, g[i].y1, g[j].x0, g[j].y0, g[j].x1,
                            g[j].y1, s))
                continue;
            int a = uf(par, g[i].root);
            int b = uf(par, g[j].root);
            if (a != b)
                par[imax(a, b)] = imin(a, b);
        }
    }
    base_free(g);
    base_free(slot);
}

/* A text field's inside is white or nearly (a button is filled): the
 * median luma of 5 points just inside the outline, away from its text. */
static int light_inside(const img_image *img, const pixel_comp *f)
{
    int cy = (f->y0 + f->y1) / 2, cx = (f->x0 + f->x1) / 2;
    int pts[5][2] = {{f->x0 + 3, cy}, {f->x1 - 4, cy}, {cx, f->y0 + 3}, {cx, f->y1 - 4},
                     {f->x1 - 4, f->y0 + 3}};
    int v[5];
    for (int i = 0; i < 5; i++) {
        const uint8_t *p = pix(img, pts[i][0], pts[i][1]);
        int sat = imax(p[0], imax(p[1], p[2])) - imin(p[0], imin(p[1], p[2]));
        v[i] = sat > 24 ? 0 : (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8;
    }
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[2] >= 228;
}

/* Outlines small enough to be a glyph as well as a control. Only hollow
 * ones (nearly every pixel on the border, as a drawn box) can be a control;
 * the rest are letters outright. */
static int small_frame(const pixel_comp *c, float s)
{
    return c->x1 - c->x0 <= (int)(28 * s) && c->y1 - c->y0 <= (int)(28 * s);
}

static int hollow(const pixel_comp *c)
{
    return c->nborder * 10 >= c->npx * 9;
}

static int elem_cmp(const void *pa, const void *pb)
{
    const perc_pixel_elem *a = pa;
    const perc_pixel_elem *b = pb;
    if (a->y0 != b->y0)
        return a->y0 < b->y0 ? -1 : 1;
    if (a->x0 != b->x0)
        return a->x0 < b->x0 ? -1 : 1;
    if (a->y1 != b->y1)
        return a->y1 < b->y1 ? -1 : 1;
    if (a->x1 != b->x1)
        return a->x1 < b->x1 ? -1 : 1;
    return (int)a->cls - (int)b->cls;
}

typedef struct elist {
    perc_pixel_elem *v;
    int n, cap;
} elist;

static int push(elist *l, perc_pixel_elem e)
{
    if (l->n >= PIX_MAX_ELEMS)
        return 0;
    l->v[l->n++] = e;
    return 0;
}

/* Text box padded to the line box a browser would lay out. */
static perc_pixel_elem text_elem(const img_image *img, int x0, int y0, int x1, int y1,
                                 perc_pixel_class cls, float conf, float s)
{
    int py = imax((int)(2 * s), (y1 - y0) / 4);
    int px = (int)(2 * s);
    perc_pixel_elem e = {imax(0, x0 - px), imax(0, y0 - py), imin(img->w, x1 + px),
                         imin(img->h, y1 + py), x0, y0, x1, y1, cls, conf};
    return e;
}

/* A bar glyph ("|") separating menu items: thin (a 1 px stroke leaves
 * 2-3 px of edges), nearly line-tall, standing a space apart from both
 * neighbours and reaching below the baseline. "l", "I" and "1" are as thin
 * and tall, but sit on the baseline and touch their word ("Portugal"), or
 * are a word of their own on it ("I accept"); taking them for bars split
 * phrases and cut letters off. idx holds the phrase's n marks in x order;
 * base is the baseline (the median bottom of its marks). */
static int is_sep(const mark *m, const int *idx, int n, int k, int line_h, int base, float s)
{
    const mark *c = &m[idx[k]];
    if (c->x1 - c->x0 > (int)(3 * s) || (c->y1 - c->y0) * 10 < line_h * 7)
        return 0;
    if (c->y1 < base + imax(1, line_h / 10))
        return 0;
    int apart = imax((int)(2 * s), line_h / 6);
    int prev_x1 = -(1 << 30);
    for (int j = 0; j < k; j++)
        prev_x1 = imax(prev_x1, m[idx[j]].x1);
    if (k > 0 && c->x0 - prev_x1 < apart)
        return 0;
    if (k + 1 < n && m[idx[k + 1]].x0 - c->x1 < apart)
        return 0;
    return 1;
}

static int int_cmp(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* The baseline of a phrase: the median bottom edge of its marks other than
 * thin strokes (bars, "l", "i" stems), which are a large share of a short
 * menu line's marks; most glyphs and words sit on it, descenders are the
 * minority. tmp holds n ints. */
static int baseline(const mark *m, const int *idx, int n, int *tmp, float s)
{
    int k = 0;
    for (int j = 0; j < n; j++)
        if (m[idx[j]].x1 - m[idx[j]].x0 > (int)(3 * s))
            tmp[k++] = m[idx[j]].y1;
    if (k == 0)
        for (int j = 0; j < n; j++)
            tmp[k++] = m[idx[j]].y1;
    if (k == 0)
        return 0;
    qsort(tmp, (size_t)k, sizeof *tmp, int_cmp);
    return tmp[(k - 1) / 2];
}

/* Phrase p has no text line right above or below it overlapping it: a
 * line of its own (nav bar, breadcrumb, heading), not part of a paragraph. */
static int lone_line(const phrase *ph, int np, int p)
{
    const phrase *a = &ph[p];
    int h = a->y1 - a->y0;
    for (int i = 0; i < np; i++) {
        const phrase *b = &ph[i];
        if (i == p || b->x1 <= a->x0 || b->x0 >= a->x1)
            continue;
        int gap = b->y0 >= a->y1 ? b->y0 - a->y1 : (a->y0 >= b->y1 ? a->y0 - b->y1 : -1);
        int hb = b->y1 - b->y0;
        if (gap >= 0 && gap < h && hb * 2 >= h && hb <= 2 * h)
            return 0;
    }
    return 1;
}

/* Emits the items of a one-line phrase (marks in x order) as text
 * elements: split at bars and at word gaps (which item a multi-word link
 * spans the pixels cannot say; each word's centre still lies on it). bar[k]
 * says mark k is a separator bar. */
static void split_line(const img_image *img, const mark *m, const int *idx, int n, int line_h,
                       const char *bar, int min_w, float s, elist *out)
{
    int gap_min = imax((int)(3 * s), (line_h * 3) / 10);
    int x0 = 0, y0 = 0, x1 = -1, y1 = 0;
    for (int k = 0; k <= n; k++) {
        const mark *c = k < n ? &m[idx[k]] : NULL;
        int gap = x1 >= 0 && c ? c->x0 - x1 : 0;
        int brk = !c || bar[k] || gap >= gap_min;
        if (brk && x1 >= 0) {
            if (x1 - x0 >= min_w)
                push(out, text_elem(img, x0, y0, x1, y1, PERC_PIXEL_TEXT, 0.3f, s));
            x1 = -1;
        }
        if (!c || bar[k])
            continue;
        if (x1 < 0) {
            x0 = c->x0;
            y0 = c->y0;
            x1 = c->x1;
            y1 = c->y1;
        } else {
            x1 = imax(x1, c->x1);
            y0 = imin(y0, c->y0);
            y1 = imax(y1, c->y1);
        }
    }
}

/* Ink class of a column of a mark's box: 0 none (nothing far from the
 * background bg), 1 plain, 2 saturated colour. */
static int column_ink(const img_image *img, int x, int y0, int y1, const uint8_t *bg)
{
    int best = -1;
    const uint8_t *ink = bg;
    for (int y = y0; y < y1; y++) {
        const uint8_t *p = pix(img, x, y);
        int d = abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]);
        if (d > best) {
            best = d;
            ink = p;
        }
    }
    /* Faint ink (a pale heading, a glyph's edge alone) says too little
     * about its colour to split on. */
    if (best < 120)
        return 0;
    /* Anti-aliasing blends the ink with the background, which scales its
     * chroma and its distance alike: the ratio says whether the ink is
     * coloured even in a column that only a glyph's faint edge reaches. */
    int mx = imax(ink[0], imax(ink[1], ink[2]));
    int mn = imin(ink[0], imin(ink[1], ink[2]));
    return (mx - mn) * 7 >= best ? 2 : 1;
}

/* Rows of [x0, x1) x [y0, y1) holding ink (far from bg): *ry0, *ry1. */
static void ink_rows(const img_image *img, int x0, int x1, int y0, int y1, const uint8_t *bg,
                     int *ry0, int *ry1)
{
    int a = y1, b = y0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = pix(img, x, y);
            if (abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) >= 60) {
                a = imin(a, y);
                b = imax(b, y + 1);
                break;
            }
        }
    *ry0 = a < b ? a : y0;
    *ry1 = a < b ? b : y1;
}

/* The marks of component c (index ci): one, or up to cap pieces when its
 * ink changes colour along the line (a blue link word and the black comma
 * after it touch and make one component; a person sees a link and a
 * comma). Pieces split at the first column of the new colour; a colour
 * over fewer than 2 columns is anti-aliasing, not a change. Returns the
 * number written to out. */
static int split_by_ink(const img_image *img, const pixel_comp *c, int ci, mark *out, int cap,
                        float s)
{
    int w = c->x1 - c->x0, h = c->y1 - c->y0;
    out[0] = (mark){c->x0, c->y0, c->x1, c->y1, 0, 0, 0, ci, 0};
    if (cap < 2 || w < (int)(6 * s) || w > 512 || h < (int)(5 * s) || h > (int)(40 * s))
        return 1;
    const uint8_t *bg = pix(img, c->x0 - 1, c->y0 - 1);
    /* Segments of columns of one ink class (empty columns between columns
     * of the same class do not end a segment). */
    int seg_k[64], seg_x[64], seg_n[64];
    int ns = 0;
    for (int x = c->x0; x < c->x1; x++) {
        int k = column_ink(img, x, c->y0, c->y1, bg);
        if (k == 0)
            continue;
        if (ns > 0 && seg_k[ns - 1] == k) {
            seg_n[ns - 1]++;
            continue;
        }
        if (ns == 64)
            return 1;
        seg_k[ns] = k;
        seg_x[ns] = x;
        seg_n[ns++] = 1;
    }
    /* Merge segments under 2 columns into their left neighbour. */
    int k = 0;
    for (int i = 0; i < ns; i++) {
        if (k > 0 && (seg_n[i] < 2 || seg_k[i] == seg_k[k - 1])) {
            seg_n[k - 1] += seg_n[i];
            continue;
        }
        seg_k[k] = seg_k[i];
        seg_x[k] = seg_x[i];
        seg_n[k++] = seg_n[i];
    }
    if (k < 2 || k > cap)
        return 1;
    int n = 0;
    for (int i = 0; i < k; i++) {
        int px0 = i == 0 ? c->x0 : seg_x[i];
        int px1 = i + 1 < k ? seg_x[i + 1] : c->x1;
        int ry0, ry1;
        ink_rows(img, px0, px1, c->y0, c->y1, bg, &ry0, &ry1);
        out[n++] = (mark){px0, ry0, px1, ry1, 0, 0, 0, ci, 0};
    }
    return n;
}

/* Mark mk of a phrase (baseline base, width pw) is underlined: a thin
 * horizontal line (one of the nul components ul) runs under its middle,
 * just below the baseline, and is no wider than the phrase (a heading's
 * rule or a table border runs on). Underlined words in plain text are links
 * drawn in the text's colour. */
static int underlined(const img_image *img, const pixel_comp *c, const int *ul, int nul,
                      const mark *mk, int base, int pw, float s)
{
    int cx = (mk->x0 + mk->x1) / 2;
    /* An underline a descender touches is part of the word's component:
     * then one of the mark's lowest rows is ink almost end to end (in a
     * word-shaped mark: a dash is all "bottom row"). */
    int w = mk->x1 - mk->x0;
    if (w >= (int)(8 * s) && w >= 2 * (mk->y1 - mk->y0) && mk->y1 - mk->y0 >= (int)(6 * s)) {
        const uint8_t *bg = pix(img, mk->x0 - 1, mk->y0 - 1);
        /* Ink per row, from the bottom up (rows[0] = the lowest). */
        int rows[8], nr = 0;
        for (int y = mk->y1 - 1; y >= mk->y1 - 8 && y > mk->y0; y--) {
            int ink = 0;
            for (int x = mk->x0; x < mk->x1; x++) {
                const uint8_t *p = pix(img, x, y);
                ink += abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) >= 60;
            }
            rows[nr++] = ink;
        }
        int top = 0;
        for (int x = mk->x0; x < mk->x1; x++) {
            const uint8_t *p = pix(img, x, mk->y0);
            top += abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) >= 60;
        }
        /* The line is one of the lowest 3 rows, and a row between it and
         * the letters is mostly clear (only descenders cross it): the
         * touching bottoms of bold letters ("addr") fill several rows in
         * a row. A top row as full says the background sample is wrong. */
        for (int r = 0; top * 2 < w && r < 3 && r < nr; r++) {
            if (rows[r] * 20 < w * 17)
                continue;
            for (int g = r + 1; g < nr && g <= r + 3; g++)
                if (rows[g] * 2 <= w)
                    return 1;
        }
    }
    for (int i = 0; i < nul; i++) {
        const pixel_comp *u = &c[ul[i]];
        if (u->x0 <= cx && cx < u->x1 && u->y0 >= base - 1 && u->y0 <= base + (int)(3 * s) &&
            u->x1 - u->x0 <= pw + (int)(4 * s) && ul[i] != mk->comp)
            return 1;
    }
    return 0;
}

/* The phrase (marks idx in x order, line height line_h) is a row of a
 * grid of cells: at least three short words (split at gaps of at least
 * max(3 px, 0.3 x line height); every gap at least half the line height,
 * wider than a word space) whose centres repeat at one pitch (each
 * step within 2 px + 10 % of the median step), each narrower than the
 * pitch leaves room for: a date picker's week, a pagination bar, a keypad
 * row. Running text never keeps one pitch from word to word. */
static int grid_row(const mark *m, const int *idx, int n, int line_h, float s)
{
    int gap_min = imax((int)(3 * s), (line_h * 3) / 10);
    int cx[32], wx0 = 0, wx1 = -1, nw = 0;
    for (int k = 0; k <= n; k++) {
        const mark *c = k < n ? &m[idx[k]] : NULL;
        if (wx1 >= 0 && (!c || c->x0 - wx1 >= gap_min)) {
            /* Cells leave more room between their contents than a word
             * space ("Call 1 now", "Read the docs" keep a pitch too). */
            if (nw == 32 || wx1 - wx0 > 4 * line_h || (c && c->x0 - wx1 < line_h / 2))
                return 0;
            cx[nw++] = wx0 + wx1; /* twice the centre */
            wx1 = -1;
        }
        if (!c)
            break;
        if (wx1 < 0) {
            wx0 = c->x0;
            wx1 = c->x1;
        } else {
            wx1 = imax(wx1, c->x1);
        }
    }
    if (nw < 3)
        return 0;
    int step[31];
    for (int i = 1; i < nw; i++)
        step[i - 1] = cx[i] - cx[i - 1];
    int sorted[31];
    memcpy(sorted, step, (size_t)(nw - 1) * sizeof *step);
    qsort(sorted, (size_t)(nw - 1), sizeof *sorted, int_cmp);
    int med = sorted[(nw - 2) / 2];
    /* Cells are at least 1.8 of their text's height apart (a date picker's
     * 2.1-2.2): monospace code keeps one pitch too ("x = 0", "if x < 0:"
     * at 1.4-1.65 line heights), as do the letters of a large heading. */
    if (med < (int)(2 * 12 * s) || 10 * med < 36 * line_h)
        return 0;
    for (int i = 0; i < nw - 1; i++)
        if (abs(step[i] - med) > (int)(2 * 2 * s) + med / 10)
            return 0;
    return 1;
}

/* Mark d, a dash that joined no word, stands on its own as a control (a
 * stepper's minus): it is not cut by the image's edge (the tops of letters
 * below the viewport's bottom look like dashes) and no other mark lies
 * beside it closer than max(3 px, half that mark's height) on rows that
 * reach it (give or take 3 px): an underscore under code ("PRIO_PGRP") or
 * the last dash of "-rw-r--r--" sits that close to its text. */
static int dash_alone(const mark *m, int nm, int d, int W, int H, float s)
{
    const mark *a = &m[d];
    if (a->x0 <= 0 || a->y0 <= 0 || a->x1 >= W || a->y1 >= H)
        return 0;
    int cy = (a->y0 + a->y1) / 2, slack = (int)(3 * s);
    for (int j = 0; j < nm; j++) {
        const mark *b = &m[j];
        if (j == d || b->y0 - slack > cy || b->y1 + slack <= cy)
            continue;
        int gap = imax(a->x0, b->x0) - imin(a->x1, b->x1);
        if (gap <= imax((int)(3 * s), (b->y1 - b->y0) / 2))
            return 0;
    }
    return 1;
}

static base_err classify(const img_image *img, const pixel_comp *c, int nc, elist *out)
{
    float s = img->scale >= 0.25f ? img->scale : 1.0f;
    int W = img->w;
    int H = img->h;
    int nf = 0, nm = 0;
    char *kind = base_calloc(nc ? (size_t)nc : 1, 1);
    if (!kind)
        return BASE_ENOMEM;
    for (int i = 0; i < nc; i++) {
        int w = c[i].x1 - c[i].x0;
        int h = c[i].y1 - c[i].y0;
        int perim = 2 * (w + h);
        if ((h <= (int)(3 * s) && w >= (int)(20 * s)) || (w <= (int)(3 * s) && h >= (int)(20 * s)))
            kind[i] = K_SEP;
        else if (w >= (int)(11 * s) && h >= (int)(11 * s) && c[i].nborder * 10 >= 8 * perim &&
                 c[i].nborder * 10 >= 6 * c[i].npx && c[i].side[0] * 10 >= 7 * w &&
                 c[i].side[1] * 10 >= 7 * w && c[i].side[2] * 10 >= 4 * h &&
                 c[i].side[3] * 10 >= 4 * h)
            kind[i] = K_FRAME;
        else if (h <= (int)(64 * s) && w <= (int)(480 * s))
            kind[i] = K_MARK;
        else
            kind[i] = K_BLOB;
        nf += kind[i] == K_FRAME;
        nm += kind[i] == K_MARK || (kind[i] == K_FRAME && small_frame(&c[i], s));
    }
    /* A mark may split in two or three at an ink colour change: room for
     * twice as many. */
    int mcap = 2 * nm + 8;
    nm = mcap;
    mark *m = base_calloc((size_t)nm, sizeof *m);
    int *par = base_malloc((nm ? (size_t)nm : 1) * sizeof *par);
    int *fr = base_malloc((nf ? (size_t)nf : 1) * sizeof *fr);
    phrase *ph = base_calloc(nm ? (size_t)nm : 1, sizeof *ph);
    int *order = base_malloc((nm ? (size_t)nm : 1) * sizeof *order);
    char *container = base_calloc(nf ? (size_t)nf : 1, 1);
    char *bar = base_calloc(nm ? (size_t)nm : 1, 1);
    int *tmp = base_malloc((nm ? (size_t)nm : 1) * sizeof *tmp);
    /* Thin horizontal lines that may underline words (step 5). */
    int nul = 0;
    for (int i = 0; i < nc; i++)
        nul += c[i].y1 - c[i].y0 <= (int)(2 * s) && c[i].x1 - c[i].x0 >= (int)(6 * s);
    int *ul = base_malloc((nul ? (size_t)nul : 1) * sizeof *ul);
    if (!m || !par || !fr || !ph || !order || !container || !bar || !tmp || !ul) {
        base_free(ul);
        base_free(bar);
        base_free(tmp);
        base_free(kind);
        base_free(m);
        base_free(par);
        base_free(fr);
        base_free(ph);
        base_free(order);
        base_free(container);
        return BASE_ENOMEM;
    }
    nf = nm = 0;
    for (int i = 0; i < nc; i++) {
        int small = kind[i] == K_FRAME && small_frame(&c[i], s);
        int sf = small && hollow(&c[i]);
        if (small && !sf)
            kind[i] = K_MARK;
        if (kind[i] == K_FRAME && !sf)
            fr[nf++] = i;
        else if (sf)
            m[nm++] = (mark){c[i].x0, c[i].y0, c[i].x1, c[i].y1, 0, 0, 0, i, sf};
        else if (kind[i] == K_MARK)
            nm += split_by_ink(img, &c[i], i, m + nm, imin(3, mcap - nm), s);
    }
    base_free(kind);
    nul = 0;
    for (int i = 0; i < nc; i++)
        if (c[i].y1 - c[i].y0 <= (int)(2 * s) && c[i].x1 - c[i].x0 >= (int)(6 * s))
            ul[nul++] = i;

    /* 2. Phrases: marks sorted by x; a candidate partner lies within the
     * largest gap any pair of this height could bridge. */
    qsort(m, (size_t)nm, sizeof *m, mark_x_cmp);
    /* Dashes: a thin wide mark with no other thin mark just above or below
     * it overlapping its columns. Marks are in x order, so the stacked
     * partner starts before this one ends. */
    for (int i = 0; i < nm; i++) {
        if (m[i].y1 - m[i].y0 > (int)(4 * s) || m[i].x1 - m[i].x0 < (int)(5 * s))
            continue;
        int stacked = 0;
        for (int j = 0; j < nm && m[j].x0 < m[i].x1 && !stacked; j++)
            stacked = j != i && m[j].x1 > m[i].x0 && m[j].y1 - m[j].y0 <= (int)(4 * s) &&
                      abs(m[j].y0 - m[i].y0) <= (int)(8 * s);
        m[i].dash = !stacked;
    }
    for (int i = 0; i < nm; i++)
        par[i] = i;
    int maxh = 0;
    for (int i = 0; i < nm; i++)
        maxh = imax(maxh, m[i].y1 - m[i].y0);
    int reach = (int)(0.9f * (float)maxh + 1.0f * s) + 1;
    /* Keep, per mark, the rightmost edge so far: marks are sorted by x0, so
     * once x0 passes every earlier x1 + reach nothing further can join. */
    for (int i = 0; i < nm; i++) {
        for (int j = i + 1; j < nm && m[j].x0 <= m[i].x1 + reach; j++) {
            if (joinable(&m[i], &m[j], s)) {
                int a = uf(par, i);
                int b = uf(par, j);
                if (a != b)
                    par[imax(a, b)] = imin(a, b);
            }
        }
    }
    /* Words into phrases: the letter-level pass above cannot bridge a word
     * gap next to an outlined letter ("o", "0"), so join whole groups whose
     * boxes share a line and sit within a word space. A group that is a
     * single small outline (a checkbox) stays apart from its label. */
    merge_groups(m, par, nm, s);
    int np = 0;
    for (int i = 0; i < nm; i++) {
        int r = uf(par, i);
        if (r == i) {
            m[i].phrase = np;
            ph[np++] = (phrase){m[i].x0, m[i].y0, m[i].x1, m[i].y1, 0, 0, 0};
        } else {
            m[i].phrase = m[r].phrase; /* r < i: already numbered */
            phrase *p = &ph[m[i].phrase];
            p->x0 = imin(p->x0, m[i].x0);
            p->y0 = imin(p->y0, m[i].y0);
            p->x1 = imax(p->x1, m[i].x1);
            p->y1 = imax(p->y1, m[i].y1);
        }
    }
    /* Marks grouped by phrase, in x order within each (counting sort). */
    for (int i = 0; i < nm; i++)
        ph[m[i].phrase].n++;
    for (int p = 0, acc = 0; p < np; p++) {
        ph[p].first = acc;
        acc += ph[p].n;
        ph[p].n = 0;
    }
    for (int i = 0; i < nm; i++) {
        phrase *p = &ph[m[i].phrase];
        order[p->first + p->n++] = i;
    }
    /* A small outline alone in its phrase is a control (checkbox, tiny
     * button); in a phrase it is a letter. Frames stay in component order. */
    for (int i = 0; i < nm; i++) {
        if (!m[i].sframe || ph[m[i].phrase].n != 1)
            continue;
        m[i].used = 1;
        ph[m[i].phrase].used = 1;
        int at = nf++;
        while (at > 0 && fr[at - 1] > m[i].comp) {
            fr[at] = fr[at - 1];
            at--;
        }
        fr[at] = m[i].comp;
    }

    /* 3. Containers among frames. */
    long long img_area = (long long)W * H;
    for (int a = 0; a < nf; a++) {
        const pixel_comp *f = &c[fr[a]];
        int w = f->x1 - f->x0;
        int h = f->y1 - f->y0;
        long long area = (long long)w * h;
        long long inner = 0;
        int kids = 0;
        for (int b = 0; b < nf; b++) {
            const pixel_comp *g = &c[fr[b]];
            if (b == a || !inside(g->x0, g->y0, g->x1, g->y1, f->x0, f->y0, f->x1, f->y1))
                continue;
            if (g->x0 == f->x0 && g->y0 == f->y0 && g->x1 == f->x1 && g->y1 == f->y1 && b < a)
                continue;
            kids++;
            inner += (long long)(g->x1 - g->x0) * (g->y1 - g->y0);
        }
        /* Text lines inside: rows covered by phrases, counted as runs. */
        int lines = 0;
        if (h <= (int)(160 * s) && w <= (W * 3) / 5) {
            uint8_t rows[1024];
            int nrow = h < 1024 ? h : 1024;
            memset(rows, 0, (size_t)nrow);
            for (int p = 0; p < np; p++) {
                if (!inside(ph[p].x0, ph[p].y0, ph[p].x1, ph[p].y1, f->x0, f->y0, f->x1, f->y1))
                    continue;
                for (int y = ph[p].y0; y < ph[p].y1 && y - f->y0 < nrow; y++)
                    rows[y - f->y0] = 1;
            }
            for (int y = 0; y < nrow; y++)
                lines += rows[y] && (y == 0 || !rows[y - 1]);
        }
        /* A card: other controls plus text of its own on several lines. */
        container[a] = kids >= 3 || inner * 2 >= area || h > (int)(160 * s) ||
                       w > (W * 3) / 5 || area * 7 > img_area || (lines >= 3 && h > (int)(48 * s)) ||
                       (kids >= 1 && lines >= 2);
    }

    /* 4. Every frame that is not a container is a control; its text is the
     * union of the marks inside it (icon + text = one control). */
    for (int a = 0; a < nf; a++) {
        if (container[a])
            continue;
        const pixel_comp *f = &c[fr[a]];
        int tx0 = 1 << 30, ty0 = 1 << 30, tx1 = -1, ty1 = -1;
        int last = -1; /* the rightmost mark inside */
        for (int i = 0; i < nm; i++) {
            if (m[i].used ||
                !inside(m[i].x0, m[i].y0, m[i].x1, m[i].y1, f->x0, f->y0, f->x1, f->y1))
                continue;
            tx0 = imin(tx0, m[i].x0);
            ty0 = imin(ty0, m[i].y0);
            tx1 = imax(tx1, m[i].x1);
            ty1 = imax(ty1, m[i].y1);
            if (last < 0 || m[i].x1 > m[last].x1 || (m[i].x1 == m[last].x1 && m[i].x0 > m[last].x0))
                last = i;
        }
        /* Where the text ends, not counting a dropdown arrow: a small mark
         * at the right edge, well apart from the text before it (a
         * <select>, a combobox). Such a box is laid out like a field. */
        int text_end = tx1;
        if (last >= 0 && m[last].x1 - m[last].x0 <= (int)(16 * s) &&
            m[last].y1 - m[last].y0 <= (int)(16 * s) && f->x1 - m[last].x1 <= (int)(24 * s)) {
            int before = -1;
            for (int i = 0; i < nm; i++)
                if (i != last && !m[i].used && m[i].x1 <= m[last].x0 &&
                    inside(m[i].x0, m[i].y0, m[i].x1, m[i].y1, f->x0, f->y0, f->x1, f->y1))
                    before = imax(before, m[i].x1);
            if (before >= 0 && m[last].x0 - before >= (int)(24 * s))
                text_end = before;
        }
        int w = f->x1 - f->x0;
        int h = f->y1 - f->y0;
        int has_text = tx1 > tx0;
        perc_pixel_class cls = PERC_PIXEL_BUTTON;
        float conf = 0.8f;
        int lo = (int)(11 * s), hi = (int)(34 * s);
        if (w >= lo && w <= hi && h >= lo && h <= hi && w * 10 <= h * 14 && h * 10 <= w * 14 &&
            (!has_text || (tx1 - tx0) * 2 <= w)) {
            cls = PERC_PIXEL_CHECKBOX;
        } else if (w >= 3 * h && light_inside(img, f) &&
                   (!has_text || (tx0 - f->x0) * 2 < (f->x1 - text_end) - (int)(8 * s))) {
            cls = PERC_PIXEL_FIELD;
        } else if (!has_text) {
            conf = 0.5f; /* an empty box: a swatch or a picture frame as likely */
        }
        /* A left or top boundary marks the pixel before it (each pixel is
         * compared with its right and lower neighbour), a right or bottom
         * one the last pixel inside: the drawn box starts one pixel in. */
        perc_pixel_elem e = {imin(f->x0 + 1, f->x1 - 1), imin(f->y0 + 1, f->y1 - 1), f->x1, f->y1,
                             0, 0, 0, 0, cls, conf};
        if (has_text) {
            /* A field's dropdown arrow is no text to read. */
            e.tx0 = tx0;
            e.ty0 = ty0;
            e.tx1 = cls == PERC_PIXEL_FIELD ? text_end : tx1;
            e.ty1 = ty1;
        }
        push(out, e);
    }
    /* Marks inside a kept frame belong to it. */
    for (int a = 0; a < nf; a++) {
        if (container[a])
            continue;
        const pixel_comp *f = &c[fr[a]];
        for (int i = 0; i < nm; i++)
            if (inside(m[i].x0, m[i].y0, m[i].x1, m[i].y1, f->x0, f->y0, f->x1, f->y1))
                m[i].used = 1;
    }

    /* 5. Phrases outside frames. */
    int first_text = out->n;
    for (int p = 0; p < np; p++) {
        phrase *q = &ph[p];
        int any_free = 0;
        for (int k = 0; k < q->n; k++)
            any_free |= !m[order[q->first + k]].used;
        if (!any_free)
            continue;
        int pw = q->x1 - q->x0;
        int phh = q->y1 - q->y0;
        /* A lone dash of button size standing apart from any text: a
         * stepper's minus ("−"), drawn as one thin glyph. */
        if (q->n == 1 && phh <= (int)(4 * s) && pw >= (int)(6 * s) && pw <= (int)(24 * s) &&
            dash_alone(m, nm, order[q->first], W, H, s)) {
            perc_pixel_elem e = text_elem(img, q->x0, q->y0, q->x1, q->y1, PERC_PIXEL_ICON, 0.4f, s);
            int pad = pw / 2;
            e.y0 = imax(0, q->y0 - pad);
            e.y1 = imin(img->h, q->y1 + pad);
            push(out, e);
            continue;
        }
        if (phh < (int)(5 * s))
            continue; /* dots and dashes */
        /* A lone square-ish mark of icon size. */
        if (q->n == 1 && pw >= (int)(10 * s) && phh >= (int)(10 * s) && pw <= (int)(48 * s) &&
            phh <= (int)(48 * s) && pw * 2 >= phh && phh * 2 >= pw) {
            push(out, text_elem(img, q->x0, q->y0, q->x1, q->y1, PERC_PIXEL_ICON, 0.5f, s));
            continue;
        }
        /* A menu ("previous | next | index") or a breadcrumb on a line of
         * its own: its items are what one clicks, whatever their colour. */
        int seps = 0, ncol = 0;
        int base = baseline(m, order + q->first, q->n, tmp, s);
        for (int k = 0; k < q->n; k++) {
            const mark *mk = &m[order[q->first + k]];
            bar[k] = (char)is_sep(m, order + q->first, q->n, k, phh, base, s);
            seps += bar[k];
            ncol += !mk->used && (ink_colored(img, mk) || underlined(img, c, ul, nul, mk, base, pw, s));
        }
        int mixed = ncol > 0 && ncol < q->n;
        if (grid_row(m, order + q->first, q->n, phh, s)) {
            /* A cell may hold one narrow digit ("1"). */
            split_line(img, m, order + q->first, q->n, phh, bar, (int)(2 * s), s, out);
            continue;
        }
        if (seps || ((pw > (int)(260 * s) || q->n > 30 || mixed) && lone_line(ph, np, p))) {
            split_line(img, m, order + q->first, q->n, phh, bar, (int)(6 * s), s, out);
            continue;
        }
        /* Coloured runs: a link may sit inside a plain-text paragraph. */
        int run0 = -1, nruns = 0, plain = 0;
        int rx0 = 0, ry0 = 0, rx1 = 0, ry1 = 0, rn = 0;
        for (int k = 0; k <= q->n; k++) {
            int col = 0;
            const mark *mk = NULL;
            if (k < q->n) {
                mk = &m[order[q->first + k]];
                col = !mk->used &&
                      (ink_colored(img, mk) || underlined(img, c, ul, nul, mk, base, pw, s));
                plain += !col;
            }
            if (col) {
                if (run0 < 0) {
                    run0 = k;
                    rx0 = mk->x0;
                    ry0 = mk->y0;
                    rx1 = mk->x1;
                    ry1 = mk->y1;
                    rn = 0;
                }
                rx0 = imin(rx0, mk->x0);
                ry0 = imin(ry0, mk->y0);
                rx1 = imax(rx1, mk->x1);
                ry1 = imax(ry1, mk->y1);
                rn++;
            } else if (run0 >= 0) {
                /* A lone coloured glyph amid plain text is more likely
                 * anti-aliasing noise than a link. */
                if (rn >= 2 || rx1 - rx0 >= (int)(10 * s)) {
                    push(out, text_elem(img, rx0, ry0, rx1, ry1, PERC_PIXEL_LINK, 0.7f, s));
                    nruns++;
                }
                run0 = -1;
            }
        }
        if (nruns == 0 && plain > 0 && pw <= (int)(260 * s) && q->n <= 30)
            push(out, text_elem(img, q->x0, q->y0, q->x1, q->y1, PERC_PIXEL_TEXT, 0.4f, s));
    }
    /* Icon + text: an icon just left of a text element on its line joins it. */
    for (int i = first_text; i < out->n; i++) {
        perc_pixel_elem *ic = &out->v[i];
        if (ic->cls != PERC_PIXEL_ICON)
            continue;
        for (int j = first_text; j < out->n; j++) {
            perc_pixel_elem *t = &out->v[j];
            if (j == i || (t->cls != PERC_PIXEL_TEXT && t->cls != PERC_PIXEL_LINK))
                continue;
            int gap = t->tx0 - ic->tx1;
            int cy_i = (ic->ty0 + ic->ty1) / 2;
            int cy_t = (t->ty0 + t->ty1) / 2;
            if (gap >= 0 && gap <= (int)(14 * s) && abs(cy_i - cy_t) * 2 <= t->ty1 - t->ty0 + 2) {
                t->x0 = imin(t->x0, ic->x0);
                t->y0 = imin(t->y0, ic->y0);
                t->y1 = imax(t->y1, ic->y1);
                ic->x1 = ic->x0; /* mark as merged */
                break;
            }
        }
    }
    int k = 0;
    for (int i = 0; i < out->n; i++)
        if (out->v[i].x1 > out->v[i].x0)
            out->v[k++] = out->v[i];
    out->n = k;
    base_free(m);
    base_free(par);
    base_free(fr);
    base_free(ph);
    base_free(order);
    base_free(container);
    base_free(bar);
    base_free(tmp);
    base_free(ul);
    return BASE_OK;
}

/* 6. Filled shapes: chart points, legend glyphs, pie wedges. Drawn on
 * lines (a point on its series' polyline or on an axis) or against each
 * other (wedges), their edges join everything they touch into one big
 * component, so they are found from the other side: a flat region (pixels
 * whose edge strength is below the threshold) of saturated colour, compact
 * and of shape size, is the inside of a filled shape. Letter holes and page
 * backgrounds are not saturated; a filled button's inside holds its frame's
 * centre and is skipped, as is any shape on or around a box already found. */
static void add_shapes(const img_image *img, const pixel_comp *fc, int nfc, elist *out)
{
    float s = img->scale >= 0.25f ? img->scale : 1.0f;
    int lo = (int)(5 * s), hi = (int)(260 * s);
    int found = out->n;
    for (int i = 0; i < nfc; i++) {
        const pixel_comp *f = &fc[i];
        int w = f->x1 - f->x0, h = f->y1 - f->y0;
        if (w < lo || h < lo || w > hi || h > hi || (long long)f->npx * 10 < 3LL * w * h)
            continue;
        const uint8_t *p = pix(img, f->sx, f->sy);
        int mx = imax(p[0], imax(p[1], p[2])), mn = imin(p[0], imin(p[1], p[2]));
        if (mx - mn < 60)
            continue;
        int cx = (f->x0 + f->x1) / 2, cy = (f->y0 + f->y1) / 2;
        int clash = 0;
        for (int k = 0; k < found && !clash; k++) {
            const perc_pixel_elem *e = &out->v[k];
            int ex = (e->x0 + e->x1) / 2, ey = (e->y0 + e->y1) / 2;
            clash = (cx >= e->x0 && cx < e->x1 && cy >= e->y0 && cy < e->y1) ||
                    (ex >= f->x0 && ex < f->x1 && ey >= f->y0 && ey < f->y1);
        }
        if (clash)
            continue;
        /* The flat inside stops a pixel or two short of the drawn edge. */
        int g = (int)(2 * s);
        perc_pixel_elem e = {imax(0, f->x0 - g), imax(0, f->y0 - g), imin(img->w, f->x1 + g),
                             imin(img->h, f->y1 + g), 0, 0, 0, 0, PERC_PIXEL_ICON, 0.4f};
        push(out, e);
    }
}

base_err perc_pixel_detect(const img_image *img, const perc_pixel_opts *o,
                           perc_pixel_elem **out, int *n, char *err)
{
    if (!img || !img->px || img->w < 1 || img->h < 1 || img->stride < 4 * img->w || !out || !n)
        return base_errf(err, BASE_EINVAL, "pixel: empty image or NULL output");
    perc_pixel_opts def;
    if (!o) {
        perc_pixel_opts_init(&def);
        o = &def;
    }
    pixel_edge_fn fn = perc__pixel_edge_pick(o->kernel);
    if (!fn)
        return base_errf(err, BASE_EINVAL, "pixel: kernel %d not available on this CPU",
                         (int)o->kernel);
    int thr = o->edge_min > 0 ? o->edge_min : 8;
    size_t npx = (size_t)img->w * (size_t)img->h;
    uint8_t *edge = base_malloc(npx);
    if (!edge)
        return base_errf(err, BASE_ENOMEM, "pixel: out of memory for a %dx%d edge map", img->w,
                         img->h);
    perc__pixel_edge_map(img, edge, fn, o->threads);
    pixel_run *runs = NULL;
    int nr = 0;
    base_err e = perc__pixel_runs(edge, img->w, img->h, thr, o->threads, PIX_MAX_RUNS, &runs, &nr);
    /* The flat regions (edge below the threshold) for step 6: runs of the
     * inverted map. Too many of them, or no memory, only costs the shapes. */
    pixel_comp *flat = NULL;
    int nflat = 0;
    if (e == BASE_OK) {
        for (size_t i = 0; i < npx; i++)
            edge[i] = (uint8_t)(255 - edge[i]);
        pixel_run *fr = NULL;
        int nfr = 0;
        if (perc__pixel_runs(edge, img->w, img->h, 256 - thr, o->threads, PIX_MAX_RUNS, &fr,
                             &nfr) == BASE_OK &&
            perc__pixel_components(fr, nfr, &flat, &nflat) != BASE_OK) {
            flat = NULL;
            nflat = 0;
        }
        base_free(fr);
    }
    base_free(edge);
    elist l = {NULL, 0, 0};
    if (e == BASE_ETOOBIG) {
        base_free(flat);
        /* Too busy to segment (noise, a photo wall): nothing looks like a
         * control, which is an answer, not a failure. */
        *out = base_calloc(1, sizeof **out);
        if (!*out)
            return base_errf(err, BASE_ENOMEM, "pixel: out of memory");
        *n = 0;
        return BASE_OK;
    }
    if (e) {
        base_free(flat);
        return base_errf(err, e, "pixel: out of memory for edge runs");
    }
    pixel_comp *comps = NULL;
    int nc = 0;
    e = perc__pixel_components(runs, nr, &comps, &nc);
    base_free(runs);
    if (e) {
        base_free(flat);
        return base_errf(err, e, "pixel: out of memory for components");
    }
    l.cap = PIX_MAX_ELEMS;
    l.v = base_malloc((size_t)l.cap * sizeof *l.v);
    if (!l.v) {
        base_free(comps);
        base_free(flat);
        return base_errf(err, BASE_ENOMEM, "pixel: out of memory");
    }
    e = classify(img, comps, nc, &l);
    base_free(comps);
    if (!e)
        add_shapes(img, flat, nflat, &l);
    base_free(flat);
    if (e) {
        base_free(l.v);
        return base_errf(err, e, "pixel: out of memory while grouping");
    }
    qsort(l.v, (size_t)l.n, sizeof *l.v, elem_cmp);
    *out = l.v;
    *n = l.n;
    return BASE_OK;
}

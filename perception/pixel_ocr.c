/* perception/pixel_ocr.c: box labels by Tesseract OCR.
 *
 * Tesseract's engines are not thread-safe but are independent: the pool
 * holds one TessBaseAPI per worker, loaded once (loading eng.traineddata
 * costs far more than reading a label). A read call hands the items out
 * through an atomic counter to the caller plus threads-1 short-lived
 * pthreads (not OpenMP: Tesseract allocates and the style keeps OpenMP to
 * pure kernels). Engines run LSTM-only, which keeps no adaptive state
 * between images, so an item's answer does not depend on which engine or
 * thread read it, nor on the items read before it.
 *
 * Each crop is converted to grey, flipped to dark-on-light when its border
 * is dark (light text on a filled button), upscaled so text is about 24 px
 * tall (13 px web text reads badly as is; 24 px read as well as 32 px on
 * the bench pages at two thirds of the time) and framed by a white margin. Screens change little
 * between passes, so answers are cached by a hash of the crop's pixels.
 * Since crops are flipped here, Tesseract's own second, inverted pass on a
 * low-confidence line (tessedit_do_invert) is turned off: it only re-read
 * crops that were already dark-on-light (same word accuracy on the bench
 * pages, bench/RESULTS.md). FOVEA_OCR_VARS and FOVEA_OCR_PX tune the
 * engines and the text height for measurements (bench_pixel --ocr-variant).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>
#include <tesseract/capi.h>

#include "base/alloc.h"
#include "perception/pixel.h"

#define OCR_MAX_THREADS 16
#define OCR_CACHE 512
#define OCR_MARGIN 8
#define OCR_TEXT_PX 24
#define OCR_MAX_SIDE 2400 /* crops are shrunk to this before upscaling */
#define OCR_MAX_VARS 8

typedef struct cache_ent {
    uint64_t key; /* 0 = empty */
    char text[PERC_LABEL_MAX];
    float conf;
} cache_ent;

struct perc_ocr {
    int n;
    int text_px; /* crops are upscaled toward this text height */
    TessBaseAPI *api[OCR_MAX_THREADS];
    cache_ent cache[OCR_CACHE];
};

/* Tesseract's own data dirs on Debian (5.x, then 4.x) when TESSDATA_PREFIX
 * is not set. */
static const char *tessdata_dir(void)
{
    static const char *dirs[] = {"/usr/share/tesseract-ocr/5/tessdata",
                                 "/usr/share/tesseract-ocr/4.00/tessdata",
                                 "/usr/share/tessdata"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/eng.traineddata", dirs[i]);
        if (access(p, R_OK) == 0)
            return dirs[i];
    }
    return NULL;
}

/* Tuning for measurements (bench_pixel --ocr-variant): FOVEA_OCR_VARS =
 * "name=value;name=value" Tesseract variables given to every engine at
 * init (init-only ones such as load_system_dawg included). buf holds the
 * copy the names and values point into. Returns how many were parsed. */
static size_t tuning_vars(char *buf, size_t nbuf, char **names, char **values, size_t max)
{
    const char *env = getenv("FOVEA_OCR_VARS");
    size_t n = 0;
    if (!env || !env[0])
        return 0;
    snprintf(buf, nbuf, "%s", env);
    for (char *tok = buf; tok && *tok && n < max;) {
        char *semi = strchr(tok, ';');
        if (semi)
            *semi = '\0';
        char *eq = strchr(tok, '=');
        if (eq && eq > tok) {
            *eq = '\0';
            names[n] = tok;
            values[n++] = eq + 1;
        }
        tok = semi ? semi + 1 : NULL;
    }
    return n;
}

base_err perc_ocr_create(int threads, perc_ocr **out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "ocr: NULL out");
    if (threads < 1)
        threads = 1;
    if (threads > OCR_MAX_THREADS)
        threads = OCR_MAX_THREADS;
    const char *dir = getenv("TESSDATA_PREFIX") ? NULL : tessdata_dir();
    if (!getenv("TESSDATA_PREFIX") && !dir)
        return base_errf(err, BASE_ENOTFOUND,
                         "ocr: eng.traineddata not found (install tesseract-ocr-eng or set "
                         "TESSDATA_PREFIX)");
    perc_ocr *o = base_calloc(1, sizeof *o);
    if (!o)
        return base_errf(err, BASE_ENOMEM, "ocr: out of memory");
    for (int i = 0; i < threads; i++) {
        TessBaseAPI *api = TessBaseAPICreate();
        if (!api)
            goto fail;
        o->api[o->n++] = api;
        /* Silence Tesseract's stderr chatter ("Estimating resolution..."). */
        char *names[OCR_MAX_VARS + 2] = {(char *)(uintptr_t) "debug_file",
                                         (char *)(uintptr_t) "tessedit_do_invert"};
        char *values[OCR_MAX_VARS + 2] = {(char *)(uintptr_t) "/dev/null", (char *)(uintptr_t) "0"};
        char vbuf[512];
        size_t nv = 2 + tuning_vars(vbuf, sizeof vbuf, names + 2, values + 2, OCR_MAX_VARS);
        if (TessBaseAPIInit4(api, dir, "eng", OEM_LSTM_ONLY, NULL, 0, names, values, nv, 0) != 0) {
            perc_ocr_destroy(o);
            return base_errf(err, BASE_ENOTFOUND,
                             "ocr: Tesseract could not load eng.traineddata from %s",
                             dir ? dir : "TESSDATA_PREFIX");
        }
        TessBaseAPISetPageSegMode(api, PSM_SINGLE_LINE);
    }
    o->text_px = OCR_TEXT_PX;
    const char *px = getenv("FOVEA_OCR_PX");
    if (px && px[0]) {
        char *end = NULL;
        long v = strtol(px, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 96)
            o->text_px = (int)v;
    }
    *out = o;
    return BASE_OK;
fail:
    perc_ocr_destroy(o);
    return base_errf(err, BASE_ENOMEM, "ocr: out of memory");
}

void perc_ocr_destroy(perc_ocr *o)
{
    if (!o)
        return;
    for (int i = 0; i < o->n; i++) {
        TessBaseAPIEnd(o->api[i]);
        TessBaseAPIDelete(o->api[i]);
    }
    base_free(o);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* FNV-1a over the crop's RGB bytes and size. */
static uint64_t crop_hash(const img_image *img, int x0, int y0, int x1, int y1)
{
    uint64_t h = 1469598103934665603ull;
    uint32_t dims[2] = {(uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
    for (size_t i = 0; i < sizeof dims; i++) {
        h ^= ((const uint8_t *)dims)[i];
        h *= 1099511628211ull;
    }
    for (int y = y0; y < y1; y++) {
        const uint8_t *p = img->px + (size_t)img->stride * (size_t)y + 4 * (size_t)x0;
        for (int x = 0; x < x1 - x0; x++, p += 4) {
            h = (h ^ p[0]) * 1099511628211ull;
            h = (h ^ p[1]) * 1099511628211ull;
            h = (h ^ p[2]) * 1099511628211ull;
        }
    }
    return h ? h : 1;
}

/* Collapses whitespace, trims (stray edge marks too), and drops text with
 * no letter or digit. */
static void clean_text(const char *in, char *out, size_t n)
{
    size_t k = 0;
    int space = 0, alnum = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && k + 1 < n; p++) {
        if (isspace(*p)) {
            space = k > 0;
            continue;
        }
        if (space && k + 2 < n)
            out[k++] = ' ';
        space = 0;
        alnum |= isalnum(*p) || *p >= 0x80;
        out[k++] = (char)*p;
    }
    /* Do not leave a cut UTF-8 sequence at the end. */
    while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80)
        k--;
    if (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0xC0)
        k--;
    out[k] = '\0';
    if (!alnum) {
        out[0] = '\0';
        return;
    }
    /* Box edges inside a crop read as stray quotes and bars at the ends
     * ("‘Go", "Search |"): trim those, and the space they leave. */
    static const char *const strays[] = {"\xe2\x80\x98", "\xe2\x80\x99", "|", "'", "`", "_", "~"};
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < sizeof strays / sizeof strays[0]; i++) {
            size_t n2 = strlen(strays[i]), len = strlen(out);
            if (len > n2 && memcmp(out, strays[i], n2) == 0) {
                memmove(out, out + n2, len - n2 + 1);
                again = 1;
            }
            len = strlen(out);
            if (len > n2 && memcmp(out + len - n2, strays[i], n2) == 0) {
                out[len - n2] = '\0';
                again = 1;
            }
        }
        size_t len = strlen(out);
        while (len > 0 && out[len - 1] == ' ') {
            out[--len] = '\0';
            again = 1;
        }
        if (out[0] == ' ') {
            memmove(out, out + 1, len);
            again = 1;
        }
    }
}

typedef struct job {
    perc_ocr *o;
    const img_image *img;
    perc_ocr_item *items;
    const int *todo; /* indices of items to read */
    int n;
    atomic_int next;
    atomic_int failed;
} job;

typedef struct worker {
    job *j;
    int engine;
} worker;

/* Reads one item with engine api; buf is the worker's scratch. */
static int read_one(TessBaseAPI *api, int text_px, const img_image *img, perc_ocr_item *it,
                    uint8_t **buf, size_t *cap)
{
    int x0 = clampi(it->x0, 0, img->w), x1 = clampi(it->x1, 0, img->w);
    int y0 = clampi(it->y0, 0, img->h), y1 = clampi(it->y1, 0, img->h);
    it->text[0] = '\0';
    it->conf = 0;
    int cw = x1 - x0, ch = y1 - y0;
    if (cw < 4 || ch < 4 || cw > OCR_MAX_SIDE || ch > OCR_MAX_SIDE)
        return 0;
    /* Grey values of the crop and its border mean (the background). */
    long border = 0, nb = 0;
    int lo = 255, hi = 0;
    for (int y = y0; y < y1; y++) {
        const uint8_t *p = img->px + (size_t)img->stride * (size_t)y + 4 * (size_t)x0;
        for (int x = 0; x < cw; x++, p += 4) {
            int v = (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            if (y == y0 || y == y1 - 1 || x == 0 || x == cw - 1) {
                border += v;
                nb++;
            }
        }
    }
    /* Flat: nothing to read. Faint footer text (#e9e9e9 on #fafafa) spans
     * 17 levels and is text, so the floor is low; the stretch below makes
     * it read like body text. */
    if (hi - lo < 12)
        return 0;
    /* Light text on a dark fill is flipped; grey levels are stretched to
     * the full range, so pale placeholder text reads like body text. */
    int invert = nb > 0 && border / nb < (lo + hi) / 2;
    int range = hi - lo;
    int f = clampi((text_px + ch / 2) / ch, 1, 4);
    int ow = cw * f + 2 * OCR_MARGIN, oh = ch * f + 2 * OCR_MARGIN;
    size_t need = (size_t)ow * (size_t)oh;
    if (need > *cap) {
        uint8_t *nbuf = base_realloc(*buf, need);
        if (!nbuf)
            return -1;
        *buf = nbuf;
        *cap = need;
    }
    uint8_t *g = *buf;
    memset(g, 255, need);
    /* Bilinear upscale by f in 8-bit fixed point (sample centres aligned). */
    for (int oy = 0; oy < ch * f; oy++) {
        int sy = ((2 * oy + 1) * 128) / f - 128; /* source y in 1/256 */
        int iy = sy < 0 ? 0 : sy >> 8;
        int fy = sy < 0 ? 0 : sy & 255;
        int iy1 = iy + 1 < ch ? iy + 1 : ch - 1;
        const uint8_t *r0 = img->px + (size_t)img->stride * (size_t)(y0 + iy) + 4 * (size_t)x0;
        const uint8_t *r1 = img->px + (size_t)img->stride * (size_t)(y0 + iy1) + 4 * (size_t)x0;
        uint8_t *dst = g + (size_t)(oy + OCR_MARGIN) * (size_t)ow + OCR_MARGIN;
        for (int ox = 0; ox < cw * f; ox++) {
            int sx = ((2 * ox + 1) * 128) / f - 128;
            int ix = sx < 0 ? 0 : sx >> 8;
            int fx = sx < 0 ? 0 : sx & 255;
            int ix1 = ix + 1 < cw ? ix + 1 : cw - 1;
            const uint8_t *a = r0 + 4 * ix, *b = r0 + 4 * ix1, *c = r1 + 4 * ix, *d = r1 + 4 * ix1;
            int ga = (77 * a[0] + 150 * a[1] + 29 * a[2] + 128) >> 8;
            int gb = (77 * b[0] + 150 * b[1] + 29 * b[2] + 128) >> 8;
            int gc = (77 * c[0] + 150 * c[1] + 29 * c[2] + 128) >> 8;
            int gd = (77 * d[0] + 150 * d[1] + 29 * d[2] + 128) >> 8;
            int top = ga * (256 - fx) + gb * fx;
            int bot = gc * (256 - fx) + gd * fx;
            int v = (top * (256 - fy) + bot * fy + (1 << 15)) >> 16;
            v = ((v - lo) * 255 + range / 2) / range;
            v = v < 0 ? 0 : (v > 255 ? 255 : v);
            dst[ox] = (uint8_t)(invert ? 255 - v : v);
        }
    }
    TessBaseAPISetImage(api, g, ow, oh, 1, ow);
    TessBaseAPISetSourceResolution(api, 300);
    char *txt = TessBaseAPIGetUTF8Text(api);
    if (txt) {
        clean_text(txt, it->text, sizeof it->text);
        TessDeleteText(txt);
        int conf = TessBaseAPIMeanTextConf(api);
        it->conf = conf > 0 ? (float)conf / 100.0f : 0;
        if (it->conf < 0.3f)
            it->text[0] = '\0';
    }
    TessBaseAPIClear(api);
    return 0;
}

static void *work(void *arg)
{
    worker *w = arg;
    job *j = w->j;
    uint8_t *buf = NULL;
    size_t cap = 0;
    /* Tesseract runs OpenMP regions of its own (LSTM layers, several
     * threads each): with one engine per core they only oversubscribe the
     * machine (2 engines read os.html's 151 crops in 2.8 s with them,
     * 0.4-0.9 s without, on the busy bench machine). The max-active-levels
     * ICV is per thread (task) in libgomp and libomp, so this
     * turns them off for this worker's calls only; the caller's value is
     * restored for its own kernels. */
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(0);
    for (;;) {
        int k = atomic_fetch_add(&j->next, 1);
        if (k >= j->n)
            break;
        if (read_one(j->o->api[w->engine], j->o->text_px, j->img, &j->items[j->todo[k]], &buf,
                     &cap) < 0)
            atomic_store(&j->failed, 1);
    }
    base_free(buf);
    omp_set_max_active_levels(levels);
    return NULL;
}

base_err perc_ocr_read(perc_ocr *o, const img_image *img, perc_ocr_item *items, int n,
                       char *err)
{
    if (!o || !img || !img->px || n < 0 || (n > 0 && !items))
        return base_errf(err, BASE_EINVAL, "ocr: bad arguments");
    if (n == 0)
        return BASE_OK;
    int *todo = base_malloc((size_t)n * sizeof *todo);
    uint64_t *keys = base_malloc((size_t)n * sizeof *keys);
    int *same = base_malloc((size_t)n * sizeof *same);
    if (!todo || !keys || !same) {
        base_free(todo);
        base_free(keys);
        base_free(same);
        return base_errf(err, BASE_ENOMEM, "ocr: out of memory");
    }
    int nt = 0;
    for (int i = 0; i < n; i++) {
        perc_ocr_item *it = &items[i];
        int x0 = clampi(it->x0, 0, img->w), x1 = clampi(it->x1, 0, img->w);
        int y0 = clampi(it->y0, 0, img->h), y1 = clampi(it->y1, 0, img->h);
        keys[i] = x1 > x0 && y1 > y0 ? crop_hash(img, x0, y0, x1, y1) : 0;
        const cache_ent *c = &o->cache[keys[i] % OCR_CACHE];
        same[i] = -1;
        if (keys[i] && c->key == keys[i]) {
            memcpy(it->text, c->text, sizeof it->text);
            it->conf = c->conf;
            continue;
        }
        /* The same pixels earlier in this call (a row of identical icon
         * buttons, repeated list markers): read once, answer both. The
         * answer is a function of the pixels, so this changes no result. */
        for (int k = 0; k < nt && same[i] < 0; k++)
            if (keys[i] && keys[todo[k]] == keys[i])
                same[i] = todo[k];
        if (same[i] < 0)
            todo[nt++] = i;
    }
    /* Widest crops first: a read costs about what its text is long, and the
     * workers take items in this order, so the longest lines start early
     * and no worker is left with one alone at the end (the answers do not
     * depend on the order). Insertion sort, stable: n is a page's boxes. */
    for (int a = 1; a < nt; a++) {
        int v = todo[a], wv = items[v].x1 - items[v].x0, b = a;
        for (; b > 0 && items[todo[b - 1]].x1 - items[todo[b - 1]].x0 < wv; b--)
            todo[b] = todo[b - 1];
        todo[b] = v;
    }
    job j = {o, img, items, todo, nt, 0, 0};
    worker w[OCR_MAX_THREADS];
    pthread_t th[OCR_MAX_THREADS];
    int started = 0;
    int want = nt < o->n ? nt : o->n;
    for (int t = 1; t < want; t++) {
        w[t] = (worker){&j, t};
        if (pthread_create(&th[t], NULL, work, &w[t]) != 0)
            break;
        started = t;
    }
    w[0] = (worker){&j, 0};
    work(&w[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(th[t], NULL);
    for (int k = 0; k < nt; k++) {
        int i = todo[k];
        if (!keys[i])
            continue;
        cache_ent *c = &o->cache[keys[i] % OCR_CACHE];
        c->key = keys[i];
        memcpy(c->text, items[i].text, sizeof c->text);
        c->conf = items[i].conf;
    }
    for (int i = 0; i < n; i++) {
        if (same[i] >= 0) {
            memcpy(items[i].text, items[same[i]].text, sizeof items[i].text);
            items[i].conf = items[same[i]].conf;
        }
    }
    base_free(todo);
    base_free(keys);
    base_free(same);
    if (atomic_load(&j.failed))
        return base_errf(err, BASE_ENOMEM, "ocr: out of memory for a crop");
    return BASE_OK;
}

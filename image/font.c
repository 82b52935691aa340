/* image/font.c: the glyph cache behind overlay labels.
 *
 * The TTF file is read once into memory (stb_truetype parses it in place)
 * and each requested pixel size is rasterised for all of printable ASCII in
 * one go: labels are short ("[V12]") and drawn many times per second, so
 * rasterising per draw would dominate overlay time. A mutex serialises the
 * first load and cache growth; afterwards readers only take it briefly to
 * find their size, and the glyph data itself is immutable, which is what
 * lets the compositing kernels read it from OpenMP threads without locks.
 * The implementation of stb_truetype comes from Debian's libstb; this file
 * only includes the header.
 */
#include "image/font.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "image/image.h"
#include "stb_truetype.h"

#define MAX_SIZES 16

static pthread_mutex_t font_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *font_data;
static stbtt_fontinfo font_info;
static img_font *sizes[MAX_SIZES];
static int nsizes;

/* Loads the TTF under font_lock. */
static base_err load_font(char *err)
{
    const char *path = getenv("FOVEA_FONT");
    if (!path || !*path)
        path = IMG_FONT_DEFAULT_PATH;
    uint8_t *data = NULL;
    size_t n = 0;
    char ioerr[BASE_ERRBUF_SIZE] = "";
    base_err e = base_read_file(path, &data, &n, 32u << 20, ioerr);
    if (e == BASE_EIO || e == BASE_ENOTFOUND)
        return base_errf(err, BASE_ENOTFOUND,
                         "font: cannot read %s (install fonts-dejavu-core or set FOVEA_FONT): %s",
                         path, ioerr);
    if (e)
        return base_errf(err, e, "font: %s", ioerr);
    int off = stbtt_GetFontOffsetForIndex(data, 0);
    if (n < 12 || off < 0 || !stbtt_InitFont(&font_info, data, off)) {
        base_free(data);
        return base_errf(err, BASE_EDECODE, "font: %s is not a TrueType font", path);
    }
    font_data = data;
    return BASE_OK;
}

static void free_size(img_font *f)
{
    if (!f)
        return;
    for (int i = 0; i < 95; i++)
        base_free((void *)(uintptr_t)f->glyphs[i].cov);
    base_free(f);
}

/* Rasterises printable ASCII at px under font_lock. */
static base_err rasterise(int px, img_font **out, char *err)
{
    img_font *f = base_calloc(1, sizeof(*f));
    if (!f)
        return base_errf(err, BASE_ENOMEM, "font: out of memory");
    float s = stbtt_ScaleForPixelHeight(&font_info, (float)px);
    int asc = 0;
    int desc = 0;
    int gap = 0;
    stbtt_GetFontVMetrics(&font_info, &asc, &desc, &gap);
    f->px = px;
    f->ascent = (int)(asc * s + 0.5f);
    f->line_h = f->ascent + (int)(-desc * s + 0.5f);
    for (int c = 32; c < 127; c++) {
        img_glyph *g = &f->glyphs[c - 32];
        int adv = 0;
        int lsb = 0;
        stbtt_GetCodepointHMetrics(&font_info, c, &adv, &lsb);
        g->advance = (int)(adv * s + 0.5f);
        int x0 = 0;
        int y0 = 0;
        int x1 = 0;
        int y1 = 0;
        stbtt_GetCodepointBitmapBox(&font_info, c, s, s, &x0, &y0, &x1, &y1);
        if (x1 <= x0 || y1 <= y0)
            continue;
        uint8_t *cov = base_calloc((size_t)(x1 - x0), (size_t)(y1 - y0));
        if (!cov) {
            free_size(f);
            return base_errf(err, BASE_ENOMEM, "font: out of memory");
        }
        stbtt_MakeCodepointBitmap(&font_info, cov, x1 - x0, y1 - y0, x1 - x0, s, s, c);
        g->cov = cov;
        g->w = x1 - x0;
        g->h = y1 - y0;
        g->xoff = x0;
        g->yoff = y0;
    }
    *out = f;
    return BASE_OK;
}

base_err img_font_get(int px, const img_font **out, char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "font: no output");
    if (px < IMG_FONT_MIN_PX)
        px = IMG_FONT_MIN_PX;
    if (px > IMG_FONT_MAX_PX)
        px = IMG_FONT_MAX_PX;
    base_err e = BASE_OK;
    pthread_mutex_lock(&font_lock);
    img_font *found = NULL;
    for (int i = 0; i < nsizes && !found; i++)
        if (sizes[i]->px == px)
            found = sizes[i];
    if (!found && !font_data)
        e = load_font(err);
    if (!found && !e && nsizes == MAX_SIZES)
        e = base_errf(err, BASE_ETOOBIG, "font: more than %d sizes in use", MAX_SIZES);
    if (!found && !e) {
        e = rasterise(px, &found, err);
        if (!e)
            sizes[nsizes++] = found;
    }
    pthread_mutex_unlock(&font_lock);
    if (!e)
        *out = found;
    return e;
}

const img_glyph *img_font_glyph(const img_font *f, unsigned char c)
{
    if (c < 32 || c > 126)
        c = '?';
    return &f->glyphs[c - 32];
}

int img_font_text_width(const img_font *f, const char *s, int n)
{
    int w = 0;
    for (int i = 0; s[i] && (n < 0 || i < n); i++)
        w += img_font_glyph(f, (unsigned char)s[i])->advance;
    return w;
}

void img_font_shutdown(void)
{
    pthread_mutex_lock(&font_lock);
    for (int i = 0; i < nsizes; i++)
        free_size(sizes[i]);
    nsizes = 0;
    base_free(font_data);
    font_data = NULL;
    pthread_mutex_unlock(&font_lock);
}

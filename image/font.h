/* image/font.h: label text for overlays, rasterised with stb_truetype.
 *
 * One font (DejaVu Sans Bold from fonts-dejavu-core, or the file named by
 * FOVEA_FONT) is loaded on first use. Each pixel size gets a glyph cache of
 * printable ASCII rasterised once; cached fonts live until the process ends
 * (or img_font_shutdown), so the pointers handed out stay valid and may be
 * read from any thread, including inside OpenMP kernels. Characters outside
 * ASCII 32..126 are drawn as '?'.
 */
#ifndef FOVEA_IMAGE_FONT_H
#define FOVEA_IMAGE_FONT_H

#include <stdint.h>

#include "base/err.h"

#define IMG_FONT_DEFAULT_PATH "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
#define IMG_FONT_MIN_PX 6
#define IMG_FONT_MAX_PX 96

typedef struct img_glyph {
    const uint8_t *cov; /* w*h coverage bytes, row-major (NULL when empty) */
    int w, h;
    int xoff, yoff; /* bitmap origin relative to the pen on the baseline */
    int advance;    /* pen advance in pixels */
} img_glyph;

typedef struct img_font {
    int px;      /* pixel height it was rasterised for */
    int ascent;  /* baseline offset from the top of a line, pixels */
    int line_h;  /* ascent - descent, pixels */
    img_glyph glyphs[95]; /* ASCII 32..126 */
} img_font;

/* Returns the cached glyph set for a pixel height (clamped to
 * IMG_FONT_MIN_PX..IMG_FONT_MAX_PX), loading and rasterising on first use.
 * *out is owned by the cache and valid until img_font_shutdown. Any thread
 * (a mutex guards the cache). Errors: BASE_ENOTFOUND (font file missing; the
 * message names the path and the Debian package), BASE_EDECODE (not a
 * TrueType font), BASE_ENOMEM, BASE_ETOOBIG (too many sizes cached). */
base_err img_font_get(int px, const img_font **out, char *err);

/* The glyph for a byte of text ('?' for anything not printable ASCII).
 * Borrowed from f (valid until img_font_shutdown). Any thread; cannot
 * fail. */
const img_glyph *img_font_glyph(const img_font *f, unsigned char c);

/* Width in pixels of the first n bytes of s (n < 0: the whole string).
 * Any thread; cannot fail. */
int img_font_text_width(const img_font *f, const char *s, int n);

/* Frees every cached size and the font file. Only for leak-checked tests at
 * exit; no other thread may use the font meanwhile. */
void img_font_shutdown(void);

#endif

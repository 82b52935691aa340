/* tests/perception/scene.h: a tiny raster painter for the pixel detector's unit
 * tests — flat rectangles, 1 px outlines and text in DejaVu Sans Bold
 * (image/font.h) — so a test can draw a page whose controls sit at known
 * rectangles without a browser. */
#ifndef FOVEA_TESTS_PIXEL_SCENE_H
#define FOVEA_TESTS_PIXEL_SCENE_H

#include <stdint.h>

#include "image/font.h"
#include "image/image.h"

static inline void sc_fill(img_image *img, int x0, int y0, int x1, int y1, uint32_t rgb)
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < img->h; y++) {
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < img->w; x++) {
            uint8_t *p = img->px + (size_t)img->stride * (size_t)y + 4 * (size_t)x;
            p[0] = (uint8_t)(rgb >> 16);
            p[1] = (uint8_t)(rgb >> 8);
            p[2] = (uint8_t)rgb;
            p[3] = 255;
        }
    }
}

static inline void sc_stroke(img_image *img, int x0, int y0, int x1, int y1, uint32_t rgb)
{
    sc_fill(img, x0, y0, x1, y0 + 1, rgb);
    sc_fill(img, x0, y1 - 1, x1, y1, rgb);
    sc_fill(img, x0, y0, x0 + 1, y1, rgb);
    sc_fill(img, x1 - 1, y0, x1, y1, rgb);
}

/* Draws s with its baseline at y, pen starting at x; returns the pen's end
 * (x when the font is missing). */
static inline int sc_text(img_image *img, int x, int y, int px, const char *s, uint32_t rgb)
{
    const img_font *f = NULL;
    if (img_font_get(px, &f, NULL) != BASE_OK)
        return x;
    int c[3] = {(int)(rgb >> 16) & 255, (int)(rgb >> 8) & 255, (int)rgb & 255};
    for (; *s; s++) {
        const img_glyph *g = img_font_glyph(f, (unsigned char)*s);
        for (int gy = 0; g->cov && gy < g->h; gy++) {
            for (int gx = 0; gx < g->w; gx++) {
                int X = x + g->xoff + gx, Y = y + g->yoff + gy;
                int a = g->cov[gy * g->w + gx];
                if (X < 0 || Y < 0 || X >= img->w || Y >= img->h || !a)
                    continue;
                uint8_t *p = img->px + (size_t)img->stride * (size_t)Y + 4 * (size_t)X;
                for (int k = 0; k < 3; k++)
                    p[k] = (uint8_t)((a * c[k] + (255 - a) * p[k] + 127) / 255);
            }
        }
        x += g->advance;
    }
    return x;
}

#endif

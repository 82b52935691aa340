/* image/image.c: image allocation, format sniffing, header inspection
 * and atomic file I/O.
 *
 * The codecs themselves live in codec_png.c and codec_jpeg.c; this file holds
 * what they share. The dimension check is the single gate every decoded or
 * allocated image goes through: it rejects non-positive sizes, anything
 * wider or taller than IMG_MAX_DIM and anything with more than
 * IMG_MAX_PIXELS pixels, so that 4*w*h can never overflow and a
 * forged header cannot make us allocate gigabytes. PNG headers are parsed
 * here directly (the IHDR chunk is at a fixed offset), which keeps
 * img_info allocation-free for PNG.
 */
#include "image/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "image/image_int.h"

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

base_err img__check_dims(int w, int h, const char *what, char *err)
{
    if (w < 1 || h < 1)
        return base_errf(err, BASE_EDECODE, "%s: invalid dimensions %dx%d", what, w, h);
    if (w > IMG_MAX_DIM || h > IMG_MAX_DIM)
        return base_errf(err, BASE_ETOOBIG, "%s: dimensions %dx%d exceed the %d pixel limit",
                         what, w, h, IMG_MAX_DIM);
    /* Both factors are <= 16384, so the product fits easily in 64 bits. */
    if ((uint64_t)w * (uint64_t)h > IMG_MAX_PIXELS)
        return base_errf(err, BASE_ETOOBIG, "%s: %dx%d is more than %u pixels", what, w, h,
                         IMG_MAX_PIXELS);
    return BASE_OK;
}

img_format img_sniff(const uint8_t *data, size_t n)
{
    if (!data)
        return IMG_FMT_UNKNOWN;
    if (n >= 8 && memcmp(data, png_sig, 8) == 0)
        return IMG_FMT_PNG;
    if (n >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
        return IMG_FMT_JPEG;
    return IMG_FMT_UNKNOWN;
}

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* The PNG header is the signature followed by the IHDR chunk: length 13,
 * type, width, height (big-endian). Only that much is needed. */
static base_err png_info(const uint8_t *data, size_t n, int *w, int *h, char *err)
{
    if (n < 24)
        return base_errf(err, BASE_EDECODE, "png: truncated header (%zu bytes)", n);
    if (be32(data + 8) != 13 || memcmp(data + 12, "IHDR", 4) != 0)
        return base_errf(err, BASE_EDECODE, "png: first chunk is not IHDR");
    uint32_t uw = be32(data + 16);
    uint32_t uh = be32(data + 20);
    if (uw > (uint32_t)IMG_MAX_DIM || uh > (uint32_t)IMG_MAX_DIM)
        return base_errf(err, BASE_ETOOBIG, "png: dimensions %ux%u exceed the %d pixel limit",
                         uw, uh, IMG_MAX_DIM);
    base_err e = img__check_dims((int)uw, (int)uh, "png", err);
    if (e)
        return e;
    *w = (int)uw;
    *h = (int)uh;
    return BASE_OK;
}

base_err img_info(const uint8_t *data, size_t n, img_format *fmt, int *w, int *h,
                         char *err)
{
    if (!data)
        return base_errf(err, BASE_EINVAL, "image: no data");
    img_format f = img_sniff(data, n);
    int iw = 0;
    int ih = 0;
    base_err e;
    switch (f) {
    case IMG_FMT_PNG:
        e = png_info(data, n, &iw, &ih, err);
        break;
    case IMG_FMT_JPEG:
        e = img__jpeg_info(data, n, &iw, &ih, err);
        break;
    default:
        return base_errf(err, BASE_EDECODE, "image: not a PNG or JPEG (%zu bytes)", n);
    }
    if (e)
        return e;
    if (fmt)
        *fmt = f;
    if (w)
        *w = iw;
    if (h)
        *h = ih;
    return BASE_OK;
}

base_err img_alloc(img_image *img, int w, int h)
{
    if (!img)
        return BASE_EINVAL;
    if (w < 1 || h < 1)
        return BASE_EINVAL;
    base_err e = img__check_dims(w, h, "image", NULL);
    if (e)
        return e;
    size_t stride = (size_t)w * 4;
    uint8_t *px = base_calloc((size_t)h, stride);
    if (!px)
        return BASE_ENOMEM;
    img->px = px;
    img->w = w;
    img->h = h;
    img->stride = (int)stride;
    img->scale = 1.0f;
    return BASE_OK;
}

void img_fini(img_image *img)
{
    if (!img)
        return;
    base_free(img->px);
    memset(img, 0, sizeof(*img));
}

base_err img_decode(const uint8_t *data, size_t n, img_image *out, char *err)
{
    if (!data || !out)
        return base_errf(err, BASE_EINVAL, "image: no data or no output");
    switch (img_sniff(data, n)) {
    case IMG_FMT_PNG: {
        /* The header check gives oversized images BASE_ETOOBIG before
         * libpng sees them. */
        base_err e = img_info(data, n, NULL, NULL, NULL, err);
        return e ? e : img__png_decode(data, n, out, err);
    }
    case IMG_FMT_JPEG:
        return img__jpeg_decode(data, n, out, err);
    default:
        return base_errf(err, BASE_EDECODE, "image: not a PNG or JPEG (%zu bytes)", n);
    }
}


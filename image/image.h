/* image/image.h: RGBA8 images, PNG/JPEG codecs and atomic file I/O.
 *
 * Every pixel fovea looks at passes through here: a screenshot arrives as PNG
 * or JPEG bytes, is decoded into a img_image (RGBA8, row-major), drawn on by
 * the Set-of-Marks renderer (image/som.h) and encoded again for a model
 * or a debug file. Decoding treats its input as hostile: the dimensions are
 * read and checked against IMG_MAX_DIM / IMG_MAX_PIXELS before
 * any pixel memory is allocated, and every libpng/libjpeg failure becomes a
 * base_err with a message in the caller's optional error buffer.
 *
 * All functions are stateless and may be called from any thread; distinct
 * images may be used concurrently.
 */
#ifndef FOVEA_IMAGE_IMAGE_H
#define FOVEA_IMAGE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef enum img_format { IMG_FMT_UNKNOWN = 0, IMG_FMT_PNG, IMG_FMT_JPEG } img_format;

/* RGBA8, row-major; stride in bytes (>= 4*w). scale = device pixels per CSS
 * pixel (1.0 default). A zeroed img_image is empty and safe to fini. */
typedef struct img_image {
    uint8_t *px;
    int w, h, stride;
    float scale;
} img_image;

#define IMG_MAX_DIM 16384
#define IMG_MAX_PIXELS (100u * 1000u * 1000u)

/* Reads the format and dimensions from the header of an encoded image
 * without decoding pixels. fmt, w and h may each be NULL. Any thread.
 * Errors: BASE_EINVAL (NULL data), BASE_EDECODE (not PNG/JPEG, or header
 * truncated/corrupt), BASE_ETOOBIG (dimensions past the limits). Out-params
 * are untouched on failure; err (optional, BASE_ERRBUF_SIZE) gets a message. */
base_err img_info(const uint8_t *data, size_t n, img_format *fmt, int *w, int *h,
                         char *err);

/* Allocates a zeroed (transparent black) w x h RGBA image with a tight
 * stride and scale 1.0. The caller owns img->px and releases it with
 * img_fini. Any thread. Errors: BASE_EINVAL (w or h < 1, NULL img),
 * BASE_ETOOBIG (past the limits), BASE_ENOMEM; img is untouched on failure. */
base_err img_alloc(img_image *img, int w, int h);

/* Decodes PNG (any colour type and bit depth, tRNS honoured) or JPEG
 * (grey, YCbCr, CMYK via TurboJPEG) into a new RGBA8 image in *out, which the
 * caller releases with img_fini. out->scale is set to 1.0. Any thread.
 * Errors: BASE_EINVAL, BASE_EDECODE (corrupt or truncated data; the message
 * says where, e.g. "png: truncated data at row 12"), BASE_ETOOBIG,
 * BASE_ENOMEM. *out is untouched on failure and nothing leaks. */
base_err img_decode(const uint8_t *data, size_t n, img_image *out, char *err);

/* Frees img->px and resets img to empty. NULL-safe, any thread. */
void img_fini(img_image *img);

/* Encodes img as an 8-bit PNG. fast != 0 picks libdeflate level 1 with the
 * cheap "up" filter (screenshots for humans; RGB when every alpha is 255,
 * which decodes to the same RGBA), 0 picks libpng/zlib level 6 RGBA with
 * adaptive filtering. *out (freed by the caller with base_free) and *out_len are set
 * only on success. Any thread. Errors: BASE_EINVAL, BASE_ENOMEM, BASE_EIO
 * (libpng failure). */
base_err img_encode_png(const img_image *img, int fast, uint8_t **out, size_t *out_len,
                               char *err);

/* Encodes img as a baseline 4:2:0 JPEG at quality 1..100 (alpha dropped).
 * Output ownership and errors as img_encode_png, plus BASE_EINVAL for a
 * quality outside 1..100 and BASE_ETOOBIG for an image TurboJPEG cannot
 * take. Any thread. */
base_err img_encode_jpeg(const img_image *img, int quality, uint8_t **out,
                                size_t *out_len, char *err);

/* Sniffs the format from the first bytes (PNG signature or JPEG SOI);
 * IMG_FMT_UNKNOWN for anything else. Pure; any thread. */
img_format img_sniff(const uint8_t *data, size_t n);

#endif

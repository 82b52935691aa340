/* image/png_int.h: the native PNG fast path and encoder of perception/
 * (png_fast.c), used by codec_png.c and by tests. Not a public header. */
#ifndef FOVEA_IMAGE_PNG_INT_H
#define FOVEA_IMAGE_PNG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "image/image.h"

/* Row kernels of the fast path: AUTO is SSE2 on x86-64, else scalar. */
typedef enum img_png_kernel { IMG_PNG_KERNEL_AUTO = 0, IMG_PNG_KERNEL_SCALAR } img_png_kernel;

/* Decodes a non-interlaced 8-bit RGB or RGBA PNG without libpng: chunks are
 * walked and CRC-checked here, the IDAT stream is inflated in one call by
 * libdeflate and the rows are unfiltered straight into RGBA8.
 *
 * Returns 0 ("declined") when the file is anything the fast path does not
 * reproduce exactly as libpng would (other colour types or depths,
 * interlacing, tRNS, unknown critical chunks, truncation, deflate streams
 * libpng might judge differently ...); the caller then decodes it with
 * libpng, which also words the error for broken files. Returns 1 when it
 * decided, with *e = BASE_OK and *out set (caller frees with
 * img_fini), or *e = BASE_EDECODE (CRC mismatch in a critical chunk,
 * bad filter type, too little image data), BASE_ETOOBIG or BASE_ENOMEM,
 * with a message in err (optional, BASE_ERRBUF_SIZE) and *out untouched.
 * The output equals libpng's RGBA8 output byte for byte. Any thread. */
int img__png_fast_decode(const uint8_t *data, size_t n, img_png_kernel k, img_image *out,
                          base_err *e, char *err);

/* The libpng decoder behind img__png_decode (codec_png.c), without the
 * fast path: the reference the fast path must match. Same contract as
 * img_decode for PNG input. */
base_err img__png_decode_libpng(const uint8_t *data, size_t n, img_image *out, char *err);

/* Refuses a header whose image cannot come out of the compressed data the file
 * holds, before any pixel buffer is allocated. Deflate expands at most 1032:1,
 * so idat_bytes of zlib data inflate to at most ~1032 * idat_bytes; a w x h
 * image at bits_per_pixel needs at least w*h*bits_per_pixel/8 bytes of it.
 * Without this, a 51-byte file claiming 16384x6000 pixels made both decoders
 * allocate hundreds of MB (and more downstream) only to report truncated data.
 * Any thread. Errors: BASE_EDECODE ("png: WxH needs at least N bytes of
 * compressed image data, the file has M"). */
base_err img__png_check_data(uint32_t w, uint32_t h, int bits_per_pixel, uint64_t idat_bytes,
                              char *err);

/* Refuses a PNG in memory with a chunk whose declared length runs more than
 * 64 KiB past the end of the data, before libpng sees it (libpng allocates
 * the declared length of ancillary chunks up front). Any thread. Errors:
 * BASE_EDECODE ("png: chunk 'tEXt' claims N bytes, the file has M left
 * ..."). */
base_err img__png_check_chunks(const uint8_t *data, size_t n, char *err);

/* Sum of the IDAT payload bytes of a PNG in memory (bytes actually present: a
 * chunk claiming more than the file holds counts what is there). Stops at the
 * first malformed chunk header. Any thread. */
uint64_t img__png_idat_bytes(const uint8_t *data, size_t n);

/* Encodes img as a PNG with libdeflate: an 8-bit RGB file when every alpha
 * is 255 (the decoders give the same RGBA back), RGBA otherwise; rows use
 * the "up" filter and one IDAT chunk of at most 2^31-1 bytes. level is
 * libdeflate's 1..12. *out (base_free) and *out_len are set on success.
 * Any thread. Errors: BASE_EINVAL, BASE_ETOOBIG, BASE_ENOMEM. */
base_err img__png_fast_encode(const img_image *img, int level, uint8_t **out, size_t *out_len,
                               char *err);

#endif

/* image/codec_png.c: PNG decode and encode through libpng.
 *
 * Screenshots (non-interlaced 8-bit RGB/RGBA) first go through the native
 * fast path of png_fast.c, which inflates with libdeflate and gives the
 * same bytes as libpng; everything it declines comes here. The "fast" PNG
 * encoder is the libdeflate one of png_fast.c as well.
 *
 * libpng reports errors by longjmp'ing out of whatever call hit them, so
 * each entry point keeps all state that must be cleaned up in a context
 * struct whose address libpng sees (it therefore lives in memory, not in
 * registers, across the jump) and frees it on one path whether the jump
 * happened or not. Input is read from memory through a callback that
 * raises a "truncated" error instead of reading past the end; the row being
 * decoded is tracked so messages say where the data ran out.
 *
 * Every colour type and bit depth is normalised to RGBA8 with libpng's own
 * transforms (palette expansion, tRNS to alpha, 16-bit scaling, grey to
 * RGB, opaque filler). Dimensions are checked right after IHDR, before the
 * pixel buffer exists, and ancillary chunk sizes are capped.
 */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "image/image_int.h"
#include "image/png_int.h"

typedef struct png_rd {
    const uint8_t *data;
    size_t n, off;
    int truncated;
    int row; /* row being decoded, -1 while reading headers */
    int forged; /* msg holds img__png_check_data's full message */
    char msg[BASE_ERRBUF_SIZE];
} png_rd;

static void on_error(png_structp png, png_const_charp msg)
{
    png_rd *rd = png_get_error_ptr(png);
    if (rd) {
        snprintf(rd->msg, sizeof(rd->msg), "%s", msg ? msg : "error");
    }
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    /* Warnings (unknown chunks, bad ancillary CRCs) do not stop decoding and
     * would only be noise on stderr. */
    (void)png;
    (void)msg;
}

static void on_read(png_structp png, png_bytep dst, size_t len)
{
    png_rd *rd = png_get_io_ptr(png);
    if (len > rd->n - rd->off) {
        rd->truncated = 1;
        png_error(png, "truncated data");
    }
    memcpy(dst, rd->data + rd->off, len);
    rd->off += len;
}

/* Deflate's best case is a 258-byte match coded in 2 bits: 1032 bytes out
 * per byte in. The slack covers zlib's header and a final partial block. */
#define DEFLATE_MAX_RATIO 1032u
#define DEFLATE_SLACK 1024u

base_err img__png_check_data(uint32_t w, uint32_t h, int bits_per_pixel, uint64_t idat_bytes,
                              char *err)
{
    /* w, h <= 2^31 and bits <= 64: the product fits in 64 bits only after
     * dividing once, so divide by 8 first (a lower bound is all we need). */
    uint64_t need = (uint64_t)w * (uint64_t)h / 8u * (uint64_t)(unsigned)bits_per_pixel;
    uint64_t most = idat_bytes * DEFLATE_MAX_RATIO + DEFLATE_SLACK;
    if (idat_bytes > UINT64_MAX / 2048u || need <= most)
        return BASE_OK;
    return base_errf(err, BASE_EDECODE,
                     "png: %ux%u needs at least %llu bytes of compressed image data, the file "
                     "has %llu (truncated, or a forged header)",
                     (unsigned)w, (unsigned)h, (unsigned long long)(need / DEFLATE_MAX_RATIO),
                     (unsigned long long)idat_bytes);
}

uint64_t img__png_idat_bytes(const uint8_t *data, size_t n)
{
    uint64_t sum = 0;
    size_t off = 8;
    while (data && off <= n && n - off >= 8) {
        uint32_t len = (uint32_t)data[off] << 24 | (uint32_t)data[off + 1] << 16 |
                       (uint32_t)data[off + 2] << 8 | data[off + 3];
        size_t avail = n - off - 8;
        if (memcmp(data + off + 4, "IDAT", 4) == 0)
            sum += len < avail ? len : avail;
        if ((uint64_t)len + 12 > (uint64_t)(n - off))
            break;
        off += (size_t)len + 12;
    }
    return sum;
}

/* Chunks declaring more than this many bytes beyond the end of the file are
 * refused before libpng sees them; smaller truncations are left to libpng,
 * whose messages say where the data ran out. */
#define CLAIM_SLACK (64u << 10)

base_err img__png_check_chunks(const uint8_t *data, size_t n, char *err)
{
    size_t off = 8;
    while (data && off <= n && n - off >= 8) {
        uint32_t len = (uint32_t)data[off] << 24 | (uint32_t)data[off + 1] << 16 |
                       (uint32_t)data[off + 2] << 8 | data[off + 3];
        size_t avail = n - off - 8;
        if (len > avail && len - avail > CLAIM_SLACK) {
            char type[5];
            for (int i = 0; i < 4; i++) {
                uint8_t c = data[off + 4 + i];
                type[i] = (char)((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ? c : '?');
            }
            type[4] = '\0';
            return base_errf(err, BASE_EDECODE,
                             "png: chunk '%s' claims %u bytes, the file has %zu left (truncated, "
                             "or a forged length)",
                             type, (unsigned)len, avail);
        }
        if ((uint64_t)len + 12 > (uint64_t)(n - off))
            break;
        off += (size_t)len + 12;
    }
    return BASE_OK;
}

/* The read state lives in the caller's frame (see img__png_decode) so that
 * its fields, updated between setjmp and a longjmp, stay well defined. */
static base_err png_decode(png_rd *rdp, img_image *out, char *err)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, rdp, on_error, on_warning);
    if (!png)
        return base_errf(err, BASE_ENOMEM, "png: out of memory");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return base_errf(err, BASE_ENOMEM, "png: out of memory");
    }
    /* Written after setjmp and read after a longjmp: must be volatile. */
    uint8_t *volatile px = NULL;
    volatile base_err fail = BASE_EDECODE;
    if (setjmp(png_jmpbuf(png))) {
        base_err e;
        if (fail != BASE_EDECODE)
            e = fail == BASE_ENOMEM ? base_errf(err, fail, "png: out of memory")
                                    : base_errf(err, fail, "png: %s", rdp->msg);
        else if (rdp->forged)
            e = base_errf(err, BASE_EDECODE, "%s", rdp->msg);
        else if (rdp->truncated && rdp->row >= 0)
            e = base_errf(err, BASE_EDECODE, "png: truncated data at row %d", rdp->row);
        else if (rdp->truncated)
            e = base_errf(err, BASE_EDECODE, "png: truncated header");
        else if (rdp->row >= 0)
            e = base_errf(err, BASE_EDECODE, "png: %s at row %d", rdp->msg, rdp->row);
        else
            e = base_errf(err, BASE_EDECODE, "png: %s", rdp->msg);
        base_free(px);
        png_destroy_read_struct(&png, &info, NULL);
        return e;
    }
    png_set_read_fn(png, rdp, on_read);
    png_set_user_limits(png, IMG_MAX_DIM, IMG_MAX_DIM);
    png_set_chunk_malloc_max(png, 8u << 20);
    /* At most this many ancillary chunks (text, sPLT, unknown) are kept:
     * without a cap, many small chunks add up to unbounded memory. */
    png_set_chunk_cache_max(png, 128);
#ifdef PNG_IGNORE_ADLER32
    /* Chunk CRCs already protect the data; the zlib checksum is redundant. */
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
    png_read_info(png, info);

    png_uint_32 w32 = 0;
    png_uint_32 h32 = 0;
    int depth = 0;
    int ctype = 0;
    int ilace = 0;
    png_get_IHDR(png, info, &w32, &h32, &depth, &ctype, &ilace, NULL, NULL);
    base_err de = img__check_dims((int)w32, (int)h32, "png", NULL);
    if (de) {
        snprintf(rdp->msg, sizeof(rdp->msg), "dimensions %ux%u exceed the limits", (unsigned)w32,
                 (unsigned)h32);
        fail = de;
        png_longjmp(png, 1);
    }
    /* The pixel buffer is allocated below: first make sure the file holds
     * enough compressed data to fill it (a forged header must not cost
     * hundreds of MB). */
    rdp->msg[0] = '\0';
    if (img__png_check_data(w32, h32, depth * png_get_channels(png, info),
                             img__png_idat_bytes(rdp->data, rdp->n), rdp->msg)) {
        rdp->forged = 1;
        png_longjmp(png, 1);
    }
    if (ctype == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (depth == 16)
        png_set_scale_16(png);
    if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w32 * 4) {
        snprintf(rdp->msg, sizeof(rdp->msg), "unsupported pixel layout");
        png_longjmp(png, 1);
    }

    int w = (int)w32;
    int h = (int)h32;
    size_t stride = (size_t)w * 4;
    px = base_malloc(stride * (size_t)h);
    if (!px) {
        fail = BASE_ENOMEM;
        png_longjmp(png, 1);
    }
    for (int pass = 0; pass < passes; pass++) {
        for (int y = 0; y < h; y++) {
            rdp->row = y;
            png_read_row(png, px + stride * (size_t)y, NULL);
        }
    }
    rdp->row = h;
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    out->px = px;
    out->w = w;
    out->h = h;
    out->stride = (int)stride;
    out->scale = 1.0f;
    return BASE_OK;
}

base_err img__png_decode(const uint8_t *data, size_t n, img_image *out, char *err)
{
    base_err e = BASE_OK;
    if (img__png_fast_decode(data, n, IMG_PNG_KERNEL_AUTO, out, &e, err))
        return e;
    return img__png_decode_libpng(data, n, out, err);
}

base_err img__png_decode_libpng(const uint8_t *data, size_t n, img_image *out, char *err)
{
    /* libpng allocates a chunk's declared length before reading it (a
     * 48-byte file whose tEXt chunk claims 1.3 GB made it allocate 1.3 GB,
     * whatever png_set_chunk_malloc_max says), so lengths are checked
     * against the data first. */
    base_err ce = img__png_check_chunks(data, n, err);
    if (ce)
        return ce;
    png_rd rd = {.data = data, .n = n, .row = -1};
    return png_decode(&rd, out, err);
}

typedef struct png_wr {
    base_buf buf;
    base_err e;
    char msg[128];
} png_wr;

static void on_werror(png_structp png, png_const_charp msg)
{
    png_wr *wr = png_get_error_ptr(png);
    snprintf(wr->msg, sizeof(wr->msg), "%s", msg ? msg : "error");
    png_longjmp(png, 1);
}

static void on_write(png_structp png, png_bytep src, size_t len)
{
    png_wr *wr = png_get_io_ptr(png);
    base_err e = base_buf_append(&wr->buf, src, len);
    if (e) {
        wr->e = e;
        png_error(png, "output buffer");
    }
}

static void on_flush(png_structp png)
{
    (void)png;
}

/* As for decoding, the writer state lives in the caller's frame. */
static base_err png_encode(png_wr *wr, const img_image *img, uint8_t **out,
                           size_t *out_len, char *err)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, wr, on_werror, on_warning);
    if (!png)
        return base_errf(err, BASE_ENOMEM, "png: out of memory");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return base_errf(err, BASE_ENOMEM, "png: out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        base_err e = wr->e == BASE_ENOMEM ? base_errf(err, BASE_ENOMEM, "png: out of memory")
                                          : base_errf(err, BASE_EIO, "png: %s", wr->msg);
        png_destroy_write_struct(&png, &info);
        return e;
    }
    png_set_write_fn(png, wr, on_write, on_flush);
    png_set_IHDR(png, info, (png_uint_32)img->w, (png_uint_32)img->h, 8, PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    png_write_info(png, info);
    for (int y = 0; y < img->h; y++)
        png_write_row(png, img->px + (size_t)img->stride * (size_t)y);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    size_t len = 0;
    uint8_t *data = (uint8_t *)base_buf_steal(&wr->buf, &len);
    if (!data)
        return base_errf(err, BASE_ENOMEM, "png: out of memory");
    *out = data;
    *out_len = len;
    return BASE_OK;
}

base_err img_encode_png(const img_image *img, int fast, uint8_t **out, size_t *out_len,
                               char *err)
{
    if (!img || !img->px || !out || !out_len || img->stride < img->w * 4)
        return base_errf(err, BASE_EINVAL, "png: invalid image");
    base_err de = img__check_dims(img->w, img->h, "png", err);
    if (de)
        return de == BASE_EDECODE ? BASE_EINVAL : de;
    /* libdeflate's level 1 is several times faster than zlib's and still
     * compresses screenshots better. */
    if (fast)
        return img__png_fast_encode(img, 1, out, out_len, err);
    png_wr wr = {.e = BASE_OK};
    /* Worst case of deflate's stored blocks plus headers; generous cap. */
    base_buf_init(&wr.buf, (size_t)img->h * ((size_t)img->w * 4 + 1) * 2 + (1u << 20));
    base_err e = png_encode(&wr, img, out, out_len, err);
    base_buf_fini(&wr.buf);
    return e;
}

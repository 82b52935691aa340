/* image/codec_jpeg.c: JPEG decode and encode through TurboJPEG.
 *
 * Uses the TurboJPEG 2.x API (tjDecompressHeader3 / tjDecompress2 /
 * tjCompress2) that Debian's libturbojpeg 2.1 provides. The header is read
 * first and the dimensions checked before the output buffer is allocated,
 * both against the global limits and against what the data can hold
 * (jpeg_plausible).
 * TurboJPEG reports truncated data as a warning and fills the missing part
 * with grey; fovea treats "premature end" as a decode error so a cut-off
 * screenshot is never mistaken for a page, while other warnings (stray bytes
 * between markers) are tolerated because the image is still whole.
 *
 * Encoding compresses straight into a buffer from base_malloc sized with
 * tjBufSize (TJFLAG_NOREALLOC), so callers free it with base_free like every
 * other fovea buffer.
 */
#include <stdio.h>
#include <string.h>
#include <turbojpeg.h>

#include "base/alloc.h"
#include "image/image_int.h"

/* tjGetErrorStr2 returns a char * it owns; copy it into a short message. */
static base_err tj_fail(tjhandle tj, base_err e, const char *what, char *err)
{
    const char *m = tj ? tjGetErrorStr2(tj) : "cannot create a TurboJPEG handle";
    return base_errf(err, e, "jpeg: %s: %s", what, m ? m : "unknown error");
}

/* The frame type of the first SOF marker: 1 Huffman (baseline, extended,
 * progressive, lossless), 2 arithmetic coding, 0 not found. Walks the
 * marker segments from SOI; the header has already been read by TurboJPEG,
 * so this only classifies. */
static int sof_coding(const uint8_t *d, size_t n)
{
    size_t i = 2;
    while (i + 4 <= n) {
        if (d[i] != 0xFF)
            return 0;
        uint8_t m = d[i + 1];
        if (m == 0xFF) {
            i++; /* fill byte */
            continue;
        }
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC)
            return m >= 0xC9 ? 2 : 1;
        if (m == 0xDA || m == 0xD9)
            return 0;
        i += 2 + ((size_t)d[i + 2] << 8 | d[i + 3]);
    }
    return 0;
}

/* A forged header can claim 16000x6000 in a 651-byte file, and the decoder
 * would allocate 384 MB for it and fill it with grey. Every 8x8 block of
 * the first component costs at least one bit with Huffman coding (a DC
 * code; baseline needs an end-of-block code too, progressive DC scans one
 * code per block), so the data must hold at least blocks/8 bytes. Arithmetic
 * coding can go below a bit per block; it gets a 64 times looser bound. A
 * real image, however flat, is far above either bound (a white 4000x3000
 * screenshot is ~190 KB at quality 80; the bound is 23 KB). */
static base_err jpeg_plausible(const uint8_t *data, size_t n, int w, int h, char *err)
{
    uint64_t blocks = (uint64_t)((w + 7) / 8) * (uint64_t)((h + 7) / 8);
    int coding = sof_coding(data, n);
    uint64_t min = coding == 2 ? blocks / 512 : blocks / 8;
    if ((uint64_t)n < min)
        return base_errf(err, BASE_EDECODE,
                         "jpeg: %zu bytes is too small for the %dx%d its header claims (at "
                         "least %llu bytes): a forged or truncated file",
                         n, w, h, (unsigned long long)min);
    return BASE_OK;
}

static base_err jpeg_header(tjhandle tj, const uint8_t *data, size_t n, int *w, int *h, char *err)
{
    int iw = 0;
    int ih = 0;
    int sub = 0;
    int cs = 0;
    if (tjDecompressHeader3(tj, data, (unsigned long)n, &iw, &ih, &sub, &cs) != 0)
        return tj_fail(tj, BASE_EDECODE, "bad header", err);
    base_err e = img__check_dims(iw, ih, "jpeg", err);
    if (!e)
        e = jpeg_plausible(data, n, iw, ih, err);
    if (e)
        return e;
    *w = iw;
    *h = ih;
    return BASE_OK;
}

base_err img__jpeg_info(const uint8_t *data, size_t n, int *w, int *h, char *err)
{
    tjhandle tj = tjInitDecompress();
    if (!tj)
        return base_errf(err, BASE_ENOMEM, "jpeg: cannot create a decompressor");
    base_err e = jpeg_header(tj, data, n, w, h, err);
    tjDestroy(tj);
    return e;
}

base_err img__jpeg_decode(const uint8_t *data, size_t n, img_image *out, char *err)
{
    tjhandle tj = tjInitDecompress();
    if (!tj)
        return base_errf(err, BASE_ENOMEM, "jpeg: cannot create a decompressor");
    int w = 0;
    int h = 0;
    uint8_t *px = NULL;
    base_err e = jpeg_header(tj, data, n, &w, &h, err);
    if (e)
        goto done;
    size_t stride = (size_t)w * 4;
    px = base_malloc(stride * (size_t)h);
    if (!px) {
        e = base_errf(err, BASE_ENOMEM, "jpeg: out of memory for %dx%d", w, h);
        goto done;
    }
    if (tjDecompress2(tj, data, (unsigned long)n, px, w, (int)stride, h, TJPF_RGBA, 0) != 0) {
        const char *m = tjGetErrorStr2(tj);
        int fatal = tjGetErrorCode(tj) == TJERR_FATAL;
        /* "Premature end of JPEG file" (cut) and "Corrupt JPEG data:
         * premature end of data segment" (a marker where scan data should
         * be, as in a forged header) both mean part of the image is grey. */
        if (fatal || (m && (strstr(m, "Premature end") || strstr(m, "premature end")))) {
            e = base_errf(err, BASE_EDECODE, "jpeg: %s", m && *m ? m : "corrupt data");
            goto done;
        }
    }
    out->px = px;
    out->w = w;
    out->h = h;
    out->stride = (int)stride;
    out->scale = 1.0f;
    px = NULL;
done:
    base_free(px);
    tjDestroy(tj);
    return e;
}

base_err img_encode_jpeg(const img_image *img, int quality, uint8_t **out,
                                size_t *out_len, char *err)
{
    if (!img || !img->px || !out || !out_len || img->stride < img->w * 4)
        return base_errf(err, BASE_EINVAL, "jpeg: invalid image");
    if (quality < 1 || quality > 100)
        return base_errf(err, BASE_EINVAL, "jpeg: quality %d outside 1..100", quality);
    base_err de = img__check_dims(img->w, img->h, "jpeg", err);
    if (de)
        return de == BASE_EDECODE ? BASE_EINVAL : de;
    unsigned long cap = tjBufSize(img->w, img->h, TJSAMP_420);
    if (cap == (unsigned long)-1)
        return base_errf(err, BASE_ETOOBIG, "jpeg: image too large");
    uint8_t *buf = base_malloc(cap);
    if (!buf)
        return base_errf(err, BASE_ENOMEM, "jpeg: out of memory");
    tjhandle tj = tjInitCompress();
    if (!tj) {
        base_free(buf);
        return base_errf(err, BASE_ENOMEM, "jpeg: cannot create a compressor");
    }
    unsigned char *dst = buf;
    unsigned long len = cap;
    if (tjCompress2(tj, img->px, img->w, img->stride, img->h, TJPF_RGBA, &dst, &len, TJSAMP_420,
                    quality, TJFLAG_NOREALLOC | TJFLAG_FASTDCT) != 0) {
        base_err e = tj_fail(tj, BASE_EIO, "encode", err);
        tjDestroy(tj);
        base_free(buf);
        return e;
    }
    tjDestroy(tj);
    /* Give back the unused tail of the worst-case buffer. */
    uint8_t *shrunk = base_realloc(buf, len ? len : 1);
    *out = shrunk ? shrunk : buf;
    *out_len = len;
    return BASE_OK;
}

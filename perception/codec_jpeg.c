/* perception/codec_jpeg.c: JPEG decode and encode through TurboJPEG.
 *
 * Uses the TurboJPEG 2.x API (tjDecompressHeader3 / tjDecompress2 /
 * tjCompress2) that Debian's libturbojpeg 2.1 provides. The header is read
 * first and the dimensions checked before the output buffer is allocated.
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
#include "perception/image_int.h"

/* tjGetErrorStr2 returns a char * it owns; copy it into a short message. */
static base_err tj_fail(tjhandle tj, base_err e, const char *what, char *err)
{
    const char *m = tj ? tjGetErrorStr2(tj) : "cannot create a TurboJPEG handle";
    return base_errf(err, e, "jpeg: %s: %s", what, m ? m : "unknown error");
}

static base_err jpeg_header(tjhandle tj, const uint8_t *data, size_t n, int *w, int *h, char *err)
{
    int iw = 0;
    int ih = 0;
    int sub = 0;
    int cs = 0;
    if (tjDecompressHeader3(tj, data, (unsigned long)n, &iw, &ih, &sub, &cs) != 0)
        return tj_fail(tj, BASE_EDECODE, "bad header", err);
    base_err e = perc__check_dims(iw, ih, "jpeg", err);
    if (e)
        return e;
    *w = iw;
    *h = ih;
    return BASE_OK;
}

base_err perc__jpeg_info(const uint8_t *data, size_t n, int *w, int *h, char *err)
{
    tjhandle tj = tjInitDecompress();
    if (!tj)
        return base_errf(err, BASE_ENOMEM, "jpeg: cannot create a decompressor");
    base_err e = jpeg_header(tj, data, n, w, h, err);
    tjDestroy(tj);
    return e;
}

base_err perc__jpeg_decode(const uint8_t *data, size_t n, perc_image *out, char *err)
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
        if (fatal || (m && strstr(m, "Premature end"))) {
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

base_err perc_image_encode_jpeg(const perc_image *img, int quality, uint8_t **out,
                                size_t *out_len, char *err)
{
    if (!img || !img->px || !out || !out_len || img->stride < img->w * 4)
        return base_errf(err, BASE_EINVAL, "jpeg: invalid image");
    if (quality < 1 || quality > 100)
        return base_errf(err, BASE_EINVAL, "jpeg: quality %d outside 1..100", quality);
    base_err de = perc__check_dims(img->w, img->h, "jpeg", err);
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

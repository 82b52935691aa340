/* image/png_fast.c: the native PNG path for screenshots.
 *
 * Chromium sends its screenshots as non-interlaced 8-bit RGB (opaque pages)
 * or RGBA PNGs, and decoding them through libpng was the slowest stage of
 * the capture pipeline: zlib's streaming inflate alone took ~10 ms for a
 * 1280x800 page. This file decodes exactly that family itself:
 *
 * 1. The chunks are walked once with every length checked against the
 *    bytes left and every CRC verified (libdeflate's folded CRC-32 makes
 *    that nearly free). The IDAT payloads are gathered into one buffer.
 * 2. The zlib stream is inflated in a single libdeflate call into a buffer
 *    of exactly the filtered size (plus slack for 4-byte loads), which is
 *    several times faster than zlib's inflate.
 * 3. Rows are unfiltered and expanded to RGBA8 in one pass, reading the
 *    previous row from the output image. The SSE2 kernels work on one pixel
 *    per 32-bit lane (RGB pixels are loaded as 4 bytes, the fourth is then
 *    replaced by opaque alpha), the scalar kernels are the reference.
 *
 * The rule is "same bytes as libpng, or hand over": anything whose result
 * libpng might see differently - other colour types, depths, interlacing,
 * tRNS, unknown critical chunks, oversized chunks, a truncated file, a
 * deflate stream that is malformed or has trailing data - makes the fast
 * path decline, and codec_png.c decodes the file with libpng from scratch.
 * Errors are reported here only where libpng would certainly fail too: a
 * CRC mismatch in a critical chunk, an invalid row filter, or a stream that
 * ends before the last row. Like libpng (PNG_IGNORE_ADLER32) the zlib
 * checksum is not verified: the chunk CRCs already cover the data.
 *
 * The encoder writes IHDR, one IDAT and IEND with "up"-filtered rows
 * compressed by libdeflate, which is both faster and tighter than zlib at
 * its fast levels. libdeflate allocates through base_malloc (set once), so
 * allocation-failure tests reach its allocations too.
 */
#include <pthread.h>
#include <string.h>

#include <libdeflate.h>

#include "base/alloc.h"
#include "image/image_int.h"
#include "image/png_int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_SSE2 1
#else
#define HAVE_SSE2 0
#endif

/* libpng's chunk size cap as codec_png.c configures it
 * (png_set_chunk_malloc_max): larger chunks are for libpng to judge. */
#define CHUNK_MAX (8u << 20)
/* Bytes of slack after the inflated rows: kernels load RGB pixels 4 bytes
 * at a time, so the last pixel of the last row reads one byte past it. */
#define SLACK 16

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static pthread_once_t alloc_once = PTHREAD_ONCE_INIT;

static void set_allocator(void)
{
    libdeflate_set_memory_allocator(base_malloc, base_free);
}

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static int is_letter(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* What the chunk walk found. */
typedef struct png_scan {
    uint32_t w, h;
    int bpp;          /* 3 (RGB) or 4 (RGBA) */
    size_t idat_len;  /* total IDAT payload bytes */
    size_t idat_n;    /* number of IDAT chunks */
    size_t idat_first; /* offset of the first IDAT payload */
} png_scan;

enum { SCAN_OK = 0, SCAN_DECLINE = 1, SCAN_ERROR = 2 };

/* Walks the chunks from IHDR to IEND. Returns SCAN_OK when the file is in
 * the fast path's family and structurally sound, SCAN_DECLINE when libpng
 * should look at it, SCAN_ERROR (message in err) when it is certainly
 * broken. */
static int scan_chunks(const uint8_t *d, size_t n, png_scan *s, char *err)
{
    if (n < 8 || memcmp(d, png_sig, 8) != 0)
        return SCAN_DECLINE;
    size_t off = 8;
    int seen_ihdr = 0;
    int idat_state = 0; /* 0 none yet, 1 in the IDAT run, 2 after it */
    for (;;) {
        /* A chunk is length, type, data and CRC; anything shorter is a
         * truncated file, which libpng reports with the row it reached. */
        if (n - off < 12)
            return SCAN_DECLINE;
        uint32_t len = be32(d + off);
        const uint8_t *type = d + off + 4;
        if (len > CHUNK_MAX || len > n - off - 12)
            return SCAN_DECLINE;
        if (!is_letter(type[0]) || !is_letter(type[1]) || !is_letter(type[2]) ||
            !is_letter(type[3]))
            return SCAN_DECLINE;
        const uint8_t *body = type + 4;
        int critical = !(type[0] & 0x20);
        if (critical) {
            /* libpng treats a bad CRC in a critical chunk as fatal and
             * merely warns about ancillary ones, which it then drops. */
            uint32_t crc = (uint32_t)libdeflate_crc32(0, type, (size_t)len + 4);
            if (crc != be32(body + len)) {
                base_errf(err, BASE_EDECODE, "png: CRC mismatch in %.4s chunk at byte %zu",
                          (const char *)type, off);
                return SCAN_ERROR;
            }
        }
        if (!seen_ihdr) {
            if (memcmp(type, "IHDR", 4) != 0 || len != 13)
                return SCAN_DECLINE;
            s->w = be32(body);
            s->h = be32(body + 4);
            uint8_t depth = body[8];
            uint8_t ctype = body[9];
            /* 8-bit truecolour, deflate, adaptive filters, no interlace. */
            if (depth != 8 || (ctype != 2 && ctype != 6) || body[10] || body[11] || body[12])
                return SCAN_DECLINE;
            s->bpp = ctype == 6 ? 4 : 3;
            seen_ihdr = 1;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            if (idat_state == 2)
                return SCAN_DECLINE; /* split IDAT runs: libpng's call */
            if (idat_state == 0)
                s->idat_first = off + 8;
            idat_state = 1;
            s->idat_len += len;
            s->idat_n++;
        } else if (memcmp(type, "IEND", 4) == 0) {
            if (len != 0 || idat_state == 0)
                return SCAN_DECLINE;
            return SCAN_OK;
        } else if (critical || memcmp(type, "tRNS", 4) == 0) {
            /* PLTE, unknown critical chunks and transparency keys change
             * what libpng does; leave them to it. */
            return SCAN_DECLINE;
        } else if (idat_state == 1) {
            idat_state = 2;
        }
        off += (size_t)len + 12;
    }
}

/* Copies the IDAT payloads (one run of consecutive chunks, already
 * validated by scan_chunks) into dst. */
static void gather_idat(const uint8_t *d, const png_scan *s, uint8_t *dst)
{
    size_t off = s->idat_first - 8;
    size_t got = 0;
    for (size_t i = 0; i < s->idat_n; i++) {
        uint32_t len = be32(d + off);
        memcpy(dst + got, d + off + 8, len);
        got += len;
        off += (size_t)len + 12;
    }
}

/* ---- row kernels -------------------------------------------------------
 * Each turns one filtered row (src, after its filter byte; bpp bytes per
 * pixel) into w RGBA pixels at dst, with prev the previous output row (a
 * zero row above the first). For bpp 3 the alpha byte is set to 255; for
 * bpp 4 alpha is unfiltered like the other channels. */

static int paeth(int a, int b, int c)
{
    int pa = b - c;
    int pb = a - c;
    int pc = pa + pb;
    pa = pa < 0 ? -pa : pa;
    pb = pb < 0 ? -pb : pb;
    pc = pc < 0 ? -pc : pc;
    if (pa <= pb && pa <= pc)
        return a;
    return pb <= pc ? b : c;
}

static void row_scalar(int ft, const uint8_t *src, const uint8_t *prev, uint8_t *dst, int w,
                       int bpp)
{
    for (int x = 0; x < w; x++) {
        const uint8_t *s = src + (size_t)x * bpp;
        uint8_t *o = dst + (size_t)x * 4;
        const uint8_t *up = prev + (size_t)x * 4;
        for (int c = 0; c < bpp; c++) {
            int a = x ? o[c - 4] : 0;
            int b = up[c];
            int cc = x ? up[c - 4] : 0;
            int p;
            switch (ft) {
            case 1:
                p = a;
                break;
            case 2:
                p = b;
                break;
            case 3:
                p = (a + b) >> 1;
                break;
            case 4:
                p = paeth(a, b, cc);
                break;
            default:
                p = 0;
            }
            o[c] = (uint8_t)(s[c] + p);
        }
        if (bpp == 3)
            o[3] = 255;
    }
}

#if HAVE_SSE2
static __m128i load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128((int)v);
}

static void store32(uint8_t *p, __m128i v)
{
    uint32_t u = (uint32_t)_mm_cvtsi128_si32(v);
    memcpy(p, &u, 4);
}

/* One pixel per iteration in the low 32 bits of an XMM register: the
 * left neighbour a stays in a register, so the serial dependency of Sub,
 * Avg and Paeth is a handful of instructions per pixel. */
static void row_sse2(int ft, const uint8_t *src, const uint8_t *prev, uint8_t *dst, int w,
                     int bpp)
{
    const __m128i amask = _mm_cvtsi32_si128(bpp == 3 ? (int)0xff000000u : 0);
    const __m128i zero = _mm_setzero_si128();
    const __m128i one = _mm_set1_epi8(1);
    __m128i a = zero;
    int x = 0;
    switch (ft) {
    case 0:
        if (bpp == 4) {
            memmove(dst, src, (size_t)w * 4); /* the rows share one buffer */
            return;
        }
        for (; x < w; x++)
            store32(dst + 4 * x, _mm_or_si128(load32(src + 3 * x), amask));
        return;
    case 1:
        for (; x < w; x++) {
            a = _mm_or_si128(_mm_add_epi8(load32(src + (size_t)x * bpp), a), amask);
            store32(dst + 4 * x, a);
        }
        return;
    case 2:
        if (bpp == 4) {
            for (; x + 4 <= w; x += 4) {
                __m128i s = _mm_loadu_si128((const __m128i *)(const void *)(src + 4 * x));
                __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(prev + 4 * x));
                _mm_storeu_si128((__m128i *)(void *)(dst + 4 * x), _mm_add_epi8(s, b));
            }
        }
        for (; x < w; x++) {
            __m128i s = load32(src + (size_t)x * bpp);
            store32(dst + 4 * x, _mm_or_si128(_mm_add_epi8(s, load32(prev + 4 * x)), amask));
        }
        return;
    case 3:
        for (; x < w; x++) {
            __m128i b = load32(prev + 4 * x);
            /* floor((a + b) / 2) = pavgb (which rounds up) minus the odd bit. */
            __m128i avg = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
            a = _mm_or_si128(_mm_add_epi8(load32(src + (size_t)x * bpp), avg), amask);
            store32(dst + 4 * x, a);
        }
        return;
    default: {
        /* Paeth in 16-bit lanes: pa = |b - c|, pb = |a - c|, pc = |pa' + pb'|
         * with the signed differences; the predictor is a when pa is the
         * smallest, else b when pb <= pc, else c (ties as in the spec). */
        __m128i a16 = zero;
        __m128i c16 = zero;
        for (; x < w; x++) {
            __m128i b16 = _mm_unpacklo_epi8(load32(prev + 4 * x), zero);
            __m128i da = _mm_sub_epi16(b16, c16);
            __m128i db = _mm_sub_epi16(a16, c16);
            __m128i dc = _mm_add_epi16(da, db);
            __m128i pa = _mm_max_epi16(da, _mm_sub_epi16(zero, da));
            __m128i pb = _mm_max_epi16(db, _mm_sub_epi16(zero, db));
            __m128i pc = _mm_max_epi16(dc, _mm_sub_epi16(zero, dc));
            __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
            __m128i use_c = _mm_cmpgt_epi16(pb, pc);
            __m128i bc = _mm_or_si128(_mm_and_si128(use_c, c16), _mm_andnot_si128(use_c, b16));
            __m128i p16 = _mm_or_si128(_mm_and_si128(not_a, bc), _mm_andnot_si128(not_a, a16));
            __m128i p = _mm_packus_epi16(p16, p16);
            a = _mm_or_si128(_mm_add_epi8(load32(src + (size_t)x * bpp), p), amask);
            store32(dst + 4 * x, a);
            a16 = _mm_unpacklo_epi8(a, zero);
            c16 = b16;
        }
        return;
    }
    }
}
#endif

/* Inflates and unfilters into a new image. Returns 0 to decline.
 *
 * There is no separate buffer for the inflated rows: they are inflated into
 * the tail of the output image's own buffer and unfiltered front to back
 * into its head. Row y of the output (4w bytes at 4wy) ends before filtered
 * row y+1 starts (at off + (bpp*w+1)*(y+1), off >= (4-bpp)*w*h + 16), and
 * within a row each pixel is read before the output pixel at or before it
 * is written, so no byte is overwritten before it is read. This saves a
 * 3 MB allocation (and its page faults) per screenshot. */
static int decode_rows(const uint8_t *zs, size_t zn, const png_scan *s, img_png_kernel k,
                       img_image *out, base_err *e, char *err)
{
    int w = (int)s->w;
    int h = (int)s->h;
    size_t rowlen = (size_t)w * (size_t)s->bpp + 1;
    size_t raw_n = rowlen * (size_t)h;
    size_t stride = (size_t)w * 4;
    /* zlib header: method 8 (deflate), no preset dictionary, check bits.
     * A window smaller than 32 KiB is fine only when the whole output fits
     * in it, since zlib rejects distances beyond the declared window and
     * libdeflate does not; otherwise let libpng (i.e. zlib) judge. */
    if (zn < 2 || (zs[0] & 15) != 8 || (zs[0] >> 4) > 7 || (zs[1] & 0x20) ||
        ((unsigned)zs[0] * 256u + zs[1]) % 31u != 0)
        return 0;
    if ((zs[0] >> 4) < 7 && raw_n > (size_t)1 << ((zs[0] >> 4) + 8))
        return 0;

    /* Dimensions are checked (<= 100 Mpixel), so none of this overflows. */
    size_t off = (size_t)(4 - s->bpp) * (size_t)w * (size_t)h + 16;
    uint8_t *px = base_malloc(off + raw_n + SLACK);
    uint8_t *zrow = base_calloc((size_t)w, 4);
    struct libdeflate_decompressor *dc = libdeflate_alloc_decompressor();
    int handled = 1;
    if (!px || !zrow || !dc) {
        *e = base_errf(err, BASE_ENOMEM, "png: out of memory for %dx%d", w, h);
        goto done;
    }
    uint8_t *raw = px + off;
    memset(raw + raw_n, 0, SLACK);
    size_t in_used = 0;
    size_t got = 0;
    enum libdeflate_result r =
        libdeflate_deflate_decompress_ex(dc, zs + 2, zn - 2, raw, raw_n, &in_used, &got);
    if (r == LIBDEFLATE_SUCCESS && got < raw_n) {
        *e = base_errf(err, BASE_EDECODE, "png: not enough image data at row %d",
                       (int)(got / rowlen));
        goto done;
    }
    /* Besides success, the stream must be followed by exactly its 4-byte
     * Adler-32: malformed or over-long streams and trailing bytes are
     * libpng's call (some are only warnings there). */
    if (r != LIBDEFLATE_SUCCESS || in_used + 4 != zn - 2) {
        handled = 0;
        goto done;
    }
    /* The filter types are checked first: the rows are overwritten as
     * they are unfiltered, and a failed decode must not look half done. */
    for (int y = 0; y < h; y++) {
        if (raw[rowlen * (size_t)y] > 4) {
            *e = base_errf(err, BASE_EDECODE, "png: invalid filter type %d at row %d",
                           raw[rowlen * (size_t)y], y);
            goto done;
        }
    }
    for (int y = 0; y < h; y++) {
        const uint8_t *row = raw + rowlen * (size_t)y;
        const uint8_t *prev = y ? px + stride * (size_t)(y - 1) : zrow;
        uint8_t *dst = px + stride * (size_t)y;
#if HAVE_SSE2
        if (k != IMG_PNG_KERNEL_SCALAR) {
            row_sse2(row[0], row + 1, prev, dst, w, s->bpp);
            continue;
        }
#endif
        row_scalar(row[0], row + 1, prev, dst, w, s->bpp);
    }
    (void)k;
    out->px = px;
    out->w = w;
    out->h = h;
    out->stride = (int)stride;
    out->scale = 1.0f;
    px = NULL;
    *e = BASE_OK;
done:
    libdeflate_free_decompressor(dc);
    base_free(px);
    base_free(zrow);
    return handled;
}

int img__png_fast_decode(const uint8_t *data, size_t n, img_png_kernel k, img_image *out,
                          base_err *e, char *err)
{
    if (!data || !out || !e)
        return 0;
    pthread_once(&alloc_once, set_allocator);
    png_scan s = {0};
    int sc = scan_chunks(data, n, &s, err);
    if (sc == SCAN_ERROR) {
        *e = BASE_EDECODE;
        return 1;
    }
    if (sc != SCAN_OK)
        return 0;
    if (s.w > (uint32_t)IMG_MAX_DIM || s.h > (uint32_t)IMG_MAX_DIM) {
        *e = base_errf(err, BASE_ETOOBIG, "png: dimensions %ux%u exceed the %d pixel limit",
                       (unsigned)s.w, (unsigned)s.h, IMG_MAX_DIM);
        return 1;
    }
    base_err de = img__check_dims((int)s.w, (int)s.h, "png", err);
    if (de) {
        *e = de;
        return 1;
    }
    /* Before decode_rows allocates the pixels: a header forged to claim
     * far more pixels than the compressed data can hold is an error here,
     * with the same bound and message as the libpng path. */
    de = img__png_check_data(s.w, s.h, s.bpp * 8, s.idat_len, err);
    if (de) {
        *e = de;
        return 1;
    }
    /* A file that is one IDAT chunk (or whose IDATs happen to be adjacent
     * in one run with nothing between payloads) needs no copy. */
    if (s.idat_n == 1)
        return decode_rows(data + s.idat_first, s.idat_len, &s, k, out, e, err);
    uint8_t *z = base_malloc(s.idat_len ? s.idat_len : 1);
    if (!z) {
        *e = base_errf(err, BASE_ENOMEM, "png: out of memory");
        return 1;
    }
    gather_idat(data, &s, z);
    int handled = decode_rows(z, s.idat_len, &s, k, out, e, err);
    base_free(z);
    return handled;
}

/* ---- encoder ---------------------------------------------------------- */

/* Appends one chunk (length, type, data, CRC) at p; returns the end. */
static uint8_t *put_chunk(uint8_t *p, const char *type, const uint8_t *body, size_t len)
{
    put_be32(p, (uint32_t)len);
    memcpy(p + 4, type, 4);
    if (len && body != p + 8)
        memmove(p + 8, body, len);
    uint32_t crc = (uint32_t)libdeflate_crc32(0, p + 4, len + 4);
    put_be32(p + 8 + len, crc);
    return p + 12 + len;
}

base_err img__png_fast_encode(const img_image *img, int level, uint8_t **out, size_t *out_len,
                               char *err)
{
    if (!img || !img->px || !out || !out_len || img->stride < img->w * 4 || level < 1 ||
        level > 12)
        return base_errf(err, BASE_EINVAL, "png: invalid image");
    base_err de = img__check_dims(img->w, img->h, "png", err);
    if (de)
        return de == BASE_EDECODE ? BASE_EINVAL : de;
    pthread_once(&alloc_once, set_allocator);
    int w = img->w;
    int h = img->h;
    int opaque = 1;
    for (int y = 0; y < h && opaque; y++) {
        const uint8_t *row = img->px + (size_t)img->stride * (size_t)y;
        for (int x = 0; x < w; x++)
            if (row[4 * x + 3] != 255) {
                opaque = 0;
                break;
            }
    }
    int bpp = opaque ? 3 : 4;
    size_t rowlen = (size_t)w * (size_t)bpp + 1;
    size_t raw_n = rowlen * (size_t)h;
    uint8_t *raw = base_malloc(raw_n);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    uint8_t *buf = NULL;
    base_err e = BASE_OK;
    if (!raw || !c) {
        e = base_errf(err, BASE_ENOMEM, "png: out of memory");
        goto done;
    }
    /* "up" filter: each byte minus the one above (the first row is raw). */
    for (int y = 0; y < h; y++) {
        const uint8_t *s = img->px + (size_t)img->stride * (size_t)y;
        const uint8_t *u = y ? s - img->stride : NULL;
        uint8_t *d = raw + rowlen * (size_t)y;
        d[0] = y ? 2 : 0;
        d++;
        if (bpp == 4) {
            if (u) {
                for (size_t i = 0; i < (size_t)w * 4; i++)
                    d[i] = (uint8_t)(s[i] - u[i]);
            } else {
                memcpy(d, s, (size_t)w * 4);
            }
            continue;
        }
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < 3; ch++)
                d[3 * x + ch] = (uint8_t)(s[4 * x + ch] - (u ? u[4 * x + ch] : 0));
    }
    size_t zcap = libdeflate_zlib_compress_bound(c, raw_n);
    if (zcap > 0x7fffffffu) {
        e = base_errf(err, BASE_ETOOBIG, "png: image too large for one IDAT chunk");
        goto done;
    }
    /* Signature, IHDR (25), IDAT header (8) + data + CRC, IEND (12). */
    size_t cap = 8 + 25 + 12 + zcap + 12;
    buf = base_malloc(cap);
    if (!buf) {
        e = base_errf(err, BASE_ENOMEM, "png: out of memory");
        goto done;
    }
    memcpy(buf, png_sig, 8);
    uint8_t ihdr[13];
    put_be32(ihdr, (uint32_t)w);
    put_be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;
    ihdr[9] = opaque ? 2 : 6;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    uint8_t *p = put_chunk(buf + 8, "IHDR", ihdr, 13);
    size_t zn = libdeflate_zlib_compress(c, raw, raw_n, p + 8, zcap);
    if (zn == 0) {
        /* Cannot happen with a buffer of compress_bound bytes. */
        e = base_errf(err, BASE_EIO, "png: deflate output overflow");
        goto done;
    }
    p = put_chunk(p, "IDAT", p + 8, zn);
    p = put_chunk(p, "IEND", NULL, 0);
    size_t len = (size_t)(p - buf);
    /* Give back the unused tail of the worst-case buffer. */
    uint8_t *shrunk = base_realloc(buf, len);
    *out = shrunk ? shrunk : buf;
    *out_len = len;
    buf = NULL;
done:
    base_free(buf);
    libdeflate_free_compressor(c);
    base_free(raw);
    return e;
}

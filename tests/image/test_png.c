/* tests/image/test_png.c: the native PNG fast path (png_fast.c)
 * against libpng.
 *
 * PNGs are built here from scratch - rows filtered by this file's own
 * encoder with a chosen filter type (or a random one per row), deflated at
 * several levels and cut into IDAT chunks of random sizes - so every filter
 * is exercised for 3 and 4 bytes per pixel at awkward widths. Each file is
 * decoded by the fast path with the SSE2 and the scalar kernels and by
 * libpng (img__png_decode_libpng, the fallback), and the RGBA bytes must be
 * identical. Hostile variants (bad CRCs, invalid filters, short or trailing
 * data, truncation at every byte, huge or zero dimensions, small zlib
 * windows, tRNS) must give a clear error or be handed to libpng, whose
 * verdict img_decode then returns.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libdeflate.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/rng.h"
#include "check.h"
#include "image/image.h"
#include "image/png_int.h"
#include "test_util.h"

/* ---- a small PNG writer ---------------------------------------------- */

typedef struct pngw {
    uint8_t *p;
    size_t n, cap;
} pngw;

static void w_bytes(pngw *w, const void *d, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 64;
        w->p = realloc(w->p, w->cap);
        if (!w->p)
            abort();
    }
    memcpy(w->p + w->n, d, n);
    w->n += n;
}

static void w_be32(pngw *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    w_bytes(w, b, 4);
}

/* Appends a chunk; crc_xor != 0 corrupts its CRC. */
static void w_chunk(pngw *w, const char *type, const uint8_t *d, size_t n, uint32_t crc_xor)
{
    w_be32(w, (uint32_t)n);
    size_t at = w->n;
    w_bytes(w, type, 4);
    if (n)
        w_bytes(w, d, n);
    w_be32(w, (uint32_t)libdeflate_crc32(0, w->p + at, n + 4) ^ crc_xor);
}

static void w_ihdr(pngw *w, uint32_t width, uint32_t height, int depth, int ctype, int ilace)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    w_bytes(w, sig, 8);
    uint8_t h[13] = {0};
    for (int i = 0; i < 4; i++) {
        h[i] = (uint8_t)(width >> (24 - 8 * i));
        h[4 + i] = (uint8_t)(height >> (24 - 8 * i));
    }
    h[8] = (uint8_t)depth;
    h[9] = (uint8_t)ctype;
    h[12] = (uint8_t)ilace;
    w_chunk(w, "IHDR", h, 13, 0);
}

static int paeth_ref(int a, int b, int c)
{
    int p = a + b - c;
    int pa = abs(p - a);
    int pb = abs(p - b);
    int pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

/* Filters img (bpp 3 drops alpha) into rows of 1 + w*bpp bytes. ftype 0..4
 * is used for every row, 5 picks one at random per row, 6 writes the
 * invalid type 5 into row h/2. */
static uint8_t *filter_rows(const img_image *img, int bpp, int ftype, base_rng *r, size_t *n)
{
    size_t rl = (size_t)img->w * bpp + 1;
    uint8_t *out = malloc(rl * img->h);
    uint8_t *cur = malloc(rl);
    uint8_t *prev = calloc(rl, 1);
    if (!out || !cur || !prev)
        abort();
    for (int y = 0; y < img->h; y++) {
        const uint8_t *s = img->px + (size_t)y * img->stride;
        for (int x = 0; x < img->w; x++)
            memcpy(cur + 1 + (size_t)x * bpp, s + 4 * x, (size_t)bpp);
        int ft = ftype <= 4 ? ftype : (int)base_rng_below(r, 5);
        uint8_t *d = out + rl * y;
        d[0] = (uint8_t)(ftype == 6 && y == img->h / 2 ? 5 : ft);
        for (size_t i = 1; i < rl; i++) {
            int a = i > (size_t)bpp ? cur[i - bpp] : 0;
            int b = prev[i];
            int c = i > (size_t)bpp ? prev[i - bpp] : 0;
            int p = ft == 1 ? a : ft == 2 ? b : ft == 3 ? (a + b) / 2 : ft == 4 ? paeth_ref(a, b, c) : 0;
            d[i] = (uint8_t)(cur[i] - p);
        }
        memcpy(prev, cur, rl);
    }
    free(cur);
    free(prev);
    *n = rl * img->h;
    return out;
}

static uint8_t *zlib_of(const uint8_t *raw, size_t n, int level, size_t *zn)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    size_t cap = libdeflate_zlib_compress_bound(c, n);
    uint8_t *z = malloc(cap);
    if (!c || !z)
        abort();
    *zn = libdeflate_zlib_compress(c, raw, n, z, cap);
    libdeflate_free_compressor(c);
    return z;
}

/* Writes the stream as IDAT chunks of random sizes (chunk_max 0: one). */
static void w_idats(pngw *w, const uint8_t *z, size_t zn, size_t chunk_max, base_rng *r)
{
    size_t off = 0;
    while (off < zn) {
        size_t k = chunk_max ? 1 + base_rng_below(r, chunk_max) : zn;
        k = k > zn - off ? zn - off : k;
        w_chunk(w, "IDAT", z + off, k, 0);
        off += k;
    }
}

/* A whole RGB (bpp 3) or RGBA PNG of img. */
static pngw make_png(const img_image *img, int bpp, int ftype, int level, size_t chunk_max,
                     base_rng *r)
{
    pngw w = {0};
    w_ihdr(&w, (uint32_t)img->w, (uint32_t)img->h, 8, bpp == 4 ? 6 : 2, 0);
    size_t rn = 0;
    uint8_t *raw = filter_rows(img, bpp, ftype, r, &rn);
    size_t zn = 0;
    uint8_t *z = zlib_of(raw, rn, level, &zn);
    w_idats(&w, z, zn, chunk_max, r);
    w_chunk(&w, "IEND", NULL, 0, 0);
    free(raw);
    free(z);
    return w;
}

/* Smooth gradients with noise: neighbouring pixels differ a little, so
 * Paeth and Avg choose between all their predictors. */
static void gradient_image(img_image *img, int w, int h, base_rng *r)
{
    if (img_alloc(img, w, h) != BASE_OK)
        return;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = img->px + (size_t)y * img->stride + 4 * x;
            p[0] = (uint8_t)(x * 7 + base_rng_below(r, 5));
            p[1] = (uint8_t)(y * 5 + x - base_rng_below(r, 3));
            p[2] = (uint8_t)(200 - x * 3 + y * 2);
            p[3] = (uint8_t)(255 - base_rng_below(r, 2) * (x % 7));
        }
}

/* First differing byte of two images, or -1 when equal. */
static long first_diff(const img_image *a, const img_image *b)
{
    if (a->w != b->w || a->h != b->h)
        return 0;
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w * 4; x++)
            if (a->px[(size_t)y * a->stride + x] != b->px[(size_t)y * b->stride + x])
                return (long)y * a->w * 4 + x;
    return -1;
}

/* Decodes d with both fast kernels and with libpng; all must agree and the
 * fast path must have taken the file. */
static int fast_equals_libpng(const uint8_t *d, size_t n, img_image *ref_out, char *why,
                              size_t why_n)
{
    img_image ref = {0};
    char err[BASE_ERRBUF_SIZE] = "";
    if (img__png_decode_libpng(d, n, &ref, err) != BASE_OK) {
        snprintf(why, why_n, "libpng: %s", err);
        return 0;
    }
    for (int k = 0; k < 2; k++) {
        img_image img = {0};
        base_err e = BASE_EINVAL;
        err[0] = 0;
        if (!img__png_fast_decode(d, n, k ? IMG_PNG_KERNEL_SCALAR : IMG_PNG_KERNEL_AUTO, &img,
                                   &e, err)) {
            snprintf(why, why_n, "fast path declined");
            img_fini(&ref);
            return 0;
        }
        long at = e == BASE_OK ? first_diff(&img, &ref) : 0;
        img_fini(&img);
        if (e != BASE_OK || at >= 0) {
            snprintf(why, why_n, "%s kernel: error %d '%s', first difference at byte %ld",
                     k ? "scalar" : "auto", e, err, at);
            img_fini(&ref);
            return 0;
        }
    }
    if (ref_out)
        *ref_out = ref;
    else
        img_fini(&ref);
    return 1;
}

static void filters_vs_libpng(void)
{
    static const int sizes[][2] = {{1, 1}, {2, 3}, {3, 2}, {5, 7},  {17, 9},
                                   {31, 4}, {64, 1}, {1, 40}, {133, 21}};
    base_rng r;
    base_rng_seed(&r, 2024);
    int cases = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (int bpp = 3; bpp <= 4; bpp++)
            for (int ft = 0; ft <= 5; ft++)
                for (int content = 0; content < 2; content++) {
                    img_image img = {0};
                    int w = sizes[s][0];
                    int h = sizes[s][1];
                    if (content)
                        gradient_image(&img, w, h, &r);
                    else
                        random_image(&img, w, h, base_rng_u64(&r));
                    CHECK(img.px);
                    static const int levels[] = {0, 1, 6, 12};
                    int level = levels[base_rng_below(&r, 4)];
                    size_t chunk = base_rng_below(&r, 3) ? 0 : 1 + base_rng_below(&r, 64);
                    pngw p = make_png(&img, bpp, ft, level, chunk, &r);
                    char why[200] = "";
                    img_image ref = {0};
                    int ok = fast_equals_libpng(p.p, p.n, &ref, why, sizeof(why));
                    CHECK_MSG(ok, "%dx%d bpp %d filter %d content %d level %d chunk %zu: %s", w,
                              h, bpp, ft, content, level, chunk, why);
                    /* And libpng's bytes are the source pixels. */
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) {
                            const uint8_t *a = img.px + (size_t)y * img.stride + 4 * x;
                            const uint8_t *b = ref.px + (size_t)y * ref.stride + 4 * x;
                            CHECK(memcmp(a, b, 3) == 0 && b[3] == (bpp == 4 ? a[3] : 255));
                        }
                    free(p.p);
                    img_fini(&ref);
                    img_fini(&img);
                    cases++;
                }
    CHECK_EQ(cases, 9 * 2 * 6 * 2);
}

#define DATA FOVEA_SOURCE_DIR "/tests/image/data/"

/* Every committed PNG decodes to libpng's bytes through img_decode;
 * the 8-bit RGB(A) ones through the fast path. */
static void fixtures_vs_libpng(void)
{
    static const struct {
        const char *path;
        int fast;
    } files[] = {
        {DATA "rgba8.png", 1},        {DATA "gray8.png", 0},
        {DATA "gray1.png", 0},        {DATA "gray16.png", 0},
        {DATA "palette_trns.png", 0}, {DATA "gray_alpha.png", 0},
        {FOVEA_SOURCE_DIR "/bench/data/page50.png", 1},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        uint8_t *d = NULL;
        size_t n = 0;
        CHECK_OK(base_read_file(files[i].path, &d, &n, 16u << 20, NULL));
        char why[200] = "";
        if (files[i].fast) {
            CHECK_MSG(fast_equals_libpng(d, n, NULL, why, sizeof(why)), "%s: %s", files[i].path,
                      why);
        } else {
            img_image t = {0};
            base_err e = BASE_OK;
            CHECK_MSG(!img__png_fast_decode(d, n, IMG_PNG_KERNEL_AUTO, &t, &e, NULL),
                      "%s should be left to libpng", files[i].path);
        }
        img_image a = {0};
        img_image b = {0};
        CHECK_OK(img_decode(d, n, &a, NULL));
        CHECK_OK(img__png_decode_libpng(d, n, &b, NULL));
        CHECK_MSG(first_diff(&a, &b) < 0, "%s differs from libpng", files[i].path);
        img_fini(&a);
        img_fini(&b);
        base_free(d);
    }
}

/* img_decode fails with want, a message containing needle and an
 * untouched *out. */
static int decode_fails(const uint8_t *d, size_t n, base_err want, const char *needle, char *err)
{
    img_image out;
    memset(&out, 0xa5, sizeof(out));
    img_image ref = out;
    base_err e = img_decode(d, n, &out, err);
    return e == want && memcmp(&out, &ref, sizeof(out)) == 0 && err[0] &&
           (!needle || strstr(err, needle));
}

/* img_decode and libpng agree: both fail, or both give the same
 * bytes. Returns 1 when they agree. */
static int same_verdict(const uint8_t *d, size_t n)
{
    img_image a = {0};
    img_image b = {0};
    base_err ea = img_decode(d, n, &a, NULL);
    base_err eb = img__png_decode_libpng(d, n, &b, NULL);
    int same = (ea != BASE_OK) == (eb != BASE_OK) && (ea != BASE_OK || first_diff(&a, &b) < 0);
    img_fini(&a);
    img_fini(&b);
    return same;
}

static void hostile(void)
{
    base_rng r;
    base_rng_seed(&r, 99);
    img_image img = {0};
    gradient_image(&img, 23, 11, &r);
    CHECK(img.px);
    size_t rn = 0;
    uint8_t *raw = filter_rows(&img, 3, 5, &r, &rn);
    size_t zn = 0;
    uint8_t *z = zlib_of(raw, rn, 6, &zn);
    char err[BASE_ERRBUF_SIZE];

    /* A bad CRC in IDAT (critical): a clear error from the fast path. */
    pngw p = {0};
    w_ihdr(&p, 23, 11, 8, 2, 0);
    w_chunk(&p, "IDAT", z, zn, 1);
    w_chunk(&p, "IEND", NULL, 0, 0);
    err[0] = 0;
    CHECK_MSG(decode_fails(p.p, p.n, BASE_EDECODE, "CRC mismatch in IDAT", err), "'%s'", err);
    free(p.p);

    /* A bad CRC in an ancillary chunk is ignored, as libpng does. */
    p = (pngw){0};
    w_ihdr(&p, 23, 11, 8, 2, 0);
    w_chunk(&p, "tEXt", (const uint8_t *)"k\0v", 3, 0x100);
    w_chunk(&p, "IDAT", z, zn, 0);
    w_chunk(&p, "IEND", NULL, 0, 0);
    char why[200] = "";
    CHECK_MSG(fast_equals_libpng(p.p, p.n, NULL, why, sizeof(why)), "%s", why);
    free(p.p);

    /* Invalid filter type 5 in the middle row. */
    uint8_t *raw5 = filter_rows(&img, 3, 6, &r, &rn);
    size_t zn5 = 0;
    uint8_t *z5 = zlib_of(raw5, rn, 6, &zn5);
    p = (pngw){0};
    w_ihdr(&p, 23, 11, 8, 2, 0);
    w_chunk(&p, "IDAT", z5, zn5, 0);
    w_chunk(&p, "IEND", NULL, 0, 0);
    err[0] = 0;
    CHECK_MSG(decode_fails(p.p, p.n, BASE_EDECODE, "invalid filter type 5 at row 5", err), "'%s'",
              err);
    CHECK(same_verdict(p.p, p.n));
    free(p.p);
    free(raw5);
    free(z5);

    /* A complete stream that holds only 7 of the 11 rows. */
    size_t zs = 0;
    uint8_t *zshort = zlib_of(raw, rn / 11 * 7, 6, &zs);
    p = (pngw){0};
    w_ihdr(&p, 23, 11, 8, 2, 0);
    w_chunk(&p, "IDAT", zshort, zs, 0);
    w_chunk(&p, "IEND", NULL, 0, 0);
    err[0] = 0;
    CHECK_MSG(decode_fails(p.p, p.n, BASE_EDECODE, "not enough image data at row 7", err), "'%s'",
              err);
    CHECK(same_verdict(p.p, p.n));
    free(p.p);
    free(zshort);

    /* Cases the fast path hands to libpng: the result is then libpng's. */
    for (int v = 0; v < 7; v++) {
        p = (pngw){0};
        w_ihdr(&p, 23, 11, 8, 2, v == 0);
        switch (v) {
        case 1: { /* trailing bytes after the zlib stream */
            uint8_t *zz = malloc(zn + 5);
            memcpy(zz, z, zn);
            memcpy(zz + zn, "junk!", 5);
            w_chunk(&p, "IDAT", zz, zn + 5, 0);
            free(zz);
            break;
        }
        case 2: /* IDATs split by an ancillary chunk */
            w_chunk(&p, "IDAT", z, zn / 2, 0);
            w_chunk(&p, "tEXt", (const uint8_t *)"k\0v", 3, 0);
            w_chunk(&p, "IDAT", z + zn / 2, zn - zn / 2, 0);
            break;
        case 3: { /* tRNS colour key: libpng makes matching pixels clear */
            const uint8_t *px0 = img.px;
            uint8_t key[6] = {0, px0[0], 0, px0[1], 0, px0[2]};
            w_chunk(&p, "tRNS", key, 6, 0);
            w_chunk(&p, "IDAT", z, zn, 0);
            break;
        }
        case 4: { /* a 256-byte zlib window: zlib rejects far distances */
            uint8_t *zz = malloc(zn);
            memcpy(zz, z, zn);
            zz[0] = 0x08;
            zz[1] = (uint8_t)(31 - (0x08 * 256) % 31);
            w_chunk(&p, "IDAT", zz, zn, 0);
            free(zz);
            break;
        }
        case 5: /* corrupt deflate data */ {
            uint8_t *zz = malloc(zn);
            memcpy(zz, z, zn);
            for (size_t i = 2; i < zn; i += 3)
                zz[i] ^= 0x5a;
            w_chunk(&p, "IDAT", zz, zn, 0);
            free(zz);
            break;
        }
        case 6: /* no IEND: libpng calls that truncated */
            w_chunk(&p, "IDAT", z, zn, 0);
            break;
        default: /* interlaced (the data is not, so libpng fails) */
            w_chunk(&p, "IDAT", z, zn, 0);
        }
        if (v != 6)
            w_chunk(&p, "IEND", NULL, 0, 0);
        img_image t = {0};
        base_err e = BASE_OK;
        CHECK_MSG(!img__png_fast_decode(p.p, p.n, IMG_PNG_KERNEL_AUTO, &t, &e, NULL),
                  "variant %d should be declined", v);
        CHECK_MSG(same_verdict(p.p, p.n), "variant %d: decode differs from libpng", v);
        if (v == 3) {
            img_image a = {0};
            CHECK_OK(img_decode(p.p, p.n, &a, NULL));
            CHECK_EQ(a.px[3], 0); /* the keyed pixel went transparent */
            img_fini(&a);
        }
        free(p.p);
    }

    /* Huge and zero dimensions with valid CRCs. */
    const uint32_t dims[][2] = {{20000, 10}, {10, 70000}, {16000, 16000}, {0, 5}, {5, 0}};
    for (int i = 0; i < 5; i++) {
        p = (pngw){0};
        w_ihdr(&p, dims[i][0], dims[i][1], 8, 6, 0);
        w_chunk(&p, "IDAT", z, zn, 0);
        w_chunk(&p, "IEND", NULL, 0, 0);
        err[0] = 0;
        CHECK_MSG(decode_fails(p.p, p.n, i < 3 ? BASE_ETOOBIG : BASE_EDECODE, "png: ", err),
                  "%ux%u: '%s'", dims[i][0], dims[i][1], err);
        img_image t = {0};
        base_err e = BASE_OK;
        err[0] = 0;
        CHECK(img__png_fast_decode(p.p, p.n, IMG_PNG_KERNEL_AUTO, &t, &e, err) == 1);
        CHECK(e == (i < 3 ? BASE_ETOOBIG : BASE_EDECODE) && t.px == NULL && err[0]);
        free(p.p);
    }

    /* Truncation at every byte of a multi-IDAT file: always a decode error
     * with a message, never a read past the end (ASan). */
    pngw full = {0};
    w_ihdr(&full, 23, 11, 8, 2, 0);
    w_idats(&full, z, zn, 40, &r);
    w_chunk(&full, "IEND", NULL, 0, 0);
    CHECK_MSG(fast_equals_libpng(full.p, full.n, NULL, why, sizeof(why)), "%s", why);
    for (size_t cut = 8; cut < full.n; cut++) {
        uint8_t *c = malloc(cut); /* exact size so ASan sees any overread */
        memcpy(c, full.p, cut);
        err[0] = 0;
        CHECK_MSG(decode_fails(c, cut, BASE_EDECODE, "png: ", err), "cut at %zu: '%s'", cut, err);
        free(c);
    }
    free(full.p);
    free(raw);
    free(z);
    img_fini(&img);
}

/* The libdeflate encoder: RGB for opaque images, RGBA otherwise; both decode
 * to the source through the fast path and through libpng. */
static void encode_fast(void)
{
    for (int opaque = 0; opaque < 2; opaque++) {
        img_image img = {0};
        random_image(&img, 45, 13, 5 + opaque);
        CHECK(img.px);
        if (opaque)
            for (int i = 3; i < img.stride * img.h; i += 4)
                img.px[i] = 255;
        uint8_t *d = NULL;
        size_t n = 0;
        CHECK_OK(img_encode_png(&img, 1, &d, &n, NULL));
        CHECK_EQ(d[25], opaque ? 2 : 6); /* IHDR colour type */
        char why[200] = "";
        img_image ref = {0};
        CHECK_MSG(fast_equals_libpng(d, n, &ref, why, sizeof(why)), "%s", why);
        CHECK(first_diff(&img, &ref) < 0);
        img_fini(&ref);
        base_free(d);
        /* A padded stride is honoured. */
        img_image pad = {.w = 20, .h = 6, .stride = img.stride, .px = img.px, .scale = 1};
        CHECK_OK(img__png_fast_encode(&pad, 6, &d, &n, NULL));
        CHECK_OK(img_decode(d, n, &ref, NULL));
        for (int y = 0; y < 6; y++)
            CHECK(memcmp(ref.px + y * ref.stride, img.px + y * img.stride, 80) == 0);
        img_fini(&ref);
        base_free(d);
        img_fini(&img);
    }
    uint8_t *d = NULL;
    size_t n = 0;
    uint8_t one_px[4] = {0};
    img_image bad = {.w = 4, .h = 4, .stride = 8, .px = one_px};
    CHECK_EQ(img__png_fast_encode(&bad, 1, &d, &n, NULL), BASE_EINVAL);
}

/* Every allocation of the fast decoder, failed in turn, gives ENOMEM and
 * no leak (ASan). */
static void fast_alloc_failures(void)
{
    base_rng r;
    base_rng_seed(&r, 3);
    img_image img = {0};
    gradient_image(&img, 30, 9, &r);
    CHECK(img.px);
    pngw p = make_png(&img, 4, 5, 6, 50, &r);
    img_image t = {0};
    base_alloc_fail_after(0);
    CHECK_OK(img_decode(p.p, p.n, &t, NULL));
    unsigned long count = base_alloc_fail_after(0);
    img_fini(&t);
    CHECK(count >= 4); /* IDAT copy, rows, zero row, image, decompressor */
    for (unsigned long i = 1; i <= count; i++) {
        base_alloc_fail_after(i);
        base_err e = img_decode(p.p, p.n, &t, NULL);
        base_alloc_fail_after(0);
        CHECK_EQ(e, BASE_ENOMEM);
        CHECK(t.px == NULL);
    }
    free(p.p);
    img_fini(&img);
}

/* A tiny PNG whose header claims depth x ctype at w x h, followed by
 * extra (a chunk type and a claimed length, or NULL) and one IDAT holding
 * an empty zlib stream. */
static pngw forged_png(uint32_t w, uint32_t h, int depth, int ctype, int ilace,
                       const char *extra_type, uint32_t extra_len)
{
    static const uint8_t empty_zlib[] = {0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
    pngw p = {0};
    w_ihdr(&p, w, h, depth, ctype, ilace);
    if (extra_type) {
        /* A chunk header claiming extra_len bytes with only 16 present. */
        static const uint8_t some[16] = {1, 2, 3, 4};
        w_be32(&p, extra_len);
        w_bytes(&p, extra_type, 4);
        w_bytes(&p, some, sizeof some);
    }
    w_chunk(&p, "IDAT", empty_zlib, sizeof empty_zlib, 0);
    w_chunk(&p, "IEND", NULL, 0, 0);
    return p;
}

/* Headers forged to claim ~100 Mpixel (the largest size the dimension
 * check lets through) over a few bytes of data, for both decoders: each
 * must fail with a clear message before allocating the pixels. The child
 * runs under a 256 MB address-space ceiling (not in sanitizer builds,
 * whose shadow memory needs more), so an allocation of the ~400 MB buffer
 * turns into "out of memory" and fails the check. */
static void forged_dims_body(void)
{
    static const struct {
        int depth, ctype, ilace;
        const char *extra;
        uint32_t extra_len;
    } v[] = {
        {8, 6, 0, NULL, 0},               /* RGBA8: the fast path */
        {8, 2, 0, NULL, 0},               /* RGB8: the fast path */
        {16, 6, 0, NULL, 0},              /* libpng */
        {8, 6, 1, NULL, 0},               /* interlaced: libpng */
        {8, 0, 0, NULL, 0},               /* grey: libpng */
        {8, 6, 0, "zTXt", 0x7fffffffu},   /* a huge ancillary chunk, too */
        {16, 6, 0, "tEXt", 0x7ffffff0u},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        pngw p = forged_png(16384, 6000, v[i].depth, v[i].ctype, v[i].ilace, v[i].extra,
                            v[i].extra_len);
        for (int path = 0; path < 2; path++) {
            char err[BASE_ERRBUF_SIZE] = "";
            img_image out = {0};
            base_err e = path ? img__png_decode_libpng(p.p, p.n, &out, err)
                              : img_decode(p.p, p.n, &out, err);
            printf("  case %zu (%zu bytes) %s: %d %s\n", i, p.n, path ? "libpng" : "auto", e, err);
            img_fini(&out);
            if (v[i].extra) {
                /* The truncated chunk may be what is reported first. */
                CHECK_MSG(e == BASE_EDECODE, "case %zu path %d: %d %s", i, path, e, err);
            } else {
                CHECK_MSG(e == BASE_EDECODE && strstr(err, "needs at least") &&
                              strstr(err, "16384x6000"),
                          "case %zu path %d: %d %s", i, path, e, err);
            }
        }
        free(p.p);
    }
    /* Found by fuzz_image_decode: a 48-byte 13x9 file whose tEXt chunk
     * claims 1.36 GB; libpng allocated the claimed length inside
     * png_read_info (1.3 GB resident, 4 to 10 s). */
    {
        pngw t = {0};
        w_ihdr(&t, 13, 9, 8, 2, 0);
        static const uint8_t tail[] = {0x51, 0x00, 0x00, 0x03, 't', 'E', 'X', 't',
                                       'k',  0x00, 0xf3, 0x91, 0x44, 0x60, 0x82};
        w_bytes(&t, tail, sizeof tail);
        for (int path = 0; path < 2; path++) {
            char terr[BASE_ERRBUF_SIZE] = "";
            img_image tout = {0};
            base_err e = path ? img__png_decode_libpng(t.p, t.n, &tout, terr)
                              : img_decode(t.p, t.n, &tout, terr);
            img_fini(&tout);
            printf("  tEXt claiming 1.36 GB (%zu bytes) %s: %d %s\n", t.n,
                   path ? "libpng" : "auto", e, terr);
            CHECK_MSG(e == BASE_EDECODE && strstr(terr, "chunk 'tEXt' claims 1358954499 bytes"),
                      "%d %s", e, terr);
        }
        free(t.p);
    }
    /* A real image still decodes under the same ceiling. */
    pngw ok = forged_png(64, 1, 8, 6, 0, NULL, 0);
    char err[BASE_ERRBUF_SIZE] = "";
    img_image out = {0};
    /* 64x1 RGBA from 8 bytes of zlib is short of data, but not forged:
     * the error is the ordinary one. */
    CHECK(img_decode(ok.p, ok.n, &out, err) == BASE_EDECODE);
    CHECK_MSG(strstr(err, "needs at least") == NULL, "%s", err);
    free(ok.p);
}

static void forged_dims(void)
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
#ifndef FOVEA_SANITIZED
        struct rlimit rl = {256u << 20, 256u << 20};
        setrlimit(RLIMIT_AS, &rl);
#endif
        forged_dims_body();
        fflush(stdout);
        _exit(check__failed ? 1 : 0);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed (status 0x%x)", st);
}

static const check_case cases[] = {
    {"forged_dims", forged_dims},
    {"filters_vs_libpng", filters_vs_libpng},
    {"fixtures_vs_libpng", fixtures_vs_libpng},
    {"hostile", hostile},
    {"encode_fast", encode_fast},
    {"fast_alloc_failures", fast_alloc_failures},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

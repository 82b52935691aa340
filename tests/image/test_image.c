/* tests/image/test_image.c: the image API and its PNG/JPEG codecs.
 *
 * Round trips (PNG exact, JPEG close), decoding of every PNG colour type in
 * tests/image/data (made by gen_fixtures.py, whose pixel formulas are
 * mirrored here), and the hostile-input contract: truncated, garbage and
 * oversized inputs fail with BASE_EDECODE / BASE_ETOOBIG, a message, no
 * leak, and untouched out-params; every allocation failure is a clean
 * BASE_ENOMEM.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/rng.h"
#include "check.h"
#include "test_util.h"
#include "image/image.h"

#define DATA FOVEA_SOURCE_DIR "/tests/image/data/"

static uint8_t *load(const char *name, size_t *n)
{
    uint8_t *d = NULL;
    char path[512];
    snprintf(path, sizeof(path), DATA "%s", name);
    if (base_read_file(path, &d, n, 1u << 20, NULL) != BASE_OK)
        return NULL;
    return d;
}


static void png_roundtrip(void)
{
    for (int fast = 0; fast < 2; fast++) {
        img_image a = {0};
        random_image(&a, 37, 19, 7 + fast);
        CHECK(a.px);
        uint8_t *enc = NULL;
        size_t n = 0;
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK_OK(img_encode_png(&a, fast, &enc, &n, err));
        img_format f = IMG_FMT_UNKNOWN;
        int w = 0;
        int h = 0;
        CHECK_OK(img_info(enc, n, &f, &w, &h, err));
        CHECK_EQ(f, IMG_FMT_PNG);
        CHECK_EQ(w, 37);
        CHECK_EQ(h, 19);
        img_image b = {0};
        CHECK_OK(img_decode(enc, n, &b, err));
        CHECK_EQ(b.w, 37);
        CHECK_EQ(b.h, 19);
        for (int y = 0; y < 19; y++)
            CHECK(memcmp(a.px + y * a.stride, b.px + y * b.stride, 37 * 4) == 0);
        base_free(enc);
        img_fini(&a);
        img_fini(&b);
    }
}

static void jpeg_roundtrip(void)
{
    img_image a = {0};
    CHECK_OK(img_alloc(&a, 64, 48));
    for (int y = 0; y < 48; y++)
        for (int x = 0; x < 64; x++) {
            uint8_t *p = a.px + y * a.stride + x * 4;
            p[0] = (uint8_t)(x * 4);
            p[1] = (uint8_t)(y * 5);
            p[2] = 100;
            p[3] = 255;
        }
    uint8_t *enc = NULL;
    size_t n = 0;
    CHECK_OK(img_encode_jpeg(&a, 95, &enc, &n, NULL));
    img_format f = IMG_FMT_UNKNOWN;
    CHECK_OK(img_info(enc, n, &f, NULL, NULL, NULL));
    CHECK_EQ(f, IMG_FMT_JPEG);
    img_image b = {0};
    CHECK_OK(img_decode(enc, n, &b, NULL));
    CHECK_EQ(b.w, 64);
    CHECK_EQ(b.h, 48);
    long sum = 0;
    int maxd = 0;
    for (int y = 0; y < 48; y++)
        for (int x = 0; x < 64 * 4; x++) {
            int d = abs(a.px[y * a.stride + x] - b.px[y * b.stride + x]);
            sum += d;
            maxd = d > maxd ? d : maxd;
        }
    CHECK_MSG(sum / (64 * 48 * 4) <= 2, "mean abs error %ld", sum / (64 * 48 * 4));
    CHECK_MSG(maxd <= 24, "max error %d", maxd);
    CHECK_EQ(img_encode_jpeg(&a, 0, &enc, &n, NULL), BASE_EINVAL);
    base_free(enc);
    img_fini(&a);
    img_fini(&b);
}

static const uint8_t *pix(const img_image *img, int x, int y)
{
    return img->px + (size_t)y * img->stride + (size_t)x * 4;
}

static void png_colour_types(void)
{
    const char *names[] = {"rgba8.png", "gray8.png", "gray1.png", "gray16.png",
                           "palette_trns.png", "gray_alpha.png"};
    for (int k = 0; k < 6; k++) {
        size_t n = 0;
        uint8_t *d = load(names[k], &n);
        CHECK_MSG(d, "cannot read %s", names[k]);
        img_image img = {0};
        char err[BASE_ERRBUF_SIZE] = "";
        base_err e = img_decode(d, n, &img, err);
        base_free(d);
        CHECK_MSG(e == BASE_OK, "%s: %s", names[k], err);
        CHECK_EQ(img.w, 7);
        CHECK_EQ(img.h, 5);
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 7; x++) {
                const uint8_t *p = pix(&img, x, y);
                int exp[4];
                switch (k) {
                case 0:
                    exp[0] = (x * 37) & 255;
                    exp[1] = (y * 53) & 255;
                    exp[2] = ((x + y) * 11) & 255;
                    exp[3] = (x + y) % 3 ? 255 : 128;
                    break;
                case 1:
                    exp[0] = exp[1] = exp[2] = (x * 30 + y * 7) & 255;
                    exp[3] = 255;
                    break;
                case 2:
                    exp[0] = exp[1] = exp[2] = (x + y) % 2 ? 255 : 0;
                    exp[3] = 255;
                    break;
                case 3: {
                    int v = (x * 9000 + y * 100) & 0xffff;
                    exp[0] = exp[1] = exp[2] = (v * 255 + 32767) / 65535;
                    exp[3] = 255;
                    break;
                }
                case 4: {
                    static const int pal[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255},
                                                  {255, 255, 255}};
                    int i = (x + y) % 4;
                    exp[0] = pal[i][0];
                    exp[1] = pal[i][1];
                    exp[2] = pal[i][2];
                    exp[3] = i == 2 ? 0 : 255;
                    break;
                }
                default:
                    exp[0] = exp[1] = exp[2] = (x * 20) & 255;
                    exp[3] = (y * 60) & 255;
                }
                for (int c = 0; c < 4; c++)
                    CHECK_MSG(abs(p[c] - exp[c]) <= (k == 3 ? 1 : 0),
                              "%s (%d,%d) channel %d: %d != %d", names[k], x, y, c, p[c], exp[c]);
            }
        img_fini(&img);
    }
}

static void jpeg_fixtures(void)
{
    const char *names[] = {"rgb.jpg", "gray.jpg", "rgb_progressive.jpg"};
    for (int k = 0; k < 3; k++) {
        size_t n = 0;
        uint8_t *d = load(names[k], &n);
        CHECK(d);
        int w = 0;
        int h = 0;
        CHECK_OK(img_info(d, n, NULL, &w, &h, NULL));
        CHECK_EQ(w, 32);
        CHECK_EQ(h, 24);
        img_image img = {0};
        CHECK_OK(img_decode(d, n, &img, NULL));
        base_free(d);
        /* Pixel (16, 12) was (128, 120, 128); grey is its luma. */
        const uint8_t *p = pix(&img, 16, 12);
        if (k == 1) {
            CHECK(abs(p[0] - p[1]) <= 1 && abs(p[1] - p[2]) <= 1);
        } else {
            CHECK_MSG(abs(p[0] - 128) <= 8 && abs(p[1] - 120) <= 8 && abs(p[2] - 128) <= 8,
                      "%s: %d %d %d", names[k], p[0], p[1], p[2]);
        }
        CHECK_EQ(p[3], 255);
        img_fini(&img);
    }
}

/* A failing decode leaves *out exactly as it was. */
static int decode_fails(const uint8_t *d, size_t n, base_err want, char *err)
{
    img_image out;
    memset(&out, 0xa5, sizeof(out));
    img_image ref = out;
    base_err e = img_decode(d, n, &out, err);
    if (e != want)
        return 0;
    return memcmp(&out, &ref, sizeof(out)) == 0 && err[0] != 0;
}

/* Offset of the first SOF marker's height field in a JPEG, or 0. */
static size_t sof_dims_at(const uint8_t *d, size_t n)
{
    for (size_t i = 2; i + 9 < n;) {
        if (d[i] != 0xFF)
            return 0;
        uint8_t m = d[i + 1];
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC)
            return i + 5;
        i += 2 + ((size_t)d[i + 2] << 8 | d[i + 3]);
    }
    return 0;
}

/* A header forged to claim far more pixels than the data holds: refused
 * before the pixel buffer is allocated (a 651-byte file claiming
 * 16000x6000 took 667 MB and wrote an overlay of grey), and a milder
 * forgery that passes the size bound is refused when the scan data runs
 * out ("premature end of data segment"), not decoded as grey. Flat large
 * images, the most compressible real ones, still decode. */
static void forged_jpeg(void)
{
    const char *names[] = {"rgb.jpg", "rgb_progressive.jpg", "gray.jpg"};
    for (int k = 0; k < 3; k++) {
        size_t n = 0;
        uint8_t *d = load(names[k], &n);
        CHECK(d);
        if (!d)
            continue;
        size_t at = sof_dims_at(d, n);
        CHECK(at > 0);
        static const int dims[][2] = {{16000, 6000}, {64, 48}};
        for (int j = 0; j < 2; j++) {
            d[at] = (uint8_t)(dims[j][1] >> 8);
            d[at + 1] = (uint8_t)dims[j][1];
            d[at + 2] = (uint8_t)(dims[j][0] >> 8);
            d[at + 3] = (uint8_t)dims[j][0];
            char err[BASE_ERRBUF_SIZE] = "";
            CHECK_MSG(decode_fails(d, n, BASE_EDECODE, err), "%s as %dx%d: '%s'", names[k],
                      dims[j][0], dims[j][1], err);
            if (j == 0)
                CHECK_MSG(strstr(err, "too small for the 16000x6000"), "%s: '%s'", names[k], err);
            else
                CHECK_MSG(strstr(err, "premature end"), "%s: '%s'", names[k], err);
        }
        base_free(d);
    }
    img_image flat = {0};
    CHECK_OK(img_alloc(&flat, 2000, 1500));
    memset(flat.px, 0xff, (size_t)flat.stride * (size_t)flat.h);
    uint8_t *jpg = NULL;
    size_t jn = 0;
    CHECK_OK(img_encode_jpeg(&flat, 80, &jpg, &jn, NULL));
    img_fini(&flat);
    img_image back = {0};
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_MSG(img_decode(jpg, jn, &back, err) == BASE_OK, "flat 2000x1500 (%zu bytes): %s",
              jn, err);
    printf("  flat white 2000x1500 at q80: %zu bytes (bound %d)\n", jn, 250 * 188 / 8);
    img_fini(&back);
    base_free(jpg);
}

static void truncated_inputs(void)
{
    img_image a = {0};
    random_image(&a, 40, 30, 3);
    uint8_t *png = NULL;
    size_t pn = 0;
    CHECK_OK(img_encode_png(&a, 0, &png, &pn, NULL));
    uint8_t *jpg = NULL;
    size_t jn = 0;
    CHECK_OK(img_encode_jpeg(&a, 80, &jpg, &jn, NULL));
    img_fini(&a);
    int saw_row = 0;
    for (size_t cut = 0; cut < pn - 12; cut += 1 + cut / 8) {
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK_MSG(decode_fails(png, cut, cut >= 8 ? BASE_EDECODE : BASE_EDECODE, err),
                  "png cut at %zu: '%s'", cut, err);
        CHECK(strncmp(err, cut >= 8 ? "png: " : "image: ", cut >= 8 ? 5 : 7) == 0);
        if (strstr(err, "truncated data at row"))
            saw_row = 1;
    }
    CHECK(saw_row);
    for (size_t cut = 0; cut < jn - 2; cut += 1 + cut / 8) {
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK_MSG(decode_fails(jpg, cut, BASE_EDECODE, err), "jpeg cut at %zu: '%s'", cut, err);
    }
    base_free(png);
    base_free(jpg);
}

static void garbage_inputs(void)
{
    char err[BASE_ERRBUF_SIZE] = "";
    const uint8_t junk[] = "GIF89a not an image at all";
    CHECK(decode_fails(junk, sizeof(junk), BASE_EDECODE, err));
    CHECK(strstr(err, "not a PNG or JPEG"));
    CHECK_EQ(img_info(junk, sizeof(junk), NULL, NULL, NULL, NULL), BASE_EDECODE);
    CHECK_EQ(img_decode(NULL, 0, NULL, NULL), BASE_EINVAL);
    /* Bit flips all over a valid PNG and JPEG: any result is fine as long as
     * it is OK or a decode error (ASan checks the rest). */
    size_t pn = 0;
    size_t jn = 0;
    uint8_t *png = load("rgba8.png", &pn);
    uint8_t *jpg = load("rgb.jpg", &jn);
    CHECK(png && jpg);
    base_rng r;
    base_rng_seed(&r, 42);
    for (int i = 0; i < 400; i++) {
        uint8_t *src = i % 2 ? png : jpg;
        size_t n = i % 2 ? pn : jn;
        uint8_t *copy = base_malloc(n);
        memcpy(copy, src, n);
        for (int k = 0; k < 3; k++)
            copy[base_rng_below(&r, n)] ^= (uint8_t)(1u << base_rng_below(&r, 8));
        img_image img = {0};
        base_err e = img_decode(copy, n, &img, NULL);
        CHECK_MSG(e == BASE_OK || e == BASE_EDECODE || e == BASE_ETOOBIG, "flip %d: %d", i, e);
        img_fini(&img);
        base_free(copy);
    }
    base_free(png);
    base_free(jpg);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void oversized(void)
{
    size_t pn = 0;
    uint8_t *png = load("rgba8.png", &pn);
    CHECK(png);
    const uint32_t dims[][2] = {{20000, 10}, {10, 70000}, {16000, 16000}, {0x80000000u, 1}};
    for (int i = 0; i < 4; i++) {
        put32(png + 16, dims[i][0]);
        put32(png + 20, dims[i][1]);
        char err[BASE_ERRBUF_SIZE] = "";
        CHECK_EQ(img_info(png, pn, NULL, NULL, NULL, err), BASE_ETOOBIG);
        CHECK(strstr(err, "png:"));
        err[0] = 0;
        CHECK(decode_fails(png, pn, BASE_ETOOBIG, err));
    }
    base_free(png);
    /* JPEG: patch the SOF0 marker's height and width. */
    size_t jn = 0;
    uint8_t *jpg = load("rgb.jpg", &jn);
    CHECK(jpg);
    size_t sof = 0;
    for (size_t i = 2; i + 9 < jn; i++)
        if (jpg[i] == 0xff && jpg[i + 1] == 0xc0) {
            sof = i;
            break;
        }
    CHECK(sof);
    jpg[sof + 5] = 0xfe;
    jpg[sof + 6] = 0x00;
    jpg[sof + 7] = 0xfe;
    jpg[sof + 8] = 0x00;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(img_info(jpg, jn, NULL, NULL, NULL, err), BASE_ETOOBIG);
    CHECK(strstr(err, "jpeg:"));
    err[0] = 0;
    CHECK(decode_fails(jpg, jn, BASE_ETOOBIG, err));
    base_free(jpg);

    img_image img = {0};
    CHECK_EQ(img_alloc(&img, 0, 5), BASE_EINVAL);
    CHECK_EQ(img_alloc(&img, 16385, 1), BASE_ETOOBIG);
    CHECK_EQ(img_alloc(&img, 16384, 16384), BASE_ETOOBIG);
    CHECK(img.px == NULL);
    img_fini(NULL);
}

/* Every allocation of a decode/encode, failed in turn, gives ENOMEM. */
static void alloc_failures(void)
{
    size_t pn = 0;
    uint8_t *png = load("rgba8.png", &pn);
    CHECK(png);
    img_image img = {0};
    base_alloc_fail_after(0);
    CHECK_OK(img_decode(png, pn, &img, NULL));
    unsigned long count = base_alloc_fail_after(0);
    for (unsigned long i = 1; i <= count; i++) {
        img_image t = {0};
        base_alloc_fail_after(i);
        base_err e = img_decode(png, pn, &t, NULL);
        base_alloc_fail_after(0);
        CHECK_EQ(e, BASE_ENOMEM);
        CHECK(t.px == NULL);
    }
    for (int fmt = 0; fmt < 2; fmt++) {
        uint8_t *out = NULL;
        size_t n = 0;
        base_alloc_fail_after(0);
        CHECK_OK(fmt ? img_encode_jpeg(&img, 80, &out, &n, NULL)
                     : img_encode_png(&img, 1, &out, &n, NULL));
        base_free(out);
        count = base_alloc_fail_after(0);
        for (unsigned long i = 1; i <= count; i++) {
            uint8_t *o = NULL;
            base_alloc_fail_after(i);
            base_err e = fmt ? img_encode_jpeg(&img, 80, &o, &n, NULL)
                             : img_encode_png(&img, 1, &o, &n, NULL);
            base_alloc_fail_after(0);
            /* A failed shrinking realloc is not an error. */
            CHECK(e == BASE_ENOMEM || e == BASE_OK);
            base_free(o);
        }
    }
    img_fini(&img);
    base_free(png);
}

static void file_io(void)
{
    char dir[] = "/tmp/fovea-img-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/a.bin", dir);
    const uint8_t data[] = "hello pixels";
    CHECK_OK(base_write_file(path, data, sizeof(data), NULL));
    CHECK_OK(base_write_file(path, data, sizeof(data), NULL)); /* replace */
    uint8_t *back = NULL;
    size_t n = 0;
    CHECK_OK(base_read_file(path, &back, &n, 100, NULL));
    CHECK_EQ(n, sizeof(data));
    CHECK(memcmp(back, data, n) == 0);
    base_free(back);
    char err[BASE_ERRBUF_SIZE] = "";
    back = NULL;
    CHECK_EQ(base_read_file(path, &back, &n, 4, err), BASE_ETOOBIG);
    CHECK(back == NULL && strstr(err, "cap"));
    err[0] = 0;
    CHECK_EQ(base_read_file("/nonexistent/x.png", &back, &n, 4, err), BASE_ENOTFOUND);
    CHECK(strstr(err, "/nonexistent/x.png"));
    err[0] = 0;
    CHECK_EQ(base_write_file("/nonexistent/dir/x.png", data, 3, err), BASE_EIO);
    CHECK(strstr(err, "/nonexistent/dir/x.png"));
    unlink(path);
    rmdir(dir);
}

static const check_case cases[] = {
    {"png_roundtrip", png_roundtrip},
    {"jpeg_roundtrip", jpeg_roundtrip},
    {"png_colour_types", png_colour_types},
    {"jpeg_fixtures", jpeg_fixtures},
    {"truncated_inputs", truncated_inputs},
    {"forged_jpeg", forged_jpeg},
    {"garbage_inputs", garbage_inputs},
    {"oversized", oversized},
    {"alloc_failures", alloc_failures},
    {"file_io", file_io},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, cases);
}

/* perception/capture.h: screenshots of a live page as RGBA images.
 *
 * A capture is Page.captureScreenshot on the page's session, a base64
 * decode of the payload, and a PNG/JPEG decode into a img_image whose
 * `scale` records the device scale factor, so pixel (x, y) of the image is
 * CSS point (x / scale, y / scale) of the viewport (or of the clip origin).
 *
 * Which method is default was decided by measurement (bench/RESULTS.md):
 * PNG with optimizeForSpeed, on a browser launched with
 * CDPScreenshotNewSurface, gives a fresh frame fastest and is lossless.
 *
 * Any thread except the cdp service thread; one capture at a time per page is
 * the expected use but concurrent captures are safe.
 */
#ifndef FOVEA_PERCEPTION_CAPTURE_H
#define FOVEA_PERCEPTION_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/geom.h"
#include "cdp/browser.h"
#include "image/image.h"

typedef struct perc_capture_opts {
    img_format format;     /* IMG_FMT_PNG (default when UNKNOWN) or IMG_FMT_JPEG */
    int quality;            /* JPEG quality 1..100; 0 = 80 */
    int optimize_for_speed; /* -1 = default (on for PNG), 0 off, 1 on */
    int use_clip;           /* capture only `clip` (CSS px, viewport coordinates) */
    base_rect clip;
    int timeout_ms;         /* 0 = 10000 */
    size_t max_bytes;       /* cap on the encoded image; 0 = 64 MiB */
} perc_capture_opts;

typedef struct perc_capture_timing {
    double call_ms;   /* protocol round trip including the browser's encode */
    double b64_ms;    /* base64 decode */
    double decode_ms; /* PNG/JPEG decode */
    size_t encoded_bytes;
} perc_capture_timing;

/* Fills o (the caller's) with the defaults described above. Any thread;
 * cannot fail. */
void perc_capture_opts_init(perc_capture_opts *o);

/* Captures the viewport (or clip) of page into the encoded image bytes:
 * *data (caller frees with base_free), *n, *fmt; page and o are borrowed
 * (o may be NULL: defaults), t (optional) gets timings. Any thread except the
 * cdp service thread. Errors: those of cdp_call,
 * BASE_EPROTO (no data in the reply), BASE_EDECODE (bad base64),
 * BASE_ETOOBIG. Out-params untouched on failure. */
base_err perc_capture_encoded(cdp_page *page, const perc_capture_opts *o, uint8_t **data,
                              size_t *n, img_format *fmt, perc_capture_timing *t, char *err);

/* Captures and decodes into *out (caller frees with img_fini);
 * out->scale is the page's device scale factor. t (optional) gets timings.
 * Any thread except the cdp service thread. Errors: those of
 * perc_capture_encoded, then those of img_decode (BASE_EDECODE,
 * BASE_ETOOBIG, BASE_ENOMEM); *out untouched on failure. */
base_err perc_capture(cdp_page *page, const perc_capture_opts *o, img_image *out,
                      perc_capture_timing *t, char *err);

#endif

/* perception/capture.c: Page.captureScreenshot -> base64 -> decoded RGBA.
 *
 * The payload is decoded straight out of the cJSON string that holds it (no
 * copy of the base64 text); the size guard runs on the base64 length before
 * the decoded buffer is allocated, so a hostile or buggy peer cannot make
 * us allocate more than the cap.
 */
#include "perception/capture.h"

#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/clock.h"
#include "base/log.h"

#define DEFAULT_MAX_BYTES ((size_t)64 << 20)

void perc_capture_opts_init(perc_capture_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = IMG_FMT_PNG;
    o->optimize_for_speed = -1;
}

/* Headless Chromium answers "Unable to capture screenshot" (-32000) when no
 * compositor frame is ready yet: right after a viewport change, a navigation
 * or under heavy load. It is transient, so the call is retried with a short
 * backoff until the caller's deadline; any other error returns at once.
 * Consumes params. */
static base_err capture_call(cdp_page *page, cJSON *params, int timeout_ms, cJSON **res,
                             char *err)
{
    double deadline = base_monotime_ms() + timeout_ms;
    int backoff = 16;
    for (;;) {
        char ebuf[BASE_ERRBUF_SIZE] = "";
        int left = (int)(deadline - base_monotime_ms());
        if (left < 1)
            left = 1;
        cJSON *copy = cJSON_Duplicate(params, 1);
        if (!copy) {
            cJSON_Delete(params);
            return base_errf(err, BASE_ENOMEM, "capture: out of memory");
        }
        base_err e = cdp_page_call(page, "Page.captureScreenshot", copy, res, left, ebuf);
        int transient = e == BASE_EREMOTE && strstr(ebuf, "Unable to capture screenshot");
        if (!transient || base_monotime_ms() + backoff >= deadline) {
            cJSON_Delete(params);
            if (e)
                base_errf(err, e, "%s", ebuf);
            return e;
        }
        base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "capture: no frame ready, retrying in %d ms",
                 backoff);
        base_sleep_ms(backoff);
        if (backoff < 256)
            backoff *= 2;
    }
}

base_err perc_capture_encoded(cdp_page *page, const perc_capture_opts *o, uint8_t **data,
                              size_t *n, img_format *fmt, perc_capture_timing *t, char *err)
{
    perc_capture_opts def;
    if (!o) {
        perc_capture_opts_init(&def);
        o = &def;
    }
    img_format f = o->format == IMG_FMT_JPEG ? IMG_FMT_JPEG : IMG_FMT_PNG;
    int quality = o->quality > 0 ? o->quality : 80;
    if (quality > 100)
        quality = 100;
    int ofs = o->optimize_for_speed < 0 ? (f == IMG_FMT_PNG) : o->optimize_for_speed;
    size_t cap = o->max_bytes ? o->max_bytes : DEFAULT_MAX_BYTES;

    cJSON *pa = cJSON_CreateObject();
    if (!pa)
        return base_errf(err, BASE_ENOMEM, "capture: out of memory");
    /* Complete or not sent: a request that lost its format or clip would
     * return another picture than the one asked for. */
    int ok = cJSON_AddStringToObject(pa, "format", f == IMG_FMT_JPEG ? "jpeg" : "png") &&
             (f != IMG_FMT_JPEG || cJSON_AddNumberToObject(pa, "quality", quality)) &&
             (!ofs || cJSON_AddBoolToObject(pa, "optimizeForSpeed", 1)) &&
             cJSON_AddBoolToObject(pa, "fromSurface", 1);
    if (o->use_clip) {
        if (base_rect_empty(o->clip)) {
            cJSON_Delete(pa);
            return base_errf(err, BASE_EINVAL, "capture: clip rectangle is empty");
        }
        cJSON *clip = ok ? cJSON_AddObjectToObject(pa, "clip") : NULL;
        ok = clip && cJSON_AddNumberToObject(clip, "x", o->clip.x0) &&
             cJSON_AddNumberToObject(clip, "y", o->clip.y0) &&
             cJSON_AddNumberToObject(clip, "width", base_rect_w(o->clip)) &&
             cJSON_AddNumberToObject(clip, "height", base_rect_h(o->clip)) &&
             cJSON_AddNumberToObject(clip, "scale", 1);
    }
    if (!ok) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "capture: out of memory");
    }
    double t0 = base_monotime_ms();
    int timeout = o->timeout_ms > 0 ? o->timeout_ms : 10000;
    cJSON *res = NULL;
    base_err e = capture_call(page, pa, timeout, &res, err);
    if (e)
        return e;
    double t1 = base_monotime_ms();
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(res, "data");
    if (!cJSON_IsString(d)) {
        cJSON_Delete(res);
        return base_errf(err, BASE_EPROTO, "capture: reply carries no image data");
    }
    size_t b64len = strlen(d->valuestring);
    size_t maxout = base64_decoded_max(b64len);
    if (maxout > cap) {
        cJSON_Delete(res);
        return base_errf(err, BASE_ETOOBIG, "capture: image of ~%zu bytes exceeds the %zu-byte cap",
                         maxout, cap);
    }
    uint8_t *buf = base_malloc(maxout + 1);
    if (!buf) {
        cJSON_Delete(res);
        return base_errf(err, BASE_ENOMEM, "capture: out of memory for %zu bytes", maxout);
    }
    size_t got = 0;
    e = base64_decode(d->valuestring, b64len, buf, &got, err);
    cJSON_Delete(res);
    if (e) {
        base_free(buf);
        return e;
    }
    double t2 = base_monotime_ms();
    if (t) {
        t->call_ms = t1 - t0;
        t->b64_ms = t2 - t1;
        t->decode_ms = 0;
        t->encoded_bytes = got;
    }
    *data = buf;
    *n = got;
    if (fmt)
        *fmt = f;
    return BASE_OK;
}

base_err perc_capture(cdp_page *page, const perc_capture_opts *o, img_image *out,
                      perc_capture_timing *t, char *err)
{
    uint8_t *data = NULL;
    size_t n = 0;
    perc_capture_timing tm;
    memset(&tm, 0, sizeof tm);
    base_err e = perc_capture_encoded(page, o, &data, &n, NULL, &tm, err);
    if (e)
        return e;
    double t0 = base_monotime_ms();
    img_image img;
    memset(&img, 0, sizeof img);
    e = img_decode(data, n, &img, err);
    base_free(data);
    if (e)
        return e;
    tm.decode_ms = base_monotime_ms() - t0;
    img.scale = (float)cdp_page_viewport(page)->scale;
    if (t)
        *t = tm;
    *out = img;
    return BASE_OK;
}

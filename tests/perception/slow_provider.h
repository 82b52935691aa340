/* tests/perception/slow_provider.h: a test vision provider that wraps the real
 * `dom` provider and answers after a fixed delay (like a remote model that
 * takes delay_ms), or fails on demand. It is not a mock of Chromium: the
 * boxes come from the live page. Counts its calls (atomically: the prefetch
 * thread calls it while tests read the count). */
#ifndef FOVEA_TESTS_SLOW_PROVIDER_H
#define FOVEA_TESTS_SLOW_PROVIDER_H

#include <stdatomic.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "perception/vision.h"

typedef struct slow_provider {
    perc_vision base; /* first: a perc_vision * is a slow_provider * */
    perc_vision *inner;
    atomic_int delay_ms;
    atomic_int fail;  /* 1: answer BASE_EREMOTE */
    atomic_int calls;
} slow_provider;

static base_err slow_detect(perc_vision *v, cdp_page *page, const img_image *shot,
                            const perc_vision_ctx *ctx, perc_detection *out, char *err)
{
    slow_provider *s = (slow_provider *)v;
    atomic_fetch_add(&s->calls, 1);
    base_sleep_ms(atomic_load(&s->delay_ms));
    if (atomic_load(&s->fail))
        return base_errf(err, BASE_EREMOTE, "slow provider: told to fail");
    base_err e = perc_vision_detect(s->inner, page, shot, ctx, out, err);
    if (!e)
        snprintf(out->model, sizeof out->model, "slow-dom");
    return e;
}

static void slow_destroy(perc_vision *v)
{
    slow_provider *s = (slow_provider *)v;
    perc_vision_destroy(s->inner);
    base_free(s);
}

static const perc_vision_ops slow_ops = {"slow-dom", slow_detect, slow_destroy, 0, NULL};

/* A new slow provider (NULL on failure); destroy with perc_vision_destroy. */
static inline slow_provider *slow_provider_create(int delay_ms)
{
    slow_provider *s = base_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (perc_vision_dom_create(&s->inner, NULL)) {
        base_free(s);
        return NULL;
    }
    s->base.ops = &slow_ops;
    s->base.self = s;
    atomic_init(&s->delay_ms, delay_ms);
    atomic_init(&s->fail, 0);
    atomic_init(&s->calls, 0);
    return s;
}

#endif

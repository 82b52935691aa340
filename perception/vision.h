/* perception/vision.h: vision providers — screenshot + context -> boxes.
 *
 * One interface, several providers (seed 002 §4.3): `dom` (the page's
 * interactive elements from one probe evaluate; exact, the default and the
 * fallback), `openai` (any OpenAI-compatible chat-completions endpoint with
 * image input). Boxes are always in top-viewport CSS pixels, whatever the
 * model saw (resize scale and device scale factor are undone by the provider).
 *
 * A provider object is used by one thread at a time (the prefetch thread or
 * the caller); different providers may run on different threads.
 */
#ifndef FOVEA_PERCEPTION_VISION_H
#define FOVEA_PERCEPTION_VISION_H

#include "base/err.h"
#include "base/geom.h"
#include "cdp/browser.h"
#include "image/image.h"

#define PERC_LABEL_MAX 128

/* One vision mark [Vn] after DOM enrichment. */
typedef struct perc_box {
    base_rect r;                  /* top-viewport CSS px */
    int id;                       /* n of [Vn], 1-based, stable within an epoch */
    char label[PERC_LABEL_MAX];   /* short label (model text or accessible name) */
    char kind[24];                /* "button", "link", "input", "option", "chevron", ... */
    float confidence;             /* 0..1 (1 for dom) */
    int intent_relevant;          /* model's opinion for the active subgoal, -1 unknown */
    /* DOM enrichment (perc_vision_enrich); -1 / "" when unknown */
    int dom_index;                /* index into the epoch's selector map */
    int expanded;                 /* aria-expanded: -1 absent, 0, 1 */
    int active;                   /* checked / pressed / selected: -1 n/a, 0, 1 */
    char labelledby[PERC_LABEL_MAX]; /* aria-labelledby text */
    int expand_control;           /* index (into boxes) of the parent's expand control, -1 */
} perc_box;

/* The selector map: one entry per interactive element the DOM pass saw, so
 * a procedural click can find its element again without vision. */
typedef struct perc_selector {
    char xpath[512];   /* unique within its frame */
    char frame_id[64]; /* "" = top document */
    base_rect r;       /* top-viewport CSS px at capture time */
    char label[PERC_LABEL_MAX];
} perc_selector;

/* A provider's answer. Owned by the caller: perc_detection_fini. */
typedef struct perc_detection {
    perc_box *boxes;
    int n;
    char page_type[32]; /* "form", "listing", "article", "complex", ... or "" */
    char model[64];     /* which model/provider answered */
    int calls;          /* endpoint calls made (retries and coverage pass included) */
    double ms;          /* wall time of detect */
    /* Set by providers that read the DOM themselves (dom): the selector map
     * with box i = entry i and the boxes' DOM fields already filled, so
     * perc_vision_enrich only hands it over instead of probing again. */
    perc_selector *map;
    int n_map;
} perc_detection;

/* Frees what d holds (boxes, map) and zeroes it; d itself stays the
 * caller's. NULL: no-op. The thread that owns d. */
void perc_detection_fini(perc_detection *d);

/* What the provider is told about the step. All strings borrowed. */
typedef struct perc_vision_ctx {
    const char *url;
    const char *subgoal;          /* active subgoal / step intent, may be NULL */
    const char *const *expected;  /* labels the caller expects to see (coverage pass) */
    int n_expected;
    const perc_box *previous;     /* previous pass's boxes for SoM anchoring, or NULL */
    int n_previous;
    double previous_age_ms;       /* age of that pass; > 10000 drops anchoring */
    const char *previous_url;     /* URL of that pass; differing drops anchoring */
    double deadline_ms;           /* base_monotime_ms() by which detect must end; 0 = none.
                                     A network provider bounds each request by it and
                                     waits for no retry past it. */
} perc_vision_ctx;

typedef struct perc_vision perc_vision;

/* The provider vtable. detect: shot is the decoded screenshot (device px,
 * shot->scale = device scale factor); page may be used for DOM queries.
 * Must fill *out on BASE_OK (n may be 0). */
typedef struct perc_vision_ops {
    const char *name;
    base_err (*detect)(perc_vision *v, cdp_page *page, const img_image *shot,
                       const perc_vision_ctx *ctx, perc_detection *out, char *err);
    void (*destroy)(perc_vision *v);
    /* 1 when detect reads the screenshot; 0 (the dom provider) lets the
     * prefetcher skip the capture unless the caller keeps shots (overlays),
     * and detect then gets an empty image. */
    int needs_pixels;
    /* Optional: on != 0 makes an in-flight detect (on any thread) return
     * BASE_ECANCELED promptly, and every detect until called with on == 0.
     * Must be callable from any thread. NULL: detect is short anyway. */
    void (*cancel)(perc_vision *v, int on);
} perc_vision_ops;

struct perc_vision {
    const perc_vision_ops *ops;
    void *self;
};

/* Runs v's detect. On v's owner's thread. Errors: the provider's. */
base_err perc_vision_detect(perc_vision *v, cdp_page *page, const img_image *shot,
                            const perc_vision_ctx *ctx, perc_detection *out, char *err);
/* Cancels (on 1) an in-flight and every later detect of v until called with
 * on 0 (see perc_vision_ops.cancel); a no-op for providers without network
 * calls. Any thread. */
void perc_vision_cancel(perc_vision *v, int on);
/* Destroys v (NULL: no-op). On v's owner's thread. */
void perc_vision_destroy(perc_vision *v);

/* The `dom` provider. *out is the caller's (perc_vision_destroy). Any
 * thread. Errors: BASE_EINVAL (NULL out), BASE_ENOMEM. */
base_err perc_vision_dom_create(perc_vision **out, char *err);

/* Configuration of the `openai` provider; perc_openai_config_from_env fills
 * it from FOVEA_OPENAI_BASE_URL (or OPENAI_BASE_URL), FOVEA_OPENAI_API_KEY
 * (or OPENAI_API_KEY), FOVEA_VISION_MODEL, FOVEA_VISION_FALLBACK_MODEL. The
 * key is never logged, traced or drawn. Strings borrowed by create (copied). */
typedef struct perc_openai_config {
    const char *base_url;       /* e.g. https://api.openai.com/v1 */
    const char *api_key;        /* may be NULL for local servers */
    const char *model;
    const char *fallback_model; /* the larger model for complex pages, may be NULL */
    int timeout_ms;             /* per request (default 30000) */
    int max_retries;            /* on 429/5xx/timeouts (default 3) */
    int model_width;            /* image width sent (default 1024) */
    int max_boxes;              /* cap asked of the model (default 40; coverage pass 60) */
} perc_openai_config;

/* Sets c (the caller's) to the defaults: model "gpt-4o-mini", 30 s, 3
 * retries, width 1024, 40 boxes, no endpoint. NULL: no-op. Any thread. */
void perc_openai_config_init(perc_openai_config *c);
/* Fills c from the environment (see above); c's strings point into the
 * environment. Any thread, while nobody changes the environment. Errors:
 * BASE_EINVAL (NULL c), BASE_ENOTFOUND (with a message) when no base URL is
 * configured; c untouched on failure. */
base_err perc_openai_config_from_env(perc_openai_config *c, char *err);
/* The `openai` provider for c (strings copied). *out is the caller's
 * (perc_vision_destroy). Any thread. Errors: BASE_EINVAL (NULL argument, URL
 * not http(s), no model, bad limits, a key with a line break), BASE_ENOMEM,
 * the endpoint's (model_endpoint_create). */
base_err perc_vision_openai_create(const perc_openai_config *c, perc_vision **out, char *err);

/* The provider called name: "dom", "pixel" (perception/pixel.h), or "openai"
 * configured from the environment (perc_openai_config_from_env). The one
 * place a provider is chosen by name (fovea run, overlay, the session). *out
 * is the caller's. Any thread. Errors: BASE_EINVAL naming the known
 * providers, the provider's own (BASE_ENOTFOUND: openai without a base URL).
 * Defined in perception/vision_named.c. */
base_err perc_vision_create_named(const char *name, perc_vision **out, char *err);

/* The provider names perc_vision_create_named knows, for messages:
 * "dom, openai, pixel or pixel-dom" ("pixel-ocr", the old name of pixel,
 * is still accepted). */
#define PERC_VISION_NAMES "dom, openai, pixel or pixel-dom"

/* 1 when name is one of PERC_VISION_NAMES (commands check their --vision
 * before a browser starts). Any thread. Errors: none. */
int perc_vision_name_known(const char *name);

/* DOM enrichment of boxes (in place) from the live page: nearest interactive
 * element per box (dom_index into *map), aria-expanded, active state,
 * aria-labelledby text, parent expand control; a box holding a chip and a
 * chevron is split in two (d->boxes may be reallocated, n grows). *map /
 * *n_map receive the selector map (caller frees with base_free). When d->map
 * is set (the dom provider), nothing is probed: the map is handed over
 * (d->map becomes NULL) and the boxes are left as they are. Any thread but
 * the cdp service thread. Errors: BASE_EINVAL (bad arguments), cdp errors
 * of the probe, BASE_EPROTO (a probe reply that does not match the boxes),
 * BASE_ENOMEM. */
base_err perc_vision_enrich(cdp_page *page, perc_detection *d, perc_selector **map, int *n_map,
                            char *err);

#endif

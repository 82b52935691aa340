/* perception/prefetch.h: immutable vision epochs and the prefetch thread
 * (seed 002 §4.3, Algorithm 2's producer side).
 *
 * After every mutating action the caller schedules a prefetch; the prefetch
 * thread captures, runs the provider, enriches the boxes and publishes a new
 * epoch with an atomic pointer swap. Epochs are immutable and refcounted:
 * readers acquire, use, release, and never see a torn epoch.
 *
 * Threads: the prefetcher is created and destroyed on its owner's thread;
 * schedule, current, wait, last_error and the epoch refcount functions may
 * be called from any thread. A pass that fails publishes no epoch and keeps
 * its message for perc_prefetch_last_error.
 */
#ifndef FOVEA_PERCEPTION_PREFETCH_H
#define FOVEA_PERCEPTION_PREFETCH_H

#include <stdint.h>

#include "perception/fingerprint.h"
#include "image/image.h"
#include "perception/vision.h"

typedef struct perc_epoch {
    uint64_t id;             /* 1, 2, ... per prefetcher */
    char url[1024];
    perc_fingerprint fp;     /* taken right before the capture */
    perc_box *boxes;
    int n;
    perc_selector *map;
    int n_map;
    char page_type[32];
    double taken_at_ms;      /* base_monotime_ms() at capture */
    double capture_ms, decode_ms, vision_ms, enrich_ms; /* stage timings */
    img_image shot;         /* the screenshot the boxes came from (device px) */
    int refs;                /* private: atomic refcount */
} perc_epoch;

typedef struct perc_prefetch perc_prefetch;

typedef struct perc_prefetch_opts {
    int model_width; /* default 1024 */
    int keep_shot;   /* keep the screenshot in the epoch (overlays need it); default 1.
                        With 0 and a provider that needs no pixels (dom), no
                        screenshot is taken and epoch->shot stays empty. */
} perc_prefetch_opts;

/* Starts the prefetch thread for page with provider v (borrowed; must outlive
 * the prefetcher; only the prefetch thread calls it afterwards). page is
 * borrowed too; o may be NULL (defaults). *out is the caller's
 * (perc_prefetch_destroy). Errors: BASE_EINVAL (NULL page, provider or out),
 * BASE_ENOMEM (also when the thread or its locks cannot be made). */
base_err perc_prefetch_create(cdp_page *page, perc_vision *v, const perc_prefetch_opts *o,
                              perc_prefetch **out, char *err);
/* Stops the thread (an in-flight vision request is cancelled, the pass
 * waited for) and releases the current epoch; epochs acquired by callers
 * stay valid until released. NULL: no-op. On the owner's thread. */
void perc_prefetch_destroy(perc_prefetch *pf);

/* Asks for a new pass after a mutating action; returns its ticket (the id the
 * next published epoch will have or exceed). Non-blocking; any thread. */
uint64_t perc_prefetch_schedule(perc_prefetch *pf, const perc_vision_ctx *ctx);

/* The latest published epoch (acquired: the caller holds a reference and
 * drops it with perc_epoch_release; NULL before the first). Any thread. */
perc_epoch *perc_prefetch_current(perc_prefetch *pf);
/* Waits up to timeout_ms for an epoch with id >= ticket; returns it acquired,
 * or NULL on timeout (then *late is not touched). Any thread. Also returns
 * NULL early when the pass that would have produced the ticket failed
 * (perc_prefetch_last_error says why), or the prefetcher is stopping. Ticket
 * 0 returns the current epoch at once. The caller releases the epoch with
 * perc_epoch_release. */
perc_epoch *perc_prefetch_wait(perc_prefetch *pf, uint64_t ticket, int timeout_ms);
/* Takes one more reference to e / drops one; the last release frees the
 * epoch. NULL: no-op. Any thread (atomic refcount); cannot fail. */
void perc_epoch_acquire(perc_epoch *e);
void perc_epoch_release(perc_epoch *e);

/* Last error of the prefetch thread ("" when the last pass succeeded),
 * copied into buf (n bytes, NUL-terminated); pf NULL gives "". Any thread. */
void perc_prefetch_last_error(perc_prefetch *pf, char *buf, size_t n);

#endif

/* cascade/gate.c: the procedural/declarative gate (seed 002 §4.5,
 * Algorithm 2).
 *
 * Before an action the gate fingerprints the page and compares it with the
 * fingerprint stored in the current vision epoch. When they are equal (same
 * h_dom, h_text, h_frame and URL) and fewer than θ nodes/attributes changed
 * since that epoch, the epoch is still authoritative: the action can go
 * straight from its selector map (procedural, no vision call). Otherwise the
 * page drifted and fresh perception is needed: the gate waits for the
 * pending prefetch, up to the soft timeout (1,500 ms) or, for a critical
 * action, the hard one (8,000 ms, counted from the start of the wait). If
 * nothing fresh arrives in time, the action proceeds on the latest epoch and
 * the result carries [vision_lag] (vision_lag = 1).
 *
 * One extension of the paper's pseudocode: when the page drifted but no
 * prefetch is pending (the caller passed no ticket, or its ticket is already
 * served by the current epoch), the gate schedules one itself, because the
 * paper's alternative — "take a fresh screenshot" — is exactly such a pass.
 *
 * θ: the paper states the predicate Δ < θ without giving θ's value. We use
 * 25 (CASCADE_GATE_MUTATION_THRESHOLD): with the hashes already equal, Δ only
 * measures churn the hashes do not see (nodes added then removed, attribute
 * flips such as hover classes or a ticking spinner); a couple of dozen such
 * changes leave the epoch's boxes valid, while anything that re-renders a
 * list or opens a dialog changes far more nodes than that and, in practice,
 * a hash too.
 */
#include "cascade/gate.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"

#define CASCADE_GATE_MUTATION_THRESHOLD 25
#define CASCADE_GATE_SOFT_MS 1500
#define CASCADE_GATE_HARD_MS 8000

void cascade_gate_opts_init(cascade_gate_opts *o)
{
    if (!o)
        return;
    o->mutation_threshold = CASCADE_GATE_MUTATION_THRESHOLD;
    o->soft_timeout_ms = CASCADE_GATE_SOFT_MS;
    o->hard_timeout_ms = CASCADE_GATE_HARD_MS;
}

/* Mutations since the epoch's fingerprint. A counter that went backwards
 * belongs to a new document (the observer restarts at 0 on every document):
 * that is a drift of unknown size, reported as UINT32_MAX. */
static uint32_t mutation_delta(const perc_fingerprint *now, const perc_fingerprint *then)
{
    if (now->mutation_count < then->mutation_count)
        return UINT32_MAX;
    return now->mutation_count - then->mutation_count;
}

/* Which part of the fingerprint differs, for the `why` line. */
static const char *drift_of(const perc_fingerprint *a, const perc_fingerprint *b)
{
    if (strcmp(a->url, b->url) != 0)
        return "URL changed";
    if (a->h_dom != b->h_dom)
        return "h_dom changed";
    if (a->h_text != b->h_text)
        return "h_text changed";
    if (a->h_frame != b->h_frame)
        return "h_frame changed";
    return "fingerprint equal";
}

base_err cascade_gate(cdp_page *page, perc_prefetch *pf, uint64_t pending_ticket, int critical,
                      const cascade_gate_opts *o, cascade_gate_result *out, char *err)
{
    if (!page || !pf || !out)
        return base_errf(err, BASE_EINVAL, "gate: NULL page, prefetcher or result");
    cascade_gate_opts d;
    cascade_gate_opts_init(&d);
    if (o) {
        if (o->mutation_threshold < 0 || o->soft_timeout_ms < 0 || o->hard_timeout_ms < 0)
            return base_errf(err, BASE_EINVAL, "gate: negative threshold or timeout");
        d = *o;
    }
    cascade_gate_result r;
    memset(&r, 0, sizeof r);
    base_err e = perc_fingerprint_take(page, &r.now, err);
    if (e)
        return e;

    /* Line 4 of Algorithm 2: φ = φ_prev and Δ < θ -> procedural. */
    perc_epoch *cur = perc_prefetch_current(pf);
    const char *drift = "no vision epoch yet";
    if (cur) {
        r.mutation_delta = mutation_delta(&r.now, &cur->fp);
        int same = perc_fingerprint_equal(&r.now, &cur->fp);
        if (same && r.mutation_delta < (uint32_t)d.mutation_threshold) {
            r.mode = CASCADE_GATE_PROCEDURAL;
            r.epoch = cur;
            snprintf(r.why, sizeof r.why,
                     "procedural: fingerprint equals epoch %" PRIu64 "'s, mutation delta %" PRIu32
                     " < %d",
                     cur->id, r.mutation_delta, d.mutation_threshold);
            *out = r;
            return BASE_OK;
        }
        drift = same ? "mutation delta over threshold" : drift_of(&r.now, &cur->fp);
    }

    /* Lines 8-13: wait for the pending prefetch (scheduling one if none). */
    uint64_t ticket = pending_ticket;
    int scheduled = 0;
    if (ticket == 0 || (cur && cur->id >= ticket)) {
        ticket = perc_prefetch_schedule(pf, NULL);
        scheduled = 1;
    }
    perc_epoch_release(cur);
    cur = NULL;
    double t0 = base_monotime_ms();
    perc_epoch *fresh = perc_prefetch_wait(pf, ticket, d.soft_timeout_ms);
    if (!fresh && critical && d.hard_timeout_ms > d.soft_timeout_ms) {
        int left = d.hard_timeout_ms - (int)(base_monotime_ms() - t0);
        if (left > 0)
            fresh = perc_prefetch_wait(pf, ticket, left);
    }
    r.wait_ms = base_monotime_ms() - t0;
    r.mode = CASCADE_GATE_DECLARATIVE;
    const char *sched = scheduled ? ", scheduled a pass" : "";
    if (fresh) {
        r.epoch = fresh;
        snprintf(r.why, sizeof r.why, "declarative: %s%s; epoch %" PRIu64 " arrived in %.0f ms",
                 drift, sched, fresh->id, r.wait_ms);
    } else {
        /* Line 12: [vision_lag] — proceed on whatever is latest. */
        r.vision_lag = 1;
        r.epoch = perc_prefetch_current(pf);
        char perr[BASE_ERRBUF_SIZE], line[512];
        perc_prefetch_last_error(pf, perr, sizeof perr);
        snprintf(line, sizeof line,
                 "declarative: %s%s; [vision_lag] ticket %" PRIu64 " not served in %d ms%s%s",
                 drift, sched, ticket, critical ? d.hard_timeout_ms : d.soft_timeout_ms,
                 perr[0] ? ": " : "", perr);
        /* why is one line of 160 bytes: the prefetch error may be cut. */
        size_t n = strlen(line);
        if (n >= sizeof r.why)
            n = sizeof r.why - 1;
        memcpy(r.why, line, n);
        r.why[n] = '\0';
    }
    base_log(BASE_LOG_CASCADE, BASE_LOG_DEBUG, "gate: %s", r.why);
    *out = r;
    return BASE_OK;
}

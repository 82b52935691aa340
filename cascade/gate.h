/* cascade/gate.h: the procedural/declarative gate (seed 002 Algorithm 2).
 *
 * Before an action: when the page's fingerprint equals the current epoch's
 * and the mutation delta since that epoch is under the threshold, act
 * procedurally from the epoch's selector map (no vision); otherwise wait for
 * the pending prefetch up to the soft timeout (1,500 ms; 8,000 ms for
 * critical actions), and mark the result [vision_lag] when it came late.
 * Any thread except the cdp service thread.
 */
#ifndef FOVEA_CASCADE_GATE_H
#define FOVEA_CASCADE_GATE_H

#include "perception/prefetch.h"

typedef enum cascade_gate_mode {
    CASCADE_GATE_PROCEDURAL = 0, /* epoch still valid: no vision call */
    CASCADE_GATE_DECLARATIVE,    /* fresh vision was waited for */
} cascade_gate_mode;

typedef struct cascade_gate_opts {
    int mutation_threshold; /* default from the seed */
    int soft_timeout_ms;    /* default 1500 */
    int hard_timeout_ms;    /* default 8000, for critical actions */
} cascade_gate_opts;

void cascade_gate_opts_init(cascade_gate_opts *o);

typedef struct cascade_gate_result {
    cascade_gate_mode mode;
    perc_epoch *epoch;     /* acquired; release with perc_epoch_release; NULL if none came */
    int vision_lag;        /* 1: the epoch arrived after the soft timeout (or never) */
    perc_fingerprint now;  /* fingerprint taken by the gate */
    uint32_t mutation_delta;
    double wait_ms;
    char why[160];         /* one line: which condition decided */
} cascade_gate_result;

/* Decides for the next action on page. critical: a submit or an action on an
 * unseen page (uses the hard timeout). pending_ticket: the ticket of the last
 * perc_prefetch_schedule (0 if none). */
base_err cascade_gate(cdp_page *page, perc_prefetch *pf, uint64_t pending_ticket, int critical,
                      const cascade_gate_opts *o, cascade_gate_result *out, char *err);

#endif

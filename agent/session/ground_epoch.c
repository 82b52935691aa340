/* agent/session/ground_epoch.c: the procedural step's element (agent/session/ground_int.h).
 *
 * Seed 002's gate exists so that a step on an unchanged page needs no
 * perception: the epoch's selector map already names the element. The
 * check that the element is still there, shown, in place and on top is
 * perception's (perc_snap_from_epoch, one evaluate); this file decides when
 * to ask it and records the answer, so a trace says for every procedural
 * step which path found its element and, when the epoch's element was
 * refused, why (moved, covered, gone...). A refusal is never a failure: the
 * snapper probes the box as it did before this path existed. Only a page
 * that stopped answering ends the step here, since the snapper would wait
 * for the same page again.
 */
#include "agent/session/ground_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/rng.h"
#include "perception/procedural.h"

/* Appends a note to r->gate_why, cut to fit. */
__attribute__((format(printf, 2, 3))) static void note(agent_step_record *r, const char *fmt, ...)
{
    size_t n = strlen(r->gate_why);
    if (n + 3 >= sizeof r->gate_why)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->gate_why + n, sizeof r->gate_why - n, fmt, ap);
    va_end(ap);
}

int agent__snap_procedural(cdp_page *page, const perc_epoch *ep, int box, const snap_intent *in,
                           agent_proc_mode mode, uint64_t seed, agent_step_record *r,
                           perc_snap *snap, perc_proc *why_out, char *err)
{
    int use_epoch = mode == AGENT_PROC_EPOCH;
    if (mode == AGENT_PROC_BOTH) {
        /* Drawn, not alternated: a task's cycle would otherwise give each
         * step the same path every time. Same seed, same draws. */
        base_rng g;
        base_rng_seed(&g, seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(r->index + 1)) ^
                              ((uint64_t)r->attempts << 40) ^ ep->id);
        use_epoch = base_rng_below(&g, 2) == 0;
    }
    if (!use_epoch) {
        snprintf(r->snap_path, sizeof r->snap_path, "snapper");
        return 0;
    }
    perc_proc why;
    base_err e = perc_snap_from_epoch(page, ep, box, in, snap, &why, err);
    if (!e && why_out)
        *why_out = why;
    if (e == BASE_ETIMEDOUT || (e && !cdp_page_alive(page)))
        return -1;
    snprintf(r->snap_path, sizeof r->snap_path, "%s", !e && !why.outcome ? "epoch" : "fallback");
    if (e) {
        /* A page script that threw (a page patching DOM APIs), a reply we
         * could not read: the snapper's probe may still work. */
        note(r, "; epoch element check failed (%.80s) -> snapper", err);
        base_errclear(err); /* first error wins: the snapper's must show */
        return 0;
    }
    if (why.outcome != PERC_PROC_HIT) {
        note(r, "; epoch element %s (%.90s) -> snapper", perc_proc_name(why.outcome), why.detail);
        return 0;
    }
    note(r, "; epoch element verified");
    return 1;
}

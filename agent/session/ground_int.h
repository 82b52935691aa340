/* agent/session/ground_int.h: the procedural step's element (agent/ only).
 *
 * When the gate says the page still equals the vision epoch, the grounding
 * path asks perception for the epoch's element of the chosen box
 * (perc_snap_from_epoch) before the snapper; agent/session/ground_epoch.c makes that
 * call per the run's agent_proc_mode and writes what happened into the step
 * record (phase "P", snap_path, a note on gate_why).
 */
#ifndef FOVEA_AGENT_SESSION_GROUND_INT_H
#define FOVEA_AGENT_SESSION_GROUND_INT_H

#include <stdint.h>

#include "agent/session/tool.h"
#include "agent/session/trace.h"
#include "perception/prefetch.h"
#include "perception/probe.h"
#include "perception/procedural.h"

/* The element of ep->boxes[box] for a step the gate found procedural. Returns 1
 * with *snap filled (phase "P", r->snap_path "epoch"), 0 when the snapper must
 * probe the box (r->snap_path "fallback" with the reason appended to
 * r->gate_why, or "snapper" when mode or the seeded draw of AGENT_PROC_BOTH
 * says so), -1 when the page stopped answering (err says how; the caller fails
 * the step rather than waiting for the snapper's own timeout too). *why_out
 * (optional) receives the check's verdict when the check ran (outcome
 * PERC_PROC_HIT otherwise untouched): a caller whose snapper then finds nothing
 * reports what the check saw (covered by X) rather than an empty box. Borrows
 * everything; ep stays acquired by the caller. On the runner's thread. */
int agent__snap_procedural(cdp_page *page, const perc_epoch *ep, int box, const snap_intent *in,
                           agent_proc_mode mode, uint64_t seed, agent_step_record *r,
                           perc_snap *snap, perc_proc *why_out, char *err);

#endif

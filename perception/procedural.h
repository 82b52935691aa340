/* perception/procedural.h: the procedural click target (seed 002 §4.5).
 *
 * When the gate finds the page still equal to the vision epoch (same
 * fingerprint, few mutations), the element the epoch's selector map holds
 * for a box [Vn] is the element to click: perc_snap_from_epoch checks, in
 * ONE page evaluate (assets/js/snap_epoch.js, the page kit's hit testing),
 * that it is still connected, shown, at the rect the vision pass saw and the
 * element a click there reaches, and fills the same perc_snap the snapper's
 * live probe (perc_snap_box) would, with phase SNAP_PHASE_P. When any of
 * that does not hold it says why and leaves the click to the snapper.
 *
 * Frames: elements of the top document and of same-origin iframes (nested,
 * inside open shadow roots too) are checked; an element of a cross-origin
 * iframe (its own process, or the same process but another origin) is left
 * to the snapper (PERC_PROC_FRAME), which descends through the frame's CDP
 * session.
 *
 * Threads: perc_snap_from_epoch makes blocking CDP calls (any thread but the
 * cdp service thread, one call at a time per page). Failure model: a target
 * that no longer holds is not an error (a verdict and a reason); only a
 * failed evaluate or a malformed reply is.
 */
#ifndef FOVEA_PERCEPTION_PROCEDURAL_H
#define FOVEA_PERCEPTION_PROCEDURAL_H

#include "perception/prefetch.h"
#include "perception/probe.h"

/* Why the epoch's element was (not) used. */
typedef enum perc_proc_outcome {
    PERC_PROC_HIT = 0,  /* *out filled from the epoch's element */
    PERC_PROC_UNMAPPED, /* the box has no selector-map element, or box and element are
                           not the same thing (IoU under 0.5): the snapper searches the box */
    PERC_PROC_MISMATCH, /* the element does not carry the step's label, or the step wants
                           an expand control and the element is none */
    PERC_PROC_FRAME,    /* the element lives in a cross-origin iframe */
    PERC_PROC_GONE,     /* its xpath names no element any more, or one with another label
                           (xpaths are positional), or its frame left */
    PERC_PROC_HIDDEN,   /* not rendered, or nothing of it visible */
    PERC_PROC_MOVED,    /* its visible rect moved more than PERC_PROC_TOL_PX */
    PERC_PROC_COVERED,  /* a click at none of nine points over it would reach it */
} perc_proc_outcome;

/* How far (CSS px) an edge of the element's visible rect may be from the
 * epoch's before it counts as moved: layout rounding, not motion. */
#define PERC_PROC_TOL_PX 2.0f

typedef struct perc_proc {
    perc_proc_outcome outcome;
    char detail[200]; /* one line for traces, e.g. "moved 14 px", "covered by div#m 'Sign in'" */
    double eval_ms;   /* the page evaluate (0 when decided without one) */
} perc_proc;

/* "hit", "unmapped", "mismatch", "cross-origin frame", "gone", "hidden",
 * "moved", "covered". Static strings. Any thread. */
const char *perc_proc_name(perc_proc_outcome o);

/* The click target for box ep->boxes[box] from the epoch's selector map,
 * verified on the live page in one evaluate (see above). intent (may be NULL:
 * any, no label) must agree with the element: its label has to match the
 * element's name, text, aria-label or title (snap_match_kind above NONE), and
 * an expand intent needs an expand control (aria-expanded, or a chevron box).
 * On PERC_PROC_HIT *out is what perc_snap_box(page, box, intent, verify 1,
 * ...) gives for the same element: found, pt (the first of the centre and
 * eight spread points a click reaches), rect, tag, text, name, xpath, frame
 * id ("" top), session "" (same-origin frames share the page's), frame
 * offset, disabled, verdict SNAP_VERIFY_OK, probe_ms, and res with phase
 * SNAP_PHASE_P, cand -1, match as above. Otherwise *out is untouched and the
 * caller asks the snapper (perc_snap_box). Borrows everything; ep must stay
 * acquired for the call. Any thread but the cdp service thread; one call at a
 * time per page. Errors: BASE_EINVAL (NULL arguments, box out of range), cdp
 * errors of the evaluate (BASE_ETIMEDOUT, page gone, BASE_EREMOTE when the
 * script threw), BASE_EPROTO for a reply that is not the script's JSON; *why
 * is filled whenever BASE_OK is returned. */
base_err perc_snap_from_epoch(cdp_page *page, const perc_epoch *ep, int box,
                              const snap_intent *intent, perc_snap *out, perc_proc *why,
                              char *err);

#endif

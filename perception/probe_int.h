/* perception/probe_int.h: internals of perception/probe.c shared with its
 * tests: the parser of the snap_probe.js reply. Not a public interface. */
#ifndef FOVEA_PERCEPTION_PROBE_INT_H
#define FOVEA_PERCEPTION_PROBE_INT_H

#include <stddef.h>

#include "perception/probe.h"

/* A parsed reply: the public probe plus what perc_snap_box needs beyond it.
 * All arrays have p.n entries; strings live in p.strings. */
typedef struct perc__reply {
    perc_probe p;
    const char **desc;  /* "tag#id.class" of each candidate */
    base_rect *content; /* an iframe's content box (its frame's viewport); else rect */
    base_point *origin; /* viewport origin of the candidate's document, probed viewport px */
    int late;           /* the page kit's listener recorder missed the document's start
                           (reply key "late"): listeners are asked of DOMDebugger */
    int closed;         /* a closed shadow root may have appeared (reply key "closed"):
                           perc_snap_box hands them to fovea's world and probes again */
} perc__reply;

/* Parses the JSON text the probe script returned for a box whose first n_sent
 * points were sent[] (echoed exactly or the reply is rejected). Candidate
 * points that do not lie strictly inside box (rounding) are dropped. *out is
 * filled on success (free with perc__reply_fini); untouched on failure. Any
 * thread. Errors: BASE_EPROTO with the reason in err, BASE_ENOMEM,
 * BASE_EINVAL. */
base_err perc__probe_parse(const char *json, size_t len, base_rect box, const base_point *sent,
                           int n_sent, perc__reply *out, char *err);

/* Frees everything a reply owns; r is zeroed. NULL is a no-op. */
void perc__reply_fini(perc__reply *r);

#endif

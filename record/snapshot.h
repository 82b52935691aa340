/* record/snapshot.h: recorded page models for offline snapper replay.
 *
 * rec_snapshot_capture takes DOMSnapshot.captureSnapshot (layout rects,
 * paint order and the computed styles hit testing needs) of a live page and
 * of each of its out-of-process iframes, plus DOM.getDocument for the xpaths,
 * and flattens them into one self-contained JSON document of fovea's own
 * compact format ("fovea-snapshot/1", described in snapshot.c): every laid-out
 * element with its rect in top-viewport CSS px, parent, global paint order,
 * hit-test properties (pointer-events, visibility, opacity, overflow clip)
 * and the candidate fields the live probe reports (tag, text,
 * aria-label, title, aria-expanded, aria-haspopup, disabled, pointer cursor,
 * xpath, frame chain) with the page kit's own answers for role, interactive,
 * listener, accessible name and icon hint (assets/js/lib/kit.js, asked in
 * each renderer session at capture time, never recomputed in C).
 *
 * rec_snapshot_load turns that JSON back into a snap_scene whose strings
 * the rec_snapshot owns, so the pure snapper runs on it without a browser.
 * The loader treats its input as hostile: sizes are capped and every field is
 * checked, with an error naming the node and field.
 *
 * xpath convention (shared with assets/js/snap_probe.js): each step is
 * `tag[n]`, lower-case tag, n the 1-based index among element siblings of the
 * same tag, always written; inside an open shadow root the host's path is
 * followed by `/#shadow-root` and the steps inside it. frame_chain is the
 * xpaths of the iframe elements from the top document down to the element's
 * document joined by '|', "" for the top document.
 *
 * Threads: capture makes blocking CDP calls (any thread but the cdp service
 * thread, one capture per page at a time); loading and lookups are pure and
 * run on any thread.
 */
#ifndef FOVEA_RECORD_SNAPSHOT_H
#define FOVEA_RECORD_SNAPSHOT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "cdp/browser.h"
#include "snapper/snap.h"

/* Caps on what the loader accepts. */
#define REC_SNAPSHOT_MAX_BYTES (64u * 1024u * 1024u)
#define REC_SNAPSHOT_MAX_NODES 200000
#define REC_SNAPSHOT_MAX_STR 4096

/* A loaded page model. scene.cand[i] strings point into memory owned by the
 * struct; everything is freed by rec_snapshot_fini. */
typedef struct rec_snapshot {
    snap_scene scene;
    const char *url;        /* owned (one of strs), "" when absent */
    int vw, vh;             /* layout viewport, CSS px */
    double dsf;             /* device scale factor at capture */
    double scroll_x, scroll_y; /* top document scroll at capture */
    int missing_frames;     /* iframes whose document could not be captured */
    char **strs;            /* owned strings (private) */
    int n_strs, cap_strs;
} rec_snapshot;

/* Captures the page (all frames, open shadow roots) into the compact JSON
 * model described above. *out is a new cJSON tree the caller frees with
 * cJSON_Delete. Any thread except the cdp service thread; one capture per
 * page at a time. Errors: cdp errors (BASE_ETIMEDOUT, BASE_EREMOTE,
 * BASE_ECLOSED), BASE_EPROTO (reply not shaped like a DOMSnapshot),
 * BASE_ETOOBIG (more than REC_SNAPSHOT_MAX_NODES elements), BASE_ENOMEM; err
 * (optional, BASE_ERRBUF_SIZE) says which. Out-params are untouched on
 * failure. A cross-origin iframe whose session cannot be captured is not an
 * error: it stays an is_iframe candidate and "missing_frames" counts it. */
base_err rec_snapshot_capture(cdp_page *page, cJSON **out, char *err);

/* Loads a model from its JSON tree. Borrows root; *out (caller's struct, need
 * not be initialised) owns copies of every string and is released with
 * rec_snapshot_fini. Any thread. Errors: BASE_EPROTO with a message naming
 * the field ("nodes[12].r: expected [x0,y0,x1,y1]"), BASE_ETOOBIG (too many
 * nodes, a string too long), BASE_ENOMEM. *out is untouched on failure. */
base_err rec_snapshot_load(const cJSON *root, rec_snapshot *out, char *err);

/* As rec_snapshot_load from JSON text of len bytes (need not be
 * NUL-terminated). Errors: also BASE_EPROTO for text that is not JSON,
 * BASE_ETOOBIG above REC_SNAPSHOT_MAX_BYTES. Any thread. */
base_err rec_snapshot_parse(const char *json, size_t len, rec_snapshot *out, char *err);

/* Reads and parses a snapshot.json file. Errors: as rec_snapshot_parse, plus
 * BASE_EIO naming the path. Any thread. */
base_err rec_snapshot_read_file(const char *path, rec_snapshot *out, char *err);

/* Frees everything a load produced and zeroes s. NULL or a zeroed struct is a
 * no-op. On the owner's thread. Errors: none. */
void rec_snapshot_fini(rec_snapshot *s);

/* The scene index of the element with this xpath in the document reached by
 * frame_chain (NULL reads ""), or -1. Any thread (read only). Errors: none. */
int rec_snapshot_find(const rec_snapshot *s, const char *xpath, const char *frame_chain);

/* 1 when element `cand` of the scene is the element (xpath, frame_chain) or
 * inside it: a descendant in the same document (also through open shadow
 * roots), or anywhere in the document of an iframe that is it or inside it.
 * Any thread. Errors: 0 for bad indices or NULL. */
int rec_snapshot_within(const rec_snapshot *s, int cand, const char *xpath,
                         const char *frame_chain);

#endif

/* cascade/snapserve.h: the `fovea snap` grounding protocol as a library.
 *
 * Another agent already has a box and a label from its vision model and
 * wants the element and point they mean on a page that is open right now.
 * A snapserve answers one JSON request with one JSON answer through the same
 * path `fovea run` uses: perc_snap_box (one batched probe evaluate,
 * snap_resolve, iframe descent) and, when asked, cascade_click on the
 * snapped element. The CLI (`fovea snap`, tools/cmd_snap.c) wraps it around
 * stdin/stdout; the MCP server and the batch runner call it with their own
 * transport.
 *
 * Request: {"box":[x0,y0,x1,y1], "label":"Save", "intent":"click|expand|
 * select", "target":"tab id or URL substring", "id":any, "click":bool}, box
 * in CSS px of the tab's viewport, only box required. Answer (README, "fovea
 * snap"): "id" (echoed), "target", "intent", "phase", then either "found",
 * "point", "match", "element", "score", "reason", "hit" and with a click
 * "click" (cascade_result_json); or "ambiguous", "candidates", "why",
 * "box_center" (nothing clicked); or "abstain", "why", "box_center"; or
 * "error". Every
 * answer carries "ms" {probe, total} unless it is an error. The keys and
 * rounding of the snap answer and the click are those of perc_snap_json and
 * cascade_result_json.
 *
 * Tabs: requests may name another tab of the browser ("target"); tabs
 * adopted that way are kept (up to CASCADE_SNAPSERVE_MAX_TABS) and closed by
 * cascade_snapserve_destroy, which leaves the browser's tabs open (it closes
 * only its sessions on them). Bad input never ends a service: it gets
 * {"error":...}.
 *
 * Threads: one snapserve is used from one thread (not the cdp service
 * thread), which owns every call below.
 */
#ifndef FOVEA_CASCADE_SNAPSERVE_H
#define FOVEA_CASCADE_SNAPSERVE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "cascade/cascade.h"
#include "cdp/browser.h"

/* A request line longer than this is refused (and skipped to its end): a
 * box, a label and a target fit in a few hundred bytes. */
#define CASCADE_SNAPSERVE_LINE_MAX (64 * 1024)
#define CASCADE_SNAPSERVE_MAX_TABS 8

/* Resolves a request's "target" to a tab's target id (64 bytes into id).
 * Returns 0 on success, non-zero with a one-line-or-more message in why
 * (why_n bytes, NUL-terminated). tools/ passes cli_find_target. */
typedef int (*cascade_snapserve_find_fn)(void *user, cdp_browser *b, const char *spec, char *id,
                                       char *why, size_t why_n);

typedef struct cascade_snapserve_opts {
    int click;       /* click every request unless it says "click":false */
    int verify;      /* hit-target check of answers without a click (default 1) */
    cascade_opts co; /* the hand's options for clicks */
    cascade_snapserve_find_fn find_target; /* NULL: "target" is refused */
    void *find_user;
} cascade_snapserve_opts;

typedef struct cascade_snapserve cascade_snapserve;

/* Sets the defaults: no click, verify on, cascade_opts_init, no target
 * resolution. Any thread; cannot fail. */
void cascade_snapserve_opts_init(cascade_snapserve_opts *o);

/* Creates a service answering for page (its first tab; requests without
 * "target" go there) in browser b. b and page are borrowed and
 * must outlive the service; opts is copied; *out is freed with
 * cascade_snapserve_destroy. Called on the thread that then owns the
 * service. Errors: BASE_EINVAL (NULL argument), BASE_ENOMEM; err (optional,
 * BASE_ERRBUF_SIZE) says which; *out untouched on failure. */
base_err cascade_snapserve_create(cdp_browser *b, cdp_page *page, const cascade_snapserve_opts *opts,
                                cascade_snapserve **out, char *err);

/* Frees the service: its hands and its sessions on adopted tabs
 * (the tabs stay open); page given to create stays the caller's. NULL is a
 * no-op. On the owner's thread; cannot fail. */
void cascade_snapserve_destroy(cascade_snapserve *sv);

/* Answers one parsed request (any JSON value; a non-object gets an
 * error answer). req is borrowed; the answer is a new object the
 * caller frees, NULL only when out of memory (the caller then answers
 * {"error":"out of memory"}; never a partial answer). *gone (optional) is
 * set to 1 when the browser connection is gone (the caller should stop
 * after sending the answer), else 0. On the owner's thread. */
cJSON *cascade_snapserve_answer(cascade_snapserve *sv, const cJSON *req, int *gone);

/* Answers one request line (len bytes, need not be NUL-terminated,
 * no newline): blank lines get no answer (NULL, *blank = 1); text that is
 * not one JSON value, or a line over CASCADE_SNAPSERVE_LINE_MAX, gets an
 * error answer. Ownership and the rest: as cascade_snapserve_answer. */
cJSON *cascade_snapserve_answer_line(cascade_snapserve *sv, const char *line, size_t len, int *blank,
                                   int *gone);

/* Runs the protocol over a stream: reads request lines from in until
 * EOF and writes one answer line per request to out, flushed at once (an
 * over-long line is refused and skipped). Counts go to *n_req and *n_err
 * (optional). On the owner's thread. Returns BASE_OK at EOF; BASE_EIO when out
 * cannot be written; BASE_ECLOSED when the browser connection went away
 * (after answering that request); BASE_ENOMEM for the line buffer; err
 * (optional) says which. */
base_err cascade_snapserve_run(cascade_snapserve *sv, FILE *in, FILE *out, long *n_req, long *n_err,
                             char *err);

#endif

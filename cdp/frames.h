/* cdp/frames.h: frame plumbing shared by the eye and the hand.
 *
 * A page's frames live in several documents and, for cross-site iframes,
 * several renderer processes (one flattened CDP session each). Every module
 * that reaches into a frame needs the same four facts: which frame an id
 * names (and the top document's URL), the <iframe> element that owns a
 * frame and where its content box sits in the parent's viewport, where a
 * frame's (or a session's) viewport origin sits in the top viewport, and an
 * isolated world to run a script in a frame the page's own scripts cannot
 * see or that the main-world script cannot enter. They are written here
 * once, over the public cdp_page API.
 *
 * Threads: every function may be called from any thread except the cdp
 * service thread (they make synchronous cdp_call round trips). Errors are
 * those of cdp_call plus the ones named per function; err (optional) gets
 * the first error's text.
 */
#ifndef FOVEA_CDP_FRAMES_H
#define FOVEA_CDP_FRAMES_H

#include <stddef.h>

#include "base/err.h"
#include "base/geom.h"
#include "cdp/browser.h"

/* Looks frame_id up in p's frame tree; NULL or "" names the main frame. *out is
 * a copy. Any thread but the service thread. Returns 1 when found (and fills
 * *out), 0 when the frame is unknown or the table could not be allocated. */
int cdp_frame_find(cdp_page *p, const char *frame_id, cdp_frame *out);

/* The URL of p's top document as the frame tree last reported it (copied into
 * buf, n bytes; "" when unknown). Any thread but the service thread. Errors:
 * none. */
void cdp_page_top_url(cdp_page *p, char *buf, size_t n);

/* The backendNodeId of the <iframe> element owning frame_id, asked on session
 * (the session of the parent frame's document; NULL or "" = the page's own).
 * Any thread but the service thread. Errors: BASE_ENOMEM, BASE_EPROTO (the
 * reply named no node), those of cdp_call (BASE_EREMOTE when frame_id is not a
 * child of that document). *node untouched on failure. */
base_err cdp_frame_owner_node(cdp_page *p, const char *session, const char *frame_id,
                              int timeout_ms, int *node, char *err);

/* The content box of the <iframe> element owning frame_id, in the viewport CSS
 * px of its parent's document (asked on session, as above): the rectangle the
 * frame's own viewport occupies there. Any thread but the service thread.
 * Errors: as cdp_frame_owner_node, and BASE_EPROTO when the element has no box
 * (display:none, detached). *content untouched on failure. */
base_err cdp_frame_owner_box(cdp_page *p, const char *session, const char *frame_id,
                             int timeout_ms, base_rect *content, char *err);

/* Where frame_id's viewport origin lies in p's top viewport (CSS px): the sum
 * of the owners' content-box origins up to the main frame, through same- and
 * cross-process levels. NULL, "" or the main frame give (0, 0). Any thread but
 * the service thread. Errors: BASE_ENOTFOUND (the frame, or a frame owning a
 * session on the way up, is not in the page), BASE_EINVAL (nested deeper than
 * 16), those of cdp_frame_owner_box. *o untouched on failure. */
base_err cdp_frame_origin(cdp_page *p, const char *frame_id, int timeout_ms, base_point *o,
                          char *err);

/* The same for the root document of session (an out-of-process iframe's
 * session; the page's own gives (0, 0)). Errors: BASE_ENOTFOUND when no frame
 * of p is owned by session, else as cdp_frame_origin. */
base_err cdp_session_origin(cdp_page *p, const char *session, int timeout_ms, base_point *o,
                            char *err);

/* An execution context id for the isolated world `world` in frame frame_id
 * (Page.createIsolatedWorld on session, the frame's owning session; NULL or
 * "" = the page's own). Chromium keeps one world per name and frame, so
 * repeated calls reach the same globals. Any thread but the service thread.
 * Errors: BASE_EINVAL (empty frame id or world name), BASE_ENOMEM,
 * BASE_EPROTO (no context in the reply), those of cdp_call. *context_id
 * untouched on failure. */
base_err cdp_frame_isolated_world(cdp_page *p, const char *session, const char *frame_id,
                                  const char *world, int timeout_ms, int *context_id, char *err);

#endif

/* tests/agent/session/tool_session.h: the tool-layer tests' one way to get a
 * session on a fixture page: fast input (no humanized motion), no
 * overlays. Test thread only. */
#ifndef FOVEA_TESTS_TOOL_SESSION_H
#define FOVEA_TESTS_TOOL_SESSION_H

#include "agent/session/tool.h"

/* The tests' session options: defaults with humanize 0 and no overlays. */
void ts_opts(fovea_session_opts *o);

/* A session on page with o (NULL = ts_opts); NULL (the reason on stderr)
 * when it cannot start. The page stays the caller's. */
fovea_session *ts_session(cdp_page *page, const fovea_session_opts *o);

/* Opens path on the harness's origin A in a w x h page and starts a
 * session there (ts_opts); NULL when either fails (nothing left open). */
fovea_session *ts_open(int w, int h, const char *path, cdp_page **page);

#endif

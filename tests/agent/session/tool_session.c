/* tests/agent/session/tool_session.c: see tool_session.h. */
#include "tool_session.h"

#include <stdio.h>

#include "harness.h"

void ts_opts(fovea_session_opts *o)
{
    fovea_session_opts_init(o);
    o->humanize = 0;
    o->overlays = AGENT_OVERLAYS_NONE;
    /* The tests call tools as a task file does: upload paths as given. */
    o->script_paths = 1;
}

fovea_session *ts_session(cdp_page *page, const fovea_session_opts *o)
{
    fovea_session_opts d;
    if (!o) {
        ts_opts(&d);
        o = &d;
    }
    fovea_session *s = NULL;
    char err[BASE_ERRBUF_SIZE] = "";
    if (fovea_session_create(page, o, &s, err) != BASE_OK) {
        fprintf(stderr, "fovea_session_create: %s\n", err);
        return NULL;
    }
    return s;
}

fovea_session *ts_open(int w, int h, const char *path, cdp_page **page)
{
    *page = harness_open(w, h, 1, path);
    if (!*page)
        return NULL;
    fovea_session *s = ts_session(*page, NULL);
    if (!s) {
        cdp_page_close(*page);
        *page = NULL;
    }
    return s;
}

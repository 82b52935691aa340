/* cdp/frames.c: frame plumbing (frame lookup, top URL, owner element and
 * its content box, viewport origins, isolated worlds) over the public
 * cdp_page API.
 *
 * The snapper's probe, the DOM enrichment and the hand each used to carry
 * their own copy of these round trips, and the copies had drifted (one read
 * the content quad's first point, another its bounding box; one checked the
 * cJSON allocations, another did not). One copy here means one behaviour.
 * The frame table is copied out of the page (cdp_page_frames) onto the heap
 * rather than the stack: a frame is ~800 bytes and a page may have dozens.
 */
#include "cdp/frames.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/num.h"

#define FR_MAX_TABLE 256 /* frames looked at; a page with more is not a page a person uses */
#define FR_MAX_DEPTH 16  /* iframe nesting followed when computing an origin */

/* The page's own session when s is NULL or "" (cdp_call's NULL would
 * address the browser instead). */
static const char *sess(cdp_page *p, const char *s)
{
    return s && s[0] ? s : cdp_page_session(p);
}

/* A heap copy of p's frame table; *n gets the count. NULL on ENOMEM. */
static cdp_frame *table(cdp_page *p, int *n)
{
    cdp_frame *fr = base_malloc(FR_MAX_TABLE * sizeof *fr);
    if (!fr)
        return NULL;
    int k = cdp_page_frames(p, fr, FR_MAX_TABLE);
    *n = k > FR_MAX_TABLE ? FR_MAX_TABLE : k;
    return fr;
}

/* A tab's main frame carries the id of its target, and is the one frame
 * without a parent. */
static int is_main(cdp_page *p, const char *fid)
{
    return !fid || !fid[0] || strcmp(fid, cdp_page_target_id(p)) == 0;
}

int cdp_frame_find(cdp_page *p, const char *frame_id, cdp_frame *out)
{
    int n = 0;
    cdp_frame *fr = table(p, &n);
    if (!fr)
        return 0;
    int found = 0;
    for (int i = 0; i < n && !found; i++) {
        found = is_main(p, frame_id) ? fr[i].parent_id[0] == '\0'
                                     : strcmp(fr[i].id, frame_id) == 0;
        if (found)
            *out = fr[i];
    }
    base_free(fr);
    return found;
}

void cdp_page_top_url(cdp_page *p, char *buf, size_t n)
{
    cdp_frame f;
    if (cdp_frame_find(p, NULL, &f))
        snprintf(buf, n, "%s", f.url);
    else if (n)
        buf[0] = '\0';
}

/* cdp_call of method with {"frameId": fid} on session. */
static base_err frame_call(cdp_page *p, const char *session, const char *method, const char *fid,
                           const char *world, int timeout_ms, cJSON **res, char *err)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "frameId", fid) ||
        (world && !cJSON_AddStringToObject(pa, "worldName", world))) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory building %s", method);
    }
    return cdp_call(cdp_page_conn(p), sess(p, session), method, pa, res, timeout_ms, err);
}

/* An integer member of a reply within [lo, hi]; 0 when absent or out of
 * range (the browser's replies are input like any other). */
static int get_int(const cJSON *o, const char *k, int lo, int hi, int *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(x) && base_num_to_int(x->valuedouble, lo, hi, v) == BASE_OK;
}

base_err cdp_frame_owner_node(cdp_page *p, const char *session, const char *frame_id,
                              int timeout_ms, int *node, char *err)
{
    if (!frame_id || !frame_id[0])
        return base_errf(err, BASE_EINVAL, "cdp: the main frame has no owner element");
    cJSON *res = NULL;
    base_err e = frame_call(p, session, "DOM.getFrameOwner", frame_id, NULL, timeout_ms, &res, err);
    if (e)
        return e;
    int id = 0;
    int ok = get_int(res, "backendNodeId", 1, 0x7fffffff, &id);
    cJSON_Delete(res);
    if (!ok)
        return base_errf(err, BASE_EPROTO, "cdp: DOM.getFrameOwner gave no node for frame %.64s",
                         frame_id);
    *node = id;
    return BASE_OK;
}

/* The bounding box of an 8-number CDP quad; empty when it is not one. */
static base_rect quad_bbox(const cJSON *q)
{
    if (!cJSON_IsArray(q) || cJSON_GetArraySize(q) != 8)
        return (base_rect){0, 0, 0, 0};
    float v[8];
    int k = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, q)
    {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return (base_rect){0, 0, 0, 0};
        v[k++] = (float)x->valuedouble;
    }
    return (base_rect){fminf(fminf(v[0], v[2]), fminf(v[4], v[6])),
                       fminf(fminf(v[1], v[3]), fminf(v[5], v[7])),
                       fmaxf(fmaxf(v[0], v[2]), fmaxf(v[4], v[6])),
                       fmaxf(fmaxf(v[1], v[3]), fmaxf(v[5], v[7]))};
}

base_err cdp_frame_owner_box(cdp_page *p, const char *session, const char *frame_id,
                             int timeout_ms, base_rect *content, char *err)
{
    int node = 0;
    base_err e = cdp_frame_owner_node(p, session, frame_id, timeout_ms, &node, err);
    if (e)
        return e;
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddNumberToObject(pa, "backendNodeId", node)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory building DOM.getBoxModel");
    }
    cJSON *res = NULL;
    e = cdp_call(cdp_page_conn(p), sess(p, session), "DOM.getBoxModel", pa, &res, timeout_ms, err);
    if (e)
        return e;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(res, "model");
    base_rect c = quad_bbox(cJSON_GetObjectItemCaseSensitive(model, "content"));
    cJSON_Delete(res);
    /* A zero-area content box is still a place (a 0x0 iframe has an origin);
     * only a missing or malformed quad is an error. */
    if (!(c.x1 >= c.x0 && c.y1 >= c.y0) || (c.x0 == 0 && c.y0 == 0 && c.x1 == 0 && c.y1 == 0))
        return base_errf(err, BASE_EPROTO, "cdp: no box model for the <iframe> of frame %.64s",
                         frame_id);
    *content = c;
    return BASE_OK;
}

static base_err origin_depth(cdp_page *p, const cdp_frame *fr, int n, const char *fid,
                             int timeout_ms, int depth, base_point *o, char *err);

/* Origin of the root document of session, walking up from the frame that
 * owns it. */
static base_err session_depth(cdp_page *p, const cdp_frame *fr, int n, const char *session,
                              int timeout_ms, int depth, base_point *o, char *err)
{
    if (strcmp(sess(p, session), cdp_page_session(p)) == 0) {
        *o = (base_point){0, 0};
        return BASE_OK;
    }
    for (int i = 0; i < n; i++)
        if (fr[i].oopif && strcmp(fr[i].session, session) == 0)
            return origin_depth(p, fr, n, fr[i].id, timeout_ms, depth + 1, o, err);
    return base_errf(err, BASE_ENOTFOUND, "cdp: no frame owns session %.40s", session);
}

static base_err origin_depth(cdp_page *p, const cdp_frame *fr, int n, const char *fid,
                             int timeout_ms, int depth, base_point *o, char *err)
{
    if (is_main(p, fid)) {
        *o = (base_point){0, 0};
        return BASE_OK;
    }
    if (depth > FR_MAX_DEPTH)
        return base_errf(err, BASE_EINVAL, "cdp: frames nested too deep");
    const cdp_frame *f = NULL;
    for (int i = 0; i < n && !f; i++)
        if (strcmp(fr[i].id, fid) == 0)
            f = &fr[i];
    if (!f)
        return base_errf(err, BASE_ENOTFOUND, "cdp: frame %.64s is not in the page", fid);
    if (!f->parent_id[0]) {
        *o = (base_point){0, 0};
        return BASE_OK;
    }
    /* The <iframe> element lives in the parent frame's document, whose
     * session may differ from the frame's own (an out-of-process frame). */
    char psess[64];
    const char *parent_session = NULL;
    for (int i = 0; i < n && !parent_session; i++)
        if (strcmp(fr[i].id, f->parent_id) == 0)
            parent_session = fr[i].session;
    if (!parent_session)
        return base_errf(err, BASE_ENOTFOUND, "cdp: the parent of frame %.64s is not in the page",
                         fid);
    snprintf(psess, sizeof psess, "%s", sess(p, parent_session));
    base_rect c;
    base_err e = cdp_frame_owner_box(p, psess, fid, timeout_ms, &c, err);
    if (e)
        return e;
    base_point up;
    e = session_depth(p, fr, n, psess, timeout_ms, depth, &up, err);
    if (e)
        return e;
    *o = (base_point){c.x0 + up.x, c.y0 + up.y};
    return BASE_OK;
}

base_err cdp_frame_origin(cdp_page *p, const char *frame_id, int timeout_ms, base_point *o,
                          char *err)
{
    if (is_main(p, frame_id)) {
        *o = (base_point){0, 0};
        return BASE_OK;
    }
    int n = 0;
    cdp_frame *fr = table(p, &n);
    if (!fr)
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory reading the frame tree");
    base_point r;
    base_err e = origin_depth(p, fr, n, frame_id, timeout_ms, 0, &r, err);
    base_free(fr);
    if (!e)
        *o = r;
    return e;
}

base_err cdp_session_origin(cdp_page *p, const char *session, int timeout_ms, base_point *o,
                            char *err)
{
    int n = 0;
    cdp_frame *fr = table(p, &n);
    if (!fr)
        return base_errf(err, BASE_ENOMEM, "cdp: out of memory reading the frame tree");
    base_point r;
    base_err e = session_depth(p, fr, n, session, timeout_ms, 0, &r, err);
    base_free(fr);
    if (!e)
        *o = r;
    return e;
}

base_err cdp_frame_isolated_world(cdp_page *p, const char *session, const char *frame_id,
                                  const char *world, int timeout_ms, int *context_id, char *err)
{
    if (!frame_id || !frame_id[0] || !world || !world[0])
        return base_errf(err, BASE_EINVAL, "cdp: an isolated world needs a frame id and a name");
    cJSON *res = NULL;
    base_err e = frame_call(p, session, "Page.createIsolatedWorld", frame_id, world, timeout_ms,
                            &res, err);
    if (e)
        return e;
    int id = 0;
    int ok = get_int(res, "executionContextId", 1, 0x7fffffff, &id);
    cJSON_Delete(res);
    if (!ok)
        return base_errf(err, BASE_EPROTO, "cdp: Page.createIsolatedWorld gave no context");
    *context_id = id;
    return BASE_OK;
}

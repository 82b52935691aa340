/* perception/kit.c: installs the listener recorder of the page kit at
 * document start, in two halves; see perception/kit.h.
 *
 * The recorder (assets/js/lib/listen.js) must wrap addEventListener in the
 * page's own world before the page's scripts run; fovea's page scripts read
 * it from their isolated world (cdp/browser.h CDP_WORLD_NAME) through the
 * bridge (assets/js/lib/bridge.js). The two halves talk through events whose
 * type starts with a random nonce, made here per install from the kernel's
 * random source and written into both scripts' text: the page's scripts
 * never see either text, so they cannot answer or forge a question.
 */
#include "perception/kit.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/log.h"
#include "perception/js.h"

#define KIT_TIMEOUT_MS 5000
#define KIT_MAX_FRAMES 64
#define KIT_MAX_EXPR (1u << 20)

/* 32 hex digits from /dev/urandom (falling back on the clock and the
 * address space only if it cannot be read: still unknown to the page). */
static void make_nonce(char out[40])
{
    unsigned char r[16] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, r, sizeof r) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)sizeof r) {
        uint64_t a = (uint64_t)(uintptr_t)&r ^ (uint64_t)(uintptr_t)out;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t b = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
        for (int i = 0; i < 8; i++) {
            r[i] ^= (unsigned char)(a >> (8 * i));
            r[8 + i] ^= (unsigned char)(b >> (8 * i));
        }
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* `(<script>)("nonce")` into b. */
static base_err with_nonce(base_buf *b, const unsigned char *text, size_t len, const char *nonce)
{
    base_buf_reset(b);
    base_err e = base_buf_append_str(b, "(");
    if (!e)
        e = base_buf_append(b, text, len);
    if (!e)
        e = base_buf_printf(b, ")(\"fv%s\")", nonce);
    return e;
}

/* Adds src at document start on session, in world (NULL: the main world). */
static base_err add_script(cdp_page *page, const char *session, const char *src,
                           const char *world, char *err)
{
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "source", src) ||
        (world && !cJSON_AddStringToObject(pa, "worldName", world))) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "kit: out of memory");
    }
    return cdp_call(cdp_page_conn(page), session, "Page.addScriptToEvaluateOnNewDocument", pa,
                    NULL, KIT_TIMEOUT_MS, err);
}

/* Both halves on one session (NULL = the page's): at document start, then in
 * the current document (the recorder in the main world, the bridge in
 * fovea's world of the session's root frame). */
static base_err install_on(cdp_page *page, const char *session, const char *listen,
                           const char *bridge, char *err)
{
    const char *sid = session ? session : cdp_page_session(page);
    base_err e = add_script(page, sid, listen, NULL, err);
    if (!e)
        e = add_script(page, sid, bridge, CDP_WORLD_NAME, err);
    /* In the current document the page's scripts ran first and may have
     * broken the built-ins the recorder needs: then it is simply not there
     * (the bridge reports the document late, and the probe asks
     * DOMDebugger), which is no reason to fail. */
    char rerr[BASE_ERRBUF_SIZE] = "";
    base_err re = e ? BASE_OK
                    : cdp_page_evaluate_in(page, session, 0, listen, NULL, KIT_TIMEOUT_MS, rerr);
    if (re == BASE_EREMOTE)
        base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "kit: recorder not installed late: %s", rerr);
    else if (re)
        e = base_errf(err, re, "%s", rerr);
    if (!e)
        e = cdp_page_evaluate_in(page, session, CDP_CTX_FOVEA, bridge, NULL, KIT_TIMEOUT_MS, err);
    return e;
}

base_err perc_kit_install(cdp_page *page, char *err)
{
    if (!page)
        return base_errf(err, BASE_EINVAL, "kit: NULL page");
    char nonce[40];
    make_nonce(nonce);
    base_buf lb, bb;
    base_buf_init(&lb, KIT_MAX_EXPR);
    base_buf_init(&bb, KIT_MAX_EXPR);
    base_err e = with_nonce(&lb, fovea_js_listen, fovea_js_listen_len, nonce);
    if (!e)
        e = with_nonce(&bb, fovea_js_bridge, fovea_js_bridge_len, nonce);
    if (e) {
        base_buf_fini(&lb);
        base_buf_fini(&bb);
        return base_errf(err, e, "kit: cannot build the recorder");
    }
    const char *ls = (const char *)lb.data, *bs = (const char *)bb.data;
    e = install_on(page, NULL, ls, bs, err);
    cdp_frame fr[KIT_MAX_FRAMES];
    int n = e ? 0 : cdp_page_frames(page, fr, KIT_MAX_FRAMES);
    for (int i = 0; i < n && i < KIT_MAX_FRAMES; i++) {
        if (!fr[i].oopif)
            continue;
        char ferr[BASE_ERRBUF_SIZE] = "";
        if (install_on(page, fr[i].session, ls, bs, ferr))
            base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "kit: frame %s not set up: %s", fr[i].id, ferr);
    }
    base_buf_fini(&lb);
    base_buf_fini(&bb);
    return e;
}

/* A positive int32 node id; 0 when x is not one. */
static int get_id(const cJSON *x, int *v)
{
    if (!cJSON_IsNumber(x) || x->valuedouble < 1 || x->valuedouble > 0x7fffffff)
        return 0;
    *v = (int)x->valuedouble;
    return 1;
}

#define KIT_MAX_CLOSED 256 /* closed shadow roots handed to fovea's world per document */

/* Collects the backend ids of closed shadow roots under node (a DOM.Node of
 * DOM.getDocument with pierce), not entering frames' documents (another
 * frame's world would own them). */
static void closed_roots_of(const cJSON *node, int *ids, int *n, int depth)
{
    if (!node || depth > 512)
        return;
    const cJSON *sr;
    cJSON_ArrayForEach(sr, cJSON_GetObjectItemCaseSensitive(node, "shadowRoots"))
    {
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sr, "shadowRootType"));
        int id = 0;
        if (t && strcmp(t, "closed") == 0 && *n < KIT_MAX_CLOSED &&
            get_id(cJSON_GetObjectItemCaseSensitive(sr, "backendNodeId"), &id))
            ids[(*n)++] = id;
        closed_roots_of(sr, ids, n, depth + 1);
    }
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(node, "children"))
        closed_roots_of(k, ids, n, depth + 1);
}

/* DOM.getDocument with pierce finds the closed roots (the browser sees them;
 * no page script can), DOM.resolveNode makes each a ShadowRoot of fovea's
 * world, and assets/js/lib/bridge.js's Symbol.for('fovea.closed.add') keeps
 * it. */
void perc_kit_closed_roots(cdp_page *page, const char *session, int context_id)
{
    if (!page)
        return;
    const char *sid = session && session[0] ? session : cdp_page_session(page);
    cdp_conn *conn = cdp_page_conn(page);
    if (context_id <= 0 && cdp_page_world(page, session, NULL, KIT_TIMEOUT_MS, &context_id, NULL))
        return;
    cJSON *pa = cJSON_CreateObject(), *doc = NULL;
    if (!pa || !cJSON_AddNumberToObject(pa, "depth", -1) || !cJSON_AddBoolToObject(pa, "pierce", 1)) {
        cJSON_Delete(pa);
        return;
    }
    if (cdp_call(conn, sid, "DOM.getDocument", pa, &doc, KIT_TIMEOUT_MS, NULL))
        return;
    int *ids = base_malloc(KIT_MAX_CLOSED * sizeof *ids);
    int n = 0;
    if (ids)
        closed_roots_of(cJSON_GetObjectItemCaseSensitive(doc, "root"), ids, &n, 0);
    cJSON_Delete(doc);
    for (int i = 0; i < n; i++) {
        cJSON *rp = cJSON_CreateObject(), *res = NULL;
        if (!rp || !cJSON_AddNumberToObject(rp, "backendNodeId", ids[i]) ||
            !cJSON_AddNumberToObject(rp, "executionContextId", context_id) ||
            !cJSON_AddStringToObject(rp, "objectGroup", "fovea-closed")) {
            cJSON_Delete(rp);
            break;
        }
        if (cdp_call(conn, sid, "DOM.resolveNode", rp, &res, KIT_TIMEOUT_MS, NULL))
            continue;
        const char *oid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(res, "object"), "objectId"));
        cJSON *cp = oid ? cJSON_CreateObject() : NULL;
        if (cp && cJSON_AddStringToObject(cp, "objectId", oid) &&
            cJSON_AddStringToObject(cp, "functionDeclaration",
                                    "function () { const f = globalThis[Symbol.for("
                                    "'fovea.closed.add')]; if (typeof f === 'function') f(this); }"))
            cdp_call(conn, sid, "Runtime.callFunctionOn", cp, NULL, KIT_TIMEOUT_MS, NULL);
        else
            cJSON_Delete(cp);
        cJSON_Delete(res);
    }
    base_free(ids);
    cJSON *rg = cJSON_CreateObject();
    if (rg && cJSON_AddStringToObject(rg, "objectGroup", "fovea-closed"))
        cdp_call(conn, sid, "Runtime.releaseObjectGroup", rg, NULL, KIT_TIMEOUT_MS, NULL);
    else
        cJSON_Delete(rg);
}

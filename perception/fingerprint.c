/* perception/fingerprint.c: page fingerprints for the procedural/declarative
 * gate (seed 002 §4.5).
 *
 * The browser does the hashing: assets/js/fingerprint.js walks one document
 * (and its same-origin iframes) and returns three 64-bit hashes as hex, the
 * URL, the scroll bucket and the mutation counter that assets/js/fp_observer.js
 * keeps. Cross-origin iframes live in other renderer processes, so the same
 * probe is evaluated once more in each of their CDP sessions and the answers
 * are folded into h_frame here, in a fixed order (by frame id) so that the
 * result does not depend on the order in which Chromium attached them.
 *
 * The probe is always sent with the observer script in front of it: the
 * observer is a no-op where it is installed already, and in a frame that was
 * never set up (an iframe that attached after install) it starts counting
 * from that first fingerprint on.
 */
#include "perception/fingerprint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/num.h"
#include "perception/js.h"
#include "perception/kit.h"

#define FP_TIMEOUT_MS 10000
#define FP_MAX_FRAMES 64

/* FNV-1a 64 over bytes, then a 64-bit finaliser (splitmix64's), used to fold
 * the per-frame answers into h_frame. */
static uint64_t fold_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t fold_u64(uint64_t h, uint64_t v)
{
    return fold_bytes(h, &v, sizeof v);
}

static uint64_t finish(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* The expression sent to every frame: observer, then probe. Caller frees. */
static char *probe_expr(void)
{
    size_t n = fovea_js_fp_observer_len + fovea_js_fingerprint_len + 4;
    char *s = base_malloc(n);
    if (!s)
        return NULL;
    snprintf(s, n, "%s;\n%s", (const char *)fovea_js_fp_observer, (const char *)fovea_js_fingerprint);
    return s;
}

/* Parses 16 hex digits; 0 and an error on anything else. */
static int parse_hex64(const cJSON *o, const char *key, uint64_t *out)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    if (!s || strlen(s) != 16)
        return -1;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 16);
    if (!end || *end)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

typedef struct frame_answer {
    uint64_t d, t, f;
    uint32_t mut;
    int sy;
    char url[1024];
} frame_answer;

static base_err parse_answer(const cJSON *v, frame_answer *a, const char *where, char *err)
{
    if (!cJSON_IsObject(v) || parse_hex64(v, "d", &a->d) || parse_hex64(v, "t", &a->t) ||
        parse_hex64(v, "f", &a->f))
        return base_errf(err, BASE_EPROTO, "fingerprint: malformed probe reply from %s", where);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, "m");
    const cJSON *sy = cJSON_GetObjectItemCaseSensitive(v, "sy");
    const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "u"));
    a->mut = cJSON_IsNumber(m) && m->valuedouble >= 0 && m->valuedouble < 4294967295.0
                 ? (uint32_t)m->valuedouble
                 : 0;
    a->sy = 0;
    if (cJSON_IsNumber(sy) && base_num_to_int(sy->valuedouble, -1000000000, 1000000000, &a->sy))
        a->sy = 0;
    snprintf(a->url, sizeof a->url, "%s", u ? u : "");
    return BASE_OK;
}

base_err perc_fingerprint_install(cdp_page *page, char *err)
{
    if (!page)
        return base_errf(err, BASE_EINVAL, "fingerprint: NULL page");
    /* Every later document of the page's session (its main frame and the
     * in-process iframes) gets the observer before any page script runs, in
     * fovea's isolated world: the page can neither see nor fake its count. */
    cJSON *pa = cJSON_CreateObject();
    if (!pa || !cJSON_AddStringToObject(pa, "source", (const char *)fovea_js_fp_observer) ||
        !cJSON_AddStringToObject(pa, "worldName", CDP_WORLD_NAME)) {
        cJSON_Delete(pa);
        return base_errf(err, BASE_ENOMEM, "fingerprint: out of memory");
    }
    base_err e = cdp_page_call(page, "Page.addScriptToEvaluateOnNewDocument", pa, NULL,
                               FP_TIMEOUT_MS, err);
    if (e)
        return e;
    /* The page kit's listener recorder rides along: whoever watches the
     * page for fingerprints also wants its listener-only controls known. */
    e = perc_kit_install(page, err);
    if (e)
        return e;
    e = cdp_page_evaluate_in(page, NULL, CDP_CTX_FOVEA, (const char *)fovea_js_fp_observer, NULL,
                             FP_TIMEOUT_MS, err);
    if (e)
        return e;
    /* Out-of-process iframes present now: the same, through their sessions.
     * A failure here is not fatal (the frame may be going away); the probe
     * installs the observer lazily anyway. */
    cdp_frame fr[FP_MAX_FRAMES];
    int n = cdp_page_frames(page, fr, FP_MAX_FRAMES);
    for (int i = 0; i < n && i < FP_MAX_FRAMES; i++) {
        if (!fr[i].oopif)
            continue;
        cJSON *sp = cJSON_CreateObject();
        if (!sp || !cJSON_AddStringToObject(sp, "source", (const char *)fovea_js_fp_observer) ||
            !cJSON_AddStringToObject(sp, "worldName", CDP_WORLD_NAME)) {
            cJSON_Delete(sp);
            return base_errf(err, BASE_ENOMEM, "fingerprint: out of memory");
        }
        char ferr[BASE_ERRBUF_SIZE] = "";
        if (cdp_call(cdp_page_conn(page), fr[i].session, "Page.addScriptToEvaluateOnNewDocument",
                     sp, NULL, FP_TIMEOUT_MS, ferr))
            base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "fingerprint: frame %s not set up: %s",
                     fr[i].id, ferr);
    }
    return BASE_OK;
}

static int cmp_frame_id(const void *a, const void *b)
{
    return strcmp(((const cdp_frame *)a)->id, ((const cdp_frame *)b)->id);
}

/* The short call for a document that already keeps the fingerprint
 * function (fingerprint.js stores it on the observer's state): the full
 * expression carries the page kit, whose parse would dominate every take. */
static const char FP_SHORT[] = "(() => { const st = window.__foveaFpObserver;"
                               " return st && st.take ? st.take() : null; })()";

/* Evaluates the fingerprint on session (NULL: the page's): the short call,
 * then the full expression when the document has no function yet. */
static base_err eval_fp(cdp_page *page, const char *session, const char *full, cJSON **v,
                        char *err)
{
    cJSON *r = NULL;
    base_err e = cdp_page_evaluate_in(page, session, CDP_CTX_FOVEA, FP_SHORT, &r, FP_TIMEOUT_MS, err);
    if (!e && r && !cJSON_IsNull(r)) {
        *v = r;
        return BASE_OK;
    }
    cJSON_Delete(r);
    if (e)
        return e;
    return cdp_page_evaluate_in(page, session, CDP_CTX_FOVEA, full, v, FP_TIMEOUT_MS, err);
}

base_err perc_fingerprint_take(cdp_page *page, perc_fingerprint *out, char *err)
{
    if (!page || !out)
        return base_errf(err, BASE_EINVAL, "fingerprint: NULL argument");
    double t0 = base_monotime_ms();
    char *expr = probe_expr();
    if (!expr)
        return base_errf(err, BASE_ENOMEM, "fingerprint: out of memory");
    cJSON *v = NULL;
    base_err e = eval_fp(page, NULL, expr, &v, err);
    frame_answer top;
    if (!e) {
        e = parse_answer(v, &top, "the top document", err);
        cJSON_Delete(v);
    }
    if (e) {
        base_free(expr);
        return e;
    }
    /* Out-of-process iframes: one more evaluate each, folded in frame-id
     * order. A frame that vanished between listing and evaluating leaves a
     * marker instead of failing the fingerprint: its absence is a change. */
    uint64_t hf = fold_u64(0xcbf29ce484222325ull, top.f);
    uint32_t mut = top.mut;
    cdp_frame fr[FP_MAX_FRAMES];
    int n = cdp_page_frames(page, fr, FP_MAX_FRAMES);
    if (n > FP_MAX_FRAMES)
        n = FP_MAX_FRAMES;
    qsort(fr, (size_t)n, sizeof fr[0], cmp_frame_id);
    for (int i = 0; i < n; i++) {
        if (!fr[i].oopif)
            continue;
        hf = fold_bytes(hf, fr[i].id, strlen(fr[i].id) + 1);
        char ferr[BASE_ERRBUF_SIZE] = "";
        frame_answer a;
        cJSON *fv = NULL;
        if (eval_fp(page, fr[i].session, expr, &fv, ferr) == BASE_OK &&
            parse_answer(fv, &a, fr[i].id, ferr) == BASE_OK) {
            hf = fold_bytes(hf, a.url, strlen(a.url) + 1);
            hf = fold_u64(fold_u64(fold_u64(hf, a.d), a.t), a.f);
            mut += a.mut;
        } else {
            base_log(BASE_LOG_PERC, BASE_LOG_DEBUG, "fingerprint: frame %s: %s", fr[i].id, ferr);
            hf = fold_bytes(hf, "#gone", 5);
        }
        cJSON_Delete(fv);
    }
    base_free(expr);
    out->h_dom = top.d;
    out->h_text = top.t;
    out->h_frame = finish(hf);
    snprintf(out->url, sizeof out->url, "%s", top.url);
    out->mutation_count = mut;
    out->scroll_bucket_y = top.sy;
    out->ms = base_monotime_ms() - t0;
    return BASE_OK;
}

int perc_fingerprint_equal(const perc_fingerprint *a, const perc_fingerprint *b)
{
    if (!a || !b)
        return 0;
    return a->h_dom == b->h_dom && a->h_text == b->h_text && a->h_frame == b->h_frame &&
           strcmp(a->url, b->url) == 0;
}

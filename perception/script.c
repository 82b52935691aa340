/* perception/script.c: the install-once, call-short protocol for embedded
 * page scripts (perception/script_int.h).
 *
 * The key carries an FNV-1a hash of the script text, so a newer fovea never
 * calls an older copy a long-lived document kept. The function is stored
 * non-enumerable and configurable on globalThis: the page's own code does
 * not see it in for-in loops, and a page that freezes globalThis only costs
 * the re-send on every call (the try/catch keeps the call working).
 */
#include "perception/script_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"

#define SCRIPT_MAX_EXPR (4u << 20)

static void script_key(const perc__script *s, char *key, size_t cap)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a 64 */
    for (size_t i = 0; i < *s->len; i++) {
        h ^= s->text[i];
        h *= 1099511628211ull;
    }
    snprintf(key, cap, "fovea.%s.%016llx", s->name, (unsigned long long)h);
}

static base_err eval_timed(cdp_page *page, const char *session, int context_id, const char *expr,
                           int timeout_ms, cJSON **value, double *ms, char *err)
{
    int64_t t0 = base_monotime();
    /* 0 names fovea's own isolated world, never the page's main world: the
     * page's scripts can neither see the installed function nor change the
     * built-ins it calls. */
    base_err e = cdp_page_evaluate_in(page, session, context_id > 0 ? context_id : CDP_CTX_FOVEA,
                                      expr, value, timeout_ms, err);
    if (ms)
        *ms += (double)(base_monotime() - t0) / 1000.0;
    return e;
}

base_err perc__script_call(cdp_page *page, const char *session, int context_id,
                           const perc__script *s, const char *args, int timeout_ms,
                           cJSON **value, double *ms, char *err)
{
    if (!page || !s || !s->text || !s->len || !s->name || !args || !value)
        return base_errf(err, BASE_EINVAL, "page script: bad arguments");
    char key[96];
    script_key(s, key, sizeof key);
    base_buf b;
    base_buf_init(&b, SCRIPT_MAX_EXPR);
    base_err e = base_buf_printf(&b,
                                 "(() => { const f = globalThis[Symbol.for('%s')];"
                                 " return typeof f === 'function' ? f(%s) : null; })()",
                                 key, args);
    if (e) {
        base_buf_fini(&b);
        return base_errf(err, e, "page script %s: cannot build the call", s->name);
    }
    cJSON *v = NULL;
    e = eval_timed(page, session, context_id, (const char *)b.data, timeout_ms, &v, ms, err);
    if (!e && (!v || cJSON_IsNull(v))) {
        cJSON_Delete(v);
        v = NULL;
        base_buf_reset(&b);
        e = base_buf_append_str(&b, "(() => { const f = (");
        if (!e)
            e = base_buf_append(&b, s->text, *s->len);
        if (!e)
            e = base_buf_printf(&b,
                                "); try { Object.defineProperty(globalThis, Symbol.for('%s'),"
                                " {value: f, configurable: true}); } catch (e) {}"
                                " return f(%s); })()",
                                key, args);
        if (e)
            e = base_errf(err, e, "page script %s: cannot build the call", s->name);
        else
            e = eval_timed(page, session, context_id, (const char *)b.data, timeout_ms, &v, ms,
                           err);
    }
    base_buf_fini(&b);
    if (e) {
        cJSON_Delete(v);
        return e;
    }
    *value = v;
    return BASE_OK;
}

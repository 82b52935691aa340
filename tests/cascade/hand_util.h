/* tests/cascade/hand_util.h: small helpers shared by the hand's live tests. */
#ifndef FOVEA_TESTS_CASCADE_HAND_UTIL_H
#define FOVEA_TESTS_CASCADE_HAND_UTIL_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "cascade/cascade.h"
#include "cdp/browser.h"
#include "harness.h"

/* Evaluates expr in the page's main world; the value (caller frees) or NULL. */
static inline cJSON *hu_eval(cdp_page *p, const char *expr)
{
    cJSON *v = NULL;
    char err[256] = "";
    if (cdp_page_evaluate(p, expr, &v, 10000, err)) {
        fprintf(stderr, "evaluate %s: %s\n", expr, err);
        return NULL;
    }
    return v;
}

/* A string-valued expression into buf ("" on failure). */
static inline const char *hu_str(cdp_page *p, const char *expr, char *buf, size_t n)
{
    cJSON *v = hu_eval(p, expr);
    snprintf(buf, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
    cJSON_Delete(v);
    return buf;
}

static inline double hu_num(cdp_page *p, const char *expr)
{
    cJSON *v = hu_eval(p, expr);
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1e9;
    cJSON_Delete(v);
    return d;
}

/* window.__events of the page (caller frees), and clears them. */
static inline cJSON *hu_events(cdp_page *p)
{
    cJSON *v = hu_eval(p, "(() => { const e = window.__events.slice(); window.__events.length = 0; return e; })()");
    return v;
}

/* Drops the page's logged events. */
static inline void hu_clear(cdp_page *p)
{
    cJSON_Delete(hu_events(p));
}

/* Counts events of type (NULL: any) and how many of them were untrusted. */
static inline int hu_count(const cJSON *ev, const char *type, int *untrusted)
{
    int n = 0, u = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ev)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "type");
        if (type && !(cJSON_IsString(t) && strcmp(t->valuestring, type) == 0))
            continue;
        n++;
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "trusted")))
            u++;
    }
    if (untrusted)
        *untrusted = u;
    return n;
}

static inline cascade_target hu_xpath(const char *xpath, const char *frame)
{
    cascade_target t;
    memset(&t, 0, sizeof t);
    t.xpath = xpath;
    t.frame_id = frame;
    t.label = xpath;
    return t;
}

/* 1 when the expression evaluates to true on session (NULL = the page's). */
static inline int hu_true_in(cdp_page *p, const char *session, const char *expr)
{
    cJSON *v = NULL;
    int yes = cdp_page_evaluate_in(p, session, 0, expr, &v, 2000, NULL) == BASE_OK &&
              cJSON_IsTrue(v);
    cJSON_Delete(v);
    return yes;
}

/* Opens hand/frames.html (the cross-site frame on origin B) and waits up to
 * 5 s until both frames are known, the cross-site one with its own session,
 * and both inner documents have loaded: their event loggers (a script at
 * the end of inner.html) are attached, so a click cannot come before them
 * on a loaded machine. Writes their frame ids (64 bytes each); NULL page on
 * failure. */
static inline cdp_page *hu_open_frames(char *same, char *cross)
{
    char path[256], b[128];
    harness_url(1, "", b, sizeof b);
    snprintf(path, sizeof path, "/hand/frames.html?b=%s", b);
    cdp_page *p = harness_open(800, 600, 1.0, path);
    same[0] = cross[0] = '\0';
    int loaded = 0;
    for (int tries = 0; p && tries < 100 && !(same[0] && cross[0] && loaded); tries++) {
        cdp_frame fr[16];
        int n = cdp_page_frames(p, fr, 16);
        const char *cross_session = NULL;
        for (int i = 0; i < n && i < 16; i++) {
            if (strstr(fr[i].url, "frame=same"))
                snprintf(same, 64, "%.63s", fr[i].id);
            if (strstr(fr[i].url, "frame=cross") && fr[i].oopif) {
                snprintf(cross, 64, "%.63s", fr[i].id);
                cross_session = fr[i].session;
            }
        }
        loaded = same[0] && cross[0] && cross_session && cross_session[0] &&
                 hu_true_in(p, NULL,
                            "(() => { const d = document.getElementById('same').contentDocument;"
                            " return !!d && d.readyState === 'complete'; })()") &&
                 hu_true_in(p, cross_session, "document.readyState === 'complete'");
        if (!(same[0] && cross[0] && loaded))
            base_sleep_ms(50);
    }
    if (p && !(same[0] && cross[0] && loaded)) {
        fprintf(stderr, "frames not ready (same=%s cross=%s loaded=%d)\n", same, cross, loaded);
        cdp_page_close(p);
        return NULL;
    }
    return p;
}

/* Fast options for tests: no humanization, short waits. */
static inline void hu_fast_opts(cascade_opts *o)
{
    cascade_opts_init(o);
    o->humanize = 0;
    o->effect_ms = 250;
    o->wait_ms = 300;
    o->seed = 42;
}

#endif

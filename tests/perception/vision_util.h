/* tests/perception/vision_util.h: small helpers shared by the vision tests. */
#ifndef FOVEA_TESTS_VISION_UTIL_H
#define FOVEA_TESTS_VISION_UTIL_H

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "cdp/browser.h"
#include "perception/vision.h"

/* The nth box (0-based) labelled label, or NULL. */
static inline const perc_box *vu_find(const perc_detection *d, const char *label, int nth)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->boxes[i].label, label) == 0 && nth-- == 0)
            return &d->boxes[i];
    return NULL;
}

/* Box b exists and has exactly the rect (X0, Y0)-(X1, Y1). */
#define VU_CHECK_RECT(b, X0, Y0, X1, Y1)                                                   \
    do {                                                                                   \
        CHECK_MSG((b) != NULL, "box missing");                                             \
        CHECK_NEAR((b)->r.x0, X0, 1e-3);                                                   \
        CHECK_NEAR((b)->r.y0, Y0, 1e-3);                                                   \
        CHECK_NEAR((b)->r.x1, X1, 1e-3);                                                   \
        CHECK_NEAR((b)->r.y1, Y1, 1e-3);                                                   \
    } while (0)

/* Evaluates expr in session (NULL: the page's top document); 0 on success
 * (prints why not). */
static inline int vu_eval_session(cdp_page *p, const char *session, const char *expr)
{
    char err[256] = "";
    if (cdp_page_evaluate_in(p, session, 0, expr, NULL, 10000, err)) {
        fprintf(stderr, "evaluate %s: %s\n", expr, err);
        return -1;
    }
    return 0;
}

static inline int vu_eval(cdp_page *p, const char *expr)
{
    return vu_eval_session(p, NULL, expr);
}

/* Waits up to 10 s for an out-of-process frame whose URL contains needle;
 * copies its session into session (64 bytes). 0 when found. */
static inline int vu_wait_oopif(cdp_page *p, const char *needle, char *session)
{
    double t0 = base_monotime_ms();
    while (base_monotime_ms() - t0 < 10000) {
        cdp_frame fr[16];
        int n = cdp_page_frames(p, fr, 16);
        for (int i = 0; i < n && i < 16; i++) {
            if (fr[i].oopif && strstr(fr[i].url, needle)) {
                snprintf(session, 64, "%s", fr[i].session);
                return 0;
            }
        }
        base_sleep_ms(20);
    }
    return -1;
}

#endif

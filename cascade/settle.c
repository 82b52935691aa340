/* cascade/settle.c: waiting for what an action started, and no longer.
 *
 * The renderer emits Page.frameRequestedNavigation while it runs the
 * action's handlers and default action (link, form submit, location =),
 * and a session's events and replies arrive in the order it sent them. So
 * after one round trip to the page every navigation the action requested
 * so far has been announced; then only a navigation needs waiting for
 * (until the main frame stops loading), and a plain DOM update costs one
 * round trip instead of a fixed grace period. A requested navigation that
 * never starts (cancelled, a download, a 204) is given NAV_START_MS. A
 * navigation started later from a timer is not waited for here; the next
 * step's gate sees the new page's fingerprint.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/interrupt.h"
#include "cascade/cascade.h"

/* How long end waits for a navigation to start when the page did not
 * answer its round trip (a busy or unloading page). */
#define SETTLE_GRACE_MS 60
/* How long a requested navigation may take to start loading. */
#define NAV_START_MS 5000
/* How long a started navigation may take to finish loading. */
#define NAV_LOAD_MS 15000

static int main_frame_pred(const cJSON *params, void *user)
{
    const char *want = user;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(params, "frameId");
    return cJSON_IsString(f) && strcmp(f->valuestring, want) == 0;
}

void cascade_settle_begin(cdp_page *page, const char *main_frame, cascade_settle *w)
{
    memset(w, 0, sizeof *w);
    snprintf(w->frame, sizeof w->frame, "%s", main_frame ? main_frame : "");
    cdp_conn *c = cdp_page_conn(page);
    const char *s = cdp_page_session(page);
    if (cdp_waiter_create(c, s, "Page.frameRequestedNavigation", main_frame_pred, w->frame,
                          &w->requested) != BASE_OK)
        w->requested = NULL;
    if (cdp_waiter_create(c, s, "Page.frameStartedLoading", main_frame_pred, w->frame,
                          &w->started) != BASE_OK)
        w->started = NULL;
    if (cdp_waiter_create(c, s, "Page.frameStoppedLoading", main_frame_pred, w->frame,
                          &w->stopped) != BASE_OK)
        w->stopped = NULL;
}

/* 1 when the waiter's event has arrived (without waiting). */
static int fired(cdp_waiter *w)
{
    return w && cdp_waiter_wait(w, 0, NULL) == BASE_OK;
}

/* cdp_waiter_wait in 50 ms slices, giving up early on a stop signal.
 * Returns 1 when the event arrived. */
static int wait_sliced(cdp_waiter *w, int timeout_ms)
{
    double end = base_monotime_ms() + timeout_ms;
    for (;;) {
        double left = end - base_monotime_ms();
        int slice = left > 50 ? 50 : (int)left + 1;
        if (cdp_waiter_wait(w, slice, NULL) == BASE_OK)
            return 1;
        if (left <= 50 || base_interrupted())
            return 0;
    }
}

int cascade_settle_end(cdp_page *page, cascade_settle *w)
{
    cJSON *v = NULL;
    if (cdp_page_evaluate(page, "0", &v, 2000, NULL) != BASE_OK && w->started)
        cdp_waiter_wait(w->started, SETTLE_GRACE_MS, NULL); /* page busy or gone */
    cJSON_Delete(v);
    int started = fired(w->started);
    if (!started && fired(w->requested))
        started = w->started && wait_sliced(w->started, NAV_START_MS);
    int rc = started ? 1 : 0;
    if (started && w->stopped && !wait_sliced(w->stopped, NAV_LOAD_MS))
        rc = -1;
    cdp_waiter_destroy(w->requested);
    cdp_waiter_destroy(w->started);
    cdp_waiter_destroy(w->stopped);
    memset(w, 0, sizeof *w);
    return rc;
}

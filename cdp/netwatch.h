/* cdp/netwatch.h: a page's network traffic, counted: requests in flight,
 * the time of the last request event, and the HTTP status of the main
 * frame's document.
 *
 * "Wait until the network is idle" (no request in flight for N ms) is how a
 * person waits for a page that keeps loading after its load event: search
 * results fetched by script, a lazy list, an autosave. The watcher enables
 * the Network domain on the page's session and on every out-of-process
 * iframe session (present and future), and keeps, on the cdp service
 * thread, the set of request ids between Network.requestWillBeSent and
 * Network.loadingFinished / loadingFailed (a redirect keeps its id and is
 * one request). A fetch whose body the page never reads stays in flight:
 * Chromium finishes loading a response only as the page consumes it, and
 * so does a long poll or an event stream (such a page is never idle, as a
 * person would also see it still loading). Requests of an iframe session that goes away are dropped
 * with it. The main document's status comes from Network.responseReceived
 * of type Document in the main frame (whose frame id is the page's target
 * id), so a navigation that lands on a 404 or 500 page is known as such.
 *
 * Threads: create, get, wait and destroy from any thread but the service
 * thread; the counters are updated on the service thread under a lock.
 */
#ifndef FOVEA_CDP_NETWATCH_H
#define FOVEA_CDP_NETWATCH_H

#include <stdint.h>

#include "base/err.h"
#include "cdp/browser.h"

typedef struct cdp_netwatch cdp_netwatch;

/* A snapshot of the counters. */
typedef struct cdp_netstat {
    int inflight;              /* requests sent and not yet finished or failed */
    uint64_t started;          /* requests seen (a redirect chain counts once) */
    uint64_t finished, failed; /* requests that ended each way */
    int64_t last_activity_us;  /* base_monotime of the last request event (0: none yet) */
    char last_url[256];        /* the URL of the latest request still in flight, or the last one */
    int doc_status;            /* HTTP status of the main frame's last document, 0 = none yet */
    char doc_url[512];         /* that document's URL */
    uint64_t doc_seq;          /* main documents seen: changes with each navigation */
} cdp_netstat;

/* Starts counting p's requests (Network.enable on its sessions). Requests
 * already in flight before this call are not known. *out is the caller's
 * (cdp_netwatch_destroy, before the page is closed). Any thread but the service
 * thread. Errors: BASE_ENOMEM, those of cdp_call (a page gone: BASE_ECLOSED);
 * *out untouched on failure. */
base_err cdp_netwatch_create(cdp_page *p, cdp_netwatch **out, char *err);

/* Stops counting (Network.disable on the page session, unsubscribes) and frees
 * w. NULL is a no-op. Any thread but the service thread. */
void cdp_netwatch_destroy(cdp_netwatch *w);

/* Copies the counters. Any thread but the service thread. */
void cdp_netwatch_get(cdp_netwatch *w, cdp_netstat *out);

/* Waits until no request has been in flight for idle_ms (the quiet time is
 * measured from the last request event), up to timeout_ms. *last (optional)
 * receives the counters as last seen, so a caller can say what kept the network
 * busy. Any thread but the service thread. Errors: BASE_ETIMEDOUT (still busy:
 * err names how many requests and the latest URL), BASE_ECANCELED (a stop
 * signal, base/interrupt.h), BASE_ECLOSED (the page died), BASE_EINVAL (idle_ms
 * or timeout_ms < 0). */
base_err cdp_netwatch_wait_idle(cdp_netwatch *w, int idle_ms, int timeout_ms, cdp_netstat *last,
                                char *err);

#endif

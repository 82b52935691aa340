/* tests/harness/harness.h: shared set-up for integration tests.
 *
 * Starts two loopback HTTP servers over tests/fixtures/pages (origin A is
 * http://127.0.0.1:PORT_A, origin B is http://localhost:PORT_B: a different
 * site, so Chromium puts B's iframes in their own process) and one headless
 * Chromium for the whole test executable. Test thread only.
 */
#ifndef FOVEA_TESTS_HARNESS_H
#define FOVEA_TESTS_HARNESS_H

#include <stddef.h>

#include "base/geom.h"
#include "serve/httpd.h"
#include "cdp/browser.h"

typedef struct harness {
    serve_httpd *srv_a, *srv_b;
    cdp_browser *browser;
    char origin_a[64], origin_b[64];
    char err[256];
} harness;

/* The process-wide harness, started on first use. NULL if Chromium is
 * missing or failed to start (harness_error() says why); tests then SKIP, which CI
 * counts as a failure. */
harness *harness_get(void);
const char *harness_error(void);

/* Formats origin A (which = 0) or B (1) + path into buf. */
void harness_url(int which, const char *path, char *buf, size_t n);

/* Runs fn(arg) with stderr going to a temporary file and every log
 * category on (base_log_configure("all")); returns what was printed
 * (base_free), or NULL when the capture could not be set up. */
char *harness_capture_stderr(void (*fn)(void *), void *arg);

/* Opens a page with the given viewport and navigates to path on origin A
 * (path NULL: stays on about:blank). */
cdp_page *harness_open(int w, int h, double scale, const char *path);

/* The border box of the first element matching CSS selector sel in p's top
 * document, in top-viewport CSS px (getBoundingClientRect); all NaN when
 * there is none or the page does not answer. */
base_rect harness_rect(cdp_page *p, const char *sel);

/* 1 when every edge of a and b differs by at most tol px. */
int harness_rect_near(base_rect a, base_rect b, float tol);

/* r grown by d px on every side. */
base_rect harness_grow(base_rect r, float d);

/* Stops everything; registered with atexit by harness_get. */
void harness_shutdown(void);

#define HARNESS_OR_SKIP(h)                                                                 \
    harness *h = harness_get();                                                            \
    if (!h)                                                                                \
    SKIP(harness_error())

#endif

/* cdp/console.h: what a page reported as going wrong — console errors and
 * warnings, uncaught exceptions, failed requests — kept per page in a
 * bounded ring from the moment the page was opened or adopted.
 *
 * Every cdp_page feeds its ring from the events of its own session and of
 * its out-of-process iframes' sessions: Runtime.consoleAPICalled (error,
 * warning, assert), Runtime.exceptionThrown (uncaught errors and unhandled
 * rejections) and Log.entryAdded at level warning or error (the browser's
 * own reports: failed resource loads with their status or net error,
 * blocked mixed content, CSP, deprecations). Entries are numbered from 0 in
 * arrival order; the ring keeps the last CDP_CONSOLE_RING of them, so a
 * reader that remembers the count it last saw asks for only the new ones.
 *
 * Threads: entries are added on the cdp service thread; the readers below
 * may be called from any thread (the ring has its own lock).
 */
#ifndef FOVEA_CDP_CONSOLE_H
#define FOVEA_CDP_CONSOLE_H

#include <stdint.h>

#include "cdp/browser.h"

#define CDP_CONSOLE_RING 128

typedef enum cdp_console_kind {
    CDP_CONSOLE_ERROR,     /* console.error / console.assert failure */
    CDP_CONSOLE_WARNING,   /* console.warn */
    CDP_CONSOLE_EXCEPTION, /* an uncaught exception or unhandled rejection */
    CDP_CONSOLE_NETWORK,   /* a request failed (HTTP status >= 400, net error) */
    CDP_CONSOLE_BROWSER,   /* another browser report at warning/error level */
} cdp_console_kind;

/* One entry. Strings are NUL-terminated and cut to fit (UTF-8 safe). */
typedef struct cdp_console_entry {
    uint64_t seq;            /* 0-based arrival number */
    cdp_console_kind kind;
    int error;               /* 1 at error level, 0 for a warning */
    char source[24];         /* "console", "exception", or Log's source ("network", ...) */
    char text[768];          /* the message; an exception's first description line */
    char url[384];           /* where: script or resource URL, "" when unknown */
    int line, column;        /* 1-based; 0 when unknown */
    double wall_ms;          /* when, ms since the Unix epoch (the browser's clock) */
} cdp_console_entry;

/* Lower-case name of k ("error", "warning", "exception", "network",
 * "browser"). Any thread. */
const char *cdp_console_kind_name(cdp_console_kind k);

/* How many entries page p has recorded since it was opened (the next entry's
 * seq). Borrows p. Any thread (it takes only the ring's lock). Errors: none (0
 * for NULL). */
uint64_t cdp_page_console_count(cdp_page *p);

/* The seq of the oldest entry still kept (entries before it were pushed out of
 * the ring: count - CDP_CONSOLE_RING, or 0). Borrows p. Any thread. Errors:
 * none (0 for NULL). */
uint64_t cdp_page_console_first(cdp_page *p);

/* Copies entry seq into *out. *out is the caller's. Any thread. Errors: returns
 * 0 (out untouched) when seq is not recorded yet or no longer kept, else 1. */
int cdp_page_console_get(cdp_page *p, uint64_t seq, cdp_console_entry *out);

#endif

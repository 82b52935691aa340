/* cdp/console_int.h: the per-page console ring (cdp/console.c) as browser.c
 * drives it. Private to cdp/. */
#ifndef FOVEA_CDP_CONSOLE_INT_H
#define FOVEA_CDP_CONSOLE_INT_H

#include <cjson/cJSON.h>

#include "cdp/console.h"

typedef struct cdp__console cdp__console;

/* A ring with nothing in it (entries are allocated on the first one). NULL
 * on allocation failure; the page then records nothing. Any thread. */
cdp__console *cdp__console_create(void);

/* Frees the ring. NULL: no-op. No event may be running on it. */
void cdp__console_destroy(cdp__console *c);

/* Records what an event of one of the page's sessions reports, when it is
 * one the ring keeps (see console.h); other events are ignored. Service
 * thread; c may be NULL. */
void cdp__console_on_event(cdp__console *c, const char *method, const cJSON *params);

/* The ring's readers, as cdp_page_console_count/_first/_get (console.h)
 * are for a page's ring; c may be NULL (nothing recorded). Any thread. */
uint64_t cdp__console_count(cdp__console *c);
uint64_t cdp__console_first(cdp__console *c);
int cdp__console_get(cdp__console *c, uint64_t seq, cdp_console_entry *out);

/* The page's ring (browser.c), NULL when it has none. */
cdp__console *cdp__page_console(cdp_page *p);

#endif
